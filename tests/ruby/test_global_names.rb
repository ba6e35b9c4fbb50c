# frozen_string_literal: true

# The names of global variables on the "global_tbl" root, read from the VM's table of globals,
# which memprof finds once per process: each case runs in a fresh Ruby.
require_relative "memprof_test_helper"

class TestGlobalNames < Test::Unit::TestCase
  include MemprofTestHelper

  HELD = 13

  # Runs setup in a fresh Ruby, then sets HELD globals to objects of their own and dumps the
  # heap; returns {global's name => [its value's address, the name the dump gives it]}.
  def names_after(setup)
    out, status = run_ruby(<<~RUBY)
      require "json"
      require "objspace"
      require "tmpdir"
      #{setup}
      #{HELD}.times { |i| eval("$memprof_held_\#{i} = [+'held \#{i}']") }
      expected = #{HELD}.times.to_h do |i|
        ["$memprof_held_\#{i}", JSON.parse(ObjectSpace.dump(eval("$memprof_held_\#{i}")))["address"]]
      end
      root = Dir.mktmpdir do |dir|
        path = File.join(dir, "heap.jsonl")
        Memprof.dump_all(path)
        JSON.parse(File.foreach(path).find { |line| line.include?('"root":"global_tbl"') })
      end
      names = (root["reference_names"] || []).zip(root["references"]).to_h { |name, address| [address, name] }
      puts JSON.generate(expected.to_h { |name, address| [name, [address, names[address]]] })
    RUBY
    assert(status.success?, out)
    JSON.parse(out.lines.last)
  end

  def assert_all_named(found)
    assert_equal(HELD, found.size)
    found.each { |name, (_, given)| assert_equal(name, given, "#{name} in #{found.inspect}") }
  end

  # The table outgrows 65,536 slots: every global is still named.
  def test_globals_are_named_in_a_table_of_70000
    assert_all_named(names_after(<<~'RUBY'))
      eval(Array.new(70_000) { |i| "$memprof_many_#{i} = nil" }.join(";"))
    RUBY
  end

  # The variables a probe could recognise are aliased away before the first dump.
  def test_globals_are_named_after_aliasing_before_the_first_dump
    assert_all_named(names_after(<<~'RUBY'))
      alias $; $memprof_other
      alias $-F $memprof_other
      alias $stdout $memprof_other
      alias $, $memprof_other
    RUBY
  end
end
