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

  def test_the_temporary_file_of_a_killed_load_is_removed
    pid = Process.spawn(RbConfig.ruby, "-e", "exit")
    Process.wait(pid)  # a process id that is gone
    stale = File.join(@tmp, ".heap.db.tmp-#{pid}")
    File.write(stale, "half a store")
    _out, err, code = heapq("load", "-o", File.join(@tmp, "heap.db"), dump)
    assert_equal(0, code, err)
    assert_false(File.exist?(stale))
    assert_match(/removed .*\.heap\.db\.tmp-#{pid}, left by an interrupted load/, err)
  end
end
