# heapq on memprof's sampled profiles (Memprof.profile): leaks over one process's profiles names
# the line that leaks; load keeps them in a store beside dumps; fleet names what grows in which
# processes from profiles alone. The server's tests run the fleet on PostgreSQL.
require_relative "helper"
require_relative "sampled_fleet"
require_relative "../ruby/pprof_reader"

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

  # On the Rails samples at the default rate (1 in 32), the sites that hold 1 % of the traced
  # objects or more rank as heapq sites ranks them in an ObjectSpace dump of the same moment:
  # any two whose counts differ by half or more come in the same order. (A site is its file,
  # line and class: the innermost frame of memprof's stacks, the allocation site of the dump.)
  def test_sites_rank_as_a_dump_of_the_same_moment_counts
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    %w[rails_controller rails_fragments].each do |sample|
      out = File.join(@tmp, sample)
      _, err, status = Open3.capture3(RbConfig.ruby, "-I", ext, sample_path(sample), out, "--sampled",
                                      "--requests", "1500")
      assert(status.success?, "#{sample}: #{err}")
      site = ->(file, line, klass) { [File.basename(file), line, klass] }
      sites = heapq_json("sites", "--top", "0", File.join(out, "#{sample}-3.json"))
      least = sites["objects_with_site"] / 100.0
      truth = sites["sites"].select { |s| s["file"] && s["count"] >= least }
                            .to_h { |s| [site.(s["file"], s["line"], s["class"]), s["count"]] }
      profile = PprofReader.new(File.binread(File.join(out, "#{sample}-3.pb.gz")))
      assert_equal(32, profile.period)
      objects = profile.types.index(%w[inuse_objects count])
      estimate = Hash.new(0)
      profile.samples.each do |s|
        _, file, line = s.frames.find { |_, f, _| !f.empty? }
        estimate[site.(file, line, s.labels["class"])] += s.values[objects] if file
      end
      compared = 0
      truth.to_a.combination(2) do |(a, count_a), (b, count_b)|
        next if [count_a, count_b].max < 1.5 * [count_a, count_b].min

        compared += 1
        more, less = count_a > count_b ? [a, b] : [b, a]
        assert_operator(estimate[more], :>, estimate[less],
                        "#{sample}: #{more} (#{truth[more]}) and #{less} (#{truth[less]}) " \
                        "estimated #{estimate[more]} and #{estimate[less]}")
      end
      assert_operator(compared, :>, 0, "#{sample}: no two sites apart: #{truth}")
    end
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
    # What only dumps take is refused, not ignored.
    [%w[--min-growth 5], %w[--threshold 20], %w[--max-depth 3], %w[--as-given]].each do |option|
      _, err, code = heapq("leaks", *option, *profiles)
      assert_equal([1, "heapq: #{option.first} is for dumps; leaks over profiles takes --top alone\n"], [code, err])
    end
    assert_equal(0, heapq("leaks", "--top", "1", *profiles)[2])
  end
end
