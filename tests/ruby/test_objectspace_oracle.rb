# frozen_string_literal: true

# The oracle: whole heaps dumped by ObjectSpace and by memprof, compared object by object (the
# type-by-type comparison is in test_objectspace_compat.rb).
require_relative "memprof_test_helper"

class TestObjectSpaceOracle < Test::Unit::TestCase
  include MemprofTestHelper

  # The oracle: the heap a setup made (a process running Debian's libraries), dumped by
  # ObjectSpace and by memprof back to back with GC off (strings whole), compared object by
  # object: every field ObjectSpace writes, memprof writes the same (its additions aside). What
  # the first dump itself changes is all that may differ: its output File (closed since), the
  # classes whose method caches it filled, a thread's and its fiber's stacks, read
  # conservatively, and write barriers (an IMEMO's flags differed once in a loaded run).
  ORACLE_COMPARE = <<~'RUBY'
    require "json"
    require "objspace"
    require "tmpdir"
    os, mp = Dir.mktmpdir do |dir|
      GC.start
      GC.disable
      File.open(File.join(dir, "os.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
      Memprof.dump_all(File.join(dir, "mp.jsonl"), strings: 1 << 30)
      GC.enable
      %w[os.json mp.jsonl].map do |name|
        File.foreach(File.join(dir, name)).map { |l| JSON.parse(l) }.select { |r| r["address"] }.to_h { |r| [r["address"], r] }
      end
    end
    missing = os.keys.reject { |a| mp.key?(a) }
    differing = os.flat_map do |address, expected|
      actual = mp[address] or next []
      keys = expected.keys.reject do |key|
        if key == "class" && expected["type"] == "IMEMO"
          true # a raw word before 3.3, left out by memprof (test_imemo_records_have_no_class)
        elsif key == "references"
          (expected[key] - actual[key].to_a).empty?
        elsif key == "flags"
          # Code that runs between the dumps may take an object's write barrier away
          # (rb_gc_writebarrier_unprotect); no other flag changes with GC off.
          expected[key].to_h.except("wb_protected") == actual[key].to_h.except("wb_protected")
        else
          expected[key] == actual[key]
        end
      end
      keys.map { |key| "#{expected['struct'] || expected['type']}.#{key}" }
    end
    puts JSON.generate("objects" => os.size, "missing" => missing.first(5), "differing" => differing)
  RUBY

  # What the first dump itself changes: its output File's fd, the method caches it fills in
  # classes (their memsize and flags), the call sites it adds to the VM's table of them (3.3+:
  # the VM's memsize), and the stacks, read conservatively, of the thread and its root fiber.
  ORACLE_EXPECTED = ["CLASS.flags", "CLASS.memsize", "FILE.fd", "VM.memsize", "VM/thread.references",
                     "fiber.references"].freeze

  def oracle(setup, min_objects)
    out, status = run_ruby(setup + ORACLE_COMPARE, timeout: 150)
    assert(status.success?, out)
    result = JSON.parse(out.lines.last)
    omit(result["omit"]) if result["omit"]
    assert_operator(result["objects"], :>, min_objects)
    assert_empty(result["missing"], "objects ObjectSpace wrote and memprof did not")
    assert_empty(result["differing"] - ORACLE_EXPECTED, result["differing"].tally.inspect)
    assert_operator(result["differing"].size, :<=, 12, result["differing"].tally.inspect)
  end

  def test_oracle_a_heap_of_activerecord_and_rack
    oracle(<<~'RUBY', 50_000)
      begin
        require "active_record"
        require "sqlite3"
        require "rack"
      rescue LoadError
        puts '{"omit":"Debian\'s ruby-activerecord, ruby-sqlite3 and ruby-rack are not installed"}'
        exit 0
      end
      ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
      ActiveRecord::Base.connection.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
      class Item < ActiveRecord::Base; end
      Item.create!(name: "one")
      Item.where(name: "one").to_a
    RUBY
  end

  # A heap every Ruby can make (Debian's gems serve only its own Ruby): the standard library
  # at work, and objects of each kind whose fields differ by version (shapes, a too complex
  # one, chilled and shared Strings, shared Arrays, default procs, call caches).
  def test_oracle_a_heap_of_the_standard_library
    oracle(<<~'RUBY', 20_000)
      require "erb"
      require "json"
      require "set"
      require "time"
      require "uri"
      require "ripper"
      class Item
        def initialize(i)
          @id = i
          @name = "item #{i}"
          @tags = %i[a b].take(i % 3)
        end

        def to_h = { id: @id, name: @name, tags: @tags }
      end
      Shapeless = Class.new
      $kept = {
        items: 300.times.map { |i| Item.new(i) },
        json: JSON.parse(JSON.generate(100.times.map { |i| Item.new(i).to_h })),
        erb: ERB.new("<% 3.times do |i| %><%= i %>,<% end %>").result(binding),
        uris: %w[https://example.com/a?b=c http://localhost:8080/].map { |u| URI.parse(u) },
        times: [Time.parse("2025-03-31T12:00:00Z"), Time.now],
        set: Set.new(1..50),
        sexp: Ripper.sexp("def x(a) = a + 1"),
        too_complex: 20.times.map { |i| Shapeless.new.tap { |o| o.instance_variable_set(:"@v#{i}", i) } },
        chilled: 10.times.map { |i| eval('"chilled #{i}"') },
        shared: (0...200).to_a.then { |a| [a[10..], a[20..]] },
        substrings: ("x" * 500).then { |s| [s[10..], s[100..]] },
        defaults: [Hash.new { |h, k| h[k] = [] }, Hash.new(0)],
        struct: Struct.new(:a, :b).new(1, "two"),
        procs: [proc { 1 }, lambda { |x| x }, method(:puts)],
        fiber: Fiber.new { Fiber.yield 1 }.tap(&:resume),
      }
    RUBY
  end

  # A Rails application booted as in production that has served requests (RAILS_APP).
  def test_oracle_a_booted_rails_app
    oracle(RAILS_APP, 100_000)
  end
end
