# frozen_string_literal: true

# The oracle: whole heaps dumped by ObjectSpace and by memprof, compared object by object (the
# type-by-type comparison is in test_objectspace_compat.rb).
require_relative "memprof_test_helper"

class TestObjectSpaceOracle < Test::Unit::TestCase
  include MemprofTestHelper

  # The oracle: the heap a setup made (a process running Debian's libraries), dumped by
  # ObjectSpace, by memprof, then by ObjectSpace again, back to back with GC off (strings
  # whole), compared object by object: every field ObjectSpace writes, memprof writes as one of
  # ObjectSpace's two dumps has it (its additions aside). The heap may change between dumps
  # (the first dump's calls fill method caches and close its File; a write barrier may take a
  # flag away; another thread may run while ObjectSpace writes), yet each change shows in the
  # dump on one side of memprof's.
  ORACLE_COMPARE = <<~'RUBY'
    require "json"
    require "objspace"
    require "tmpdir"
    before, mp, after = Dir.mktmpdir do |dir|
      GC.start
      GC.disable
      File.open(File.join(dir, "before.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
      Memprof.dump_all(File.join(dir, "mp.jsonl"), strings: 1 << 30)
      File.open(File.join(dir, "after.json"), "w") { |f| ObjectSpace.dump_all(output: f) }
      GC.enable
      %w[before.json mp.jsonl after.json].map do |name|
        File.foreach(File.join(dir, name)).map { |l| JSON.parse(l) }.select { |r| r["address"] }.to_h { |r| [r["address"], r] }
      end
    end
    same = lambda do |key, expected, actual|
      if key == "class" && expected["type"] == "IMEMO"
        true # a raw word before 3.3, left out by memprof (test_imemo_records_have_no_class)
      elsif key == "references"
        (expected[key].to_a - actual[key].to_a).empty?
      else
        expected[key] == actual[key]
      end
    end
    missing = before.keys.reject { |a| mp.key?(a) }
    details = []
    differing = before.flat_map do |address, expected|
      actual = mp[address] or next []
      later = after.fetch(address, expected)
      keys = expected.keys.reject { |key| same.(key, expected, actual) || same.(key, later, actual) }
      keys.map do |key|
        name = "#{expected['struct'] || expected['type']}.#{key}"
        shown = [expected, actual, later].map { |r| r[key].inspect[0, 300] }
        details << [name, format("%s %s %s: ObjectSpace %s, memprof %s, ObjectSpace after %s", name, address,
                                 expected["imemo_type"], *shown)]
        name
      end
    end
    puts JSON.generate("objects" => before.size, "missing" => missing.first(5), "differing" => differing,
                       "details" => details.first(50))
  RUBY

  # What changes on both sides of memprof's dump: the stacks, read conservatively, of the
  # thread that dumps and of its root fiber.
  ORACLE_EXPECTED = ["VM/thread.references", "fiber.references"].freeze

  def oracle(setup, min_objects)
    out, status = run_ruby(setup + ORACLE_COMPARE, timeout: 150)
    assert(status.success?, out)
    result = JSON.parse(out.lines.last)
    omit(result["omit"]) if result["omit"]
    assert_operator(result["objects"], :>, min_objects)
    assert_empty(result["missing"], "objects ObjectSpace wrote and memprof did not")
    unexpected = result["details"].reject { |name, _| ORACLE_EXPECTED.include?(name) }.map(&:last)
    assert_empty(result["differing"] - ORACLE_EXPECTED, [result["differing"].tally, *unexpected.first(5)].join("\n"))
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
