# A Rails app on Debian's rails (ruby-railties, ruby-actionpack, ruby-actionview), served
# through Rack: a controller renders `render inline:` with the visitor's name written into the
# template's source, so every name is a template of its own. ActionView compiles each inline
# template into a method (`_inline_template__<hash>_<id>`) and removes the method when the
# template is collected, but the method's name is a Symbol, and Symbols made by compiling code
# live for ever: one more per request.
#
# Leak: the Strings behind those Symbols (fstrings, their values the method names), made while
# actionview compiles the template, for the app's line marked "# app:" (which memprof's
# allocation stacks name), held by the VM's symbol table: no object of the program holds them,
# a hidden Array of Arrays of them under the VM's root does:
#   ROOT(vm) symbol table -> (hidden Array) -> (hidden Array) -> String
# The line to change is the app's: keep the template's source fixed and pass the name as a
# local (`render inline: "...<%= name %>...", locals: { name: ... }`), or use a file template.
# Not a leak: the templates themselves, their compiled methods (removed by a finalizer when
# the template is collected), requests and responses.
#
#   ruby samples/inline_templates.rb OUTDIR [--memprof | --signal] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps" # first: with --signal, this process runs nothing else
require "action_controller/railtie"
require "action_view/railtie"
require "rack/mock"

class GreetingsApp < Rails::Application
  config.eager_load = false
  config.logger = Logger.new(nil)
  config.secret_key_base = "0" * 64
  config.hosts.clear
  routes.append { get "/hello" => "greetings#show" }
end
GreetingsApp.initialize!

class GreetingsController < ActionController::Base
  def show
    name = ERB::Util.html_escape(params[:name].to_s)
    render inline: "<h1>Hello, #{name}!</h1><p>Visit <%= params[:visit] %></p>" # app: String
  end
end

def handle_request(i)
  Rack::MockRequest.new(GreetingsApp).get("/hello?name=visitor-#{i}&visit=#{i}")
end

ThreeDumps.run("inline_templates", requests: 300, warm_up: -> { 3.times { |i| handle_request(-1 - i) } }) do |i|
  handle_request(i)
end
