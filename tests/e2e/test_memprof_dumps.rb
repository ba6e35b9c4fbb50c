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
  end
end
