# frozen_string_literal: true

# The gem as a user installs it: `gem build` of dumper/memprof.gemspec, `gem install` of the
# .gem (which compiles the extension with extconf.rb and mkmf, not CMake), then a dump from a
# program that requires it, on the Ruby this suite runs on.
require_relative "memprof_test_helper"
require "fileutils"

class TestGemInstall < Test::Unit::TestCase
  include MemprofTestHelper

  def bin(name)
    File.join(RbConfig::CONFIG["bindir"], name + RbConfig::CONFIG["EXEEXT"].to_s)
  end

  def run!(env, *command, chdir:)
    out, status = Open3.capture2e(env, *command, chdir: chdir)
    assert_true(status.success?, "#{command.join(' ')} failed:\n#{out}")
    out
  end

  # A Ruby newer than memprof knows is refused before anything is compiled, with what to do.
  def test_extconf_refuses_a_ruby_it_has_not_been_tested_on
    source = ENV.fetch("MEMPROF_SOURCE_DIR") { File.expand_path("../..", __dir__) }
    extconf = File.join(source, "dumper", "ext", "memprof", "extconf.rb")
    Dir.mktmpdir("memprof-extconf") do |dir|
      out, status = Open3.capture2e({ "MEMPROF_UNTESTED_RUBY" => nil }, RbConfig.ruby, "-W0", "-e",
                                    'Object.send(:remove_const, :RUBY_VERSION); RUBY_VERSION = "3.5.0"; load ARGV[0]',
                                    extconf, chdir: dir)
      assert_false(status.success?)
      assert_match(/memprof supports Ruby 3\.1 to 3\.4; this is Ruby 3\.5\.0\. MEMPROF_UNTESTED_RUBY=1/, out)
      assert_false(File.exist?(File.join(dir, "Makefile")), "no Makefile for a refused Ruby")
    end
  end

  def test_the_built_gem_installs_and_dumps
    source = ENV.fetch("MEMPROF_SOURCE_DIR") { File.expand_path("../..", __dir__) }
    Dir.mktmpdir("memprof-gem") do |dir|
      # Only the gem's own directories on the way: nothing of the suite's -I or RUBYOPT, nor the
      # sanitizer runtimes a sanitized build preloads (mkmf builds the gem without them).
      env = { "GEM_HOME" => File.join(dir, "gems"), "GEM_PATH" => File.join(dir, "gems"),
              "RUBYOPT" => nil, "RUBYLIB" => nil, "MAKEFLAGS" => "-j2", "LD_PRELOAD" => nil,
              "ASAN_OPTIONS" => nil, "UBSAN_OPTIONS" => nil }
      gem = File.join(dir, "memprof.gem")
      run!(env, bin("gem"), "build", "-C", source, "dumper/memprof.gemspec", "-o", gem, chdir: dir)
      run!(env, bin("gem"), "install", "--local", "--no-document", gem, chdir: dir)
      dump = File.join(dir, "heap.jsonl")
      run!(env, RbConfig.ruby, "-rmemprof", "-e", "$kept = +'kept'; Memprof.dump_all(ARGV[0])",
           dump, chdir: dir)
      records = File.foreach(dump).map { |line| JSON.parse(line) }
      meta = records.first
      assert_equal("META", meta["type"])
      assert_equal(RUBY_VERSION, meta["ruby_version"],
                   "the META record names the Ruby that dumped: #{meta}")
      assert_operator(records.count { |r| r["type"] == "STRING" }, :>, 100)
      assert_equal("END", records.last["type"])
    end
  end
end
