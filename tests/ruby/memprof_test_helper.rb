# frozen_string_literal: true

# Shared setup of the memprof gem's tests: loads the gem and reads dumps back.
require "test/unit"
require "json"
require "tmpdir"
require "objspace"
require "memprof"
require "open3"
require "rbconfig"

module MemprofTestHelper
  # The block's result and what it wrote to $stderr.
  def capture_stderr
    require "stringio"
    saved = $stderr
    $stderr = StringIO.new
    result = yield
    [result, $stderr.string]
  ensure
    $stderr = saved
  end

  ADDRESS = /\A0x[0-9a-f]+\z/.freeze
  OBJECT_PREFIX = '{"address":"'
  SHAPE_TYPE = '"type":"SHAPE"'

  # A dump read back: one String and an index of address => line, held as Integers so that a
  # dump kept alive adds almost no objects to the heap the next dump walks.
  class Dump
    attr_reader :text

    def initialize(path)
      @text = File.binread(path).force_encoding(Encoding::UTF_8)
      raise "#{path}: invalid UTF-8" unless @text.valid_encoding?

      @index = {}
      offset = 0
      @text.each_line do |line|
        if line.start_with?(OBJECT_PREFIX)
          close = line.index('"', OBJECT_PREFIX.size)
          # A SHAPE record (3.3+) has an address too, outside the heap: it is no object.
          unless line[close + 2, SHAPE_TYPE.size] == SHAPE_TYPE
            @index[line[OBJECT_PREFIX.size...close].to_i(16)] = (offset << 24) | line.bytesize
          end
        end
        offset += line.bytesize
      end
    end

    def [](address)
      span = @index[address.to_i(16)] or raise "no record for #{address}"
      JSON.parse(@text.byteslice(span >> 24, span & 0xffffff))
    end

    def key?(address) = @index.key?(address.to_i(16))
    def object_count = @index.size
    def lines = @text.lines
    def records = @text.each_line.map { |line| JSON.parse(line) }
    def first = JSON.parse(@text[0, @text.index("\n")])
    def last = JSON.parse(@text[@text.rindex("\n", -2) + 1..])
  end

  # Asserts a dump (its text, or the path of its file) is whole: META first, then an END that
  # counts the lines before it. Counts and slices instead of splitting into lines: a dump's
  # worth of line Strings would be walked again by every later dump of this process.
  def assert_complete(text_or_path, message = nil)
    text = text_or_path
    text = File.binread(text) unless text.include?("\n") || !File.file?(text)
    message ||= text_or_path unless text.equal?(text_or_path)
    first = text.index("\n")
    assert_not_nil(first, message || "no line in the dump")
    assert_equal("META", JSON.parse(text[0, first])["type"], message)
    last = (text.rindex("\n", -2) || -1) + 1
    assert_equal({ "type" => "END", "records" => text.count("\n") - 1 }, JSON.parse(text[last..]), message)
  end

  # Ruby code that boots a Rails application as in production (railties, Action Pack, Active
  # Record on an in-memory SQLite database) and serves requests through its whole middleware
  # stack and a controller that reads the database. Prints {"omit":"..."} and exits where
  # Debian's packages are missing.
  RAILS_APP = <<~'RUBY'
    ENV["DATABASE_URL"] = "sqlite3::memory:"
    ENV["RAILS_ENV"] = "production"
    begin
      require "rails"
      require "action_controller/railtie"
      require "active_record/railtie"
      require "sqlite3"
    rescue LoadError
      puts '{"omit":"Debian\'s ruby-railties, ruby-actionpack, ruby-activerecord and ruby-sqlite3 are not installed"}'
      exit 0
    end
    require "logger"
    require "tmpdir"
    require "fileutils"
    class TestApp < Rails::Application
      config.root = Dir.mktmpdir
      at_exit { FileUtils.rm_rf(config.root) }
      config.eager_load = false
      config.logger = Logger.new(nil)
      config.secret_key_base = "0" * 64
      config.hosts.clear
      routes.append { get "/items/:id" => "items#show" }
    end
    class ItemsController < ActionController::Base
      def show
        item = Item.find(params[:id])
        render(json: { id: item.id, name: item.name })
      end
    end
    TestApp.initialize!
    ActiveRecord::Base.connection.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
    class Item < ActiveRecord::Base; end
    3.times.map { |i| Item.create!(name: "item #{i}") }.each do |item|
      response = Rack::MockRequest.new(TestApp).get("/items/#{item.id}")
      raise "#{response.status}: #{response.body}" unless response.status == 200 && response.body.include?(item.name)
    end
  RUBY

  # Dumps the heap into a temporary file and reads it back.
  def dump_heap(**options)
    Dir.mktmpdir("memprof-test") do |dir|
      path = File.join(dir, "heap.jsonl")
      GC.start # leave earlier tests' garbage out of this dump
      Memprof.dump_all(path, **options)
      Dump.new(path)
    end
  end

  # The -I options that let a child Ruby load the memprof under test (its lib and its built
  # extension, wherever the build directory is).
  def self.load_args
    dirs = $LOAD_PATH.select { |dir| File.exist?(File.join(dir, "memprof.rb")) || File.exist?(File.join(dir, "memprof_ext.so")) }
    dirs.flat_map { |dir| ["-I", dir] }
  end

  # Runs code in a fresh Ruby with memprof loaded (a crash must not take the test runner down);
  # returns [stdout and stderr, status]. Gives up after timeout seconds.
  def run_ruby(code, timeout: 60)
    Open3.popen2e(RbConfig.ruby, *MemprofTestHelper.load_args, "-rmemprof", "-e", code) do |stdin, out, thread|
      stdin.close
      reader = Thread.new { out.read }
      unless thread.join(timeout)
        Process.kill(:KILL, thread.pid)
        thread.join
        return ["timed out after #{timeout} s\n#{reader.value}", thread.value]
      end
      [reader.value, thread.value]
    end
  end

  # The address ObjectSpace writes for obj.
  def os_address(obj)
    JSON.parse(ObjectSpace.dump(obj))["address"]
  end

  # reference name => referenced address, for a record.
  def named_refs(record)
    (record["reference_names"] || []).zip(record["references"] || []).to_h
  end

  # Runs the block where permissions apply (root ignores them: a child drops to nobody) and
  # returns "ExceptionClass: message" of what it raised, or "ok".
  def as_unprivileged_user
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      if Process.uid.zero?
        Process::GID.change_privilege(65_534)
        Process::UID.change_privilege(65_534)
      end
      begin
        yield
        writer.write("ok")
      rescue StandardError => e
        writer.write("#{e.class}: #{e.message}")
      end
      writer.close
      exit!(0)
    end
    writer.close
    outcome = reader.read
    Process.wait(pid)
    outcome
  end
end
