# frozen_string_literal: true

# Always-on profiles: `require "memprof/profiles"` (or MEMPROF_PROFILE_EVERY with
# RUBYOPT=-rmemprof) samples allocations and writes a profile of what is alive into a
# directory every so many seconds, keeping the last few, and one at once on a signal.
# Memprof::Profiles.install does so from code. See Memprof.start's sample: and Memprof.profile.
require "memprof" unless defined?(Memprof.start)
require "memprof/settings"
require "tmpdir"

module Memprof
  # Objects this file allocates are memprof's own: tracking leaves them out.
  _ignore_file(__FILE__)

  # A writer thread waits on a Queue: a ticker thread pushes the period's turn, the trap handler
  # (which may do nothing more) one at once. In a forked child (a preforking server's worker)
  # the threads did not come along: the child starts its own (Process._fork).
  module Profiles
    ENV_NAMES = { every: "MEMPROF_PROFILE_EVERY", dir: "MEMPROF_DIR", keep: "MEMPROF_PROFILE_KEEP",
                  signal: "MEMPROF_PROFILE_SIGNAL", sample: "MEMPROF_SAMPLE" }.freeze
    DEFAULT_KEEP = 24
    MIN_EVERY = 0.1
    # Held while a profile is written, and around a fork: a child never starts while the
    # writer is in the middle of one (a lock of the writer's allocator would stay taken there).
    WRITING = Mutex.new
    private_constant :WRITING

    class << self
      # Samples one allocation in sample (unless tracking runs already, at its own rate) and
      # writes DIR/memprof-PID-TIMESTAMP.pb.gz every `every` seconds and on each SIGNAL (nil:
      # none), deleting this process's older ones past the last `keep`. Replaces an earlier
      # installation; raises ArgumentError for a bad setting. Returns true.
      def install(every:, dir: Dir.tmpdir, keep: DEFAULT_KEEP, signal: "USR1", sample: DEFAULT_SAMPLE)
        unless every.is_a?(Numeric) && every >= MIN_EVERY && every.finite?
          raise Settings::SettingError.new(:every, every, "expected a number of seconds, #{MIN_EVERY} or more")
        end
        raise Settings::SettingError.new(:keep, keep, "expected a positive Integer") unless keep.is_a?(Integer) && keep.positive?

        dir = Settings.checked_dir(dir)
        name = signal && Settings.signal_name(signal)
        uninstall
        @started_tracking = !Memprof.running? && Memprof.start(sample: sample)
        @every = every.to_f
        @dir = dir
        @keep = keep
        @signal = name
        @previous = ::Signal.trap(name, proc { |signo| request(signo) }) if name
        start_writer
        true
      end

      # Stops the writer, once a profile under way is written and the old ones deleted, and puts
      # back the signal's handler; tracking that install started stops.
      def uninstall
        return false unless @every

        stop_writer
        ::Signal.trap(@signal, @previous || "DEFAULT") if @signal
        Memprof.stop if @started_tracking
        @every = @signal = @previous = nil
        true
      end

      # The period in seconds while installed, else nil.
      def every = @every

      # From MEMPROF_PROFILE_EVERY (seconds; unset: nothing), MEMPROF_DIR, MEMPROF_PROFILE_KEEP
      # (default DEFAULT_KEEP), MEMPROF_PROFILE_SIGNAL (default USR1; "none": no signal) and
      # MEMPROF_SAMPLE (default DEFAULT_SAMPLE). A bad value is reported on stderr, naming the
      # variable, and nothing is installed. Returns true or nil.
      def install_from_env(env = ENV)
        every = env.fetch(ENV_NAMES[:every], "")
        return nil if every.empty?

        install(every: number(:every, every) { Float(every) }, dir: env.fetch(ENV_NAMES[:dir], "").then { _1.empty? ? Dir.tmpdir : _1 },
                keep: number(:keep, env.fetch(ENV_NAMES[:keep], DEFAULT_KEEP.to_s)) { Integer(_1, 10) },
                signal: env.fetch(ENV_NAMES[:signal], "USR1").then { _1.casecmp?("none") ? nil : _1 },
                sample: env.key?(ENV_NAMES[:sample]) ? Memprof.default_sample(env) : DEFAULT_SAMPLE)
      rescue Settings::SettingError => e
        log("#{ENV_NAMES[e.setting] || e.setting}=#{Memprof.printable(e.value.to_s)}: #{e.reason}")
        nil
      end

      # Process._fork runs its fork in here: between two profiles.
      def between_profiles(&fork)
        WRITING.owned? ? yield : WRITING.synchronize(&fork)
      end

      # Process._fork's child: the writer thread stayed in the parent.
      def after_fork
        start_writer if @every
      end

      private

      def number(setting, text)
        yield text
      rescue ArgumentError, TypeError
        raise Settings::SettingError.new(setting, text, "expected a number")
      end

      def request(signo)
        @queue&.push(:now)
        previous = @previous
        previous.call(signo) if previous.respond_to?(:call)
      rescue ClosedQueueError
        nil
      end

      def start_writer
        @queue = Thread::Queue.new
        queue = @queue
        every = @every
        @writer = Thread.new do
          while (turn = queue.pop)
            write(turn == :now)
          end
        end
        @ticker = Thread.new do
          loop do
            sleep(every)
            queue.push(:tick)
          end
        rescue ClosedQueueError
          nil
        end
        [[@writer, "memprof-profiles"], [@ticker, "memprof-ticker"]].each do |thread, name|
          thread.name = name
          thread.report_on_exception = false
        end
      end

      def stop_writer
        @queue&.close
        @ticker&.kill
        @writer&.join unless @writer.equal?(Thread.current)
        @queue = @writer = @ticker = nil
      end

      # The profile, then the oldest of this process's past the last @keep go.
      def write(asked)
        path = next_path
        WRITING.synchronize { Memprof.profile(path) }
        log("wrote #{path}") if asked
        mine = Dir.glob(File.join(Settings.glob_escape(@dir), "memprof-#{Process.pid}-*.pb.gz")).sort
        mine.first([mine.size - @keep, 0].max).each { |old| File.unlink(old) }
      rescue StandardError => e
        log("profile to #{path} failed: #{Memprof.error_text(e)}")
      end

      def next_path = Settings.next_path(@dir, "pb.gz")
      def log(message) = Settings.log(message)
    end
  end
end

Memprof::Profiles.install_from_env
