# A fleet of four processes sampled by memprof (Memprof.start(sample: 8)), one of them leaking:
# each writes three profiles (Memprof.profile) over its life. Shared by the tests of heapq on
# profiles, from files, SQLite and a server.
module SampledFleet
  PROGRAM = <<~'RUBY'
    require "memprof"
    Memprof.start(sample: 8)
    class Order; end
    class Leak; end
    KEEP = []
    CACHE = Array.new(3000) { Order.new }
    dir, name, leaky = ARGV
    3.times do |round|
      5000.times { Order.new }
      3000.times { KEEP << Leak.new } if leaky # leak: Leak
      GC.start
      Memprof.profile(File.join(dir, "#{name}-#{round}.pb.gz"))
      sleep 0.05
    end
    puts Process.pid
  RUBY

  # The line of the program that leaks.
  LEAK_LINE = PROGRAM.lines.index { |l| l.include?("# leak: Leak") } + 1

  # Runs the four processes at once; returns {name => [pid, its three profiles]}, "w4" leaking.
  def sampled_fleet
    ext = ENV.fetch("MEMPROF_EXT_DIR") { omit("the memprof extension is not built") }
    program = File.join(@tmp, "worker.rb")
    File.write(program, PROGRAM)
    dir = File.join(@tmp, "profiles")
    Dir.mkdir(dir)
    workers = %w[w1 w2 w3 w4].to_h do |name|
      args = [dir, name]
      args << "leaky" if name == "w4"
      out, err = IO.pipe
      pid = Process.spawn(RbConfig.ruby, "-I", ext, program, *args, out: err, err: err)
      err.close
      [name, [pid, out]]
    end
    workers.to_h do |name, (pid, out)|
      text = out.read
      out.close
      _, status = Process.wait2(pid)
      assert(status.success?, "#{name} failed: #{text}")
      [name, [pid, (0..2).map { |round| File.join(dir, "#{name}-#{round}.pb.gz") }]]
    end
  end
end
