# A Logger whose level can be changed for a block of code in one fiber only, as a gem ships one
# (samples/fiber_levels.rb loads it from its vendor tree): the overrides are kept by fiber, so
# that threads, and fibers within a thread, do not see each other's. Its bug: with_level puts
# back the level that was in effect before instead of removing its override, so every fiber
# that ever called it keeps an entry, and a dead fiber's is never looked up again.
require "logger"

module FiberLevel
  class Logger < ::Logger
    def initialize(*args, **options)
      super
      @level_override = {}
    end

    def level
      @level_override.fetch(Fiber.current) { super }
    end

    # Logs at severity (a number or a name such as :warn) in this fiber while the block runs.
    def with_level(severity)
      fiber = Fiber.current # leak: Fiber
      before = level
      @level_override[fiber] = severity.is_a?(Integer) ? severity : Severity.const_get(severity.to_s.upcase)
      yield self
    ensure
      @level_override[fiber] = before if fiber
    end
  end
end
