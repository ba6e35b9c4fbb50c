# Writes three ObjectSpace heap dumps of one process in which GROUPS allocation sites leak
# (tracing on): each site adds 15 Objects before each of the last two dumps, into an Array of
# its own, except every fourth site, whose Objects go to one Array the sites share. Beside them,
# a base heap of BASE Strings that never changes. For heapq leaks --top 0 (every growing group).
# Usage: ruby bench/make-many-groups.rb PREFIX [GROUPS] [BASE]   (writes PREFIX-1.json .. -3.json)
require "objspace"

prefix = ARGV.fetch(0) { abort "usage: ruby #{$0} PREFIX [GROUPS] [BASE]" }
groups = Integer(ARGV.fetch(1, "2000"))
base = Integer(ARGV.fetch(2, "300000"))

BASE = Array.new(base) { |i| "base string #{i}" }
HOLDERS = Array.new(groups) { [] }
SHARED = []
# One method per site, each on a line of its own: a group (class, file:line) per site.
SITES = Module.new
SITES.module_eval((1..groups).map { |i| "def self.leak_#{i}(into) = into << Object.new\n" }.join, "app/sites.rb", 1)

ObjectSpace.trace_object_allocations_start
(1..3).each do |n|
  if n > 1
    groups.times do |i|
      into = (i % 4).zero? ? SHARED : HOLDERS[i]
      15.times { SITES.send(:"leak_#{i + 1}", into) }
    end
  end
  GC.start
  File.open("#{prefix}-#{n}.json.tmp", "w") { |f| ObjectSpace.dump_all(output: f) }
  File.rename("#{prefix}-#{n}.json.tmp", "#{prefix}-#{n}.json")
end
