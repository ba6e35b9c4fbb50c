# Peak extra memory of one dump whose heap holds one huge container (a 6M-element Array, or a
# 1M-key Hash), Memprof.dump_all beside ObjectSpace.dump_all, each in a Ruby of its own: the
# growth of the process's peak RSS (VmHWM) over the dump; and for Memprof.dump_all(fork: true)
# the dump child's peak RSS (getrusage's ru_maxrss of the waited child) over the parent's RSS,
# which the child starts with.
#
#   ruby -I build/dumper/ext bench/dump-memory-bench.rb
require "rbconfig"

# ru_maxrss of the largest waited-for child, in MB (struct rusage: two timevals, then it).
def children_max_rss
  require "fiddle"
  getrusage = Fiddle::Function.new(Fiddle.dlopen(nil)["getrusage"],
                                   [Fiddle::TYPE_INT, Fiddle::TYPE_VOIDP], Fiddle::TYPE_INT)
  usage = Fiddle::Pointer.malloc(256, Fiddle::RUBY_FREE)
  raise "getrusage failed" unless getrusage.call(-1, usage).zero? # RUSAGE_CHILDREN

  usage[32, 8].unpack1("q") / 1024.0
end

if ARGV.size == 2 # one measurement, in this process
  require "memprof"
  require "objspace"
  require "tmpdir"
  status = -> { File.read("/proc/self/status") }
  hwm = -> { status.call[/VmHWM:\s+(\d+)/, 1].to_i / 1024.0 }
  rss = -> { status.call[/VmRSS:\s+(\d+)/, 1].to_i / 1024.0 }
  big = if ARGV[0] == "array"
          Array.new(6_000_000) { |i| i.to_s }
        else
          (0...1_000_000).to_h { |i| [i.to_s, i.to_s] }
        end
  GC.start
  before = hwm.call
  Dir.mktmpdir do |dir|
    case ARGV[1]
    when "ObjectSpace"
      File.open(File.join(dir, "heap.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
    when "fork"
      before = rss.call
      Process.wait(Memprof.dump_all(File.join(dir, "heap.jsonl"), fork: true))
      raise "the dump child failed" unless $?.success?

      printf("%.0f %.0f %d\n", children_max_rss - before, before, big.size)
      exit
    else
      Memprof.dump_all(File.join(dir, "heap.jsonl"))
    end
  end
  printf("%.0f %.0f %d\n", hwm.call - before, before, big.size)
  exit
end

load_path = $LOAD_PATH.select { |dir| File.exist?(File.join(dir, "memprof_ext.so")) || File.exist?(File.join(dir, "memprof.rb")) }
%w[array hash].each do |container|
  figures = %w[memprof fork ObjectSpace].to_h do |dumper|
    out = IO.popen([RbConfig.ruby, *load_path.flat_map { |d| ["-I", d] }, __FILE__, container, dumper], &:read)
    [dumper, out.split.map(&:to_f)]
  end
  label = container == "array" ? "6M-element Array" : "1M-key Hash     "
  printf("%s: peak RSS during the dump +%.0f MB with memprof (+%.0f MB in a fork: true child), " \
         "+%.0f MB with ObjectSpace (heap %.0f MB)\n",
         label, figures["memprof"][0], figures["fork"][0], figures["ObjectSpace"][0], figures["memprof"][1])
end
