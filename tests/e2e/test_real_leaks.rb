# heapq leaks on six leaks met in real programs, reproduced on Debian's gems (samples/*.rb, see
# samples/README.md), each dumped three times in a live process by ObjectSpace.dump_all and by
# memprof's signal handler (SIGUSR2 from outside, a forked child writing the dump): the first
# leak names what leaks, what holds it and, in memprof's dumps, the app's line that made it.
require_relative "helper"

class TestRealLeaks < Test::Unit::TestCase
  include E2E

  # Per sample: the class of what leaks (a row of the first leak's holds) and how many of them a
  # request leaves (1 unless said); where a Debian library allocates them (else the sample's or
  # its vendored gem's "# leak: Class" line does); what holds them: the holder's class, the step
  # before it on the path and the reference into it (memprof names references, ObjectSpace does
  # not), or the GC root category that holds them, or the name of the VM's table that does; the
  # libraries the sample requires; the class of what no GC has yet undone in a signal dump (the
  # leaks holding it name the dead objects' finalizers that may). The app's line is the
  # sample's "# app: Class" line (any one, where several made them), else its "# leak: Class"
  # line.
  CASES = {
    "metrics_client" => { class: "UDPSocket", holder_root: "end_proc" },
    "query_cache" => { class: "ActiveRecord::Result", per_request: 2, site: "active_record/connection_adapters/abstract_adapter.rb",
                       holder: "Hash", owner: "ActiveRecord::ConnectionAdapters::SQLite3Adapter", edge: "@query_cache",
                       requires: %w[active_record sqlite3] },
    "inline_templates" => { class: "String", site: "action_view/template.rb", holder: "symbol table (hidden Array)",
                            sample: /\A_inline_template_/, pending: "IMEMO:iseq", requires: %w[action_controller/railtie action_view/railtie] },
    "session_pool" => { class: "Cart", holder: "Hash", owner: "Rack::Session::Pool", edge: "@pool",
                        requires: %w[rack/session/pool] },
    "fiber_levels" => { class: "Fiber", holder: "Hash", owner: "FiberLevel::Logger", edge: "@level_override" },
    "wrong_unsubscribe" => { class: "ActiveSupport::Notifications::Fanout::Subscribers::Timed",
                             site: "active_support/notifications/fanout.rb", holder: "Array", owner: "Hash",
                             edge: '["render_template.action_view"]', requires: %w[active_support/notifications rack] },
  }.freeze

  # The cases heapq does not answer right yet, and why: pending while they fail (with the first
  # assertion that fails), failing once they pass, so that their entry is removed here.
  KNOWN_WRONG = {}.freeze

  REQUESTS = 300

  CASES.each do |sample, expected|
    %i[objspace memprof].each do |dumper|
      define_method("test_#{sample}_#{dumper}") do
        requires = expected.fetch(:requires, [])
        unless requires.empty?
          _, status = Open3.capture2e(RbConfig.ruby, *requires.flat_map { |r| ["-r", r] }, "-e", "")
          omit("Debian's packages for #{requires.join(', ')} are not installed") unless status.success?
        end
        dumps = three_dumps(sample, signal: dumper == :memprof, requests: REQUESTS)
        leaks = heapq_json("leaks", *dumps)["leaks"]
        known_wrong(KNOWN_WRONG[[sample, dumper]]) do
          check_first_leak(sample, dumper, leaks, **expected.except(:requires))
        end
      end
    end
  end

  private

  # Runs the block; with a reason, it is to fail: pending when it does, a failure when it passes.
  def known_wrong(reason)
    return yield unless reason

    begin
      yield
    rescue Test::Unit::AssertionFailedError => e
      pend("#{reason}; #{e.message.lines.first.chomp}")
    end
    flunk("listed in KNOWN_WRONG (#{reason}) but right now: remove it from the list")
  end

  def check_first_leak(sample, dumper, leaks, **expected)
    assert_not_empty(leaks, "#{sample}: a leak is found")
    first = leaks.first
    summary = "#{sample} #{dumper}: first leak #{describe(first)}"
    row = leak_row(sample, first, expected, summary)
    born = 2 * REQUESTS * expected.fetch(:per_request, 1)
    # A signal dump takes no GC first: what the program made since its last GC and still
    # reaches (a template's source, interned, until the template goes) counts too.
    slack = dumper == :memprof ? born / 5 : born / 10
    assert_in_delta(born, row["count"], slack, "#{summary}: born after dump 1")
    assert_true(row["steady"], summary)
    check_holder(first, dumper, summary, **expected.slice(:holder, :owner, :edge, :holder_root))
    assert_match(expected[:sample], row["sample"].to_s, "#{summary}: a sample value") if expected[:sample]
    check_app_line(sample, row, summary) if dumper == :memprof
    check_pending(leaks, expected[:pending], summary) if dumper == :memprof && expected[:pending]
    # One leak, one answer: no other leak's holder is inside the first's.
    holder = first.dig("holder", "address")
    leaks.drop(1).each do |other|
      assert_not_include((other["path"] || []).map { |step| step["address"] }, holder,
                         "#{summary}: a leak inside it: #{describe(other)}")
    end
  end

  # The row of what the leak holds that is of the expected class, made where it should be.
  def leak_row(sample, leak, expected, summary)
    klass = expected[:class]
    mark = marks(sample, "leak").find { |_file, _line, k| k == klass }
    file, line = mark || [expected.fetch(:site)]
    row = leak["holds"].find do |h|
      h["class"] == klass && h["site"] && h["site"]["file"].end_with?("/#{file}") && (!line || h["site"]["line"] == line)
    end
    assert_not_nil(row, "#{summary}: no #{klass} made at #{[file, line].compact.join(':')}")
    row
  end

  # The compiled templates of dead ActionView templates: until the next GC runs their finalizers,
  # their methods stay on the view class, and grow between signal dumps as a leak would.
  def check_pending(leaks, klass, summary)
    leaks.each do |leak|
      next unless leak["holds"].any? { |h| h["class"] == klass }

      assert_operator(leak["pending_finalizers"], :>, 0, "#{summary}: #{describe(leak)}: finalizers may undo it")
    end
  end

  def check_holder(leak, dumper, summary, holder: nil, owner: nil, edge: nil, holder_root: nil)
    if holder_root
      assert_nil(leak["holder"], "#{summary}: no object holds it")
      assert_equal(holder_root, leak["holder_root"], summary)
      return
    end
    held_by = leak["holder"]
    assert_not_nil(held_by, "#{summary}: the holder is named")
    assert_equal(holder, held_by["class"], summary)
    assert_operator(held_by["holds"], :>=, leak["count"] * 9 / 10, "#{summary}: the holder holds it all")
    path = leak["path"]
    assert_equal(held_by["address"], path.last["address"], summary)
    assert_equal(owner, path[-2]&.fetch("class"), "#{summary}: the step before the holder") if owner
    assert_equal(edge, held_by["edge"], "#{summary}: the reference into the holder") if edge && dumper == :memprof
  end

  # memprof's allocation stacks: the app's line that made the row's objects.
  def check_app_line(sample, row, summary)
    own = "samples/#{sample}.rb"
    lines = marks(sample, "app").select { |_file, _line, k| k == row["class"] }
    lines = marks(sample, "leak").select { |file, _line, k| k == row["class"] && file == own } if lines.empty?
    assert_not_empty(lines, "#{sample}: the sample marks the app's line of #{row['class']}")
    app = row["app"]
    assert_not_nil(app, "#{summary}: no app line for #{row['class']}")
    assert(app["file"].end_with?("/#{own}"), "#{summary}: app line in #{app['file']}")
    assert_include(lines.map { |_file, line, _| line }, app["line"], "#{summary}: app line")
  end

  # [file, line, class] of the code lines marked "# KIND: Class" in samples/SAMPLE.rb and in the
  # files of its vendored gems that it requires; file from samples/ on.
  def marks(sample, kind)
    files = ["samples/#{sample}.rb"]
    File.foreach(sample_path(sample)) do |line|
      files << "samples/#{Regexp.last_match(1)}.rb" if line =~ %r{\Arequire_relative "(vendor/[^"]+)"}
    end
    files.flat_map do |file|
      File.readlines(File.join(SOURCE_DIR, file)).each_with_index.filter_map do |text, index|
        [file, index + 1, Regexp.last_match(1)] if text !~ /\A\s*#/ && text =~ /# #{kind}: (\S+)\s*\z/
      end
    end
  end

  def describe(leak)
    holder = leak["holder"] ? leak["holder"].values_at("class", "edge").compact.join(" ") : "ROOT(#{leak['holder_root']})"
    rows = leak["holds"].first(3).map { |h| "#{h['count']} #{h['class']}" }
    "held by #{holder}: #{rows.join(', ')}"
  end
end
