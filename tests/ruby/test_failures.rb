# frozen_string_literal: true

# A failing dump raises an exception that names what failed and leaves no file behind.
require_relative "memprof_test_helper"

class TestFailures < Test::Unit::TestCase
  include MemprofTestHelper

  def test_dev_full_path
    error = assert_raise(Errno::ENOSPC) { Memprof.dump_all("/dev/full") }
    assert_match(%r{/dev/full}, error.message)
    assert(File.chardev?("/dev/full"), "/dev/full must still be the device")
  end

  def test_dev_full_io
    File.open("/dev/full", "w") do |io|
      error = assert_raise(Errno::ENOSPC) { Memprof.dump_all(io) }
      assert_match(/memprof: writing/, error.message)
    end
  end

  def test_closed_io
    Dir.mktmpdir("memprof-test") do |dir|
      io = File.open(File.join(dir, "closed.jsonl"), "w")
      io.close
      error = assert_raise(IOError) { Memprof.dump_all(io) }
      assert_equal("memprof: cannot dump to a closed IO", error.message)
    end
  end

  def test_missing_directory
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "no-such-dir", "heap.jsonl")
      error = assert_raise(Errno::ENOENT) { Memprof.dump_all(path) }
      assert_match(/no-such-dir/, error.message)
      assert_empty(Dir.children(dir))
    end
  end

  def test_read_only_directory
    Dir.mktmpdir("memprof-test") do |dir|
      File.write(File.join(dir, "heap.jsonl"), "previous dump\n")
      File.chmod(0o555, dir)
      outcome = as_unprivileged_user { Memprof.dump_all(File.join(dir, "heap.jsonl")) }
      assert_match(/\AErrno::EACCES: .*memprof: cannot create .*heap\.jsonl\.tmp/, outcome)
      assert_equal(["heap.jsonl"], Dir.children(dir), "a temporary file was left behind")
      assert_equal("previous dump\n", File.read(File.join(dir, "heap.jsonl")))
    ensure
      File.chmod(0o755, dir)
    end
  end

  def test_a_failing_child_says_so_once
    out, status = run_ruby(<<~RUBY)
      _, status = Process.wait2(Memprof.dump_all("/nonexistent/dir\e[2J/heap.jsonl", fork: true))
      puts "status \#{status.exitstatus}"
    RUBY
    assert(status.success?, out)
    lines = out.lines.map(&:chomp)
    assert_equal(2, lines.size, out)
    assert_match(%r{\Amemprof: dump in child \d+ failed: Errno::ENOENT: .* - cannot create /nonexistent/dir\\x1b\[2J/heap}, lines[0])
    assert_equal("status 1", lines[1])
  end

  def test_bad_arguments
    assert_raise(ArgumentError) { Memprof.dump_all("/tmp/x.jsonl", strings: -1) }
    assert_raise(TypeError) { Memprof.dump_all(42) }
    message = "memprof: strings: must be a non-negative Integer or false"
    assert_raise_message(message) { Memprof.dump_all("/tmp/x.jsonl", strings: "1") }
    assert_raise_message(message) { Memprof.dump(+"text", strings: -1) }
    assert_raise_message(message) { Memprof.dump(+"text", strings: 1.5) }
    # dump and dump_all read strings: alike: nil, as false, writes no value.
    assert_nil(JSON.parse(Memprof.dump(+"text", strings: nil))["value"])
    assert_equal("text", JSON.parse(Memprof.dump(+"text"))["value"])
  end
end
