# A fork: true dump with the garbage left out (the default: the child marks from the roots and
# writes only what they reach) beside MEMPROF_GC=0 (everything in the heap, as ObjectSpace
# writes it), side by side in one run, on a heap of LIVE live Strings and GARBAGE garbage Arrays
# made with GC off. Prints each dump's time (fork to the child's exit) and records.
#
#   ruby -I build/dumper/ext bench/fork-garbage-bench.rb [LIVE] [GARBAGE] [ROUNDS]
require "memprof"
require "tmpdir"

live = Integer(ARGV.fetch(0, "1000000"))
garbage = Integer(ARGV.fetch(1, "300000"))
rounds = Integer(ARGV.fetch(2, "2"))
keep = Array.new(live) { |i| "live #{i}" }
times = Hash.new { |h, k| h[k] = [] }
records = {}
Dir.mktmpdir("memprof-bench") do |dir|
  rounds.times do
    %w[1 0].each do |setting|
      GC.start
      GC.disable # the garbage stays in the heap until the fork
      # Emptied, not dropped: a stale word on the stack may still point at the outer Array.
      Array.new(garbage) { |i| [i] }.clear
      ENV["MEMPROF_GC"] = setting
      path = File.join(dir, "heap-#{setting}.jsonl")
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      Process.wait(Memprof.dump_all(path, fork: true))
      times[setting] << Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      GC.enable
      records[setting] = File.foreach(path).count
    end
  end
end
%w[1 0].each do |setting|
  label = setting == "1" ? "garbage left out (default)" : "MEMPROF_GC=0              "
  printf("%s %s s, %d records\n", label, times[setting].map { |t| format("%.2f", t) }.join(" / "), records[setting])
end
printf("ratio (left out / kept), best of each: %.2fx\n", times["1"].min / times["0"].min)
puts "(#{keep.size} live Strings, #{garbage} garbage Arrays in each heap)"
