# Every heapq command on both kinds of dump: samples/memo_cache.rb dumped three times by
# ObjectSpace.dump_all (allocation tracing on) and by memprof. The sample's answer is known
# (samples/README.md): Pricing::Quote objects allocated at its "# leak:" line, REQUESTS more
# with each round of requests, all held by the Hash in Pricing's @memo. What each command
# must find is also read from the dumps themselves (counts, the Hash's address, the name of
# the reference into it), so that counts can be checked exactly.
require_relative "helper"
require "rexml/document"

class TestEveryCommand < Test::Unit::TestCase
  include E2E

  # Requests between two dumps: enough that the leak retains more than 10% of the last dump
  # (leaks on one dump reports what retains more than --threshold, 10 by default).
  REQUESTS = 2000
  SAMPLE = "memo_cache"
  KINDS = { "objectspace" => false, "memprof" => true }.freeze

  # What the dumps hold: Pricing::Quote objects and their bytes in each dump; the Hash that
  # holds them in the last (the one class Pricing references), and the name memprof gives that
  # reference (nil in ObjectSpace dumps).
  Truth = Struct.new(:counts, :bytes, :pricing, :holder, :holder_edge, keyword_init: true)

  class << self
    attr_reader :shared, :made

    # The dumps are made once for the whole file (two runs of the sample) and shared.
    def startup
      @shared = Dir.mktmpdir("heapq-e2e-every")
      @made = {}
    end

    def shutdown
      FileUtils.rm_rf(@shared)
    end
  end

  def leak
    @leak ||= sample_marks(SAMPLE).first
  end

  # The three dumps of KIND, made on first use.
  def dumps(kind)
    self.class.made[[:dumps, kind]] ||= begin
      own, @tmp = @tmp, self.class.shared
      three_dumps(SAMPLE, memprof: KINDS.fetch(kind), requests: REQUESTS)
    ensure
      @tmp = own
    end
  end

  def truth(kind)
    self.class.made[[:truth, kind]] ||= read_truth(dumps(kind))
  end

  def read_truth(dumps)
    counts = []
    bytes = []
    pricing = holder = holder_edge = nil
    dumps.each_with_index do |dump, index|
      classes = File.foreach(dump).grep(/"type":\s*"CLASS"/).map { |l| JSON.parse(l) }
      quote_class = classes.find { |c| c["name"] == leak[1] }.fetch("address")
      quotes = File.foreach(dump).grep(/#{quote_class}/).map { |l| JSON.parse(l) }
                   .select { |r| r["type"] == "OBJECT" && r["class"] == quote_class }
      counts << quotes.size
      bytes << quotes.sum { |r| r["memsize"] }
      next unless index == dumps.size - 1

      record = classes.find { |c| c["name"] == "Pricing" }
      pricing = record["address"]
      refs = record["references"]
      hashes = File.foreach(dump).filter_map do |l|
        address = l[/\A\{"address":\s*"(0x\h+)"/, 1]
        address if address && refs.include?(address) && l =~ /"type":\s*"HASH"/
      end
      assert_equal(1, hashes.size, "class Pricing references one Hash: #{hashes}")
      holder = hashes.first
      holder_edge = record["reference_names"]&.fetch(refs.index(holder))
    end
    # The sample's own answer: none before the requests, REQUESTS more after each round (a
    # stale word on the machine stack may keep a request's objects a little longer).
    assert_equal(0, counts[0])
    assert_in_delta(REQUESTS, counts[1], 2, "#{leak[1]} per dump: #{counts}")
    assert_in_delta(2 * REQUESTS, counts[2], 2, "#{leak[1]} per dump: #{counts}")
    Truth.new(counts: counts, bytes: bytes, pricing: pricing, holder: holder, holder_edge: holder_edge)
  end

  def memprof?(kind) = KINDS.fetch(kind)

  # The bytes of all the Quotes in the last dump but two: a stale word on the machine stack may
  # keep one out of the Hash's dominance (never seen since the requests run in a thread).
  def leak_bytes_but_two(truth) = truth.bytes.last - 2 * truth.bytes.last / truth.counts.last

  def in_sample?(site, line) = site && site["file"]&.end_with?("/samples/#{SAMPLE}.rb") && site["line"] == line

  def at_leak_line?(site) = in_sample?(site, leak[0])

  # --- stats: how many objects of the class, and their bytes, in the first and the last dump.
  def check_stats(kind)
    truth = truth(kind)
    first, *, last = dumps(kind)
    stats = heapq_json("stats", "--top", "0", last)
    assert_equal(memprof?(kind) ? "memprof" : "objectspace", stats["input"]["format"])
    row = stats["by_class"].find { |c| c["class"] == leak[1] }
    assert_not_nil(row, "#{leak[1]} in by_class")
    assert_equal([truth.counts.last, truth.bytes.last], [row["count"], row["bytes"]])
    before = heapq_json("stats", "--top", "0", first)["by_class"].find { |c| c["class"] == leak[1] }
    assert_equal(0, before&.fetch("count").to_i, "none before the requests")
  end

  # --- sites: the leak's line, and the tax table's 900 Strings at the warm-up line.
  def check_sites(kind)
    sites = heapq_json("sites", "--top", "0", dumps(kind).last)["sites"]
    quote = sites.find { |s| s["class"] == leak[1] && at_leak_line?(s) }
    assert_not_nil(quote, "#{leak[1]} at line #{leak[0]}: #{sites.first(5)}")
    assert_equal(truth(kind).counts.last, quote["count"], "every #{leak[1]} comes from that line")
    assert_equal(truth(kind).bytes.last, quote["bytes"])
    (warm_line, warm_class), = sample_marks(SAMPLE, "warmup")
    table = sites.find { |s| s["class"] == warm_class && in_sample?(s, warm_line) }
    assert_equal(900, table&.fetch("count"), "the tax table's Strings")
  end

  # --- retainers: the instances' shortest paths end class Pricing -> Hash -> Pricing::Quote.
  def check_retainers(kind)
    truth = truth(kind)
    result = heapq_json("retainers", dumps(kind).last, leak[1])
    assert_equal(truth.counts.last, result["target"]["instances"])
    assert_equal(truth.bytes.last, result["target"]["bytes"])
    top = result["groups"].first
    assert_in_delta(truth.counts.last, top["count"], 2, "every #{leak[1]} is kept the same way")
    path = top["path"]
    assert_equal(["class Pricing", "Hash", leak[1]], path.last(3).map { |s| s["class"] })
    assert_equal(truth.holder, path[-2]["address"], "through the Hash of @memo")
    assert_not_nil(path.first["root"], "from a GC root")
    if memprof?(kind)
      assert_equal(["Pricing", "@memo"], path[-3..-2].map { |s| s["edge"] })
      assert_match(/\A\[\d+\]\z/, path.last["edge"], "a Quote is under its sku")
    else
      assert_nil(path[-2]["edge"], "ObjectSpace dumps name no reference")
    end
    # One Quote: the Hash is its only referrer.
    one = heapq_json("retainers", "--referrers", dumps(kind).last, path.last["address"])
    assert_equal([[truth.holder, "Hash"]], one["referrers"].map { |r| [r["address"], r["class"]] })
  end

  # --- dominators: class Pricing and its @memo Hash among the biggest; the Hash retains itself,
  # every Quote and every Quote's label String, nothing else.
  def check_dominators(kind)
    truth = truth(kind)
    list = heapq_json("dominators", "--top", "5", dumps(kind).last)["dominators"]
    hash = list.find { |d| d["address"] == truth.holder }
    assert_not_nil(hash, "the holder among the top 5: #{list.map { |d| d['class'] }}")
    pricing = list.find { |d| d["class"] == "class Pricing" }
    assert_not_nil(pricing, "class Pricing among the top 5")
    assert_operator(list.index(pricing), :<, list.index(hash), "Pricing holds the Hash")
    whole = 1 + 2 * truth.counts.last
    assert_include((whole - 4)..whole, hash["retained_count"], "the Hash, the Quotes, their labels")
    assert_operator(hash["retained_bytes"], :>=, hash["bytes"] + leak_bytes_but_two(truth))
    assert_operator(pricing["retained_bytes"], :>, hash["retained_bytes"])
    assert_equal(truth.holder, hash["path"].last["address"])
    assert_equal("class Pricing", hash["path"][-2]["class"])
    assert_equal("@memo", hash["path"].last["edge"]) if memprof?(kind)
  end

  # --- leaks on the three dumps: the top leak holds the leak's line first, held by the Hash.
  def check_leaks(kind)
    truth = truth(kind)
    result = heapq_json("leaks", *dumps(kind))
    assert_equal(3, result["inputs"].size)
    top = result["leaks"].first
    assert_not_nil(top, "a leak")
    row = top["holds"].first
    assert_equal(leak[1], row["class"])
    assert(at_leak_line?(row["site"]), "the marked line: #{row['site']}")
    assert_equal(truth.counts, row["growth"], "live per dump")
    assert_true(row["steady"], "grows between every two dumps")
    assert_true(top["steady"], "grows between every two dumps")
    assert_in_delta(2 * REQUESTS, row["count"], 2, "born after the first dump")
    assert_operator(top["retained_bytes"], :>=, top["bytes"])
    assert_equal(truth.holder, top["holder"]["address"], "held by the Hash of @memo")
    assert_equal(truth.holder, top["path"].last["address"], "the path ends at the holder")
    assert_equal(["class Pricing", "Hash"], top["path"].last(2).map { |s| s["class"] })
    assert_equal("@memo", top["holder"]["edge"]) if memprof?(kind)
  end

  # --- leaks on the last dump alone: the Hash is where memory accumulates, the Quotes in it.
  def check_leaks_one_dump(kind)
    truth = truth(kind)
    result = heapq_json("leaks", dumps(kind).last)
    top = result["leaks"].first
    assert_not_nil(top, "something retains 10% of the heap")
    row = top["holds"].first
    assert_equal(leak[1], row["class"])
    assert(at_leak_line?(row["site"]), "the marked line: #{row['site']}")
    assert_in_delta(truth.counts.last, row["count"], 2)
    assert_operator(top["retained_bytes"], :>=, leak_bytes_but_two(truth))
    assert_equal(truth.holder, top["holder"]["address"])
    assert_equal("@memo", top["holder"]["edge"]) if memprof?(kind)
  end

  # --- diff of the first and the last dump: the class grew by the Quotes born in between.
  def check_diff(kind)
    truth = truth(kind)
    first, *, last = dumps(kind)
    result = heapq_json("diff", first, last)
    row = result["by_class"].find { |c| c["class"] == leak[1] }
    assert_not_nil(row)
    assert_equal([truth.counts.first, truth.counts.last], [row["before"]["count"], row["after"]["count"]])
    assert_equal(truth.counts.last - truth.counts.first, row["change"]["count"])
    assert_equal(truth.bytes.last - truth.bytes.first, row["change"]["bytes"])
    assert_equal(row["change"]["count"], row["born"] - row["freed"])
    site = result["by_site"].find { |s| s["class"] == leak[1] && at_leak_line?(s) }
    assert_not_nil(site, "the leak's line in by_site")
    assert_equal(row["change"]["count"], site["change"]["count"])
    assert_equal(0, site["freed"], "no Quote is ever freed")
  end

  # --- load and sql: a store of the three dumps counts what stats counts, keeps the retained
  # sizes the dominators gave and (memprof) the names of references.
  def check_load_and_sql(kind)
    truth = truth(kind)
    store = File.join(@tmp, "#{kind}.db")
    _out, err, code = heapq("--quiet", "load", "-o", store, *dumps(kind))
    assert_equal(0, code, err)
    sql = ->(query) { heapq_json("sql", store, query) }
    format = memprof?(kind) ? "memprof" : "objectspace"
    assert_equal([format] * 3, sql["SELECT format FROM dumps ORDER BY id"].map { |r| r["format"] })

    counts = sql["SELECT d.id, count(o.id) AS n FROM dumps d LEFT JOIN objects_v o " \
                 "ON o.dump_id = d.id AND o.class = '#{leak[1]}' GROUP BY d.id ORDER BY d.id"]
    assert_equal(truth.counts, counts.map { |r| r["n"] })
    stats = heapq_json("stats", "--top", "0", "#{store}#3")["by_class"]
    assert_equal(truth.counts.last, stats.find { |c| c["class"] == leak[1] }["count"], "stats on the store")
    at_line = sql["SELECT count(*) AS n FROM objects_v WHERE dump_id = 3 AND class = '#{leak[1]}' " \
                  "AND line = #{leak[0]} AND file LIKE '%/samples/#{SAMPLE}.rb'"]
    assert_equal(truth.counts.last, at_line.first["n"])

    dominators = heapq_json("dominators", "--top", "5", dumps(kind).last)["dominators"]
    hash = dominators.find { |d| d["address"] == truth.holder }.slice("retained_bytes", "retained_count")
    row = sql["SELECT class, retained_bytes, retained_count FROM objects_v " \
              "WHERE dump_id = 3 AND address_hex = '#{truth.holder}'"]
    assert_equal([{ "class" => "Hash" }.merge(hash)], row, "the store keeps the retained sizes")
    into = sql["SELECT name FROM refs_v WHERE dump_id = 3 " \
               "AND from_address_hex = '#{truth.pricing}' AND to_address_hex = '#{truth.holder}'"]
    assert_equal([{ "name" => truth.holder_edge }], into, "class Pricing -> the Hash")
    assert_equal("@memo", truth.holder_edge) if memprof?(kind)
  end

  # A minimal reading of heapq's DOT: {id => label lines} of the nodes, [from, to, label] of
  # the edges.
  def read_dot(dot)
    assert_match(/\Adigraph \w+ \{\n.*\}\n\z/m, dot)
    string = /"((?:[^"\\]|\\.)*)"/
    unquote = ->(s) { s.gsub(/\\(.)/) { Regexp.last_match(1) == "n" ? "\n" : Regexp.last_match(1) } }
    nodes = {}
    edges = []
    dot.each_line do |line|
      if (m = line.match(/\A\s*(\w+) -> (\w+)(?: \[(.*)\])?;\s*\z/))
        label = m[3].to_s[/\blabel=#{string}/, 1]
        edges << [m[1], m[2], unquote[label.to_s]]
      elsif (m = line.match(/\A\s*(\w+) \[(.*)\];\s*\z/)) && !%w[graph node edge].include?(m[1])
        nodes[m[1]] = unquote[m[2][/\blabel=#{string}/, 1].to_s].split("\n")
      end
    end
    assert_not_empty(nodes)
    [nodes, edges]
  end

  # The nodes from a node without an arrow into it down to TARGET, following arrows back.
  def chain_to(edges, target)
    chain = [target]
    while (into = edges.find { |e| e[1] == chain.first })
      break if chain.include?(into[0])

      chain.unshift(into[0])
    end
    chain
  end

  # --- viz (DOT): the tree goes from the GC roots through class Pricing and the Hash to the
  # Quotes' box.
  def check_viz_dot(kind)
    truth = truth(kind)
    out, err, code = heapq("--quiet", "viz", dumps(kind).last, leak[1])
    assert_equal(0, code, err)
    nodes, edges = read_dot(out)
    target = nodes.keys.find { |id| nodes[id].first == leak[1] }
    assert_not_nil(target, "a #{leak[1]} box: #{nodes.values.map(&:first)}")
    assert(nodes[target].any? { |l| l.include?("/samples/#{SAMPLE}.rb:#{leak[0]}") }, nodes[target].inspect)
    holder = nodes.keys.find { |id| nodes[id].any? { |l| l.include?(truth.holder) } }
    assert_not_nil(holder, "the holder's box")
    assert_equal("Hash", nodes[holder].first)
    assert_include(edges.map { |e| e[0, 2] }, [holder, target], "the Hash holds the Quotes")
    chain = chain_to(edges, holder)
    assert_equal("GC roots", nodes[chain.first].first)
    assert_equal(["class Pricing", "Hash"], chain.last(2).map { |id| nodes[id].first })
    into_holder = edges.find { |e| e[1] == holder }[2]
    assert(into_holder.start_with?("@memo"), "the reference's name: #{into_holder}") if memprof?(kind)
  end

  def svg_texts(svg)
    doc = REXML::Document.new(svg)
    assert_equal("svg", doc.root.name)
    REXML::XPath.match(doc, "//text").map(&:text).compact
  end

  def assert_shows(texts, text)
    assert(texts.any? { |t| t.include?(text) }, "#{text} in #{texts.first(20)}")
  end

  # --- viz --format svg: graphviz's SVG, with the class and the holder's address in it.
  def check_viz_svg(kind)
    svg, err, code = heapq("--quiet", "viz", "--format", "svg", dumps(kind).last, leak[1])
    assert_equal(0, code, err)
    texts = svg_texts(svg)
    assert_shows(texts, leak[1])
    assert_shows(texts, truth(kind).holder)
  end

  # --- viz --dominators (DOT and SVG): GC roots -> class Pricing -> the Hash.
  def check_viz_dominators(kind)
    truth = truth(kind)
    out, err, code = heapq("--quiet", "viz", "--dominators", dumps(kind).last)
    assert_equal(0, code, err)
    nodes, edges = read_dot(out)
    holder = nodes.keys.find { |id| nodes[id].any? { |l| l.include?(truth.holder) } }
    assert_not_nil(holder, "the Hash is in the top of the tree: #{nodes.values.map(&:first)}")
    chain = chain_to(edges, holder)
    assert_equal(["GC roots", "class Pricing", "Hash"], chain.map { |id| nodes[id].first })

    # Two levels, three children each: class Pricing is the biggest but for the allocation
    # tracer (ObjectSpace dumps), and the Hash its biggest child. Smaller is faster to lay out.
    svg, err, code = heapq("--quiet", "viz", "--dominators", "--top", "3", "--depth", "2", "--format", "svg",
                           dumps(kind).last)
    assert_equal(0, code, err)
    texts = svg_texts(svg)
    assert_shows(texts, truth.holder)
    assert_shows(texts, "class Pricing")
  end

  # --- report: one HTML file naming the leak's class, line and holder, with its pictures; on
  # three dumps and on the last alone.
  def check_report(kind)
    truth = truth(kind)
    [dumps(kind), [dumps(kind).last]].each do |inputs|
      path = File.join(@tmp, "report-#{inputs.size}.html")
      out, err, code = heapq("--quiet", "report", "-o", path, *inputs)
      assert_equal([0, ""], [code, out], err)
      html = File.read(path)
      assert_match(/\A<!DOCTYPE html>/i, html)
      assert_match(%r{#{Regexp.escape(leak[1])} allocated at \S*/samples/#{SAMPLE}\.rb:#{leak[0]}\b}, html)
      assert_include(html, truth.holder)
      assert_operator(html.scan("<svg").size, :>=, 1)
    end
    assert_equal(%w[report-1.html report-3.html], Dir.children(@tmp).sort, "no temporary file left")
  end

  COMMANDS = %w[stats sites retainers dominators leaks leaks_one_dump diff load_and_sql
                viz_dot viz_svg viz_dominators report].freeze

  COMMANDS.each do |command|
    KINDS.each_key do |kind|
      define_method("test_#{command}_#{kind}") { send("check_#{command}", kind) }
    end
  end
end
