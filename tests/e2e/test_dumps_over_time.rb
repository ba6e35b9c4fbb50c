# Dumps compared over time (diff, leaks, report) are of one process, oldest first: memprof's
# META says which process and when, and tracking stopped and started again between two dumps
# leaves the objects of the first the same objects.
require_relative "helper"
require "socket"

class TestDumpsOverTime < Test::Unit::TestCase
  include E2E

  # Three dumps of one process: 1 and 2 with tracking stopped and started again between them,
  # and an anonymous class named Widget; 3 written by a child of fork: true. Prints the pid.
  PROGRAM = <<~RUBY
    require "memprof"
    class Kept; end
    class Added; end
    dir = ARGV[0]
    Memprof.start
    $kept = Array.new(100) { Kept.new }
    $anonymous = Class.new
    $widgets = Array.new(30) { $anonymous.new }
    GC.start
    Memprof.dump_all(File.join(dir, "1.jsonl"))
    Memprof.stop
    Memprof.start
    $added = Array.new(200) { Added.new }
    Widget = $anonymous
    $widgets.concat(Array.new(20) { Widget.new })
    GC.start
    Memprof.dump_all(File.join(dir, "2.jsonl"))
    GC.start
    Process.wait(Memprof.dump_all(File.join(dir, "3.jsonl"), fork: true))
    puts Process.pid
  RUBY

  def run_program(name)
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    dir = File.join(@tmp, name)
    Dir.mkdir(dir)
    path = File.join(@tmp, "program.rb")
    File.write(path, PROGRAM)
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", ext, path, dir)
    assert(status.success?, "program failed: #{err}")
    [dir, Integer(out)]
  end

  def meta(dump) = JSON.parse(File.open(dump, &:readline))

  def test_tracking_restarted_keeps_the_first_dumps_objects
    dir, = run_program("a")
    result = heapq_json("diff", "#{dir}/1.jsonl", "#{dir}/2.jsonl")
    assert_equal("seq", result["matched_by"])
    kept = result["by_class"].find { |row| row["class"] == "Kept" }
    assert_nil(kept, "the Kept objects neither came nor went: #{kept}")
    added = result["by_class"].find { |row| row["class"] == "Added" }
    assert_equal(200, added["born"], added.to_s)

    out, err, code = heapq("leaks", "#{dir}/1.jsonl", "#{dir}/2.jsonl")
    assert_equal(0, code, err)
    assert_no_match(/Kept/, out, "no object of the first dump is a suspect")
  end

  def test_a_class_named_between_dumps_is_one_class
    dir, = run_program("a")
    result = heapq_json("diff", "#{dir}/1.jsonl", "#{dir}/2.jsonl")
    widget = result["by_class"].find { |row| row["class"] == "Widget" }
    assert_equal([30, 50, 20, 0], [widget["before"]["count"], widget["after"]["count"], widget["born"], widget["freed"]],
                 widget.to_s)
    anonymous = result["by_class"].select { |row| row["class"].start_with?("#<Class:0x") }
    assert_empty(anonymous, "the Widgets of the first dump are not freed under their old name")
    assert_equal(result["born"], result["by_class"].sum { |row| row["born"] }, "the rows add up")
    assert_equal(result["freed"], result["by_class"].sum { |row| row["freed"] }, "the rows add up")
  end

  def test_a_forked_dump_is_of_the_process_that_forked
    dir, pid = run_program("a")
    assert_equal([pid, pid], [meta("#{dir}/1.jsonl")["pid"], meta("#{dir}/3.jsonl")["pid"]])
    assert_operator(meta("#{dir}/3.jsonl")["gc_count"], :>, meta("#{dir}/2.jsonl")["gc_count"])
    heapq_json("diff", "#{dir}/1.jsonl", "#{dir}/3.jsonl")
    _out, err, code = heapq("leaks", "#{dir}/1.jsonl", "#{dir}/2.jsonl", "#{dir}/3.jsonl")
    assert_equal(0, code, err)
  end

  # Two workers dumping into one directory: leaks takes each process's dumps on its own, in the
  # order they were written; diff and report, which compare one process, refuse.
  def test_dumps_of_different_processes
    a, pid_a = run_program("a")
    b, pid_b = run_program("b")
    mixed = ["#{b}/3.jsonl", "#{a}/2.jsonl", "#{b}/1.jsonl", "#{a}/1.jsonl", "#{b}/2.jsonl", "#{a}/3.jsonl"]
    result = heapq_json("leaks", *mixed)
    assert_equal([pid_a, pid_b].sort, result["processes"].map { |p| p["pid"] })
    result["processes"].each do |process|
      dir = process["pid"] == pid_a ? a : b
      assert_equal(%w[1 2 3].map { |n| "#{dir}/#{n}.jsonl" }, process["inputs"].map { |i| i["path"] },
                   "each process's dumps, oldest first")
    end
    out, _err, code = heapq("leaks", *mixed)
    assert_equal(0, code)
    host = Regexp.escape(Socket.gethostname)
    assert_match(/\AThe dumps are of 2 processes: .*\n  process #{[pid_a, pid_b].min} on #{host} \(started [^)]+\): 3 dumps, /m, out)
    assert_match(/^== process #{pid_a} on #{host} ==\n3 dumps, #{Regexp.escape(a)}/, out)
    assert_equal([Socket.gethostname] * 2, result["processes"].map { |p| p["host"] })

    [%w[diff], ["report", "-o", File.join(@tmp, "r.html")]].each do |command|
      out, err, code = heapq(*command, "#{a}/1.jsonl", "#{b}/2.jsonl")
      assert_equal(1, code, "#{command.first}: #{out}#{err}")
      assert_match(/process #{pid_a}.* process #{pid_b}.*--as-given/m, err, command.first)
    end
    refute(File.exist?(File.join(@tmp, "r.html")), "no report of a refused comparison")
    heapq_json("diff", "--as-given", "#{a}/1.jsonl", "#{b}/2.jsonl")

    # A store keeps which process each dump is of.
    store = File.join(@tmp, "mixed.db")
    _out, err, code = heapq("load", "#{a}/1.jsonl", "#{b}/2.jsonl", "-o", store)
    assert_equal(0, code, err)
    # leaks takes each process of the store on its own, as it does the files; diff refuses.
    out, err, code = heapq("leaks", store)
    assert_equal(0, code, err)
    assert_match(/\AThe dumps are of 2 processes: /, out)
    assert_match(/^== process #{pid_a} on #{host} ==\n#{Regexp.escape(store)}#1: /, out)
    _out, err, code = heapq("diff", store)
    assert_equal(1, code, err)
    assert_match(/#{Regexp.escape(store)}#1 is a dump of process #{pid_a}.*--as-given/m, err)
  end

  # memprof's META says when each dump was written: a glob that sorts them otherwise, or a
  # hand that gives them newest first, changes nothing but a note.
  def test_dumps_out_of_time_order_are_taken_in_time_order
    dir, = run_program("a")
    given = %W[#{dir}/1.jsonl #{dir}/3.jsonl #{dir}/2.jsonl]
    out, err, code = heapq("--format", "json", "leaks", *given)
    assert_equal(0, code, err)
    assert_match(%r{in the order they were written .*: .*1\.jsonl, .*2\.jsonl, .*3\.jsonl}, err)
    assert_equal(given.sort, JSON.parse(out)["inputs"].map { |i| i["path"] })
    assert_equal(heapq_json("leaks", *given.sort)["leaks"], JSON.parse(out)["leaks"])
    diff, err, code = heapq("--format", "json", "diff", "#{dir}/2.jsonl", "#{dir}/1.jsonl")
    assert_equal(0, code, err)
    diff = JSON.parse(diff)
    assert_equal(%W[#{dir}/1.jsonl #{dir}/2.jsonl], [diff["before"]["path"], diff["input"]["path"]])

    # --as-given takes them as given, and says nothing.
    _out, err, code = heapq("diff", "--as-given", "#{dir}/2.jsonl", "#{dir}/1.jsonl")
    assert_equal(0, code, err)
    assert_not_match(/in the order they were written/, err)
  end
end
