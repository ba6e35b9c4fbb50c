# heapq retainers and dominators on the leaky sample: they must find what holds the leak.
require_relative "helper"

class TestRetention < Test::Unit::TestCase
  include E2E

  def test_retainers_of_the_leaking_class_lead_to_the_cache
    dump = leaky_dump(2000)
    result = heapq_json("retainers", dump, "Catalog::Quote")
    assert_equal(2000, result["target"]["instances"])
    top = result["groups"].first
    # Every Quote is kept the same way, but the last request's may still be seen sooner on the
    # machine stack (Ruby's GC scans it conservatively).
    assert_include([1999, 2000], top["count"], "every Quote is kept the same way")
    classes = top["path"].map { |step| step["class"] }
    assert_equal(["Catalog::PriceCache", "Hash", "Catalog::Quote"], classes.last(3))

    out, _err, code = heapq("retainers", dump, "Catalog::Quote")
    assert_equal(0, code)
    # Within 80 columns a path wraps at its steps: joined again, it reads as one line.
    out.each_line { |line| assert_operator(line.chomp.length, :<=, 80, line) }
    out = out.gsub(/\n +(?=-> )/, " ")
    assert_match(/^(1,999|2,000) .* -> Catalog::PriceCache -> Hash -> Catalog::Quote 0x\h+$/, out)
  end

  # --site narrows a class to one allocation site: the tax table's 900 Strings (one line of
  # memo_cache) among every String of the heap, each path leading to the table.
  def test_site_narrows_a_class_to_one_line
    dump = three_dumps("memo_cache").last
    (line, klass), = sample_marks("memo_cache", "warmup")
    every = heapq_json("retainers", dump, klass)["target"]["instances"]
    narrowed = heapq_json("retainers", "--site", "memo_cache.rb:#{line}", dump, klass)
    assert_equal(900, narrowed["target"]["instances"])
    assert_operator(every, :>, 900)
    assert_equal(["Array"], narrowed["groups"].map { |g| g["path"][-2]["class"] }.uniq, "all in the table")

    _out, err, code = heapq("retainers", "--site", "memo_cache.rb:#{line + 1}", dump, klass)
    assert_equal(1, code)
    assert_match(/no instance of String in .* was allocated at memo_cache\.rb:#{line + 1}/, err)
    _out, err, code = heapq("retainers", "--site", "memo_cache.rb", dump, klass)
    assert_equal(1, code)
    assert_match(/--site expects FILE:LINE/, err)
    _out, err, code = heapq("retainers", "--site", "memo_cache.rb:#{line}", dump, "0x10")
    assert_equal(1, code)
    assert_match(/--site narrows a class TARGET/, err)

    out, err, code = heapq("viz", "--site", "samples/memo_cache.rb:#{line}", dump, klass)
    assert_equal(0, code, err)
    assert_match(/String allocated at samples\/memo_cache\.rb:#{line}: 900 objects/, out)
  end

  def test_retainers_of_one_object
    dump = leaky_dump(2000)
    quote = heapq_json("retainers", dump, "Catalog::Quote")["paths"].first.last["address"]
    result = heapq_json("retainers", "--referrers", dump, quote)
    assert_equal(quote, result["target"]["address"])
    assert_equal("Catalog::Quote", result["target"]["class"])
    assert_equal("Hash", result["paths"].first[-2]["class"])
    assert_equal(["Hash"], result["referrers"].map { |r| r["class"] })
  end

  def test_dominators_find_the_cache
    dump = leaky_dump(2000)
    result = heapq_json("dominators", "--top", "20", dump)
    cache = result["dominators"].find { |d| d["class"] == "Catalog::PriceCache" }
    assert_not_nil(cache, "the cache is among the largest dominators")
    # The cache retains its Hash and every Quote with its three Strings.
    assert_operator(cache["retained_count"], :>=, 2 + 1999 * 4)  # (the last Quote: see above)
    assert_equal("Catalog::PriceCache", cache["path"].last["class"])
    # A tree of no level is a usage error, in either format (it printed the roots alone).
    [[], %w[--format folded]].each do |format|
      _, err, code = heapq(*format, "dominators", "--depth", "0", dump)
      assert_equal([1, "heapq: --depth must be 1 or more\n"], [code, err], format.inspect)
    end

    stats = heapq_json("stats", "--retained", "--top", "0", dump)
    quote = stats["by_class"].find { |c| c["class"] == "Catalog::Quote" }
    assert_operator(quote["retained_bytes"], :>, quote["bytes"], "a Quote retains its strings")
  end
end
