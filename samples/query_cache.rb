# A long job on Debian's activerecord and sqlite3 (ruby-activerecord, ruby-sqlite3; an in-memory
# database): a nightly report goes through every customer, reading its orders (one query, new
# bind values each time) and their refunds (a query whose SQL differs per customer), inside
# ActiveRecord::Base.cache, as Rails' executor wraps a job in the query cache. The cache is
# cleared when the block ends, and this block ends when the job does: until then every query
# keeps its result.
#
# Leak: the ActiveRecord::Result of each query (made in activerecord's adapter, for the app's
# lines marked "# app:", which memprof's allocation stacks name), its rows and its bind values,
# held by the connection's query cache, a Hash of SQL to a Hash of binds to results:
#   ... ::SQLite3Adapter @query_cache -> Hash ["SELECT ... FROM \"orders\" WHERE ... = ?"]
#     -> Hash [[binds]] -> ActiveRecord::Result (and its rows)
#   ... ::SQLite3Adapter @query_cache -> Hash ["SELECT SUM(...) ... IN (1, 2, 3, ...)"]
#     -> Hash [[]] -> ActiveRecord::Result
# The orders' results, under one key, are most of it. One leak, one holder: @query_cache.
# The dumps are taken while the job runs (in a thread of its own), between two customers; it
# has reported on a few customers before the first, so the orders' SQL has its Hash already,
# as in a job that has run for a while.
# The line to change is the app's: run the report's queries uncached (or in batches, each in
# its own cache block).
# Not a leak: the models built from each result are garbage after each customer.
#
#   ruby samples/query_cache.rb OUTDIR [--memprof | --signal] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps" # first: with --signal, this process runs nothing else
require "active_record"

ActiveRecord::Base.logger = nil
ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")

class Order < ActiveRecord::Base
end

class Refund < ActiveRecord::Base
end

# Runs for as long as there are customers to report on: the step method hands it the next one
# and waits for its total.
class ReportJob
  def initialize
    @customers = Thread::Queue.new
    @totals = Thread::Queue.new
  end

  def start
    Thread.new { perform }
    @totals.pop # seeded
  end

  def step(customer_id)
    @customers.push(customer_id)
    @totals.pop
  end

  private

  # An in-memory database is the connection's own: the job's thread makes and seeds it.
  def perform
    seed
    @totals.push(0)
    ActiveRecord::Base.cache do
      while (customer_id = @customers.pop)
        @totals.push(total_for(customer_id))
      end
    end
  end

  def total_for(customer_id)
    orders = Order.where(customer_id: customer_id).to_a # app: ActiveRecord::Result
    refunded = Refund.where("order_id IN (#{orders.map(&:id).join(', ')})").sum(:cents) # app: ActiveRecord::Result
    orders.sum(&:cents) - refunded
  end

  def seed
    ActiveRecord::Schema.verbose = false
    ActiveRecord::Schema.define do
      create_table(:orders) do |t|
        t.integer :customer_id, index: true
        t.integer :cents
        t.string :status
      end
      create_table(:refunds) do |t|
        t.integer :order_id, index: true
        t.integer :cents
      end
    end
    Order.insert_all(Array.new(4000) { |i| { customer_id: i / 6, cents: 100 + i * 7 % 9000, status: "paid" } })
    Refund.insert_all(Array.new(400) { |i| { order_id: 1 + i * 10, cents: 50 } })
  end
end

JOB = ReportJob.new

# The job has gone through a few customers before the first dump.
warm_up = lambda do
  JOB.start
  3.times { |i| JOB.step(660 + i) }
end
ThreeDumps.run("query_cache", requests: 300, warm_up: warm_up) { |i| JOB.step(i) }
