# heapq on dumps written by the memprof gem: every reference named, nothing to warn about.
require_relative "helper"

class TestMemprofDumps < Test::Unit::TestCase
  include E2E

  def test_named_path_to_the_holder
    dump = leaky_dump(500, memprof: true)
    result = heapq_json("retainers", dump, "Catalog::Quote")
    group = result["groups"].first
    # All in the cache; the last request's Quote may still be seen sooner on the machine stack
    # (Ruby's GC scans it conservatively), which gives it another shortest path.
    assert_include([499, 500], group["count"])
    steps = group["path"].last(4).map { |s| [s["class"], s["edge"]] }
    assert_equal(["class Object", "Catalog::PriceCache", "Hash", "Catalog::Quote"], steps.map(&:first))
    assert_equal(["CACHE", "@store"], steps[1..2].map(&:last))
    assert_match(/\A\["sku-\d+"\]\z/, steps[3].last)

    out, _err, code = heapq("retainers", dump, "Catalog::Quote")
    assert_equal(0, code)
    # Within 80 columns a path wraps at its steps: joined again, it reads as one line.
    out.each_line { |line| assert_operator(line.chomp.length, :<=, 80, line) }
    out = out.gsub(/\n +(?=-> )/, " ")
    assert_match(/class Object CACHE -> Catalog::PriceCache @store -> Hash \["sku-\d+"\] -> Catalog::Quote 0x\h+$/, out)
  end

  def test_counts_and_no_warnings
    dump = leaky_dump(300, memprof: true)
    lines = File.readlines(dump).map { |l| JSON.parse(l) }
    objects = lines.count { |r| r["address"] && r["type"] != "SHAPE" }
    out, err, code = heapq("--format", "json", "stats", dump)
    assert_equal(0, code, err)
    assert_equal("", err, "a memprof dump is clean")
    stats = JSON.parse(out)
    assert_equal("memprof", stats["input"]["format"])
    assert_equal(objects, stats["objects"])
    assert_equal(300, stats["by_class"].find { |c| c["class"] == "Catalog::Quote" }&.fetch("count"))

    sites = heapq_json("sites", "--top", "0", dump)["sites"]
    quote_site = sites.find { |s| s["class"] == "Catalog::Quote" }
    assert_match(%r{samples/leaky_cache\.rb\z}, quote_site["file"])
    assert_equal(300, quote_site["count"])
    assert_equal([], stats["input"]["unnamed"], "memprof named every kind of reference")
  end

  # A dump whose META says what memprof could not name (a Ruby whose layouts it does not know;
  # here two parts turned off): heapq stats says which, escaped on a terminal as in JSON.
  def test_stats_says_what_memprof_could_not_name
    dump = File.join(@tmp, "unnamed.jsonl")
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    _out, err, status = Open3.capture3({ "MEMPROF_VM_LAYOUT_OFF" => "locals,constants" }, RbConfig.ruby,
                                       "-I", ext, "-rmemprof", "-e", "Memprof.dump_all(ARGV[0])", dump)
    assert(status.success?, err)
    assert_equal(%w[constants locals], heapq_json("stats", dump)["input"]["unnamed"])
    out, err, code = heapq("stats", dump)
    assert_equal(0, code, err)
    assert_include(out.gsub(/\n +/, " "), "references memprof could not name in this dump: constants, locals\n")

    lines = File.readlines(dump)
    lines[0] = lines[0].sub('"unnamed":["constants"', '"unnamed":["const\\u001b]0;x\\u0007ants"')
    File.write(dump, lines.join)
    out, err, code = heapq("stats", dump)
    assert_equal(0, code, err)
    assert_include(out.gsub(/\n +/, " "), "could not name in this dump: const\\e]0;x\\x07ants, locals\n")
    assert_equal("const\e]0;x\aants", heapq_json("stats", dump)["input"]["unnamed"][0])
  end
end
