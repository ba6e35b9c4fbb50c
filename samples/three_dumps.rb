# Shared by the leak samples: the three-dump technique. A sample defines its program, then
# calls ThreeDumps.run, which traces allocations, runs the sample's warm-up, dumps the heap (1),
# runs REQUESTS requests, dumps (2), runs REQUESTS more, dumps (3):
#
#   ruby samples/NAME.rb OUTDIR [--memprof | --signal | --sampled [--seed N]] [--requests N]
#
# writes OUTDIR/NAME-1.json .. NAME-3.json with ObjectSpace.dump_all (allocation tracing on),
# or with --memprof OUTDIR/NAME-1.jsonl .. NAME-3.jsonl with Memprof.dump_all (Memprof.start).
# --sampled writes the ObjectSpace dumps and, beside each, NAME-N.pb.gz: memprof's sampled
# profile (Memprof.start(sample: Memprof::DEFAULT_SAMPLE), Memprof.profile) of the same moment;
# --seed N seeds its random intervals (the same program, the same samples).
# --signal dumps as a user dumps a live program: the sample runs as a child process that
# loads memprof from outside (ruby -rmemprof/signal, MEMPROF_TRACK=1), and this process sends
# it SIGUSR2 for each dump, waits for memprof's "memprof: wrote PATH" line (the dump is
# written by a forked child of the program) and renames the file to OUTDIR/NAME-N.jsonl
# (this process runs none of the sample's code after its require of this file).
# No GC runs before these dumps, as none runs before a user's signal: the forked dump leaves
# out what no root reaches, but what is unreachable yet still has a finalizer to run is kept.
# memprof is found on the load path (ruby -I build/dumper/ext), in $MEMPROF_EXT_DIR, or in this
# checkout's build/dumper/ext. Prints the three paths.
#
# What was allocated after dump 1 and is still alive in dump 3, and grows from dump to dump, is
# the leak. Each sample marks the line that allocates its leaking objects "# leak: Class".
#
# The warm-up and the requests run in a thread of their own, and the dumps in the main thread:
# Ruby's GC scans the machine stack of a live thread conservatively, so a stale word left there
# by the last request would otherwise pin the cache itself (a shortest path "ROOT(machine_context)
# -> Hash" in place of "... @memo -> Hash") or the last request's objects. A finished thread's
# stack is not scanned.
require "objspace"

module ThreeDumps
  USAGE = "usage: ruby %s OUTDIR [--memprof | --signal | --sampled [--seed N]] [--requests N]"
  MODES = { "--memprof" => :memprof, "--signal" => :signal, "--signalled" => :signalled,
            "--sampled" => :sampled }.freeze
  WROTE = /^memprof: wrote (.+) \(\d+\.\d MB\) in /.freeze

  module_function

  # name: the sample's name (the dumps' prefix); requests: requests between two dumps;
  # warm_up: run once before dump 1; the block handles request number i (0, 1, ...).
  def run(name, requests:, warm_up: nil, argv: ARGV, &request)
    outdir, mode, requests = parse(argv, requests)
    # Made before tracing starts: what the harness keeps is not part of the sample's heap.
    paths = dump_paths(name, outdir, mode)
    start_tracing(mode)
    in_thread { warm_up&.call }
    dump(paths[0], mode)
    in_thread { requests.times { |i| request.call(i) } }
    dump(paths[1], mode)
    in_thread { requests.times { |i| request.call(requests + i) } }
    dump(paths[2], mode)
    puts paths unless mode == :signalled
    paths
  end

  def dump_paths(name, outdir, mode)
    (1..3).map { |n| File.join(outdir, "#{name}-#{n}.#{%i[objspace sampled].include?(mode) ? 'json' : 'jsonl'}") }
  end

  def in_thread(&block)
    Thread.new(&block).join
    nil
  end

  def parse(argv, requests)
    args = argv.dup
    modes = MODES.keys.select { |flag| args.delete(flag) }
    abort format(USAGE, $PROGRAM_NAME) if modes.size > 1
    mode = modes.empty? ? :objspace : MODES[modes.first]
    if (at = args.index("--requests"))
      requests = Integer(args[at + 1])
      args.slice!(at, 2)
    end
    if (at = args.index("--seed"))
      @seed = Integer(args[at + 1])
      args.slice!(at, 2)
    end
    abort format(USAGE, $PROGRAM_NAME) unless args.size == 1
    outdir = args.first
    Dir.mkdir(outdir) unless File.directory?(outdir)
    [outdir, mode, requests]
  end

  # The directory memprof.rb is in: on the load path, else $MEMPROF_EXT_DIR or this checkout's
  # build/dumper/ext.
  def memprof_dir
    dirs = $LOAD_PATH + [ENV["MEMPROF_EXT_DIR"], File.expand_path("../build/dumper/ext", __dir__)]
    dirs.compact.find { |dir| File.exist?(File.join(dir, "memprof.rb")) }
  end

  def start_tracing(mode)
    case mode
    when :memprof, :sampled
      dir = memprof_dir
      $LOAD_PATH.push(dir) if dir && !$LOAD_PATH.include?(dir)
      require "memprof"
      mode == :sampled ? Memprof.start(sample: Memprof::DEFAULT_SAMPLE, seed: @seed) : Memprof.start
    end # :signalled: memprof/signal, loaded from outside, tracks from the start
    ObjectSpace.trace_object_allocations_start if %i[objspace sampled].include?(mode)
  end

  # Except in the signalled child: a full GC first, so that what the dump shows is alive, not
  # garbage not yet swept. The signalled child says it is ready and waits for the go-ahead.
  def dump(path, mode)
    if mode == :signalled
      $stdout.puts("ready for #{File.basename(path)}")
      $stdout.flush
      return $stdin.gets
    end

    GC.start
    if mode == :memprof
      Memprof.dump_all(path) # written to a temporary name, renamed when complete
    else
      File.open("#{path}.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
      File.rename("#{path}.tmp", path)
      Memprof.profile(path.sub(/\.json\z/, ".pb.gz")) if mode == :sampled
    end
  end

  # --signal, as soon as this file is required (the sample's own code has not run: this process
  # only sends signals): runs the sample again as a child that memprof/signal dumps on SIGUSR2,
  # signals it whenever it is ready for a dump, prints the three paths and exits.
  def signal_child(argv = ARGV)
    require "open3"
    outdir, _mode, requests = parse(argv, nil)
    paths = dump_paths(File.basename($PROGRAM_NAME, ".rb"), outdir, :signal)
    dir = memprof_dir or abort "memprof is not built: no memprof.rb on the load path, in " \
                                "$MEMPROF_EXT_DIR or in build/dumper/ext"
    env = { "MEMPROF_SIGNAL" => "USR2", "MEMPROF_DIR" => File.expand_path(outdir), "MEMPROF_TRACK" => "1" }
    command = [RbConfig.ruby, "-I", dir, "-rmemprof/signal", File.expand_path($PROGRAM_NAME), outdir, "--signalled"]
    command.push("--requests", requests.to_s) if requests
    Open3.popen3(env, *command) { |stdin, stdout, stderr, child| signal_dumps(paths, stdin, stdout, stderr, child) }
    puts paths
    exit
  end

  def signal_dumps(paths, stdin, stdout, stderr, child)
    paths.each do |path|
      stdout.gets or abort "the sample ended before #{path}: #{stderr.read}"
      Process.kill("USR2", child.pid)
      File.rename(wrote(stderr), path)
      stdin.puts("go")
    end
    stdin.close
    rest = stderr.read # all of it: a child blocked on a full pipe would never end
    abort "the sample failed: #{rest}" unless child.value.success?
    $stderr.write(rest)
  ensure
    Process.kill(:KILL, child.pid) if child.alive?
  end

  # The file memprof's next "wrote" line names; aborts on its "failed" line or at the end. The
  # child's other lines are passed on.
  def wrote(stderr)
    while (line = stderr.gets)
      return Regexp.last_match(1) if line =~ WROTE
      abort "the dump failed: #{line}" if line.start_with?("memprof: ") && line.include?(" failed: ")
      $stderr.write(line) unless line.start_with?("memprof: dumping ")
    end
    abort "the sample ended before memprof wrote a dump"
  end
end

ThreeDumps.signal_child if ARGV.include?("--signal")
