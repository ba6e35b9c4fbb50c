# An access log kept in memory "for the admin page": every request appends a formatted line
# to a constant Array that nothing ever trims.
#
# Leak: Strings, allocated in AccessLog.record (the "# leak:" line), one per request, held by
# the Array in the constant LOG:
#   class Object LOG -> Array [123] -> String
# Not a leak: the Time, the status text and the response body of each request are garbage.
#
#   ruby samples/log_buffer.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps"

LOG = []

module AccessLog
  def self.record(method, path, status, millis)
    stamp = Time.at(1_700_000_000 + millis.to_i).utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    LOG << format("%s %-6s %-40s %3d %8.2fms", stamp, method, path, status, millis) # leak: String
  end
end

def handle_request(i)
  path = "/articles/#{i}/comments?page=#{i % 7}"
  body = "<ul>#{Array.new(5) { |n| "<li>comment #{n}</li>" }.join}</ul>" # garbage
  AccessLog.record("GET", path, 200, body.bytesize / 7.0)
  body
end

ThreeDumps.run("log_buffer", requests: 300) { |i| handle_request(i) }
