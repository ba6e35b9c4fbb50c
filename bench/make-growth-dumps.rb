# Writes three ObjectSpace heap dumps of one growing process for the leaks and diff benchmarks:
# the benchmark heap (bench/orders.rb) of COUNT orders, then COUNT/20 more orders before each of
# the next two dumps, allocated with tracing on (about 1M records a dump for COUNT 190000).
# Usage: ruby bench/make-growth-dumps.rb PREFIX [COUNT]   (writes PREFIX-1.json .. PREFIX-3.json)
require "objspace"
require_relative "orders"

prefix = ARGV.fetch(0) { abort "usage: ruby #{$0} PREFIX [COUNT]" }
count = Integer(ARGV.fetch(1, "190000"))

ObjectSpace.trace_object_allocations_start
STORE = make_orders(count)
step = count / 20
(1..3).each do |n|
  (count + (n - 2) * step...count + (n - 1) * step).each { |i| STORE["order-#{i}"] = Order.new(i) } if n > 1
  GC.start
  File.open("#{prefix}-#{n}.json.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
  File.rename("#{prefix}-#{n}.json.tmp", "#{prefix}-#{n}.json")
end
