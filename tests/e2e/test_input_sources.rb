# A dump read from a pipe, a FIFO or /dev/stdin gives the same answer as from a file. A FIFO is
# never opened to look for a store in it, and more inputs than a process may open is said at once.
require_relative "helper"
require "zlib"

class TestInputSources < Test::Unit::TestCase
  include E2E

  # Big enough that the first lines (ROOT records included) fill more than a read buffer.
  def make_dump
    dump = File.join(@tmp, "heap.json")
    run_ruby(<<~'RUBY', dump)
      require "objspace"
      KEEP = Array.new(2000) { |i| "padding string number #{i}" * 3 }
      File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
    RUBY
    dump
  end

  def stats_json(*args, stdin_data: nil)
    out, err, code = heapq("--format", "json", "--quiet", "stats", "--top", "5", *args, stdin_data: stdin_data)
    assert_equal(0, code, err)
    json = JSON.parse(out)
    json.delete("input")
    json
  end

  def test_pipe_fifo_and_dev_stdin_read_everything
    dump = make_dump
    expected = stats_json(dump)
    assert_equal(expected, stats_json("/dev/stdin", stdin_data: File.binread(dump)))
    assert_equal(expected, stats_json("-", stdin_data: Zlib.gzip(File.binread(dump))))
    assert_equal(expected, stats_json("/dev/stdin", stdin_data: Zlib.gzip(File.binread(dump))))

    fifo = File.join(@tmp, "heap.fifo")
    File.mkfifo(fifo)
    writer = Thread.new { File.open(fifo, "wb") { |f| f.write(Zlib.gzip(File.binread(dump))) } }
    assert_equal(expected, stats_json(fifo))
    writer.join
  end

  # leaks, diff and report read each input's first line (a META record) before the input
  # itself: a pipe is read once, the bytes read for that line kept, gzip'd or not.
  def test_commands_of_several_dumps_read_each_pipe_once
    first, _, last = three_dumps("memo_cache")
    %w[leaks diff].each do |command|
      expected, err, code = heapq("--format", "json", command, first, last)
      assert_equal(0, code, err)
      [false, true].each do |gzip|
        bytes = [first, last].map { |dump| File.binread(dump) }
        bytes.map! { |b| Zlib.gzip(b) } if gzip
        out, err, code = over_pipes(bytes) { |paths, fds| heapq_with_fds(fds, "--format", "json", command, *paths) }
        assert_equal(0, code, "#{command}, gzip #{gzip}: #{err}")
        assert_equal([command, gzip, ""], [command, gzip, err])
        assert_equal(without_inputs(JSON.parse(expected)), without_inputs(JSON.parse(out)), "#{command}, gzip #{gzip}")
      end
    end
    out, err, code = over_pipes([first, last].map { |dump| Zlib.gzip(File.binread(dump)) }) do |paths, fds|
      heapq_with_fds(fds, "--quiet", "report", "-o", File.join(@tmp, "report.html"), *paths)
    end
    assert_equal([0, ""], [code, err], out)
  end

  # A pipe is read once: stdin (whatever it is) or a FIFO given twice is a usage error, not two
  # readers taking each other's bytes.
  def test_a_pipe_given_twice_is_a_usage_error
    dump = make_dump
    [%w[leaks - -], %w[leaks - /dev/stdin], ["load", "-o", File.join(@tmp, "twice.db"), "-", "-"]].each do |args|
      _out, err, code = heapq(*args, stdin_data: File.binread(dump))
      assert_equal([1, "heapq: #{args.last} is given twice, but a pipe (or stdin) can be read only once\n"],
                   [code, err])
    end
    assert_false(File.exist?(File.join(@tmp, "twice.db")), "load left a store")
    _out, err, code = Open3.capture3(HEAPQ, "leaks", "-", "-", in: dump)
    assert_equal(1, code.exitstatus, err)
    fifo = File.join(@tmp, "heap.fifo")
    File.mkfifo(fifo)
    # Told before either is opened: no writer is waited for.
    _out, err, code = heapq_within(10, "leaks", fifo, fifo)
    assert_equal([1, "heapq: #{fifo} is given twice, but a pipe (or stdin) can be read only once\n"], [code, err])
  end

  # "app.db#2" names dump 2 of a store: app.db is opened to look for one only when it is a
  # regular file. A FIFO of that name is not opened (that would wait for a writer): the path is
  # then a file's, which does not exist.
  def test_a_fifo_named_as_a_store_is_not_opened
    fifo = File.join(@tmp, "app.db")
    File.mkfifo(fifo)
    out, err, code = heapq_within(10, "stats", "#{fifo}#2")
    assert_equal(3, code, "#{out}#{err}")
    assert_match(/app\.db#2: cannot open: No such file or directory/, err)
  end

  # Every input is held open until loaded. Past what the process may open (the hard limit), the
  # command says so before opening any; under it, the soft limit is raised as needed.
  def test_more_inputs_than_the_open_file_limit_is_a_usage_error
    dump = File.join(@tmp, "tiny.json")
    run_ruby(<<~'RUBY', dump)
      require "objspace"
      KEEP = Array.new(10) { |i| "kept #{i}" }
      File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
    RUBY
    out, err, status = Open3.capture3(HEAPQ, "leaks", *([dump] * 200), rlimit_nofile: [64, 128])
    assert_equal(1, status.exitstatus, "#{out}#{err}")
    assert_equal("heapq: 200 inputs, but a process may open 128 files (ulimit -Hn): give fewer\n", err)
    [["leaks"], ["report", "-o", File.join(@tmp, "report.html")]].each do |command|
      out, err, status = Open3.capture3(HEAPQ, "--quiet", *command, *([dump] * 100), rlimit_nofile: [64, 128])
      assert_equal([0, ""], [status.exitstatus, err], "#{command}: #{out}")
    end
  end

  private

  # heapq, killed (and the test failed) if it has not ended within SECONDS.
  def heapq_within(seconds, *args)
    Open3.popen3(HEAPQ, *args) do |stdin, stdout, stderr, thread|
      stdin.close
      unless thread.join(seconds)
        Process.kill(:KILL, thread.pid)
        flunk("heapq #{args.join(' ')} did not end within #{seconds} s")
      end
      [stdout.read, stderr.read, thread.value.exitstatus]
    end
  end

  # Runs the block with /dev/fd/N paths of pipes that carry each of contents, and the pipes'
  # read ends, for heapq to inherit.
  def over_pipes(contents)
    pipes = contents.map { IO.pipe }
    writers = pipes.zip(contents).map do |(_, w), bytes|
      Thread.new do
        w.write(bytes)
      rescue Errno::EPIPE
        nil
      ensure
        w.close
      end
    end
    yield pipes.map { |r, _| "/dev/fd/#{r.fileno}" }, pipes.map(&:first)
  ensure
    pipes.each { |r, _| r.close unless r.closed? }
    writers&.each(&:join)
  end

  # heapq with the pipes' read ends open in it (and closed here, so that a writer sees heapq
  # go).
  def heapq_with_fds(fds, *args)
    Open3.popen3(HEAPQ, *args, fds.to_h { |r| [r, r] }) do |stdin, stdout, stderr, thread|
      fds.each(&:close)
      stdin.close
      out = Thread.new { stdout.read }
      err = stderr.read
      [out.value, err, thread.value.exitstatus]
    end
  end

  # An answer without the names of its inputs (paths here, /dev/fd/N there).
  # What names the inputs, and the leaks' sample values (read again from a dump file; a pipe
  # cannot be).
  def without_inputs(json)
    case json
    when Hash then json.reject { |k, _| %w[input inputs path paths name names dumps sample].include?(k) }.transform_values { |v| without_inputs(v) }
    when Array then json.map { |v| without_inputs(v) }
    else json
    end
  end
end
