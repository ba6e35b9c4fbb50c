# frozen_string_literal: true

# memprof_ext.so uses only what the Ruby it runs in exports: a symbol that libruby stopped
# exporting (3.4's rb_objspace_markable_object_p) resolves lazily and kills the process at its
# first call (exit 127, no exception), so it is checked here, on each Ruby the suite runs on.
require_relative "memprof_test_helper"

class TestSymbols < Test::Unit::TestCase
  include MemprofTestHelper

  def extension
    $LOADED_FEATURES.find { |path| File.basename(path) == "memprof_ext.so" } or
      flunk("memprof_ext.so is not loaded")
  end

  # Dynamic symbols of a shared object, as nm -D lists them: name => type letter.
  def dynamic_symbols(path, *options)
    out, err, status = Open3.capture3("nm", "-D", *options, path)
    flunk("nm -D #{path}: #{err}") unless status.success?
    out.lines.to_h do |line|
      fields = line.split
      [fields.last.sub(/@.*/, ""), fields[-2]]
    end
  end

  # The shared objects the extension is linked with, as the dynamic linker finds them, and the
  # dynamic linker itself (__tls_get_addr).
  def needed_libraries(path)
    out, status = Open3.capture2("ldd", path)
    flunk("ldd #{path} failed") unless status.success?
    out.scan(%r{(?:=> )?(/\S+) \(0x}).flatten
  end

  def test_every_symbol_the_extension_needs_is_exported_by_this_ruby
    ext = extension
    libraries = needed_libraries(ext)
    libruby = libraries.find { |path| File.basename(path).start_with?("libruby") }
    refute_nil(libruby, "memprof_ext.so links no libruby: #{libraries}")
    defined = libraries.each_with_object({}) do |lib, all|
      all.merge!(dynamic_symbols(lib, "--defined-only"))
    end
    undefined = dynamic_symbols(ext, "--undefined-only")
    # Weak references (w, v) may stay unresolved by design (__gmon_start__ and the like).
    missing = undefined.reject { |name, type| type.match?(/\A[wv]\z/i) || defined.key?(name) }.keys
    assert_empty(missing.sort, "#{ext} needs symbols that #{libruby} (Ruby #{RUBY_VERSION}) " \
                               "and its other libraries do not export")
    ruby_symbols = undefined.keys.grep(/\A(rb_|ruby_|st_|onig)/)
    assert_operator(ruby_symbols.size, :>, 50, "the extension's calls into libruby are listed")
  end

  # The same, as the dynamic linker sees it: with every symbol bound at load, a missing one
  # fails the require instead of a later call.
  def test_the_extension_loads_with_every_symbol_bound_at_once
    out, status = Open3.capture2e({ "LD_BIND_NOW" => "1" }, RbConfig.ruby,
                                  *$LOAD_PATH.flat_map { |dir| ["-I", dir] },
                                  "-e", "require 'memprof'; print Memprof.respond_to?(:dump_all)")
    assert_true(status.success?, out)
    assert_equal("true", out.lines.last)
  end
end
