# --format json is valid JSON in valid UTF-8, whatever the input's names and the SQL's values.
require_relative "helper"

class TestJsonOutput < Test::Unit::TestCase
  include E2E

  def valid_json(out)
    assert(out.dup.force_encoding("UTF-8").valid_encoding?, "not UTF-8: #{out.inspect[0, 300]}")
    JSON.parse(out)
  end

  def test_paths_and_sql_values_that_are_not_utf8
    dump = File.join(@tmp, "heap-\xff\xfe.json".b)
    run_ruby("require 'objspace'; File.open(ARGV[0], 'w') { |f| ObjectSpace.dump_all(output: f) }", dump)
    out, err, code = heapq("--format", "json", "stats", dump)
    assert_equal(0, code, err)
    assert_match(/heap-\uFFFD\uFFFD\.json/, valid_json(out)["input"]["path"])

    store = File.join(@tmp, "heap.db")
    assert_equal(0, heapq("--quiet", "load", "-o", store, dump)[2])
    out, err, code = heapq("--format", "json", "sql", store,
                           "SELECT path, 1e999 AS inf, -1e999 AS \"minus\xff\", CAST(x'ff41' AS TEXT) AS v FROM dumps")
    assert_equal(0, code, err)
    row = valid_json(out)[0]
    assert_nil(row["inf"])
    assert_nil(row["minus\uFFFD"])
    assert_equal("\uFFFDA", row["v"])
    assert_match(/heap-\uFFFD\uFFFD\.json/, row["path"])
  end
end
