// The records of one chunk of a dump as the parser found them, before addresses are resolved.
// Strings are interned per chunk (no locking while parsing); the graph builder maps them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "heapq/read/address_hash.h"
#include "heapq/read/load_report.h"
#include "heapq/read/object_type.h"
#include "heapq/read/string_table.h"

namespace heapq {

// Per-record facts of CLASS, MODULE and ICLASS records that class naming needs.
struct ClassRecord {
  uint32_t object = 0;  // index of the record among the chunk's objects
  StringId name;        // "name"
  StringId real_class_name;
  bool singleton = false;
  uint64_t superclass = 0;
};

// A class as the chunk's objects name it: an address, or for IMEMO objects (whose class slot
// holds internal data) their imemo_type; address 0 without a type is "no class". An ICLASS
// record's class slot is the module it includes: kept for its class edge, but the record is
// not an instance of that module.
struct ClassKey {
  uint64_t address = 0;
  StringId imemo_type;
  bool imemo = false;
  bool iclass = false;
  // A profiler's own DATA object (the allocation tracer): its struct name is in imemo_type.
  bool profiler = false;
  ObjectType hidden = ObjectType::kNone;  // address 0: the object's type (hidden_class_name)
  bool operator==(const ClassKey&) const = default;
};

// An allocation site in the chunk's own string ids.
struct SiteKey {
  StringId file;
  uint32_t line = 0;
  StringId method;
  bool operator==(const SiteKey&) const = default;
};

// The tables of class and site keys (each chunk's, the graph's) hash them under the random key
// (read/address_hash.h), one part after another: parts combined by plain arithmetic first (a
// line chosen against a method id, addresses equal modulo a table's size) would collide for
// any key, as a crafted dump's would.
struct ClassKeyHash {
  size_t operator()(const ClassKey& k) const {
    return address_hash(k.address ^ address_hash(uint64_t{k.imemo_type.value()} << 32 |
                                                 uint64_t(k.hidden) << 8 | uint64_t{k.imemo} << 2 |
                                                 uint64_t{k.iclass} << 1 | uint64_t{k.profiler}));
  }
};
struct SiteKeyHash {
  size_t operator()(const SiteKey& k) const {
    return address_hash((uint64_t{k.file.value()} << 32 | k.line) ^ address_hash(k.method.value()));
  }
};

// An object's memprof "class_name" field.
struct ObjectLabel {
  uint32_t object = 0;
  StringId label;
};

// memprof's FRAME record: an allocation stack's frame, as a site.
struct FrameRecord {
  uint32_t id = 0;
  uint32_t site = 0;  // index into site_keys
};

// memprof's STACK record: its frame ids end at frames_end in ParsedChunk::stack_frames.
struct StackRecord {
  uint32_t id = 0;
  uint32_t frames_end = 0;
};

// A STRING record's value, with LoadOptions::values.
struct ValueRecord {
  uint32_t object = 0;
  uint64_t offset = 0, size = 0;  // in ParsedChunk::value_bytes: as the dump has them (maybe cut)
  uint64_t bytesize = 0;
  uint64_t hash = 0;  // memprof's value_hash of a cut value; 0: none
  bool frozen = false, interned = false;
};

struct RootRecord {
  StringId category;
  uint32_t refs_end = 0;  // end of its references in ParsedChunk::root_refs
};

struct ParsedChunk {
  // Objects, as parallel arrays. Classes and sites are resolved per chunk while parsing (in
  // parallel), so the builder maps a few keys instead of hashing every object.
  std::vector<uint64_t> address;
  std::vector<uint64_t> record_line;  // the line of each object's record, relative to the chunk
  std::vector<ObjectType> type;
  std::vector<uint64_t> memsize;
  std::vector<uint32_t> class_slot;  // index into class_keys
  std::vector<uint32_t> site_slot;   // index into site_keys, kNoSite without one
  std::vector<uint32_t> generation;
  std::vector<uint64_t> seq;       // memprof's allocation sequence numbers; empty without any
  std::vector<uint32_t> stack;     // memprof's allocation stack ids (0: none); empty without any
  std::vector<uint32_t> refs_end;  // end of each object's references in refs
  std::vector<uint64_t> refs;
  std::vector<StringId> ref_names;  // parallel to refs once any record names a reference

  std::vector<ClassKey> class_keys;
  std::vector<SiteKey> site_keys;
  static constexpr uint32_t kNoSite = UINT32_MAX;

  std::vector<ClassRecord> classes;
  std::vector<ObjectLabel> class_names;  // memprof's class_name fields
  std::vector<uint32_t> weak_holders;    // objects whose references are weak (WeakMap)
  // memprof's Procs: where each one's block is written, as (object, index into site_keys).
  std::vector<std::pair<uint32_t, uint32_t>> block_sites;

  // memprof's allocation stacks, by the dump's ids (which the builder resolves across chunks).
  std::vector<FrameRecord> frames;
  std::vector<StackRecord> stacks;
  std::vector<uint32_t> stack_frames;  // frame ids, innermost first

  bool keep_values = false;  // LoadOptions::values
  std::vector<ValueRecord> string_values;
  std::vector<char> value_bytes;  // the values one after another, as they are (never repaired)

  std::vector<RootRecord> roots;
  std::vector<uint64_t> root_refs;
  std::vector<StringId> root_ref_names;  // parallel to root_refs once a ROOT names one
  // Parallel to root_refs once a ROOT gives them: the object a finalizers Array is for (memprof);
  // 0: none given.
  std::vector<uint64_t> root_ref_owners;

  StringTable strings;

  uint64_t bytes = 0;     // the chunk's text
  uint64_t consumed = 0;  // ByteSource::consumed() once the chunk was read: the input's own bytes
  uint64_t lines = 0;     // newline-terminated lines in the chunk, plus a final unterminated one
  uint64_t shapes = 0;
  uint64_t skipped_records = 0;
  std::optional<int64_t> end_records;  // memprof END record
  bool memprof_meta = false;
  std::optional<DumpOrigin> origin;  // from a META record
  uint64_t bad_lines = 0;
  std::vector<LineIssue> first_bad_lines;  // line numbers relative to the chunk (1-based)
  uint64_t repaired_strings = 0;
  std::vector<LineIssue> first_repaired_strings;

  size_t object_count() const { return address.size(); }
};

// Takes objects out of the chunk (their indexes, ascending), with every field and record that
// is theirs; the objects after them move down, and what refers to them by index follows.
void drop_objects(ParsedChunk& chunk, std::span<const uint32_t> dropped);

// Parses complete lines (text[0..len), which the parser may overwrite; text[len] must be
// writable) and appends their records to out. In strict mode it stops at the first problem.
void parse_chunk(char* text, size_t len, bool strict, ParsedChunk& out);

}  // namespace heapq
