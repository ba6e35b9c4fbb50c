# frozen_string_literal: true

require "zlib"

# A reader of pprof's profile.proto (gzip'd), as much of it as the tests check: sample types,
# samples with their locations' functions and labels, period, times and comments.
class PprofReader
  Sample = Struct.new(:values, :frames, :labels) # frames: [[name, file, line]], innermost first

  attr_reader :types, :samples, :period, :period_type, :time_nanos, :duration_nanos, :comments, :default_type

  def initialize(bytes)
    fields = self.class.fields(Zlib.gunzip(bytes))
    strings = fields.select { |f, _| f == 6 }.map { |_, v| v.dup.force_encoding(Encoding::UTF_8) }
    s = ->(i) { strings.fetch(i) }
    value_type = ->(m) { self.class.fields(m).to_h.then { |t| [s.(t[1] || 0), s.(t[2] || 0)] } }
    functions = fields.select { |f, _| f == 5 }.to_h do |_, m|
      t = self.class.fields(m).to_h
      [t[1], [s.(t[2] || 0), s.(t[4] || 0)]]
    end
    locations = fields.select { |f, _| f == 4 }.to_h do |_, m|
      t = self.class.fields(m)
      id = t.find { |f, _| f == 1 }[1]
      line = self.class.fields(t.find { |f, _| f == 4 }[1]).to_h
      [id, functions.fetch(line[1]) + [line[2] || 0]]
    end
    @types = fields.select { |f, _| f == 1 }.map { |_, m| value_type.(m) }
    @samples = fields.select { |f, _| f == 2 }.map do |_, m|
      t = self.class.fields(m)
      ids = t.select { |f, _| f == 1 }.flat_map { |_, v| self.class.varints(v) }
      values = t.select { |f, _| f == 2 }.flat_map { |_, v| self.class.varints(v) }
      labels = t.select { |f, _| f == 3 }.to_h { |_, l| self.class.fields(l).to_h.then { |x| [s.(x[1]), s.(x[2] || 0)] } }
      Sample.new(values, ids.map { |id| locations.fetch(id) }, labels)
    end
    top = fields.to_h { |f, v| [f, v] }
    @period_type = value_type.(top.fetch(11))
    @period = top.fetch(12)
    @time_nanos = top.fetch(9)
    @duration_nanos = top.fetch(10)
    @comments = fields.select { |f, _| f == 13 }.map { |_, i| s.(i) }
    @default_type = s.(top.fetch(14))
  end

  # Sums of each value type over the samples that the block selects.
  def totals(&select)
    chosen = select ? @samples.select(&select) : @samples
    @types.each_with_index.to_h { |(type, _), i| [type, chosen.sum { |smp| smp.values[i] }] }
  end

  # Live objects and bytes by "LINE CLASS", LINE the innermost frame's line in file, of the
  # samples with a frame there.
  def inuse_by_line(file)
    objects = @types.index(%w[inuse_objects count])
    bytes = @types.index(%w[inuse_space bytes])
    sites = Hash.new { |h, k| h[k] = [0, 0] }
    @samples.each do |s|
      frame = s.frames.find { |_, f, _| f == file } or next
      site = sites["#{frame[2]} #{s.labels['class']}"]
      site[0] += s.values[objects]
      site[1] += s.values[bytes]
    end
    sites
  end

  # [field, value] pairs of a message: varints as Integers, length-delimited fields as Strings.
  def self.fields(bytes)
    out = []
    pos = 0
    while pos < bytes.bytesize
      key, pos = varint(bytes, pos)
      case key & 7
      when 0 then value, pos = varint(bytes, pos)
      when 2
        length, pos = varint(bytes, pos)
        value = bytes.byteslice(pos, length)
        pos += length
      else raise "wire type #{key & 7} at #{pos}"
      end
      out << [key >> 3, value]
    end
    out
  end

  def self.varints(bytes)
    return [bytes] if bytes.is_a?(Integer) # one value, not packed

    out = []
    pos = 0
    while pos < bytes.bytesize
      v, pos = varint(bytes, pos)
      out << v
    end
    out
  end

  def self.varint(bytes, pos)
    value = shift = 0
    loop do
      byte = bytes.getbyte(pos)
      pos += 1
      value |= (byte & 0x7f) << shift
      return [value, pos] if byte < 0x80

      shift += 7
    end
  end
end
