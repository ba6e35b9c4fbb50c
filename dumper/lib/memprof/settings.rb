# frozen_string_literal: true

# What memprof's always-on parts (memprof/signal, memprof/profiles) share: their settings'
# checks and errors, their file names and their one line on stderr.
require "memprof" unless defined?(Memprof.start)

module Memprof
  # Objects this file allocates are memprof's own: tracking leaves them out.
  _ignore_file(__FILE__)

  module Settings
    # A bad setting: for the API an ArgumentError, for the environment a message naming it.
    class SettingError < ArgumentError
      attr_reader :setting, :value, :reason

      def initialize(setting, value, reason)
        @setting = setting
        @value = value
        @reason = reason
        super("memprof: #{setting} #{Memprof.printable(value.to_s)}: #{reason}")
      end
    end

    module_function

    # A signal's name ("USR2") from a name, "SIGUSR2", a Symbol or a number.
    def signal_name(signal)
      name = if signal.is_a?(Integer)
               ::Signal.signame(signal)
             else
               signal.to_s.upcase.delete_prefix("SIG")
             end
      number = name && ::Signal.list[name]
      raise SettingError.new(:signal, signal, "unknown signal") if number.nil? || number.zero?

      name
    end

    def checked_dir(dir)
      path = File.expand_path(dir.to_s)
      raise SettingError.new(:dir, dir, "no such directory") unless File.directory?(path)
      raise SettingError.new(:dir, dir, "directory not writable") unless File.writable?(path)

      path
    end

    # DIR/memprof-PID-20261123T032512.345Z.EXT: UTC to the millisecond (names sort by time); a
    # suffix -2, -3 ... should a name be taken already, by a file or by a symlink (a dangling
    # one planted in a shared directory would have the dump written where it points).
    def next_path(dir, ext, at: Time.now)
      stamp = at.utc.strftime("%Y%m%dT%H%M%S.%LZ")
      base = File.join(dir, "memprof-#{Process.pid}-#{stamp}")
      path = "#{base}.#{ext}"
      count = 1
      path = "#{base}-#{count += 1}.#{ext}" while File.exist?(path) || File.symlink?(path)
      path
    end

    def glob_escape(path) = path.gsub(/[\\*?\[\]{}]/) { |c| "\\#{c}" }

    # One line on stderr, control characters escaped (a path or an error message may carry
    # them); a closed stderr loses it rather than stop the work.
    def log(message)
      $stderr.write("memprof: #{Memprof.printable(message)}\n")
    rescue IOError, SystemCallError
      nil
    end
  end
end
