# Each input is opened once: heapq tells a dump from a store or a profile, reads its META and
# loads it through the one descriptor it opened (strace counts the opens). Skipped where strace
# cannot run.
require_relative "helper"

STRACE = ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).map { |dir| File.join(dir, "strace") }
                                 .find { |path| File.executable?(path) }
unless STRACE && system(STRACE, "-qq", "-o", File::NULL, "true", err: File::NULL)
  warn "SKIPPED: strace is not installed or cannot trace here: how often inputs are opened " \
       "was not checked"
  exit 77  # ctest's SKIP_RETURN_CODE
end

class TestInputsOpenedOnce < Test::Unit::TestCase
  include E2E

  # How many times heapq ARGS opens each path (in every thread).
  def opens(*args)
    log = File.join(@tmp, "strace.log")
    _, err, status = Open3.capture3(STRACE, "-f", "-qq", "-e", "trace=open,openat", "-o", log,
                                    HEAPQ, *args)
    assert(status.success?, "heapq #{args.join(' ')}: #{err}")
    File.readlines(log).filter_map { |line| line[/open(?:at)?\([^"]*"([^"]+)"/, 1] }.tally
  end

  def test_leaks_opens_each_dump_once
    [three_dumps("memo_cache"), three_dumps("memo_cache", memprof: true)].each do |dumps|
      opened = opens("--quiet", "leaks", *dumps)
      assert_equal(dumps.map { |d| [d, 1] }, dumps.map { |d| [d, opened[d]] })
    end
  end
end
