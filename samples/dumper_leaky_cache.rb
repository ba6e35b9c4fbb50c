# frozen_string_literal: true

# A small leaky program for the memprof dumper: a request handler that memoizes every
# response in a class-level Hash that is never pruned. Writes two memprof dumps (before and
# after more requests) so that heapq's leaks/diff can show the growing cache and its site.
# Usage: ruby -I build/dumper/ext samples/dumper_leaky_cache.rb OUTDIR [REQUESTS]
require "memprof"

class ResponseCache
  STORE = {} # the leak: keyed by the full request, never evicted

  def self.fetch(request)
    STORE[request] ||= yield
  end
end

class Handler
  def call(request)
    ResponseCache.fetch(request) { { body: "response to #{request}", headers: ["x-id", request] } }
  end
end

outdir = ARGV.fetch(0) { abort "usage: ruby #{$PROGRAM_NAME} OUTDIR [REQUESTS]" }
requests = Integer(ARGV.fetch(1, "2000"))
handler = Handler.new

Memprof.start
2.times do |round|
  requests.times { |i| handler.call("GET /items/#{round}-#{i}") }
  GC.start
  path = File.join(outdir, "dumper_leaky_cache.#{round + 1}.jsonl")
  Memprof.dump_all(path)
  puts path
end
Memprof.stats($stderr) if ENV["MEMPROF_STATS"]
Memprof.stop
