# Builds the memprof extension with mkmf (gem install); CMake builds the same sources for tests.
require "mkmf"

# The extension refuses to load on a Ruby it has not been tested on (ruby_compat.h, KnownRuby);
# say so before building it.
major_minor = RUBY_VERSION.split(".").first(2).map(&:to_i)
known = (major_minor <=> [3, 1]) >= 0 && (major_minor <=> [3, 4]) <= 0
unless known || ENV["MEMPROF_UNTESTED_RUBY"] == "1"
  abort "memprof supports Ruby 3.1 to 3.4; this is Ruby #{RUBY_VERSION}. " \
        "MEMPROF_UNTESTED_RUBY=1 builds and loads it anyway (names it cannot check go unnamed)"
end

# The JSON writer is our own (json_sink.cc; see dumper/README.md, "No yajl in the writer").
have_library("pthread")
# gzip dumps (json_sink.cc): zlib1g-dev
abort "memprof: zlib (zlib.h, libz) is needed: install zlib1g-dev" unless have_header("zlib.h") && have_library("z", "deflateInit2_")

# On Ruby 3.1 the VM's layouts come from its MJIT header (vm_layout_31.h); 3.3 and 3.4 have
# their own declarations (vm_layout_33.h).
mjit_header = "rb_mjit_min_header-#{RUBY_VERSION}.h"
if RUBY_VERSION.start_with?("3.1.")
  if File.exist?(File.join(RbConfig::CONFIG["rubyarchhdrdir"], mjit_header))
    $defs << %(-DMEMPROF_MJIT_HEADER='"#{mjit_header}"')
  else
    warn "memprof: #{mjit_header} not found; constants, hash defaults and locals go unnamed"
  end
end

$CXXFLAGS << " -std=c++20 -O2"
$CFLAGS << " -O2"
create_makefile("memprof_ext")
