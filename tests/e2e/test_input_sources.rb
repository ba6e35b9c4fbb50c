# A dump read from a pipe, a FIFO or /dev/stdin gives the same answer as from a file.
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
end
