# A Rack app on Debian's rack and activesupport (ruby-rack, ruby-activesupport): a middleware
# counts each request's SQL queries by subscribing to ActiveSupport::Notifications, per request,
# and never unsubscribes. Each subscription keeps its block, and the block its request's env.
#
# Leak: per request, the subscriber objects ActiveSupport's fanout makes (allocated in
# activesupport's notifications/fanout.rb, for the app's line marked "# app:"), the Proc of the
# block (written at that line), its environment, and the env Hash Rack built for the request:
#   ActiveSupport::Notifications @notifier -> ...::Fanout @string_subscribers -> Hash
#     ["sql.active_record"] -> Array -> ...::Subscribers::Timed -> Proc -> ... env
# The line to change is the app's: subscribe once, or unsubscribe when the request ends.
# Not a leak: the response bodies.
#
#   ruby samples/rack_subscriber.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require "active_support"
require "active_support/notifications"
require "rack"
require "rack/mock"
require_relative "three_dumps"

# Counts the SQL queries a request makes, for its log line.
class QueryCounter
  def initialize(app)
    @app = app
  end

  def call(env)
    env["app.queries"] = 0
    ActiveSupport::Notifications.subscribe("sql.active_record") { |*| env["app.queries"] += 1 } # app: Proc
    @app.call(env)
  end
end

ITEMS = Rack::Builder.new do
  use QueryCounter
  run(lambda do |env|
    ActiveSupport::Notifications.instrument("sql.active_record", sql: "SELECT * FROM items") { nil }
    [200, { "content-type" => "text/plain" }, ["item #{env['PATH_INFO'][/\d+/]}"]]
  end)
end.to_app

def handle_request(i)
  Rack::MockRequest.new(ITEMS).get("/items/#{i}")
end

ThreeDumps.run("rack_subscriber", requests: 300) { |i| handle_request(i) }
