# frozen_string_literal: true

# What always-on sampling costs a Rails app: requests per second and p99 latency of a small
# ActionController app on Debian's rails (ruby-railties), served in-process through Rack, with
# no tracking, with the NEWOBJ/FREEOBJ hooks alone, with sampling at the default rate and at 1
# in 10, and with full tracking; the modes alternate in rounds, and the figures are medians of
# the rounds. Then the table's memory and a profile's pause at the default rate.
# Usage: ruby -I build/dumper/ext -I dumper/lib bench/profile-rails-bench.rb [REQUESTS] [ROUNDS]
#
# With --instructions [REQUESTS], each mode runs in a process of its own under valgrind's
# callgrind, which counts the instructions of the requests alone (a short sleep before and
# after them makes callgrind write its counts, --dump-before=rb_thread_wait_for, which Rails
# never calls): figures that do not depend on what else the machine runs, the cost of each
# mode as a ratio to no tracking.
require "memprof"
require "action_controller/railtie"
require "rack/mock"
require "stringio"
require_relative "timing"

INSTRUCTIONS = ARGV.delete("--instructions")
ONE_MODE = (i = ARGV.index("--mode")) && ARGV.slice!(i, 2).last
REQUESTS = Integer(ARGV.fetch(0, INSTRUCTIONS || ONE_MODE ? "200" : "2000"))
ROUNDS = Integer(ARGV.fetch(1, "5"))
MODES = { "no tracking" => nil, "hooks alone (1 in 2**30)" => Memprof::MAX_SAMPLE,
          "1 in #{Memprof::DEFAULT_SAMPLE} (default)" => Memprof::DEFAULT_SAMPLE, "1 in 10" => 10,
          "every allocation" => 1 }.freeze

# The instructions of REQUESTS requests in each mode, each in a process under callgrind.
if INSTRUCTIONS
  require "rbconfig"
  memprof_dirs = $LOADED_FEATURES.grep(%r{/memprof(_ext\.so|\.rb)\z}).flat_map { |f| ["-I", File.dirname(f)] }
  require "tmpdir"
  counts = Dir.mktmpdir do |dir|
    MODES.to_h do |name, rate|
      out = File.join(dir, "callgrind.#{rate}")
      log = IO.popen(["valgrind", "--tool=callgrind", "--dump-before=rb_thread_wait_for", "--callgrind-out-file=#{out}",
                      RbConfig.ruby, *memprof_dirs, __FILE__, "--mode", rate.to_s, REQUESTS.to_s],
                     err: %i[child out], &:read)
      summary = File.exist?("#{out}.2") && File.read("#{out}.2")[/^summary: (\d+)/, 1]
      [name, Integer(summary || abort("callgrind wrote no counts of the requests: #{log}"))]
    end
  end
  base = counts["no tracking"]
  puts "#{REQUESTS} requests, instructions (callgrind), Ruby #{RUBY_VERSION}:"
  counts.each do |name, n|
    printf("  %-26s %12d instructions, %8d a request (%+5.1f%%)\n", name, n, n / REQUESTS, 100.0 * (n - base) / base)
  end
  exit
end

class ShopApp < Rails::Application
  config.eager_load = false
  config.logger = Logger.new(nil)
  config.secret_key_base = "0" * 64
  config.hosts.clear
  routes.append { get "/products/:id" => "products#show" }
end
ShopApp.initialize!

class ProductsController < ActionController::Base
  PRODUCTS = Array.new(100) { |i| { id: i, name: "Product #{i}", price: i * 100, tags: %w[new sale] } }

  def show
    product = PRODUCTS.fetch(params[:id].to_i % PRODUCTS.size)
    related = PRODUCTS.sample(5, random: Random.new(product[:id])).map { |p| p.slice(:id, :name) }
    render json: { product: product, related: related, at: params[:at] }
  end
end

APP = Rack::MockRequest.new(ShopApp)


# [requests per second, p99 latency in ms] of one run of REQUESTS requests.
def serve(count)
  latencies = Array.new(count)
  started = now
  count.times do |i|
    t = now
    response = APP.get("/products/#{i}?at=#{i}")
    raise "HTTP #{response.status}" unless response.status == 200

    latencies[i] = now - t
  end
  [count / (now - started), latencies.sort[(count * 0.99).floor] * 1e3]
end

# One mode's requests, between two sleeps, where callgrind writes its counts (--instructions).
if ONE_MODE
  rate = ONE_MODE.empty? ? nil : Integer(ONE_MODE)
  serve(100) # warm up
  Memprof.start(sample: rate) if rate
  serve(50)
  GC.start
  sleep(0.001)
  serve(REQUESTS)
  sleep(0.001)
  exit
end

modes = MODES
serve(REQUESTS / 4) # warm up: routes, caches, compiled code
results = Hash.new { |h, k| h[k] = [] }
ROUNDS.times do
  modes.each do |name, rate|
    Memprof.start(sample: rate) if rate
    results[name] << serve(REQUESTS)
    Memprof.stop if rate
    GC.start
  end
end
base_rps = median(results["no tracking"].map(&:first))
base_p99 = median(results["no tracking"].map(&:last))
puts "#{REQUESTS} requests x #{ROUNDS} rounds (medians), Ruby #{RUBY_VERSION}:"
modes.each_key do |name|
  rps = median(results[name].map(&:first))
  p99 = median(results[name].map(&:last))
  printf("  %-26s %7.0f requests/s (%+5.1f%%)  p99 %6.2f ms (%+5.1f%%)\n", name, rps, 100 * (rps - base_rps) / base_rps,
         p99, 100 * (p99 - base_p99) / base_p99)
end

Memprof.start(sample: Memprof::DEFAULT_SAMPLE)
serve(REQUESTS)
GC.start
Memprof.profile(StringIO.new(+"", "wb"))
s = Memprof.sampling
counts = ObjectSpace.count_objects
printf("at 1 in %d: %d live objects, %d recorded; memprof's table %.1f MB; a profile's pause %.1f ms\n",
       s[:sample], counts[:TOTAL] - counts[:FREE], s[:live], s[:bytes] / 1e6, s[:pause_ms])
