# How deep memprof's allocation stacks must go for heapq to name the application's line, and
# what depth costs: for each stack setting, side by side, on the Rails-like samples (three
# dumps each, by Memprof.dump_all) and on an allocation loop:
#
#   leaks app  share of the leaking objects (every row of `heapq leaks`) that heapq names an app
#              line for (app_count / count: a row's objects from its most common app line)
#   live app   share of the last dump's objects with a stack whose stack reaches an application
#              frame (heapq's is_app_path, no --app-root; `heapq sites --by app`)
#   dump 3     the last dump's size
#   requests   CPU time of the sample's requests between dump 1 and dump 3 (bench/request-timer.rb)
#   loop       the allocation loop's time, allocating 40 frames below the app's line in a gem's
#              file (as ActiveRecord does) and in the app's own frame
#
#   ruby -I build/dumper/ext bench/stack-depth-bench.rb [--heapq build/bin/heapq] [--runs N] [PROGRAM.rb ...]
#
# PROGRAMs default to samples/{rails_fragments,sidekiq_rates,rails_controller,rack_subscriber,
# query_cache}.rb (those that exist); requests and the loop: the median of N runs (3).
require "json"
require "open3"
require "rbconfig"
require_relative "timing"
require "tmpdir"
require "memprof"

ROOT = File.expand_path("..", __dir__)
# MEMPROF_STACK's values: fixed depths, "until app" (up to the app's first frame and 2 more),
# and 8..64 (at least 8 frames, then until the app's).
SETTINGS = { "no stacks" => "0", "8" => "8..8", "16" => "16..16", "32" => "32..32", "64" => "64..64",
             "until app" => "0..64", "8..64" => "8..64" }.freeze
DEFAULT = Memprof.stack_depths(Memprof::DEFAULT_STACK).join("..")

args = ARGV.dup
heapq = (at = args.index("--heapq")) ? args.slice!(at, 2).last : File.join(ROOT, "build/bin/heapq")
runs = (at = args.index("--runs")) ? Integer(args.slice!(at, 2).last) : 3
programs = args
if programs.empty?
  programs = %w[rails_fragments sidekiq_rates rails_controller rack_subscriber query_cache]
             .map { |name| File.join(ROOT, "samples", "#{name}.rb") }.select { |path| File.exist?(path) }
end
memprof_dir = File.dirname($LOAD_PATH.resolve_feature_path("memprof").last)
abort "no heapq at #{heapq}: build it (cmake --build build --target heapq)" unless File.executable?(heapq)


def heapq_json(heapq, *args)
  out, err, status = Open3.capture3(heapq, "--format", "json", "--quiet", *args)
  raise "heapq #{args.first}: #{err}" unless status.success?

  JSON.parse(out)
end

# Share of the leaks' objects whose stack names an app line, and of the last dump's objects with
# a stack.
def app_shares(heapq, dumps)
  rows = heapq_json(heapq, "leaks", *dumps)["leaks"].flat_map { |leak| leak["holds"] }
  leaks = rows.sum { |row| row["count"] }.zero? ? nil : rows.sum { |row| row["app_count"] }.fdiv(rows.sum { |row| row["count"] })
  groups = heapq_json(heapq, "sites", "--by", "app", "--top", "0", dumps.last)["sites"]
  without_app = groups.find { |g| g["file"].nil? }&.fetch("count") || 0
  objects = groups.sum { |g| g["count"] }
  stacked = File.foreach(dumps.last).count { |line| line.start_with?('{"address"') && line.include?('"stack":') }
  [leaks, stacked.zero? ? nil : (objects - without_app).fdiv(stacked)]
end

def run_sample(program, stack, memprof_dir, outdir)
  env = { "MEMPROF_STACK" => stack }
  command = [RbConfig.ruby, "-I", memprof_dir, "-r", File.join(__dir__, "request-timer.rb"), program, outdir, "--memprof"]
  out, err, status = Open3.capture3(env, *command)
  raise "#{program}: #{err}" unless status.success?

  [out.split("\n").last(3), Float(err[/^requests: ([\d.]+) s$/, 1])]
end

def percent(share) = share ? format("%5.1f%%", 100 * share) : "     -"

programs.each do |program|
  name = File.basename(program, ".rb")
  puts "#{name}:"
  puts "  stack             leaks app  live app   dump 3    requests"
  SETTINGS.each do |label, stack|
    Dir.mktmpdir("stack-bench") do |dir|
      dumps = nil
      times = Array.new(runs) { dumps, seconds = run_sample(program, stack, memprof_dir, dir); seconds }
      leaks, live = app_shares(heapq, dumps)
      label += " (default)" if stack == DEFAULT
      printf("  %-16s %9s %9s %7.1f MB %7.3f s\n", label, percent(leaks), percent(live),
             File.size(dumps.last) / 1e6, median(times))
    end
  end
end

# The allocation loop: a gem's method 40 frames below the app's line allocates (as
# ActiveRecord::Result.new in Rails: 13 levels of a method, a method it calls and its block),
# and the app's own line allocates.
LOOP_ROUNDS = 300_000
Dir.mktmpdir("stack-bench") do |dir|
  gem = File.join(dir, "gems", "framework-7.1.3", "lib", "framework.rb")
  FileUtils.mkdir_p(File.dirname(gem))
  File.write(gem, <<~RUBY)
    module Framework
      def self.query(depth, rounds) = depth.zero? ? rounds.times { [Object.new, "row"] } : around { query(depth - 1, rounds) }
      def self.around = yield
    end
  RUBY
  load gem
  app = File.join(dir, "app.rb")
  File.write(app, <<~RUBY)
    def deep_loop(rounds) = Framework.query(13, rounds)
    def shallow_loop(rounds) = rounds.times { [Object.new, "row"] }
  RUBY
  load app
  deep_loop(1000)
  shallow_loop(1000)
  timed = lambda do |kind, stack|
    Array.new(runs) do
      Memprof.start(stack: stack) if stack
      started = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      kind == :deep ? deep_loop(LOOP_ROUNDS) : shallow_loop(LOOP_ROUNDS)
      Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - started
    ensure
      Memprof.stop
      GC.start
    end.then { |times| median(times) }
  end
  puts "allocation loop (#{LOOP_ROUNDS} rounds of 3 allocations; CPU time, median of #{runs}):"
  puts "  stack             40 frames below the app   in the app's frame"
  base = { deep: timed.call(:deep, nil), shallow: timed.call(:shallow, nil) }
  printf("  %-16s %9.3f s            %9.3f s\n", "untracked", base[:deep], base[:shallow])
  SETTINGS.each do |label, setting|
    stack = Memprof.default_stack({ "MEMPROF_STACK" => setting })
    deep = timed.call(:deep, stack)
    shallow = timed.call(:shallow, stack)
    printf("  %-16s %9.3f s (+%4.0f%%)    %9.3f s (+%4.0f%%)\n", label, deep, 100 * (deep / base[:deep] - 1),
           shallow, 100 * (shallow / base[:shallow] - 1))
  end
end
