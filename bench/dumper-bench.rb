# frozen_string_literal: true

# Memprof vs ObjectSpace on one heap: dump_all time and size (alternating runs), the parent's
# pause with fork: true, peak extra memory (bench/dump-memory-bench.rb) and allocation-tracking
# overhead, and formatting alone into /dev/null by the dumping thread's CPU time. Prints figures
# side by side.
# Usage: ruby -I build/dumper/ext bench/dumper-bench.rb [--replace | --fresh] [ORDERS] [RUNS]
#        (250000 orders: ~1.3M objects; --replace: only the overwrite figures; --fresh: only
#        the fresh figures and the line counts, as bench/peers-bench.sh reads them)
# Both medians and best times are printed: on a shared machine single runs vary by 2x.
require "memprof"
require "objspace"
require "tmpdir"
require_relative "orders"
require_relative "timing"

REPLACE = !ARGV.delete("--replace").nil?
FRESH = !ARGV.delete("--fresh").nil?
ORDERS = Integer(ARGV.fetch(0, "250000"))
RUNS = Integer(ARGV.fetch(1, "5"))

def mb(bytes) = format("%.1f MB", bytes / 1e6)

store = make_orders(ORDERS)
GC.start
counts = ObjectSpace.count_objects
puts "heap: #{counts[:TOTAL] - counts[:FREE]} live objects, ruby #{RUBY_VERSION}"

require "zlib"

# One way of dumping, memprof beside ObjectSpace, alternating runs:
#   fresh:     both write new files (the dumpers' own cost)
#   overwrite: both write over the previous run's file (what a dump loop does; ext4 forces the
#              writeback of a file renamed or truncated over an old one: auto_da_alloc)
#   gzip:      memprof writes heap.jsonl.gz (level 1, compressed on its writer thread);
#              ObjectSpace (which takes no IO wrapper) writes a file that Zlib::GzipWriter
#              then compresses at the same level
def compare(mode, dir, runs)
  memprof_path = File.join(dir, mode == :gzip ? "memprof.jsonl.gz" : "memprof.jsonl")
  objspace_path = File.join(dir, mode == :gzip ? "objspace.json.gz" : "objspace.json")
  memprof_times = []
  objspace_times = []
  runs.times do
    [memprof_path, objspace_path].each { |p| File.unlink(p) if File.exist?(p) } unless mode == :overwrite
    memprof_times << timed { Memprof.dump_all(memprof_path) }
    objspace_times << timed do
      if mode == :gzip
        plain = File.join(dir, "objspace-plain.json")
        File.open(plain, "w") { |f| ObjectSpace.dump_all(output: f) }
        Zlib::GzipWriter.open(objspace_path, Zlib::BEST_SPEED) { |gz| File.open(plain) { |f| IO.copy_stream(f, gz) } }
        File.unlink(plain)
      else
        File.open(objspace_path, "w") { |f| ObjectSpace.dump_all(output: f) }
      end
    end
  end
  memprof = median(memprof_times)
  objspace = median(objspace_times)
  printf("%-9s median: memprof %.3f s (%s), ObjectSpace %.3f s (%s), ratio %.2fx; best %.3f s vs %.3f s (%.2fx)\n",
         mode, memprof, mb(File.size(memprof_path)), objspace, mb(File.size(objspace_path)),
         memprof / objspace, memprof_times.min, objspace_times.min, memprof_times.min / objspace_times.min)
  objspace
end

# Formatting alone: both dumpers into /dev/null (an open IO: nothing is renamed or removed),
# timed by the dumping thread's own CPU clock, which the disk and the machine's other work
# move far less than wall time.
def thread_cpu = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)

def formatting(runs)
  memprof = []
  objspace = []
  File.open(File::NULL, "w") do |null|
    runs.times do
      start = thread_cpu
      Memprof.dump_all(null)
      memprof << thread_cpu - start
      start = thread_cpu
      ObjectSpace.dump_all(output: null)
      objspace << thread_cpu - start
    end
  end
  printf("into /dev/null, the dumping thread's CPU time, median: memprof %.3f s, ObjectSpace %.3f s, ratio %.2fx\n",
         median(memprof), median(objspace), median(memprof) / median(objspace))
end

formatting(RUNS) unless REPLACE

Dir.mktmpdir("memprof-bench") do |dir|
  modes = [:fresh, :overwrite, :gzip]
  modes = [:overwrite] if REPLACE
  modes = [:fresh] if FRESH
  objspace = modes.map { |mode| compare(mode, dir, RUNS) }.first
  memprof_path = File.join(dir, "memprof.jsonl")
  printf("lines: memprof %d, ObjectSpace %d (target for fresh and overwrite: ratio <= 0.67x)\n",
         File.foreach(memprof_path).count, File.foreach(File.join(dir, "objspace.json")).count)
  exit if FRESH

  pauses = []
  RUNS.times do
    pid = nil
    File.unlink(memprof_path) if File.exist?(memprof_path)
    pauses << timed { pid = Memprof.dump_all(memprof_path, fork: true) }
    child = timed { Process.wait(pid) }
    raise "forked dump failed" unless $?.success?

    printf("fork: true: parent pause %.4f s, child finished %.3f s later\n", pauses.last, child)
  end
  printf("fork: true parent pause median %.4f s = %.1f%% of ObjectSpace.dump_all (target <= 5%%)\n",
         median(pauses), 100 * median(pauses) / objspace)
end

# Peak extra memory of a dump, in process and in a fork: true child (each in a Ruby of its own).
memprof_dirs = $LOAD_PATH.select { |d| File.exist?(File.join(d, "memprof_ext.so")) || File.exist?(File.join(d, "memprof.rb")) }
system(RbConfig.ruby, *memprof_dirs.flat_map { |d| ["-I", d] }, File.join(__dir__, "dump-memory-bench.rb"),
       exception: true)

store = nil # rubocop:disable Lint/UselessAssignment
GC.start

# Allocation-heavy loop: strings, arrays, hashes and objects, most of them short-lived.
def churn(rounds)
  kept = []
  rounds.times do |i|
    s = "item #{i}"
    a = [s, i]
    h = { s => a }
    o = Order.allocate
    kept << h if (i % 100).zero?
    o.hash
  end
  kept.size
end

ROUNDS = 300_000
churn(10_000) # warm up
base = []
with_memprof = []
without_stacks = []
with_objspace = []
RUNS.times do
  base << timed { churn(ROUNDS) }
  Memprof.start(stack: Memprof::DEFAULT_STACK)
  with_memprof << timed { churn(ROUNDS) }
  Memprof.stop
  Memprof.start(stack: 0)
  without_stacks << timed { churn(ROUNDS) }
  Memprof.stop
  ObjectSpace.trace_object_allocations_start
  with_objspace << timed { churn(ROUNDS) }
  ObjectSpace.trace_object_allocations_stop
  ObjectSpace.trace_object_allocations_clear
  GC.start
end
b = median(base)
m = median(with_memprof)
n = median(without_stacks)
o = median(with_objspace)
printf("tracking (%d rounds, ~%d allocations): untracked %.3f s, Memprof.start %.3f s (+%.0f%%; " \
       "stacks of %s frames), Memprof.start(stack: 0) %.3f s (+%.0f%%), " \
       "ObjectSpace.trace_object_allocations %.3f s (+%.0f%%)\n",
       ROUNDS, ROUNDS * 6, b, m, 100 * (m - b) / b, Memprof.stack_depths(Memprof::DEFAULT_STACK).join(".."), n, 100 * (n - b) / b,
       o, 100 * (o - b) / b)
