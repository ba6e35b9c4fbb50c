# The store keeps every 64-bit value a dump may hold, and its messages name the store.
require_relative "helper"

class TestStoreValues < Test::Unit::TestCase
  include E2E

  DUMP = <<~JSON
    {"type":"ROOT", "root":"vm", "references":["0x8000000000000000"]}
    {"address":"0x8000000000000000", "type":"STRING", "references":["0x100"], "memsize":9223372036854775808}
    {"address":"0x100", "type":"STRING", "memsize":40}
  JSON

  def test_address_and_memsize_of_two_to_the_63
    dump = File.join(@tmp, "big.json")
    File.write(dump, DUMP)
    store = File.join(@tmp, "big.db")
    out, err, code = heapq("load", "-o", store, dump)
    assert_equal(0, code, err)
    assert_not_match(/tmp-/, out + err)
    rows = heapq_json("sql", store, "SELECT address, memsize, idom FROM objects ORDER BY id")
    assert_equal(-(1 << 63), rows[0]["address"])  # 0x8000000000000000, as SQLite's integers hold it
    assert_equal(-(1 << 63), rows[0]["memsize"])
    assert_equal(-1, rows[0]["idom"])
    assert_equal(0, rows[1]["idom"])
    from_dump = heapq_json("dominators", dump)["dominators"]
    from_store = heapq_json("dominators", store)["dominators"]
    assert_equal(from_dump, from_store)
  end
end
