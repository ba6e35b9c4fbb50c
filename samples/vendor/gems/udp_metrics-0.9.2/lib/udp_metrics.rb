# A metrics client as a gem ships one (samples/metrics_client.rb loads it from its vendor tree):
# points are buffered and sent over UDP in a line protocol, a batch at a time. So that no point
# is lost when the program ends, each client registers an at_exit block that flushes it and
# closes its socket: the block, and with it the client, lives until the program ends.
require "socket"

module UdpMetrics
  class Client
    def initialize(host: "127.0.0.1", port: 8089, batch: 50)
      @host = host
      @port = port
      @batch = batch
      @points = []
      @socket = UDPSocket.new # leak: UDPSocket
      at_exit { close }
    end

    def write_point(measurement, values, tags = {})
      fields = values.map { |key, value| "#{key}=#{value}" }.join(",")
      labels = tags.map { |key, value| ",#{key}=#{value}" }.join
      @points << "#{measurement}#{labels} #{fields}"
      flush if @points.size >= @batch
    end

    def flush
      return if @points.empty?

      @socket.send(@points.join("\n"), 0, @host, @port)
    rescue SystemCallError
      nil # a metrics server that is down must not take the program down with it
    ensure
      @points.clear
    end

    def close
      flush
      @socket.close unless @socket.closed?
    end
  end
end
