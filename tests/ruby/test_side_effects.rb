# frozen_string_literal: true

# A dump must not change or run anything of the program it observes: no global's getter, no
# Ruby method, no swallowed exception or signal, GC and fds as they were.
require "pty"
require "io/console"
require "zlib"
require_relative "memprof_test_helper"

class TestSideEffects < Test::Unit::TestCase
  include MemprofTestHelper

  # Exception#backtrace is what reading $@ calls.
  class NoisyError < StandardError
    def backtrace
      raise "backtrace called during the dump"
    end
  end

  def setup
    @dir = Dir.mktmpdir("memprof-test")
    @path = File.join(@dir, "heap.jsonl")
  end

  def teardown
    FileUtils.remove_entry(@dir) if @dir
  end

  def fds = Dir.children("/proc/self/fd").sort

  def test_the_program_sees_nothing_of_a_dump
    argf_file = File.join(@dir, "argf.txt")
    File.write(argf_file, "one\ntwo\n")
    old_argv = ARGV.dup
    ARGV.replace([argf_file, argf_file])
    verbose_changes = 0
    trace_var(:$VERBOSE) { verbose_changes += 1 }
    events = []
    own_lines = [] # the signal handler and the block around the dump are the test's own code
    trace = TracePoint.new(:call, :c_call, :line) do |tp|
      events << [tp.event, tp.method_id] unless tp.path == __FILE__ && own_lines.include?(tp.lineno)
    end
    raised = NoisyError.new("kept")
    Memprof.dump_all(File::NULL) # first calls may set up caches; the second must see nothing
    open_fds = fds
    gc_disabled_before = GC.disable
    GC.enable unless gc_disabled_before
    begin
      raise raised
    rescue NoisyError
      own_lines << __LINE__ + 1
      trace.enable { Memprof.dump_all(@path) }
      assert_same(raised, $!, "$! changed")
    end
    assert_empty(events.uniq, "a TracePoint saw the dump's insides")
    assert_equal([argf_file, argf_file], ARGV, "ARGF shifted ARGV")
    assert_equal(0, ARGF.lineno, "ARGF moved")
    assert_equal(0, verbose_changes, "$VERBOSE was set")
    assert_equal(false, GC.enable, "GC left disabled")
    assert_equal(open_fds, fds, "fds leaked")
    assert_equal(["heap.jsonl"], Dir.children(@dir) - ["argf.txt"], "temporary files left")
    assert_complete(@path)
  ensure
    trace&.disable
    untrace_var(:$VERBOSE)
    ARGV.replace(old_argv) if old_argv
  end

  # A terminal is written in place while the walk holds the GVL. Its reader sends the signal
  # after the first byte and only then reads on, and the dump is far more than a terminal holds
  # unread (about 20 KB): the signal arrives while the dump runs, every time. Gzip keeps the
  # terminal's slow transfer short.
  def test_a_signal_sent_during_the_dump_is_delivered
    signals = 0
    previous = Signal.trap("USR2") { signals += 1 }
    copy = File.join(@dir, "copy.jsonl.gz")
    master, slave = PTY.open
    slave.raw! # bytes pass unchanged: no "\r\n" for "\n"
    reader = fork do
      slave.close
      bytes = master.readpartial(1)
      Process.kill(:USR2, Process.ppid)
      begin
        loop { bytes << master.readpartial(1 << 16) }
      rescue Errno::EIO # the test closed the terminal: all is read
      end
      File.binwrite(copy, bytes)
      exit!(0)
    end
    master.close # a reader that dies makes the dump fail rather than hang
    Memprof.dump_all(slave.path, compress: true)
    slave.close
    wait_for_signal(reader) { signals }
    assert_equal(1, signals, "the signal sent during the dump was lost")
    assert_operator(File.size(copy), :>, 1 << 18, "a dump this small could end before the signal")
    assert_complete(Zlib.gunzip(File.binread(copy)))
  ensure
    slave&.close unless slave&.closed?
    Signal.trap("USR2", previous || "DEFAULT")
  end

  def test_gc_disabled_by_the_program_stays_disabled
    GC.disable
    Memprof.dump_all(@path)
    assert_equal(true, GC.enable, "the dump enabled GC the program had disabled")
  ensure
    GC.enable
  end

  def test_dump_in_at_exit_keeps_the_exception
    out, = run_ruby(<<~RUBY)
      at_exit do
        error = $!
        Memprof.dump_all(File::NULL)
        puts(error.equal?($!) ? "kept" : "lost")
      end
      class Boom < StandardError
        def backtrace = raise("backtrace called")
      end
      raise Boom, "the program's own error"
    RUBY
    assert_match(/^kept$/, out)
  end

  def test_a_failing_prepare_step_cannot_leave_gc_disabled
    out, = run_ruby(<<~RUBY)
      dir = #{@dir.inspect}
      fds = Dir.children("/proc/self/fd").size
      Object.send(:remove_const, :RUBY_VERSION)
      Memprof.dump_all(File.join(dir, "no-version.jsonl"))
      puts GC.enable ? "gc disabled" : "gc enabled"
      puts Dir.children("/proc/self/fd").size == fds ? "fds ok" : "fd leaked"
      puts Dir.children(dir).sort.join(",")
    RUBY
    assert_equal(["gc enabled", "fds ok", "no-version.jsonl"], out.lines.last(3).map(&:chomp), out)
    meta = JSON.parse(File.foreach(File.join(@dir, "no-version.jsonl")).first)
    assert_equal(RUBY_VERSION, meta["ruby_version"])
  end

  def test_memprofs_own_objects_are_not_tracked
    require "stringio"
    Memprof.start
    3.times { Memprof.dump_all(@path) }
    Memprof.dump_all(StringIO.new) # goes through lib/memprof.rb
    own = Memprof.stats_hash.keys.grep(%r{/memprof\.rb:|memprof/ext})
    assert_empty(own)
  ensure
    Memprof.stop
  end

  private

  def wait_for_signal(pid)
    _, status = Process.wait2(pid)
    assert(status.success?, "the signalling reader failed: #{status.inspect}")
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
    Thread.pass while yield.zero? && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end
end
