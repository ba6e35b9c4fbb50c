# heapq on memprof's sampled profiles (Memprof.profile): leaks over one process's profiles names
# the line that leaks; load keeps them in a store beside dumps; fleet names what grows in which
# processes from profiles alone. The server's tests run the fleet on PostgreSQL.
require_relative "helper"
require_relative "sampled_fleet"

class TestSampledProfiles < Test::Unit::TestCase
  include E2E
  include SampledFleet

  def leak?(site)
    site["class"] == "Leak" && site.dig("site", "line") == LEAK_LINE
  end

  def test_leaks_fleet_and_a_store_from_profiles
    fleet = sampled_fleet

    # One process's profiles, in any order: the leak's line, growing in each.
    pid, profiles = fleet["w4"]
    json = heapq_json("leaks", *profiles.reverse)
    assert_equal("profiles", json["from"])
    process = json["processes"].first
    assert_equal([1, pid], [json["processes"].size, process["pid"]])
    assert_equal(profiles, process["profiles"].map { |p| p["path"] }, "oldest first")
    assert_equal([8] * 3, process["profiles"].map { |p| p["period"] })
    leak = process["growing"].first
    assert(leak?(leak), "the leak comes first: #{process['growing']}")
    objects = leak["objects"]
    assert_equal(objects.sort, objects)
    # 3,000 Leaks a round, estimated from one in eight.
    assert_in_delta(6000, objects.last - objects.first, 1200)
    text, err, code = heapq("--width", "0", "leaks", *profiles)
    assert_equal(0, code, err)
    assert_match(/^1\. Leak allocated at .*worker\.rb:#{LEAK_LINE} /, text)
    assert_match(/name the holder/, text)
    # A quiet process's: not the leak.
    _, quiet = fleet["w1"]
    growing = heapq_json("leaks", *quiet)["processes"].first["growing"]
    assert_empty(growing.select { |s| leak?(s) })

    # All twelve profiles: each process on its own.
    all = fleet.values.flat_map(&:last)
    assert_equal(4, heapq_json("leaks", *all)["processes"].size)

    # A store of them, and the fleet from it: the leak in 1 of 4 processes, the leaky one.
    store = File.join(@tmp, "fleet.db")
    loaded = heapq_json("load", "-o", store, "--app", "shop", *all)
    assert_equal([], loaded["dumps"])
    assert_equal((1..12).to_a, loaded["profiles"].map { |p| p["id"] })
    answer = heapq_json("fleet", store)
    assert_equal([0, 12, 4], answer.values_at("dumps", "profiles", "processes"))
    group = answer["growing"].find { |g| leak?(g) }
    assert_not_nil(group, "the leak grows: #{answer['growing']}")
    assert_equal([1, 1], group.values_at("processes", "processes_holding"))
    assert_equal(pid, group["worst"].first.dig("process", "pid"))
    assert(group["worst"].first.dig("process", "profiles"))
    text, err, code = heapq("--width", "0", "fleet", store)
    assert_equal(0, code, err)
    assert_match(/0 dumps, 12 sampled profiles/, text)
    assert_match(/grows in 1 of 1 process/, text)
    assert_match(/3 profiles \(estimates\)/, text)
  end

  def test_profiles_are_not_dumps
    _, profiles = sampled_fleet["w1"]
    _, err, code = heapq("stats", profiles.first)
    assert_equal(1, code)
    assert_match(/a sampled profile \(Memprof\.profile\), not a dump/, err)
    dump = File.join(@tmp, "d.json")
    File.write(dump, %({"address":"0x1","type":"OBJECT","references":[]}\n))
    _, err, code = heapq("leaks", profiles.first, dump)
    assert_equal(1, code)
    assert_match(/sampled profiles and dumps together/, err)
    _, err, code = heapq("leaks", profiles.first)
    assert_equal(1, code)
    assert_match(/give two profiles of it or more/, err)
  end
end
