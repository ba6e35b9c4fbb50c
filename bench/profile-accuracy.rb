# frozen_string_literal: true

# How close sampled profiles come to the truth: samples/sampled_sites.rb profiled with every
# allocation recorded (the truth) and at a rate over SEEDS random seeds; for each site of many
# objects holding 1 % of the heap or more, the largest error of its estimated live objects and
# bytes over the seeds, beside the 10 % the test allows.
# Usage: ruby -I build/dumper/ext -I dumper/lib bench/profile-accuracy.rb [RATE] [SEEDS]
require "memprof"
require "open3"
require "tmpdir"
require_relative "../tests/ruby/pprof_reader"

RATE = Integer(ARGV.fetch(0, Memprof::DEFAULT_SAMPLE.to_s))
SEEDS = Integer(ARGV.fetch(1, "10"))
PROGRAM = File.expand_path("../samples/sampled_sites.rb", __dir__)
LOAD = $LOAD_PATH.select { |d| File.exist?(File.join(d, "memprof.rb")) || File.exist?(File.join(d, "memprof_ext.so")) }

def profile(rate, seed)
  Dir.mktmpdir do |dir|
    out = File.join(dir, "heap.pb.gz")
    _, err, status = Open3.capture3(RbConfig.ruby, *LOAD.flat_map { ["-I", _1] }, PROGRAM, rate.to_s, seed.to_s, out)
    raise err unless status.success?

    PprofReader.new(File.binread(out))
  end
end

def by_site(profile) = profile.inuse_by_line(PROGRAM)

truth = profile(1, 1)
exact = by_site(truth)
heap = truth.totals
big = exact.select { |_, (o, b)| o >= 1000 && (o * 100 >= heap["inuse_objects"] || b * 100 >= heap["inuse_space"]) }
errors = Hash.new { |h, k| h[k] = [0.0, 0.0] }
SEEDS.times do |seed|
  estimate = by_site(profile(RATE, seed + 1))
  big.each do |site, (o, b)|
    got = estimate[site]
    errors[site][0] = [errors[site][0], (got[0] - o).abs / o.to_f].max
    errors[site][1] = [errors[site][1], (got[1] - b).abs / b.to_f].max
  end
end
printf("heap %d objects, %.1f MB; 1 in %d, %d seeds: the largest error of each site (the test allows 10%%)\n",
       heap["inuse_objects"], heap["inuse_space"] / 1e6, RATE, SEEDS)
big.sort_by { -_2[0] }.each do |site, (o, b)|
  printf("  %-28s %8d objects %6.1f MB  objects %5.1f%%  bytes %5.1f%%\n", site, o, b / 1e6, errors[site][0] * 100, errors[site][1] * 100)
end
