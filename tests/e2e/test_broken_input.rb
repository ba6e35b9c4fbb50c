# Dumps that Ruby 3.1 itself writes broken, and files damaged on the way.
require_relative "helper"

class TestBrokenInput < Test::Unit::TestCase
  include E2E

  # Ruby 3.1 writes an eval'd file name raw: a quote, a byte that is not UTF-8 and a newline.
  HOSTILE = <<~'RUBY'
    require "objspace"
    ObjectSpace.trace_object_allocations_start
    KEEP = eval("['a' + 'b', 'c' * 2]", binding, "we\"ird\xff\npath.rb")
    File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
  RUBY

  def test_ruby_31_hostile_file_names
    dump = File.join(@tmp, "heap.json")
    run_ruby(HOSTILE, dump)
    out, err, code = heapq("stats", dump)
    assert_equal(0, code, err)
    assert_match(/objects/, out)
    broken = File.binread(dump).lines.count { |l| !(JSON.parse(l) rescue nil) }
    if broken > 0  # this Ruby writes them raw
      assert_match(/#{Regexp.escape(dump)}: [\d,]+ bad lines? skipped \(line \d+: /, err)
      out, err, code = heapq("--strict", "stats", dump)
      assert_equal(2, code)
      assert_match(/\Aheapq: #{Regexp.escape(dump)}:\d+: invalid JSON/, err)
      assert_equal("", out)
    end
  end

  def test_truncated_dump_and_gzip
    dump = File.join(@tmp, "heap.json")
    run_ruby("require 'objspace'; File.open(ARGV[0], 'w') { |f| ObjectSpace.dump_all(output: f) }", dump)
    bytes = File.binread(dump)
    cut = File.join(@tmp, "cut.json")
    # Halfway, inside a line: a cut just after a newline, or just before one (the last line
    # whole, only its newline gone), would leave no bad line.
    half = bytes.size / 2
    half += 1 while bytes.getbyte(half - 1) == 10 || bytes.getbyte(half) == 10
    File.binwrite(cut, bytes[0, half])
    _out, err, code = heapq("stats", cut)
    assert_equal(0, code, err)
    assert_match(/: 1 bad line skipped/, err)
    assert_equal(2, heapq("--strict", "stats", cut)[2])

    require "zlib"
    gz = Zlib.gzip(bytes)
    File.binwrite("#{cut}.gz", gz[0, gz.size / 2])
    _out, err, code = heapq("stats", "#{cut}.gz")
    assert_equal(0, code, err)
    assert_match(/truncated gzip stream/, err)
    _out, err, code = heapq("--strict", "stats", "#{cut}.gz")
    assert_equal(2, code)
    assert_match(/truncated gzip stream/, err)
  end

  def test_not_a_dump
    text = File.join(@tmp, "notes.txt")
    File.write(text, "hello\n")
    _out, err, code = heapq("stats", text)
    assert_equal(2, code)
    assert_match(/notes.txt:1: /, err)
    assert_equal(3, heapq("stats", File.join(@tmp, "absent.json"))[2])
  end
end
