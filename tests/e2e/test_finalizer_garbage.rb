# Objects that die young with a finalizer each (ActionView's inline templates): in a signal
# dump, which no GC precedes, the finalizer table still holds the finalizers of the dead ones.
# heapq leaks finds over three signal dumps what it finds over ObjectSpace dumps taken after a
# GC of the same run: the program's leak, and nothing of those finalizers.
require_relative "helper"

class TestFinalizerGarbage < Test::Unit::TestCase
  include E2E

  REQUESTS = 300
  DEADLINE = 20 # seconds for any one line to appear
  WROTE = /^memprof: wrote (.+) \(\d+\.\d MB\) in \d+\.\d\d s$/.freeze

  # "run N": N requests; "os PATH": a full GC, then ObjectSpace.dump_all to PATH. GC is off
  # otherwise: every template is dead, unswept, its finalizer not run.
  PROGRAM = <<~'RUBY'.freeze
    $stdout.sync = true
    require "objspace"
    require "memprof/signal"
    GC.disable

    class Template
      def initialize(i)
        @source = "<%= #{i} %>"
        ObjectSpace.define_finalizer(self, Template.finalizer("_inline_template_#{i}"))
      end

      def self.finalizer(name) = proc { name.size }
    end

    class Session
      def initialize(id) = @id = id
    end

    SESSIONS = []
    handle = lambda do |i|
      Template.new(i)
      SESSIONS << Session.new(i) # leak: Session
    end
    puts "ready"
    n = 0
    while (line = $stdin.gets)
      command, arg = line.split
      if command == "run"
        Thread.new { Integer(arg).times { handle.call(n += 1) } }.join
      else
        GC.start
        File.open(arg, "w") { |f| ObjectSpace.dump_all(output: f) }
        GC.disable
      end
      puts "done"
    end
  RUBY

  def test_finalizers_of_dead_objects_are_no_leak
    signal = dumps(:signal)
    objspace = dumps(:objspace)
    [[signal, "signal"], [objspace, "ObjectSpace"]].each do |paths, kind|
      leaks = heapq_json("leaks", *paths)["leaks"]
      summary = leaks.map { |l| [l.dig("holder", "class"), l["holds"].map { _1["class"] }] }
      assert_equal(["Array", ["Session"]], summary.first, "#{kind} dumps: #{summary}")
      finalizers = leaks.select { |l| JSON.generate(l.except("pending_finalizers")).match?(/finalizers|Proc|hidden Array/) }
      assert_empty(finalizers.map { _1["holds"] }, "#{kind} dumps: no leak of finalizers")
    end
    assert_equal("SESSIONS", heapq_json("leaks", *signal)["leaks"].first.dig("holder", "edge"))
    # The last signal dump held the finalizers of every template, none of them a root.
    input = heapq_json("stats", signal.last)["input"]
    assert_in_delta(3 * REQUESTS, input["dead_finalizers"], 2)
  end

  private

  # Three rounds of REQUESTS requests, each followed by a dump: by SIGUSR2 (kind :signal), or
  # by ObjectSpace after a full GC (:objspace). Returns the three paths.
  def dumps(kind)
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    program = File.join(@tmp, "templates.rb")
    File.write(program, PROGRAM)
    env = { "MEMPROF_DIR" => @tmp, "MEMPROF_TRACK" => "1" }
    Open3.popen3(env, RbConfig.ruby, "-I", ext, program) do |stdin, stdout, stderr, thread|
      expect(stdout, /^ready$/, DEADLINE)
      paths = Array.new(3) do |round|
        stdin.puts("run #{REQUESTS}")
        expect(stdout, /^done$/, DEADLINE)
        next dump_by_signal(thread.pid, stderr) if kind == :signal

        path = File.join(@tmp, "objspace-#{round}.json")
        stdin.puts("os #{path}")
        expect(stdout, /^done$/, DEADLINE)
        path
      end
      stdin.close
      assert_not_nil(thread.join(DEADLINE), "the program ends when its stdin closes")
      paths
    ensure
      Process.kill(:KILL, thread.pid) if thread.alive?
    end
  end

  def dump_by_signal(pid, stderr)
    Process.kill("USR2", pid)
    expect(stderr, WROTE, DEADLINE)[1]
  end
end
