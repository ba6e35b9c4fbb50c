# A webhook sender delivers each event in a short-lived thread of its own and, to keep its log
# quiet, logs at WARN during a delivery with a logger gem's per-fiber level override
# (vendor/gems/fiber_level-0.2.0). The gem keeps each override in a Hash keyed by the fiber
# that asked for it and never removes it: every thread's root Fiber stays in the Hash after the
# thread has ended. Debian 12's own loggers do not leak this way: its logger (1.5.0) has no
# with_level, and ActiveSupport 6.1's log_at (and silence) keeps its override under the
# fiber's object id, an Integer, and removes it when the block ends; the bug is the one later
# loggers' with_level had, in a small library of this sample's own.
#
# Leak: per delivery, the Fiber object that Fiber.current makes for the thread's root fiber, in
# the gem's with_level (its "# leak:" line), for the app's line marked "# app:", which
# memprof's allocation stacks name; held by the logger's Hash of overrides:
#   class Object LOG -> FiberLevel::Logger @level_override -> Hash -> Fiber
# The line to change is the gem's (remove the override when the block ends); in the app, set
# the level once, or log less instead of overriding the level per delivery.
# Not a leak: the threads themselves, the payloads and the log lines.
#
#   ruby samples/fiber_levels.rb OUTDIR [--memprof | --signal] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps" # first: with --signal, this process runs nothing else
require_relative "vendor/gems/fiber_level-0.2.0/lib/fiber_level"

LOG = FiberLevel::Logger.new(File::NULL, level: :info)

def deliver(event)
  LOG.with_level(:warn) do # app: Fiber
    LOG.info("delivering #{event[:id]}") # not written: WARN in this delivery
    "POST /hooks #{event[:id]} #{event[:type]}".bytesize
  end
end

def handle_request(i)
  Thread.new { deliver({ id: i, type: "order.paid" }) }.join
end

ThreeDumps.run("fiber_levels", requests: 300) { |i| handle_request(i) }
