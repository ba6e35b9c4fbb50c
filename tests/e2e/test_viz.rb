# heapq viz and heapq report on the memo_cache sample (both dump kinds) and on hostile dumps:
# the DOT is read back by graphviz, the SVG by an XML parser.
require_relative "helper"
require_relative "hostile_dumps"
require "rexml/document"

class TestViz < Test::Unit::TestCase
  include E2E

  # graphviz's reading of DOT text: {name => label} of the nodes, [[from label, to label,
  # edge label, attributes]] of the edges.
  def read_dot(dot)
    out, err, status = Open3.capture3("dot", "-Tjson", stdin_data: dot)
    assert(status.success?, "dot -Tjson failed: #{err}")
    graph = JSON.parse(out)
    nodes = graph.fetch("objects", []).to_h { |o| [o["_gvid"], o] }
    edges = graph.fetch("edges", []).map { |e| [nodes[e["tail"]], nodes[e["head"]], e["label"].to_s] }
    [nodes.values, edges]
  end

  # A label back to text as graphviz shows it: "\\n" separates lines, "\\\\" is a backslash,
  # "&amp;" an ampersand.
  def lines(label)
    label.gsub(/\\(.)/) { Regexp.last_match(1) == "n" ? "\n" : Regexp.last_match(1) }.gsub("&amp;", "&").split("\n")
  end

  def svg_texts(svg)
    doc = REXML::Document.new(svg)
    assert_equal("svg", doc.root.name)
    REXML::XPath.match(doc, "//text").map(&:text)
  end

  def check_retention_tree(dumps, memprof:)
    out, err, code = heapq("--quiet", "viz", dumps.last, "Pricing::Quote")
    assert_equal(0, code, err)
    nodes, edges = read_dot(out)
    quote = nodes.find { |n| lines(n["label"]).first == "Pricing::Quote" }
    assert(quote, "a Pricing::Quote box: #{nodes.map { |n| n['label'] }}")
    assert_match(/\A(59[89]|60[0-2]) targets end here/, lines(quote["label"])[1])
    assert_match(%r{samples/memo_cache\.rb:\d+ in new}, quote["label"])
    holder = nodes.find { |n| n["penwidth"] == "3" }
    assert_equal("Hash", lines(holder["label"]).first, "the holder stands out")
    # From the roots down to the target, one arrow into each box.
    chain = [quote]
    while (into = edges.find { |e| e[1].equal?(chain.first) })
      chain.unshift(into[0])
    end
    assert_equal("GC roots", lines(chain.first["label"]).first)
    assert(chain.include?(holder), "the holder is on the path")
    if memprof
      assert(edges.any? { |e| e[2].start_with?("@memo") }, "reference names: #{edges.map(&:last)}")
      assert_equal(["class Object", "class Pricing", "Hash"], chain[1..3].map { |n| lines(n["label"]).first })
    end

    svg, err, code = heapq("--quiet", "viz", "--format", "svg", dumps.last, "Pricing::Quote")
    assert_equal(0, code, err)
    assert(svg_texts(svg).include?("Pricing::Quote"))

    address = lines(quote["label"]).find { |l| l.start_with?("e.g. ") }.delete_prefix("e.g. ")
    out, err, code = heapq("--quiet", "viz", dumps.last, address)
    assert_equal(0, code, err)
    nodes, edges = read_dot(out)
    target = nodes.find { |n| n["fillcolor"] == "#cfe3ff" }
    assert_equal(["Pricing::Quote", address], lines(target["label"])[0, 2])
    assert(edges.any? { |e| e[1].equal?(target) })
  end

  def test_retention_tree_objectspace
    check_retention_tree(three_dumps("memo_cache"), memprof: false)
  end

  def test_retention_tree_memprof
    check_retention_tree(three_dumps("memo_cache", memprof: true), memprof: true)
  end

  def test_collapsed_boxes_and_dominators
    dump = three_dumps("memo_cache").last
    out, err, code = heapq("--quiet", "viz", "--max-nodes", "4", dump, "String")
    assert_equal(0, code, err)
    nodes, = read_dot(out)
    assert_operator(nodes.size, :<=, 4 + nodes.count { |n| n["label"].start_with?("+ ") })
    assert(nodes.any? { |n| n["label"] =~ /\A\+ [\d,]+ more path shapes/ }, nodes.map { |n| n["label"] }.inspect)

    out, err, code = heapq("--quiet", "viz", "--dominators", "--top", "2", "--depth", "2", dump)
    assert_equal(0, code, err)
    nodes, edges = read_dot(out)
    assert_equal("GC roots", lines(nodes.first["label"]).first)
    assert_equal(2, edges.count { |e| e[0].equal?(nodes.first) && !e[1]["label"].start_with?("+ ") })
    assert(nodes.any? { |n| n["label"] =~ /\A\+ [\d,]+ more\\nretaining / })

    # --max-nodes bounds the dominator tree too: the boxes left out are "+ N more" boxes.
    out, err, code = heapq("--quiet", "viz", "--dominators", "--top", "6", "--depth", "4", "--max-nodes", "10", dump)
    assert_equal(0, code, err)
    nodes, = read_dot(out)
    more = nodes.count { |n| n["label"].start_with?("+ ") }
    assert_operator(nodes.size - more, :<=, 10, nodes.map { |n| n["label"] }.inspect)
    assert_operator(nodes.size, :<=, 2 * 10, "one \"+ N more\" box at most per box drawn")
    assert_operator(more, :>, 0)
  end

  def test_output_file_and_usage_errors
    dump = three_dumps("memo_cache").last
    path = File.join(@tmp, "tree.svg")
    out, err, code = heapq("--quiet", "viz", "--format", "svg", "-o", path, dump, "Pricing::Quote")
    assert_equal([0, ""], [code, out], err)
    assert(svg_texts(File.read(path)).include?("Pricing::Quote"))
    assert_equal(1, heapq("viz", "--format", "json", dump, "Pricing::Quote")[2])
    assert_equal(1, heapq("stats", "--format", "svg", dump)[2])
    assert_equal(1, heapq("viz", dump, "No::Such")[2])
    # Options the picture asked for would not use are refused, not ignored.
    _, err, code = heapq("viz", "--top", "3", dump, "Pricing::Quote")
    assert_equal([1, "heapq: --top counts the children drawn per box of --dominators\n"], [code, err])
    _, err, code = heapq("viz", "--as-given", dump, "Pricing::Quote")
    assert_equal([1, "heapq: --as-given orders the dumps of --leak N; one INPUT has no order\n"], [code, err])
    assert_equal(1, heapq("report", dump)[2], "report needs -o")
    # Without graphviz: DOT still works, SVG says what to install.
    _, err, status = Open3.capture3({ "PATH" => @tmp }, HEAPQ, "--quiet", "viz", "--format", "svg", dump, "Pricing::Quote")
    assert_equal(3, status.exitstatus)
    assert_match(/install graphviz/, err)
    _, err, status = Open3.capture3({ "PATH" => @tmp }, HEAPQ, "--quiet", "viz", dump, "Pricing::Quote")
    assert_equal(0, status.exitstatus, err)
  end

  # A picture or a report replaces the old file whole: one who has the old one open still
  # reads all of it, and a failed write leaves neither a part of the new one nor a stray file.
  def test_output_files_are_replaced_whole
    dump = three_dumps("memo_cache").last
    dir = File.join(@tmp, "pictures")
    Dir.mkdir(dir)
    [%w[viz --format svg -o FILE DUMP Pricing::Quote], %w[report -o FILE DUMP]].each do |words|
      path = File.join(dir, "#{words.first}.out")
      File.write(path, "the old picture\n")
      File.open(path) do |old|
        args = words.map { |w| { "FILE" => path, "DUMP" => dump }.fetch(w, w) }
        _, err, code = heapq(*args)
        assert_equal(0, code, err)
        assert_equal("heapq: wrote #{path}\n", err)
        assert_equal("the old picture\n", old.read, "#{words.first} wrote into the old file")
      end
      assert_operator(File.size(path), :>, 1000)
      assert_equal(["#{words.first}.out"], Dir.children(dir).grep(/#{words.first}/), "a temporary file was left")
    end
    out, err, code = heapq("--quiet", "viz", "-o", "/dev/stdout", dump, "Pricing::Quote")
    assert_equal(0, code, err)
    assert_match(/\Adigraph heapq/, out)
    _, err, code = heapq("--quiet", "report", "-o", File.join(@tmp, "no/such/dir/report.html"), dump)
    assert_equal(3, code)
    assert_match(%r{cannot write .*no/such/dir/report\.html}, err)
  end

  # viz --leak N draws leak N of heapq leaks: the Quotes and their label Strings, held by the
  # Hash of @memo, in red.
  def test_viz_draws_a_leak
    dumps = three_dumps("memo_cache")
    leak = heapq_json("leaks", *dumps)["leaks"].first
    out, err, code = heapq("viz", "--leak", "1", *dumps)
    assert_equal(0, code, err)
    leak["holds"].each do |held|
      assert_match(/"#{Regexp.escape(held['class'])}\\n#{held['count']} targets end here/, out,
                   "every class the leak holds is a leaf")
    end
    holder = out.lines.find { |l| l.include?("the holder") }
    assert_not_nil(holder, out)
    assert_include(holder, leak["holder"]["address"])
    assert_match(/and 1 other group, in the last dump: #{leak['count'].to_s.reverse.scan(/\d{1,3}/).join(',').reverse} objects/, out)

    _out, err, code = heapq("viz", "--leak", "3", *dumps)
    assert_equal(1, code)
    assert_match(/there is no leak 3: heapq leaks finds 2 leaks in /, err)
    _out, err, code = heapq("viz", "--leak", "1", "--dominators", *dumps)
    assert_equal(1, code, err)
  end

  def test_report
    dumps = three_dumps("memo_cache")
    path = File.join(@tmp, "report.html")
    _, err, code = heapq("--quiet", "report", "-o", path, *dumps)
    assert_equal(0, code, err)
    html = File.read(path)
    assert_match(%r{<h3>1\. Held by Hash 0x\h+</h3>}, html)
    first = html[/<article class="leak">.*?<\/article>/m]
    assert_match(%r{<td>Pricing::Quote</td><td>\S*samples/memo_cache\.rb:\d+ in new</td>}, first,
                 "the first leak holds the Quotes")
    assert_operator(html.scan("<svg").size, :>=, 1)
    assert_no_match(/<(script|link|img|iframe)[^>]+(src|href)=/i, html, "nothing is fetched")
    assert_equal(2, html.scan(/<script\b/).size)
    ids = html.scan(/\bid="([^"]*)"/).flatten
    assert_equal(ids.uniq, ids, "each inline SVG has ids of its own")

    # Its parts are made on two cores, or one after the other: the same page.
    one = File.join(@tmp, "report-1.html")
    _, err, code = heapq("--quiet", "--threads", "1", "report", "-o", one, *dumps)
    assert_equal(0, code, err)
    nonce = /nonce(="|-)\h+/
    assert_equal(html.gsub(nonce, "nonce"), File.read(one).gsub(nonce, "nonce"))
  end

  def test_hostile_strings_stay_text
    dumps = HostileDumps.write(@tmp)
    out, err, code = heapq("--quiet", "viz", dumps.last, "String")
    assert_equal(0, code, err)
    nodes, edges = read_dot(out)
    leak = nodes.find { |n| n["label"].start_with?("Leak") }
    assert_equal(HostileDumps::LEAK_CLASS.sub("\n", "\\x0A"), lines(leak["label"]).first)
    assert(edges.any? { |e| e[2] == "@value#{HostileDumps::IMG} (60)" }, edges.map(&:last).inspect)

    # A big fan-in: the class of the 60 leaked objects, each referencing it, in 10 boxes.
    out, err, code = heapq("--quiet", "viz", "--max-nodes", "10", dumps.last, HostileDumps.address(2))
    assert_equal(0, code, err)
    nodes, = read_dot(out)
    assert_operator(nodes.size, :<=, 10)
    more = nodes.map { |n| n["label"][/\A\+ (\d+) more referrers\z/, 1] }.compact
    assert_equal(1, more.size, nodes.map { |n| n["label"] }.inspect)
    assert_equal(60, more.first.to_i + nodes.count { |n| n["label"].start_with?("Leak") && n["fillcolor"] != "#cfe3ff" })

    svg, err, code = heapq("--quiet", "viz", "--format", "svg", dumps.last, "String")
    assert_equal(0, code, err)
    texts = svg_texts(svg)
    assert(texts.include?(HostileDumps::LEAK_CLASS.sub("\n", "\\x0A")), texts.inspect)
    assert(texts.any? { |t| t.include?(HostileDumps::FILE) })

    path = File.join(@tmp, "hostile.html")
    _, err, code = heapq("--quiet", "report", "-o", path, *dumps)
    assert_equal(0, code, err)
    html = File.read(path)
    assert_not_include(html, "<script>window", "no markup from the dump")
    assert_not_include(html, "<img")
    assert_equal(2, html.scan(/<script\b/).size)
    assert_equal(2, html.scan("</script>").size, "nothing from the dump closes a script")
  end
end
