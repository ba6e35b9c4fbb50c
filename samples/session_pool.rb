# A Rack app on Debian's rack (ruby-rack) keeps its sessions in memory with Rack::Session::Pool,
# and a client that never sends the session cookie back (an uptime monitor, an API client
# without a cookie jar) calls a page that touches the session: every request starts a new
# session, and the pool keeps each one until it is deleted, which no expiry does in memory.
#
# Leak: per request, the Cart the app puts in the session (the "# leak:" line), the session's
# Hash and its id String (made in rack's session code; memprof's allocation stacks name the
# app's line that made the request), held by the pool's Hash:
#   ... Rack::Session::Pool @pool -> Hash ["2::<session id digest>"] -> Hash -> Cart
# The line to change: keep sessions where they expire (a cookie store, or a cache with a
# TTL), and do not start one for a client that has none.
# Not a leak: requests, responses and their headers.
#
#   ruby samples/session_pool.rb OUTDIR [--memprof | --signal] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps" # first: with --signal, this process runs nothing else
require "rack"
require "rack/session/pool"
require "rack/mock"

Cart = Struct.new(:skus, :opened_at)

# The cart page: opens a cart for a session that has none.
class CartPage
  def call(env)
    session = env["rack.session"]
    cart = session["cart"] ||= Cart.new([], Time.now.to_i) # leak: Cart
    [200, { "content-type" => "text/html" }, ["<p>#{cart.skus.size} items</p>"]]
  end
end

SHOP = Rack::Builder.new do
  use Rack::Session::Pool, key: "shop.session"
  run CartPage.new
end.to_app

# The client: no cookie jar, so no session cookie ever comes back.
def handle_request(_i)
  Rack::MockRequest.new(SHOP).get("/cart")
end

ThreeDumps.run("session_pool", requests: 300) { |i| handle_request(i) }
