# A store on a PostgreSQL server shared by roles that do not trust each other: the role that
# loads owns schema heapq and may plant anything there; heapq run by another role (an analyst,
# a superuser) refuses the store rather than run it. No password is printed in any form; heapq
# sql without --write runs only statements that read; heapq waits for nothing for ever, and
# leaves nothing running on the server when it is stopped.
require_relative "pg_cluster"

class TestServerStranger < Test::Unit::TestCase
  include E2E

  def self.shutdown
    stop_pg_cluster
  end

  def psql(url, sql, ok: true)
    out, err, status = Open3.capture3(PG_ENV, "psql", url, "-qAtc", sql)
    assert(status.success?, "psql: #{err}") if ok
    out
  end

  # A database of its own, its store loaded by the role `loader` (who owns schema heapq), readable
  # by `analyst`; the URLs of heapq (a superuser), loader and analyst.
  def shared_store(name)
    psql(PG_URL, "CREATE DATABASE #{name}")
    su = PG_URL.sub("/heapq?", "/#{name}?")
    psql(su, "DO $$BEGIN CREATE ROLE loader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END$$")
    psql(su, "DO $$BEGIN CREATE ROLE analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END$$")
    psql(su, "GRANT CREATE ON DATABASE #{name} TO loader")
    loader = su.sub("heapq@", "loader@")
    analyst = su.sub("heapq@", "analyst@")
    _out, err, code = heapq("--quiet", "load", "--to", loader, leaky_dump(30))
    assert_equal(0, code, err)
    psql(loader, "GRANT USAGE ON SCHEMA heapq TO analyst; GRANT SELECT ON ALL TABLES IN SCHEMA heapq TO analyst")
    [su, loader, analyst]
  end

  # What each plant makes, as the loader; each is refused by reading and loading commands alike,
  # run by the analyst or by a superuser, and what it would run never runs.
  PLANTS = {
    "view" => ["ALTER TABLE heapq.store_info RENAME TO store_info_real; " \
               "CREATE VIEW heapq.store_info AS SELECT 'heapq'::text AS application, heapq.pwn() AS version",
               /view store_info|function pwn/],
    "rule" => ["CREATE RULE r AS ON INSERT TO heapq.dumps DO ALSO SELECT heapq.pwn()", /rule r on dumps/],
    "policy" => ["ALTER TABLE heapq.dumps ENABLE ROW LEVEL SECURITY; " \
                 "CREATE POLICY p ON heapq.dumps USING (heapq.pwn() > 0)", /row-level security/],
    "trigger" => ["CREATE FUNCTION heapq.pwn_row() RETURNS trigger LANGUAGE plpgsql AS " \
                  "$$BEGIN PERFORM heapq.pwn(); RETURN NEW; END$$; " \
                  "CREATE TRIGGER t BEFORE INSERT ON heapq.gems FOR EACH ROW EXECUTE FUNCTION heapq.pwn_row()",
                  /function pwn_row|trigger t on gems/],
    "shadow" => ["CREATE FUNCTION heapq.quote_ident(name) RETURNS text LANGUAGE sql AS " \
                 "$$SELECT heapq.pwn()::text$$", /function quote_ident/],
    "printf" => ["CREATE OR REPLACE FUNCTION heapq.printf(format TEXT, value BIGINT) RETURNS TEXT " \
                 "IMMUTABLE LANGUAGE sql AS $$ SELECT heapq.pwn()::text $$", /function printf/],
    "operator" => ["CREATE OPERATOR heapq.=== (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = pg_catalog.int8eq)",
                   /operator ===/],
    "type" => ["CREATE TYPE heapq.mood AS ENUM ('sad')", /type _?mood/],
    "default" => ["CREATE SCHEMA evil; CREATE FUNCTION evil.f() RETURNS text LANGUAGE sql AS $$SELECT 'x'$$; " \
                  "ALTER TABLE heapq.dumps ALTER COLUMN app SET DEFAULT evil.f()", /which uses function evil\.f/],
  }.freeze

  def test_a_store_with_objects_heapq_does_not_make_is_refused_and_runs_nothing
    su, loader, analyst = shared_store("planted")
    psql(su, "CREATE TABLE public.ran (who text); GRANT INSERT ON public.ran TO PUBLIC")
    # What every plant calls: records who ran it, and as a superuser makes the loader one.
    psql(loader, "CREATE FUNCTION heapq.pwn() RETURNS bigint LANGUAGE plpgsql AS $$BEGIN " \
                 "INSERT INTO public.ran VALUES (current_user); " \
                 "IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN " \
                 "ALTER ROLE loader SUPERUSER; END IF; RETURN 6; END$$")
    _out, err, code = heapq("stats", analyst)
    assert_equal(2, code, "a function of the loader's in schema heapq: #{err}")
    assert_match(/schema heapq holds function pwn\(\)/, err)
    psql(loader, "CREATE SCHEMA lib; ALTER FUNCTION heapq.pwn() SET SCHEMA lib")
    dump = leaky_dump(30)
    PLANTS.each do |name, (plant, refusal)|
      psql(loader, "BEGIN; #{plant.gsub('heapq.pwn()', 'lib.pwn()')}; COMMIT")
      [["stats", analyst], ["fleet", su], ["sql", analyst, "SELECT count(*) FROM dumps"],
       ["leaks", "#{su}#1", "#{su}#1"], ["load", "--to", su, dump]].each do |args|
        _out, err, code = heapq(*args)
        assert_equal(2, code, "#{name}: heapq #{args.first}: #{err}")
        assert_match(refusal, err, "#{name}: heapq #{args.first}")
      end
      undo(loader, name)
    end
    assert_equal("", psql(su, "SELECT who FROM public.ran").strip, "a planted function ran")
    assert_equal("f", psql(su, "SELECT rolsuper FROM pg_roles WHERE rolname = 'loader'").strip)
    # Undone, the store reads and loads again.
    _out, err, code = heapq("stats", analyst)
    assert_equal(0, code, err)
    _out, err, code = heapq("--quiet", "load", "--to", su, dump)
    assert_equal(0, code, err)
  end

  def undo(loader, name)
    psql(loader, {
      "view" => "DROP VIEW heapq.store_info; ALTER TABLE heapq.store_info_real RENAME TO store_info",
      "rule" => "DROP RULE r ON heapq.dumps",
      "policy" => "DROP POLICY p ON heapq.dumps; ALTER TABLE heapq.dumps DISABLE ROW LEVEL SECURITY",
      "trigger" => "DROP TRIGGER t ON heapq.gems; DROP FUNCTION heapq.pwn_row()",
      "shadow" => "DROP FUNCTION heapq.quote_ident(name)",
      "printf" => "CREATE OR REPLACE FUNCTION heapq.printf(format TEXT, value BIGINT) RETURNS TEXT " \
                  "IMMUTABLE LANGUAGE sql AS $$ SELECT replace(format, '%x', to_hex(value)) $$",
      "operator" => "DROP OPERATOR heapq.=== (bigint, bigint)",
      "type" => "DROP TYPE heapq.mood",
      "default" => "ALTER TABLE heapq.dumps ALTER COLUMN app DROP DEFAULT; DROP SCHEMA evil CASCADE",
    }.fetch(name))
  end

  def test_passwords_are_never_printed_in_any_form
    host = PG_DIR
    forms = {
      "pa#ss1" => "postgresql://heapq:pa#ss1@/heapq?host=#{host}",
      "xy7q" => "postgresql://heapq@/heapq?host=#{host}&password=xy7q#cd2w",
      "s3cret3" => "postgresql://heapq@/heapq?host=#{host}&pass%77ord=s3cret3",
      "sec%zzret4" => "postgresql://heapq@/heapq?host=#{host}&password=sec%zzret4",
      "q%41q5" => "postgresql://heapq:q%41q5@/heapq?host=#{host}",
      "ssl-pw6" => "postgresql://heapq@/heapq?host=#{host}&sslpassword=ssl-pw6",
    }
    dump = leaky_dump(10)
    forms.each do |secret, with_password|
      runs = [heapq("stats", with_password), heapq("--format", "json", "stats", with_password),
              heapq("sql", with_password, "SELEC"), heapq("load", "--to", with_password, dump),
              heapq("fleet", with_password), heapq("stats", "#{with_password}#1")]
      runs.each do |out, err, _code|
        text = out + err
        assert_not_match(/#{Regexp.escape(secret)}/, text, "#{with_password}: #{text}")
        assert_not_match(/#{Regexp.escape(secret.sub('%41', 'A'))}/, text) if secret.include?("%41")
        assert_not_match(/cd2w/, text)
      end
    end
  end

  def test_sql_without_write_runs_one_statement_that_reads
    su, = shared_store("readonly")
    target = File.join(@tmp, "copied")
    ["COPY (SELECT 1) TO '#{target}'", "COPY (SELECT 1) TO PROGRAM 'touch #{target}'",
     "EXPLAIN ANALYZE DELETE FROM dumps", "explain (costs off, analyse) DELETE FROM dumps",
     "/* a comment */ DELETE FROM dumps", "CALL x()", "DO $$BEGIN END$$", "LOCK TABLE dumps",
     "COMMIT", "SET ROLE loader"].each do |sql|
      _out, err, code = heapq("sql", su, sql)
      assert_equal(1, code, "#{sql}: #{err}")
      assert_match(/read-only: .*pass --write/, err, sql)
    end
    assert_path_not_exist(target)
    [["SELECT count(*) AS n FROM dumps", 1], ["  -- why\n ( SELECT 1 AS n )", 1], ["VALUES (1)", 1],
     ["TABLE store_info", 1], ["SHOW search_path", 1], ["EXPLAIN SELECT * FROM dumps", nil],
     ["WITH d AS (SELECT id FROM dumps) SELECT count(*) FROM d", 1]].each do |sql, rows|
      out, err, code = heapq("--format", "json", "sql", su, sql)
      assert_equal(0, code, "#{sql}: #{err}")
      assert_equal(rows, JSON.parse(out).size, sql) if rows
    end
    _out, err, code = heapq("sql", su, "WITH d AS (DELETE FROM dumps RETURNING id) SELECT * FROM d")
    assert_equal(1, code, err)
    assert_equal("1", psql(su, "SELECT count(*) FROM heapq.dumps").strip)
  end

  def test_waits_are_bounded_and_a_stopped_heapq_leaves_nothing_running
    su, = shared_store("waits")
    dump = leaky_dump(10)
    # A stranger holding the lock under which a schema is made stalls no load of a store that
    # exists, and bounds the wait of the first load of a new one.
    psql(PG_URL, "CREATE DATABASE fresh")
    fresh = PG_URL.sub("/heapq?", "/fresh?")
    [[su, 0], ["#{fresh}&options=-c%20lock_timeout%3D500", 3]].each do |url, expected|
      Open3.popen3(PG_ENV, "psql", url.sub(/&options=.*/, ""), "-qAt") do |stdin, stdout, _err, _thread|
        stdin.puts("SELECT 'locked' FROM (SELECT pg_advisory_lock(1751474545)) l;")
        stdin.flush
        assert_equal("locked", stdout.gets.strip)
        _out, err, status = Open3.capture3("timeout", "30", E2E::HEAPQ, "--quiet", "load", "--to", url, dump)
        assert_equal(expected, status.exitstatus, "124: still waiting after 30 s. #{err}")
        assert_match(/lock timeout/, err) if expected == 3
        stdin.close
      end
    end
    # The server's own statement_timeout is an I/O error, not bad input.
    _out, err, code = heapq("sql", "#{su}&options=-c%20statement_timeout%3D200", "SELECT pg_sleep(5)")
    assert_equal(3, code, err)
    # Ctrl-C: heapq stops, and so does its statement on the server.
    pid = Process.spawn(E2E::HEAPQ, "sql", su, "SELECT pg_sleep(600)", out: File::NULL, err: File::NULL)
    running = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'heapq' AND query LIKE '%pg_sleep(600)%' AND state = 'active'"
    deadline = Time.now + 30
    sleep 0.05 until psql(su, running).to_i.positive? || Time.now > deadline
    Process.kill(:INT, pid)
    _, status = Process.wait2(pid)
    assert(!status.success?)
    deadline = Time.now + 10
    sleep 0.05 while psql(su, running).to_i.positive? && Time.now < deadline
    assert_equal(0, psql(su, running).to_i, "the statement goes on after heapq was stopped")
  end

  def test_server_notices_are_escaped_and_quiet_silences_them
    su, = shared_store("notices")
    sql = "DO $$BEGIN RAISE NOTICE E'\\x1b]0;PWNED\\x07\\x1b[2J'; END$$"
    _out, err, code = heapq("sql", "--write", su, sql)
    assert_equal(0, code, err)
    assert_not_match(/\e/, err)
    assert_match(/the server says: .*PWNED/, err)
    _out, err, code = heapq("--quiet", "sql", "--write", su, sql)
    assert_equal(0, code, err)
    assert_equal("", err)
  end

  def test_a_dump_number_is_a_number
    su, = shared_store("numbers")
    ["#-1", "#abc", "#1234567890", "#"].each do |selector|
      _out, err, code = heapq("stats", "#{su}#{selector}")
      assert_equal(1, code, "#{selector}: #{err}")
      assert_match(/not a dump's number/, err)
      assert_not_match(/\.s\.PGSQL/, err)
    end
    _out, err, code = heapq("load", "--to", "#{su}#2", leaky_dump(5))
    assert_equal(1, code, err)
  end

  def test_a_gem_name_with_a_nul_is_kept_whole
    su, = shared_store("gems")
    nul = File.join(@tmp, "gem.json")
    File.write(nul, <<~JSON)
      {"type":"ROOT","root":"vm","references":["0x1000"]}
      {"address":"0x1000","type":"OBJECT","class":"0x2000","file":"/g/gems/ev\\u0000il-1.0/lib/a.rb","line":1,"memsize":40}
      {"address":"0x2000","type":"CLASS","name":"A","memsize":40}
    JSON
    _out, err, code = heapq("--quiet", "load", "--to", su, nul)
    assert_equal(0, code, err)
    names = JSON.parse(heapq("--format", "json", "sql", su, "SELECT name FROM gems").first).map { |r| r["name"] }
    assert_include(names, "ev\u2400il")
  end

  def test_a_load_stopped_by_a_signal_commits_nothing_more_and_says_what_it_added
    su, = shared_store("stopped")
    small = leaky_dump(5)
    big = leaky_dump(60_000)
    outside = "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace " \
              "WHERE n.nspname = 'heapq' AND c.relkind = 'r' AND c.relname ~ '_d[0-9]+$' AND NOT c.relispartition"
    # The signal must come while the second dump's tables are written. On a loaded machine the
    # second dump may commit before the signal lands: that attempt tests nothing, and is made again.
    3.times do
      before = psql(su, "SELECT count(*) FROM heapq.dumps").to_i
      r, w = IO.pipe
      pid = Process.spawn(E2E::HEAPQ, "--quiet", "load", "--to", su, small, big, big, out: File::NULL, err: w)
      w.close
      # The first dump is in, the second's tables are being written.
      deadline = Time.now + 120
      state = nil
      loop do
        state = psql(su, "SELECT (SELECT count(*) FROM heapq.dumps), (#{outside})").split("|").map(&:to_i)
        break if state == [before + 1, state[1]] && state[1].positive? || state[0] > before + 1
        flunk("the load never reached its second dump's writing") if Time.now > deadline
        sleep 0.01
      end
      Process.kill(:INT, pid) if state[0] == before + 1
      started = Time.now
      _, status = Process.wait2(pid)
      err = r.read
      r.close
      committed = psql(su, "SELECT count(*) FROM heapq.dumps").to_i
      next if committed > before + 1 # the window was missed

      assert_equal(before + 1, committed)
      assert_operator(Time.now - started, :<, 10, "stopped promptly")
      assert_equal(130, status.exitstatus, err)
      assert_match(/interrupted.*added #\d+/, err)
      assert_equal(0, psql(su, outside).to_i, "the dump being written is dropped")
      return
    end
    flunk("three loads committed their second dump before the signal")
  end
end
