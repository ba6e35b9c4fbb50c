# A web app reports each request's duration through a metrics client gem (vendored in
# vendor/gems/udp_metrics-0.9.2, as Bundler's `bundle config set path vendor/bundle` would put
# it), and makes a new client per request instead of one per process. The client's constructor
# registers `at_exit { close }` so that its buffered points are sent when the program ends: the
# at_exit blocks live until then, and each keeps its client, the client's UDPSocket (and its
# file descriptor) and its buffer of points.
#
# Leak: per request, a UdpMetrics::Client made at the app's line (the "# app:" line) and the
# UDPSocket the gem's constructor opens (its "# leak:" line), with the at_exit block (a Proc and
# its environment) and the point's Strings: no object holds them, the VM's list of at_exit
# blocks does (a GC root):
#   ROOT(end_proc) -> Proc (the gem's at_exit block) -> UdpMetrics::Client -> UDPSocket
# The line to change is the app's: make one client per process (a constant) and reuse it.
# Not a leak: the response Strings are garbage.
#
#   ruby samples/metrics_client.rb OUTDIR [--memprof | --signal] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps" # first: with --signal, this process runs nothing else
require_relative "vendor/gems/udp_metrics-0.9.2/lib/udp_metrics"

def handle_request(i)
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  body = "<p>order #{i}</p>"
  metrics = UdpMetrics::Client.new(port: 8089) # app: UDPSocket
  metrics.write_point("request", { duration: Process.clock_gettime(Process::CLOCK_MONOTONIC) - started }, { path: "/orders" })
  "HTTP/1.1 200 OK\r\ncontent-length: #{body.bytesize}\r\n\r\n#{body}"
end

ThreeDumps.run("metrics_client", requests: 300) { |i| handle_request(i) }
