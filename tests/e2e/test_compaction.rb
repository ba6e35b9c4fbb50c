# GC compaction between two dumps moves objects: matched by address, an object without an
# allocation seq that moved looks born. leaks and diff say so when the dumps' META counts differ.
require_relative "helper"

class TestCompaction < Test::Unit::TestCase
  include E2E

  PROGRAM = <<~'RUBY'
    require "memprof"
    $untracked = Array.new(5_000) { |i| "untracked #{i}" }
    Memprof.start
    Memprof.dump_all(ARGV[0])
    $tracked = Array.new(2_000) { |i| "tracked #{i}" }
    GC.verify_compaction_references if ARGV[2] == "compact"
    Memprof.dump_all(ARGV[1])
  RUBY

  def dumps(compact)
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    first = File.join(@tmp, "first.jsonl")
    last = File.join(@tmp, "last.jsonl")
    path = File.join(@tmp, "program.rb")
    File.write(path, PROGRAM)
    _, err, status = Open3.capture3(RbConfig.ruby, "-I", ext, path, first, last, compact ? "compact" : "")
    assert(status.success?, err)
    [first, last]
  end

  def test_compaction_between_dumps_is_said_in_text_and_json
    first, last = dumps(true)
    %w[diff leaks].each do |command|
      answer = heapq_json(command, first, last)
      assert_equal(1, answer["warnings"]&.size, "#{command}: #{answer['warnings'].inspect}")
      assert_match(/GC compaction ran 1 time between the dumps/, answer["warnings"].first)
      out, err, code = heapq(command, first, last)
      assert_equal(0, code, err)
      assert_include(out, answer["warnings"].first.split(":").first)
    end
  end

  def test_no_compaction_no_warning
    first, last = dumps(false)
    %w[diff leaks].each do |command|
      assert_equal([], heapq_json(command, first, last)["warnings"], command)
    end
  end
end
