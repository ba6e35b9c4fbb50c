# Shared by the end-to-end tests: run Ruby programs to make dumps, run heapq on them.
require "test/unit"
require "json"
require "open3"
require "tmpdir"
require "rbconfig"

module E2E
  HEAPQ = ENV.fetch("HEAPQ") { abort "set HEAPQ to the heapq binary (ctest does)" }
  SOURCE_DIR = ENV.fetch("HEAPQ_SOURCE_DIR") { File.expand_path("../..", __dir__) }

  # Runs a Ruby program (source text) with ARGV; fails the test if it fails.
  def run_ruby(source, *args)
    path = File.join(@tmp, "program_#{rand(1 << 30)}.rb")
    File.write(path, source)
    out, err, status = Open3.capture3(RbConfig.ruby, path, *args)
    assert(status.success?, "ruby failed: #{err}")
    out
  end

  # Runs heapq; returns [stdout, stderr, exit status].
  def heapq(*args, stdin_data: nil)
    out, err, status = Open3.capture3(HEAPQ, *args, stdin_data: stdin_data.to_s, binmode: true)
    [out, err, status.exitstatus]
  end

  # Dumps samples/leaky_cache.rb after REQUESTS requests, with ObjectSpace.dump_all or, with
  # memprof: true, Memprof.dump_all (omitted when the extension is not built).
  def leaky_dump(requests, memprof: false)
    env = {}
    load_path = []
    if memprof
      load_path = ["-I", ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }]
      env["MEMPROF"] = "1"
    end
    dump = File.join(@tmp, memprof ? "leaky.jsonl" : "leaky.json")
    sample = File.join(SOURCE_DIR, "samples/leaky_cache.rb")
    out, err, status = Open3.capture3(env, RbConfig.ruby, *load_path, sample, dump, requests.to_s)
    assert(status.success?, "sample failed: #{out}#{err}")
    dump
  end

  def heapq_json(*args)
    out, err, code = heapq("--format", "json", *args)
    assert_equal(0, code, "heapq #{args.join(' ')} failed: #{err}")
    JSON.parse(out)
  end

  def setup
    @tmp = Dir.mktmpdir("heapq-e2e")
  end

  def teardown
    FileUtils.rm_rf(@tmp)
  end
end
