# frozen_string_literal: true

# Memprof.dump_all: record structure, completeness against ObjectSpace, reference names.
require "socket"
require "time"
require_relative "memprof_test_helper"

class TestDumpAll < Test::Unit::TestCase
  include MemprofTestHelper

  Pair = Struct.new(:left, :right)

  class Holder
    LABEL = +"holder constant"
    attr_reader :name, :items, :table, :pair

    def initialize
      @name = +"holder name"
      @items = [+"first", +"second"]
      @table = { "key" => +"by string", sym: +"by symbol", 7 => +"by integer" }
      @pair = Pair.new(+"left value", +"right value")
    end
  end

  # When this process started, in CLOCK_MONOTONIC's seconds (which count from boot on Linux);
  # /proc gives it in clock ticks of 1/100 s (USER_HZ).
  def boot_relative_start
    File.read("/proc/self/stat").split(")").last.split[19].to_i / 100.0
  end

  def test_meta_first_end_last_and_every_line_valid
    records = dump_heap.records
    meta = records.first
    assert_equal("META", meta["type"])
    assert_equal("memprof", meta["format"])
    assert_equal(1, meta["version"])
    assert_equal(RUBY_VERSION, meta["ruby_version"])
    assert_equal(Process.pid, meta["pid"])
    assert_match(/\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00\z/, meta["time"])
    assert_equal(Socket.gethostname, meta["host"])
    # The process's start, to the second (Linux counts it in clock ticks after boot).
    started = Time.iso8601(meta["started"])
    assert_in_delta(Time.now - Process.clock_gettime(Process::CLOCK_MONOTONIC) +
                    boot_relative_start, started.to_f, 2.0)
    assert_operator(started, :<=, Time.iso8601(meta["time"]))
    assert_equal(1024, meta["strings"])
    assert_equal({ "type" => "END", "records" => records.size - 1 }, records.last)
    roots = records.take_while.with_index { |r, i| i.zero? || r["type"] == "ROOT" }.drop(1)
    assert_not_empty(roots)
    bad_roots = roots.reject { |r| r["root"].is_a?(String) && r["references"].all? { |a| a.match?(ADDRESS) } }
    assert_empty(bad_roots)
    objects = records[(1 + roots.size)...-1]
    problems = objects.filter_map do |r|
      if %w[META END ROOT].include?(r["type"]) || !r["address"].match?(ADDRESS)
        r
      elsif r["references"] && r["references"].size != r["reference_names"].size
        r
      elsif r["class"] && !r["class"].match?(ADDRESS)
        r
      end
    end
    assert_empty(problems.first(3))
  end

  # META's time is when the walk started, to the microsecond: dumps a second apart or less
  # are told apart, and the interval between them measured.
  def test_meta_time_is_within_the_call_to_the_microsecond
    times = Array.new(2) do
      before = Time.now.floor(6)
      meta = dump_heap.first
      [before, Time.iso8601(meta["time"]), Time.now]
    end
    times.each do |before, time, after|
      assert_operator(before, :<=, time)
      assert_operator(time, :<=, after)
    end
    assert_operator(times[0][1], :<, times[1][1])
  end

  # META counts GC compactions, read before the walk: heapq knows when addresses may have moved
  # between two dumps.
  def test_meta_counts_compactions
    before = dump_heap.first["compact_count"]
    assert_equal(GC.stat(:compact_count), before)
    GC.verify_compaction_references
    assert_equal(before + 1, dump_heap.first["compact_count"])
  end

  def test_live_object_count_matches_count_objects
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "heap.jsonl")
      counts = {}
      # First calls allocate: count_objects its keys' names, dump_all its method caches.
      ObjectSpace.count_objects(counts)
      Memprof.dump_all(File::NULL)
      GC.start
      ObjectSpace.count_objects(counts)
      Memprof.dump_all(path)
      live = counts[:TOTAL] - counts[:FREE]
      objects = Dump.new(path).object_count
      assert_in_delta(live, objects, 5, "count_objects says #{live}, the dump holds #{objects}")
    end
  end

  def test_every_reachable_object_is_referenced
    holder = Holder.new
    samples = [holder, holder.items, holder.table, holder.pair, Holder, holder.name, proc { holder }]
    by_address = dump_heap
    samples.each do |obj|
      record = by_address[os_address(obj)]
      refs = record["references"] || []
      ObjectSpace.reachable_objects_from(obj).each do |ref|
        next if ref.is_a?(ObjectSpace::InternalObjectWrapper) # no address to compare

        assert_include(refs, os_address(ref), "#{obj.class} misses a reference to #{ref.class}")
      end
      assert_include(refs, os_address(obj.class)) unless obj.is_a?(Class)
    end
  end

  def test_reference_names
    holder = Holder.new
    by_address = dump_heap

    names = named_refs(by_address[os_address(holder)])
    assert_equal(os_address(Holder), names["(class)"])
    assert_equal(os_address(holder.name), names["@name"])
    assert_equal(os_address(holder.items), names["@items"])

    names = named_refs(by_address[os_address(holder.items)])
    assert_equal(os_address(holder.items[0]), names["[0]"])
    assert_equal(os_address(holder.items[1]), names["[1]"])

    names = named_refs(by_address[os_address(holder.table)])
    assert_equal(os_address(holder.table["key"]), names['["key"]'])
    assert_equal(os_address(holder.table[:sym]), names["[:sym]"])
    assert_equal(os_address(holder.table[7]), names["[7]"])
    assert_include(names.keys, "(key)")

    names = named_refs(by_address[os_address(holder.pair)])
    assert_equal(os_address(holder.pair.left), names[".left"])
    assert_equal(os_address(holder.pair.right), names[".right"])

    names = named_refs(by_address[os_address(Holder)])
    assert_equal(os_address(Holder::LABEL), names["LABEL"])
    assert_equal(os_address(Object), names["(superclass)"])
    # A class's method entries, by method name (here an attr_reader's).
    assert_equal(%w[IMEMO ment], by_address[names["method items"]].values_at("type", "imemo_type"), names.keys.inspect)
  end

  # Past 65,536 references a record streams them and names them in a second walk (constant
  # memory): the same references as ObjectSpace's, in its order, each with its own name.
  def test_huge_containers_are_named_element_by_element
    array = Array.new(140_001) { |i| i.even? ? "element #{i}" : i }
    array << array[0] # the same object twice
    array.instance_variable_set(:@tag, +"tag")
    hash = Hash.new { |h, k| h[k] = k }
    70_000.times { |i| hash[i.even? ? "key #{i}" : i] = "value #{i}" }
    (0...1000).step(2) { |i| hash.delete("key #{i}") } # deleted entries are skipped
    hash[:last] = nil

    [array, hash].each do |big|
      record = JSON.parse(Memprof.dump(big))
      references = record["references"]
      assert_operator(references.size, :>, 65_536)
      assert_equal(os_address(big.class), references.first)
      assert_equal(JSON.parse(ObjectSpace.dump(big))["references"], references.drop(1))
      assert_equal(references.size, record["reference_names"].size)
    end

    pairs = JSON.parse(Memprof.dump(array)).values_at("reference_names", "references").transpose
    assert_equal(["(class)", os_address(Array)], pairs[0])
    assert_equal(["@tag", os_address(array.instance_variable_get(:@tag))], pairs[1])
    assert_equal(["[0]", os_address(array[0])], pairs[2])
    assert_equal(["[139998]", os_address(array[139_998])], pairs[-3])
    assert_equal(["[140000]", os_address(array[140_000])], pairs[-2])
    assert_equal(["[140001]", os_address(array[0])], pairs[-1])
    elements = pairs[2..].map { |name, address| [name[/\d+/].to_i, address] }
    assert_equal(elements.map(&:first), (0..140_000).step(2).to_a << 140_001)
    assert(elements.all? { |index, address| os_address(array[index]) == address })

    pairs = JSON.parse(Memprof.dump(hash)).values_at("reference_names", "references").transpose
    assert_equal(["(default)", os_address(hash.default_proc)], pairs[-1])
    assert_equal(["[1]", os_address(hash[1])], pairs[1]) # an Integer key is no reference
    first_key = pairs.index { |name, _| name == "(key)" }
    assert_equal(["(key)", os_address(hash.keys.grep(String).first)], pairs[first_key])
    assert_equal(['["key 1000"]', os_address(hash["key 1000"])], pairs[first_key + 1])
    assert_equal(["[1001]", os_address(hash[1001])], pairs[first_key + 2])
    values = pairs[1...-1].reject { |name, _| name == "(key)" }
    assert_equal(hash.size - 1, values.size) # :last => nil is no reference
    assert_equal(hash.values.compact.map { |v| os_address(v) }, values.map(&:last))
  end

  # A record's references are written and named as the GC reports them, and a fork child marks
  # a container's elements a few at a time: a dump needs no memory that grows with the biggest
  # object (it needed about 70 bytes per reference, and the child 8 more per element).
  def test_a_huge_container_costs_no_extra_memory
    out, status = run_ruby(<<~RUBY)
      require "tmpdir"
      require "fiddle"
      status = -> { File.read("/proc/self/status") }
      hwm = -> { status.call[/VmHWM:\\s+(\\d+)/, 1].to_i / 1024.0 }
      rss = -> { status.call[/VmRSS:\\s+(\\d+)/, 1].to_i / 1024.0 }
      # getrusage(RUSAGE_CHILDREN)'s ru_maxrss, after two timevals: the dump child's peak.
      getrusage = Fiddle::Function.new(Fiddle.dlopen(nil)["getrusage"],
                                       [Fiddle::TYPE_INT, Fiddle::TYPE_VOIDP], Fiddle::TYPE_INT)
      usage = Fiddle::Pointer.malloc(256, Fiddle::RUBY_FREE)
      array = Array.new(3_000_000) { |i| i.to_s }
      hash = {}
      1_000_000.times { |i| hash[i] = array[i] }
      GC.start
      Dir.mktmpdir do |dir|
        before = hwm.call
        Memprof.dump_all(File.join(dir, "heap.jsonl"))
        puts "in process: \#{(hwm.call - before).round} MB"
        before = rss.call
        Process.wait(Memprof.dump_all(File.join(dir, "heap.jsonl"), fork: true))
        raise "the dump child failed" unless $?.success? && getrusage.call(-1, usage).zero?
        puts "fork child: \#{(usage[32, 8].unpack1("q") / 1024.0 - before).round} MB"
      end
    RUBY
    assert(status.success?, out)
    extra = out.scan(/(?:in process|fork child): (-?\d+) MB/).flatten
    assert_equal(2, extra.size, out)
    # AddressSanitizer's redzones and quarantine cost a few MB more (13 measured; 226 before).
    limit = ENV.fetch("LD_PRELOAD", "").include?("asan") ? 40 : 8
    extra.each { |mb| assert_operator(mb.to_i, :<=, limit, out) }
  end

  # The VM's frozen core (the receiver of core#set_method_alias) is an object made an ICLASS,
  # whose singleton class is attached to it: its class name went round that loop to
  # "#<Class:#<Class:#<Class:#<Class:#<Class:#<?>>>>>>".
  def test_the_vms_frozen_core_is_named
    names = dump_heap.records.filter_map { |r| r["class_name"] }
    assert_empty(names.grep(/#<\?>/).uniq)
    assert_include(names, "#<Class:RubyVM::FrozenCore>")
  end

  def test_captured_locals_are_named
    captured = +"captured local"
    block = proc { captured }
    dump = dump_heap
    target = os_address(captured)
    holders = dump.lines.grep(/"local captured"/).map { |line| JSON.parse(line) }
                  .select { |r| r["type"] == "IMEMO" && named_refs(r)["local captured"] == target }
    assert_not_empty(holders, "no env names the local 'captured'")
    assert(block)
  end

  # Thread.current[:key] (a fiber-local, as ActiveSupport::TaggedLogging keeps its tags): the
  # Thread's reference to the value is named by the key, a String key as the Symbol it became.
  def test_fiber_locals_are_named_by_key
    ready = Queue.new
    finish = Queue.new
    thread = Thread.new do
      Thread.current[:request_tags] = [+"request-1"]
      Thread.current["tagged_logging_tags:1234"] = [+"job"]
      ready << [Thread.current[:request_tags], Thread.current["tagged_logging_tags:1234"]]
      finish.pop
    end
    tags, job_tags = ready.pop
    names = named_refs(dump_heap[os_address(thread)])
    assert_equal(os_address(tags), names["fiber-local :request_tags"], names.keys.compact.inspect)
    assert_equal(os_address(job_tags), names['fiber-local :"tagged_logging_tags:1234"'], names.keys.compact.inspect)
  ensure
    finish << :done
    thread&.join
  end

  # A Fiber that set Thread.current[:key] while it ran and is now suspended (a job runner's
  # fiber, an Enumerator's) keeps those fiber-locals: its references to them are named by key.
  def test_a_suspended_fibers_locals_are_named_by_key
    fiber = Fiber.new do
      Thread.current[:job_tags] = [+"job-7"]
      Fiber.yield Thread.current[:job_tags]
    end
    tags = fiber.resume
    assert_nil(Thread.current[:job_tags], "the fiber's locals are its own")
    names = named_refs(dump_heap[os_address(fiber)])
    assert_equal(os_address(tags), names["fiber-local :job_tags"], names.keys.compact.inspect)
  ensure
    fiber.resume if fiber&.alive?
  end

  class FinalizedResource; end

  # ObjectSpace.define_finalizer: the finalizer table holds a hidden Array of the object's
  # finalizers (what a leaking finalizer's Proc hangs from), as a "finalizers" root. memprof
  # names each for the class of the object it is for, which the table knows and no reference
  # says.
  def test_finalizers_are_named_for_their_object
    resources = Array.new(2) { FinalizedResource.new }
    resources.each { |r| ObjectSpace.define_finalizer(r, proc { :closed }) }
    dump = dump_heap
    root = dump.records.find { |r| r["type"] == "ROOT" && r["root"] == "finalizers" }
    assert_not_nil(root, "no finalizers root")
    name = "finalizers of #{self.class}::FinalizedResource"
    tables = root["references"].zip(root["reference_names"] || []).filter_map { |a, n| a if n == name }
    assert_equal(2, tables.size, "#{name} among #{root['reference_names']&.compact&.uniq.inspect}")
    tables.each do |table|
      assert_equal("ARRAY", dump[table]["type"])
      assert_equal("DATA", dump[dump[table]["references"].first]["type"], "a Proc, the finalizer")
    end
  ensure
    resources&.each { |r| ObjectSpace.undefine_finalizer(r) }
  end

  # What holds the objects C code registered: the "vm" root up to 3.3; from 3.4 the links of a
  # chain of "VM/pin_array_list" objects, which the root holds.
  def registered_holders(dump, root)
    return [root] if Gem::Version.new(RUBY_VERSION) < Gem::Version.new("3.4")

    links = dump.records.select { |r| r["struct"] == "VM/pin_array_list" }
    assert_include(root["references"], links.first&.fetch("address"), "the chain hangs from the root")
    links
  end

  # What the VM itself holds (the "vm" root) is named where it is one of the VM's own fields.
  def test_the_vms_own_roots_are_named
    previous = trap("USR2") { :dump }
    handler = trap("USR2", previous)
    trap("USR2", handler)
    dump = dump_heap
    root = dump.records.find { |r| r["type"] == "ROOT" && r["root"] == "vm" }
    names = named_refs(root)
    assert_equal(os_address($LOAD_PATH), names["$LOAD_PATH"], names.keys.compact.inspect)
    assert_equal(os_address($LOADED_FEATURES), names["$LOADED_FEATURES"])
    assert_equal(os_address(TOPLEVEL_BINDING.receiver), names["main"])
    assert_equal(os_address(handler), names["trap handler of SIGUSR2"])
    # What C code registered: the VM's buckets are named; a class needs no name.
    assert_include(names.keys, "registered by C code (rb_gc_register_mark_object)")
    holder = registered_holders(dump, root).find { |r| r["references"].include?(os_address(Object)) }
    assert_not_nil(holder, "class Object is registered")
    assert_nil(holder["reference_names"][holder["references"].index(os_address(Object))])
  ensure
    trap("USR2", previous) if previous
  end

  # A global variable holds its value from the "global_tbl" root: memprof names it, aliases
  # included, reading the variable's storage (never its getter, which may run the program).
  def test_global_variables_are_named
    eval("$memprof_test_cache = [+'held']; alias $memprof_test_alias $memprof_test_cache", TOPLEVEL_BINDING)
    root = dump_heap.records.find { |r| r["type"] == "ROOT" && r["root"] == "global_tbl" }
    names = named_refs(root)
    assert_equal(os_address($memprof_test_cache), names["$memprof_test_alias, $memprof_test_cache"],
                 names.keys.compact.inspect)
    # ARGF sits behind $* (whose getter gives ARGV): named, and said to be what a getter reads.
    argf = names.find { |name, address| address == os_address(ARGF) }&.first
    assert_match(/\$\*.* \(what their getter reads\)\z/, argf.to_s)
  ensure
    eval("$memprof_test_cache = nil", TOPLEVEL_BINDING)
  end

  # Ruby's symbol table: the Array of every immortal Symbol's name ("to_s" among them) and the
  # Hash of the collectable ones' names, both hidden objects C code registered.
  def test_the_symbol_table_is_named
    dynamic = "memprof_dynamic_#{rand(1 << 30)}".to_sym
    dump = dump_heap
    root = dump.records.find { |r| r["type"] == "ROOT" && r["root"] == "vm" }
    names = registered_holders(dump, root).map { |holder| named_refs(holder) }.reduce(:merge)
    table = names["symbol table (the names of Symbols that live for ever)"]
    assert_not_nil(table, names.keys.compact.inspect)
    assert_equal("ARRAY", dump[table]["type"])
    units = dump[table]["references"].map { |a| dump[a] }
    assert(units.any? { |u| u["references"]&.include?(os_address("to_s".to_sym.name)) },
           "the name of :to_s is in the table")
    dynamic_names = names["symbol table (the names of collectable Symbols)"]
    assert_equal("HASH", dump[dynamic_names]["type"])
    assert_include(dump[dynamic_names]["references"], os_address(dynamic.name))
  end

  # Like ActiveSupport's subscribe: the block becomes a Proc inside the library.
  module Listeners
    def self.subscribe(&block) = (@all ||= []) << block
    def self.clear = @all&.clear
  end

  def test_procs_name_where_their_block_is_written
    Memprof.start
    block_line = __LINE__ + 1
    Listeners.subscribe { |event| event }
    listener = Listeners.instance_variable_get(:@all).last
    lambda_line = __LINE__ + 1
    lam = ->(x) { x }
    from_symbol = :upcase.to_proc
    dump = dump_heap
    record = dump[os_address(listener)]
    # The block's label as Ruby's backtraces give it (3.4's add the class: "block in Foo#bar").
    label = "block in #{__method__}"
    assert_equal({ "file" => __FILE__, "line" => block_line, "method" => label }, record["block"])
    assert_not_equal(block_line, record["line"], "the allocation site is inside subscribe")
    assert_equal({ "file" => __FILE__, "line" => lambda_line, "method" => label }, dump[os_address(lam)]["block"])
    assert_nil(dump[os_address(from_symbol)]["block"])
  ensure
    Memprof.stop
    Listeners.clear
  end

  def test_class_names_and_long_hash_keys
    anonymous = Class.new
    obj = anonymous.new
    singleton_owner = Object.new
    def singleton_owner.hello; end
    long_key = { ("k" * 100) => +"long" }
    by_address = dump_heap
    assert_equal("TestDumpAll::Holder", by_address[os_address(Holder)]["name"])
    assert_match(/\A#<Class:0x[0-9a-f]+>\z/, by_address[os_address(obj)]["class_name"])
    # A singleton class names the object it is attached to (no ivar keeps it from 3.3 on).
    assert_equal("#<Class:#<Object:#{os_address(singleton_owner)}>>", by_address[os_address(singleton_owner)]["class_name"])
    assert_equal("#<Class:TestDumpAll::Holder>", by_address[os_address(Holder)]["class_name"])
    name = named_refs(by_address[os_address(long_key)]).keys.find { |k| k&.start_with?('["k') }
    assert_equal("[\"#{"k" * 39}...]", name)
  end

  def test_strings_option
    text = +("x" * 5000)
    utf8 = +("é" * 100)
    by_address = dump_heap(strings: 11)
    assert_equal("x" * 11, by_address[os_address(text)]["value"])
    assert_equal(5000, by_address[os_address(text)]["bytesize"])
    assert_equal("é" * 5, by_address[os_address(utf8)]["value"]) # cut on a character boundary
    dump = dump_heap(strings: false)
    assert_equal(false, dump.first["strings"])
    assert(dump.lines.none? { |line| line.include?('"type":"STRING"') && line.include?('"value"') })
  end

  # Copies of one long value are found though the dump holds only its beginning: the whole
  # value's hash (FNV-1a, 64 bits) tells them from values that only begin alike.
  def test_cut_values_carry_a_hash_of_the_whole_value
    copies = Array.new(2) { +("w" * 3000) }
    other = +("w" * 2999 + "v")
    short = +"short"
    by_address = dump_heap(strings: 100)
    a, b, c = (copies + [other]).map { |s| by_address[os_address(s)] }
    assert_match(/\A[0-9a-f]{16}\z/, a["value_hash"])
    assert_equal(a["value_hash"], b["value_hash"])
    assert_not_equal(a["value_hash"], c["value_hash"])
    assert_equal(a["value"], c["value"])
    fnv = ("w" * 3000).bytes.reduce(0xcbf29ce484222325) { |h, byte| ((h ^ byte) * 0x100000001b3) & (2**64 - 1) }
    assert_equal(format("%016x", fnv), a["value_hash"])
    assert_nil(by_address[os_address(short)]["value_hash"], "a whole value needs no hash")
  end

  def test_strings_are_cut_in_their_own_encoding
    binary = "\x80".b * 2000
    euc = ("あいう" * 10).encode("EUC-JP")
    broken = (+"\x80" * 2000).force_encoding("UTF-8")
    by_address = dump_heap(strings: 5)
    assert_equal("\u0080" * 5, by_address[os_address(binary)]["value"])
    assert_equal(4, by_address[os_address(euc)]["value"].size, "two whole EUC-JP characters")
    assert_equal(5, by_address[os_address(broken)]["value"].size)
  end

  # An index past what a String's flags hold is kept elsewhere. Encoding#replicate, gone in
  # 3.3, made such encodings; rb_define_dummy_encoding, public C on every Ruby, still does.
  def test_encodings_past_the_inline_index
    require "fiddle"
    define = Fiddle::Function.new(Fiddle::Handle::DEFAULT["rb_define_dummy_encoding"],
                                  [Fiddle::TYPE_VOIDP], Fiddle::TYPE_INT, need_gvl: true)
    indexes = Array.new(40) { |i| define.call("MEMPROF-#{Process.pid}-#{i}") }
    assert_operator(indexes.last, :>, 127, "past the inline index")
    late = Encoding.find("MEMPROF-#{Process.pid}-39")
    text = (+"late encoding").force_encoding(late)
    assert_equal(late.name, dump_heap[os_address(text)]["encoding"])
  end

  def test_names_read_as_inspect_writes_them
    member = "member_#{Process.pid}_#{rand(1 << 30)}".to_sym
    dynamic = Struct.new(member).new(+"in a dynamic member")
    keys = { 1.5 => +"float", 1e20 => +"big float", :"odd sym" => +"odd", plain?: +"plain",
             ["sql.active_record", 1] => +"composite", [[1], "x" * 50] => +"long composite" }
    by_address = dump_heap
    assert_equal(os_address(dynamic[member]), named_refs(by_address[os_address(dynamic)])[".#{member}"])
    names = named_refs(by_address[os_address(keys)])
    assert_equal(os_address(keys[1.5]), names["[1.5]"])
    assert_equal(os_address(keys[1e20]), names["[1.0e+20]"])
    assert_equal(os_address(keys[:"odd sym"]), names['[:"odd sym"]'])
    assert_equal(os_address(keys[:plain?]), names["[:plain?]"])
    assert_equal(os_address(keys[["sql.active_record", 1]]), names['[["sql.active_record", 1]]'])
    long = names.keys.compact.find { |name| name.start_with?("[[#<Array:0x") }
    assert_match(/\A\[\[#<Array:0x\h+>, "x+\.\.\.\]\z/, long, "one level deep, cut to 40 characters")
    assert_equal(os_address(keys[[[1], "x" * 50]]), names[long])
    class_names = named_refs(by_address[os_address(Holder)]).keys.compact
    assert_include(class_names, "(__classpath__)")
    assert_empty(class_names.grep(/\A__/), "internal variables read like ivars")
  end

  def test_hostile_path_and_bytes_are_valid_json_and_utf8
    obj = eval("[+\"evil \\xff\\xfe value\", Object.new]", binding, "we\"ird\xff\npath.rb") # rubocop:disable Security/Eval
    weird_key = { "\xff\x00\"".b => 1, "ok".encode("UTF-16LE") => +"x" }
    Memprof.start
    tracked = eval("+'tracked in a weird file'", binding, "we\"ird\xff\npath.rb", 3) # rubocop:disable Security/Eval
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "heap.jsonl")
      GC.start
      Memprof.dump_all(path)
      by_address = Dump.new(path) # fails on invalid UTF-8
      by_address.records # fails on invalid JSON
      value = by_address[os_address(obj[0])]["value"]
      assert_equal("evil ÿþ value", value)
      assert_equal("we\"irdÿ\npath.rb", by_address[os_address(tracked)]["file"])
      assert_equal(3, by_address[os_address(tracked)]["line"])
      assert(by_address[os_address(weird_key)])
    end
  ensure
    Memprof.stop
  end

  def test_dump_to_io_and_pathname
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "io.jsonl")
      File.open(path, "w") do |io|
        io.write("")
        assert_same(io, Memprof.dump_all(io))
      end
      assert_equal("END", JSON.parse(File.readlines(path).last)["type"])
      require "pathname"
      assert_equal(Pathname(path), Memprof.dump_all(Pathname(path)))
      require "stringio"
      sio = StringIO.new
      Memprof.dump_all(sio)
      assert_equal("META", JSON.parse(sio.string.lines.first)["type"])
    end
  end

  # A Pathname is a path, though it responds to write: gzip for ".gz", and the file replaced
  # atomically (a new inode), as for a String.
  def test_pathname_is_dumped_as_its_path
    require "pathname"
    require "zlib"
    Dir.mktmpdir("memprof-test") do |dir|
      gz = Pathname(File.join(dir, "heap.jsonl.gz"))
      assert_equal(gz, Memprof.dump_all(gz))
      assert_equal("END", JSON.parse(Zlib::GzipReader.open(gz.to_path, &:readlines).last)["type"])
      plain = Pathname(File.join(dir, "heap.jsonl"))
      plain.write("old\n")
      old_inode = plain.stat.ino
      Memprof.dump_all(plain)
      assert_not_equal(old_inode, plain.stat.ino, "replaced by rename, not rewritten in place")
      assert_equal("END", JSON.parse(plain.readlines.last)["type"])
    end
  end

  def test_dump_one_object
    holder = Holder.new
    record = JSON.parse(Memprof.dump(holder))
    assert_equal(os_address(holder), record["address"])
    assert_equal("TestDumpAll::Holder", record["class_name"])
    require "stringio"
    io = StringIO.new
    Memprof.dump(holder.name, io)
    assert_equal("holder name", JSON.parse(io.string)["value"])
    assert_raise(ArgumentError) { Memprof.dump(42) }
  end
end
