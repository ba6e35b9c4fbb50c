# A pricing service memoizes every quote in a class-level Hash and never evicts it.
#
# Leak: Pricing::Quote objects, allocated in Pricing.quote (the "# leak:" line), one per
# product ever quoted, held by the Hash in Pricing's class instance variable @memo:
#   class Object Pricing -> class Pricing @memo -> Hash [10042] -> Pricing::Quote
# Every request quotes a new product, so the Hash grows by one Quote (and its label String)
# per request.
# Not a leak: the tax table (Pricing.tax_table, the "# warmup:" line) is built once, on the
# first request (after dump 1), then only read: it is bigger than the leak but stays flat.
# The response strings of each request are garbage.
#
#   ruby samples/memo_cache.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps"

class Pricing
  class Quote
    attr_reader :sku, :cents, :label

    def initialize(sku, cents, rate)
      @sku = sku
      @cents = cents
      @rate = rate
      @label = format("%06d %.2f EUR", sku, cents * (1 + rate) / 100.0)
    end
  end

  @memo = {}

  class << self
    # Memoized per product: a new product is a new entry, and nothing ever removes one.
    def quote(sku)
      @memo[sku] ||= Quote.new(sku, 100 + (sku * 37) % 9000, tax_rate(sku)) # leak: Pricing::Quote
    end

    def tax_rate(sku)
      zone = tax_table[sku % tax_table.size]
      zone.getbyte(5) % 25 / 100.0
    end

    # Built on first use, then only read: a one-time cost.
    def tax_table
      @tax_table ||= Array.new(900) { |zone| "zone #{zone}: #{'standard rate, reduced rate, exempt goods; ' * 2}" } # warmup: String
    end
  end
end

def handle_request(i)
  quote = Pricing.quote(10_000 + i)
  body = "<p>#{quote.label}</p>".upcase       # garbage: freed after the request
  "HTTP/1.1 200 OK\r\ncontent-length: #{body.bytesize}\r\n\r\n#{body}"
end

ThreeDumps.run("memo_cache", requests: 300) { |i| handle_request(i) }
