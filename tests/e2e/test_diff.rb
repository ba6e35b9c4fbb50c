# heapq diff between the first and the last dump of a sample (samples/three_dumps.rb): what
# grew, and what was born and freed on the way.
require_relative "helper"

class TestDiff < Test::Unit::TestCase
  include E2E

  REQUESTS = 300 # requests between two dumps

  def test_leaking_class_grows_by_what_the_dumps_hold_objectspace
    check_growth(false)
  end

  def test_leaking_class_grows_by_what_the_dumps_hold_memprof
    check_growth(true)
  end

  def test_churn_is_born_and_freed_objectspace
    check_churn(false)
  end

  def test_churn_is_born_and_freed_memprof
    check_churn(true)
  end

  private

  # Objects of class KLASS allocated at LINE of samples/SAMPLE.rb in DUMP, read from the dump
  # itself (ObjectSpace dumps name classes only in their CLASS records).
  def count_at(dump, sample, line, klass)
    names = {}
    candidates = []
    File.foreach(dump) do |text|
      record = JSON.parse(text)
      names[record["address"]] = record["name"] if record["type"] == "CLASS"
      next unless record["line"] == line && record["file"]&.end_with?("/samples/#{sample}.rb")
      next if record["type"] == "IMEMO"

      candidates << record
    end
    candidates.count { |r| (r["class_name"] || names[r["class"]]) == klass }
  end

  def check_growth(memprof)
    dumps = three_dumps("memo_cache", memprof: memprof, requests: REQUESTS)
    (line, klass), = sample_marks("memo_cache")
    seen = count_at(dumps[2], "memo_cache", line, klass) - count_at(dumps[0], "memo_cache", line, klass)
    assert_in_delta(2 * REQUESTS, seen, 2, "the sample leaks one #{klass} per request")

    result = heapq_json("diff", dumps[0], dumps[2])
    row = result["by_class"].find { |c| c["class"] == klass }
    assert_not_nil(row, "#{klass} is in by_class")
    delta = row["after"]["count"] - row["before"]["count"]
    assert_in_delta(seen, delta, 2, "#{klass}: #{row}")
    assert_operator(row["after"]["bytes"], :>, row["before"]["bytes"])
    assert_operator(row["born"], :>=, delta, "#{klass}: every new one was born after dump 1")

    site = result["by_site"].find do |s|
      s["class"] == klass && s["line"] == line && s["file"]&.end_with?("/samples/memo_cache.rb")
    end
    assert_not_nil(site, "the leaking line is in by_site")
    assert_in_delta(seen, site["after"]["count"] - site["before"]["count"], 2, "site: #{site}")
    assert_operator(site["born"], :>=, site["after"]["count"] - site["before"]["count"])
  end

  # lru_churn: the cache holds 500 Sessions in every dump, each request replaces one.
  def check_churn(memprof)
    dumps = three_dumps("lru_churn", memprof: memprof)
    (_line, klass), = sample_marks("lru_churn", "churn")
    result = heapq_json("diff", dumps[0], dumps[2])
    row = result["by_class"].find { |c| c["class"] == klass }
    assert_not_nil(row, "#{klass} is in by_class")
    assert_in_delta(0, row["after"]["count"] - row["before"]["count"], 2, "as many after as before: #{row}")
    assert_operator(row["born"], :>, 0, "new Sessions came: #{row}")
    assert_operator(row["freed"], :>, 0, "old Sessions went: #{row}")
    assert_in_delta(row["born"], row["freed"], 2, "as many born as freed: #{row}")
  end
end
