// Parses dump lines with rapidjson's SAX reader, in situ: one pass, no DOM, no copies of values.
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstring>
#include <string>
#include <string_view>

#include "read/parsed_chunk.h"
#include "read/utf8.h"

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
};

Field classify(const char* s, size_t n) {
  std::string_view k(s, n);
  switch (n) {
    case 4:
      if (k == "type") return Field::kType;
      if (k == "file") return Field::kFile;
      if (k == "line") return Field::kLine;
      if (k == "name") return Field::kName;
      if (k == "root") return Field::kRoot;
      break;
    case 5:
      if (k == "class") return Field::kClass;
      break;
    case 6:
      if (k == "method") return Field::kMethod;
      if (k == "format") return Field::kFormat;
      break;
    case 7:
      if (k == "address") return Field::kAddress;
      if (k == "memsize") return Field::kMemsize;
      if (k == "records") return Field::kRecords;
      break;
    case 9:
      if (k == "singleton") return Field::kSingleton;
      break;
    case 10:
      if (k == "references") return Field::kReferences;
      if (k == "generation") return Field::kGeneration;
      if (k == "superclass") return Field::kSuperclass;
      if (k == "imemo_type") return Field::kImemoType;
      if (k == "class_name") return Field::kClassName;
      break;
    case 15:
      if (k == "reference_names") return Field::kReferenceNames;
      if (k == "real_class_name") return Field::kRealClassName;
      break;
    default:
      break;
  }
  return Field::kOther;
}

// "0x7f3a9c0b1e28" -> its value; false when it is not a hex address.
bool parse_address(const char* s, size_t n, uint64_t& out) {
  if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  uint64_t v = 0;
  for (size_t i = 2; i < n; ++i) {
    unsigned c = static_cast<unsigned char>(s[i]);
    unsigned d;
    if (c - '0' < 10) d = c - '0';
    else if ((c | 0x20) - 'a' < 6) d = (c | 0x20) - 'a' + 10;
    else return false;
    v = v << 4 | d;
  }
  out = v;
  return true;
}

// The fields of the record being parsed; string views point into the line (in situ).
struct Record {
  std::string_view type;
  uint64_t address = 0;
  bool has_address = false;
  uint64_t class_address = 0;
  uint64_t memsize = 0;
  std::string_view file, method, name, real_class_name, imemo_type, root, class_name, format;
  bool has_file = false, has_method = false;
  uint64_t line = 0;
  uint64_t generation = 0;
  bool singleton = false;
  uint64_t superclass = 0;
  int64_t records = -1;
  size_t names = 0;  // reference_names seen
};

class RecordHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, RecordHandler> {
 public:
  explicit RecordHandler(ParsedChunk& out) : out_(out) {}

  void begin_line(uint64_t line) {
    line_ = line;
    depth_ = 0;
    field_ = Field::kOther;
    in_array_ = Field::kOther;
    rec_ = Record();
    error_.clear();
    refs_mark_ = out_.refs.size();
    names_.clear();
    repaired_mark_ = out_.repaired_strings;
    issues_mark_ = out_.first_repaired_strings.size();
  }
  // Undoes what a line that failed had appended.
  void abandon_line() {
    out_.refs.resize(refs_mark_);
    out_.repaired_strings = repaired_mark_;
    out_.first_repaired_strings.resize(issues_mark_);
  }
  const std::string& error() const { return error_; }

  bool StartObject() {
    if (depth_ == 0) {
      ++depth_;
      return true;
    }
    if (depth_ == 1 && (field_ == Field::kReferences || field_ == Field::kReferenceNames))
      return fail("\"" + field_name() + "\" must be an array");
    if (in_references()) return fail(kNotAnAddress);
    ++depth_;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    if (--depth_ == 0) return commit();
    return true;
  }
  bool StartArray() {
    if (depth_ == 0) return fail("a record must be a JSON object");
    if (in_references()) return fail(kNotAnAddress);
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
    return true;
  }

  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (depth_ == 2) return array_string(s, n);
    if (depth_ != 1) return true;
    switch (field_) {
      case Field::kType: rec_.type = {s, n}; break;
      case Field::kAddress:
        if (!parse_address(s, n, rec_.address)) return fail("\"address\" is not a hex address");
        rec_.has_address = true;
        break;
      case Field::kClass:
        if (!parse_address(s, n, rec_.class_address)) return fail("\"class\" is not a hex address");
        break;
      case Field::kSuperclass:
        if (!parse_address(s, n, rec_.superclass)) return fail("\"superclass\" is not a hex address");
        break;
      case Field::kFile: rec_.file = {s, n}; rec_.has_file = true; break;
      case Field::kMethod: rec_.method = {s, n}; rec_.has_method = true; break;
      case Field::kName: rec_.name = {s, n}; break;
      case Field::kRealClassName: rec_.real_class_name = {s, n}; break;
      case Field::kImemoType: rec_.imemo_type = {s, n}; break;
      case Field::kRoot: rec_.root = {s, n}; break;
      case Field::kClassName: rec_.class_name = {s, n}; break;
      case Field::kFormat: rec_.format = {s, n}; break;
      case Field::kReferences:
      case Field::kReferenceNames: return fail("\"" + field_name() + "\" must be an array");
      case Field::kMemsize:
      case Field::kLine:
      case Field::kGeneration:
      case Field::kRecords: return fail("\"" + field_name() + "\" must be a number");
      default: break;
    }
    return true;
  }

  bool Uint(unsigned v) { return number(v); }
  bool Uint64(uint64_t v) { return number(v); }
  bool Int(int v) { return v < 0 ? negative() : number(static_cast<uint64_t>(v)); }
  bool Int64(int64_t v) { return v < 0 ? negative() : number(static_cast<uint64_t>(v)); }
  bool Double(double) {
    if (in_references()) return fail(kNotAnAddress);
    if (depth_ == 1 && counted_field()) return fail("\"" + field_name() + "\" must be an integer");
    return true;
  }
  bool Bool(bool b) {
    if (in_references()) return fail(kNotAnAddress);
    if (depth_ == 1 && field_ == Field::kSingleton) rec_.singleton = b;
    if (depth_ == 1 && (counted_field() || address_field()))
      return fail("\"" + field_name() + "\" has the wrong type");
    return true;
  }
  bool Null() {
    if (depth_ == 2 && in_array_ == Field::kReferenceNames) {
      names_.push_back(StringId::none());
      return true;
    }
    if (in_references()) return fail(kNotAnAddress);
    return true;
  }

 private:
  static constexpr const char* kNotAnAddress = "\"references\" holds something that is not an address";

  bool in_references() const { return depth_ == 2 && in_array_ == Field::kReferences; }
  bool counted_field() const {
    return field_ == Field::kMemsize || field_ == Field::kLine || field_ == Field::kGeneration ||
           field_ == Field::kRecords;
  }
  bool address_field() const {
    return field_ == Field::kAddress || field_ == Field::kClass || field_ == Field::kSuperclass;
  }

  bool number(uint64_t v) {
    if (in_references()) return fail(kNotAnAddress);
    if (depth_ != 1) return true;
    switch (field_) {
      case Field::kMemsize: rec_.memsize = v; break;
      case Field::kLine: rec_.line = v; break;
      case Field::kGeneration: rec_.generation = v; break;
      case Field::kRecords: rec_.records = static_cast<int64_t>(v); break;
      case Field::kAddress:
      case Field::kClass:
      case Field::kSuperclass: return fail("\"" + field_name() + "\" is not a hex address");
      default: break;
    }
    return true;
  }
  bool negative() {
    if (in_references()) return fail(kNotAnAddress);
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
    }
    return true;
  }

  std::string field_name() const {
    switch (field_) {
      case Field::kType: return "type";
      case Field::kAddress: return "address";
      case Field::kClass: return "class";
      case Field::kReferences: return "references";
      case Field::kReferenceNames: return "reference_names";
      case Field::kMemsize: return "memsize";
      case Field::kFile: return "file";
      case Field::kLine: return "line";
      case Field::kMethod: return "method";
      case Field::kGeneration: return "generation";
      case Field::kName: return "name";
      case Field::kRealClassName: return "real_class_name";
      case Field::kSingleton: return "singleton";
      case Field::kSuperclass: return "superclass";
      case Field::kImemoType: return "imemo_type";
      case Field::kRoot: return "root";
      case Field::kClassName: return "class_name";
      case Field::kFormat: return "format";
      case Field::kRecords: return "records";
      case Field::kOther: break;
    }
    return "?";
  }

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  // Interns a kept string, repairing bytes that are not UTF-8 (counted, never silent).
  StringId intern(std::string_view s) {
    if (valid_utf8(s)) return out_.strings.intern(s);
    ++out_.repaired_strings;
    if (out_.first_repaired_strings.size() < LoadReport::kIssuesKept)
      out_.first_repaired_strings.push_back({line_, "string with bytes that are not UTF-8: \"" +
                                                        repair_utf8(s) + "\""});
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

  ParsedChunk& out_;
  uint64_t line_ = 0;
  int depth_ = 0;
  Field field_ = Field::kOther;
  Field in_array_ = Field::kOther;
  Record rec_;
  std::string error_;
  size_t refs_mark_ = 0;
  uint64_t repaired_mark_ = 0;
  size_t issues_mark_ = 0;
  std::vector<StringId> names_;
  std::string file_memo_, method_memo_;
  StringId file_memo_id_, method_memo_id_;
};

bool RecordHandler::commit() {
  if (rec_.type.empty()) return fail("the record has no \"type\"");
  const std::string_view t = rec_.type;
  std::optional<ObjectType> type = parse_object_type(t);
  if (type) return commit_object(type);
  if (t == "ROOT") {
    if (!names_.empty() && names_.size() != out_.refs.size() - refs_mark_)
      return fail("\"reference_names\" and \"references\" differ in length");
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
  } else if (t == "END") {
    out_.end_records = rec_.records;
  } else if (t == "NONE" || t == "MOVED") {
    ++out_.skipped_records;  // free or moved slots of a dump written with full: true
  } else {
    return commit_object(std::nullopt);  // a type this heapq does not know: keep the object
  }
  out_.refs.resize(refs_mark_);
  return true;
}

bool RecordHandler::commit_object(std::optional<ObjectType> type) {
  if (!rec_.has_address) return fail("the record has no \"address\"");
  size_t nrefs = out_.refs.size() - refs_mark_;
  if (!names_.empty() && names_.size() != nrefs)
    return fail("\"reference_names\" and \"references\" differ in length");
  if (rec_.line > UINT32_MAX || rec_.generation > UINT32_MAX)
    return fail("\"line\" or \"generation\" is out of range");

  uint32_t index = static_cast<uint32_t>(out_.address.size());
  ObjectType ty = type.value_or(ObjectType::kUnknown);
  out_.address.push_back(rec_.address);
  out_.class_address.push_back(rec_.class_address);
  out_.type.push_back(ty);
  out_.memsize.push_back(rec_.memsize);
  out_.file.push_back(rec_.has_file ? intern_cached(rec_.file, file_memo_, file_memo_id_)
                                    : StringId::none());
  out_.line.push_back(static_cast<uint32_t>(rec_.line));
  out_.method.push_back(rec_.has_method ? intern_cached(rec_.method, method_memo_, method_memo_id_)
                                        : StringId::none());
  out_.generation.push_back(static_cast<uint32_t>(rec_.generation));
  out_.refs_end.push_back(static_cast<uint32_t>(out_.refs.size()));
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
  if (ty == ObjectType::kImemo && !rec_.imemo_type.empty())
    out_.imemo_types.push_back({index, intern(rec_.imemo_type)});
  return true;
}

template <unsigned Flags>
bool parse_line(rapidjson::Reader& reader, RecordHandler& handler, char* line) {
  rapidjson::InsituStringStream stream(line);
  return !reader.Parse<Flags>(stream, handler).IsError();
}

std::string describe_error(const rapidjson::Reader& reader, const RecordHandler& handler) {
  if (reader.GetParseErrorCode() == rapidjson::kParseErrorTermination && !handler.error().empty())
    return handler.error();
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
      bool ok = strict ? parse_line<kStrict>(reader, handler, p) : parse_line<kFast>(reader, handler, p);
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
