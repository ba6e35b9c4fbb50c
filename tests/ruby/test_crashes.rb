# frozen_string_literal: true

# Inputs that once crashed the dumper or the tracker, each run in a fresh process.
require_relative "memprof_test_helper"

class TestCrashes < Test::Unit::TestCase
  include MemprofTestHelper

  def assert_runs(code)
    out, status = run_ruby(code)
    assert(status.success?, "#{status.inspect}\n#{out}")
    out
  end

  # One value larger than the writer's buffer grows it; the grown buffer must keep its size
  # when the two buffers change places.
  def test_values_larger_than_the_write_buffer
    out = assert_runs(<<~RUBY)
      require "json"
      long_symbol = ("s" * 300_000).to_sym
      strings = Array.new(8) { |i| i.to_s * 400_000 }
      path = File.join(#{Dir.tmpdir.inspect}, "memprof-big-\#{Process.pid}.jsonl")
      begin
        Memprof.dump_all(path, strings: 1_000_000)
        lines = File.foreach(path).map { |line| JSON.parse(line) }
        puts lines.count { |r| r["type"] == "SYMBOL" && r["value"] == long_symbol.to_s }
        puts lines.count { |r| r["type"] == "STRING" && r["bytesize"] == 400_000 && r["value"]&.size == 400_000 }
        puts lines.last["type"]
      ensure
        File.unlink(path) if File.exist?(path)
      end
    RUBY
    count_symbols, count_strings, last = out.lines.last(3).map(&:chomp)
    assert_equal("1", count_symbols)
    assert_operator(Integer(count_strings), :>=, 8)
    assert_equal("END", last)
  end

  # The tracepoint must be a GC root before anything can collect it.
  def test_start_under_gc_stress
    out = assert_runs(<<~RUBY)
      GC.stress = true
      Memprof.start
      kept = Array.new(10) { Object.new }
      GC.stress = false
      puts Memprof.stats_hash.values.sum >= 10
      Memprof.stop
    RUBY
    assert_equal("true", out.lines.last&.chomp)
  end

  # Ractors allocate and collect while the walk reads their objects: refused, clearly.
  def test_refuses_to_dump_while_other_ractors_run
    out = assert_runs(<<~RUBY)
      Warning[:experimental] = false
      ractor = Ractor.new do
        Ractor.receive
        :done
      end
      begin
        Memprof.dump_all(File::NULL)
        puts "dumped"
      rescue RuntimeError => e
        puts e.message
      end
      ractor.send(:stop)
      ractor.take
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
      Thread.pass while Ractor.count > 1 && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      Memprof.dump_all(File::NULL)
      puts "dumped after"
    RUBY
    assert_match(/memprof: cannot dump while other Ractors run \(Ractor.count is 2\)/, out)
    assert_equal("dumped after", out.lines.last&.chomp)
  end
end
