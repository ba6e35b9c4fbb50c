# A class named to read backwards (a right-to-left override in it) and a file name with a
# newline: heapq shows both as escapes, in pictures as in text, and JSON gives them back whole.
require_relative "helper"

class TestEscaping < Test::Unit::TestCase
  include E2E

  RLO = "\u202E"
  CLASS = "Leak#{RLO}gnp.exe"
  FILE = "a\nb.rb"

  def write_dump
    records = [
      { type: "ROOT", root: "vm", references: ["0x500"] },
      { address: "0x100", type: "CLASS", class: "0x110", name: CLASS, references: [], memsize: 500 },
      { address: "0x200", type: "CLASS", class: "0x110", name: "Holder", references: [], memsize: 500 },
      { address: "0x500", type: "OBJECT", class: "0x200", references: ["0x700"], file: FILE, line: 3, method: "new", memsize: 40 },
      { address: "0x700", type: "OBJECT", class: "0x100", references: [], file: FILE, line: 4, method: "new", memsize: 40 },
    ]
    path = File.join(@tmp, "rlo.json")
    File.write(path, records.map { |r| JSON.generate(r) }.join("\n") + "\n")
    path
  end

  def test_bidi_override_is_escaped_everywhere
    dump = write_dump
    [%w[viz], %w[viz --format svg], %w[retainers], %w[dominators]].each do |command, *options|
      args = ["--quiet", *options, command, dump]
      args << CLASS unless command == "dominators"
      out, err, code = heapq(*args)
      assert_equal(0, code, "#{args.inspect}: #{err}")
      assert_not_include(out, RLO, args.inspect)
      assert_include(out, "\\u202e", args.inspect) unless command == "dominators"
      assert_not_include(out, "\nb.rb", args.inspect) unless command == "viz"
    end
    json = heapq_json("retainers", "--referrers", dump, CLASS)
    assert_equal(CLASS, json["target"]["class"])
  end
end
