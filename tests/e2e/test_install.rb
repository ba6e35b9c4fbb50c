# `cmake --install` with a prefix, as the README says: heapq runs from PREFIX/bin, and Ruby
# finds memprof (and memprof/signal) with RUBYLIB naming the prefix's site directories.
require_relative "helper"

class TestInstall < Test::Unit::TestCase
  include E2E

  def test_install_to_a_prefix
    build = File.dirname(File.dirname(HEAPQ))
    omit("heapq is not in a CMake build tree") unless File.file?(File.join(build, "cmake_install.cmake"))
    prefix = File.join(@tmp, "prefix")
    out, status = Open3.capture2e("cmake", "--install", build, "--prefix", prefix)
    assert(status.success?, out)

    heapq = File.join(prefix, "bin/heapq")
    assert(File.executable?(heapq), "no #{heapq}: #{out}")
    version, status = Open3.capture2e(heapq, "--version")
    assert(status.success?, version)

    site = %w[sitelibdir sitearchdir].map do |key|
      RbConfig::CONFIG[key].sub(%r{\A(/usr/local|#{Regexp.escape(RbConfig::CONFIG['prefix'])})/}, "#{prefix}/")
    end
    assert(File.file?(File.join(site[0], "memprof/signal.rb")), "memprof/signal.rb not installed: #{out}")
    dump = File.join(@tmp, "installed.jsonl")
    env = { "RUBYLIB" => site.join(":") }
    out, status = Open3.capture2e(env, RbConfig.ruby, "-rmemprof/signal", "-e",
                                  "Memprof.dump_all(ARGV[0]); print Memprof::VERSION", dump)
    assert(status.success?, out)
    stats = heapq_json("stats", dump)
    assert_equal("memprof", stats.dig("input", "format"))
    assert_operator(stats.dig("input", "objects"), :>, 1000)
  end
end
