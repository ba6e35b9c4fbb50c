# Writes an ObjectSpace heap dump of a process that holds a long linked list (a Ruby LRU's
# shape: each node refers to the next by @next), for the path benchmarks.
# Usage: ruby bench/make-list-dump.rb OUTPUT [LENGTH]   (default 100000 nodes)
# Also writes OUTPUT.last: the address of the list's last node.
require "json"
require "objspace"

class LruNode
  attr_accessor :next
  def initialize(key)
    @key = key
  end
end

class Lru
  attr_reader :tail
  def initialize(length)
    @head = node = LruNode.new("key-0")
    (1...length).each { |i| node = node.next = LruNode.new("key-#{i}") }
    @tail = node
  end
end

output = ARGV.fetch(0) { abort "usage: ruby #{$0} OUTPUT [LENGTH]" }
LIST = Lru.new(Integer(ARGV.fetch(1, "100000")))
File.write("#{output}.last", JSON.parse(ObjectSpace.dump(LIST.tail))["address"])
GC.start
File.open("#{output}.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
File.rename("#{output}.tmp", output)
