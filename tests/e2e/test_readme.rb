# The README's examples are run as written: every "$ heapq ..." line of its code blocks, in the
# order they appear, in a directory holding the dumps they name (made as the README says). Each
# must succeed, and print what the README shows, numbers and addresses aside (another run
# allocates at other addresses, and a dump taken by signal catches a process at another
# moment). Its SQL queries are run by test_store.rb.
require_relative "helper"
require "fileutils"

class TestReadme < Test::Unit::TestCase
  include E2E

  README = File.join(SOURCE_DIR, "README.md")

  Example = Struct.new(:command, :output, :line)

  # The "$ command" lines of README's fenced blocks, each with the lines it printed.
  def self.examples
    examples = []
    fenced = false
    File.readlines(README, chomp: true).each_with_index do |text, index|
      if text.start_with?("```")
        fenced = !fenced
        examples.last&.output&.freeze if !fenced
        next
      end
      next unless fenced

      if text.start_with?("$ ")
        examples << Example.new(text.delete_prefix("$ "), [], index + 1)
      elsif examples.last && !examples.last.output.frozen?
        examples.last.output << text
      end
    end
    examples
  end

  # Numbers, sizes and addresses vary from run to run; the words around them do not.
  def shape(line)
    line.gsub(/0x\h+/, "0x_").gsub(/[0-9][0-9,.]*( ?(B|KiB|MiB|GiB|MB|s))?/, "N").gsub(/N( +N)+/, "N").squeeze(" ").strip
  end

  def setup
    super
    @bin = File.join(@tmp, "bin")
    FileUtils.mkdir_p(@bin)
    FileUtils.ln_s(HEAPQ, File.join(@bin, "heapq"))
    # The README runs samples/*.rb from the checkout's root: allocation sites read the same.
    FileUtils.ln_s(File.join(SOURCE_DIR, "samples"), File.join(@tmp, "samples"))
    @ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
  end

  # The README's dumps: three of samples/memo_cache.rb, three of samples/rails_fragments.rb (by
  # ObjectSpace), and three of samples/shop.rb taken by signal into out/dumps, as its tutorial
  # takes them.
  def make_dumps
    _, err, status = Open3.capture3(RbConfig.ruby, "-I", @ext, "samples/memo_cache.rb",
                                    "out", "--memprof", chdir: @tmp)
    assert(status.success?, err)
    _, err, status = Open3.capture3(RbConfig.ruby, "samples/rails_fragments.rb", "out", chdir: @tmp)
    assert(status.success?, err)
    FileUtils.mkdir_p(File.join(@tmp, "out/dumps"))
    env = { "RUBYLIB" => @ext, "RUBYOPT" => "-rmemprof", "MEMPROF_SIGNAL" => "USR2", "MEMPROF_DIR" => "out/dumps",
            "MEMPROF_TRACK" => "1" }
    Open3.popen3(env, RbConfig.ruby, "samples/shop.rb", chdir: @tmp) do |stdin, out, err, thread|
      stdin.close
      expect(out, /\Aready/, 60)
      3.times do
        sleep 3 # as the tutorial waits: the shop's counts, hence its rankings, are the README's
        Process.kill("USR2", thread.pid)
        expect(err, /^memprof: wrote /, 60)
      end
      Process.kill("TERM", thread.pid)
      assert(thread.value.success?, "the shop did not exit normally")
    end
  end

  def test_every_example_runs_as_written
    examples = self.class.examples
    assert_operator(examples.size, :>=, 10, "the README's examples were not found")
    make_dumps
    env = { "PATH" => "#{@bin}:#{ENV.fetch('PATH')}" }
    examples.each do |example|
      # What the README shows is what a terminal shows: stdout and stderr together.
      out, status = Open3.capture2e(env, "sh", "-c", example.command, chdir: @tmp)
      where = "README.md:#{example.line}: #{example.command}"
      assert(status.success?, "#{where} failed: #{out}")
      actual = out.lines(chomp: true).map { |line| shape(line) }
      expected = example.output.map { |line| shape(line) }
      next if expected.empty?

      assert_equal(expected.first, actual.first, "#{where}: the first line differs")
      missing = expected - actual
      assert_operator(missing.size, :<=, expected.size / 5,
                      "#{where}: lines the README shows that it did not print:\n#{missing.join("\n")}")
    end
  end
end
