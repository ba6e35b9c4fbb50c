# The three-dump technique on a running program: dumped by SIGUSR2 three times (memprof/signal,
# tracking on), with the same number of requests between two dumps; heapq leaks finds the line
# that leaks, its class and steady growth.
require_relative "helper"

class TestSignalLeaks < Test::Unit::TestCase
  include E2E

  REQUESTS = 300
  DEADLINE = 20 # seconds for any one line to appear
  WROTE = /^memprof: wrote (.+) \(\d+\.\d MB\) in \d+\.\d\d s$/.freeze

  # Each line on stdin is a number of requests, handled in a thread of their own (a finished
  # thread's stack is not scanned: no stale word pins a request's garbage); "done" after them.
  PROGRAM = <<~'RUBY'.freeze
    $stdout.sync = true
    require "memprof/signal"

    class Session
      def initialize(id)
        @id = id
        @tags = [:new]
      end
    end

    SESSIONS = []
    handle = lambda do |i|
      SESSIONS << Session.new(i) # leak: Session
      Array.new(10) { |j| "garbage #{i} #{j}" }
    end
    puts "ready"
    while (line = $stdin.gets)
      Thread.new { Integer(line).times(&handle) }.join
      puts "done"
    end
  RUBY

  def test_three_dumps_by_signal_find_the_loops_leak
    dumps = signalled_dumps
    leaks = heapq_json("leaks", *dumps)["leaks"]
    assert_not_empty(leaks)
    top = leaks.first
    row = top["holds"].first
    line = PROGRAM.lines.index { |l| l.include?("# leak: Session") } + 1
    assert_equal("Session", row["class"], "top leak: #{row.slice('class', 'site', 'growth')}")
    assert_equal([@program, line], row["site"]&.values_at("file", "line"))
    growth = row["growth"]
    assert_equal(3, growth.size)
    assert_in_delta(REQUESTS, growth[1] - growth[0], 2, "steady growth: #{growth}")
    assert_in_delta(REQUESTS, growth[2] - growth[1], 2, "steady growth: #{growth}")
    assert_true(top["growing"])
    assert_equal(%w[Array SESSIONS], top["holder"]&.values_at("class", "edge"), "held by SESSIONS")
    # Nothing of memprof's is the program's: its signal handler's caches and its tracker are
    # the profiler's overhead, and its files are never the app's line.
    report = heapq_json("leaks", "--top", "0", *dumps)
    assert_operator(report["profiler_bytes"], :>, 0)
    report["leaks"].each do |leak|
      steps = (leak["path"] || []) + (leak["owner_path"] || [])
      assert(steps.none? { |s| s["class"].include?("Memprof") }, "memprof's own: #{steps}")
      files = leak["holds"].flat_map { |h| [h["site"], h["app"]] }.compact.map { |site| site["file"] }
      assert(files.none? { |f| File.basename(f) == "memprof.rb" || f.include?("/memprof/") }, files.to_s)
    end
  end

  private

  # Runs PROGRAM: REQUESTS requests, SIGUSR2, three times over; returns the three dumps.
  def signalled_dumps
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    @program = File.join(@tmp, "signalled.rb")
    File.write(@program, PROGRAM)
    env = { "MEMPROF_DIR" => @tmp, "MEMPROF_TRACK" => "1" }
    Open3.popen3(env, RbConfig.ruby, "-I", ext, @program) do |stdin, stdout, stderr, thread|
      expect(stdout, /^ready$/, DEADLINE)
      dumps = Array.new(3) do
        stdin.puts(REQUESTS)
        expect(stdout, /^done$/, DEADLINE)
        Process.kill("USR2", thread.pid)
        expect(stderr, WROTE, DEADLINE)[1]
      end
      stdin.close
      assert_not_nil(thread.join(DEADLINE), "the program ends when its stdin closes")
      assert(thread.value.success?, "the program ends normally")
      dumps
    ensure
      Process.kill(:KILL, thread.pid) if thread.alive?
    end
  end
end
