# frozen_string_literal: true

# Sampled allocation tracking (Memprof.start(sample: N)) and its profiles (Memprof.profile):
# what pprof reads, what the estimates are worth against full tracking, and what the sample
# keeps (nothing alive, a bounded table).
require_relative "memprof_test_helper"
require_relative "pprof_reader"
require "stringio"

class TestProfiles < Test::Unit::TestCase
  include MemprofTestHelper

  class Widget; end

  def teardown
    Memprof.stop
  end

  # The sample's program (samples/sampled_sites.rb): what it keeps, by line, and garbage beside
  # it; then its profile.
  PROGRAM = File.expand_path("../../samples/sampled_sites.rb", __dir__)

  def run_program(sample, seed)
    Dir.mktmpdir do |dir|
      out = File.join(dir, "heap.pb.gz")
      _, err, status = Open3.capture3(RbConfig.ruby, "-I", ext_dir, "-I", lib_dir, PROGRAM, sample.to_s, seed.to_s, out)
      assert(status.success?, err)
      PprofReader.new(File.binread(out))
    end
  end

  def by_line(profile) = profile.inuse_by_line(PROGRAM)

  # At the default rate, every site holding 1 % of the heap or more (objects, or bytes) is
  # estimated within 10 % of what full tracking of the same program counts: every site of many
  # objects. One object (the program's KEEP Array, grown to 2 MB) is seen only if sampled: a
  # dump names such objects.
  def test_estimates_of_big_sites_are_within_ten_percent
    truth = run_program(1, 1)
    exact = by_line(truth)
    heap = truth.totals
    big = exact.select do |_, (objects, bytes)|
      objects >= 1000 && (objects * 100 >= heap["inuse_objects"] || bytes * 100 >= heap["inuse_space"])
    end
    assert_operator(big.size, :>=, 6, "the program's sites: #{exact.sort_by { -_2[0] }.first(10)}")
    [11, 22].each do |seed|
      sampled = run_program(Memprof::DEFAULT_SAMPLE, seed)
      assert_equal(Memprof::DEFAULT_SAMPLE, sampled.period)
      estimate = by_line(sampled)
      big.each do |site, (objects, bytes)|
        got_objects, got_bytes = estimate[site]
        assert_in_delta(objects, got_objects, objects / 10.0, "seed #{seed}, #{site}: objects")
        assert_in_delta(bytes, got_bytes, bytes / 10.0, "seed #{seed}, #{site}: bytes")
      end
      total = sampled.totals
      assert_in_delta(heap["inuse_objects"], total["inuse_objects"], heap["inuse_objects"] / 20.0, "the heap")
    end
  end

  def test_a_profile_is_what_pprof_reads
    Memprof.start(sample: 1)
    line = __LINE__ + 1
    widgets = Array.new(300) { Widget.new }
    200.times { +"garbage" }
    io = StringIO.new(+"", "wb")
    assert_same(io, Memprof.profile(io))
    profile = PprofReader.new(io.string)
    assert_equal([%w[alloc_objects count], %w[alloc_space bytes], %w[inuse_objects count], %w[inuse_space bytes]],
                 profile.types)
    assert_equal("inuse_space", profile.default_type)
    assert_equal(%w[allocations count], profile.period_type)
    assert_equal(1, profile.period)
    assert_include(profile.comments, "pid: #{Process.pid}")
    assert_include(profile.comments, "1 in 1 allocations sampled; values scaled by 1")
    assert_in_delta(Time.now.to_f * 1e9, profile.time_nanos, 60e9)
    assert_operator(profile.duration_nanos, :>, 0)
    mine = profile.samples.select { |s| s.labels["class"] == "TestProfiles::Widget" }
    assert_equal(1, mine.size, "one stack, one class, one type")
    widget = mine.first
    assert_equal("OBJECT", widget.labels["type"])
    assert_equal([300, 300 * ObjectSpace.memsize_of(widgets[0])], widget.values[2, 2])
    name, file, at = widget.frames.find { |_, f, _| f == __FILE__ }
    assert_equal([__FILE__, line], [file, at])
    assert_match(/test_a_profile_is_what_pprof_reads/, name)
    assert(widgets)
  end

  # Freed objects count in what was allocated, never in what is in use; the table forgets them.
  def test_freed_objects_leave_the_table
    Memprof.start(sample: 1)
    Thread.new { Array.new(5000) { Widget.new } and nil }.join
    GC.start(full_mark: true, immediate_sweep: true)
    profile = PprofReader.new(Memprof.profile(StringIO.new(+"", "wb")).string)
    widgets = profile.totals { |s| s.labels["class"] == "TestProfiles::Widget" }
    assert_operator(widgets["inuse_objects"], :<=, 10, "freed (a stray word on a stack may keep one)")
    assert_equal(5000, widgets["alloc_objects"])
    assert_operator(widgets["alloc_space"], :>=, 5000 * 40)
    assert_operator(Memprof.sampling[:live], :<, 5000)
  end

  # Frees are read from the GC's marks on every Ruby memprof knows (3.1 to 3.4), in minor GCs
  # as in major ones, and in a major GC whose marking goes on while the program allocates:
  # what it keeps stays in the table, what it drops leaves it.
  def test_frees_are_read_from_the_gcs_marks
    Memprof.start(sample: 1)
    assert_equal(:gc_marks, Memprof.sampling[:frees])
    kept = Array.new(2000) { Widget.new }
    Thread.new { Array.new(5000) { Widget.new } and nil }.join
    GC.start(full_mark: false, immediate_sweep: true)
    assert_in_delta(2000, widgets_in_use, 10, "after a minor GC")
    GC.start(full_mark: true, immediate_mark: false) # marks step by step as the program allocates
    during = Array.new(20_000) { |i| i.even? ? Widget.new : [Widget.new] }.select { |w| w.is_a?(Widget) }
    GC.start(full_mark: true, immediate_sweep: true)
    assert_in_delta(12_000, widgets_in_use, 20, "after a major GC")
    # Old objects (minor GCs read only the young ones' marks) dropped: the next major GC frees them.
    4.times { GC.start(full_mark: false) }
    during = nil
    GC.start(full_mark: false, immediate_sweep: true)
    assert_in_delta(12_000, widgets_in_use, 20, "old: no minor GC frees them")
    GC.start(full_mark: true, immediate_sweep: true)
    assert_in_delta(2_000, widgets_in_use, 20, "after the next major GC")
    assert(kept)
  end

  def widgets_in_use
    profile = PprofReader.new(Memprof.profile(StringIO.new(+"", "wb")).string)
    profile.totals { |s| s.labels["class"] == "TestProfiles::Widget" }["inuse_objects"]
  end

  # memprof keeps nothing alive: a sampled object is freed as it would be without memprof (made
  # in a thread that ends, so that no stack of the program holds them).
  def test_sampled_objects_are_never_kept_alive
    Memprof.start(sample: 1)
    weak = ObjectSpace::WeakMap.new
    Thread.new { Array.new(100) { Widget.new }.each { |w| weak[w] = true } }.join
    Memprof.profile(StringIO.new(+"", "wb"))
    GC.start(full_mark: true, immediate_sweep: true)
    assert_operator(weak.keys.count { |k| k.is_a?(Widget) }, :<, 10, "freed")
  end

  def test_the_sampling_rate_is_checked
    [0, -1, 1.5, "8", Memprof::MAX_SAMPLE + 1].each do |bad|
      error = assert_raise(ArgumentError) { Memprof.start(sample: bad) }
      assert_match(/sample: expects an Integer from 1/, error.message)
    end
    assert_raise(ArgumentError) { Memprof.start(sample: 4, seed: 0) }
    error = assert_raise(RuntimeError) { Memprof.profile(StringIO.new) }
    assert_match(/not tracking/, error.message)
  end

  def test_memprof_sample_from_the_environment
    assert_equal(1, Memprof.default_sample({}))
    assert_equal(64, Memprof.default_sample({ "MEMPROF_SAMPLE" => "64" }))
    _, err = capture_stderr { assert_equal(1, Memprof.default_sample({ "MEMPROF_SAMPLE" => "lots\e[2J" })) }
    assert_match(/MEMPROF_SAMPLE=lots\\x1b\[2J: expects a number from 1/, err)
  end

  # A path is written whole: a temporary file renamed over it.
  def test_a_profile_to_a_path
    Memprof.start(sample: 8)
    Dir.mktmpdir do |dir|
      path = File.join(dir, "heap.pb.gz")
      assert_equal(path, Memprof.profile(path))
      assert_equal(8, PprofReader.new(File.binread(path)).period)
      assert_equal(["heap.pb.gz"], Dir.children(dir))
      assert_raise(Errno::ENOENT) { Memprof.profile(File.join(dir, "none", "heap.pb.gz")) }
    end
  end

  # A forked child counts what it frees from its birth; the objects it inherited are its own.
  def test_a_forked_child_starts_its_own_counts
    omit("no fork") unless Process.respond_to?(:fork)
    Memprof.start(sample: 1)
    kept = Array.new(1000) { Widget.new }
    Thread.new { Array.new(2000) { Widget.new } and nil }.join # no stack nor value holds them
    GC.start(full_mark: true, immediate_sweep: true)
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      writer.write(Memprof.profile(StringIO.new(+"", "wb")).string)
      writer.close
      exit!(0)
    end
    writer.close
    child = PprofReader.new(reader.read)
    reader.close
    Process.wait(pid)
    widgets = child.totals { |s| s.labels["class"] == "TestProfiles::Widget" }
    assert_in_delta(1000, widgets["inuse_objects"], 10, "inherited, alive in the child")
    assert_in_delta(1000, widgets["alloc_objects"], 10, "what the parent freed is not the child's")
    assert_include(child.comments, "pid: #{pid}")
    # Which process across a fleet: its start too, as a dump's META says it (a pid is reused).
    assert(child.comments.any? { |c| c.match?(/\Astarted: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\z/) },
           child.comments.inspect)
    assert(kept)
  end

  # go tool pprof reads memprof's profiles, and compares two of them (-base).
  def test_go_tool_pprof_reads_them
    go = ENV["PATH"].split(":").map { |d| File.join(d, "go") }.find { |f| File.executable?(f) }
    assert_not_nil(go, "go (Debian's golang-go, which scripts/install-deps installs) reads the profiles")
    Memprof.start(sample: 1)
    Dir.mktmpdir do |dir|
      kept = Array.new(100) { Widget.new }
      Memprof.profile(first = File.join(dir, "1.pb.gz"))
      kept.concat(Array.new(400) { Widget.new })
      Memprof.profile(second = File.join(dir, "2.pb.gz"))
      env = { "HOME" => dir, "GOCACHE" => File.join(dir, "go-cache") }
      out, err, status = Open3.capture3(env, go, "tool", "pprof", "-top", "-sample_index=inuse_objects",
                                        "-tagfocus=class=TestProfiles::Widget", "-base", first, second)
      assert(status.success?, err)
      assert_match(/^Type: inuse_objects$/, out)
      assert_match(/^ +400 .* test_go_tool_pprof_reads_them$/, out, "the 400 Widgets made between the two")
      out, err, status = Open3.capture3(env, go, "tool", "pprof", "-raw", second)
      assert(status.success?, err)
      assert_match(/alloc_objects\/count alloc_space\/bytes inuse_objects\/count\[dflt\] inuse_space\/bytes|inuse_space\/bytes\[dflt\]/, out)
      assert(kept)
    end
  end

  private

  def ext_dir = $LOAD_PATH.find { |d| File.exist?(File.join(d, "memprof_ext.so")) }
  def lib_dir = File.dirname($LOAD_PATH.resolve_feature_path("memprof")[1])
end
