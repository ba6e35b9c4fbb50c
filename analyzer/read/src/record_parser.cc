// Parses dump lines with rapidjson's SAX reader, in situ: one pass, no DOM, no copies of values.
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "heapq/base/utf8.h"
#include "heapq/read/parsed_chunk.h"

namespace heapq {

namespace {

// Fields of a record that the model keeps; everything else is skipped.
enum class Field : uint8_t {
  kOther,
  kType,
  kAddress,
  kClass,
  kReferences,
  kReferenceNames,
  kMemsize,
  kFile,
  kLine,
  kMethod,
  kGeneration,
  kName,
  kRealClassName,
  kSingleton,
  kSuperclass,
  kImemoType,
  kRoot,
  kClassName,
  kFormat,
  kRecords,
  kStruct,
  kSeq,
  kBlock,
  kPid,           // META
  kTime,          // META
  kHost,          // META
  kStarted,       // META
  kGcCount,       // META
  kCompactCount,  // META
  kUnnamed,       // META
  kId,            // FRAME, STACK
  kFrames,        // STACK
  kStack,         // an object's allocation stack
  kValue,         // STRING (kept with LoadOptions::values)
  kBytesize,
  kFrozen,
  kFstring,
  kValueHash,
  kOwners,  // ROOT finalizers (memprof): the object each Array of finalizers is for
};

// Each field's key, by Field (what error messages name).
constexpr std::string_view kFieldKeys[] = {
    "?",
    "type",
    "address",
    "class",
    "references",
    "reference_names",
    "memsize",
    "file",
    "line",
    "method",
    "generation",
    "name",
    "real_class_name",
    "singleton",
    "superclass",
    "imemo_type",
    "root",
    "class_name",
    "format",
    "records",
    "struct",
    "seq",
    "block",
    "pid",
    "time",
    "host",
    "started",
    "gc_count",
    "compact_count",
    "unnamed",
    "id",
    "frames",
    "stack",
    "value",
    "bytesize",
    "frozen",
    "fstring",
    "value_hash",
    "owners",
};
static_assert(std::size(kFieldKeys) == static_cast<size_t>(Field::kOwners) + 1);

// Keys come ~10 per record: dispatch on length and first letter before comparing bytes.
#define HEAPQ_KEY(text, field) \
  if (std::memcmp(s, text, sizeof(text) - 1) == 0) return field

// Keys of 6 bytes or fewer.
Field classify_short(const char* s, size_t n) {
  switch (n) {
    case 2:
      if (s[0] == 'i') HEAPQ_KEY("id", Field::kId);
      break;
    case 3:
      if (s[0] == 's') HEAPQ_KEY("seq", Field::kSeq);
      if (s[0] == 'p') HEAPQ_KEY("pid", Field::kPid);
      break;
    case 4:
      switch (s[0]) {
        case 't':
          HEAPQ_KEY("type", Field::kType);
          HEAPQ_KEY("time", Field::kTime);
          break;
        case 'f':
          HEAPQ_KEY("file", Field::kFile);
          break;
        case 'l':
          HEAPQ_KEY("line", Field::kLine);
          break;
        case 'n':
          HEAPQ_KEY("name", Field::kName);
          break;
        case 'r':
          HEAPQ_KEY("root", Field::kRoot);
          break;
        case 'h':
          HEAPQ_KEY("host", Field::kHost);
          break;
      }
      break;
    case 5:
      if (s[0] == 'c') HEAPQ_KEY("class", Field::kClass);
      if (s[0] == 'b') HEAPQ_KEY("block", Field::kBlock);
      if (s[0] == 's') HEAPQ_KEY("stack", Field::kStack);
      if (s[0] == 'v') HEAPQ_KEY("value", Field::kValue);
      break;
    case 6:
      if (s[0] == 'm') HEAPQ_KEY("method", Field::kMethod);
      if (s[0] == 'f') HEAPQ_KEY("format", Field::kFormat);
      if (s[0] == 's') HEAPQ_KEY("struct", Field::kStruct);
      if (s[0] == 'f') HEAPQ_KEY("frames", Field::kFrames);
      if (s[0] == 'f') HEAPQ_KEY("frozen", Field::kFrozen);
      if (s[0] == 'o') HEAPQ_KEY("owners", Field::kOwners);
      break;
  }
  return Field::kOther;
}

// Keys of 7 bytes or more.
Field classify_long(const char* s, size_t n) {
  switch (n) {
    case 7:
      switch (s[0]) {
        case 'a':
          HEAPQ_KEY("address", Field::kAddress);
          break;
        case 'm':
          HEAPQ_KEY("memsize", Field::kMemsize);
          break;
        case 'r':
          HEAPQ_KEY("records", Field::kRecords);
          break;
        case 'u':
          HEAPQ_KEY("unnamed", Field::kUnnamed);
          break;
        case 'f':
          HEAPQ_KEY("fstring", Field::kFstring);
          break;
        case 's':
          HEAPQ_KEY("started", Field::kStarted);
          break;
      }
      break;
    case 8:
      if (s[0] == 'g') HEAPQ_KEY("gc_count", Field::kGcCount);
      if (s[0] == 'b') HEAPQ_KEY("bytesize", Field::kBytesize);
      break;
    case 9:
      if (s[0] == 's') HEAPQ_KEY("singleton", Field::kSingleton);
      break;
    case 10:
      switch (s[0]) {
        case 'r':
          HEAPQ_KEY("references", Field::kReferences);
          break;
        case 'g':
          HEAPQ_KEY("generation", Field::kGeneration);
          break;
        case 's':
          HEAPQ_KEY("superclass", Field::kSuperclass);
          break;
        case 'i':
          HEAPQ_KEY("imemo_type", Field::kImemoType);
          break;
        case 'c':
          HEAPQ_KEY("class_name", Field::kClassName);
          break;
        case 'v':
          HEAPQ_KEY("value_hash", Field::kValueHash);
          break;
      }
      break;
    case 13:
      if (s[0] == 'c') HEAPQ_KEY("compact_count", Field::kCompactCount);
      break;
    case 15:
      if (s[0] == 'r' && s[2] == 'f') HEAPQ_KEY("reference_names", Field::kReferenceNames);
      if (s[0] == 'r' && s[2] == 'a') HEAPQ_KEY("real_class_name", Field::kRealClassName);
      break;
  }
  return Field::kOther;
}
#undef HEAPQ_KEY

Field classify(const char* s, size_t n) {
  return n <= 6 ? classify_short(s, n) : classify_long(s, n);
}

// Value of each hex digit, 0xff for other characters.
constexpr auto kHexDigits = [] {
  std::array<uint8_t, 256> t{};
  for (auto& v : t) v = 0xff;
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[c] = static_cast<uint8_t>(c - 'A' + 10);
  return t;
}();

// "7f3a9c0b1e28" (1 to 16 hex digits) -> its value; false when it is not one.
bool parse_hex(const char* s, size_t n, uint64_t& out) {
  if (n < 1 || n > 16) return false;
  uint64_t v = 0;
  uint8_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t d = kHexDigits[static_cast<unsigned char>(s[i])];
    bad |= d;
    v = v << 4 | (d & 0xf);
  }
  if (bad & 0xf0) return false;  // some character was not a hex digit
  out = v;
  return true;
}

// "0x7f3a9c0b1e28" -> its value; false when it is not a hex address.
bool parse_address(const char* s, size_t n, uint64_t& out) {
  if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  return parse_hex(s + 2, n - 2, out);
}

// The fields of the record being parsed; string views point into the line (in situ).
struct Record {
  std::string_view type;
  uint64_t address = 0;
  bool has_address = false;
  uint64_t class_address = 0;
  uint64_t memsize = 0;
  std::string_view file, method, name, real_class_name, imemo_type, root, class_name, format,
      struct_name;
  bool has_file = false, has_method = false;
  uint64_t line = 0;
  uint64_t generation = 0;
  uint64_t seq = 0;
  bool has_seq = false;
  std::string_view block_file, block_method;  // memprof: where a Proc's block is written
  uint64_t block_line = 0;
  uint64_t pid = 0;  // META
  std::string_view time, host, started;
  int64_t gc_count = -1;
  int64_t compact_count = -1;
  bool singleton = false;
  uint64_t superclass = 0;
  int64_t records = -1;
  size_t names = 0;  // reference_names seen
  uint64_t id = 0;   // FRAME, STACK
  bool has_id = false;
  uint64_t stack = 0;  // an object's allocation stack; 0: none
  std::string_view value;
  bool has_value = false, frozen = false, fstring = false;
  uint64_t bytesize = 0, value_hash = 0;
};

class RecordHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, RecordHandler> {
 public:
  explicit RecordHandler(ParsedChunk& out) : out_(out) {}

  void begin_line(uint64_t line) {
    line_ = line;
    depth_ = 0;
    field_ = Field::kOther;
    in_array_ = Field::kOther;
    // Made anew where it is: assigning a Record() zeroed a temporary and copied it over, 400
    // bytes each way a record (3 % of a load's time).
    std::destroy_at(&rec_);
    std::construct_at(&rec_);
    in_block_ = false;
    error_.clear();
    refs_mark_ = out_.refs.size();
    frames_mark_ = out_.stack_frames.size();
    names_.clear();
    owners_.clear();
    unnamed_.clear();
    repaired_mark_ = out_.repaired_strings;
    issues_mark_ = out_.first_repaired_strings.size();
  }
  // Undoes what a line that failed had appended.
  void abandon_line() {
    out_.refs.resize(refs_mark_);
    out_.stack_frames.resize(frames_mark_);
    out_.repaired_strings = repaired_mark_;
    out_.first_repaired_strings.resize(issues_mark_);
  }
  const std::string& error() const { return error_; }
  // After a line parsed as one JSON value: adds its record, or fails (error()).
  bool finish_line() { return commit(); }
  bool fail_line(std::string message) { return fail(std::move(message)); }

  bool StartObject() {
    if (depth_ >= kMaxDepth) return too_deep();
    if (depth_ == 0) {
      ++depth_;
      return true;
    }
    if (depth_ == 1 && (field_ == Field::kReferences || field_ == Field::kReferenceNames ||
                        field_ == Field::kOwners))
      return fail("\"" + field_name() + "\" must be an array");
    if (in_references()) return fail(kNotAnAddress);
    if (in_frames()) return fail(kNotAFrame);
    if (in_owners()) return fail(kNotAnOwner);
    if (depth_ == 1 && field_ == Field::kFrames) return fail("\"frames\" must be an array");
    if (depth_ == 1 && field_ == Field::kBlock) in_block_ = true;
    ++depth_;
    return true;
  }
  // The record is committed by finish_line(), once the whole line has parsed: junk after
  // the closing brace makes the line bad, and nothing of it may be kept.
  bool EndObject(rapidjson::SizeType) {
    if (--depth_ == 1) in_block_ = false;
    return true;
  }
  bool StartArray() {
    if (depth_ >= kMaxDepth) return too_deep();
    if (depth_ == 0) return fail("a record must be a JSON object");
    if (in_references()) return fail(kNotAnAddress);
    if (in_frames()) return fail(kNotAFrame);
    if (in_owners()) return fail(kNotAnOwner);
    if (depth_ == 1) in_array_ = field_;
    ++depth_;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    if (--depth_ == 1) in_array_ = Field::kOther;
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (depth_ == 1) field_ = classify(s, n);
    if (depth_ == 2 && in_block_) block_field_ = classify(s, n);
    return true;
  }

  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (depth_ == 2 && in_block_) {
      if (block_field_ == Field::kFile) rec_.block_file = {s, n};
      if (block_field_ == Field::kMethod) rec_.block_method = {s, n};
      return true;
    }
    if (depth_ == 2) return array_string(s, n);
    if (depth_ != 1) return true;
    if (std::string_view* text = text_field(field_)) {
      *text = {s, n};
      return true;
    }
    return field_string(s, n);
  }

  // The record's fields kept as the line writes them (views into it), by field; null for others.
  std::string_view* text_field(Field f) {
    switch (f) {
      case Field::kType:
        return &rec_.type;
      case Field::kName:
        return &rec_.name;
      case Field::kRealClassName:
        return &rec_.real_class_name;
      case Field::kImemoType:
        return &rec_.imemo_type;
      case Field::kRoot:
        return &rec_.root;
      case Field::kClassName:
        return &rec_.class_name;
      case Field::kFormat:
        return &rec_.format;
      case Field::kStruct:
        return &rec_.struct_name;
      case Field::kTime:
        return &rec_.time;
      case Field::kHost:
        return &rec_.host;
      case Field::kStarted:
        return &rec_.started;
      default:
        return nullptr;
    }
  }

  // A string at the record's top level, for a field that is not text kept as written.
  bool field_string(const char* s, rapidjson::SizeType n) {
    switch (field_) {
      case Field::kAddress:
        if (!parse_address(s, n, rec_.address)) return fail("\"address\" is not a hex address");
        rec_.has_address = true;
        break;
      case Field::kClass:
        if (!parse_address(s, n, rec_.class_address)) return fail("\"class\" is not a hex address");
        break;
      case Field::kSuperclass:
        if (!parse_address(s, n, rec_.superclass))
          return fail("\"superclass\" is not a hex address");
        break;
      case Field::kFile:
        rec_.file = {s, n};
        rec_.has_file = true;
        break;
      case Field::kMethod:
        rec_.method = {s, n};
        rec_.has_method = true;
        break;
      case Field::kValue:
        rec_.value = {s, n};
        rec_.has_value = true;
        break;
      case Field::kValueHash:
        // 16 hex digits; anything else is no hash (the value is then its own key).
        if (n != 16 || !parse_hex(s, n, rec_.value_hash)) rec_.value_hash = 0;
        break;
      case Field::kReferences:
      case Field::kReferenceNames:
      case Field::kFrames:
      case Field::kUnnamed:
      case Field::kOwners:
        return fail("\"" + field_name() + "\" must be an array");
      case Field::kId:
      case Field::kStack:
      case Field::kMemsize:
      case Field::kLine:
      case Field::kGeneration:
      case Field::kSeq:
      case Field::kRecords:
        return fail("\"" + field_name() + "\" must be a number");
      default:
        break;
    }
    return true;
  }

  bool Uint(unsigned v) { return number(v); }
  bool Uint64(uint64_t v) { return number(v); }
  bool Int(int v) { return v < 0 ? negative() : number(static_cast<uint64_t>(v)); }
  bool Int64(int64_t v) { return v < 0 ? negative() : number(static_cast<uint64_t>(v)); }
  bool Double(double) {
    if (in_references()) return fail(kNotAnAddress);
    if (in_frames()) return fail(kNotAFrame);
    if (in_owners()) return fail(kNotAnOwner);
    if (depth_ == 1 && counted_field()) return fail("\"" + field_name() + "\" must be an integer");
    return true;
  }
  bool Bool(bool b) {
    if (in_references()) return fail(kNotAnAddress);
    if (in_frames()) return fail(kNotAFrame);
    if (in_owners()) return fail(kNotAnOwner);
    if (depth_ == 1 && field_ == Field::kSingleton) rec_.singleton = b;
    if (depth_ == 1 && field_ == Field::kFrozen) rec_.frozen = b;
    if (depth_ == 1 && field_ == Field::kFstring) rec_.fstring = b;
    if (depth_ == 1 && (counted_field() || address_field()))
      return fail("\"" + field_name() + "\" has the wrong type");
    return true;
  }
  bool Null() {
    if (depth_ == 2 && in_array_ == Field::kReferenceNames) {
      names_.push_back(StringId::none());
      return true;
    }
    if (in_owners()) {
      owners_.push_back(0);
      return true;
    }
    if (in_references()) return fail(kNotAnAddress);
    if (in_frames()) return fail(kNotAFrame);
    if (in_owners()) return fail(kNotAnOwner);
    return true;
  }

 private:
  static constexpr const char* kNotAnAddress =
      "\"references\" holds something that is not an address";
  static constexpr const char* kNotAFrame = "\"frames\" holds something that is not a frame id";
  static constexpr const char* kNotAnOwner = "\"owners\" holds something that is not an address";
  // rapidjson's parser recurses once per level, before calling the handler for the level's
  // contents: stopping here bounds the stack (records nest 3 deep; 120k levels overflowed it).
  static constexpr int kMaxDepth = 100;
  bool too_deep() { return fail("values nested more than " + std::to_string(kMaxDepth) + " deep"); }

  bool in_references() const { return depth_ == 2 && in_array_ == Field::kReferences; }
  bool in_frames() const { return depth_ == 2 && in_array_ == Field::kFrames; }
  bool in_owners() const { return depth_ == 2 && in_array_ == Field::kOwners; }
  bool counted_field() const {
    return field_ == Field::kMemsize || field_ == Field::kLine || field_ == Field::kGeneration ||
           field_ == Field::kSeq || field_ == Field::kRecords || field_ == Field::kId ||
           field_ == Field::kStack;
  }
  bool address_field() const {
    return field_ == Field::kAddress || field_ == Field::kClass || field_ == Field::kSuperclass;
  }

  bool number(uint64_t v) {
    if (in_references()) return fail(kNotAnAddress);
    if (in_owners()) return fail(kNotAnOwner);
    if (in_frames()) {
      if (v == 0 || v > UINT32_MAX) return fail(kNotAFrame);
      out_.stack_frames.push_back(static_cast<uint32_t>(v));
      return true;
    }
    if (depth_ == 2 && in_block_ && block_field_ == Field::kLine) rec_.block_line = v;
    if (depth_ != 1) return true;
    switch (field_) {
      case Field::kMemsize:
        rec_.memsize = v;
        break;
      case Field::kLine:
        rec_.line = v;
        break;
      case Field::kGeneration:
        rec_.generation = v;
        break;
      case Field::kSeq:
        rec_.seq = v;
        rec_.has_seq = true;
        break;
      case Field::kRecords:
        rec_.records = static_cast<int64_t>(v);
        break;
      case Field::kId:
        rec_.id = v;
        rec_.has_id = true;
        break;
      case Field::kStack:
        rec_.stack = v;
        break;
      case Field::kPid:
        rec_.pid = v;
        break;
      case Field::kGcCount:
        rec_.gc_count = static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
        break;
      case Field::kCompactCount:
        rec_.compact_count = static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
        break;
      case Field::kUnnamed:
        return fail("\"unnamed\" must be an array");
      case Field::kBytesize:
        rec_.bytesize = v;
        break;
      case Field::kAddress:
      case Field::kClass:
      case Field::kSuperclass:
        return fail("\"" + field_name() + "\" is not a hex address");
      default:
        break;
    }
    return true;
  }
  bool negative() {
    if (in_references()) return fail(kNotAnAddress);
    if (in_frames()) return fail(kNotAFrame);
    if (in_owners()) return fail(kNotAnOwner);
    if (depth_ == 1 && (counted_field() || address_field()))
      return fail("\"" + field_name() + "\" is negative");
    return true;
  }

  bool array_string(const char* s, size_t n) {
    if (in_array_ == Field::kReferences) {
      uint64_t a;
      if (!parse_address(s, n, a)) return fail(kNotAnAddress);
      out_.refs.push_back(a);
    } else if (in_array_ == Field::kReferenceNames) {
      names_.push_back(intern({s, n}));
    } else if (in_array_ == Field::kFrames) {
      return fail(kNotAFrame);
    } else if (in_array_ == Field::kUnnamed) {
      unnamed_.emplace_back(s, n);
    } else if (in_array_ == Field::kOwners) {
      uint64_t a;
      if (!parse_address(s, n, a)) return fail(kNotAnOwner);
      owners_.push_back(a);
    }
    return true;
  }

  std::string field_name() const { return std::string(kFieldKeys[static_cast<size_t>(field_)]); }

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  // Interns a kept string, repairing bytes that are not UTF-8 (counted, never silent).
  StringId intern(std::string_view s) {
    if (valid_utf8(s)) return out_.strings.intern(s);
    ++out_.repaired_strings;
    if (out_.first_repaired_strings.size() < LoadReport::kIssuesKept)
      out_.first_repaired_strings.push_back(
          {line_, "string with bytes that are not UTF-8: \"" + repair_utf8(s) + "\""});
    return out_.strings.intern(repair_utf8(s));
  }

  // Consecutive records mostly share a file and method: a one-entry memo skips the hash lookup.
  StringId intern_cached(std::string_view s, std::string& memo_text, StringId& memo_id) {
    if (memo_id.valid() && s == memo_text) return memo_id;
    memo_id = intern(s);
    memo_text.assign(s);
    return memo_id;
  }

  bool commit();
  bool commit_object(std::optional<ObjectType> type);
  bool commit_stack_record(bool frame);
  uint32_t class_slot(ObjectType type);
  uint32_t site_slot();
  uint32_t site_slot(StringId file, uint32_t line, StringId method);
  // The method of a Proc's block site: its label ("block in render"), or "(block)" in dumps
  // that do not give it.
  StringId block_method() {
    if (!rec_.block_method.empty())
      return intern_cached(rec_.block_method, block_method_memo_, block_method_memo_id_);
    if (!unnamed_block_.valid()) unnamed_block_ = intern("(block)");
    return unnamed_block_;
  }

  std::unordered_map<ClassKey, uint32_t, ClassKeyHash> class_slots_;
  std::unordered_map<SiteKey, uint32_t, SiteKeyHash> site_slots_;
  uint32_t last_site_ = ParsedChunk::kNoSite;

  ParsedChunk& out_;
  uint64_t line_ = 0;
  int depth_ = 0;
  Field field_ = Field::kOther;
  Field in_array_ = Field::kOther;
  bool in_block_ = false;  // inside the "block" object
  Field block_field_ = Field::kOther;
  Record rec_;
  std::string error_;
  size_t refs_mark_ = 0;
  size_t frames_mark_ = 0;
  uint64_t repaired_mark_ = 0;
  size_t issues_mark_ = 0;
  std::vector<StringId> names_;
  std::vector<uint64_t> owners_;           // ROOT finalizers; 0: null
  std::vector<std::string_view> unnamed_;  // META
  // One memo each: a Proc's block file would otherwise evict the allocation file's.
  std::string file_memo_, method_memo_, block_file_memo_, block_method_memo_;
  StringId file_memo_id_, method_memo_id_, block_file_memo_id_, block_method_memo_id_,
      unnamed_block_;
};

bool RecordHandler::commit() {
  if (rec_.type.empty()) return fail("the record has no \"type\"");
  const std::string_view t = rec_.type;
  // "frames" belongs to STACK records: another record's are not kept.
  if (t != "STACK") out_.stack_frames.resize(frames_mark_);
  std::optional<ObjectType> type = parse_object_type(t);
  if (type) return commit_object(type);
  if (t == "ROOT") {
    if (!names_.empty() && names_.size() != out_.refs.size() - refs_mark_)
      return fail("\"reference_names\" and \"references\" differ in length");
    if (!names_.empty() || !out_.root_ref_names.empty()) {
      // memprof names what a root holds where it knows more than the category (finalizers).
      out_.root_ref_names.resize(out_.root_refs.size(), StringId::none());
      names_.resize(out_.refs.size() - refs_mark_, StringId::none());
      out_.root_ref_names.insert(out_.root_ref_names.end(), names_.begin(), names_.end());
    }
    if (!owners_.empty() && owners_.size() != out_.refs.size() - refs_mark_)
      return fail("\"owners\" and \"references\" differ in length");
    if (!owners_.empty() || !out_.root_ref_owners.empty()) {
      // memprof's finalizers: the object each Array is for, whose death ends the entry.
      out_.root_ref_owners.resize(out_.root_refs.size(), 0);
      owners_.resize(out_.refs.size() - refs_mark_, 0);
      out_.root_ref_owners.insert(out_.root_ref_owners.end(), owners_.begin(), owners_.end());
    }
    out_.root_refs.insert(out_.root_refs.end(), out_.refs.begin() + refs_mark_, out_.refs.end());
    out_.refs.resize(refs_mark_);
    out_.roots.push_back({intern(rec_.root.empty() ? "(unknown)" : rec_.root),
                          static_cast<uint32_t>(out_.root_refs.size())});
    return true;
  }
  if (t == "SHAPE") {
    ++out_.shapes;
  } else if (t == "META") {
    if (rec_.format == "memprof") out_.memprof_meta = true;
    out_.origin = DumpOrigin{rec_.pid,
                             std::string(rec_.time),
                             rec_.gc_count,
                             std::string(rec_.host),
                             std::string(rec_.started),
                             rec_.compact_count,
                             {unnamed_.begin(), unnamed_.end()}};
  } else if (t == "END") {
    out_.end_records = rec_.records;
  } else if (t == "FRAME" || t == "STACK") {
    return commit_stack_record(t == "FRAME");
  } else if (t == "NONE" || t == "MOVED") {
    ++out_.skipped_records;  // free or moved slots of a dump written with full: true
  } else {
    return commit_object(std::nullopt);  // a type this heapq does not know: keep the object
  }
  out_.refs.resize(refs_mark_);
  return true;
}

// memprof's allocation stacks: a FRAME is a site; a STACK lists its frames' ids.
bool RecordHandler::commit_stack_record(bool frame) {
  out_.refs.resize(refs_mark_);
  if (!rec_.has_id || rec_.id == 0 || rec_.id > UINT32_MAX)
    return fail("the record has no \"id\" (a number from 1)");
  const uint32_t id = static_cast<uint32_t>(rec_.id);
  if (!frame) {
    out_.stacks.push_back({id, static_cast<uint32_t>(out_.stack_frames.size())});
    return true;
  }
  if (!rec_.has_file) return fail("the record has no \"file\"");
  if (rec_.line > UINT32_MAX) return fail("\"line\" is out of range");
  out_.frames.push_back({id, site_slot()});
  return true;
}

bool RecordHandler::commit_object(std::optional<ObjectType> type) {
  if (!rec_.has_address) return fail("the record has no \"address\"");
  size_t nrefs = out_.refs.size() - refs_mark_;
  if (!names_.empty() && names_.size() != nrefs)
    return fail("\"reference_names\" and \"references\" differ in length");
  if (rec_.line > UINT32_MAX || rec_.generation > UINT32_MAX || rec_.stack > UINT32_MAX)
    return fail("\"line\", \"generation\" or \"stack\" is out of range");

  uint32_t index = static_cast<uint32_t>(out_.address.size());
  ObjectType ty = type.value_or(ObjectType::kUnknown);
  out_.address.push_back(rec_.address);
  out_.record_line.push_back(line_);
  out_.type.push_back(ty);
  out_.memsize.push_back(rec_.memsize);
  out_.class_slot.push_back(class_slot(ty));
  out_.site_slot.push_back(site_slot());
  out_.generation.push_back(static_cast<uint32_t>(rec_.generation));
  if (rec_.has_seq || !out_.seq.empty()) {
    out_.seq.resize(index, 0);  // pad records that had none
    out_.seq.push_back(rec_.seq);
  }
  if (rec_.stack != 0 || !out_.stack.empty()) {
    out_.stack.resize(index, 0);  // pad records that had none
    out_.stack.push_back(static_cast<uint32_t>(rec_.stack));
  }
  out_.refs_end.push_back(static_cast<uint32_t>(out_.refs.size()));
  if (!rec_.block_file.empty() && rec_.block_line <= UINT32_MAX)
    out_.block_sites.push_back(
        {index, site_slot(intern_cached(rec_.block_file, block_file_memo_, block_file_memo_id_),
                          static_cast<uint32_t>(rec_.block_line), block_method())});
  if (!names_.empty() || !out_.ref_names.empty()) {
    out_.ref_names.resize(refs_mark_, StringId::none());  // pad records that had no names
    if (names_.empty()) names_.assign(nrefs, StringId::none());
    out_.ref_names.insert(out_.ref_names.end(), names_.begin(), names_.end());
  }
  if (ty == ObjectType::kClass || ty == ObjectType::kModule || ty == ObjectType::kIclass) {
    ClassRecord c;
    c.object = index;
    if (!rec_.name.empty()) c.name = intern(rec_.name);
    if (!rec_.real_class_name.empty()) c.real_class_name = intern(rec_.real_class_name);
    c.singleton = rec_.singleton;
    c.superclass = rec_.superclass;
    out_.classes.push_back(c);
  }
  if (!rec_.class_name.empty()) out_.class_names.push_back({index, intern(rec_.class_name)});
  if (out_.keep_values && ty == ObjectType::kString && rec_.has_value) {
    out_.string_values.push_back({index, out_.value_bytes.size(), rec_.value.size(), rec_.bytesize,
                                  rec_.value_hash, rec_.frozen, rec_.fstring});
    out_.value_bytes.insert(out_.value_bytes.end(), rec_.value.begin(), rec_.value.end());
  }
  // ObjectSpace::WeakMap ("weakmap"), and ObjectSpace::WeakKeyMap since Ruby 3.3.
  if (ty == ObjectType::kData &&
      (rec_.struct_name == "weakmap" || rec_.struct_name == "weakkeymap"))
    out_.weak_holders.push_back(index);
  return true;
}

uint32_t RecordHandler::class_slot(ObjectType type) {
  ClassKey key;
  if (type == ObjectType::kImemo) {
    key.imemo = true;
    key.imemo_type = intern(rec_.imemo_type.empty() ? std::string_view("?") : rec_.imemo_type);
  } else {
    key.address = rec_.class_address;
    key.iclass = type == ObjectType::kIclass;
    if (key.address == 0) key.hidden = type;
    // ObjectSpace's allocation tracer (16-64 MB, an Object to Ruby) and memprof's tracker are
    // the profiler's overhead, not the application's memory: named by their struct.
    if (type == ObjectType::kData && (rec_.struct_name == "ObjectTracing/allocation_info_tracer" ||
                                      rec_.struct_name == "memprof/tracker")) {
      key.profiler = true;
      key.imemo_type = intern(rec_.struct_name);
    }
  }
  auto [it, added] = class_slots_.try_emplace(key, static_cast<uint32_t>(out_.class_keys.size()));
  if (added) out_.class_keys.push_back(key);
  return it->second;
}

uint32_t RecordHandler::site_slot() {
  if (!rec_.has_file) return ParsedChunk::kNoSite;
  return site_slot(intern_cached(rec_.file, file_memo_, file_memo_id_),
                   static_cast<uint32_t>(rec_.line),
                   rec_.has_method ? intern_cached(rec_.method, method_memo_, method_memo_id_)
                                   : StringId::none());
}

uint32_t RecordHandler::site_slot(StringId file, uint32_t line, StringId method) {
  SiteKey key{file, line, method};
  if (last_site_ != ParsedChunk::kNoSite && key == out_.site_keys[last_site_]) return last_site_;
  auto [it, added] = site_slots_.try_emplace(key, static_cast<uint32_t>(out_.site_keys.size()));
  if (added) out_.site_keys.push_back(key);
  return last_site_ = it->second;
}

// Parses one line (NUL-terminated at line_end) and commits its record: all or nothing.
template <unsigned Flags>
bool parse_line(rapidjson::Reader& reader, RecordHandler& handler, char* line,
                const char* line_end) {
  rapidjson::InsituStringStream stream(line);
  if (reader.Parse<Flags>(stream, handler).IsError()) return false;
  // The parser stops at a NUL: one before the line's end is a byte the line holds.
  if (line + stream.Tell() != line_end)
    return handler.fail_line("a NUL byte in the line (column " + std::to_string(stream.Tell() + 1) +
                             ")");
  return handler.finish_line();
}

std::string describe_error(const rapidjson::Reader& reader, const RecordHandler& handler) {
  if (!handler.error().empty()) return handler.error();
  return std::string("invalid JSON: ") + rapidjson::GetParseError_En(reader.GetParseErrorCode()) +
         " (column " + std::to_string(reader.GetErrorOffset() + 1) + ")";
}

bool blank(const char* s, const char* end) {
  for (; s < end; ++s)
    if (*s != ' ' && *s != '\t' && *s != '\r') return false;
  return true;
}

}  // namespace

void parse_chunk(char* text, size_t len, bool strict, ParsedChunk& out) {
  constexpr unsigned kFast = rapidjson::kParseInsituFlag;
  constexpr unsigned kStrict = rapidjson::kParseInsituFlag | rapidjson::kParseValidateEncodingFlag;
  rapidjson::Reader reader;
  RecordHandler handler(out);
  char* p = text;
  char* const end = text + len;
  while (p < end) {
    char* nl = static_cast<char*>(std::memchr(p, '\n', end - p));
    char* line_end = nl ? nl : end;
    *line_end = '\0';
    ++out.lines;
    if (!blank(p, line_end)) {
      handler.begin_line(out.lines);
      bool ok = strict ? parse_line<kStrict>(reader, handler, p, line_end)
                       : parse_line<kFast>(reader, handler, p, line_end);
      if (!ok) {
        handler.abandon_line();
        ++out.bad_lines;
        if (out.first_bad_lines.size() < LoadReport::kIssuesKept)
          out.first_bad_lines.push_back({out.lines, describe_error(reader, handler)});
        if (strict) return;
      } else if (strict && out.repaired_strings > 0) {
        return;
      }
    }
    p = line_end + 1;
  }
}

}  // namespace heapq
