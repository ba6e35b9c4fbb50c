# A Rack app on Debian's rack and activesupport (ruby-rack, ruby-activesupport): a middleware
# times each request's view rendering by subscribing to ActiveSupport::Notifications for the
# request and unsubscribing when it ends, but it unsubscribes with its callback, not with the
# subscriber that subscribe returned. ActiveSupport's unsubscribe takes a subscriber or an
# event name; given anything else (the callback) it finds nothing to remove, and raises no
# error: every request leaves its subscriber behind.
#
# Leak: per request, the subscriber object ActiveSupport's fanout makes (allocated in
# activesupport's notifications/fanout.rb, for the app's line marked "# app:", which memprof's
# allocation stacks name), the callback (a lambda, the "# leak:" line), its environment and
# the request's timings Hash it captured, held by the fanout's Array of the event's subscribers:
#   ActiveSupport::Notifications @notifier -> ...::Fanout @string_subscribers -> Hash
#     ["render_template.action_view"] -> Array -> ...::Subscribers::Timed -> Proc
# The line to change is the unsubscribe: pass it what subscribe returned.
# Not a leak: the response bodies.
#
#   ruby samples/wrong_unsubscribe.rb OUTDIR [--memprof | --signal] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps" # first: with --signal, this process runs nothing else
require "active_support"
require "active_support/notifications"
require "rack"
require "rack/mock"

# Adds up the time each request spends rendering views, for its log line.
class RenderTimer
  EVENT = "render_template.action_view"

  def initialize(app)
    @app = app
  end

  def call(env)
    timings = env["app.render_ms"] = []
    callback = ->(_name, started, finished, _id, _payload) { timings << (finished - started) * 1000 } # leak: Proc
    ActiveSupport::Notifications.subscribe(EVENT, callback) # app: ActiveSupport::Notifications::Fanout::Subscribers::Timed
    @app.call(env)
  ensure
    ActiveSupport::Notifications.unsubscribe(callback) # the bug: not the subscriber
  end
end

PAGES = Rack::Builder.new do
  use RenderTimer
  run(lambda do |env|
    ActiveSupport::Notifications.instrument(RenderTimer::EVENT, identifier: "pages/show") { nil }
    [200, { "content-type" => "text/plain" }, ["page #{env['PATH_INFO'][/\d+/]}"]]
  end)
end.to_app

def handle_request(i)
  Rack::MockRequest.new(PAGES).get("/pages/#{i}")
end

ThreeDumps.run("wrong_unsubscribe", requests: 300) { |i| handle_request(i) }
