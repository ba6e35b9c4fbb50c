# heapq load and heapq sql on a real dump: the store answers as the dump does, SQL finds what
# the README's examples promise, and an interrupted load leaves no store behind.
require_relative "helper"

class TestStore < Test::Unit::TestCase
  include E2E

  # The JSON of a command, its input's path (also in warnings) replaced.
  def answer(input, *args)
    JSON.generate(heapq_json(*args, input)).gsub(input, "INPUT")
  end

  def test_commands_answer_the_same_on_the_store
    dump = leaky_dump(500)
    _out, err, code = heapq("load", dump)
    assert_equal(0, code, err)
    store = "#{dump}.db"
    assert_equal("SQLite format 3\0", File.binread(store, 16))
    [%w[stats --top 0 --retained], %w[sites --by gem --retained], %w[dominators --top 20]].each do |command|
      assert_equal(answer(dump, *command), answer(store, *command), command.join(" "))
    end
    quote = heapq_json("retainers", dump, "Catalog::Quote")["paths"].first.last["address"]
    assert_equal(JSON.generate(heapq_json("retainers", "--referrers", dump, quote)).gsub(dump, "INPUT"),
                 JSON.generate(heapq_json("retainers", "--referrers", store, quote)).gsub(store, "INPUT"))
    # A store is known by its content, not its name.
    renamed = File.join(@tmp, "heap.anything")
    File.rename(store, renamed)
    assert_equal(answer(dump, "stats"), answer(renamed, "stats"))
  end

  def test_readme_queries
    dump = leaky_dump(500)
    store = File.join(@tmp, "leaky.db")
    _out, err, code = heapq("load", "-o", store, dump, dump)
    assert_equal(0, code, err)
    dumps = sql(store, "SELECT id, path FROM dumps")
    assert_equal([1, 2], dumps.map { |d| d["id"] })

    biggest = sql(store, "SELECT address, memsize FROM objects_v WHERE dump_id = 2 AND type = 'STRING' " \
                         "ORDER BY memsize DESC LIMIT 5")
    assert_equal(5, biggest.size)
    assert_equal(biggest.map { |s| s["memsize"] }.sort.reverse, biggest.map { |s| s["memsize"] })

    cache = sql(store, "SELECT id, retained_bytes FROM objects_v WHERE dump_id = 2 AND class = 'Catalog::PriceCache'").first
    quotes = sql(store, "SELECT count(*) AS n FROM objects_v WHERE dump_id = 2 AND class = 'Catalog::Quote'").first
    assert_equal(500, quotes["n"])
    by_file = sql(store, "SELECT file, sum(retained_bytes) AS bytes FROM objects_v WHERE dump_id = 2 " \
                         "AND idom = -1 GROUP BY file ORDER BY bytes DESC")
    assert_operator(by_file.sum { |f| f["bytes"] }, :>=, cache["retained_bytes"])

    hash = sql(store, "SELECT from_class, name FROM refs_v WHERE dump_id = 2 AND to_id = " \
                      "(SELECT to_id FROM refs_v WHERE dump_id = 2 AND from_id = #{cache['id']} AND to_class = 'Hash')")
    assert_equal(["Catalog::PriceCache"], hash.map { |r| r["from_class"] })

    out, _err, code = heapq("--format", "csv", "sql", store, "SELECT id, path FROM dumps")
    assert_equal(0, code)
    assert_equal("id,path\r\n1,#{dump}\r\n2,#{dump}\r\n", out)
    _out, err, code = heapq("sql", store, "DELETE FROM dumps")
    assert_equal(1, code)
    assert_match(/--write/, err)
  end

  # Every SQL example of the README runs on a store (its address made one of the dump's).
  def test_the_readme_examples_run
    dump = leaky_dump(500)
    store = File.join(@tmp, "leaky.db")
    _out, err, code = heapq("load", "-o", store, dump)
    assert_equal(0, code, err)
    quote = sql(store, "SELECT address FROM objects_v WHERE class = 'Catalog::Quote' LIMIT 1").first["address"]
    examples = File.read(File.join(SOURCE_DIR, "README.md")).scan(/```sql\n(.*?)```/m).flatten
    assert_equal(3, examples.size)
    strings, gems, referrers = examples.map { |q| sql(store, q.gsub("0x7f3a9c0b1e28", quote)) }
    assert_equal(10, strings.size)
    assert_operator(gems.size, :>=, 1)
    assert_equal(["Hash"], referrers.map { |r| r["from_class"] })
  end

  def sql(store, query)
    out, err, code = heapq("--format", "json", "sql", store, query)
    assert_equal(0, code, err)
    JSON.parse(out)
  end

  # heapq reads the dump from a pipe that stays open: the load is under way, its temporary
  # file written, when the signal comes.
  def test_an_interrupted_load_leaves_no_store
    %w[INT TERM].each do |signal|
      store = File.join(@tmp, "interrupted-#{signal}.db")
      stdin, _out, _err, thread = Open3.popen3(HEAPQ, "--quiet", "load", "-o", store, "-")
      stdin.write(%({"type":"ROOT", "root":"vm", "references":[]}\n))
      deadline = Time.now + 10
      sleep 0.01 until Dir.glob(File.join(@tmp, ".interrupted-#{signal}.db.tmp-*")).any? || Time.now > deadline
      assert_not_empty(Dir.glob(File.join(@tmp, ".interrupted-#{signal}.db.tmp-*")), "the load began")
      Process.kill(signal, thread.pid)
      status = thread.value
      stdin.close
      assert_equal(Signal.list[signal], status.termsig, "killed by SIG#{signal}")
      assert_false(File.exist?(store))
      assert_empty(Dir.glob(File.join(@tmp, ".interrupted-*")), "no temporary file left")
    end
  end

  def test_an_existing_store_is_kept_without_force
    dump = leaky_dump(500)
    store = File.join(@tmp, "kept.db")
    File.write(store, "precious")
    _out, err, code = heapq("load", "-o", store, dump)
    assert_equal(1, code)
    assert_match(/--force/, err)
    assert_equal("precious", File.read(store))
    # --force replaces a store only (test_load_safety.rb): not this file either.
    assert_equal(1, heapq("load", "--force", "-o", store, dump)[2])
    File.delete(store)
    assert_equal(0, heapq("--quiet", "load", "-o", store, dump, dump)[2])
    _out, err, code = heapq("load", "--force", "-o", store, dump)
    assert_equal(0, code, err)
    assert_equal(1, sql(store, "SELECT count(*) AS n FROM dumps").first["n"])
  end
end
