# A tiny Rails-like app (plain Ruby): ApplicationController keeps the params of "recent"
# requests in a class variable for its error page, and never trims it.
#
# Leak: the params Hashes, allocated in Request#params (the "# leak:" line), one per request,
# pushed by RequestsController#show (through remember_request) into the Array in
# ApplicationController's class variable @@recent:
#   class Object ApplicationController -> class ApplicationController @@recent -> Array [7] -> Hash
# Each Hash keeps its value Strings (the id and the format). Not a leak: the Request, the
# controller and the rendered body of each request are garbage.
#
#   ruby samples/rails_controller.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps"

class Request
  attr_reader :method, :path, :query

  def initialize(method, path, query)
    @method = method
    @path = path
    @query = query
  end

  def params
    @params ||= begin
      params = {} # leak: Hash
      query.split("&") do |pair|
        key, value = pair.split("=", 2)
        params[key] = value
      end
      params
    end
  end
end

class ApplicationController
  @@recent = [] # params of the latest requests, shown on the error page: never trimmed

  attr_reader :request

  def self.dispatch(request, action)
    new(request).public_send(action)
  end

  def initialize(request)
    @request = request
  end

  def params
    request.params
  end

  private

  def remember_request
    @@recent << params
  end

  def render(text)
    "<html><body>#{text}</body></html>"
  end
end

class RequestsController < ApplicationController
  def show
    remember_request
    render("request #{params['id']} as #{params['format']}")
  end
end

def handle_request(i)
  request = Request.new("GET", "/requests/#{i}", "id=#{i}&format=html")
  RequestsController.dispatch(request, :show)
end

ThreeDumps.run("rails_controller", requests: 300) { |i| handle_request(i) }
