# Shared by the end-to-end tests: run Ruby programs to make dumps, run heapq on them.
require "test/unit"
require "json"
require "open3"
require "tmpdir"
require "rbconfig"
require "io/wait"

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

  def sample_path(sample)
    File.join(SOURCE_DIR, "samples", "#{sample}.rb")
  end

  # Runs samples/SAMPLE.rb (see samples/three_dumps.rb) and returns its three dumps, written by
  # ObjectSpace.dump_all with allocation tracing or, with memprof: true, by Memprof.dump_all
  # (omitted when the extension is not built), or with signal: true by memprof's signal handler
  # in the sample's process, each dump asked for by SIGUSR2 from outside.
  # requests: requests between two dumps.
  def three_dumps(sample, memprof: false, signal: false, requests: nil)
    load_path = []
    args = []
    if memprof || signal
      load_path = ["-I", ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }]
      args << (signal ? "--signal" : "--memprof")
    end
    args.push("--requests", requests.to_s) if requests
    outdir = File.join(@tmp, "#{sample}#{memprof ? '-memprof' : ''}#{signal ? '-signal' : ''}")
    out, err, status = Open3.capture3(RbConfig.ruby, *load_path, sample_path(sample), outdir, *args)
    assert(status.success?, "sample #{sample} failed: #{out}#{err}")
    dumps = out.lines(chomp: true)
    assert_equal(3, dumps.size, "three dumps: #{out}")
    dumps.each { |dump| assert(File.file?(dump), "no dump #{dump}") }
    dumps
  end

  # The code lines of samples/SAMPLE.rb marked "# KIND: Class" (kinds: leak, warmup, churn), as
  # [line, class] pairs: tests find a sample's expected sites there, never by line number.
  def sample_marks(sample, kind = "leak")
    File.readlines(sample_path(sample)).each_with_index.filter_map do |text, index|
      [index + 1, Regexp.last_match(1)] if text !~ /\A\s*#/ && text =~ /# #{kind}: (\S+)\s*\z/
    end
  end

  def heapq_json(*args)
    out, err, code = heapq("--format", "json", *args)
    assert_equal(0, code, "heapq #{args.join(' ')} failed: #{err}")
    JSON.parse(out)
  end

  # The first match of pattern in what io (a pipe from a child) wrote since the last match on
  # it; fails the test after timeout seconds or when io closes first.
  def expect(io, pattern, timeout)
    @seen ||= Hash.new { |h, k| h[k] = +"" }
    buffer = @seen[io]
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    until (match = pattern.match(buffer))
      left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
      flunk("no #{pattern.inspect} within #{timeout} s; got:\n#{buffer}") if left <= 0
      buffer << io.read_nonblock(65_536) if io.wait_readable(left)
    end
    buffer.replace(match.post_match)
    match
  rescue EOFError
    flunk("closed before #{pattern.inspect}; got:\n#{buffer}")
  end

  def setup
    @tmp = Dir.mktmpdir("heapq-e2e")
  end

  def teardown
    FileUtils.rm_rf(@tmp)
  end
end
