# The benchmark heap, shared by the benchmarks: a Hash of orders, each an object with two
# Strings and an Array (about 5 heap objects an order).
class Order
  def initialize(id)
    @id = id
    @customer = "customer-#{id % 1000}"
    @tags = [:new, :paid]
    @note = "note #{id}"
  end
end

def make_orders(count)
  store = {}
  count.times { |i| store["order-#{i}"] = Order.new(i) }
  store
end
