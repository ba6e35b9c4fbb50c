# heapq leaks and diff on a store holding three dumps of one process give the answers they give
# on the dump files.
require_relative "helper"

class TestLeaksStore < Test::Unit::TestCase
  include E2E

  def test_store_of_three_dumps_finds_the_same_leak
    dumps = three_dumps("memo_cache", memprof: false)
    store = File.join(@tmp, "app.db")
    _out, err, code = heapq("--quiet", "load", "-o", store, *dumps)
    assert_equal(0, code, err)

    on_files = heapq_json("leaks", *dumps)
    on_store = heapq_json("leaks", store)
    assert_equal(3, on_store["inputs"].size, "every dump of the store, oldest first")
    assert_not_empty(on_files["leaks"])
    assert_equal(without_samples(on_files["leaks"]), on_store["leaks"],
                 "the same leaks, holders and what they hold")

    diff_files = heapq_json("diff", dumps.first, dumps.last)
    diff_store = heapq_json("diff", store)
    assert_equal(diff_files["by_class"], diff_store["by_class"])
    assert_equal(diff_files["born"], diff_store["born"])
  end

  # memprof's allocation stacks and Procs' block sites are kept in the store: the app's line
  # past a gem's frames and the block's own line, as on the dump files.
  def test_store_keeps_allocation_stacks_and_block_sites
    dumps = three_dumps("rack_subscriber", memprof: true, requests: 100)
    store = File.join(@tmp, "app.db")
    _out, err, code = heapq("--quiet", "load", "-o", store, *dumps)
    assert_equal(0, code, err)
    on_files = heapq_json("leaks", *dumps)
    on_store = heapq_json("leaks", store)
    assert_not_empty(on_files["leaks"])
    assert_equal(without_samples(on_files["leaks"]), on_store["leaks"])
    app_lines = on_store["leaks"].first["holds"].filter_map { |h| h["app"] }
    assert_not_empty(app_lines, "the store's leak shows the app's line")
    assert(app_lines.all? { |a| a["file"].end_with?("samples/rack_subscriber.rb") }, app_lines.to_s)
    block = on_store["leaks"].first["holds"].find { |h| h["class"] == "Proc" }
    assert_not_nil(block)
    assert(block["site"]["file"].end_with?("samples/rack_subscriber.rb"), "the block's own line: #{block}")
    procs = heapq_json("sites", "--by", "app", store)
    assert_equal(heapq_json("sites", "--by", "app", dumps.last)["sites"], procs["sites"])
    # --app-root applies when reading the store as when reading the dump.
    root = File.join(SOURCE_DIR, "samples")
    assert_equal(heapq_json("--app-root", root, "sites", "--by", "app", dumps.last)["sites"],
                 heapq_json("--app-root", root, "sites", "--by", "app", store)["sites"])
    # The rows alone (graph_columns dropped, as an edit of objects does) give the same.
    _out, err, code = heapq("sql", "--write", store, "DELETE FROM graph_columns")
    assert_equal(0, code, err)
    assert_equal(without_samples(on_files["leaks"]), heapq_json("leaks", store)["leaks"])
  end

  def test_reused_addresses_are_new_objects
    # Objects freed between the dumps leave their slots to new ones of the same class: only
    # the GC generation (allocation tracing) tells them apart.
    source = <<~RUBY
      require "objspace"
      class Entry; end
      ObjectSpace.trace_object_allocations_start
      def dump(path) = (GC.start; File.open(path, "w") { |f| ObjectSpace.dump_all(output: f) })
      keep = Array.new(2000) { Entry.new }
      dump(ARGV[0])
      keep = Array.new(2000) { Entry.new }  # the old ones go; their slots are reused
      dump(ARGV[1])
    RUBY
    before = File.join(@tmp, "before.json")
    after = File.join(@tmp, "after.json")
    run_ruby(source, before, after)
    addresses = ->(path) { File.foreach(path).filter_map { |l| r = JSON.parse(l); r["address"] if r["file"] } }
    reused = (addresses[before] & addresses[after]).size
    omit("no address was reused") if reused.zero?
    row = heapq_json("diff", before, after)["by_class"].find { |r| r["class"] == "Entry" }
    assert_equal(2000, row["after"]["count"])
    assert_operator(row["born"], :>=, 2000, "#{reused} reused addresses must not pass for the old Entries")
  end

  private

  # A store keeps no String values: the files' sample values are null there.
  def without_samples(leaks)
    leaks.map { |leak| leak.merge("holds" => leak["holds"].map { |h| h.merge("sample" => nil) }) }
  end
end
