// Reference naming; see ref_names.h.
#include "ref_names.h"

#include <ruby/st.h>
#include <ruby/version.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "json_sink.h"
#include "ruby_compat.h"
#include "vm_internals.h"

namespace memprof {
namespace {

constexpr size_t kMaxKeyChars = 40;
constexpr size_t kNamedByForeach = 4096;  // Hash entries named without reading them in place
ID id_members = 0;                        // Struct classes keep their member names in __members__
ID id_classpath = 0;

int OnConstant(st_data_t key, st_data_t value, st_data_t data) {
  auto* out = reinterpret_cast<std::vector<std::pair<VALUE, ID>>*>(data);
  VALUE constant = memprof_const_entry_value(reinterpret_cast<const void*>(value));
  if (!SPECIAL_CONST_P(constant)) out->emplace_back(constant, static_cast<ID>(key));
  return ST_CONTINUE;
}

int CollectModule(void* start, void* end, size_t stride, void* data) {
  auto* modules = static_cast<std::vector<VALUE>*>(data);
  for (auto v = reinterpret_cast<uintptr_t>(start); v < reinterpret_cast<uintptr_t>(end);
       v += stride) {
    if (RBASIC(v)->flags == 0) continue;
    int type = BUILTIN_TYPE(v);
    if (type == T_CLASS || type == T_MODULE) modules->push_back(v);
  }
  return 0;
}

}  // namespace

void ConstantTable::Build(VALUE only) {
  table_.clear();
  if (only != Qundef) {
    if (RB_TYPE_P(only, T_CLASS) || RB_TYPE_P(only, T_MODULE)) Add(only);
    return;
  }
  std::vector<VALUE> modules;
  rb_objspace_each_objects(CollectModule, &modules);
  for (VALUE klass : modules) Add(klass);
}

void ConstantTable::Add(VALUE klass) {
  if (!memprof_vm_names_constants()) return;
  st_table* constants = static_cast<st_table*>(rb_mod_const_at(klass, nullptr));
  if (constants == nullptr) return;
  std::vector<std::pair<VALUE, ID>> pairs;
  rb_st_foreach(constants, OnConstant, reinterpret_cast<st_data_t>(&pairs));
  rb_st_free_table(constants);
  if (!pairs.empty()) table_.emplace(klass, std::move(pairs));
}

void ReferenceNamer::Init() {
  id_members = rb_intern("__members__");
  id_classpath = rb_intern("__classpath__");
}

void ReferenceNamer::Add(VALUE value, Kind kind, uintptr_t detail) {
  if (SPECIAL_CONST_P(value)) return;  // never a reference
  named_.push_back({value, kind, detail, false});
}

int ReferenceNamer::OnIvar(ID name, VALUE value, st_data_t data) {
  reinterpret_cast<ReferenceNamer*>(data)->Add(value, Kind::kIvar, name);
  return ST_CONTINUE;
}

int ReferenceNamer::OnHashPair(VALUE key, VALUE value, VALUE data) {
  auto* self = reinterpret_cast<ReferenceNamer*>(data);
  self->Add(key, Kind::kKey, 0);
  self->Add(value, Kind::kValue, key);
  return ST_CONTINUE;
}

void ReferenceNamer::OnLocal(void* data, uintptr_t value, uintptr_t id) {
  static_cast<ReferenceNamer*>(data)->Add(value, Kind::kLocal, id);
}

void ReferenceNamer::OnFiberLocal(void* data, uintptr_t value, uintptr_t id) {
  static_cast<ReferenceNamer*>(data)->Add(value, Kind::kFiberLocal, id);
}

void ReferenceNamer::OnMethod(void* data, uintptr_t entry, uintptr_t id) {
  static_cast<ReferenceNamer*>(data)->Add(entry, Kind::kMethod, id);
}

void ReferenceNamer::OnRegistered(void* data, uintptr_t value) {
  if (const char* name = memprof_vm_registered_name(value))
    static_cast<ReferenceNamer*>(data)->Add(value, Kind::kRegistered,
                                            reinterpret_cast<uintptr_t>(name));
}

void ReferenceNamer::CollectStruct(VALUE obj) {
  VALUE members = Qnil;
  for (VALUE c = RBASIC(obj)->klass; ClassNames::IsClassLike(c); c = memprof_class_superclass(c)) {
    if (BUILTIN_TYPE(c) == T_ICLASS) continue;
    members = rb_ivar_get(c, id_members);
    if (!NIL_P(members)) break;
  }
  if (!RB_TYPE_P(members, T_ARRAY)) return;
  long count = FIX2LONG(rb_struct_size(obj));
  long names = RARRAY_LEN(members);
  for (long i = 0; i < count && i < names; ++i) {
    VALUE member = RARRAY_AREF(members, i);
    if (RB_SYMBOL_P(member)) Add(rb_struct_aref(obj, LONG2FIX(i)), Kind::kMember, member);
  }
}

void ReferenceNamer::Begin(VALUE obj, int type, VALUE klass) {
  named_.clear();
  elements_ = Elements();
  window_first_ = 0;
  window_count_ = 0;
  cursor_ = 0;
  if (indexed_) {
    // clear() costs the bucket count every time: drop a big table instead of clearing it.
    if (index_.bucket_count() > 1024) {
      std::unordered_map<VALUE, std::vector<uint32_t>>().swap(index_);
    } else {
      index_.clear();
    }
    indexed_ = false;
  }
  if (ClassNames::IsClassLike(klass) && type != T_IMEMO) Add(klass, Kind::kClass, 0);
  if (type != T_OBJECT && type != T_CLASS && type != T_MODULE && FL_TEST_RAW(obj, FL_EXIVAR)) {
    rb_ivar_foreach(obj, OnIvar, reinterpret_cast<st_data_t>(this));  // ivars of a String etc.
  }
  switch (type) {
    case T_OBJECT:
      rb_ivar_foreach(obj, OnIvar, reinterpret_cast<st_data_t>(this));
      break;
    case T_CLASS:
    case T_MODULE: {
      if (VALUE super = memprof_class_superclass(obj)) Add(super, Kind::kSuper, 0);
      rb_ivar_foreach(obj, OnIvar, reinterpret_cast<st_data_t>(this));
#if RUBY_API_VERSION_CODE >= 30200
      // The class's path, an ivar up to 3.1, is a field of its own since: named as it was.
      Add(rb_class_path_cached(obj), Kind::kIvar, id_classpath);  // no allocation
#endif
      if (const auto* constants = constants_.Of(obj)) {
        for (const auto& [value, name] : *constants) Add(value, Kind::kConstant, name);
      }
      memprof_class_each_method(obj, OnMethod, this);  // its method entries, by name
      break;
    }
    case T_ICLASS:
      if (VALUE super = memprof_class_superclass(obj)) Add(super, Kind::kSuper, 0);
      break;
    case T_ARRAY:
      elements_.Start(obj, type);  // none when ELTS_SHARED: they belong to another Array
      break;
    case T_HASH:
      // 8 entries at most, or a Ruby whose big Hashes memprof cannot read by position: then
      // one too big goes unnamed (META says so) rather than cost memory that grows with it.
      if (!elements_.Start(obj, type)) {
        if (RHASH_SIZE(obj) <= kNamedByForeach)
          rb_hash_foreach(obj, OnHashPair, reinterpret_cast<VALUE>(this));
        Add(memprof_hash_ifnone(obj), Kind::kDefault, 0);
      }
      break;
    case T_STRUCT:
      CollectStruct(obj);
      break;
    case T_IMEMO:
      if (ImemoType(obj) == 0) {  // imemo_env
        memprof_env_each_local(obj, OnLocal, this);
      }
      break;
    case T_DATA:
      memprof_each_fiber_local(obj, OnFiberLocal, this);  // Thread.current[:key]
      memprof_vm_pin_list_each(obj, OnRegistered, this);  // 3.4: what C code registered
      break;
    default:
      break;
  }
}

bool ReferenceNamer::NextElement(Named& next) {
  Elements::Element element;
  if (!elements_.Next(element)) return false;
  static constexpr Kind kKinds[] = {Kind::kIndex, Kind::kKey, Kind::kValue, Kind::kDefault};
  next = {element.value, kKinds[static_cast<int>(element.kind)], element.detail, false};
  return true;
}

// The GC reports a container's elements in their order: the reference is the next element,
// or one of the few after it (the ones before it are then passed over).
bool ReferenceNamer::TakeFromWindow(VALUE ref, std::string& out) {
  while (window_count_ < kWindow &&
         NextElement(window_[(window_first_ + window_count_) % kWindow])) {
    ++window_count_;
  }
  for (size_t k = 0; k < window_count_; ++k) {
    const Named& named = window_[(window_first_ + k) % kWindow];
    if (named.value != ref) continue;
    Format(named, out);
    window_first_ = (window_first_ + k + 1) % kWindow;
    window_count_ -= k + 1;
    return true;
  }
  return false;
}

bool ReferenceNamer::Name(VALUE ref, std::string& out) {
  // References usually come in the order the names were collected: try the next one first.
  while (cursor_ < named_.size() && named_[cursor_].used) ++cursor_;
  size_t found = named_.size();
  if (!indexed_ && cursor_ < named_.size() && named_[cursor_].value == ref) {
    found = cursor_;
  } else {
    if (TakeFromWindow(ref, out)) return true;
    if (!indexed_) {
      indexed_ = true;
      for (size_t i = named_.size(); i-- > cursor_;) {
        if (!named_[i].used) index_[named_[i].value].push_back(static_cast<uint32_t>(i));
      }
    }
    auto it = index_.find(ref);
    if (it == index_.end() || it->second.empty()) return false;
    found = it->second.back();
    it->second.pop_back();
  }
  named_[found].used = true;
  Format(named_[found], out);
  return true;
}

void ReferenceNamer::Format(const Named& named, std::string& out) {
  char number[32];
  switch (named.kind) {
    case Kind::kClass:
      out += "(class)";
      return;
    case Kind::kSuper:
      out += "(superclass)";
      return;
    case Kind::kDefault:
      out += "(default)";
      return;
    case Kind::kRegistered:
      out += reinterpret_cast<const char*>(named.detail);
      return;
    case Kind::kKey:
      out += "(key)";
      return;
    case Kind::kIndex:
      std::snprintf(number, sizeof(number), "[%lu]", static_cast<unsigned long>(named.detail));
      out += number;
      return;
    case Kind::kValue:
      out += '[';
      AppendKey(named.detail, out);
      out += ']';
      return;
    case Kind::kMember:  // the member's Symbol: a dynamic one has no ID to look up
      out += '.';
      AppendSymbolName(named.detail, out);
      return;
    case Kind::kMethod: {  // "method fragments": the entry of a method the class defines
      out += "method ";
      const char* name = rb_id2name(named.detail);
      out += name != nullptr ? name : "?";
      return;
    }
    case Kind::kFiberLocal: {  // "fiber-local :request_id", as Thread#keys would list the key
      out += "fiber-local ";
      const char* name = rb_id2name(named.detail);
      AppendSymbolLiteral(name != nullptr ? std::string_view(name) : std::string_view("?"), out);
      return;
    }
    case Kind::kIvar:
    case Kind::kConstant:
    case Kind::kLocal: {
      if (named.kind == Kind::kLocal) out += "local ";
      const char* name = rb_id2name(named.detail);
      // Ruby's own variables on an object (__classpath__, __attached__) are no @ivar that
      // code wrote: their names read in parentheses.
      bool internal = named.kind == Kind::kIvar && (name == nullptr || name[0] != '@');
      if (internal) out += '(';
      out += name != nullptr ? name : "?";
      if (internal) out += ')';
      return;
    }
  }
}

void ReferenceNamer::AppendKey(VALUE key, std::string& out, bool nested) {
  size_t start = out.size();
  if (FIXNUM_P(key)) {
    out += std::to_string(FIX2LONG(key));
  } else if (RB_SYMBOL_P(key)) {
    AppendSymbolLiteral(key, out);
  } else if (key == Qnil || key == Qtrue || key == Qfalse) {
    out += key == Qnil ? "nil" : key == Qtrue ? "true" : "false";
  } else if (RB_FLOAT_TYPE_P(key)) {  // a flonum or a heap Float: rb_float_value reads both
    AppendFloat(rb_float_value(key), out);
  } else if (SPECIAL_CONST_P(key)) {
    out += "#<special>";
  } else if (BUILTIN_TYPE(key) == T_STRING) {
    AppendQuoted(out, RSTRING_PTR(key), static_cast<size_t>(RSTRING_LEN(key)));
  } else if (ClassNames::IsClassLike(key)) {
    out += class_names_.Of(key);
  } else if (BUILTIN_TYPE(key) == T_ARRAY && !nested) {
    // A composite key (["sql.active_record", 1]): its elements, one level deep, as far as the
    // cut below leaves room.
    out += '[';
    const long len = RARRAY_LEN(key);
    for (long i = 0; i < len && out.size() - start <= kMaxKeyChars; ++i) {
      if (i > 0) out += ", ";
      AppendKey(RARRAY_AREF(key, i), out, true);
    }
    out += ']';
  } else {
    out += "#<";
    VALUE klass = RBASIC(key)->klass;
    if (ClassNames::IsClassLike(klass)) out += class_names_.Of(rb_class_real(klass));
    out += ':';
    AppendHexAddress(out, key);
    out += '>';
  }
  if (out.size() - start > kMaxKeyChars) {
    // Cut on a UTF-8 character boundary.
    size_t cut = start + kMaxKeyChars;
    while (cut > start && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
    out.resize(cut);
    out += "...";
  }
}

void AppendSymbolName(VALUE symbol, std::string& out) {
  if (STATIC_SYM_P(symbol)) {
    const char* name = rb_id2name(RSHIFT(symbol, RUBY_SPECIAL_SHIFT));
    out += name != nullptr ? name : "?";
    return;
  }
  VALUE name = rb_sym2str(symbol);  // a dynamic Symbol's own frozen String: no allocation
  if (RB_TYPE_P(name, T_STRING))
    out.append(RSTRING_PTR(name), static_cast<size_t>(RSTRING_LEN(name)));
}

namespace {

bool IsIdentifierByte(unsigned char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 ||
         (!first && c >= '0' && c <= '9');
}

// Whether Symbol#inspect writes name without quotes: an identifier (with ?, ! or =), an
// @ivar, @@cvar or $global, or an operator method name.
bool IsPlainSymbol(std::string_view name) {
  static const std::string_view kOperators[] = {
      "+",  "-",   "*",  "/",  "%", "**", "==", "===", "!=", "=~",  "!~", "<", "<=", ">",
      ">=", "<=>", "<<", ">>", "!", "~",  "+@", "-@",  "[]", "[]=", "`",  "&", "|",  "^"};
  for (std::string_view op : kOperators) {
    if (name == op) return true;
  }
  size_t i = 0;
  if (name.substr(0, 2) == "@@") {
    i = 2;
  } else if (!name.empty() && (name[0] == '@' || name[0] == '$')) {
    i = 1;
  }
  if (i >= name.size() || !IsIdentifierByte(static_cast<unsigned char>(name[i]), true))
    return false;
  for (++i; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (IsIdentifierByte(c, false)) continue;
    bool suffix = (c == '?' || c == '!' || c == '=') && i + 1 == name.size();
    return suffix && name[0] != '@' && name[0] != '$';
  }
  return true;
}

}  // namespace

void AppendSymbolLiteral(VALUE symbol, std::string& out) {
  std::string name;
  AppendSymbolName(symbol, name);
  AppendSymbolLiteral(std::string_view(name), out);
}

void AppendSymbolLiteral(std::string_view name, std::string& out) {
  out += ':';
  if (IsPlainSymbol(name) && ValidUtf8Prefix(reinterpret_cast<const unsigned char*>(name.data()),
                                             name.size()) == name.size()) {
    out += name;
  } else {
    AppendQuoted(out, name.data(), name.size());
  }
}

// As Float#inspect writes it: the shortest digits that read back, fixed notation for
// exponents -4..15, else d.de+XX, always with a fraction.
void AppendFloat(double value, std::string& out) {
  if (std::isnan(value)) return void(out += "NaN");
  if (std::isinf(value)) return void(out += value < 0 ? "-Infinity" : "Infinity");
  if (value == 0) return void(out += std::signbit(value) ? "-0.0" : "0.0");
  int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  bool fixed = exponent >= -4 && exponent <= 15;
  char text[64];
  auto [end, error] =
      std::to_chars(text, text + sizeof(text), value,
                    fixed ? std::chars_format::fixed : std::chars_format::scientific);
  if (error != std::errc()) return void(out += "#<Float>");
  std::string_view digits(text, static_cast<size_t>(end - text));
  size_t e = digits.find('e');
  std::string_view mantissa = digits.substr(0, e);
  out += mantissa;
  if (mantissa.find('.') == std::string_view::npos) out += ".0";
  if (e != std::string_view::npos) out += digits.substr(e);
}

void AppendQuoted(std::string& out, const char* bytes, size_t len) {
  auto* s = reinterpret_cast<const unsigned char*>(bytes);
  out += '"';
  size_t limit = std::min(len, kMaxKeyChars + 4);  // the caller cuts at kMaxKeyChars anyway
  for (size_t i = 0; i < limit;) {
    unsigned char c = s[i];
    if (c >= 0x80) {
      size_t valid = ValidUtf8Prefix(s + i, len - i);
      if (valid > 0) {
        // Keep whole characters only.
        size_t j = i + 1;
        while (j < i + valid && (s[j] & 0xc0) == 0x80) ++j;
        out.append(bytes + i, j - i);
        i = j;
        continue;
      }
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", c);
      out += hex;
    }
    ++i;
  }
  if (len <= limit) out += '"';
}

}  // namespace memprof
