# Every command's text output fits an 80-column terminal and sends no raw control character,
# whatever the dump holds: long file paths, long class names, escape sequences in names.
require_relative "helper"
require "fileutils"
require "io/console"
require "pty"

class TestTerminalWidth < Test::Unit::TestCase
  include E2E

  OUTER = "AccountingSubsystemWithAnUnreasonablyLongModuleName"
  INNER = "PricingResultsMemoizationNamespaceOfSomeLength"
  CACHE = "TheCacheOfPricingResultsThatNeverForgetsAnything"
  CLASS_NAME = "#{OUTER}::#{INNER}::#{CACHE}"

  # Three dumps, 300 more cache entries each time; the entries are made by a method whose
  # name holds an escape sequence that would retitle a terminal.
  PROGRAM = <<~RUBY
    require "objspace"
    ObjectSpace.trace_object_allocations_start
    module #{OUTER}
      module #{INNER}
        class #{CACHE}
          STORE = {}
          define_method("fill\\e]0;pwned\\a") do |n|
            n.times { STORE["key-\#{STORE.size}"] = "value " * 3 }
          end
        end
      end
    end
    KEPT = []
    3.times do |i|
      KEPT << #{CLASS_NAME}.new
      KEPT.last.public_send("fill\\e]0;pwned\\a", 300)
      GC.start
      File.open(File.join(ARGV[0], "dump\#{i + 1}.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
    end
  RUBY

  class << self
    attr_reader :dumps

    # The three dumps are made once, deep in directories with long names, for every test.
    def startup
      @shared = Dir.mktmpdir("heapq-e2e-width")
      dir = File.join(@shared, *Array.new(4) { |i| "a_rather_long_directory_name_level_#{i}_for_paths" })
      FileUtils.mkdir_p(dir)
      program = File.join(dir, "pricing_results_cache_with_a_long_file_name.rb")
      File.write(program, PROGRAM)
      _out, err, status = Open3.capture3(RbConfig.ruby, program, dir)
      raise "ruby failed: #{err}" unless status.success?

      @dumps = (1..3).map { |i| File.join(dir, "dump#{i}.json") }
    end

    def shutdown
      FileUtils.rm_rf(@shared) if @shared
    end
  end

  def dumps = self.class.dumps

  # out is UTF-8 and holds no raw control character but the newline.
  def assert_no_control_characters(what, out)
    text = out.dup.force_encoding(Encoding::UTF_8)
    assert(text.valid_encoding?, "#{what}: not UTF-8")
    assert_not_match(/[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f]/, text, "#{what}: a raw control character")
    text
  end

  def assert_fits(what, out, width: 80)
    text = assert_no_control_characters(what, out)
    text.each_line(chomp: true).with_index(1) do |line, n|
      assert_operator(line.length, :<=, width, "#{what}, line #{n} is #{line.length} columns:\n#{line}")
    end
  end

  def text_of(*args)
    out, err, code = heapq("--quiet", *args)
    assert_equal(0, code, "heapq #{args.join(' ')} failed: #{err}")
    assert_false(out.empty?, "heapq #{args.join(' ')} printed nothing")
    out
  end

  def test_every_command_fits_80_columns
    d1, d2, d3 = dumps
    store = File.join(@tmp, "heap.db")
    runs = [
      ["stats", d3],
      ["sites", d3], ["sites", "--by", "file", d3], ["sites", "--by", "method", d3],
      ["sites", "--by", "class", d3], ["sites", "--by", "gem", d3],
      ["retainers", d3, CLASS_NAME], ["retainers", "--referrers", d3, "String"],
      ["dominators", d3], ["dominators", "--depth", "4", d3],
      ["leaks", d1, d2, d3], ["leaks", d3],
      ["diff", d1, d3], ["diff", "--by", "site", d1, d3], ["diff", "--by", "gem", d1, d3],
      ["load", "-o", store, d1, d2, d3],
      ["sql", store, "SELECT * FROM objects_v WHERE class LIKE '%Cache%' LIMIT 3"],
      ["sql", store, "SELECT * FROM dumps"],
      ["sql", store, "SELECT * FROM sites_v WHERE file LIKE '%pricing%'"],
    ]
    runs.each do |args|
      assert_fits("heapq #{args.join(' ')}", text_of(*args))
    end
    # DOT is data, not a table; it too must not carry raw control characters.
    dot = text_of("viz", d3, CLASS_NAME)
    assert_match(/\Adigraph/, dot)
    assert_no_control_characters("heapq viz", dot)

    # Nothing is lost on a wider terminal: --width 0 leaves lines whole.
    wide = text_of("--width", "0", "sites", d3)
    assert_match(%r{a_rather_long_directory_name_level_3_for_paths/pricing_results_cache_with_a_long_file_name\.rb:\d+}, wide)
    assert_fits("heapq --width 120 sites", text_of("--width", "120", "sites", d3), width: 120)
  end

  def test_retention_paths_wrap_rather_than_lose_steps
    _d1, _d2, d3 = dumps
    wide = text_of("--width", "0", "retainers", d3, CLASS_NAME)
    narrow = text_of("retainers", d3, CLASS_NAME)
    assert_fits("heapq retainers", narrow)
    path = wide.lines.find { |l| l.include?("ROOT(") }
    assert_not_nil(path, "a retention path:\n#{wide}")
    # The wrapped lines hold the same words, but for the middle of one longer than a line.
    words = path.split(" ").reject { |w| w.length > 70 }
    assert_operator(words.size, :>=, 6)
    narrow_words = narrow.split(/\s+/)
    words.each { |w| assert_include(narrow_words, w, "#{w} of #{path}in\n#{narrow}") }
  end

  def test_help_fits_80_columns
    assert_fits("heapq --help", text_of("--help"))
    out, = heapq("--help")
    assert_match(/^  dominators  +\S/, out, "the command column holds the longest name")
    %w[stats sites retainers dominators leaks diff load sql viz report].each do |command|
      assert_fits("heapq #{command} --help", text_of(command, "--help"))
    end
  end

  def test_width_option
    _out, err, code = heapq("--width", "7", "--help")
    assert_equal(0, code, "help needs no valid width: #{err}")
    # The width is refused before any input is read.
    _out, err, code = heapq("--width", "7", "stats", File.join(@tmp, "absent.json"))
    assert_equal(1, code)
    assert_match(/--width expects/, err)
  end

  # The progress bar stays on one row of the terminal, whatever the dump's name, else each
  # redraw would leave a row behind. The terminal has its size before heapq starts.
  def test_progress_bar_fits_the_terminal
    d1 = dumps.first
    [80, 50].each do |columns|
      output = +""
      PTY.open do |master, slave|
        master.winsize = [24, columns]
        pid = Process.spawn(HEAPQ, "stats", d1, in: slave, out: slave, err: slave)
        slave.close
        begin
          master.each_char { |c| output << c }
        rescue Errno::EIO
          # the child closed the terminal
        end
        Process.wait(pid)
      end
      bars = output.split(/\r|\n/).grep(/heapq: reading/).map { |bar| bar.gsub(/\e\[K/, "") }
      assert_false(bars.empty?, "no progress bar drawn")
      bars.each { |bar| assert_operator(bar.length, :<, columns, "a bar of #{bar.length} columns:\n#{bar}") }
      assert_match(/heapq: reading .*dump1\.json/, bars.first, "the name keeps its end")
    end
  end
end
