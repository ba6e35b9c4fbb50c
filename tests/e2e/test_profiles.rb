# heapq's profiles read by the tools people already run: pprof's profile.proto, read here by
# `go tool pprof` (Debian's golang-go), and folded stacks for flame graphs.
require_relative "helper"

class TestProfiles < Test::Unit::TestCase
  include E2E

  PROGRAM = <<~'RUBY'
    require "objspace"
    ObjectSpace.trace_object_allocations_start
    class Catalog
      def initialize = @items = {}
      def fill(n) = n.times { |i| @items["item #{i}"] = "description of item #{i}" * 2 }  # line 5
    end
    CATALOG = Catalog.new
    CATALOG.fill(3000)
    ObjectSpace.trace_object_allocations_stop
    GC.start
    File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
  RUBY

  def go_pprof(*args)
    go = ENV["PATH"].split(":").map { |d| File.join(d, "go") }.find { |f| File.executable?(f) }
    assert_not_nil(go, "go (Debian's golang-go, which scripts/install-deps installs) reads the profiles")
    out, err, status = Open3.capture3({ "HOME" => @tmp, "GOCACHE" => File.join(@tmp, "go-cache") },
                                      go, "tool", "pprof", *args)
    assert(status.success?, "go tool pprof #{args.join(' ')} failed: #{err}")
    out
  end

  # pprof -top's "Showing nodes accounting for X, P% of TOTAL total": TOTAL.
  def pprof_total(profile, type, unit_args = [])
    out = go_pprof("-top", "-sample_index=#{type}", *unit_args, profile)
    assert_match(/^Type: #{type}$/, out)
    total = out[/ of (\d+)B? total/, 1]
    assert_not_nil(total, out)
    Integer(total)
  end

  # The catalog program's dump and its heapq stats.
  def catalog
    dump = File.join(@tmp, "heap.json")
    run_ruby(PROGRAM, dump)
    [dump, heapq_json("stats", dump)]
  end

  # Every object of the heap once, its bytes too (stats: heapq stats).
  def assert_whole_heap(profile, stats)
    assert_equal(stats["objects"], pprof_total(profile, "objects"))
    assert_equal(stats["bytes"], pprof_total(profile, "space", ["-unit=B"]))
  end

  def profile(*args)
    path = File.join(@tmp, "p-#{rand(1 << 30)}.pb.gz")
    _out, err, code = heapq("--quiet", "--format", "pprof", *args, "-o", path)
    assert_equal(0, code, err)
    path
  end

  def folded(*args)
    out, err, code = heapq("--format", "folded", *args)
    assert_equal(0, code, err)
    out.force_encoding(Encoding::UTF_8)
    out.each_line { |line| assert_match(/\A[^;\n]+(;[^;\n]+)* \d+\n\z/, line) }
    # Two samples may read the same (two classes of one name); flame graphs add them up.
    out.lines.each_with_object(Hash.new(0)) do |line, stacks|
      stacks[line[/\A(.*) \d+$/, 1]] += Integer(line[/ (\d+)$/, 1])
    end
  end

  def test_sites_profile_counts_every_object_at_its_line
    dump, s = catalog
    p = profile("sites", dump)
    assert_whole_heap(p, s)
    traces = go_pprof("-traces", p)
    assert_match(/^\s+\S+\s+fill$/, traces, "the line that made the strings is a frame")
    # Folded: the class is the innermost frame; the strings of line 5, 6,000 of them.
    stacks = folded("sites", dump)
    assert_equal(s["bytes"], stacks.values.sum)
    line5 = stacks.select { |stack, _| stack =~ /fill \(.*program_\d+\.rb:5\);String\z/ }
    assert_equal(1, line5.size, stacks.keys.join("\n"))

    retained = profile("sites", "--retained", dump)
    assert_equal(s["bytes"], pprof_total(retained, "space", ["-unit=B"]), "the default view")
    assert_operator(pprof_total(retained, "retained", ["-unit=B"]), :>=, s["bytes"] / 2)
  end

  def test_dominators_profile_is_the_heap_under_what_keeps_it_alive
    dump, s = catalog
    p = profile("dominators", dump)
    assert_whole_heap(p, s)
    # The catalog's Hash holds 6,000 strings: its frame retains them (ObjectSpace dumps name no
    # references, so frames are classes).
    top = go_pprof("-top", "-cum", "-unit=B", p)
    assert_not_nil(top.lines.find { |l| l =~ /\sCatalog$/ }, top)
    strings = folded("dominators", dump).select { |stack, _| stack =~ /;Catalog;Hash;String\z/ }
    assert_equal(1, strings.size)
    dominators = heapq_json("dominators", "--top", "50", dump)["dominators"]
    hash = dominators.find { |d| d["class"] == "Hash" && d["retained_count"] > 6000 }
    assert_not_nil(hash)
    assert_equal(hash["retained_bytes"] - hash["bytes"], strings.values.first,
                 "the strings' bytes are what the Hash retains besides itself")
  end

  def test_retainers_profile_counts_instances_once
    dump, s = catalog
    strings = s["by_class"].find { |c| c["class"] == "String" }
    p = profile("retainers", dump, "String")
    assert_equal(strings["count"], pprof_total(p, "objects"))
    assert_equal(strings["bytes"], pprof_total(p, "space", ["-unit=B"]))
    traces = go_pprof("-traces", "-sample_index=objects", p)
    assert_match(/^\s+6000\s+String\n\s+Hash\n\s+Catalog\n\s+class Object\n\s+ROOT\(vm\)$/, traces)
  end

  def test_memprof_dumps_name_the_references
    dump = leaky_dump(300, memprof: true)
    p = profile("retainers", dump, "String")
    traces = go_pprof("-traces", p)
    assert_match(/ via @\w+$/, traces, "an instance variable on the way")
    assert_match(/ via \[\]$/, traces, "elements generalized to []")
  end

  def test_profiles_are_for_the_commands_that_make_them
    dump, = catalog
    _out, err, code = heapq("--format", "pprof", "stats", dump)
    assert_equal(1, code)
    assert_match(/pprof and folded are for heapq sites, retainers and dominators/, err)
    _out, err, code = heapq("--format", "folded", "sites", "--top", "3", dump)
    assert_equal(1, code)
    assert_match(/no --by, --top or --sort/, err)
    _out, err, code = heapq("--format", "pprof", "sites", dump, "-o", dump)
    assert_equal(1, code, "the output would overwrite the dump")
    assert_match(/heap\.json/, err)
  end
end
