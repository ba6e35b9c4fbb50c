# frozen_string_literal: true

# Sampled allocation tracking (Memprof.start(sample: N)) and its profiles, measured side by
# side in one run: the allocation cost at several rates beside no tracking and full tracking
# (alternating runs, medians), the program's pause for Memprof.profile beside a full GC of the
# same heap, and the memory of memprof's table.
# Usage: ruby -I build/dumper/ext bench/profile-bench.rb [ORDERS] [RUNS]
#        (200000 orders: ~1M objects, ~100k of them sampled at 1 in 10)
require "memprof"
require "stringio"
require_relative "orders"
require_relative "timing"

ORDERS = Integer(ARGV.fetch(0, "200000"))
RUNS = Integer(ARGV.fetch(1, "5"))


# An allocation-heavy loop: short-lived Strings, Arrays and Hashes, one in ten kept a while.
def churn(rounds)
  kept = []
  rounds.times do |i|
    order = { id: i, name: "order #{i}", lines: [i, i + 1] }
    kept << order if (i % 10).zero?
    kept.clear if kept.size > 1000
  end
  kept.size
end

# 1. The allocation cost, by mode.
ROUNDS = 300_000
modes = { "none" => nil, "1 in #{Memprof::DEFAULT_SAMPLE} (default)" => Memprof::DEFAULT_SAMPLE,
          "1 in 10" => 10, "every allocation" => 1, "hooks alone (1 in 2**30)" => Memprof::MAX_SAMPLE }
times = Hash.new { |h, k| h[k] = [] }
churn(10_000)
RUNS.times do
  modes.each do |name, rate|
    Memprof.start(sample: rate) if rate
    times[name] << timed { churn(ROUNDS) }
    Memprof.stop if rate
    GC.start
  end
end
base = median(times["none"])
puts "allocations (#{ROUNDS} rounds, ~#{ROUNDS * 5} allocations, medians of #{RUNS}):"
modes.each_key do |name|
  t = median(times[name])
  printf("  %-24s %.3f s  %+.1f%%\n", name, t, 100 * (t - base) / base)
end

# 2. The pause of a profile and the table's memory, beside a full GC of the same heap.
[Memprof::DEFAULT_SAMPLE, 10].each do |rate|
  Memprof.start(sample: rate)
  store = make_orders(ORDERS)
  GC.start
  pauses = []
  gcs = []
  RUNS.times do
    Memprof.profile(StringIO.new(+"", "wb"))
    pauses << Memprof.sampling[:pause_ms]
    gcs << timed { GC.start } * 1e3
  end
  s = Memprof.sampling
  counts = ObjectSpace.count_objects
  printf("1 in %d: %d live objects, %d sampled; profile pause %.1f ms (median), full GC %.1f ms: %.2fx; " \
         "memprof's table %.1f MB\n",
         rate, counts[:TOTAL] - counts[:FREE], s[:live], median(pauses), median(gcs),
         median(pauses) / median(gcs), s[:bytes] / 1e6)
  Memprof.stop
  store.clear
  GC.start
end
