# Writes a big ObjectSpace heap dump for the benchmarks: a process that holds COUNT small
# objects in a Hash (each with two Strings and an Array), allocated with tracing on.
# Usage: ruby bench/make-dump.rb OUTPUT [COUNT]   (COUNT 200000 gives about 1M records)
require "objspace"

output = ARGV.fetch(0) { abort "usage: ruby #{$0} OUTPUT [COUNT]" }
count = Integer(ARGV.fetch(1, "200000"))

class Order
  def initialize(id)
    @id = id
    @customer = "customer-#{id % 1000}"
    @tags = [:new, :paid]
    @note = "note #{id}"
  end
end

ObjectSpace.trace_object_allocations_start
STORE = {}
count.times { |i| STORE["order-#{i}"] = Order.new(i) }
ObjectSpace.trace_object_allocations_stop

GC.start
File.open("#{output}.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
File.rename("#{output}.tmp", output)
