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

  # The README's SQL examples; the tests below run these, not copies of them.
  README_SQL = File.read(File.join(E2E::SOURCE_DIR, "README.md")).scan(/```sql\n(.*?)```/m).flatten.freeze

  def self.readme_sql(words)
    README_SQL.find { |q| q.include?(words) } or raise "no SQL example in README.md holds #{words.inspect}"
  end

  # Every SQL example of the README runs on a store of two dumps (its address made one of the
  # first dump's).
  def test_the_readme_examples_run
    first = File.join(@tmp, "leaky-1.json")
    File.rename(leaky_dump(500), first)
    second = leaky_dump(1000)
    store = File.join(@tmp, "leaky.db")
    _out, err, code = heapq("load", "-o", store, first, second)
    assert_equal(0, code, err)
    quote = sql(store, "SELECT address_hex FROM objects_v WHERE dump_id = 1 AND class = 'Catalog::Quote' LIMIT 1").first["address_hex"]
    assert_operator(README_SQL.size, :>=, 4)
    results = README_SQL.to_h { |q| [q, sql(store, q.gsub("0x7f3a9c0b1e28", quote))] }
    strings = results.find { |q, _| q.include?("'STRING'") }&.last
    assert_equal(10, strings&.size)
    gems = results.find { |q, _| q =~ /per gem|gem/i }&.last
    assert_operator(gems&.size, :>=, 1)
    referrers = results.find { |q, _| q.include?("from_class") }&.last
    assert_equal(["Hash"], referrers&.map { |r| r["from_class"] })
    fresh = results.fetch(NEW_OBJECTS_SQL)
    assert_equal(20, fresh.size, "the second dump has more than 20 objects the first had not")
    assert_equal(fresh.map { |r| r["memsize"] }.sort.reverse, fresh.map { |r| r["memsize"] }, "biggest first")
    addresses = fresh.map { |r| r["address_hex"] }.join(", ")
    assert_equal(0, sql(store, "SELECT count(*) AS n FROM objects WHERE dump_id = 1 AND address IN (#{addresses})").first["n"])
  end

  # The store knows each site's gem as heapq sites --by gem does: the last /gems/NAME-VERSION/
  # of the path, not the first /gems/ (/var/lib/gems/3.1.0/gems/memprof-0.1.0/... is memprof).
  GEM_DUMP = <<~JSON
    {"type":"ROOT", "root":"vm", "references":["0x100", "0x200", "0x300", "0x400"]}
    {"address":"0x100", "type":"STRING", "memsize":1000, "file":"/var/lib/gems/3.1.0/gems/memprof-0.1.0/lib/memprof.rb", "line":3}
    {"address":"0x200", "type":"STRING", "memsize":200, "file":"/home/u/.rbenv/versions/3.2.2/lib/ruby/gems/3.2.0/gems/rack-2.2.3/lib/rack.rb", "line":9}
    {"address":"0x300", "type":"ARRAY", "memsize":300, "file":"/srv/app/vendor/bundle/ruby/3.2.0/gems/rack-2.2.3/lib/rack/utils.rb", "references":["0x500"]}
    {"address":"0x400", "type":"STRING", "memsize":40, "file":"/srv/app/app.rb", "line":1}
    {"address":"0x500", "type":"STRING", "memsize":5, "file":"/srv/app/vendor/bundle/ruby/3.2.0/gems/rack-2.2.3/lib/rack/utils.rb", "line":4}
  JSON

  # The README's "retained bytes per gem": an object counts for its gem unless its immediate
  # dominator was allocated by the same gem (then its bytes are in the dominator's).
  GEM_SQL = readme_sql("LEFT JOIN gems g")

  def test_sites_know_their_gem
    dump = File.join(@tmp, "gems.json")
    File.write(dump, GEM_DUMP)
    store = load_store("gems.db", dump)
    sites = sql(store, "SELECT file, line, gem, gem_version FROM sites_v ORDER BY file, line")
    gem_of = sites.to_h { |r| [r["file"], [r["gem"], r["gem_version"]]] }
    assert_equal(["memprof", "0.1.0"], gem_of["/var/lib/gems/3.1.0/gems/memprof-0.1.0/lib/memprof.rb"])
    assert_equal(["rack", "2.2.3"], gem_of["/home/u/.rbenv/versions/3.2.2/lib/ruby/gems/3.2.0/gems/rack-2.2.3/lib/rack.rb"])
    assert_equal(["rack", "2.2.3"], gem_of["/srv/app/vendor/bundle/ruby/3.2.0/gems/rack-2.2.3/lib/rack/utils.rb"])
    assert_equal([nil, nil], gem_of["/srv/app/app.rb"])
    assert_equal(1, sql(store, "SELECT count(*) AS n FROM gems WHERE name = 'rack'").first["n"])
    # No line in the dump: NULL, not 0.
    assert_nil(sites.find { |r| r["file"].end_with?("utils.rb") }["line"])
    assert_equal([nil, 4], sites.select { |r| r["file"].end_with?("utils.rb") }.map { |r| r["line"] })
    assert_equal(%w[memprof rack], sql(store, "SELECT DISTINCT gem FROM objects_v WHERE gem IS NOT NULL ORDER BY gem").map { |r| r["gem"] })

    per_gem = sql(store, GEM_SQL).to_h { |r| [r["gem"], r["retained_bytes"]] }
    assert_equal({ "memprof" => 1000, "rack" => 505, nil => 40 }, per_gem)
    # heapq sites --by gem agrees.
    by_gem = heapq_json("sites", "--by", "gem", dump)["sites"].to_h { |r| [r["gem"], r["bytes"]] }
    assert_equal(1000, by_gem["memprof"])
    assert_equal(505, by_gem["rack"])
  end

  # The views keep the integer keys: a join of objects_v with itself on address uses the index
  # on objects (dump_id, address), where one on '0x...' text would compare every pair.
  NEW_OBJECTS_SQL = readme_sql("NOT EXISTS")

  def test_views_join_on_indexed_integers
    first = File.join(@tmp, "first.json")
    File.write(first, GEM_DUMP)
    second = File.join(@tmp, "second.json")
    File.write(second, GEM_DUMP.sub('"0x400"]}', '"0x400", "0x600"]}') +
                       %({"address":"0x600", "type":"HASH", "memsize":160, "file":"/srv/app/app.rb", "line":2}\n))
    store = load_store("two.db", first, second)
    assert_equal([{ "address_hex" => "0x600", "type" => "HASH", "class" => "(hidden Hash)", "memsize" => 160,
                    "file" => "/srv/app/app.rb", "line" => 2 }], sql(store, NEW_OBJECTS_SQL))
    row = sql(store, "SELECT address, address_hex FROM objects_v WHERE dump_id = 1 AND id = 0").first
    assert_equal([0x100, "0x100"], [row["address"], row["address_hex"]])
    [
      "SELECT n.id FROM objects_v n JOIN objects_v o ON o.dump_id = 1 AND o.address = n.address WHERE n.dump_id = 2",
      "SELECT n.seq FROM roots_v n JOIN objects_v o ON o.dump_id = 1 AND o.address = n.address WHERE n.dump_id = 2",
      "SELECT n.from_id FROM refs_v n JOIN objects_v o ON o.dump_id = 1 AND o.address = n.to_address WHERE n.dump_id = 2",
      NEW_OBJECTS_SQL,
    ].each do |query|
      plan = sql(store, "EXPLAIN QUERY PLAN #{query}").map { |r| r["detail"] }
      assert(plan.any? { |d| d.include?("objects_by_address") }, "#{query}:\n#{plan.join("\n")}")
    end
    assert_equal([{ "id" => 5 }], sql(store, "SELECT n.id FROM objects_v n LEFT JOIN objects_v o ON o.dump_id = 1 AND o.address = n.address WHERE n.dump_id = 2 AND o.id IS NULL"))
  end

  def test_a_store_of_another_version_is_refused_clearly
    dump = File.join(@tmp, "gems.json")
    File.write(dump, GEM_DUMP)
    store = load_store("old.db", dump)
    _out, err, code = heapq("sql", "--write", store, "PRAGMA user_version = 1")
    assert_equal(0, code, err)
    _out, err, code = heapq("stats", store)
    assert_equal(2, code)
    assert_match(/schema version 1, expected 7\); make it again with heapq load/, err)
    _out, err, code = heapq("load", "--append", "-o", store, dump)
    assert_not_equal(0, code)
    assert_match(/schema version 1/, err)
  end

  # The store NAME (in the test's directory) made of the dumps.
  def load_store(name, *dumps)
    store = File.join(@tmp, name)
    _out, err, code = heapq("--quiet", "load", "-o", store, *dumps)
    assert_equal(0, code, err)
    store
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
