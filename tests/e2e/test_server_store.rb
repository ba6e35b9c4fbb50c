# The store on a PostgreSQL server (heapq load --to URL): a cluster of the test's own in a
# temporary directory (scripts/pg-cluster). Every command answers from the server as from the
# dump file and the SQLite store; loads run in parallel, a killed one leaves nothing, one
# whose server goes away says so; heapq sql stays read-only; no password is ever printed.
require_relative "pg_cluster"
require_relative "sampled_fleet"
require "socket"

class TestServerStore < Test::Unit::TestCase
  include E2E
  include SampledFleet

  def self.shutdown
    stop_pg_cluster
  end

  # A database of its own on the test cluster.
  def database(name)
    out, err, status = Open3.capture3(PG_ENV, "psql", PG_URL, "-qAtc", "CREATE DATABASE #{name}")
    assert(status.success?, "createdb: #{out}#{err}")
    PG_URL.sub("/heapq?", "/#{name}?")
  end

  def psql(url, sql)
    out, err, status = Open3.capture3(PG_ENV, "psql", url, "-qAtc", sql)
    assert(status.success?, "psql: #{err}")
    out
  end

  # Loads dumps into the server; returns their ids.
  def load(url, *dumps, extra: [])
    out, err, code = heapq("--format", "json", "load", "--to", url, *extra, *dumps)
    assert_equal(0, code, err)
    JSON.parse(out)["dumps"].map { |d| d["id"] }
  end

  # The JSON of a command (its input where :input stands, else last), the input's name taken out.
  def answer(input, name, *args)
    args = args.include?(:input) ? args.map { |a| a == :input ? input : a } : args + [input]
    JSON.generate(heapq_json(*args)).gsub(name, "INPUT")
  end

  def test_commands_answer_the_same_from_file_sqlite_and_server
    url = database("answers")
    dump = leaky_dump(500)
    store = File.join(@tmp, "leaky.db")
    assert_equal(0, heapq("--quiet", "load", "-o", store, dump)[2])
    id = load(url, dump, extra: %w[--app shop --label deploy=abc123]).first
    [%w[stats --top 0 --retained], %w[sites --by gem --retained], %w[dominators --top 20],
     ["retainers", :input, "Catalog::Quote"]].each do |command|
      on_file = answer(dump, dump, *command)
      assert_equal(on_file, answer(store, store, *command), command.join(" "))
      assert_equal(on_file, answer("#{url}##{id}", "#{url}##{id}", *command), command.join(" "))
    end
    # URL alone: the last dump.
    assert_equal(answer(dump, dump, "stats"), answer(url, url, "stats"))
    # The picture too.
    dot = ->(input) { heapq("viz", input, "Catalog::Quote").first.gsub(input, "INPUT") }
    assert_match(/digraph/, dot.call(dump))
    assert_equal(dot.call(dump), dot.call(store))
    assert_equal(dot.call(dump), dot.call("#{url}##{id}"))

    dumps = three_dumps("memo_cache")
    ids = load(url, *dumps)
    on_files = heapq_json("leaks", *dumps)
    on_server = heapq_json("leaks", *ids.map { |i| "#{url}##{i}" })
    assert_not_empty(on_files["leaks"])
    assert_equal(without_samples(on_files["leaks"]), on_server["leaks"])
    assert_equal(heapq_json("diff", dumps.first, dumps.last)["by_class"],
                 heapq_json("diff", "#{url}##{ids.first}", "#{url}##{ids.last}")["by_class"])

    row = JSON.parse(heapq("--format", "json", "sql", url,
                           "SELECT app, labels, format FROM dumps WHERE id = #{id}")[0]).first
    assert_equal({"app" => "shop", "labels" => '{"deploy":"abc123"}', "format" => "objectspace"}, row)

    # A memprof dump says which machine and process it is of.
    id = load(url, leaky_dump(20, memprof: true)).first
    row = heapq_json("sql", url, "SELECT host, pid, started_at FROM dumps WHERE id = #{id}").first
    assert_equal(Socket.gethostname, row["host"])
    assert_operator(row["pid"], :>, 0)
    assert_match(/\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\z/, row["started_at"])
  end

  def test_fleet_names_what_grows_in_every_process
    url = database("fleet")
    two = database("twoprocesses")
    dumps = nil
    2.times do
      dumps = three_dumps("memo_cache", memprof: true)
      load(url, *dumps, extra: %w[--app memo])
      load(two, *dumps)
    end
    # leaks on a store of two processes takes each on its own, as it does their dump files.
    processes = heapq_json("leaks", two)["processes"]
    assert_equal(2, processes&.size)
    processes.each { |p| assert_not_empty(p["leaks"]) }
    load(url, leaky_dump(50), extra: %w[--app other])
    fleet = heapq_json("fleet", "--app", "memo", url)
    assert_equal([6, 2, 1, 0], fleet.values_at("dumps", "processes", "hosts", "unattributed_dumps"))
    assert_not_empty(fleet["growing"])
    # The leak's line grows in both processes (fleet ranks groups by processes and bytes an
    # hour; which object holds them is heapq leaks' answer).
    line, klass = sample_marks("memo_cache").first
    leak = fleet["growing"].find { |g| g["class"] == klass && g["site"]["line"] == line }
    assert_not_nil(leak, "the leak among #{fleet['growing'].map { |g| g.values_at('class', 'site') }}")
    assert_equal([2, 2], leak.values_at("processes", "processes_holding"))
    assert_equal([Socket.gethostname], leak["hosts"])
    assert_equal(2, leak["worst"].size)
    assert(fleet["growing"].all? { |g| g["processes"] == 2 }, "both processes run the same code")
    assert_equal(2, fleet["processes_over_time"].size)
    fleet["processes_over_time"].each { |p| assert_equal(3, p["heap"].size) }
    # The other app's ObjectSpace dump says no process.
    assert_equal(1, heapq_json("fleet", "--app", "other", url)["unattributed_dumps"])
    text, err, code = heapq("--width", "0", "fleet", "--app", "memo", url)
    assert_equal(0, code, err)
    assert_match(/2 processes on 1 host, 6 dumps of app memo/, text)
    assert_match(/grows in 2 of 2 processes/, text)

    # The report of a process's dumps on the server has a section on the whole store.
    html = File.join(@tmp, "fleet.html")
    ids = psql(two, "SELECT id FROM heapq.dumps ORDER BY id DESC LIMIT 3").split.reverse
    _out, err, code = heapq("report", "-o", html, *ids.map { |i| "#{two}##{i}" })
    assert_equal(0, code, err)
    page = File.read(html)
    fleet_part = page[/<section id="fleet">.*?<\/section>/m]
    assert_not_nil(fleet_part, "no fleet section")
    assert_match(/2 processes on 1 host, 6 dumps/, fleet_part)
    assert_match(/#{Regexp.escape(klass)}.*?2 of 2/m, fleet_part)
    assert_equal(2, fleet_part.scan(/ pid \d+ started /).size, "one row per process")
    _out, err, code = heapq("report", "-o", html, *dumps)
    assert_equal(0, code, err)
    assert_no_match(/id="fleet"/, File.read(html))
    # Dumps load tagged with an app: the section is about that app's processes.
    memo = psql(url, "SELECT max(id) FROM heapq.dumps WHERE app = 'memo'").strip
    _out, err, code = heapq("report", "-o", html, "#{url}##{memo}")
    assert_equal(0, code, err)
    assert_match(/2 processes on 1 host, 6 dumps of app memo/, File.read(html)[/<section id="fleet">.*?<\/section>/m])
  end

  # Four sampled processes, one leaking, each loading its profiles at once beside a dump of
  # another process: the fleet names the leak's line in 1 of the 4 processes of profiles.
  def test_fleet_from_sampled_profiles
    url = database("sampled")
    loads = sampled_fleet.map do |name, (_pid, profiles)|
      Thread.new { [name, heapq("--format", "json", "load", "--to", url, "--app", "shop", *profiles)] }
    end
    loads.map(&:value).each do |name, (out, err, code)|
      assert_equal(0, code, "#{name}: #{err}")
      assert_equal(3, JSON.parse(out)["profiles"].size)
    end
    load(url, *three_dumps("memo_cache", memprof: true), extra: %w[--app shop])
    fleet = heapq_json("fleet", url)
    assert_equal([3, 12, 5], fleet.values_at("dumps", "profiles", "processes"))
    leak = fleet["growing"].find { |g| g["class"] == "Leak" && g.dig("site", "line") == LEAK_LINE }
    assert_not_nil(leak, "the leak grows: #{fleet['growing']}")
    assert_equal([1, 1], leak.values_at("processes", "processes_holding"))
    assert(leak["worst"].first.dig("process", "profiles"))
    assert_equal(4, fleet["processes_over_time"].count { |p| p.dig("process", "profiles") })
    assert_equal("12", psql(url, "SELECT count(*) FROM heapq.profiles").strip)
  end

  def test_sql_is_read_only_unless_asked
    url = database("readonly")
    id = load(url, leaky_dump(50)).first
    quotes = heapq_json("sql", url, "SELECT count(*) AS n FROM objects_v WHERE dump_id = #{id} " \
                                    "AND class = 'Catalog::Quote'")
    assert_equal([{"n" => 50}], quotes)
    ["DELETE FROM objects", "COMMIT; DELETE FROM objects", "SET TRANSACTION READ WRITE",
     "SELECT 1; DROP TABLE objects"].each do |sql|
      _out, err, code = heapq("sql", url, sql)
      assert_not_equal(0, code, sql)
      assert_match(/read-only|one statement|transaction/, err, sql)
    end
    assert_equal("50", psql(url, "SELECT count(*) FROM heapq.objects_v WHERE class = 'Catalog::Quote'").strip)
    _out, err, code = heapq("sql", "--write", url, "DELETE FROM dump_issues WHERE dump_id = #{id}")
    assert_equal(0, code, err)
  end

  def test_parallel_loads_and_a_killed_one
    url = database("parallel")
    dump = leaky_dump(200)
    objects = heapq_json("stats", dump)["objects"]
    pids = 8.times.map do |i|
      Process.spawn(E2E::HEAPQ, "--quiet", "load", "--to", url, "--label", "worker=#{i}", dump,
                    out: File::NULL, err: File.join(@tmp, "load#{i}.err"))
    end
    statuses = pids.map { |pid| Process.wait2(pid)[1] }
    statuses.each_with_index { |s, i| assert(s.success?, File.read(File.join(@tmp, "load#{i}.err"))) }
    rows = psql(url, "SELECT id, objects FROM heapq.dumps ORDER BY id").lines.map { |l| l.split("|").map(&:to_i) }
    assert_equal(8, rows.map(&:first).uniq.size)
    assert_equal([objects] * 8, rows.map(&:last))
    assert_equal(8 * objects, psql(url, "SELECT count(*) FROM heapq.objects").to_i)

    # Killed while it copies rows: nothing of it is visible; the next load drops what it left.
    big = leaky_dump(60_000)
    pid = Process.spawn(E2E::HEAPQ, "--quiet", "load", "--to", url, big, out: File::NULL, err: File::NULL)
    deadline = Time.now + 60
    until psql(url, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY%'").to_i.positive?
      flunk("the load never reached its COPY") if Time.now > deadline
      sleep 0.02
    end
    Process.kill(:KILL, pid)
    Process.wait(pid)
    deadline = Time.now + 30
    sleep 0.1 while psql(url, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'heapq'").to_i.positive? &&
                    Time.now < deadline
    assert_equal(8, psql(url, "SELECT count(*) FROM heapq.dumps").to_i)
    assert_equal(8 * objects, psql(url, "SELECT count(*) FROM heapq.objects").to_i)
    outside = "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace " \
              "WHERE n.nspname = 'heapq' AND c.relkind = 'r' AND c.relname ~ '_d[0-9]+$' AND NOT c.relispartition"
    assert_operator(psql(url, outside).to_i, :>, 0, "the killed load made no table: kill it later")

    # A load at work (its lock held, here by psql) keeps its tables while another load runs.
    psql(url, "CREATE TABLE heapq.strings_d999999 (LIKE heapq.strings)")
    Open3.popen3(PG_ENV, "psql", url, "-qAt") do |stdin, stdout, _err, _thread|
      stdin.puts("SELECT 'locked' FROM (SELECT pg_advisory_lock(1751474546, 999999)) l;")
      stdin.flush
      assert_equal("locked", stdout.gets.strip)
      load(url, dump)
      assert_equal(1, psql(url, outside).to_i, "only the table of the load at work stays")
      stdin.close
    end
    load(url, dump)
    assert_equal(0, psql(url, outside).to_i)
    assert_equal(10, psql(url, "SELECT count(*) FROM heapq.dumps").to_i)
  end

  def test_a_server_that_goes_away_mid_load
    url = database("goesaway")
    big = leaky_dump(60_000)
    r, w = IO.pipe
    pid = Process.spawn(E2E::HEAPQ, "--quiet", "load", "--to", url, big, out: File::NULL, err: w)
    w.close
    deadline = Time.now + 60
    until psql(url, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY%'").to_i.positive?
      flunk("the load never reached its COPY") if Time.now > deadline
      sleep 0.02
    end
    psql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'heapq'")
    _, status = Process.wait2(pid)
    err = r.read
    assert_equal(3, status.exitstatus, err)
    assert_match(/connection to the server is lost|server closed the connection/, err)
    assert_equal(0, psql(url, "SELECT count(*) FROM heapq.dumps").to_i)
  end

  def test_passwords_are_never_printed_and_errors_are_clear
    url = database("secrets")
    secret = "s3cr3t-pw"
    with_password = url.sub("heapq@", "heapq:#{secret}@") + "&password=#{secret}"
    dump = leaky_dump(20)
    outputs = [heapq("load", "--to", with_password, dump), heapq("stats", "#{with_password}#1"),
               heapq("stats", "#{with_password}#9"), heapq("sql", with_password, "SELECT FROM WHERE"),
               heapq("stats", with_password.sub(PG_DIR, "#{PG_DIR}/nowhere")), heapq("load", with_password)]
    outputs.each { |out, err, _code| assert_not_match(/#{secret}/, out + err) }
    assert_match(/\*\*\*/, outputs[0][0])
    assert_equal(2, outputs[2][2])
    assert_match(/no dump #9 in the store \(it holds #1 to #1\)/, outputs[2][1])
    assert_equal(2, outputs[3][2])
    assert_match(/syntax error/, outputs[3][1])
    assert_equal(3, outputs[4][2], "an unreachable server is an I/O error")
    assert_match(/cannot connect to the server/, outputs[4][1])
    assert_equal(["heapq: load from a server's URL needs -o STORE\n", 1], outputs[5].drop(1),
                 "the store's file would be named after the URL")

    # libpq's parameters pass through: sslmode from the URL (libpq checks its value; SSL itself
    # is never used on this cluster's Unix socket), the rest from PG* variables.
    _out, err, code = heapq("stats", "#{url}&sslmode=sometimes")
    assert_equal(3, code, err)
    assert_match(/invalid sslmode value: "sometimes"/, err)
    host = url[/host=([^&#]+)/, 1]
    out, err, status = Open3.capture3({ "PGHOST" => host, "PGUSER" => "heapq", "PGDATABASE" => "secrets" },
                                      E2E::HEAPQ, "--format", "json", "stats", "postgresql://")
    assert(status.success?, err)
    assert_equal(heapq_json("stats", url)["objects"], JSON.parse(out)["objects"])

    psql(url, "UPDATE heapq.store_info SET version = 3")
    _out, err, code = heapq("stats", url)
    assert_equal(2, code)
    assert_match(/schema version 3, expected 7/, err)
    _out, err, code = heapq("load", "--to", url, dump)
    assert_equal(2, code)
    assert_match(/schema version 3, expected 7/, err)
    _out, err, code = heapq("stats", database("empty"))
    assert_equal(2, code)
    assert_match(/no heapq store in this database/, err)
  end

  # A URL given to leaks stands for its dumps, each named URL#N in what heapq says: the note on
  # their order (loaded here out of the order they were written) names them without the password.
  def test_dumps_a_url_stands_for_are_named_without_its_password
    url = database("named")
    secret = "n0-sh0w-pw"
    with_password = url.sub("heapq@", "heapq:#{secret}@") + "&password=#{secret}"
    first, second, third = three_dumps("memo_cache", memprof: true)
    load(with_password, third, first, second)
    [[with_password], ["#{with_password}#1", "#{with_password}#2", "#{with_password}#3"]].each do |args|
      out, err, code = heapq("leaks", *args)
      assert_equal(0, code, err)
      assert_match(/taking the dumps in the order they were written .*#2, .*#3, .*#1$/, err)
      assert_not_match(/#{secret}/, out + err)
    end
  end

  def test_hostile_strings_in_every_column
    url = database("hostile")
    out, err, status = Open3.capture3(RbConfig.ruby, File.join(SOURCE_DIR, "tests/e2e/hostile_dumps.rb"), @tmp)
    assert(status.success?, err)
    dumps = out.lines(chomp: true)
    ids = load(url, *dumps, extra: ["--app", "a'); DROP TABLE dumps; --", "--label", "k\"=<v>\n\\",
                                    "--host", "h\tst\e[31m"])
    assert_equal(3, ids.size)
    on_files = heapq_json("leaks", *dumps)
    on_server = heapq_json("leaks", *ids.map { |i| "#{url}##{i}" })
    assert_equal(without_samples(on_files["leaks"]), on_server["leaks"])
    row = heapq_json("sql", url, "SELECT app, labels, host FROM dumps WHERE id = #{ids.first}").first
    assert_equal("a'); DROP TABLE dumps; --", row["app"])
    assert_equal({"k\"" => "<v>\n\\"}, JSON.parse(row["labels"]))
    assert_equal("h\tst\e[31m", row["host"])

    # PostgreSQL's text holds no NUL: U+2400 (SYMBOL FOR NULL) stands for it.
    nul = File.join(@tmp, "nul.json")
    File.write(nul, <<~JSON)
      {"type":"ROOT","root":"vm","references":["0x1000"]}
      {"address":"0x1000","type":"CLASS","class":"0x1000","name":"Bad\\u0000Name","references":["0x1028"]}
      {"address":"0x1028","type":"OBJECT","class":"0x1000","memsize":40}
    JSON
    id = load(url, nul).first
    classes = heapq_json("stats", "#{url}##{id}")["by_class"].map { |c| c["class"] }
    assert_include(classes, "Bad\u2400Name")
    assert_include(heapq_json("stats", nul)["by_class"].map { |c| c["class"] }, "Bad\u0000Name")
  end

  # A command reads a server on one connection: the dumps listed, their processes told apart
  # and each dump read on it (strace counts the connections to the cluster's socket).
  def test_a_command_reads_a_server_on_one_connection
    strace = ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).map { |dir| File.join(dir, "strace") }
                                  .find { |path| File.executable?(path) }
    omit("strace is not installed: connections were not counted") unless strace
    url = database("connections")
    load(url, *three_dumps("memo_cache", memprof: true))
    log = File.join(@tmp, "strace.log")
    [%w[leaks], %w[fleet]].each do |command|
      _, err, status = Open3.capture3(strace, "-f", "-qq", "-e", "trace=connect", "-o", log,
                                      HEAPQ, "--quiet", *command, url)
      assert(status.success?, "#{command.first}: #{err}")
      connections = File.readlines(log).count { |line| line.include?(".s.PGSQL.") }
      assert_equal([command.first, 1], [command.first, connections])
    end
  end

  private

  # A store keeps no String values: the files' sample values are null there.
  def without_samples(leaks)
    leaks.map { |leak| leak.merge("holds" => leak["holds"].map { |h| h.merge("sample" => nil) }) }
  end
end
