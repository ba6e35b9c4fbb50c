# frozen_string_literal: true

# Dumps stay correct under GC.stress, after GC.compact, with threads, in a trap handler, forked.
require_relative "memprof_test_helper"

class TestSafety < Test::Unit::TestCase
  include MemprofTestHelper

  def dump_to(dir, name = "heap.jsonl", **options)
    path = File.join(dir, name)
    Memprof.dump_all(path, **options)
    path
  end

  def reachable_from_roots(records)
    refs = {}
    records.each { |r| refs[r["address"]] = r["references"] || [] if r["address"] }
    seen = {}
    stack = records.select { |r| r["type"] == "ROOT" }.flat_map { |r| r["references"] }
    until stack.empty?
      address = stack.pop
      next if seen[address]

      seen[address] = true
      stack.concat(refs[address] || [])
    end
    seen
  end

  def test_gc_stress
    keep = Array.new(100) { |i| { i => +"value #{i}" } }
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "stress.jsonl")
      GC.stress = true
      begin
        Memprof.dump_all(path)
      ensure
        GC.stress = false
      end
      dump = Dump.new(path)
      assert_complete(dump.text)
      assert_equal('["value 42"]', JSON.generate([dump[os_address(keep[42][42])]["value"]]))
    end
  end

  def test_after_compaction_addresses_are_current
    omit("GC.compact is not supported here") unless GC.respond_to?(:compact)
    holder = { list: Array.new(1000) { |i| +"moved #{i}" } }
    garbage = Array.new(20_000) { Object.new }
    garbage = nil # rubocop:disable Lint/UselessAssignment
    GC.start
    GC.compact
    Dir.mktmpdir("memprof-test") do |dir|
      dump = Dump.new(dump_to(dir))
      list = holder[:list]
      record = dump[os_address(list)]
      assert_equal(list.map { |s| os_address(s) }, record["references"].drop(1))
      assert_equal("moved 999", dump[os_address(list[999])]["value"])
      GC.compact
      dump = Dump.new(dump_to(dir, "second.jsonl"))
      assert_equal("moved 500", dump[os_address(list[500])]["value"])
    end
  end

  def test_other_threads_allocating
    stop = false
    worker = Thread.new do
      junk = []
      until stop
        junk << +"junk" << [1, 2]
        junk.clear if junk.size > 10_000
      end
    end
    Dir.mktmpdir("memprof-test") do |dir|
      3.times { |i| assert_complete(Dump.new(dump_to(dir, "t#{i}.jsonl")).text) }
    end
  ensure
    stop = true
    worker&.join
  end

  def test_from_a_signal_handler
    GC.start # leave earlier tests' garbage out of this dump
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "trap.jsonl")
      previous = Signal.trap("USR2") { Memprof.dump_all(path) }
      begin
        Process.kill("USR2", Process.pid)
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
        sleep 0.01 until File.exist?(path) || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      ensure
        Signal.trap("USR2", previous)
      end
      assert_complete(Dump.new(path).text)
    end
  end

  def test_fork_child_writes_a_complete_dump
    marker = +"written by the child"
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "forked.jsonl")
      pid = Memprof.dump_all(path, fork: true)
      assert_kind_of(Integer, pid)
      assert_not_equal(Process.pid, pid)
      _, status = Process.wait2(pid)
      assert(status.success?, "child failed: #{status.inspect}")
      dump = Dump.new(path)
      assert_complete(dump.text)
      assert_equal(Process.pid, dump.first["pid"], "the heap is this process's, though a child wrote it")
      assert_equal("written by the child", dump[os_address(marker)]["value"])
    end
  end

  # Ruby's fork keeps only the forking thread; what another thread's stack alone holds must
  # stay reachable in the child's dump.
  def test_fork_keeps_what_other_threads_hold
    with_strings_held_by_another_thread(50) do |addresses|
      Dir.mktmpdir("memprof-test") do |dir|
        path = File.join(dir, "forked.jsonl")
        _, status = Process.wait2(Memprof.dump_all(path, fork: true))
        assert(status.success?)
        records = File.foreach(path).map { |line| JSON.parse(line) }
        assert_equal({ "other_threads" => 1 }, records.first["fork_parent"]&.slice("other_threads"))
        reachable = reachable_from_roots(records)
        assert_empty(addresses.reject { |a| reachable.include?(a) }, "unreachable in the child's dump")
      end
    end
  end

  # Runs the block while another thread's stack alone holds count new Strings; yields their
  # addresses.
  def with_strings_held_by_another_thread(count)
    ready = Queue.new
    finish = Queue.new
    holder = Thread.new do
      local = Array.new(count) { |i| +"held by a thread #{i}" }
      ready << local.map { |s| os_address(s) }
      finish.pop
      local.size
    end
    yield ready.pop
  ensure
    finish&.push(:done)
    holder&.join
  end

  # A fork: true dump leaves out what no root reaches, as a full GC would free it; MEMPROF_GC=0
  # keeps it, as ObjectSpace.dump_all does.
  def test_fork_child_leaves_garbage_out
    kept = Array.new(100) { |i| +"kept #{i}" }
    dumps = {}
    garbage_addresses = nil
    Dir.mktmpdir("memprof-test") do |dir|
      paths = { nil => File.join(dir, "forked.jsonl"), "0" => File.join(dir, "forked-gc-0.jsonl") }
      GC.disable # the garbage stays in the heap until both forks
      begin
        garbage = Array.new(1000) { |i| +"garbage #{i}" }
        garbage_addresses = garbage.map { |s| os_address(s) }
        garbage.clear
        paths.each do |setting, path|
          with_env("MEMPROF_GC" => setting) do
            _, status = Process.wait2(Memprof.dump_all(path, fork: true))
            assert(status.success?)
          end
        end
      ensure
        GC.enable
      end
      dumps[nil] = File.foreach(paths[nil]).map { |line| JSON.parse(line) }
      # Its addresses only: a million parsed records would weigh on every later test's dump.
      dumps["0"] = File.foreach(paths["0"]).filter_map { |line| line[/\A\{"address":"(0x\h+)"/, 1] }
      dumps["0 META"] = JSON.parse(File.open(paths["0"], &:readline))
    end
    kept_addresses = kept.map { |s| os_address(s) }

    records = dumps[nil]
    assert_equal(true, records.first["reachable_only"])
    written = records.select { |r| r["address"] && r["type"] != "SHAPE" }.to_h { |r| [r["address"], r] }
    assert_empty(kept_addresses.reject { |a| written.key?(a) }, "what a root reaches is written")
    # A stale word on the machine stack may still reach a few (ROOT machine_context).
    assert_operator(garbage_addresses.count { |a| written.key?(a) }, :<=, 5, "the garbage is left out")
    dangling = records.flat_map { |r| r["references"] || [] }.uniq.reject { |a| written.key?(a) }
    assert_empty(dangling, "every object a written record references is written")
    assert_equal(written.size, reachable_from_roots(records).size, "and nothing else")

    assert_nil(dumps["0 META"]["reachable_only"])
    written = dumps["0"].to_h { |a| [a, true] }
    assert_empty(garbage_addresses.reject { |a| written.key?(a) }, "MEMPROF_GC=0 keeps the garbage")
  end

  def test_memprof_gc_setting
    assert_true(Memprof.leave_out_garbage?({}))
    assert_true(Memprof.leave_out_garbage?({ "MEMPROF_GC" => "1" }))
    assert_false(Memprof.leave_out_garbage?({ "MEMPROF_GC" => "0" }))
    _, err = capture_output { assert_true(Memprof.leave_out_garbage?({ "MEMPROF_GC" => "no\e[2J" })) }
    assert_equal("memprof: MEMPROF_GC=no\\x1b[2J: expects 0 or 1; leaving the garbage out\n", err)
  end

  def with_env(settings)
    saved = settings.to_h { |name, _| [name, ENV.fetch(name, nil)] }
    settings.each { |name, value| ENV[name] = value }
    yield
  ensure
    saved.each { |name, value| ENV[name] = value }
  end

  # What a program hooks onto fork (ActiveSupport's ForkTracker prepends Process._fork on Ruby
  # 3.1, and Process.fork before: ActiveRecord then discards its connection pool in the child)
  # runs in none of memprof's dump children: the child's heap is the parent's at the fork.
  module ForkHooks
    class << self
      attr_accessor :armed, :ran
    end

    def self.hook(pid, hook_name)
      return pid unless armed && (pid.nil? || pid.zero?)

      $memprof_test_pool.clear # rubocop:disable Style/GlobalVars
      File.write(ran, hook_name)
      pid
    end

    module ModernCoreExt
      def _fork = ForkHooks.hook(super, "_fork")
    end

    module CoreExt
      def fork(...) = block_given? ? super : ForkHooks.hook(super, "fork")
    end
  end
  Process.singleton_class.prepend(ForkHooks::ModernCoreExt)
  Process.singleton_class.prepend(ForkHooks::CoreExt)

  def test_fork_runs_none_of_the_programs_fork_hooks
    $memprof_test_pool = Array.new(3) { |i| +"connection #{i}" } # rubocop:disable Style/GlobalVars
    Dir.mktmpdir("memprof-test") do |dir|
      ForkHooks.ran = File.join(dir, "hook ran")
      ForkHooks.armed = true
      path = File.join(dir, "forked.jsonl")
      _, status = Process.wait2(Memprof.dump_all(path, fork: true))
      assert(status.success?)
      assert_false(File.exist?(ForkHooks.ran), "a fork hook ran in the dump's child: #{File.read(ForkHooks.ran) rescue nil}")
      pool = Dump.new(path)[os_address($memprof_test_pool)] # rubocop:disable Style/GlobalVars
      assert_equal($memprof_test_pool.map { |s| os_address(s) }, pool["references"].drop(1), # rubocop:disable Style/GlobalVars
                   "the pool as the parent holds it")
    ensure
      ForkHooks.armed = false
    end
  end

  # A booted Rails app (RAILS_APP) holding an ActiveRecord connection: ActiveSupport's
  # ForkTracker makes the pool discard its connections in a forked child; the dump's child
  # shows the connection the process holds. In a Ruby of its own: ForkTracker hooks fork for
  # the whole process.
  def test_fork_under_a_rails_app_shows_the_held_connection
    out, status = run_ruby(RAILS_APP + <<~'RUBY')
      $stdout.sync = true # the plain fork's child leaves with exit!, which flushes nothing
      require "json"
      require "objspace"
      ActiveRecord::Base.connection.execute("SELECT 1")
      pool = ActiveRecord::Base.connection_pool
      child = Process.fork { puts "a plain fork's child: #{pool.instance_variable_get(:@connections).inspect}"; exit!(0) }
      Process.wait(child)
      status, records = Dir.mktmpdir do |dir|
        path = File.join(dir, "ar.jsonl")
        [Process.wait2(Memprof.dump_all(path, fork: true)).last,
         File.foreach(path).map { |line| JSON.parse(line) }.select { |r| r["address"] }.to_h { |r| [r["address"], r] }]
      end
      # What the pool's @connections is in the child's dump (not the parent's Array by address:
      # a discarded pool gets a new one).
      pool_record = records.fetch(JSON.parse(ObjectSpace.dump(pool))["address"])
      connections = pool_record["reference_names"].zip(pool_record["references"]).to_h["@connections"]
      puts "status #{status.success?}, held #{pool.connections.size}, in the dump #{records[connections]&.fetch("length").inspect}"
    RUBY
    assert(status.success?, out)
    omit(JSON.parse(out)["omit"]) if out.start_with?('{"omit"')
    assert_match(/^a plain fork's child: (nil|\[\])$/, out, "ActiveRecord discards the pool in a forked child")
    assert_include(out, "status true, held 1, in the dump 1", out)
  end

  # Two threads dump with fork: true at once while a third holds objects on its stack alone,
  # and $stdout is a full pipe, so that Ruby's fork blocks flushing it and lets the other call
  # run: each child still writes what the third thread holds.
  def test_concurrent_fork_dumps_keep_the_other_threads_roots
    with_strings_held_by_another_thread(20) do |addresses|
      reader, writer = IO.pipe
      writer.sync = false # a pipe's write end is synchronous: this one buffers, as a logger's would
      saved = $stdout
      Dir.mktmpdir("memprof-test") do |dir|
        2.times do |round|
          loop { writer.write_nonblock("x" * 4096) }
        rescue IO::WaitWritable
          $stdout = writer
          writer.write("pending") # buffered: fork flushes it, and waits for the reader
          paths = Array.new(2) { |i| File.join(dir, "#{round}-#{i}.jsonl") }
          dumpers = paths.map { |path| Thread.new { Memprof.dump_all(path, fork: true) } }
          sleep 0.2 # both calls under way, the first blocked in fork's flush
          drained = Thread.new { reader.read_nonblock(1 << 20) while IO.select([reader], nil, nil, 0.5) }
          dumpers.each { |t| assert(Process.wait2(t.value).last.success?) }
          $stdout = saved
          drained.join
          paths.each do |path|
            reachable = reachable_from_roots(File.foreach(path).map { |line| JSON.parse(line) })
            assert_empty(addresses.reject { |a| reachable.include?(a) }, "#{path}: unreachable in the child's dump")
          end
        end
      end
    ensure
      $stdout = saved if saved
    end
  end

  def test_fork_child_reports_failure
    pid = Memprof.dump_all("/dev/full", fork: true)
    _, status = Process.wait2(pid)
    assert_equal(1, status.exitstatus)
  end
end
