# heapq sites groups a program's allocations at the lines that made them.
require_relative "helper"

class TestSites < Test::Unit::TestCase
  include E2E

  PROGRAM = <<~'RUBY'
    require "objspace"
    ObjectSpace.trace_object_allocations_start
    STRINGS = Array.new(2000) { |i| "string #{i}" }   # line 3
    HASHES = Array.new(700) { |i| { i => i } }         # line 4
    def make_pairs = Array.new(300) { |i| [i, -i] }    # line 5
    PAIRS = make_pairs
    ObjectSpace.trace_object_allocations_stop
    GC.start
    File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
  RUBY

  def site(sites, line, klass)
    sites.find { |s| s["file"]&.end_with?(".rb") && s["file"].include?("program_") && s["line"] == line && s["class"] == klass }
  end

  def test_groups_allocations_by_line
    dump = File.join(@tmp, "heap.json")
    run_ruby(PROGRAM, dump)
    sites = heapq_json("sites", "--top", "0", dump)["sites"]
    assert_equal(2000, site(sites, 3, "String")&.fetch("count"), "strings of line 3")
    assert_equal(700, site(sites, 4, "Hash")&.fetch("count"), "hashes of line 4")
    pairs = site(sites, 5, "Array")
    assert_equal(300, pairs&.fetch("count"), "arrays of line 5")
    assert_equal("make_pairs", pairs["method"])

    by_file = heapq_json("sites", "--by", "file", "--top", "0", dump)["sites"]
    program = by_file.find { |s| s["file"]&.include?("program_") }
    assert_operator(program["count"], :>=, 2000 + 700 + 300)
    assert_nil(program["line"])

    by_gem = heapq_json("sites", "--by", "gem", "--top", "0", dump)["sites"]
    assert_include(by_gem.map { |s| s["gem"] }, "(app)")
  end

  def test_text_output_names_the_site
    dump = File.join(@tmp, "heap.json")
    run_ruby(PROGRAM, dump)
    out, _err, code = heapq("sites", "--top", "0", dump)
    assert_equal(0, code)
    assert_match(/^ *2,000 .*program_\d+\.rb:3 .*String$/, out)
  end
end
