# frozen_string_literal: true

# Debian's ruby-heapy reads a memprof dump and counts every record in it.
require_relative "memprof_test_helper"
require "open3"

class TestHeapy < Test::Unit::TestCase
  include MemprofTestHelper

  HEAPY = "/usr/bin/heapy"

  def test_heapy_reads_a_memprof_dump
    omit("ruby-heapy is not installed (scripts/install-deps installs it)") unless File.executable?(HEAPY)
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "heap.jsonl")
      Memprof.start
      kept = Array.new(50) { +"heapy sees this" }
      Memprof.dump_all(path)
      Memprof.stop
      lines = File.foreach(path).count
      out, status = Open3.capture2e(HEAPY, "read", path)
      assert(status.success?, out)
      assert_not_match(/Could not parse/, out)
      assert_match(/^Count: #{lines}$/, out)
      out, status = Open3.capture2e(HEAPY, "read", path, "all")
      assert(status.success?, out)
      assert_match(/#{Regexp.escape(__FILE__)}:\d+/, out)
      assert(kept)
    end
  end
end
