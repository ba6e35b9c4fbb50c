# heapq stats on dumps that Ruby itself writes: counts must match what Ruby says.
require_relative "helper"

class TestStats < Test::Unit::TestCase
  include E2E

  PROGRAM = <<~'RUBY'
    require "objspace"
    require "json"
    class Widget
      def initialize(i) = (@name = "widget-#{i}"; @parts = [i, i.to_s])
    end
    KEEP = Array.new(3000) { |i| Widget.new(i) }
    TABLE = (1..500).to_h { |i| [i, i.to_s * 3] }
    GC.start
    GC.disable  # from here on counts only grow: the dump lies between the two counts
    file = File.open(ARGV[0], "w")
    before = ObjectSpace.count_objects.dup
    ObjectSpace.dump_all(output: file)
    after = ObjectSpace.count_objects.dup
    file.close
    File.write(ARGV[1], JSON.generate([before, after]))
  RUBY

  def test_counts_match_the_dump_and_ruby
    dump = File.join(@tmp, "heap.json")
    counts_file = File.join(@tmp, "counts.json")
    run_ruby(PROGRAM, dump, counts_file)

    records = File.readlines(dump).map { |l| JSON.parse(l) rescue nil }.compact
    objects = records.reject { |r| %w[ROOT SHAPE NONE].include?(r["type"]) }
    stats = heapq_json("stats", "--top", "0", dump)
    assert_equal(objects.size, stats["objects"], "one object per object record")
    assert_equal(objects.sum { |r| r["memsize"].to_i }, stats["bytes"])

    before, after = JSON.parse(File.read(counts_file))
    by_type = stats["by_type"].to_h { |t| [t["type"], t["count"]] }
    %w[OBJECT STRING ARRAY HASH CLASS MODULE DATA SYMBOL IMEMO].each do |type|
      low, high = before.fetch("T_#{type}", 0), after.fetch("T_#{type}", 0)
      assert_operator(high - low, :<=, 50, "#{type}: dump_all allocates only a few objects")
      assert_include(low..high, by_type.fetch(type, 0), "#{type}: ObjectSpace.count_objects says #{low}..#{high}")
    end

    by_class = stats["by_class"].to_h { |c| [c["class"], c["count"]] }
    assert_equal(3000, by_class["Widget"])
    assert_operator(by_class["String"], :>=, 3000 + 3000 + 500)
    assert_operator(by_class["Class"], :>, 100, "class objects count as Class")
  end

  def test_gzip_and_stdin_give_the_same_answer
    dump = File.join(@tmp, "heap.json")
    run_ruby(PROGRAM, dump, File.join(@tmp, "counts.json"))
    require "zlib"
    Zlib::GzipWriter.open("#{dump}.gz") { |gz| gz.write(File.binread(dump)) }
    plain = heapq_json("stats", dump)
    assert_equal(plain["by_type"], heapq_json("stats", "#{dump}.gz")["by_type"])
    out, err, code = heapq("--format", "json", "stats", "-", stdin_data: File.binread("#{dump}.gz"))
    assert_equal(0, code, err)
    assert_equal(plain["by_type"], JSON.parse(out)["by_type"])
  end
end
