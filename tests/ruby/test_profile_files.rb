# frozen_string_literal: true

# memprof/profiles: a program started with MEMPROF_PROFILE_EVERY (RUBYOPT=-rmemprof) writes a
# sampled profile into MEMPROF_DIR at that period, keeps the last MEMPROF_PROFILE_KEEP, writes
# one at once on MEMPROF_PROFILE_SIGNAL, and a forked worker writes its own.
require_relative "memprof_test_helper"
require_relative "pprof_reader"

class TestProfileFiles < Test::Unit::TestCase
  include MemprofTestHelper

  NAME = /\Amemprof-(\d+)-\d{8}T\d{6}\.\d{3}Z(?:-\d+)?\.pb\.gz\z/.freeze

  # Runs code in a Ruby started as a deployment would start it; returns [output, status].
  def run_app(code, env)
    Open3.capture2e({ "RUBYOPT" => "-rmemprof" }.merge(env), RbConfig.ruby, *MemprofTestHelper.load_args, "-e", code)
  end

  def profiles(dir)
    Dir.children(dir).grep(NAME).sort
  end

  def test_a_profile_every_period_the_last_few_kept
    Dir.mktmpdir do |dir|
      out, status = run_app(<<~RUBY, "MEMPROF_PROFILE_EVERY" => "0.2", "MEMPROF_DIR" => dir, "MEMPROF_PROFILE_KEEP" => "2")
        KEEP = []
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 1.5
        KEEP << "item \#{KEEP.size}" while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
        puts Process.pid, Memprof.sampling[:sample]
        Memprof::Profiles.uninstall # the last profile written and the old ones deleted
      RUBY
      assert(status.success?, out)
      pid, rate = out.lines.map { Integer(_1) }
      assert_equal(Memprof::DEFAULT_SAMPLE, rate)
      files = profiles(dir)
      assert_equal(2, files.size, "the last two of about seven: #{Dir.children(dir)}")
      files.each do |file|
        assert_equal(pid.to_s, file[NAME, 1])
        profile = PprofReader.new(File.binread(File.join(dir, file)))
        assert_equal(Memprof::DEFAULT_SAMPLE, profile.period)
        assert_include(profile.comments, "pid: #{pid}")
      end
      strings = PprofReader.new(File.binread(File.join(dir, files.last))).totals { |s| s.labels["class"] == "String" }
      assert_operator(strings["inuse_objects"], :>, 10_000, "the program's Strings, estimated")
    end
  end

  def test_the_signal_writes_one_at_once
    Dir.mktmpdir do |dir|
      out, status = run_app(<<~RUBY, "MEMPROF_PROFILE_EVERY" => "3600", "MEMPROF_DIR" => dir, "MEMPROF_PROFILE_SIGNAL" => "USR1")
        Process.kill("USR1", Process.pid)
        sleep 0.05 until Dir.children(#{dir.inspect}).any? { _1.end_with?(".pb.gz") }
        puts "seen"
      RUBY
      assert(status.success?, out)
      assert_match(%r{^memprof: wrote #{Regexp.escape(dir)}/memprof-\d+-.*\.pb\.gz$}, out)
      assert_equal(1, profiles(dir).size)
    end
  end

  # A preforking server's worker: its own writer, its own files.
  def test_a_forked_worker_writes_its_own
    # GCC 12's AddressSanitizer does not take its allocator's lock around fork: a child of a
    # process whose other threads allocate may find it taken for ever, and hang as soon as its
    # own new threads allocate (seen in 1 run of 10). glibc's malloc is safe across fork.
    omit("a forked child's new threads may hang under this AddressSanitizer") if ENV["ASAN_OPTIONS"]
    Dir.mktmpdir do |dir|
      out, status = run_app(<<~RUBY, "MEMPROF_PROFILE_EVERY" => "0.2", "MEMPROF_DIR" => dir)
        worker = fork do
          sleep 0.7
          puts Process.pid
        end
        Process.wait(worker)
        exit!(0)
      RUBY
      assert(status.success?, out)
      worker = out.lines.last.strip
      assert_not_empty(profiles(dir).select { _1[NAME, 1] == worker }, Dir.children(dir).inspect)
    end
  end

  def test_bad_settings_are_named_and_the_program_runs_on
    Dir.mktmpdir do |dir|
      {
        { "MEMPROF_PROFILE_EVERY" => "soon" } => "memprof: MEMPROF_PROFILE_EVERY=soon: expected a number",
        { "MEMPROF_PROFILE_EVERY" => "0" } => "memprof: MEMPROF_PROFILE_EVERY=0.0: expected a number of seconds, 0.1 or more",
        { "MEMPROF_PROFILE_EVERY" => "1", "MEMPROF_PROFILE_KEEP" => "-3" } => "memprof: MEMPROF_PROFILE_KEEP=-3: expected a positive Integer",
        { "MEMPROF_PROFILE_EVERY" => "1", "MEMPROF_DIR" => "/nonexistent\e[2J" } =>
          'memprof: MEMPROF_DIR=/nonexistent\x1b[2J: no such directory',
        { "MEMPROF_PROFILE_EVERY" => "1", "MEMPROF_PROFILE_SIGNAL" => "KILLALL" } =>
          "memprof: MEMPROF_PROFILE_SIGNAL=KILLALL: unknown signal",
      }.each do |env, message|
        out, status = run_app('puts "installed: #{Memprof::Profiles.every.inspect} #{Memprof.running?}"', { "MEMPROF_DIR" => dir }.merge(env))
        assert(status.success?, out)
        assert_equal([message, "installed: nil false"], out.lines.map(&:chomp), env.inspect)
      end
      assert_empty(profiles(dir))
    end
  end

  # A dangling symlink planted in a shared directory under the next file's name is a name taken:
  # the profile (or dump) is never written where it points.
  def test_a_planted_symlink_is_a_name_taken
    require "memprof/settings"
    Dir.mktmpdir do |dir|
      at = Time.utc(2026, 11, 28, 10, 35, 12.345r)
      first = Memprof::Settings.next_path(dir, "pb.gz", at: at)
      File.symlink(File.join(dir, "elsewhere"), first)
      second = Memprof::Settings.next_path(dir, "pb.gz", at: at)
      assert_equal(first.sub(/\.pb\.gz\z/, "-2.pb.gz"), second)
    end
  end

  def test_install_and_uninstall
    Dir.mktmpdir do |dir|
      out, status = run_ruby(<<~RUBY)
        require "memprof/profiles"
        puts Memprof::Profiles.install(every: 0.1, dir: #{dir.inspect}, keep: 5, signal: nil)
        sleep 0.35
        puts Memprof::Profiles.uninstall, Memprof.running?
        written = Dir.children(#{dir.inspect}).size
        sleep 0.3
        puts written.positive? && Dir.children(#{dir.inspect}).size == written
      RUBY
      assert(status.success?, out)
      assert_equal(%w[true true false true], out.lines.map(&:chomp))
    end
  end
end
