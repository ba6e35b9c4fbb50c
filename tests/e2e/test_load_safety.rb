# heapq load replaces nothing it should not, and cleans up after a load that was killed.
require_relative "helper"

class TestLoadSafety < Test::Unit::TestCase
  include E2E

  def dump
    path = File.join(@tmp, "heap.json")
    File.write(path, <<~JSON) unless File.exist?(path)
      {"type":"ROOT", "root":"vm", "references":["0x100"]}
      {"address":"0x100", "type":"STRING", "memsize":40}
    JSON
    path
  end

  def test_force_replaces_only_a_store_and_never_an_input
    notes = File.join(@tmp, "notes.txt")
    File.write(notes, "keep me")
    _out, err, code = heapq("load", "--force", "-o", notes, dump)
    assert_equal(1, code)
    assert_match(/not a store/, err)
    assert_equal("keep me", File.read(notes))

    store = File.join(@tmp, "heap.db")
    assert_equal(0, heapq("--quiet", "load", "-o", store, dump)[2])
    _out, err, code = heapq("load", "--force", "-o", store, store)
    assert_equal(1, code)
    assert_match(/also an input/, err)
    assert_equal(0, heapq("--quiet", "load", "--force", "-o", store, dump)[2])
  end

  def test_append_adds_dumps_after_those_of_the_store
    store = File.join(@tmp, "heap.db")
    assert_equal(0, heapq("--quiet", "load", "-o", store, dump)[2])
    first = heapq_json("stats", "#{store}#1")
    out, err, code = heapq("load", "--append", "-o", store, dump, dump)
    assert_equal(0, code, err)
    assert_match(/heap\.db#3: /, out)
    assert_equal([1, 2, 3], heapq_json("sql", store, "SELECT id FROM dumps ORDER BY id").map { |r| r["id"] })
    assert_equal(first, heapq_json("stats", "#{store}#1"))
    assert_equal(first.reject { |k| k == "input" }, heapq_json("stats", store).reject { |k| k == "input" })
    # The appended dump reopens from its columns, not from rows the triggers made it fall back to.
    assert_equal(3, heapq_json("sql", store, "SELECT count(DISTINCT dump_id) AS n FROM graph_columns")[0]["n"])
    assert_equal(1, heapq("load", "--append", "--force", "-o", store, dump)[2])
  end

  def test_the_temporary_file_of_a_killed_load_is_removed
    pid = Process.spawn(RbConfig.ruby, "-e", "exit")
    Process.wait(pid)  # a process id that is gone
    # As temporary files are named now, and as earlier versions named them.
    stale = [File.join(@tmp, ".heap.db.tmp-#{pid}-0123456789abcdef"), File.join(@tmp, ".heap.db.tmp-#{pid}")]
    stale.each { |path| File.write(path, "half a store") }
    _out, err, code = heapq("load", "-o", File.join(@tmp, "heap.db"), dump)
    assert_equal(0, code, err)
    stale.each { |path| assert_false(File.exist?(path), path) }
    assert_match(/removed .*\.heap\.db\.tmp-#{pid}-0123456789abcdef, left by an interrupted load/, err)
    assert_match(/removed .*\.heap\.db\.tmp-#{pid}, left by an interrupted load/, err)
  end
end
