# Peak extra memory of one dump whose heap holds one huge container (a 6M-element Array, or a
# 1M-key Hash), Memprof.dump_all beside ObjectSpace.dump_all, each in a Ruby of its own: the
# growth of the process's peak RSS (VmHWM) over the dump.
#
#   ruby -I build/dumper/ext bench/dump-memory-bench.rb
require "rbconfig"

if ARGV.size == 2 # one measurement, in this process
  require "memprof"
  require "objspace"
  require "tmpdir"
  hwm = -> { File.read("/proc/self/status")[/VmHWM:\s+(\d+)/, 1].to_i / 1024.0 }
  big = if ARGV[0] == "array"
          Array.new(6_000_000) { |i| i.to_s }
        else
          (0...1_000_000).to_h { |i| [i.to_s, i.to_s] }
        end
  GC.start
  before = hwm.call
  Dir.mktmpdir do |dir|
    if ARGV[1] == "ObjectSpace"
      File.open(File.join(dir, "heap.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
    else
      Memprof.dump_all(File.join(dir, "heap.jsonl"))
    end
  end
  printf("%.0f %.0f %d\n", hwm.call - before, before, big.size)
  exit
end

load_path = $LOAD_PATH.select { |dir| File.exist?(File.join(dir, "memprof_ext.so")) || File.exist?(File.join(dir, "memprof.rb")) }
%w[array hash].each do |container|
  figures = %w[memprof ObjectSpace].to_h do |dumper|
    out = IO.popen([RbConfig.ruby, *load_path.flat_map { |d| ["-I", d] }, __FILE__, container, dumper], &:read)
    [dumper, out.split.map(&:to_f)]
  end
  label = container == "array" ? "6M-element Array" : "1M-key Hash     "
  printf("%s: peak RSS during the dump +%.0f MB with memprof, +%.0f MB with ObjectSpace (heap %.0f MB)\n",
         label, figures["memprof"][0], figures["ObjectSpace"][0], figures["memprof"][1])
end
