# A small web shop that runs until it is stopped, served by a pool of worker threads as Puma
# would serve a Rack app: requests are routed to controllers, product pages are rendered and
# cached, and listeners subscribed at boot count what happens. It does not load memprof: the
# demo dumps it from outside, by signal, with
#
#   RUBYOPT=-rmemprof MEMPROF_SIGNAL=USR2 MEMPROF_TRACK=1 ruby -I build/dumper/ext samples/shop.rb
#
# and stops it with TERM (or INT). It prints "ready PID" on stdout once it serves requests.
# --rate N: requests per second per worker (200); --workers N (2).
#
# Leak: PageCache::Page objects, allocated by the page_cache gem (its "# leak:" line) when
# ProductsController#show asks for a page (the "# app:" line, which memprof's allocation stacks
# name), held by the Hash in the page cache's @pages:
#   class Object Shop -> module Shop PAGES -> PageCache::Store @pages -> Hash -> PageCache::Page
# The app caches each page under the whole URL, query string included, and every visitor
# arrives with its own tracking parameter (?ref=...): every request makes a new entry, and
# nothing evicts.
# Not a leak: the product cache is a bounded LRU (500 entries) that churns; the listeners are
# subscribed once, at boot; requests, params and response bodies are garbage.
require_relative "vendor/gems/page_cache-1.2.0/lib/page_cache"

module Shop
  Product = Struct.new(:sku, :name, :cents)

  # What Rack would hand the app: the method, the path and the query string's params.
  class Request
    attr_reader :verb, :path, :params

    def initialize(verb, url)
      @verb = verb
      @path, query = url.split("?", 2)
      @params = query.to_s.split("&").to_h { |pair| pair.split("=", 2) }
    end

    def url
      @params.empty? ? @path : "#{@path}?#{@params.map { |k, v| "#{k}=#{v}" }.join('&')}"
    end
  end

  # Listeners subscribe at boot; publish calls each of them.
  class Events
    def initialize
      @listeners = Hash.new { |hash, event| hash[event] = [] }
    end

    def subscribe(event, &listener)
      @listeners[event] << listener
    end

    def publish(event, payload)
      @listeners.fetch(event, []).each { |listener| listener.call(payload) }
    end
  end

  # A least-recently-used cache of at most `capacity` entries.
  class LRU
    def initialize(capacity)
      @capacity = capacity
      @entries = {}
    end

    def fetch(key)
      if (value = @entries.delete(key))
        return @entries[key] = value
      end

      @entries[key] = yield
      @entries.shift while @entries.size > @capacity
      @entries[key]
    end
  end

  EVENTS = Events.new
  PRODUCTS = LRU.new(500)
  PAGES = PageCache::Store.new
  STATS = Hash.new(0)

  # The catalog: a product is made when first asked for and kept while it is popular.
  def self.product(sku)
    PRODUCTS.fetch(sku) { Product.new(sku, "Product #{sku}", 100 + (sku * 37) % 9000) }
  end

  class ProductsController
    def show(request)
      product = Shop.product(Integer(request.path[%r{\d+}]))
      EVENTS.publish("product.viewed", product.sku)
      # The bug: the page is cached under the whole URL, so a page cached once per product
      # becomes a page cached once per visitor (each arrives with its own ?ref=).
      PAGES.fetch(request.url) do # app: the line to change
        "<html><h1>#{product.name}</h1><p>#{format('%.2f', product.cents / 100.0)} EUR</p></html>"
      end.body
    end
  end

  class CartController
    def add(request)
      EVENTS.publish("cart.added", request.params["sku"])
      "<p>added #{request.params['sku']}</p>"
    end
  end

  ROUTES = {
    "GET" => [%r{\A/products/\d+\z}, ProductsController, :show],
    "POST" => [%r{\A/cart\z}, CartController, :add]
  }.freeze

  def self.call(request)
    pattern, controller, action = ROUTES.fetch(request.verb)
    return [404, "not found"] unless pattern.match?(request.path)

    [200, controller.new.public_send(action, request)]
  end

  def self.boot
    EVENTS.subscribe("product.viewed") { |_sku| STATS[:views] += 1 }
    EVENTS.subscribe("cart.added") { |_sku| STATS[:carts] += 1 }
  end
end

# The server: each worker takes the next visitor's request, at a steady rate.
def serve(worker, rate, stopping)
  visitor = worker
  until stopping.call
    visitor += 2
    url = "/products/#{visitor % 5000}?ref=visitor-#{visitor}"
    request = visitor % 4 == 0 ? Shop::Request.new("POST", "/cart?sku=#{visitor % 5000}") : Shop::Request.new("GET", url)
    Shop.call(request)
    sleep(1.0 / rate)
  end
end

rate = 200
workers = 2
args = ARGV.dup
until args.empty?
  case (option = args.shift)
  when "--rate" then rate = Float(args.shift)
  when "--workers" then workers = Integer(args.shift)
  else abort "usage: ruby samples/shop.rb [--rate N] [--workers N] (unknown #{option})"
  end
end

stop = false
%w[TERM INT].each { |signal| trap(signal) { stop = true } }
Shop.boot
threads = Array.new(workers) { |worker| Thread.new { serve(worker, rate, -> { stop }) } }
$stdout.puts "ready #{Process.pid}"
$stdout.flush
sleep 0.05 until stop
threads.each(&:join)
