# A Rails app on Debian's rails (ruby-railties, ruby-actionpack), served through Rack: a
# controller caches each rendered note in a class_attribute Hash keyed by the request's whole
# path, query string included, so every tracking parameter (?utm_source=...) makes an entry
# that is never evicted.
#
# Leak: the rendered page Strings, made in NotesController#show (the "# leak:" line), one per
# request, with their key Strings (the request's full path, made in actionpack), held by the
# Hash that class_attribute keeps in the block of the reader method it defines:
#   class NotesController (class) -> class #<Class:NotesController> method fragments
#     -> IMEMO:ment -> Proc -> IMEMO:env local value -> Hash
# The line to change is the app's: key the cache by the note (or bound it).
# Not a leak: the request and response objects, params and the controller instances.
#
#   ruby samples/rails_fragments.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require "action_controller/railtie"
require "rack/mock"
require_relative "three_dumps"

class NotesApp < Rails::Application
  config.eager_load = false
  config.logger = Logger.new(nil)
  config.secret_key_base = "0" * 64
  config.hosts.clear
  routes.append { get "/notes/:id" => "notes#show" }
end
NotesApp.initialize!

class NotesController < ActionController::Base
  class_attribute :fragments, default: {}

  def show
    page = fragments[request.fullpath] ||= render_note(params[:id])
    render html: page.html_safe
  end

  private

  def render_note(id)
    body = "Lorem ipsum dolor sit amet. " * 4
    html = "<article><h1>Note #{id}</h1><p>#{body}</p></article>" # leak: String
    html
  end
end

def handle_request(i)
  Rack::MockRequest.new(NotesApp).get("/notes/#{i % 7}?utm_source=mail&utm_id=#{i}")
end

ThreeDumps.run("rails_fragments", requests: 300, warm_up: -> { 3.times { |i| handle_request(-1 - i) } }) do |i|
  handle_request(i)
end
