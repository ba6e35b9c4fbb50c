# frozen_string_literal: true

# Every record of a dump validates against schemas/memprof-dump.schema.json (a draft-04 subset
# validator below: type, enum, pattern, minimum, required, properties, items, $ref, oneOf).
require_relative "memprof_test_helper"

class TestSchema < Test::Unit::TestCase
  include MemprofTestHelper

  SCHEMA_PATH = File.expand_path("../../schemas/memprof-dump.schema.json", __dir__)
  JSON_TYPES = {
    "object" => ->(v) { v.is_a?(Hash) }, "array" => ->(v) { v.is_a?(Array) },
    "string" => ->(v) { v.is_a?(String) }, "integer" => ->(v) { v.is_a?(Integer) },
    "number" => ->(v) { v.is_a?(Numeric) }, "boolean" => ->(v) { v == true || v == false },
    "null" => ->(v) { v.nil? }
  }.freeze

  def setup
    @schema = JSON.parse(File.read(SCHEMA_PATH))
  end

  def test_every_record_of_a_tracked_dump_validates
    Memprof.start
    sample = { "key" => [+"value", 1.5, 2**80, :"dyn#{rand(9)}"], obj: Struct.new(:a).new(Object.new) }
    errors = []
    dump_heap.text.each_line.with_index do |line, number|
      problems = []
      validate(@schema, JSON.parse(line), "line #{number + 1}", problems)
      errors << problems.first unless problems.empty?
      break if errors.size >= 5
    end
    assert_empty(errors)
    assert(sample)
  ensure
    Memprof.stop
  end

  # The schema is the list of fields: each one a dump writes is described there, under the
  # definition of its record's type.
  def test_every_field_written_is_in_the_schema
    definitions = @schema["definitions"]
    by_type = %w[meta end root frame stack shape].to_h { |d| [definitions[d].dig("properties", "type", "enum", 0), d] }
    undescribed = Hash.new { |h, k| h[k] = [] }
    dump_heap.text.each_line do |line|
      record = JSON.parse(line)
      definition = definitions[by_type.fetch(record["type"], "object")]
      (record.keys - definition["properties"].keys).each { |key| undescribed[key] << record["type"] }
    end
    assert_empty(undescribed.transform_values(&:uniq))
  end

  def test_the_validator_rejects_bad_records
    bad = [{ "type" => "OBJECT" }, { "type" => "STRING", "address" => "0xABC" },
           { "type" => "END" }, { "type" => "ROOT", "root" => "vm", "references" => [1] }]
    bad.each do |record|
      problems = []
      validate(@schema, record, "bad", problems)
      assert_not_empty(problems, record.inspect)
    end
  end

  private

  def validate(schema, value, where, errors)
    schema = resolve(schema["$ref"]) if schema["$ref"]
    if (types = schema["type"])
      unless Array(types).any? { |t| JSON_TYPES.fetch(t).call(value) }
        return errors << "#{where}: #{value.inspect[0, 80]} is not #{types}"
      end
    end
    errors << "#{where}: #{value.inspect} not in #{schema["enum"]}" if schema["enum"] && !schema["enum"].include?(value)
    errors << "#{where}: #{value} does not match #{schema["pattern"]}" if schema["pattern"] && value.is_a?(String) && !pattern(schema["pattern"]).match?(value)
    errors << "#{where}: #{value} < #{schema["minimum"]}" if schema["minimum"] && value.is_a?(Numeric) && value < schema["minimum"]
    if value.is_a?(Hash)
      (schema["required"] || []).each { |key| errors << "#{where}: missing #{key}" unless value.key?(key) }
      (schema["properties"] || {}).each do |key, sub|
        validate(sub, value[key], "#{where}.#{key}", errors) if value.key?(key)
      end
    end
    value.each_with_index { |item, i| validate(schema["items"], item, "#{where}[#{i}]", errors) } if value.is_a?(Array) && schema["items"]
    validate_one_of(schema["oneOf"], value, where, errors) if schema["oneOf"]
  end

  def validate_one_of(choices, value, where, errors)
    matches = choices.count do |choice|
      choice = resolve(choice["$ref"]) if choice["$ref"]
      # Shortcut: a choice whose "type" enum excludes the record's type cannot match.
      type_enum = choice.dig("properties", "type", "enum")
      next false if type_enum && value.is_a?(Hash) && !type_enum.include?(value["type"])

      sub = []
      validate(choice, value, where, sub)
      sub.empty?
    end
    errors << "#{where}: matches #{matches} of oneOf: #{value.inspect[0, 200]}" unless matches == 1
  end

  def pattern(source)
    (@patterns ||= {})[source] ||= Regexp.new(source)
  end

  def resolve(ref)
    ref.delete_prefix("#/").split("/").reduce(@schema) { |node, key| node.fetch(key) }
  end
end
