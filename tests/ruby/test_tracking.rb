# frozen_string_literal: true

# Allocation tracking: start, stop, track, stats, stats_hash, and the sites in a dump.
require_relative "memprof_test_helper"

class TestTracking < Test::Unit::TestCase
  include MemprofTestHelper

  class Widget; end

  def teardown
    Memprof.stop
  end

  def test_stats_hash_counts_live_objects_by_site
    Memprof.start
    line = __LINE__ + 1
    widgets = Array.new(25) { Widget.new }
    200.times { +"garbage" }
    GC.start
    stats = Memprof.stats_hash
    assert_equal(25, stats["#{__FILE__}:#{line}:TestTracking::Widget"])
    assert_nil(stats.keys.find { |k| k.end_with?(":String") && k.include?(":#{line + 1}:") && stats[k] > 10 })
    assert_equal(stats.values.sort.reverse, stats.values, "largest first")
    assert(widgets)
  end

  # A method whose name was a dynamic Symbol first ("name".to_sym before the def): its name is
  # the allocation's method all the same, as ObjectSpace writes it.
  def test_a_method_named_first_by_a_dynamic_symbol
    name = "memprof_dynamic_#{Process.pid}_#{rand(1 << 30)}"
    assert_equal(name, name.to_sym.to_s) # the dynamic Symbol, before the method exists
    # An interpolation allocates in the method's own frame (since 3.4 +'' allocates in String#+@).
    self.class.class_eval("def #{name} = \"made by \#{self.class}\"", __FILE__, __LINE__)
    Memprof.start
    ObjectSpace.trace_object_allocations_start
    made = public_send(name)
    ObjectSpace.trace_object_allocations_stop
    assert_equal(name, JSON.parse(ObjectSpace.dump(made))["method"], "ObjectSpace's")
    assert_equal(name, JSON.parse(Memprof.dump(made))["method"])
  end

  def test_stats_prints_count_file_line_class
    Memprof.start
    line = __LINE__ + 1
    kept = Array.new(7) { +"kept" }
    require "stringio"
    io = StringIO.new
    Memprof.stats(io)
    entry = io.string.lines.map(&:split).find { |_, _, key| key == "#{__FILE__}:#{line}:String" }
    assert_equal("7", entry&.first)
    assert_operator(Integer(entry[1]), :>=, 7 * 40, "bytes: the strings' memsize")
    assert(kept)
  end

  def test_garbage_is_not_counted_and_bytes_are
    require "stringio"
    io = StringIO.new
    line = __LINE__ + 1
    Memprof.track(io) { 10_000.times { "garbage" * 10 } }
    garbage = io.string.lines.map(&:split).select { |_, _, key| key.start_with?("#{__FILE__}:#{line}:") }
    assert_operator(garbage.sum { |count, _, _| Integer(count) }, :<, 100, io.string)

    Memprof.start
    line = __LINE__ + 1
    kept = Array.new(20) { "x" * 1000 }
    bytes = Memprof.stats_hash(bytes: true)["#{__FILE__}:#{line}:String"]
    assert_operator(bytes, :>=, 20 * 1000)
    assert_equal(20, Memprof.stats_hash["#{__FILE__}:#{line}:String"])
    assert(kept)
  end

  def test_objects_without_a_class_use_heapqs_labels
    Memprof.start
    line = __LINE__ + 1
    kept = Array.new(3) { |i| proc { i } } # each block captures an IMEMO env
    labels = Memprof.stats_hash.keys.grep(/\A#{Regexp.escape(__FILE__)}:#{line}:/).map { |key| key.split(":").drop(2).join(":") }
    assert_include(labels, "IMEMO:env")
    assert_not_include(labels, "(imemo)")
    assert(kept)

    owner = Object.new
    line = __LINE__ + 1
    ObjectSpace.define_finalizer(owner, proc {}) # Ruby keeps the finalizer in a hidden Array
    labels = Memprof.stats_hash.keys.grep(/\A#{Regexp.escape(__FILE__)}:#{line}:/).map { |key| key.split(":").drop(2).join(":") }
    assert_include(labels, "(hidden Array)")
    ObjectSpace.undefine_finalizer(owner)
  end

  def test_stop_forgets
    Memprof.start
    kept = Array.new(3) { Widget.new }
    assert(Memprof.running?)
    Memprof.stop
    assert(!Memprof.running?)
    assert_empty(Memprof.stats_hash)
    assert(kept)
  end

  def test_track_block_reports_its_survivors
    require "stringio"
    io = StringIO.new
    kept = nil
    line = __LINE__ + 1
    result = Memprof.track(io) { kept = Array.new(4) { Widget.new }; :done }
    assert_equal(:done, result)
    assert_match(/^\s+4 +\d+ #{Regexp.escape("#{__FILE__}:#{line}:TestTracking::Widget")}$/, io.string)
    assert(!Memprof.running?)
    assert(kept)
  end

  # memprof.rb and memprof/signal.rb both ask to be ignored: the second must not undo the first.
  def test_memprofs_files_stay_ignored_once_signal_is_loaded
    out, status = run_ruby(<<~RUBY)
      require "memprof/signal"
      Memprof.start
      kept = Array.new(3) { Memprof.stats_hash }
      puts Memprof.stats_hash.keys.grep(%r{/memprof(/signal)?\.rb:}).inspect
      Memprof::Signal.uninstall
      p kept.size
    RUBY
    assert(status.success?, out)
    assert_equal(["[]", "3"], out.lines.map(&:chomp), out)
  end

  def test_stats_escapes_control_characters_in_file_names
    require "stringio"
    Memprof.start
    kept = eval("Array.new(3) { +'kept' }", binding, "evil\e[2J.rb", 1) # rubocop:disable Security/Eval
    io = StringIO.new
    Memprof.stats(io)
    assert_not_include(io.string, "\e")
    assert_match(/^\s+3 +\d+ evil\\x1b\[2J\.rb:1:String$/, io.string)
    assert_include(Memprof.stats_hash.keys, "evil\e[2J.rb:1:String", "stats_hash keeps the name")
    assert(kept)
  end

  def test_dump_carries_sites_and_sequence
    Memprof.start
    line = __LINE__ + 1
    first, second = "first #{line}", "second #{line}" # allocated by this method itself
    GC.start
    GC.compact if GC.respond_to?(:compact) # the tracker must follow moved objects
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "sites.jsonl")
      Memprof.dump_all(path)
      dump = Dump.new(path)
      a = dump[os_address(first)]
      b = dump[os_address(second)]
      assert_equal([__FILE__, line, "test_dump_carries_sites_and_sequence"], a.values_at("file", "line", "method"))
      assert_kind_of(Integer, a["generation"])
      assert_operator(a["seq"], :<, b["seq"])
      untracked = dump[os_address(Object)]
      assert_nil(untracked["seq"])
    end
  end

  MAKE_WIDGETS_LINE = __LINE__ + 1
  def make_widgets(count) = Array.new(count) { Widget.new } # the allocation: one frame in

  def test_dump_carries_allocation_stacks
    Memprof.start(stack: 6) # counting C methods' frames (Array.new, Class#new)
    line = __LINE__ + 1
    widgets = make_widgets(3)
    GC.start
    GC.compact if GC.respond_to?(:compact) # the stacks' frames must follow moved iseqs
    dump = dump_heap
    record = dump[os_address(widgets.first)]
    stacks = {}
    frames = {}
    dump.records.each do |r|
      frames[r["id"]] = r if r["type"] == "FRAME"
      stacks[r["id"]] = r["frames"] if r["type"] == "STACK"
    end
    assert_kind_of(Integer, record["stack"])
    stack = stacks.fetch(record["stack"]).map { |id| frames.fetch(id).values_at("file", "line", "method") }
    assert_equal([__FILE__, MAKE_WIDGETS_LINE, "make_widgets"], stack[0], "innermost first: the allocation's own line")
    assert_include(stack, [__FILE__, line, "test_dump_carries_allocation_stacks"], "the caller's line")
    assert_operator(stack.size, :<=, 6)
    assert_equal(record["stack"], dump[os_address(widgets.last)]["stack"], "one stack, written once")
    assert_equal(stacks.size, stacks.keys.uniq.size)
    ends = dump.records.last
    assert_equal("END", ends["type"])
    assert(widgets)
  end

  def test_stack_zero_records_none
    Memprof.start(stack: 0)
    widgets = make_widgets(2)
    dump = dump_heap
    assert_nil(dump[os_address(widgets.first)]["stack"])
    assert_not_include(dump.text, '"type":"STACK"')
    assert(widgets)
  end

  def test_stack_depth_is_checked_and_read_from_the_environment
    assert_raise(ArgumentError) { Memprof.start(stack: -1) }
    assert_raise(ArgumentError) { Memprof.start(stack: Memprof::MAX_STACK + 1) }
    assert_raise(ArgumentError) { Memprof.start(stack: "8") }
    assert(!Memprof.running?)
    assert_equal(Memprof::DEFAULT_STACK, Memprof.default_stack({}))
    assert_equal(0, Memprof.default_stack({ "MEMPROF_STACK" => "0" }))
    assert_equal(16, Memprof.default_stack({ "MEMPROF_STACK" => "16" }))
    assert_equal(8..8, Memprof.default_stack({ "MEMPROF_STACK" => "8..8" }))
    assert_raise(ArgumentError) { Memprof.start(stack: 9..3) }
    assert_equal([[8, 8], [8, 64], [3, 3], [0, 64], [8, 15]],
                 [8, 64, 3, 0..64, 8...16].map { |stack| Memprof.stack_depths(stack) }, "[least, most]")
    _out, err = capture_stderr { assert_equal(Memprof::DEFAULT_STACK, Memprof.default_stack({ "MEMPROF_STACK" => "lots\e" })) }
    assert_match(/MEMPROF_STACK=lots\\x1b: expects a depth from 0 to 64/, err)
  end
end
