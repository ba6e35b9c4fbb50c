# frozen_string_literal: true

# Each memprof record carries the fields ObjectSpace.dump writes for the same object.
require_relative "memprof_test_helper"

class TestObjectSpaceCompat < Test::Unit::TestCase
  include MemprofTestHelper

  Point = Struct.new(:x, :y)

  class Plain
    def initialize
      @a = 1
      @b = +"b"
    end
  end

  # One sample per object type ObjectSpace distinguishes (and the variants it writes fields for).
  def samples
    {
      "STRING embedded" => +"short",
      "STRING heap" => +("long string " * 10),
      "STRING shared" => ("shared base string " * 10)[20..],
      "STRING fstring" => -"an fstring literal",
      "STRING binary" => "\xff\xfe".b,
      "STRING broken" => +"broken \xff",
      "STRING utf16" => "wide".encode("UTF-16LE"),
      "SYMBOL" => :"dynamic symbol #{rand(1000)}",
      "FLOAT" => 1.5e300,
      "FLOAT NaN" => Float::NAN,
      "FLOAT Inf" => Float::INFINITY, # heap Floats all three: no flonum holds them
      "FLOAT -Inf" => -Float::INFINITY,
      "BIGNUM" => 2**100,
      "ARRAY embedded" => [1, +"a"],
      "ARRAY heap" => Array.new(20) { |i| i.to_s },
      "HASH" => { +"k" => +"v" },
      "HASH default" => Hash.new(+"default"),
      "HASH default proc" => Hash.new { |_, k| k },
      "ARRAY shared" => Array.new(100) { |i| i }[10..],
      "STRING chilled" => eval('"a literal of a file without the magic comment"'), # rubocop:disable Security/Eval
      "OBJECT" => Plain.new,
      "OBJECT too complex" => too_complex_object,
      "CLASS" => Plain,
      "CLASS singleton" => Plain.singleton_class,
      "MODULE" => Comparable,
      "STRUCT" => Point.new(1, +"y"),
      "DATA" => Thread::Queue.new.tap { |q| q << +"queued" },
      "FILE" => $stderr,
      "REGEXP" => /ab+c/,
      "MATCH" => "abc".match(/b/),
      "RATIONAL" => 1/3r,
      "COMPLEX" => Complex(1, 2),
      "PROC" => proc { 1 },
      "RANGE" => (1..2),
      "METHOD" => method(:puts),
    }
  end

  # An object whose class saw more shape variations than Ruby keeps shapes for (3.3+: its
  # ivars go into a table).
  def too_complex_object
    klass = Class.new
    20.times.map { |i| klass.new.tap { |o| o.instance_variable_set(:"@v#{i}", i) } }.last
  end

  # Fields of a sample that ObjectSpace writes on this Ruby: where it does not, the comparison
  # below would pass without looking.
  def exercised_fields
    fields = { "STRING shared" => "shared", "ARRAY shared" => "shared", "HASH default proc" => "default" }
    return fields if RUBY_VERSION < "3.3"

    fields.merge!("OBJECT too complex" => "too_complex_shape", "CLASS" => "variation_count",
                  "STRING heap" => "coderange", "OBJECT" => "shape_id", "ARRAY heap" => "slot_size")
    fields["STRING chilled"] = "chilled" if RUBY_VERSION >= "3.4"
    fields
  end

  def test_records_carry_objectspace_fields_type_by_type
    objects = samples
    exercised_fields.each do |label, key|
      assert(JSON.parse(ObjectSpace.dump(objects.fetch(label))).key?(key), "ObjectSpace writes #{key} of #{label}")
    end
    GC.start
    GC.disable # flags (marked, old) must not change between the two dumps
    begin
      failures = objects.flat_map do |label, obj|
        expected = JSON.parse(ObjectSpace.dump(obj))
        actual = JSON.parse(Memprof.dump(obj))
        expected.filter_map do |key, value|
          case key
          when "references"
            missing = value - actual["references"].to_a
            "#{label}: references miss #{missing}" unless missing.empty?
          else
            "#{label}: #{key} is #{actual[key].inspect}, ObjectSpace wrote #{value.inspect}" if actual[key] != value
          end
        end
      end
      assert_empty(failures)
    ensure
      GC.enable
    end
  end

  # "default" is the default proc only, as ObjectSpace writes it; a default value is a
  # reference named "(default)".
  def test_a_hash_default_is_a_field_only_when_a_proc
    with_value = Hash.new([].freeze)
    with_proc = Hash.new { |h, k| h[k] = [] }
    value_record = JSON.parse(Memprof.dump(with_value))
    assert_nil(JSON.parse(ObjectSpace.dump(with_value))["default"])
    assert_nil(value_record["default"])
    assert_equal("(default)", named_refs(value_record).key(os_address(with_value.default)))
    assert_equal(JSON.parse(ObjectSpace.dump(with_proc))["default"], JSON.parse(Memprof.dump(with_proc))["default"])
    assert_not_nil(JSON.parse(Memprof.dump(with_proc))["default"])
  end

  # SHAPE records (3.3+): one per object shape, every field as ObjectSpace writes it. Shapes are
  # only ever added: those of ObjectSpace's dump, written first, are all in memprof's.
  def test_shape_records_equal_objectspace
    Dir.mktmpdir("memprof-test") do |dir|
      File.open(File.join(dir, "os.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
      Memprof.dump_all(File.join(dir, "mp.jsonl"))
      os, mp = [["os.json", /"type":"SHAPE"/], ["mp.jsonl", /"type":"SHAPE"/]].map do |name, pattern|
        File.foreach(File.join(dir, name)).grep(pattern).map { |l| JSON.parse(l) }.to_h { |r| [r["id"], r] }
      end
      if RUBY_VERSION < "3.3"
        assert_empty(os.merge(mp), "no shapes before 3.3")
        next
      end
      assert_operator(os.size, :>, 10)
      assert_equal([], os.keys - mp.keys, "shapes ObjectSpace wrote and memprof did not")
      differing = os.reject { |id, record| mp[id] == record }
      assert_empty(differing.first(3).map { |id, r| [r, mp[id]] })
      assert(mp.values.any? { |r| r["edge_name"] == "@a" }, "an ivar's shape is named")
    end
  end

  # An imemo's klass word is no class (Ruby 3.1's ObjectSpace writes it raw, "0x8" for nil;
  # 3.3's leaves it out): memprof writes none, nor the class fields of one.
  def test_imemo_records_have_no_class
    imemos = dump_heap.text.each_line.grep(/"type":"IMEMO"/)
    assert_operator(imemos.size, :>, 100)
    assert_empty(imemos.grep(/"class(_name)?":/).first(3))
  end

  def test_memprof_additions
    obj = Plain.new
    record = JSON.parse(Memprof.dump(obj))
    assert_equal("TestObjectSpaceCompat::Plain", record["class_name"])
    assert_equal(record["class"], record["references"].first)
    assert_equal("(class)", record["reference_names"].first)
    assert_equal(["(class)", "@b"], record["reference_names"]) # @a holds a Fixnum
  end

  # Objects swept but not finalized yet are ZOMBIE records with the class they had, as
  # ObjectSpace writes them: caught by dumping from the first finalizer that runs, while the
  # others wait.
  class Finalized
    def self.finalizer(dir) = proc { Finalized.dump_once(dir) }

    def self.dump_once(dir)
      return if @dumped

      @dumped = true
      Memprof.dump_all(File.join(dir, "zombies.jsonl"))
      File.open(File.join(dir, "zombies.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
    end
  end

  def test_zombies_keep_their_class
    Dir.mktmpdir("memprof-test") do |dir|
      500.times { ObjectSpace.define_finalizer(Finalized.new, Finalized.finalizer(dir)) }
      GC.start
      sleep 0.01 until File.exist?(File.join(dir, "zombies.json"))
      zombies = File.foreach(File.join(dir, "zombies.jsonl")).map { |l| JSON.parse(l) }.select { |r| r["type"] == "ZOMBIE" }
      finalized = os_address(Finalized)
      assert_operator(zombies.count { |z| z["class"] == finalized }, :>, 10, "the finalizers still to run")
      os_zombies = File.foreach(File.join(dir, "zombies.json")).map { |l| JSON.parse(l) }.select { |r| r["type"] == "ZOMBIE" }
      assert_equal(os_zombies.first&.keys, zombies.first.keys, "the fields ObjectSpace writes")
    end
  end

  # Objects a C extension makes as it loads have its file and no line, in both dumps.
  def test_objects_made_while_a_c_extension_loads_have_no_line
    omit("pty is loaded already") if $LOADED_FEATURES.any? { |f| f.end_with?("/pty.so") }
    Memprof.start
    ObjectSpace.trace_object_allocations_start
    require "pty"
    ObjectSpace.trace_object_allocations_stop
    GC.disable
    begin
      os = ObjectSpace.dump_all(output: :string).lines.map { |l| JSON.parse(l) }
                      .select { |r| r["file"]&.end_with?("/pty.so") }
      assert_not_empty(os)
      assert_empty(os.select { |r| r.key?("line") }, "ObjectSpace writes no line")
      records = Dir.mktmpdir("memprof-test") do |dir|
        Memprof.dump_all(File.join(dir, "heap.jsonl")) # no GC.start: GC.disable does not stop it
        dump = Dump.new(File.join(dir, "heap.jsonl"))
        os.map { |r| dump[r["address"]] }
      end
      assert_not_empty(records)
      assert_empty(records.select { |r| r.key?("line") }.first(3), "memprof writes none either")
      assert(records.all? { |r| r["file"].end_with?("/pty.so") })
    ensure
      GC.enable
      Memprof.stop
    end
  end

  def test_dump_all_records_match_objectspace_dump_all_addresses
    Dir.mktmpdir("memprof-test") do |dir|
      GC.start
      GC.disable
      begin
        File.open(File.join(dir, "os.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
        Memprof.dump_all(File.join(dir, "mp.json"))
      ensure
        GC.enable
      end
      # Heap objects: SHAPE records (3.3+) are compared by test_shape_records_equal_objectspace.
      os = File.foreach(File.join(dir, "os.json")).filter_map { |l| l[/\A\{"address":"(0x\h+)", "type":"(?!SHAPE")/, 1] }
      mp = Dump.new(File.join(dir, "mp.json"))
      missing = os.reject { |a| mp.key?(a) }
      assert_empty(missing.first(5), "memprof's dump misses objects ObjectSpace wrote")
    end
  end
end
