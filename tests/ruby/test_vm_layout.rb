# frozen_string_literal: true

# The VM's private layouts memprof reads are checked at load: on a Ruby whose layouts it knows
# every part passes and META says nothing; a part whose check fails names nothing, and META's
# "unnamed" says which.
require_relative "memprof_test_helper"

class TestVmLayout < Test::Unit::TestCase
  include MemprofTestHelper

  DUMP = <<~RUBY
    module Holder
      LABEL = +"a constant's value"
    end
    captured = +"a captured local"
    keep = proc { captured }
    path = File.join(Dir.mktmpdir, "heap.jsonl")
    Memprof.dump_all(path)
    puts File.read(path)
    keep
  RUBY

  def dump_with(layout_off)
    saved = ENV["MEMPROF_VM_LAYOUT_OFF"]
    ENV["MEMPROF_VM_LAYOUT_OFF"] = layout_off
    out, status = run_ruby(DUMP)
    assert(status.success?, out)
    records = out.lines.grep(/\A\{/).map { |line| JSON.parse(line) }
    [records.first, records.flat_map { |r| r["reference_names"] || [] }.compact.uniq]
  ensure
    ENV["MEMPROF_VM_LAYOUT_OFF"] = saved
  end

  def test_a_known_ruby_names_every_part
    meta, names = dump_with(nil)
    assert_equal("META", meta["type"])
    assert_nil(meta["unnamed"], "#{RUBY_VERSION}: #{meta["unnamed"].inspect}")
    assert_include(names, "LABEL")
    assert_include(names, "local captured")
  end

  def test_meta_names_the_parts_whose_check_failed
    meta, names = dump_with("locals,constants")
    assert_equal(%w[constants locals], meta["unnamed"])
    assert_false(names.include?("LABEL"), "a constant named without its check")
    assert_false(names.include?("local captured"), "a local named without its check")
    assert_include(names, "(superclass)", "what public functions name is still named")
  end
end
