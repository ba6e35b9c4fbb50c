# frozen_string_literal: true

# What the Ruby benchmarks time with: the monotonic clock, a block's duration, a median.
def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def timed
  start = now
  yield
  now - start
end

def median(values) = values.sort[values.size / 2]
