# frozen_string_literal: true

require "pathname"

# `gem build` reads files relative to where it runs: from the repository root
# (`gem build dumper/memprof.gemspec`) the gem's paths start with "dumper/".
root = Pathname(File.expand_path(__dir__)).relative_path_from(Pathname.pwd)
in_root = ->(path) { root.to_s == "." ? path : File.join(root.to_s, path) }

Gem::Specification.new do |spec|
  spec.name = "memprof"
  spec.version = "0.1.0"
  spec.summary = "Heap dumps with named references and allocation tracking for modern Ruby"
  spec.description = "Memprof.dump_all writes every live object with its references named " \
                     "(ivars, constants, hash keys, array indexes) as JSON Lines, a superset " \
                     "of ObjectSpace.dump_all; Memprof.start/track record allocation sites; " \
                     "memprof/signal dumps a running process on a signal."
  spec.authors = ["memprof + heapq contributors"]
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  spec.files = (Dir.glob("{lib,ext}/**/*.{rb,c,cc,h}", base: __dir__) + ["README.md"]).map(&in_root)
  spec.require_paths = [in_root.call("lib")]
  spec.extensions = [in_root.call("ext/memprof/extconf.rb")]
end
