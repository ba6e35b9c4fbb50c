# A tiny service whose price cache never evicts: every request for a new SKU leaves a Quote
# behind for good. Run it to get a heap dump of the leak:
#   ruby samples/leaky_cache.rb OUTPUT.json [REQUESTS]
# written by ObjectSpace.dump_all, or with MEMPROF=1 by Memprof.dump_all (memprof on the load
# path: ruby -I build/dumper/ext ...), whose dump names every reference.
require "objspace"
MEMPROF = ENV["MEMPROF"] == "1"
require "memprof" if MEMPROF

module Catalog
  class Quote
    def initialize(sku, price)
      @sku = sku
      @price = price
      @currency = "EUR"
      @note = "quoted for #{sku}"
    end
  end

  class PriceCache
    def initialize
      @store = {}
    end

    # The leak: entries go in and never come out.
    def fetch(sku)
      @store[sku] ||= Quote.new(sku, sku.hash % 1000)
    end
  end
end

CACHE = Catalog::PriceCache.new

def handle_request(i)
  quote = CACHE.fetch("sku-#{i}")
  "response for #{quote.object_id}"  # garbage: freed after each request
end

output = ARGV.fetch(0) { abort "usage: ruby #{$0} OUTPUT.json [REQUESTS]" }
requests = Integer(ARGV.fetch(1, "20000"))

# The requests run in a thread of their own: Ruby's GC scans a live thread's machine stack
# conservatively, and a stale word left on the main thread's stack by the last request could
# keep the cache's Hash (or a Quote) reachable from there, on a shorter path than the cache's.
def serve(requests) = Thread.new { requests.times { |i| handle_request(i) } }.join

if MEMPROF
  Memprof.start
  serve(requests)
  GC.start
  Memprof.dump_all(output)  # written to a temporary name, renamed when complete
  Memprof.stop
else
  ObjectSpace.trace_object_allocations_start
  serve(requests)
  ObjectSpace.trace_object_allocations_stop
  GC.start
  File.open("#{output}.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
  File.rename("#{output}.tmp", output)
end
