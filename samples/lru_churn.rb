# Not a leak: a session cache bounded by an LRU of 500 entries churns hard (every request
# stores a new Session and evicts the least recently used one), but its size stays flat.
#
# The cache is filled during the warm-up, before dump 1; every request then puts a new Session
# (the "# churn: Session" line) and drops the oldest, so dumps 2 and 3 hold 500 Sessions each,
# none of them the same: many born, as many freed, nothing growing. Held by:
#   class Object SESSIONS -> LRUCache @entries -> Hash [12345] -> Session
# Each request also leaves garbage: its cookie, its rendered page.
#
#   ruby samples/lru_churn.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps"

class LRUCache
  def initialize(capacity)
    @capacity = capacity
    @entries = {} # insertion ordered: the first entry is the least recently used
  end

  def get(key)
    value = @entries.delete(key) or return nil
    @entries[key] = value
  end

  def put(key, value)
    @entries.delete(key)
    @entries[key] = value
    @entries.shift while @entries.size > @capacity
    value
  end

  def size
    @entries.size
  end
end

class Session
  attr_reader :id, :user, :cart

  def initialize(id, user, cart)
    @id = id
    @user = user
    @cart = cart
  end
end

CAPACITY = 500
SESSIONS = LRUCache.new(CAPACITY)

def new_session(id)
  SESSIONS.put(id, Session.new(id, "user-#{id % 97}", [id % 5, id % 7])) # churn: Session
end

def handle_request(i)
  id = CAPACITY + i
  cookie = "session_id=#{id}; path=/; HttpOnly" # garbage
  session = SESSIONS.get(id - 3) || new_session(id)
  "<p>#{session.user} has #{session.cart.size} items (#{cookie.size})</p>"
end

warm_up = -> { CAPACITY.times { |id| new_session(id) } }
ThreeDumps.run("lru_churn", requests: 600, warm_up: warm_up) { |i| handle_request(i) }
