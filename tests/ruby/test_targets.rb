# frozen_string_literal: true

# Where a dump goes: through symlinks, into read-only directories, to IO wrappers, pipes,
# sockets, FIFOs and Tempfiles; always a complete stream or an exception.
require_relative "memprof_test_helper"

class TestTargets < Test::Unit::TestCase
  include MemprofTestHelper

  def setup
    @dir = Dir.mktmpdir("memprof-test")
  end

  def teardown
    File.chmod(0o755, @dir) if @dir && File.exist?(@dir)
    FileUtils.remove_entry(@dir) if @dir
  end

  def test_symlink_is_followed_to_its_target
    target = File.join(@dir, "real.jsonl")
    link = File.join(@dir, "link.jsonl")
    File.write(target, "old\n")
    File.chmod(0o640, target)
    File.symlink(target, link)
    Memprof.dump_all(link)
    assert(File.symlink?(link), "the symlink was replaced by a file")
    assert_complete(File.read(target))
    assert_equal(0o640, File.stat(target).mode & 0o777, "the target's permissions changed")
    assert_equal(%w[link.jsonl real.jsonl], Dir.children(@dir).sort)
  end

  # The old dump is exchanged for the new one, then unlinked: a reader that opened the old one
  # still reads it whole, the path holds the new one, nothing else is left.
  def test_overwriting_a_dump_is_atomic_and_leaves_one_file
    path = File.join(@dir, "heap.jsonl")
    Memprof.dump_all(path)
    File.open(path) do |old|
      first = File.stat(path).ino
      Memprof.dump_all(path)
      assert_not_equal(first, File.stat(path).ino)
      assert_complete(old.read)
    end
    assert_complete(File.read(path))
    assert_equal(["heap.jsonl"], Dir.children(@dir))
  end

  # /dev/stdout is a symlink into /proc; with stdout redirected to a file, that file must get
  # the dump through the open descriptor, not be replaced by a new file.
  def test_dev_stdout_redirected_to_a_file
    out = File.join(@dir, "stdout.jsonl")
    File.open(out, "w") do |file|
      pid = Process.spawn(RbConfig.ruby, *MemprofTestHelper.load_args,
                          "-rmemprof", "-e", 'Memprof.dump_all("/dev/stdout")', out: file)
      Process.wait(pid)
      assert($?.success?)
      assert_equal(file.stat.ino, File.stat(out).ino, "the redirected file was replaced")
    end
    assert_complete(File.read(out))
  end

  def test_dangling_symlink_creates_its_target
    target = File.join(@dir, "new.jsonl")
    link = File.join(@dir, "link.jsonl")
    File.symlink(target, link)
    Memprof.dump_all(link)
    assert(File.symlink?(link))
    assert_complete(File.read(target))
  end

  def test_writable_file_in_a_read_only_directory_is_written_in_place
    path = File.join(@dir, "heap.jsonl")
    File.write(path, "previous dump\n")
    File.chmod(0o666, path)
    File.chmod(0o555, @dir)
    outcome = as_unprivileged_user { Memprof.dump_all(path) }
    assert_equal("ok", outcome)
    assert_complete(File.read(path))
    assert_equal(["heap.jsonl"], Dir.children(@dir))
  end

  def test_empty_and_long_paths
    error = assert_raise(Errno::ENOENT) { Memprof.dump_all("") }
    assert_match(/empty path/, error.message)
    long = File.join(@dir, "x" * 200, "y" * (4095 - @dir.size - 202))
    assert_equal(4095, long.bytesize)
    error = assert_raise_kind_of(SystemCallError) { Memprof.dump_all(long) }
    assert_match(/memprof: cannot create/, error.message)
    assert_empty(Dir.children(@dir))
  end

  def test_gzip_writer_gets_the_dump_through_its_own_write
    require "zlib"
    path = File.join(@dir, "heap.jsonl.gz")
    Zlib::GzipWriter.open(path) { |gz| Memprof.dump_all(gz) }
    assert_complete(Zlib::GzipReader.open(path, &:read))
  end

  def test_gz_path_and_compress_option_write_gzip
    require "zlib"
    require "stringio"
    gz = File.join(@dir, "heap.jsonl.gz")
    Memprof.dump_all(gz)
    assert_complete(Zlib::GzipReader.open(gz, &:read))
    plain = File.join(@dir, "plain.jsonl.gz")
    Memprof.dump_all(plain, compress: false)
    assert_complete(File.read(plain))
    io_path = File.join(@dir, "io.jsonl.z")
    File.open(io_path, "wb") { |io| Memprof.dump_all(io, compress: true) }
    assert_complete(Zlib::GzipReader.open(io_path, &:read))
    sio = StringIO.new(+"", "wb")
    Memprof.dump_all(sio, compress: true)
    assert_complete(Zlib::GzipReader.new(StringIO.new(sio.string)).read)
    child = File.join(@dir, "child.jsonl.gz")
    _, status = Process.wait2(Memprof.dump_all(child, fork: true))
    assert(status.success?)
    assert_complete(Zlib::GzipReader.open(child, &:read))
  end

  def test_tempfile_is_written_where_it_is_open
    require "tempfile"
    file = Tempfile.new("memprof-test", @dir)
    file.write("before\n")
    Memprof.dump_all(file)
    file.flush
    file.rewind
    text = file.read
    assert(text.start_with?("before\n"), "the Tempfile's earlier content was lost")
    assert_complete(text.delete_prefix("before\n"))
    assert(text.b == File.binread(file.path), "the file on disk differs from what the open file reads")
  ensure
    file&.close!
  end

  def test_fork_with_a_stringio_is_refused_before_forking
    require "stringio"
    error = assert_raise(ArgumentError) { Memprof.dump_all(StringIO.new, fork: true) }
    assert_match(/fork: true needs a path or an IO/, error.message)
  end

  # Ruby 3.1's pipes and sockets are non-blocking; a reader may be a thread of this process
  # (which cannot run while the walk holds the GVL); a FIFO may have no reader yet. Each case
  # runs in its own process, so that a deadlock fails the test instead of hanging it.
  def test_pipes_sockets_and_fifos
    out, status = run_ruby(<<~RUBY, timeout: 30)
      require "socket"
      # Reads to the end in chunks (a growing String is slow under ASan); true when the stream
      # starts with META and ends with an END that counts its lines.
      def complete?(io)
        head = io.readpartial(100)
        tail = +""
        lines = head.count("\n")
        while (chunk = io.read(65_536))
          lines += chunk.count("\n")
          tail = (tail + chunk)[-200..] || tail + chunk
        end
        head.start_with?('{"type":"META"') && tail.end_with?(%({"type":"END","records":\#{lines - 1}}\n))
      end
      reader, writer = IO.pipe
      thread = Thread.new { complete?(reader) }
      Memprof.dump_all(writer)
      writer.close
      puts "pipe \#{thread.value}"
      left, right = UNIXSocket.pair
      thread = Thread.new { complete?(right) }
      Memprof.dump_all(left)
      left.close
      puts "socket \#{thread.value}"
      fifo = File.join(#{@dir.inspect}, "fifo")
      File.mkfifo(fifo)
      thread = Thread.new { Memprof.dump_all(fifo) }
      result = File.open(fifo) { |io| complete?(io) }
      thread.join
      puts "fifo \#{result}"
    RUBY
    assert(status.success?, out)
    assert_equal(["pipe true", "socket true", "fifo true"], out.lines.last(3).map(&:chomp), out)
  end
end
