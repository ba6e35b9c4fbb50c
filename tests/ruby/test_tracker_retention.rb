# frozen_string_literal: true

# Allocation tracking keeps nothing of the program alive: code the program drops (methods
# compiled per request, modules extended per call) is freed with tracking on as with it off,
# and the allocation stacks still name the frames of code that is gone.
require_relative "memprof_test_helper"

class TestTrackerRetention < Test::Unit::TestCase
  include MemprofTestHelper

  ROUNDS = 200
  # GC here is precise for these objects (tracking off grows by 0 of each); a word left on the
  # machine stack could still keep one or two alive. Leaking one per round would be ROUNDS.
  TOLERANCE = 5

  def teardown
    Memprof.stop
  end

  KINDS = %w[IMEMO:iseq IMEMO:ment ICLASS].freeze

  # The live count of each of KINDS after a full GC.
  def code_objects
    GC.start
    GC.start # a method entry frees what it holds only once it is itself swept
    imemo = ObjectSpace.count_imemo_objects
    [imemo[:imemo_iseq].to_i, imemo[:imemo_ment].to_i, ObjectSpace.count_objects[:T_ICLASS].to_i]
  end

  def growth
    before = code_objects
    yield
    code_objects.zip(before).map { |after, was| after - was }
  end

  # What `render inline:` does: a method compiled from a new source per request, run, removed.
  def compile_and_drop(rounds, first)
    host = Object.new
    rounds.times do |k|
      name = :"memprof_inline_#{first + k}"
      host.instance_eval("def #{name} = [1]", "inline_#{first + k}.erb", 1) # rubocop:disable Security/Eval
      host.public_send(name)
      host.singleton_class.send(:remove_method, name)
    end
  end

  # A job that extends each new object with a new module (its method entries, its ICLASS).
  def extend_and_drop(rounds)
    rounds.times do
      logger = Module.new { def log(line) = [line] }
      Object.new.extend(logger).log(1)
    end
  end

  def assert_same_growth(label)
    compile_and_drop(20, 0) # warm-up: method caches and the like, created once
    extend_and_drop(20)
    off = growth { yield 1 }
    Memprof.start
    on = growth { yield 2 }
    Memprof.stop
    KINDS.each_with_index do |kind, k|
      assert_operator(off[k].abs, :<=, TOLERANCE, "#{label}, tracking off: #{kind} grew by #{off[k]}")
      assert_operator((on[k] - off[k]).abs, :<=, TOLERANCE,
                      "#{label}: #{kind} grew by #{on[k]} with tracking on, by #{off[k]} with it off")
    end
  end

  def test_code_compiled_per_call_is_freed_with_tracking_on
    assert_same_growth("compiled per call") { |pass| compile_and_drop(ROUNDS, pass * 100_000) }
  end

  def test_modules_extended_per_call_are_freed_with_tracking_on
    assert_same_growth("extended per call") { extend_and_drop(ROUNDS) }
  end

  # The tracker's own DATA object references only memprof's objects, never the program's code.
  def test_the_tracker_references_none_of_the_programs_objects
    Memprof.start
    kept = Array.new(3) { |i| compile_and_drop(1, 200_000 + i) || [i] }
    dump = dump_heap
    tracker = dump.records.find { |r| r["struct"] == "memprof/tracker" }
    assert_not_nil(tracker)
    held = (tracker["references"] || []).map { |address| dump[address].values_at("type", "imemo_type", "struct") }
    assert_empty(held, "the tracker references #{held.uniq.first(5)}")
    assert(kept)
  end

  # The tracker holds no object (its hooks are plain functions) and weighs its tables' memory
  # as its memsize, which heapq counts as the profiler's (profiler_bytes), never the program's.
  def test_the_tracker_holds_nothing_and_weighs_its_tables
    Memprof.start
    kept = Array.new(1000) { |i| "kept #{i}" }
    dump = dump_heap
    tracker = dump.records.find { |r| r["struct"] == "memprof/tracker" }
    assert_empty(tracker["references"] || [])
    assert_operator(tracker["memsize"], :>=, kept.size * 24, "an address and a site per tracked object at least")
  end

  LEAF_LINE = __LINE__ + 1
  def yielder = yield

  # Methods from sources of their own, each allocating a pair: its stack as Ruby names it
  # (caller_locations: file, line, base label) and its number. Even ones are removed and
  # collected while the others are compiled, which may take their slots.
  def named_pairs(host, numbers, file_tag = "")
    numbers.map do |i|
      name = :"memprof_named_#{i}"
      host.instance_eval(<<~RUBY, "named_#{i}#{file_tag}.rb", 10 + i) # rubocop:disable Security/Eval
        def #{name}(test)
          test.yielder { [caller_locations(0, 3).map { |l| [l.path, l.lineno, l.base_label] }, #{i}] }
        end
      RUBY
      pair = host.public_send(name, self)
      host.singleton_class.send(:remove_method, name) if i.even?
      GC.start if (i % 8) == 7
      pair
    end
  end

  # Every pair's allocation stack in the dump names its frames as Ruby did when it was
  # allocated, whether its code still lives, was freed, or was moved by GC compaction (and
  # other code then took the old slots).
  def test_stacks_name_frames_of_code_alive_and_freed
    Memprof.start(stack: 3) # block in m, yielder, m: no C frame among them
    host = Object.new
    pairs = named_pairs(host, 0...40)
    GC.compact if GC.respond_to?(:compact)
    pairs += named_pairs(host, 40...80)
    pairs += (1...40).step(2).map { |i| host.public_send(:"memprof_named_#{i}", self) } # moved, alive
    assert_stacks_named(pairs)
  end

  # A stack seen before is named from memprof's cache of raw frames: the same calls again name
  # the same frames and lines, and code compiled anew in another file (the freed code's slots
  # taken by the new) names the new file, never the old.
  def test_stacks_seen_again_name_the_frames_of_their_time
    Memprof.start(stack: 3)
    host = Object.new
    pairs = []
    4.times do |round|
      pairs += named_pairs(host, 0...40, "_r#{round}")
      pairs += 3.times.flat_map { (1...40).step(2).map { |i| host.public_send(:"memprof_named_#{i}", self) } }
    end
    assert_stacks_named(pairs)
    # Code freed (a proc's, from an eval, in a thread that ends): the cache forgets its stacks.
    Thread.new do
      code = eval("proc { |test| test.yielder { [1] } }", nil, "dropped.rb", 1) # rubocop:disable Security/Eval
      10.times { code.call(self) }
    end.join
    cached = Memprof.sampling[:cached_stacks]
    assert_operator(cached, :>=, 20, "stacks named from the cache")
    GC.start
    assert_operator(Memprof.sampling[:cached_stacks], :<, 10, "forgotten with the code they named (of #{cached})")
  end

  # Each pair's allocation stack in a dump is the one Ruby gave when it was allocated.
  def assert_stacks_named(pairs)
    dump = dump_heap
    stacks = {}
    frames = {}
    dump.records.each do |r|
      frames[r["id"]] = r.values_at("file", "line", "method") if r["type"] == "FRAME"
      stacks[r["id"]] = r["frames"] if r["type"] == "STACK"
    end
    pairs.each do |pair|
      expected, i = pair
      assert_match(/\Anamed_#{i}(_r\d+)?\.rb\z/, expected[0][0])
      assert_equal([11 + i, "memprof_named_#{i}"], expected[0].drop(1))
      assert_equal([__FILE__, LEAF_LINE, "yielder"], expected[1])
      stack = stacks.fetch(dump[os_address(pair)]["stack"]).map { |id| frames.fetch(id) }
      assert_equal(expected, stack, "method #{i}")
    end
  end
end
