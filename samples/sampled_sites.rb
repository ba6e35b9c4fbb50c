# A deterministic program for the accuracy of sampled profiles (tests/ruby/test_profiles.rb,
# bench/profile-accuracy.rb): Items with their Strings, Arrays of many sizes, Hashes and long
# Strings kept, by line, and garbage beside them; then a profile of the heap to OUT, sampled
# at one allocation in SAMPLE with the random seed SEED.
#
#   ruby -I build/dumper/ext -I dumper/lib samples/sampled_sites.rb SAMPLE SEED OUT
require "memprof"
sample, seed, out = ARGV
Memprof.start(sample: Integer(sample), seed: Integer(seed), stack: 4)
KEEP = []
Item = Struct.new(:id, :name)
def items(n) = n.times { |i| KEEP << Item.new(i, "item #{i}") }
def arrays(n) = n.times { |i| KEEP << Array.new(i % 24) { |j| j } }
def hashes(n) = n.times { |i| KEEP << { i => i.to_s, k: [i] } }
def texts(n) = n.times { |i| KEEP << "x" * (100 + i * 37 % 4000) }
def garbage(n) = n.times { |i| "garbage #{i}" * 2 }
items(150_000)
garbage(200_000)
arrays(40_000)
hashes(25_000)
texts(25_000)
GC.start
Memprof.profile(out)
