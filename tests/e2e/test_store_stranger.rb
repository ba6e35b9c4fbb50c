# A store may come from anyone: what its schema holds never runs as heapq's SQL, never reaches
# outside the store, and never makes a command hang; heapq sql runs no function or PRAGMA that
# reaches into heapq's memory or the whole process.
require_relative "helper"

class TestStoreStranger < Test::Unit::TestCase
  include E2E

  def store
    dump = File.join(@tmp, "heap.json")
    File.write(dump, <<~JSON)
      {"type":"ROOT", "root":"vm", "references":["0x100"]}
      {"address":"0x100", "type":"STRING", "memsize":40}
    JSON
    path = File.join(@tmp, "heap.db")
    assert_equal(0, heapq("--quiet", "load", "-o", path, dump)[2])
    [path, dump]
  end

  def write(store, sql)
    _out, err, code = heapq("sql", "--write", store, sql)
    assert_equal(0, code, err)
  end

  def dump_ids(store)
    heapq_json("sql", store, "SELECT id FROM dumps ORDER BY id").map { |r| r["id"] }
  end

  # heapq with a deadline: [stdout, stderr, exit status], or a failure if it still runs.
  def heapq_within(seconds, *args)
    Open3.popen3(HEAPQ, *args) do |stdin, out, err, thread|
      stdin.close
      unless thread.join(seconds)
        Process.kill("KILL", thread.pid)
        flunk("heapq #{args.join(' ')} still ran after #{seconds} s")
      end
      [out.read, err.read, thread.value.exitstatus]
    end
  end

  def test_append_refuses_schema_objects_heapq_does_not_make
    target = File.join(@tmp, "written-by-the-store.db")
    [
      %(CREATE INDEX "x""; COMMIT; VACUUM INTO '#{target}'; BEGIN; --" ON objects (id)),
      "CREATE VIEW mine AS SELECT 1",
      "CREATE TRIGGER mine AFTER INSERT ON dumps BEGIN DELETE FROM objects; END",
      "CREATE TABLE mine (x)",
    ].each do |create|
      path, dump = store
      write(path, create)
      before = File.binread(path)
      _out, err, code = heapq("load", "--append", "-o", path, dump)
      assert_equal(2, code, create)
      assert_match(/\A.*heap\.db: the (index|view|trigger|table) "(x"; COMMIT.*|mine)" is not heapq's/, err)
      assert_false(File.exist?(target), "the store's index name ran as SQL")
      assert_equal(before, File.binread(path), "the store is left as it was")
      assert_equal([1], dump_ids(path))
      FileUtils.rm_f(Dir.glob(File.join(@tmp, "heap.db*")))
    end
  end

  def test_sql_refuses_what_reaches_into_heapq
    path, = store
    write(path, "CREATE VIRTUAL TABLE t USING fts3(x); INSERT INTO t VALUES ('hello')")
    _out, err, code = heapq("sql", path, "SELECT fts3_tokenizer('simple', X'4141414141414141'); " \
                                         "SELECT * FROM t WHERE t MATCH 'hello'")
    assert_equal(1, code, err)
    assert_match(/heap\.db: fts3_tokenizer\(\) is refused/, err)
    _out, err, code = heapq("sql", "--write", path, "SELECT fts3_tokenizer('simple')")
    assert_equal(1, code, err)
    assert_match(/fts3_tokenizer\(\) is refused/, err)
    ["PRAGMA temp_store_directory = '#{@tmp}'", "PRAGMA trusted_schema = 1", "PRAGMA writable_schema = 1",
     "PRAGMA hard_heap_limit = 1000", "SELECT load_extension('libm.so.6')"].each do |query|
      _out, err, code = heapq("sql", "--write", path, query)
      assert_equal(1, code, "#{query}: #{err}")
      assert_match(/refused/, err)
    end
    _out, err, code = heapq("sql", path, "PRAGMA cache_size = 10")
    assert_equal(1, code, err)
    assert_match(/read-only; pass --write/, err)
    assert_equal("objects", heapq_json("sql", path, "SELECT name FROM pragma_table_list WHERE name = 'objects'")[0]["name"])
    assert_equal(13, heapq_json("sql", path, "PRAGMA table_info(objects)").size)
    assert_equal([1], dump_ids(path))
    assert_match(/\A(delete|wal)/, heapq("sql", path, "PRAGMA journal_mode")[0].lines[1])
  end

  # A view that calls a function the authorizer refuses: heapq sql names the view.
  def test_a_view_of_the_store_cannot_call_refused_functions
    path, = store
    write(path, "CREATE VIEW leak AS SELECT fts3_tokenizer('simple') AS p")
    _out, err, code = heapq("sql", path, "SELECT * FROM leak")
    assert_not_equal(0, code)
    assert_match(/heap\.db: .*fts3_tokenizer/, err)
    refute_match(/X'/, err)
  end

  def test_a_table_that_is_an_endless_view_is_refused
    path, = store
    write(path, <<~SQL)
      DELETE FROM graph_columns;
      DROP TABLE objects;
      CREATE VIEW objects AS WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r)
      SELECT 1 AS dump_id, x AS id, 4096 + x AS address, 5 AS type, NULL AS class_id, 40 AS memsize,
             NULL AS site_id, 0 AS generation, NULL AS idom, 40 AS retained_bytes, 1 AS retained_count,
             NULL AS distance FROM r;
    SQL
    %w[stats leaks].each do |command|
      _out, err, code = heapq_within(30, command, path)
      assert_equal(2, code, err)
      assert_match(/heap\.db: objects is a view, not heapq's table/, err)
    end
  end
end
