# Writes a big ObjectSpace heap dump for the benchmarks: a process that holds COUNT small
# objects in a Hash (each with two Strings and an Array), allocated with tracing on.
# Usage: ruby bench/make-dump.rb OUTPUT [COUNT]   (COUNT 200000 gives about 1M records)
require "objspace"
require_relative "orders"

output = ARGV.fetch(0) { abort "usage: ruby #{$0} OUTPUT [COUNT]" }
count = Integer(ARGV.fetch(1, "200000"))

ObjectSpace.trace_object_allocations_start
STORE = make_orders(count)
ObjectSpace.trace_object_allocations_stop

GC.start
File.open("#{output}.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
File.rename("#{output}.tmp", output)
