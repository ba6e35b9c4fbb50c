# frozen_string_literal: true

# Ruby API of the memprof heap dumper: Memprof.dump_all, Memprof.dump and allocation tracking.
require "memprof_ext"
require "tmpdir"

module Memprof
  VERSION = "0.1.0"

  # Allocation stacks (frames, C methods' included): the innermost MIN_STACK frames of each, and
  # past them the frames up to the application's first and two more (in Rails the app's line is
  # often 30-40 frames up), at most Memprof.start's stack: (MEMPROF_STACK, else DEFAULT_STACK).
  DEFAULT_STACK = 64
  MIN_STACK = 8
  MAX_STACK = 64

  # Memprof.start(sample: N) records one allocation in N on average (1: every one). The rate
  # always-on profiles take unless told (MEMPROF_SAMPLE): see dumper/README.md for its cost and
  # accuracy.
  DEFAULT_SAMPLE = 32
  MAX_SAMPLE = 1 << 30

  # Memprof.dump_all(path_or_io, fork: false, strings: 1024) is defined by the extension:
  # paths and IO objects are dumped without calling any Ruby method. It writes the whole heap
  # as memprof JSONL v1. strings: most bytes of each String's value written (false: none).
  # With fork: true a child process writes the dump and this returns its pid at once
  # (Process.wait it); otherwise returns path_or_io.

  # Objects this file allocates are memprof's own: tracking leaves them out.
  _ignore_file(__FILE__)

  # What an environment flag (MEMPROF_TRACK, MEMPROF_GC) reads as on and as off.
  TRUE_WORDS = %w[1 true yes on].freeze
  FALSE_WORDS = %w[0 false no off].freeze

  FORK_DUMPS = Mutex.new # held from capturing the other threads' roots to the fork
  private_constant :FORK_DUMPS

  class << self
    # One object's record as JSON: a String when io is nil, else written to io (returns io).
    def dump(obj, io = nil, strings: 1024)
      json = _dump(obj, strings) # validates strings: as dump_all does
      return json if io.nil?

      io.write(json, "\n")
      io
    end

    # Starts tracking allocations (file, line, method, generation, sequence number and the
    # allocation's stack, which heapq reads to name the line of the app that allocated, past the
    # gems' and Ruby's own frames). stack: the most frames of a stack (0: none), or a Range
    # MIN..MAX (8..8 records 8 frames, app or not). Running already, the stack depths apply to
    # the allocations from now on.
    # sample: N records one allocation in N on average, at random (MEMPROF_SAMPLE, else every
    # one): what is recorded stays in memprof's table until the object is freed, and
    # Memprof.profile writes it, scaled by N. seed: the random numbers' seed (tests), else the
    # clock's. A change of sample: takes effect after Memprof.stop.
    def start(stack: default_stack, sample: default_sample, seed: nil)
      min, max = stack_depths(stack)
      unless min
        raise ArgumentError, "memprof: stack: expects a depth from 0 to #{MAX_STACK} or a Range of " \
                             "them, got #{stack.inspect}"
      end
      unless sample.is_a?(Integer) && sample.between?(1, MAX_SAMPLE)
        raise ArgumentError, "memprof: sample: expects an Integer from 1 (every allocation) to #{MAX_SAMPLE}, " \
                             "got #{sample.inspect}"
      end
      unless seed.nil? || (seed.is_a?(Integer) && seed.between?(1, 2**64 - 1))
        raise ArgumentError, "memprof: seed: expects a positive Integer below 2**64, got #{seed.inspect}"
      end

      _start(min, max, library_dirs, sample, seed || 0)
      true
    end

    # Writes a profile of the sampled objects (see start's sample:) to path_or_io as pprof reads
    # it (gzip'd profile.proto): inuse_objects and inuse_space (their memsize now) of what is
    # alive, alloc_objects and alloc_space since start, each an estimate of the whole heap (the
    # samples times N), by allocation stack, with labels class and type. A path is written
    # whole or not at all; an IO gets the bytes with write. Returns path_or_io.
    def profile(path_or_io)
      if path_or_io.respond_to?(:write)
        path_or_io.write(_profile(nil))
      else
        _profile(File.path(path_or_io)) # a String or a Pathname
      end
      path_or_io
    end

    # The sampling's state: { sample: N, live: sampled objects alive, bytes: memprof's table },
    # the time the last profile stopped the program (pause_ms), and how memprof learns of frees
    # (frees: :gc_marks, once a GC from its marks; :hook, a call on every freed object, on a Ruby
    # whose marks it cannot read), and the stacks it names by their control frames alone
    # (cached_stacks; 0 on a Ruby whose frames it cannot read).
    def sampling
      rate, live, bytes, from_marks, cached_stacks = _sampling
      { sample: rate, live: live, bytes: bytes, pause_ms: _profile_pause_ns / 1e6,
        frees: from_marks ? :gc_marks : :hook, cached_stacks: cached_stacks }
    end

    # [min, max] frames of a stack for Memprof.start's stack:: a depth from 0 to MAX_STACK (the
    # most, at least MIN_STACK of them), or a Range of depths (8..8: 8 frames, app or not); nil
    # for anything else.
    def stack_depths(stack)
      case stack
      when Integer then min, max = [MIN_STACK, stack].min, stack
      when Range
        min, max = stack.begin, stack.end
        max -= 1 if stack.exclude_end? && max.is_a?(Integer)
      else return nil
      end
      [min, max].all? { |d| d.is_a?(Integer) && d.between?(0, MAX_STACK) } && min <= max ? [min, max] : nil
    end

    # Where this Ruby's libraries are, for the stacks to tell the application's frames from
    # them (heapq's rule: gem directories and Ruby's library are recognised by their names too).
    def library_dirs
      require "rbconfig"
      dirs = RbConfig::CONFIG.values_at("rubylibprefix", "rubylibdir", "rubyarchdir", "sitedir", "vendordir")
      dirs.concat(Gem.path) if defined?(Gem)
      dirs.push(File.join(__dir__, "memprof.rb"), File.join(__dir__, "memprof"))
      dirs.compact.reject(&:empty?).map { |dir| File.expand_path(dir) }.uniq
    end

    # A fork: true dump leaves out the garbage (what no root reaches, as a full GC in the child
    # would free it, though nothing is swept and no finalizer runs) unless MEMPROF_GC is 0.
    def leave_out_garbage?(env = ENV)
      value = env.fetch("MEMPROF_GC", "")
      return true if value.empty?
      on = env_flag(value)
      return on unless on.nil?

      $stderr.write("memprof: MEMPROF_GC=#{printable(value)}: expects 0 or 1; leaving the garbage out\n")
      true
    end

    # An environment flag's value: true (1, true, yes, on), false (0, false, no, off), or nil.
    def env_flag(value)
      word = value.to_s.downcase
      return true if TRUE_WORDS.include?(word)

      FALSE_WORDS.include?(word) ? false : nil
    end

    # MEMPROF_SAMPLE as Memprof.start's sample:, else 1 (every allocation).
    def default_sample(env = ENV)
      value = env.fetch("MEMPROF_SAMPLE", "")
      return 1 if value.empty?
      return Integer(value, 10) if value.match?(/\A\d{1,10}\z/) && Integer(value, 10).between?(1, MAX_SAMPLE)

      $stderr.write("memprof: MEMPROF_SAMPLE=#{printable(value)}: expects a number from 1 to #{MAX_SAMPLE}; " \
                    "recording every allocation\n")
      1
    end

    # MEMPROF_STACK as Memprof.start's stack: (a depth, or MIN..MAX), else DEFAULT_STACK.
    def default_stack(env = ENV)
      value = env.fetch("MEMPROF_STACK", "")
      return DEFAULT_STACK if value.empty?

      bounds = value.match(/\A(\d+)(?:\.\.(\d+))?\z/)&.captures&.compact&.map { |d| Integer(d, 10) }
      stack = bounds && (bounds.size == 1 ? bounds[0] : bounds[0]..bounds[1])
      return stack if stack && stack_depths(stack)

      $stderr.write("memprof: MEMPROF_STACK=#{printable(value)}: expects a depth from 0 to #{MAX_STACK} " \
                    "or MIN..MAX; recording at most #{DEFAULT_STACK} frames\n")
      DEFAULT_STACK
    end

    # Stops tracking and forgets every tracked object.
    def stop
      _stop
      true
    end

    # Tracks the allocations of the block and prints those still alive after it (see stats).
    def track(io = $stdout)
      was_running = running?
      from = _next_seq
      start
      begin
        result = yield
      ensure
        stats(io, since: from)
        stop unless was_running
      end
      result
    end

    # Prints the tracked objects that survive a full GC as "count bytes file:line:Class",
    # largest count first (bytes: their memsize, summed).
    def stats(io = $stdout, since: 0)
      survivors(since).each do |key, count, bytes|
        io.puts("#{count.to_s.rjust(8)} #{bytes.to_s.rjust(10)} #{printable(key)}")
      end
      nil
    end

    # The tracked objects that survive a full GC as {"file:line:Class" => count}, largest count
    # first; with bytes: true, {"file:line:Class" => bytes} (memsize, summed), largest first.
    def stats_hash(since: 0, bytes: false)
      rows = survivors(since)
      return rows.to_h { |key, count, _| [key, count] } unless bytes

      rows.sort_by { |key, _, size| [-size, key] }.to_h { |key, _, size| [key, size] }
    end

    # text with control characters written as \xNN, so that a line of output stays one line
    # (an eval'd file name, an error message, an environment variable can carry ESC or "\n").
    def printable(text)
      escaped = text.b.gsub(/[\x00-\x1f\x7f]/n) { |c| format("\\x%02x", c.ord) }
      text.encoding.ascii_compatible? ? escaped.force_encoding(text.encoding) : escaped
    end

    # "Class: message" of an error, without the "memprof: " its message may carry (a
    # SystemCallError's after its " - ").
    def error_text(error)
      "#{error.class}: #{error.message.sub(/(\A| - )memprof: /, '\1')}"
    end

    private

    # Garbage is no survivor: a full GC first, as memory_profiler's "retained" does.
    def survivors(since)
      GC.start(full_mark: true, immediate_sweep: true)
      _stats(since)
    end

    # dump_all for what is neither a path String nor an IO: a Pathname (a path, though it
    # responds to write: compressed by its name and replaced atomically, as a String is), or
    # an object written through its own write (StringIO, Zlib::GzipWriter,
    # OpenSSL::SSL::SSLSocket, Tempfile: never their to_io, which would bypass them).
    def dump_all_to_object(target, strings, compress)
      if target.respond_to?(:to_path) && !target.respond_to?(:to_io) # an open Tempfile has both
        dump_all(target.to_path, strings: strings, compress: compress)
        target
      elsif target.respond_to?(:write)
        dump_all_spooled(target, strings, compress)
      else
        raise TypeError, "memprof: dump_all needs a path or an IO, got #{target.class}"
      end
    end

    # A FIFO or socket path: opened as Ruby opens files, so that waiting for a reader blocks
    # only this thread.
    def dump_all_via_open(path, strings, compress)
      File.open(path, "wb") { |io| dump_all_spooled(io, strings, compress) }
      path
    end

    # The dump goes to an unlinked temporary file first (the walk holds the GVL and must not
    # wait for a reader), then to target by IO.copy_stream, which waits for pipes and
    # sockets, lets a reader thread of this process run, and raises rather than stop halfway.
    def dump_all_spooled(target, strings, compress)
      spool = anonymous_file
      begin
        dump_all(spool, strings: strings, compress: compress)
        spool.rewind
        IO.copy_stream(spool, target)
      ensure
        spool.close
      end
      target
    end

    def anonymous_file
      if defined?(File::TMPFILE)
        begin
          return File.open(Dir.tmpdir, File::RDWR | File::TMPFILE | File::BINARY, 0o600)
        rescue SystemCallError
          # a filesystem without O_TMPFILE
        end
      end
      require "tempfile"
      file = Tempfile.create("memprof", binmode: true)
      File.unlink(file.path)
      file
    end

    # Ruby's own Process._fork (3.1), past what the program prepended to it (ActiveSupport's
    # ForkTracker, which discards ActiveRecord's connections in the child, and the like): the
    # child's heap is the parent's at the fork, and none of the program's fork hooks runs in
    # it. 0 in the child. Before 3.1, Process.fork (nil in the child).
    def fork_without_hooks
      if Process.respond_to?(:_fork)
        own = Process.singleton_class.instance_method(:_fork)
        own = own.super_method until own.nil? || (own.owner == Process.singleton_class && own.source_location.nil?)
        return own.bind_call(Process) if own
      end
      Process.fork
    end

    # report: where the child writes its error, if any, as error_text (Memprof::Signal's pipe);
    # nil: a line on stderr.
    def dump_all_in_child(path_or_io, strings, compress, report = nil)
      unless path_or_io.is_a?(String) || path_or_io.is_a?(IO) || path_or_io.respond_to?(:to_path)
        raise ArgumentError, "memprof: fork: true needs a path or an IO; the child cannot write " \
                             "into this process's #{path_or_io.class}"
      end
      path_or_io.flush if path_or_io.is_a?(IO) # else the child would write the buffer again
      # Ruby's fork keeps only this thread: objects held only by other threads' stacks would
      # look unreachable in the child. What those threads hold is taken here, with GC off
      # until the fork, and the child writes it as a "fork_parent:thread" ROOT record.
      others = Thread.list.select { |thread| thread.alive? && !thread.equal?(Thread.current) }
      reachable_only = leave_out_garbage?
      # One fork dump at a time: the captured roots are one per process, and GC stays off until
      # this call's own fork (another thread's call may block in fork's flush of $stdout).
      locked = lock_fork_dumps
      gc_was_disabled = GC.disable
      parent = Process.pid
      begin
        _capture_roots(others) unless others.empty?
        pid = fork_without_hooks # GC stays off: the objects only other threads held must stay
        return pid unless pid.nil? || pid.zero?

        status = 0
        begin
          _heap_of(parent, reachable_only) # the dump's META names the process whose heap it is
          dump_all(path_or_io, strings: strings, compress: compress)
        rescue Exception => e # rubocop:disable Lint/RescueException
          status = 1
          begin
            if report
              report.write(error_text(e))
            else
              line = "dump in child #{Process.pid} failed: #{error_text(e)}"
              $stderr.write("memprof: #{printable(line)}\n")
            end
          rescue IOError, SystemCallError
            nil # the exit status still tells
          end
        end
        exit!(status) # no at_exit handler, finalizer or ensure of the parent's program runs
      ensure
        _forget_roots
        GC.enable unless gc_was_disabled
        FORK_DUMPS.unlock if locked
      end
    end

    # true once this thread holds FORK_DUMPS; false in a trap handler, which cannot wait for a
    # lock (the dump goes on unlocked when no other thread dumps).
    def lock_fork_dumps
      FORK_DUMPS.lock
      true
    rescue ThreadError
      raise if FORK_DUMPS.owned?
      raise ThreadError, "memprof: a fork: true dump is being taken by another thread; try again" if FORK_DUMPS.locked?

      false
    end
  end
end

# A forked child (a preforking server's worker) profiles what it frees from its birth on: every
# fork of Ruby's goes through Process._fork.
module Memprof
  module AfterFork
    def _fork
      pid = defined?(Memprof::Profiles) ? Memprof::Profiles.between_profiles { super } : super
      if pid.zero?
        Memprof._after_fork
        Memprof::Profiles.after_fork if defined?(Memprof::Profiles)
      end
      pid
    end
  end
  Process.singleton_class.prepend(AfterFork) if Process.respond_to?(:_fork)
end

# `RUBYOPT=-rmemprof MEMPROF_SIGNAL=USR2 ruby app.rb` dumps the heap on each SIGUSR2, with no
# change to the program (memprof/signal reads the rest of its settings from the environment).
require "memprof/signal" unless ENV.fetch("MEMPROF_SIGNAL", "").empty?
# `RUBYOPT=-rmemprof MEMPROF_PROFILE_EVERY=60 ruby app.rb` writes a sampled profile every minute.
require "memprof/profiles" unless ENV.fetch("MEMPROF_PROFILE_EVERY", "").empty?
