# heapq fleet on a SQLite store (the server's tests run it on PostgreSQL): each process's dumps
# in the order they were written, whatever the order they were loaded in, and rates only over
# an interval the dumps' times tell.
require_relative "helper"

class TestFleet < Test::Unit::TestCase
  include E2E

  # A memprof dump of process 4242 whose roots reach `leaked` objects of class Leak allocated at
  # app.rb:3, taken at `time` after `gc` GC runs.
  def dump(name, time:, gc:, leaked:)
    records = [{ type: "META", format: "memprof", version: 1, pid: 4242, host: "web-1",
                 started: "2026-11-27T09:00:00Z", time: time, gc_count: gc },
               { address: "0x1000", type: "CLASS", name: "Leak", references: [], memsize: 200 }]
    objects = (0...leaked).map { |i| format("0x%x", 0x100000 + i * 0x28) }
    records << { type: "ROOT", root: "global_tbl", references: ["0x2000"] }
    records << { address: "0x2000", type: "ARRAY", class: "0x1000", references: objects, memsize: 40 }
    objects.each do |address|
      records << { address: address, type: "OBJECT", class: "0x1000", references: [],
                   file: "app.rb", line: 3, method: "remember", memsize: 40 }
    end
    records << { type: "END", records: records.size }
    path = File.join(@tmp, "#{name}.jsonl")
    File.write(path, records.map { |r| JSON.generate(r) + "\n" }.join)
    path
  end

  def fleet(*dumps, args: [])
    store = File.join(@tmp, "fleet-#{rand(1 << 30)}.db")
    _out, err, code = heapq("--quiet", "load", "-o", store, *dumps)
    assert_equal(0, code, err)
    [heapq_json("fleet", *args, store), heapq("--width", "0", "fleet", *args, store)]
  end

  def leak_of(json)
    json["growing"].find { |g| g["class"] == "Leak" && g.dig("site", "line") == 3 }
  end

  def test_dumps_of_one_second_are_ordered_by_gc_count_and_get_no_rate
    second = "2026-11-27T10:00:00+00:00"
    d1 = dump("leak-1", time: second, gc: 10, leaked: 100)
    d2 = dump("leak-2", time: second, gc: 11, leaked: 300)
    d3 = dump("leak-3", time: second, gc: 12, leaked: 500)
    json, (text, err, code) = fleet(d3, d1, d2)
    assert_equal(0, code, err)
    leak = leak_of(json)
    assert_not_nil(leak, "loaded out of order, the leak still grows: #{text}")
    assert_equal(500, leak["count"])
    assert_equal(400, leak["worst"][0]["growth"])
    # Taken within one second: no interval, so no rate, said so.
    assert_nil(leak["objects_per_hour"])
    assert_nil(leak["bytes_per_hour"])
    assert_equal(0, leak["processes_rated"])
    assert_equal([nil, 0], leak["worst"][0].values_at("objects_per_hour", "seconds"))
    assert_no_match(/an hour/, text)
    assert_match(/no rate/, text)
    heap = json["processes_over_time"][0]["heap"].map { |h| h["objects"] }
    assert_equal(heap.sort, heap, "oldest first")
  end

  def test_times_keep_their_fraction_of_a_second
    d1 = dump("leak-1", time: "2026-11-27T10:00:00.100000Z", gc: 10, leaked: 100)
    d2 = dump("leak-2", time: "2026-11-27T10:00:00.400000Z", gc: 10, leaked: 200)
    d3 = dump("leak-3", time: "2026-11-27T10:00:00.700000Z", gc: 10, leaked: 400)
    json, (text, err, code) = fleet(d2, d1, d3)
    assert_equal(0, code, err)
    leak = leak_of(json)
    assert_not_nil(leak, "taken in time order, to the microsecond: #{text}")
    worst = leak["worst"][0]
    assert_in_delta(0.6, worst["seconds"], 1e-9)
    # +300 objects in 0.6 s.
    assert_in_delta(300 / 0.6 * 3600, worst["objects_per_hour"], 1e-3)
    assert_in_delta(300 / 0.6 * 3600, leak["objects_per_hour"], 1e-3)
    assert_equal(1, leak["processes_rated"])
    assert_match(/\+1,800,000 objects .* an hour/, text)
    # --since too: the first dump was taken before it.
    since, = fleet(d1, d2, d3, args: %w[--since 2026-11-27T10:00:00.300Z])
    assert_equal(2, since["dumps"])
  end
end
