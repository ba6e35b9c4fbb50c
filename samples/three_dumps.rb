# Shared by the leak samples: the three-dump technique. A sample defines its program, then
# calls ThreeDumps.run, which traces allocations, runs the sample's warm-up, dumps the heap (1),
# runs REQUESTS requests, dumps (2), runs REQUESTS more, dumps (3):
#
#   ruby samples/NAME.rb OUTDIR [--memprof] [--requests N]
#
# writes OUTDIR/NAME-1.json .. NAME-3.json with ObjectSpace.dump_all (allocation tracing on),
# or with --memprof OUTDIR/NAME-1.jsonl .. NAME-3.jsonl with Memprof.dump_all (Memprof.start).
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
  USAGE = "usage: ruby %s OUTDIR [--memprof] [--requests N]"

  module_function

  # name: the sample's name (the dumps' prefix); requests: requests between two dumps;
  # warm_up: run once before dump 1; the block handles request number i (0, 1, ...).
  def run(name, requests:, warm_up: nil, argv: ARGV, &request)
    outdir, memprof, requests = parse(argv, requests)
    # Made before tracing starts: what the harness keeps is not part of the sample's heap.
    paths = (1..3).map { |n| File.join(outdir, "#{name}-#{n}.#{memprof ? 'jsonl' : 'json'}") }
    start_tracing(memprof)
    in_thread { warm_up&.call }
    dump(paths[0], memprof)
    in_thread { requests.times { |i| request.call(i) } }
    dump(paths[1], memprof)
    in_thread { requests.times { |i| request.call(requests + i) } }
    dump(paths[2], memprof)
    puts paths
    paths
  end

  def in_thread(&block)
    Thread.new(&block).join
    nil
  end

  def parse(argv, requests)
    args = argv.dup
    memprof = !args.delete("--memprof").nil?
    if (at = args.index("--requests"))
      requests = Integer(args[at + 1])
      args.slice!(at, 2)
    end
    abort format(USAGE, $PROGRAM_NAME) unless args.size == 1
    outdir = args.first
    Dir.mkdir(outdir) unless File.directory?(outdir)
    [outdir, memprof, requests]
  end

  def start_tracing(memprof)
    if memprof
      [ENV["MEMPROF_EXT_DIR"], File.expand_path("../build/dumper/ext", __dir__)].each do |dir|
        $LOAD_PATH.push(dir) if dir && File.exist?(File.join(dir, "memprof.rb"))
      end
      require "memprof"
      Memprof.start
    else
      ObjectSpace.trace_object_allocations_start
    end
  end

  # A full GC first: what the dump shows is alive, not garbage not yet swept.
  def dump(path, memprof)
    GC.start
    if memprof
      Memprof.dump_all(path) # written to a temporary name, renamed when complete
    else
      File.open("#{path}.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
      File.rename("#{path}.tmp", path)
    end
  end
end
