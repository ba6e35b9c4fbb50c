# A heap with a finalizer on each of N objects (default 1M): Memprof.dump_all's time and peak
# extra memory, which naming the finalizers root must not make grow faster than the table.
# Usage: ruby -I build/dumper/ext bench/finalizers-bench.rb [N] [OUTPUT]
#        (then, for heapq's side: /usr/bin/time -f "%e s %M KB" build/bin/heapq stats OUTPUT)
require "memprof"

n = Integer(ARGV.fetch(0, "1000000"))
output = ARGV.fetch(1, "/tmp/finalizers-bench.jsonl")
finalizer = proc {}
objects = Array.new(n) { Object.new }
objects.each { |o| ObjectSpace.define_finalizer(o, finalizer) }
GC.start

def peak_mb = File.read("/proc/self/status")[/VmHWM:\s+(\d+)/, 1].to_i / 1024

before = peak_mb
start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
Memprof.dump_all(output)
seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
puts format("%d finalizers: Memprof.dump_all %.2f s, peak RSS +%d MB, %s (%d MB)",
            n, seconds, peak_mb - before, output, File.size(output) / 1_000_000)
