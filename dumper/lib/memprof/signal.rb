# frozen_string_literal: true

# Dumps the heap of a running process when it receives a signal: `require "memprof/signal"`
# installs the handler MEMPROF_SIGNAL, MEMPROF_DIR and MEMPROF_TRACK describe (USR2, the
# temporary directory, no tracking), Memprof::Signal.install does so from code.
require "memprof" unless defined?(Memprof.start)
require "tmpdir"
require "memprof/settings"

module Memprof
  # Objects this file allocates are memprof's own: tracking leaves them out.
  _ignore_file(__FILE__)

  # How a signal becomes a dump. A trap handler runs in the main thread between two of its
  # instructions, where a Mutex cannot be locked (ThreadError) and any wait would stall the
  # program: the handler only pushes onto a Queue (allowed there) and calls the handler it
  # replaced. A worker thread pops, names the file and forks (Memprof.dump_all with fork: true,
  # which also keeps what other threads hold); a reaper thread waits for the child and logs.
  # The program pauses only for the fork itself. The worker and reaper threads are the only
  # writers of the dump's state, so no lock is needed; a signal that finds a dump running is
  # logged and dropped by the worker.
  module Signal
    SettingError = Settings::SettingError

    ENV_NAMES = { signal: "MEMPROF_SIGNAL", dir: "MEMPROF_DIR", track: "MEMPROF_TRACK" }.freeze
    MB = 1_000_000.0

    class << self
      # Dumps the heap to DIR/memprof-PID-TIMESTAMP.jsonl on each SIGNAL (a name such as
      # "USR2" or "SIGUSR2", a Symbol or a number). track: starts allocation tracking now.
      # Replaces memprof's earlier installation; chains the program's handler for SIGNAL.
      # Raises ArgumentError for a signal that does not exist or cannot be trapped, or a
      # directory that is missing or not writable. Returns the signal's name.
      def install(signal = "USR2", dir: Dir.tmpdir, track: false)
        name = signal_name(signal)
        dir = checked_dir(dir)
        handler = proc do |signo|
          request_dump
          chain(signo)
        end
        previous = trap(name, signal, handler) # first: a signal Ruby refuses changes nothing
        previous = @previous if @handler && previous.equal?(@handler) # installed again
        warn_replaced(name, previous)
        restore_handler if @signal && @signal != name
        stop_worker
        track_allocations(track)
        @signal = name
        @dir = dir
        @handler = handler
        @previous = previous
        start_worker
        name
      end

      # Puts back the handler install replaced (unless the program has replaced memprof's
      # since) and stops the worker; a dump under way still completes. Tracking that install
      # started stops.
      def uninstall
        return false unless @signal

        restore_handler
        stop_worker
        track_allocations(false)
        @signal = @handler = @previous = nil
        true
      end

      # The signal's name ("USR2") while installed, else nil.
      def installed
        @signal
      end

      # Installs from MEMPROF_SIGNAL (default USR2), MEMPROF_DIR (default Dir.tmpdir) and
      # MEMPROF_TRACK (1 or 0). A bad value is reported on stderr, naming the variable, and
      # nothing is installed: the program runs on untouched. Returns the signal's name or nil.
      def install_from_env(env = ENV)
        signal = env.fetch(ENV_NAMES[:signal], "")
        dir = env.fetch(ENV_NAMES[:dir], "")
        install(signal.empty? ? "USR2" : signal, dir: dir.empty? ? Dir.tmpdir : dir,
                                                 track: env_flag(env.fetch(ENV_NAMES[:track], "")))
      rescue SettingError => e
        log("#{ENV_NAMES[e.setting]}=#{e.value}: #{e.reason}")
        nil
      end

      private

      def signal_name(signal) = Settings.signal_name(signal)
      def checked_dir(dir) = Settings.checked_dir(dir)

      def env_flag(value)
        return false if value.empty?

        on = Memprof.env_flag(value)
        raise SettingError.new(:track, value, "expected 1 or 0") if on.nil?

        on
      end

      # Ruby refuses some signals (KILL, STOP, SEGV, VTALRM, ...).
      def trap(name, signal, handler)
        ::Signal.trap(name, handler)
      rescue ArgumentError, SystemCallError => e
        raise SettingError.new(:signal, signal, "cannot be trapped (#{e.message})")
      end

      # The signal's default action (DEFAULT, SYSTEM_DEFAULT: for USR2, ending the process) and
      # IGNORE are not chained; EXIT is not either, and install says so.
      def warn_replaced(name, previous)
        log("SIG#{name} was set to EXIT; memprof's handler replaces it") if previous == "EXIT"
      end

      # Called as Ruby calls a handler: with the signal's number.
      def chain(signo)
        previous = @previous
        previous.call(signo) if previous.respond_to?(:call)
      end

      # In the trap handler: only a Queue push. After the program forked (a preforking
      # server's worker) the worker thread did not come along: a new one starts.
      def request_dump
        return unless @signal # a handler the program kept after uninstall chains here

        start_worker if @worker_pid != Process.pid || !@worker&.alive?
        @queue.push(:dump)
      rescue ClosedQueueError
        nil # uninstalled meanwhile
      end

      def restore_handler
        current = ::Signal.trap(@signal, @previous)
        ::Signal.trap(@signal, current) unless current.equal?(@handler)
      end

      # Tracking started by install goes on while wanted; stops otherwise. Tracking the
      # program started is left alone.
      def track_allocations(wanted)
        if wanted
          @started_tracking ||= !Memprof.running? && Memprof.start
        elsif @started_tracking
          Memprof.stop
          @started_tracking = false
        end
      end

      def stop_worker
        @queue&.close
        @queue = @worker = nil
      end

      def start_worker
        @queue = Thread::Queue.new
        @worker_pid = Process.pid
        @running = nil
        queue = @queue
        @worker = Thread.new { work(queue) }
        @worker.name = "memprof-signal"
        @worker.report_on_exception = false
      end

      def work(queue)
        while queue.pop
          if (path = @running)
            log("a dump is already running (#{path}); signal ignored")
          else
            start_dump
          end
        end
      end

      def start_dump
        path = next_path
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        @running = path
        log("dumping heap of #{Process.pid} to #{path}")
        pid, errors = fork_dump(path)
        if pid
          Thread.new { reap(pid, errors, path, started) }.name = "memprof-reaper"
        else
          dump_in_process(path, started)
        end
      rescue StandardError => e
        @running = nil
        log("dump to #{path} failed: #{Memprof.error_text(e)}")
      end

      # [the child's pid, the pipe it writes its error to], or nil when this Ruby cannot fork
      # (the reason is logged). The reaper logs the child's error with its exit status: one
      # line per failure.
      def fork_dump(path)
        unless Process.respond_to?(:fork)
          log("fork is not available; dumping in-process (the program pauses)")
          return nil
        end
        errors, report = IO.pipe
        begin
          [Memprof.send(:dump_all_in_child, path, 1024, nil, report), errors]
        rescue Exception # rubocop:disable Lint/RescueException
          errors.close
          raise
        ensure
          report.close
        end
      rescue NotImplementedError, SystemCallError => e
        log("fork failed (#{Memprof.error_text(e)}); dumping in-process (the program pauses)")
        nil
      end

      def dump_in_process(path, started)
        Memprof.dump_all(path)
        done(path, started, nil)
      rescue StandardError => e
        done(path, started, Memprof.error_text(e))
      end

      # The program may reap the child first (Process.wait without a pid): the file under its
      # final name then tells that the dump completed. A child that did not succeed may have
      # run no cleanup (SIGKILL, the OOM killer, the dynamic linker's exit 127): its temporary
      # file is removed here.
      def reap(pid, errors, path, started)
        failure = begin
          _, status = Process.wait2(pid)
          remove_partial(path, pid) unless status.success?
          "child #{pid} #{status_text(status)}#{child_error(errors)}" unless status.success?
        rescue Errno::ECHILD
          remove_partial(path, pid) unless File.exist?(path)
          "child #{pid} was reaped by the program; no file" unless File.exist?(path)
        rescue StandardError => e
          Memprof.error_text(e)
        ensure
          errors.close
        end
        done(path, started, failure)
      end

      # The temporary file a failed child was writing (PATH.tmp-CHILDPID-N), never renamed.
      def remove_partial(path, pid)
        Dir.glob("#{glob_escape(path)}.tmp-#{pid}-*").each do |partial|
          File.unlink(partial)
        rescue SystemCallError
          nil # gone already, or not ours to remove
        end
      end

      def glob_escape(path) = Settings.glob_escape(path)

      # What the exited child wrote to its pipe, as ": text", else "". Never waits: a process
      # the program forked meanwhile may hold the pipe open.
      def child_error(errors)
        text = errors.read_nonblock(4096, exception: false)
        text.is_a?(String) && !text.empty? ? ": #{text}" : ""
      rescue IOError, SystemCallError
        ""
      end

      # @running is cleared before the line is written: whoever reads "wrote" may signal again.
      def done(path, started, failure)
        seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
        size = File.size?(path)
        failure ||= "no file under that name" if size.nil?
        @running = nil
        if failure
          log("dump to #{path} failed: #{failure}")
        else
          log(format("wrote %s (%.1f MB) in %.2f s", path, size / MB, seconds))
        end
      end

      def status_text(status)
        return "was killed by signal #{status.termsig}" if status.signaled?

        "exited with status #{status.exitstatus}"
      end

      def next_path = Settings.next_path(@dir, "jsonl")
      def log(message) = Settings.log(message)
    end
  end
end

Memprof::Signal.install_from_env
