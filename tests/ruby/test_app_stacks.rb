# frozen_string_literal: true

# Allocation stacks reach the application's line though a framework's frames lie between it and
# the allocation, as they do in Rails (an ActiveRecord::Result is made some 35 frames below
# the job's line that queried).
require_relative "memprof_test_helper"

class TestAppStacks < Test::Unit::TestCase
  include MemprofTestHelper

  # How many frames (C methods' counted) the framework puts between the app's call and the
  # allocation: deeper than the 8 frames memprof recorded by default before.
  FRAMEWORK_DEPTH = 40

  def setup
    @dir = Dir.mktmpdir("memprof-app-stacks")
    @gem = File.join(@dir, "gems", "framework-7.1.3", "lib", "framework.rb")
    @app = File.join(@dir, "app", "jobs", "report_job.rb")
    FileUtils.mkdir_p([File.dirname(@gem), File.dirname(@app)])
    # A framework that calls down through blocks and methods before it allocates.
    File.write(@gem, <<~RUBY)
      module Framework
        Result = Struct.new(:rows)
        def self.query(depth) = depth.zero? ? Result.new([]) : instrument { query(depth - 1) }
        def self.instrument = yield
      end
    RUBY
    File.write(@app, <<~RUBY)
      class ReportJob
        def perform(depth)
          Framework.query(depth) # app's line
        end
      end
      QUERY = -> { Framework.query(0) }
    RUBY
    load @gem
    load @app
  end

  def teardown
    Memprof.stop
    FileUtils.rm_rf(@dir)
  end

  def stack_of(dump, address)
    frames = {}
    stacks = {}
    dump.records.each do |r|
      frames[r["id"]] = r if r["type"] == "FRAME"
      stacks[r["id"]] = r["frames"] if r["type"] == "STACK"
    end
    id = dump[address]["stack"] or return []
    stacks.fetch(id).map { |f| frames.fetch(f).values_at("file", "line", "method") }
  end

  def test_the_default_stack_reaches_the_apps_line_below_a_deep_framework
    Memprof.start
    result = ReportJob.new.perform(FRAMEWORK_DEPTH / 3) # query, instrument and its block per level
    stack = stack_of(dump_heap, os_address(result))
    assert_equal([@gem, 3], stack.first&.first(2), "the allocation's own frame first")
    assert_include(stack, [@app, 3, "perform"], "the app's line that called the framework")
    assert_operator(stack.size, :<=, Memprof::MAX_STACK)
  end

  # A line inside a lambda (or any block) is in that block, as Ruby's backtraces say, not in the
  # code around it.
  def test_a_frame_in_a_block_is_labelled_as_ruby_labels_it
    Memprof.start
    result = QUERY.call
    stack = stack_of(dump_heap, os_address(result))
    assert_include(stack, [@app, 6, "block in <top (required)>"], stack.inspect)
  end
end
