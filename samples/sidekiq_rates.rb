# A Sidekiq job on Debian's sidekiq (ruby-sidekiq; run inline by sidekiq/testing, no Redis):
# each job converts an order's price, memoizing the exchange rate per currency and order day
# in a class-level Hash. The day is unbounded, so the Hash grows by one entry per new day.
#
# Leak: ConvertPriceJob::Rate objects, allocated in ConvertPriceJob#rate_for (the "# leak:"
# line), one per (currency, day), held by the Hash in ConvertPriceJob's class instance
# variable @rates, with their key Strings (and each job's currency and day Strings, which
# Sidekiq's JSON round trip made and the Rate keeps):
#   class Object ConvertPriceJob -> class ConvertPriceJob @rates -> Hash ["EUR 2026-03-01"]
#     -> ConvertPriceJob::Rate
# The line to change is the app's: bound the memo (or key it by what repeats).
# Not a leak: the job instances, their arguments (a JSON round trip per job) and the
# converted prices are garbage after each job.
#
#   ruby samples/sidekiq_rates.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
# frozen_string_literal: true

require "sidekiq"
require "sidekiq/testing"
require_relative "three_dumps"

Sidekiq::Testing.inline! # jobs run as they are pushed: the same code a worker thread runs
Sidekiq.logger.level = Logger::WARN

class ConvertPriceJob
  include Sidekiq::Worker

  Rate = Struct.new(:currency, :day, :per_euro, :inverse, :source, :fetched_at, :expires_at)

  @rates = {}

  class << self
    attr_reader :rates
  end

  def perform(order_id, currency, day, cents)
    rate = rate_for(currency, day)
    { "order" => order_id, "cents" => (cents * rate.per_euro).round }
  end

  private

  def rate_for(currency, day)
    key = "#{currency} #{day}".freeze # leak: String
    self.class.rates[key] ||= Rate.new(currency, day, 1.08, 1 / 1.08, "ecb", 0, 86_400) # leak: ConvertPriceJob::Rate
  end
end

def handle_request(i)
  day = format("%04d-%02d-%02d", 2000 + i / 336, 1 + i / 28 % 12, 1 + i % 28)
  ConvertPriceJob.perform_async(10_000 + i, "EUR", day, 1999 + i)
end

ThreeDumps.run("sidekiq_rates", requests: 300, warm_up: -> { handle_request(-1) }) { |i| handle_request(i) }
