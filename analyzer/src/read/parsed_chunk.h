// The records of one chunk of a dump as the parser found them, before addresses are resolved.
// Strings are interned per chunk (no locking while parsing); the graph builder maps them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "heapq/load.h"
#include "heapq/object_type.h"
#include "heapq/string_table.h"

namespace heapq {

// Per-record facts of CLASS, MODULE and ICLASS records that class naming needs.
struct ClassRecord {
  uint32_t object = 0;  // index of the record among the chunk's objects
  StringId name;        // "name"
  StringId real_class_name;
  bool singleton = false;
  uint64_t superclass = 0;
};

// An object's memprof "class_name" field, or an IMEMO's imemo_type.
struct ObjectLabel {
  uint32_t object = 0;
  StringId label;
};

struct RootRecord {
  StringId category;
  uint32_t refs_end = 0;  // end of its references in ParsedChunk::root_refs
};

struct ParsedChunk {
  // Objects, as parallel arrays.
  std::vector<uint64_t> address;
  std::vector<uint64_t> class_address;  // 0 when the record has no class field
  std::vector<ObjectType> type;
  std::vector<uint64_t> memsize;
  std::vector<StringId> file;
  std::vector<uint32_t> line;
  std::vector<StringId> method;
  std::vector<uint32_t> generation;
  std::vector<uint32_t> refs_end;   // end of each object's references in refs
  std::vector<uint64_t> refs;
  std::vector<StringId> ref_names;  // parallel to refs once any record names a reference

  std::vector<ClassRecord> classes;
  std::vector<ObjectLabel> class_names;  // memprof's class_name fields
  std::vector<ObjectLabel> imemo_types;

  std::vector<RootRecord> roots;
  std::vector<uint64_t> root_refs;

  StringTable strings;

  uint64_t lines = 0;  // newline-terminated lines in the chunk, plus a final unterminated one
  uint64_t shapes = 0;
  uint64_t skipped_records = 0;
  std::optional<int64_t> end_records;  // memprof END record
  bool memprof_meta = false;
  uint64_t bad_lines = 0;
  std::vector<LineIssue> first_bad_lines;  // line numbers relative to the chunk (1-based)
  uint64_t repaired_strings = 0;
  std::vector<LineIssue> first_repaired_strings;

  size_t object_count() const { return address.size(); }
};

// Parses complete lines (text[0..len), which the parser may overwrite; text[len] must be
// writable) and appends their records to out. In strict mode it stops at the first problem.
void parse_chunk(char* text, size_t len, bool strict, ParsedChunk& out);

}  // namespace heapq
