# frozen_string_literal: true

# memprof/signal: a running program dumps its heap on a signal, in the background, and runs on.
# Each test runs a program of its own that leaks in a loop, signals it from here and reads its
# stderr; every wait has a deadline.
require_relative "memprof_test_helper"
require "io/wait"
require "timeout"

class TestSignal < Test::Unit::TestCase
  include MemprofTestHelper

  DEADLINE = 10 # seconds for any one line to appear
  DUMP_NAME = /\Amemprof-(\d+)-\d{8}T\d{6}\.\d{3}Z(?:-\d+)?\.jsonl\z/.freeze
  STARTED = /^memprof: dumping heap of (\d+) to (.+)$/.freeze
  WROTE = /^memprof: wrote (.+) \((\d+\.\d) MB\) in (\d+\.\d\d) s$/.freeze

  # The program: SETUP (installs the handler, or not), then a thread that leaks a String per
  # iteration into a global Array and makes garbage, until its stdin closes.
  PROGRAM = <<~'RUBY'
    $stdout.sync = true
    APP_PID = Process.pid
    # SETUP
    $leak = []
    worker = Thread.new do
      loop do
        $leak << +"leaked #{$leak.size}" # leak: String
        Array.new(20) { |i| +"garbage #{i}" }
        sleep 0.001
      end
    end
    Thread.pass while $leak.size < 10 # something to find in the first dump
    puts "ready"
    $stdin.read
    worker.kill
    exit 0
  RUBY

  # The dump child waits until the test writes to the FIFO at $GATE: a dump that stays running
  # as long as the test needs, with no race.
  GATED = <<~'RUBY'
    Memprof.singleton_class.prepend(Module.new do
      def dump_all(*args, **options)
        # Opening the FIFO blocks until the test writes; since 3.3 a signal may interrupt it.
        begin
          File.read(ENV.fetch("GATE")) if Process.pid != APP_PID
        rescue Errno::EINTR
          retry
        end
        super
      end
    end)
  RUBY

  # A program under test: its pipes, read with deadlines.
  class Program
    attr_reader :pid, :path
    attr_accessor :opening # what stdout held before "ready"

    def initialize(source, dir, env: {})
      @path = File.join(dir, "program.rb")
      File.write(@path, source)
      @stdin, @stdout, @stderr, @thread = Open3.popen3(env, RbConfig.ruby, *MemprofTestHelper.load_args, @path)
      @pid = @thread.pid
      @seen = { @stdout => +"", @stderr => +"" }
    end

    # The first match of pattern in what the stream wrote since the last match; fails after
    # DEADLINE seconds.
    def expect(stream, pattern)
      io = stream == :stderr ? @stderr : @stdout
      buffer = @seen[io]
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + DEADLINE
      until (match = pattern.match(buffer))
        left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
        raise "no #{pattern.inspect} on #{stream} within #{DEADLINE} s; it wrote:\n#{buffer}" if left <= 0

        buffer << io.read_nonblock(65_536) if io.wait_readable(left)
      end
      buffer.replace(match.post_match)
      match
    rescue EOFError
      raise "#{stream} closed before #{pattern.inspect}; it wrote:\n#{buffer}\n#{rest(:stderr)}"
    end

    def signal(name = "USR2")
      Process.kill(name, @pid)
    end

    # Closes stdin (the program then exits) and returns its exit status.
    def finish
      @stdin.close
      raise "program #{@pid} did not exit" unless @thread.join(DEADLINE)

      @thread.value
    ensure
      kill
    end

    def rest(stream)
      @seen[stream == :stderr ? @stderr : @stdout]
    end

    def kill
      Process.kill(:KILL, @pid) if @thread.alive?
      @thread.join
      [@stdin, @stdout, @stderr].each { |io| io.close unless io.closed? }
    end
  end

  def setup
    @dir = Dir.mktmpdir("memprof-signal")
    @dumps = File.join(@dir, "dumps")
    Dir.mkdir(@dumps)
    @programs = []
  end

  def teardown
    @programs.each(&:kill)
    FileUtils.rm_rf(@dir)
  end

  def test_three_signals_three_complete_dumps_and_the_program_runs_on
    program = start(%(require "memprof/signal"))
    paths = Array.new(3) do
      program.signal
      started = program.expect(:stderr, STARTED)
      wrote = program.expect(:stderr, WROTE)
      assert_equal(program.pid, Integer(started[1]), "the program's pid")
      assert_equal(started[2], wrote[1])
      assert_equal(@dumps, File.dirname(wrote[1]))
      assert_match(DUMP_NAME, File.basename(wrote[1]))
      assert_equal(program.pid, Integer(DUMP_NAME.match(File.basename(wrote[1]))[1]))
      assert_in_delta(File.size(wrote[1]) / 1e6, Float(wrote[2]), 0.05)
      wrote[1]
    end
    assert_equal(3, paths.uniq.size)
    assert_equal(paths.map { |p| File.basename(p) }.sort, Dir.children(@dumps).sort, "no other file")
    paths.each { |path| assert_complete(path) }
    assert_equal(0, program.finish.exitstatus, program.rest(:stderr))
  end

  def test_a_signal_during_a_dump_is_ignored
    gate = File.join(@dir, "gate")
    File.mkfifo(gate)
    program = start("require \"memprof\"\n#{GATED}require \"memprof/signal\"", env: { "GATE" => gate })
    2.times do
      program.signal
      path = program.expect(:stderr, STARTED)[2]
      program.signal
      ignored = program.expect(:stderr, /^memprof: a dump is already running \((.+)\); signal ignored$/)
      assert_equal(path, ignored[1])
      assert_false(File.exist?(path), "still running")
      Timeout.timeout(DEADLINE) { File.write(gate, "go") }
      assert_equal(path, program.expect(:stderr, WROTE)[1])
      assert_complete(path)
    end
    assert_equal(2, Dir.children(@dumps).size)
    assert_equal(0, program.finish.exitstatus)
  end

  def test_the_programs_handler_is_chained
    program = start(<<~RUBY)
      calls = 0
      # syswrite: since 3.3 a trap that interrupts the main thread's `puts "ready"` finds
      # $stdout's write lock held, and a `puts` of its own raises ThreadError.
      trap("USR2") { $stdout.syswrite("the program's handler, call \#{calls += 1}\\n") }
      require "memprof/signal"
    RUBY
    (1..2).each do |call|
      program.signal
      program.expect(:stdout, /^the program's handler, call #{call}$/)
      assert_complete(program.expect(:stderr, WROTE)[1])
    end
    assert_equal(0, program.finish.exitstatus)
  end

  def test_tracking_gives_allocation_sites
    program = start(%(require "memprof/signal"), env: { "MEMPROF_TRACK" => "1" })
    program.signal
    path = program.expect(:stderr, WROTE)[1]
    assert_equal(0, program.finish.exitstatus)
    line = PROGRAM.lines.index { |l| l.include?("# leak: String") } + 1
    leaked = File.foreach(path).count do |record|
      record.include?('"leaked ') && (site = JSON.parse(record))["file"] == program.path && site["line"] == line
    end
    assert_operator(leaked, :>, 0, "Strings allocated at #{program.path}:#{line}")
  end

  def test_rubyopt_and_memprof_signal_need_no_code_change
    program = start("", env: { "RUBYOPT" => "-rmemprof", "MEMPROF_SIGNAL" => "SIGUSR1" })
    program.signal("USR1")
    assert_complete(program.expect(:stderr, WROTE)[1])
    assert_equal(0, program.finish.exitstatus)
  end

  def test_without_memprof_signal_memprof_installs_nothing
    program = start(%(require "memprof"\nputs "installed: \#{defined?(Memprof::Signal).inspect}"),
                    env: { "MEMPROF_SIGNAL" => "" })
    assert_equal("installed: nil\n", program.opening)
    assert_equal(0, program.finish.exitstatus)
  end

  def test_bad_settings_are_named_and_the_program_runs_on
    {
      { "MEMPROF_SIGNAL" => "FOO" } => "memprof: MEMPROF_SIGNAL=FOO: unknown signal",
      { "MEMPROF_SIGNAL" => "SIGKILL" } => "memprof: MEMPROF_SIGNAL=SIGKILL: cannot be trapped",
      { "MEMPROF_SIGNAL" => "USR2\e[2J" } => 'memprof: MEMPROF_SIGNAL=USR2\x1b[2J: unknown signal',
      { "MEMPROF_SIGNAL" => "USR2", "MEMPROF_DIR" => "/nonexistent/dumps" } =>
        "memprof: MEMPROF_DIR=/nonexistent/dumps: no such directory",
      { "MEMPROF_SIGNAL" => "USR2", "MEMPROF_TRACK" => "maybe" } => "memprof: MEMPROF_TRACK=maybe: expected 1 or 0",
    }.each do |env, message|
      program = start(%(puts "installed: \#{Memprof::Signal.installed.inspect}"),
                      env: { "RUBYOPT" => "-rmemprof" }.merge(env))
      assert_equal(message, program.expect(:stderr, /^memprof: .*$/)[0][0, message.size], env.inspect)
      assert_equal("installed: nil\n", program.opening, env.inspect)
      assert_equal(0, program.finish.exitstatus, env.inspect)
    end
  end

  def test_install_api
    out, status = run_ruby(<<~RUBY)
      ENV["MEMPROF_SIGNAL"] = "USR1"
      require "memprof/signal"
      puts "from the environment: \#{Memprof::Signal.installed}"
      ["FOO", "KILL", 0].each do |signal|
        Memprof::Signal.install(signal)
      rescue ArgumentError => e
        puts e.message
      end
      begin
        Memprof::Signal.install("USR2", dir: "/nonexistent")
      rescue ArgumentError => e
        puts e.message
      end
      mine = proc {}
      trap("USR2", mine)
      puts Memprof::Signal.install(:SIGUSR2, dir: Dir.tmpdir, track: true), Memprof.running?
      puts Memprof::Signal.uninstall, trap("USR2", "DEFAULT").equal?(mine), Memprof.running?
      puts "USR1: \#{trap("USR1", "DEFAULT")}"
    RUBY
    assert(status.success?, out)
    assert_equal(<<~OUT, out)
      from the environment: USR1
      memprof: signal FOO: unknown signal
      memprof: signal KILL: cannot be trapped (Invalid argument - SIGKILL)
      memprof: signal 0: unknown signal
      memprof: dir /nonexistent: no such directory
      USR2
      true
      true
      true
      false
      USR1: DEFAULT
    OUT
  end

  def test_without_fork_the_dump_is_made_in_process
    program = start(%(Process.singleton_class.send(:undef_method, :fork)\nrequire "memprof/signal"))
    program.signal
    program.expect(:stderr, /^memprof: fork is not available; dumping in-process/)
    path = program.expect(:stderr, WROTE)[1]
    assert_complete(path)
    assert_equal(program.pid, JSON.parse(File.open(path, &:gets))["pid"], "this process wrote it")
    assert_equal(0, program.finish.exitstatus)
  end

  def test_when_fork_fails_the_dump_is_made_in_process
    program = start(<<~RUBY)
      # fork(2) failing: Ruby's own Process._fork replaced (memprof forks past what is prepended)
      Process.singleton_class.define_method(:_fork) { raise Errno::EAGAIN }
      require "memprof/signal"
    RUBY
    program.signal
    program.expect(:stderr, /^memprof: fork failed \(Errno::EAGAIN: .*\); dumping in-process/)
    assert_complete(program.expect(:stderr, WROTE)[1])
    assert_equal(0, program.finish.exitstatus)
  end

  def test_a_failed_dump_is_reported_and_the_next_one_works
    program = start(%(require "memprof/signal"))
    FileUtils.rm_rf(@dumps)
    program.signal
    path = program.expect(:stderr, STARTED)[2]
    failed = program.expect(:stderr, /^memprof: dump to (.+) failed: child \d+ exited with status 1: (.+)$/)
    assert_equal(path, failed[1])
    assert_match(/\AErrno::ENOENT: .* - cannot create /, failed[2], "the child's error, on the same line")
    assert_empty(failed.pre_match.strip, "one line per failure")
    assert_empty(Dir.glob("#{@dir}/**/memprof-*"), "no file left behind")
    Dir.mkdir(@dumps)
    program.signal
    assert_complete(program.expect(:stderr, WROTE)[1])
    assert_equal(0, program.finish.exitstatus)
  end

  # A dump child killed mid-dump (SIGKILL, the OOM killer) runs no cleanup of its own: the
  # handler that reaps it removes the temporary file it was writing.
  def test_a_killed_childs_partial_file_is_removed
    program = start(%($big = Array.new(1_500_000) { |i| i.to_s }\nrequire "memprof/signal"))
    program.signal
    path = program.expect(:stderr, STARTED)[2]
    partial = nil
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + DEADLINE
    until (partial = Dir.glob("#{path}.tmp-*").first)
      flunk("no temporary file for #{path}") if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.001
    end
    child = Integer(partial[/\.tmp-(\d+)-/, 1])
    Process.kill(:KILL, child)
    program.expect(:stderr, /^memprof: dump to #{Regexp.escape(path)} failed: child #{child} was killed by signal 9/)
    assert_empty(Dir.glob("#{path}*"), "the partial file is removed, and no dump is left under the name")
    assert_equal(0, program.finish.exitstatus)
  end

  # A child that exits without a signal and without its cleanup (the dynamic linker's exit 127
  # on a missing symbol, exit! in a library's fork hook) leaves its partial file too: the
  # handler that reaps a child that did not succeed removes it, whatever the way it ended.
  def test_a_child_that_exits_without_cleanup_leaves_no_partial_file
    require "memprof/signal"
    path = File.join(@dumps, "memprof-1.jsonl")
    errors, writer = IO.pipe
    child = fork do
      File.write("#{path}.tmp-#{Process.pid}-0", "{\"type\":\"META\"")
      exit!(127)
    end
    writer.close
    _, stderr = capture_output do
      Memprof::Signal.send(:reap, child, errors, path, Process.clock_gettime(Process::CLOCK_MONOTONIC))
    end
    assert_match(/failed: child #{child} exited with status 127/, stderr)
    assert_empty(Dir.glob("#{path}*"), "the partial file is removed, and no dump is left under the name")
  end

  def test_a_failure_is_logged_on_one_line_with_control_characters_escaped
    dumps = File.join(@dir, "dumps\e[2J")
    Dir.mkdir(dumps)
    program = start(%(require "memprof/signal"), env: { "MEMPROF_DIR" => dumps })
    FileUtils.rm_rf(dumps)
    program.signal
    program.expect(:stderr, STARTED)
    failed = program.expect(:stderr, /^memprof: dump to .+ failed: .+$/)
    assert_empty(failed.pre_match.strip, "one line per failure")
    assert_not_include(failed[0], "\e")
    assert_equal(2, failed[0].scan('dumps\\x1b[2J').size, failed[0]) # the path and the error's
    assert_equal(0, program.finish.exitstatus)
  end

  private

  # Starts PROGRAM with setup in place, dumping to @dumps, and waits until it runs.
  def start(setup, env: {})
    program = Program.new(PROGRAM.sub("# SETUP", setup), @dir, env: { "MEMPROF_DIR" => @dumps }.merge(env))
    @programs << program
    program.opening = program.expect(:stdout, /^ready$/).pre_match
    program
  end

  def assert_complete(path)
    lines = File.readlines(path)
    assert_equal("META", JSON.parse(lines.first)["type"], path)
    assert_equal({ "type" => "END", "records" => lines.size - 1 }, JSON.parse(lines.last), path)
  end
end
