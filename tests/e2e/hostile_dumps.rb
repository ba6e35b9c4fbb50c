# Writes three memprof dumps of one made-up process whose class names, file paths, method
# names, hash keys, reference names and string values are markup, script and DOT syntax, with
# a group of objects that grows (a leak for heapq leaks and heapq report to find).
# Usage: ruby tests/e2e/hostile_dumps.rb OUTDIR  (prints the three paths)
require "json"

module HostileDumps
  SCRIPT = "<script>window.__heapq_pwned = 1</script>"
  IMG = "<img src=x onerror=\"window.__heapq_pwned = 1\">"
  ODD = "\"'</svg>]]>\\{}|<>&amp;\n"
  LEAK_CLASS = "Leak#{SCRIPT}#{ODD}"
  HOLDER_CLASS = "Holder#{IMG}"
  FILE = "/app/#{SCRIPT}/x\"</svg>]]>\\{}|<>.rb"
  METHOD = "m#{IMG}"
  HASH_KEY = "[\"</script><script>window.__heapq_pwned = 1</script>\"]"
  VALUE = "#{SCRIPT}#{IMG}#{ODD}"

  def self.address(n) = format("0x%x", 0x10000 + n * 0x28)

  # The records of dump number `index` (1, 2, 3): 20 more leaked objects each time.
  def self.records(index)
    cls = address(1)
    leak_cls = address(2)
    holder_cls = address(3)
    string_cls = address(4)
    hash_cls = address(5)
    holder = address(10)
    hash = address(11)
    leaked = (0...index * 20).map { |i| address(100 + 2 * i) }
    strings = (0...index * 20).map { |i| address(101 + 2 * i) }
    out = []
    out << { type: "META", format: "memprof", version: 1, ruby_version: "3.1.7", pid: 42, time: "2026-01-01T00:00:0#{index}+00:00", gc_count: index }
    out << { type: "ROOT", root: "vm", references: [holder_cls], reference_names: ["$#{SCRIPT}"] }
    out << { address: cls, type: "CLASS", name: "Class", references: [], memsize: 200 }
    out << { address: string_cls, type: "CLASS", class: cls, class_name: "Class", name: "String", references: [cls], memsize: 200 }
    out << { address: hash_cls, type: "CLASS", class: cls, class_name: "Class", name: "Hash", references: [cls], memsize: 200 }
    out << { address: leak_cls, type: "CLASS", class: cls, class_name: "Class", name: LEAK_CLASS, references: [cls], memsize: 200 }
    out << { address: holder_cls, type: "CLASS", class: cls, class_name: "Class", name: HOLDER_CLASS,
             references: [cls, holder], reference_names: ["(class)", "@#{IMG}"], memsize: 200 }
    out << { address: holder, type: "OBJECT", class: holder_cls, class_name: HOLDER_CLASS, references: [holder_cls, hash],
             reference_names: ["(class)", "@cache#{ODD}"], memsize: 40, file: FILE, line: 3, method: METHOD }
    out << { address: hash, type: "HASH", class: hash_cls, class_name: "Hash", size: leaked.size, references: [hash_cls, *leaked],
             reference_names: ["(class)", *leaked.each_index.map { |i| i.zero? ? HASH_KEY : "[\"k#{i}\"]" }], memsize: 400 }
    leaked.each_with_index do |a, i|
      out << { address: a, type: "OBJECT", class: leak_cls, class_name: LEAK_CLASS, references: [leak_cls, strings[i]],
               reference_names: ["(class)", "@value#{IMG}"], memsize: 40, file: FILE, line: 7, method: METHOD }
      out << { address: strings[i], type: "STRING", class: string_cls, class_name: "String", value: VALUE, bytesize: VALUE.bytesize,
               references: [string_cls], reference_names: ["(class)"], memsize: 80, file: FILE, line: 8, method: METHOD }
    end
    out << { type: "END", records: out.size }
    out
  end

  def self.write(dir)
    (1..3).map do |index|
      path = File.join(dir, "hostile-#{index}.jsonl")
      File.write(path, records(index).map { |r| JSON.generate(r) }.join("\n") + "\n")
      path
    end
  end
end

puts HostileDumps.write(ARGV.fetch(0)) if $PROGRAM_NAME == __FILE__
