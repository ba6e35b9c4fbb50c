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
    # 80 columns: a long path keeps its tail (file and line) and loses its middle.
    out, _err, code = heapq("sites", "--top", "0", dump)
    assert_equal(0, code)
    assert_match(/^ *2,000 .*\u2026.*\d+\.rb:3 .*String$/, out.force_encoding(Encoding::UTF_8))
    out.each_line { |line| assert_operator(line.chomp.length, :<=, 80, line) }
    # No limit: the whole path.
    out, _err, code = heapq("--width", "0", "sites", "--top", "0", dump)
    assert_equal(0, code)
    assert_match(%r{^ *2,000 .*/program_\d+\.rb:3 .*String$}, out)
  end

  # memprof writes no line for objects that C code allocated: the file alone, never "file:0".
  def test_a_site_without_a_line
    dump = File.join(@tmp, "c.json")
    File.write(dump, <<~JSON)
      {"type":"ROOT", "root":"vm", "references":["0x100", "0x200"]}
      {"address":"0x100", "type":"STRING", "memsize":4000, "file":"ext/parser.c", "method":"parse"}
      {"address":"0x200", "type":"STRING", "memsize":40, "file":"app.rb", "line":7}
    JSON
    out, err, code = heapq("sites", dump)
    assert_equal(0, code, err)
    assert_match(/ ext\/parser\.c  +parse /, out)
    assert_not_match(/parser\.c:/, out)
    assert_match(/ app\.rb:7 /, out)
    sites = heapq_json("sites", dump)["sites"]
    c_site = sites.find { |s| s["file"] == "ext/parser.c" }
    assert_nil(c_site.fetch("line"))
    assert_equal(7, sites.find { |s| s["file"] == "app.rb" }["line"])
    out, _err, code = heapq("--format", "json", "dominators", dump)
    assert_equal(0, code)
    assert_match(/"file": "ext\/parser\.c",\s*"line": null/, out)
    assert_not_match(/"line": 0/, out)
    out, _err, _code = heapq("dominators", dump)
    assert_not_match(/parser\.c:0/, out)
  end
end
