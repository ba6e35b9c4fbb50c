# frozen_string_literal: true

# Ruby API of the memprof heap dumper: Memprof.dump_all, Memprof.dump and allocation tracking.
require "memprof_ext"

module Memprof
  VERSION = "0.1.0"

  # Memprof.dump_all(path_or_io, fork: false, strings: 1024) is defined by the extension:
  # paths and IO objects are dumped without calling any Ruby method. It writes the whole heap
  # as memprof JSONL v1. strings: most bytes of each String's value written (false: none).
  # With fork: true a child process writes the dump and this returns its pid at once
  # (Process.wait it); otherwise returns path_or_io.

  # Objects this file allocates are memprof's own: tracking leaves them out.
  _ignore_file(__FILE__)

  class << self
    # One object's record as JSON: a String when io is nil, else written to io (returns io).
    def dump(obj, io = nil, strings: 1024)
      check_strings(strings)
      json = _dump(obj, strings)
      return json if io.nil?

      io.write(json, "\n")
      io
    end

    # Starts tracking allocations (file, line, method, generation, sequence number).
    def start
      _start
      true
    end

    # Stops tracking and forgets every tracked object.
    def stop
      _stop
      true
    end

    # Tracks the allocations of the block and prints those still alive after it (see stats).
    def track(io = $stdout)
      was_running = running?
      from = _next_seq
      start
      begin
        result = yield
      ensure
        stats(io, since: from)
        stop unless was_running
      end
      result
    end

    # Prints the tracked live objects as "count file:line:Class", largest count first.
    def stats(io = $stdout, since: 0)
      _stats(since).each { |key, count| io.puts("#{count.to_s.rjust(8)} #{key}") }
      nil
    end

    # The tracked live objects as {"file:line:Class" => count}, largest count first.
    def stats_hash(since: 0)
      _stats(since).to_h
    end

    private

    def check_strings(strings)
      return if strings == false || (strings.is_a?(Integer) && strings >= 0)

      raise ArgumentError, "memprof: strings: must be a non-negative Integer or false"
    end

    # dump_all for what is neither a path String nor an IO: a Pathname, or an object written
    # through its own write (StringIO and other IO-likes).
    def dump_all_to_object(target, strings, compress)
      if target.respond_to?(:to_path)
        dump_all(target.to_path, strings: strings, compress: compress)
        target
      elsif target.respond_to?(:to_io)
        dump_all(target.to_io, strings: strings, compress: compress)
        target
      elsif target.respond_to?(:write)
        dump_all_via_tempfile(target, strings, compress)
      else
        raise TypeError, "memprof: dump_all needs a path or an IO, got #{target.class}"
      end
    end

    def dump_all_via_tempfile(io, strings, compress)
      require "tempfile"
      Tempfile.create("memprof") do |file|
        dump_all(file.path, strings: strings, compress: compress)
        File.open(file.path, "rb") { |f| IO.copy_stream(f, io) }
      end
      io
    end

    def dump_all_in_child(path_or_io, strings, compress)
      path_or_io.flush if path_or_io.is_a?(IO) # else the child would write the buffer again
      Process.fork do
        status = 0
        begin
          dump_all(path_or_io, strings: strings, compress: compress)
        rescue Exception => e # rubocop:disable Lint/RescueException
          $stderr.puts("memprof: dump in child #{Process.pid} failed: #{e.class}: #{e.message}")
          status = 1
        end
        exit!(status) # no at_exit handlers or finalizers of the parent's program
      end
    end
  end
end
