# Loaded with -r into a sample of samples/ (by bench/stack-depth-bench.rb): prints on stderr
# the process CPU time its requests took between dump 1 and dump 3 ("requests: 1.234 s"), the
# warm-up and the dumps left out. CPU time, not wall time: other processes' load moves it less.
module ThreeDumps
  # Prepended before the sample defines ThreeDumps, so that it wraps the sample's in_thread.
  module RequestTimer
    def in_thread(&block)
      @timed_calls = (@timed_calls || 0) + 1
      return super if @timed_calls == 1 # the warm-up

      started = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      super
    ensure
      if started
        @request_seconds = (@request_seconds || 0) + Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - started
      end
    end

    def request_seconds = @request_seconds || 0
  end
  singleton_class.prepend(RequestTimer)
end

at_exit { $stderr.printf("requests: %.3f s\n", ThreeDumps.request_seconds) }
