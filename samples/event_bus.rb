# Every request subscribes a block to an in-process event bus, to refresh its view when the
# user changes, and never unsubscribes: each block captures its request, so every Request
# lives as long as the bus.
#
# Leak: one Proc per request (the subscribed block, born when EventBus#subscribe stores it;
# memprof dumps also say where the block is written, in ProfileView#render: both lines are
# marked "# leak: Proc"), held by the Array of the event's subscribers; each Proc keeps its
# self (a ProfileView) and its environment, whose captured local "request" keeps the Request
# (the "# leak: Request" line) and the Request's path String:
#   class Object BUS -> EventBus @subscribers -> Hash ["user.updated"] -> Array [9] -> Proc
#     -> IMEMO:env local request -> Request
# The Array is made at boot, when the audit log subscribes (before dump 1).
# Not a leak: the rendered page and the response of each request are garbage.
#
#   ruby samples/event_bus.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps"

class EventBus
  def initialize
    @subscribers = Hash.new { |hash, event| hash[event] = [] }
  end

  def subscribe(event, &block)
    @subscribers[event] << block # leak: Proc
    block
  end

  def publish(event, payload)
    @subscribers.fetch(event, []).each { |subscriber| subscriber.call(payload) }
  end
end

BUS = EventBus.new

class Request
  attr_reader :path, :user_id

  def initialize(path, user_id)
    @path = path
    @user_id = user_id
  end
end

class ProfileView
  def render(request)
    BUS.subscribe("user.updated") { |user_id| refresh(request) if user_id == request.user_id } # leak: Proc
    "<h1>profile of user #{request.user_id}</h1><p>#{request.path}</p>"
  end

  def refresh(request)
    "refreshed #{request.path}"
  end
end

def handle_request(i)
  request = Request.new("/users/#{i}/profile", i) # leak: Request
  body = ProfileView.new.render(request)
  BUS.publish("user.updated", i / 2) if i % 50 == 0
  "HTTP/1.1 200 OK\r\ncontent-length: #{body.bytesize}\r\n\r\n#{body}"
end

AUDIT = []
warm_up = -> { BUS.subscribe("user.updated") { |user_id| AUDIT << user_id } } # at boot: stays
ThreeDumps.run("event_bus", requests: 300, warm_up: warm_up) { |i| handle_request(i) }
