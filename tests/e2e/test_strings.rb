# heapq strings finds the values many String objects hold, checked against memory_profiler's
# String Report (Debian's ruby-memory-profiler) on the same program.
require_relative "helper"

class TestStrings < Test::Unit::TestCase
  include E2E

  # Run twice, the same work each time: under memory_profiler (ARGV: "profile", REPORT), whose
  # report clears the allocation sites it traced and keeps a copy of each value it reports, and
  # traced by ObjectSpace alone (ARGV: "dump", DUMP), for heapq.
  PROGRAM = <<~'RUBY'
    require "json"
    KEEP = []
    def work
      300.times { |i| KEEP << "region-#{i % 3}" }       # line 4: three values, 100 copies each
      50.times { KEEP << +"status: active" }             # line 5: 50 copies, no garbage ones
      7.times { KEEP << "\e]0;pwned\a\e[31m" * 2 }      # line 6: a value that drives terminals
      KEEP << "once" + " only"
    end
    if ARGV[0] == "profile"
      require "memory_profiler"
      File.write(ARGV[1], JSON.generate(MemoryProfiler.report { work }.strings_retained))
    else
      require "objspace"
      ObjectSpace.trace_object_allocations_start
      work
      GC.start
      File.open(ARGV[1], "w") { |f| ObjectSpace.dump_all(output: f) }
    end
  RUBY

  def run_program
    path = File.join(@tmp, "program_strings.rb")
    File.write(path, PROGRAM)
    dump = File.join(@tmp, "heap.json")
    report = File.join(@tmp, "report.json")
    [["dump", dump], ["profile", report]].each do |mode, out|
      _out, err, status = Open3.capture3(RbConfig.ruby, path, mode, out)
      assert(status.success?, "ruby failed: #{err}")
    end
    [dump, JSON.parse(File.read(report))]
  end

  def test_same_values_and_counts_as_memory_profiler
    dump, profiler = run_program  # profiler: [[value, [["file:line", count], ...]], ...]
    strings = heapq_json("strings", "--top", "0", dump)["strings"]
    checked = 0
    profiler.each do |value, locations|
      next unless value =~ /\Aregion-|\Astatus: |pwned/
      row = strings.find { |s| s["value"] == value }
      assert_not_nil(row, "heapq lists #{value.inspect}")
      locations.each do |location, count|
        file, line = location.split(/:(?=\d+\z)/)
        site = row["sites"].find { |s| s["site"] && s["site"]["file"] == file && s["site"]["line"] == Integer(line) }
        assert_equal(count, site&.fetch("count"), "#{value.inspect} at #{location}")
        checked += 1
      end
      # memory_profiler counts the copies its block made; heapq every copy in the heap: the
      # literal "status: active" compiled into the program is one more, interned.
      assert_equal(locations.sum(&:last) + (value.start_with?("status") ? 1 : 0), row["count"], value)
    end
    assert_equal(5, checked, "three regions, the status and the hostile value: #{profiler.map(&:first).inspect}")
    status = strings.find { |s| s["value"] == "status: active" }
    assert_equal(1, status["interned"])
    assert_nil(strings.find { |s| s["value"] == "once only" }, "one copy is no duplicate")
  end

  def test_text_escapes_values_and_names_the_line
    dump, = run_program
    out, err, code = heapq("--width", "0", "strings", "--top", "0", dump)
    assert_equal(0, code, err)
    assert_not_include(out, "\e", "no escape sequence reaches the terminal")
    assert_not_include(out, "\a")
    assert_match(/^ +7 .*"\\e\]0;pwned\\x07\\e\[31m/, out)
    assert_match(/^Lines that make copies of one value:$/, out)
    assert_match(/^ +100 .*"region-[012]" +\S*program_strings\.rb:4 in work$/, out)
  end

  def test_memprof_cut_values_are_told_apart_by_their_hash
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    dump = File.join(@tmp, "heap.jsonl")
    program = <<~RUBY
      require "memprof"
      KEEP = Array.new(4) { +("w" * 5000) } + Array.new(3) { +("w" * 4999 + "v") }
      Memprof.dump_all(ARGV[0], strings: 100)
    RUBY
    path = File.join(@tmp, "cut.rb")
    File.write(path, program)
    _out, err, status = Open3.capture3(RbConfig.ruby, "-I", ext, path, dump)
    assert(status.success?, err)
    strings = heapq_json("strings", dump)["strings"]
    cut = strings.select { |s| s["value"] == "w" * 100 && s["bytesize"] == 5000 }
    assert_equal([4, 3], cut.map { |s| s["count"] }.sort.reverse)
    cut.each do |s|
      assert(s["value_cut"])
      assert_equal(5000, s["bytesize"])
      assert_match(/\A[0-9a-f]{16}\z/, s["value_hash"])
    end
  end

  def test_a_store_keeps_no_values
    dump, = run_program
    store = File.join(@tmp, "heap.db")
    _out, err, code = heapq("--quiet", "load", "-o", store, dump)
    assert_equal(0, code, err)
    _out, err, code = heapq("strings", store)
    assert_equal(1, code)
    assert_match(/a store keeps no string values; give the dump file itself/, err)
  end
end
