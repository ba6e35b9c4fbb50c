# Classes that extend or include modules (ActiveSupport::Concern's ClassMethods, Enumerable):
# class objects count as Class, modules as Module, included-module records (ICLASS) apart.
require_relative "helper"

class TestClassAttribution < Test::Unit::TestCase
  include E2E

  PROGRAM = <<~'RUBY'
    require "objspace"
    module Helpers; def help; end; end
    module Concernish; module ClassMethods; def cm; end; end; end
    class Widget
      extend Concernish::ClassMethods
      include Enumerable
      include Helpers
      def each; end
    end
    class Gadget < Widget; extend Helpers; end
    KEEP = [Widget.new, Gadget.new]
    GC.start
    File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }
  RUBY

  def by_class(input)
    heapq_json("stats", "--top", "0", input)["by_class"].to_h { |c| [c["class"], c["count"]] }
  end

  def test_modules_are_not_instantiated_by_their_inclusions
    dump = File.join(@tmp, "heap.json")
    run_ruby(PROGRAM, dump)
    records = File.readlines(dump).map { |l| JSON.parse(l) rescue nil }.compact
    iclasses = records.count { |r| r["type"] == "ICLASS" }
    store = File.join(@tmp, "heap.db")
    heapq("load", "-o", store, dump)
    [dump, store].each do |input|
      classes = by_class(input)
      %w[Enumerable Comparable Kernel Helpers Concernish::ClassMethods].each do |mod|
        assert_nil(classes[mod], "#{mod} has no instances (#{input})")
      end
      assert_equal(iclasses, classes["ICLASS"], input)
      assert_equal(records.count { |r| r["type"] == "CLASS" && r["class"] }, classes["Class"], input)
      assert_equal(records.count { |r| r["type"] == "MODULE" && r["class"] }, classes["Module"], input)
      assert_equal(1, classes["Widget"])
    end
  end
end
