// Class names without allocation; see class_names.h.
#include "class_names.h"

#include "json_sink.h"
#include "ruby_compat.h"

namespace memprof {

bool ClassNames::IsClassLike(VALUE klass) {
  if (klass == 0 || SPECIAL_CONST_P(klass)) return false;
  int type = BUILTIN_TYPE(klass);
  return type == T_CLASS || type == T_MODULE || type == T_ICLASS;
}

std::string_view ClassNames::CachedPath(VALUE klass) {
  VALUE path = rb_class_path_cached(klass);
  if (!RB_TYPE_P(path, T_STRING)) return {};
  return {RSTRING_PTR(path), static_cast<size_t>(RSTRING_LEN(path))};
}

const ClassNames::Names& ClassNames::Lookup(VALUE klass) {
  if (klass == last_klass_ && last_ != nullptr) return *last_;
  auto [it, inserted] = cache_.try_emplace(klass);
  if (inserted) {
    Append(it->second.name, klass, 0);
    it->second.json = QuoteJson(it->second.name);
    std::string& fields = it->second.class_fields;
    fields = "\"class\":\"";
    AppendHexAddress(fields, klass);
    fields += "\",\"class_name\":";
    fields += it->second.json;
    std::string& references = it->second.class_only_references;
    references = "\"references\":[\"";
    AppendHexAddress(references, klass);
    references += "\"],\"reference_names\":[\"(class)\"]";
  }
  last_klass_ = klass;
  last_ = &it->second;
  return *last_;
}

std::string_view ClassNames::Of(VALUE klass) {
  return Lookup(klass).name;
}

void ClassNames::Append(std::string& out, VALUE klass, int depth) {
  if (!IsClassLike(klass) || depth > 8) {
    out += "#<?>";
    return;
  }
  if (BUILTIN_TYPE(klass) == T_ICLASS) {
    // The VM's frozen core (the receiver of core#set_method_alias and its kind) is an object
    // made an ICLASS, whose singleton class is attached to it: named as Ruby 3.2 names it,
    // where following its class would go round that loop.
    VALUE owner = RBASIC(klass)->klass;
    if (IsClassLike(owner) && FL_TEST_RAW(owner, FL_SINGLETON) &&
        compat::AttachedObject(owner) == klass) {
      out += "RubyVM::FrozenCore";
      return;
    }
    Append(out, owner, depth + 1);  // an include's proxy names its module
    return;
  }
  if (FL_TEST_RAW(klass, FL_SINGLETON)) {
    VALUE attached = compat::AttachedObject(klass);
    out += "#<Class:";
    if (IsClassLike(attached)) {
      Append(out, attached, depth + 1);
    } else if (!SPECIAL_CONST_P(attached) && RBASIC(attached)->klass != 0) {
      out += "#<";
      Append(out, rb_class_real(RBASIC(attached)->klass), depth + 1);
      out += ':';
      AppendHexAddress(out, attached);
      out += '>';
    } else {
      AppendHexAddress(out, klass);
    }
    out += '>';
    return;
  }
  std::string_view path = CachedPath(klass);
  if (!path.empty()) {
    out.append(path.data(), path.size());
    return;
  }
  out += BUILTIN_TYPE(klass) == T_MODULE ? "#<Module:" : "#<Class:";
  AppendHexAddress(out, klass);
  out += '>';
}

void AppendHexAddress(std::string& out, uintptr_t address) {
  char text[2 + 2 * sizeof(uintptr_t)];
  char* end = text + sizeof(text);
  char* p = end;
  do {
    *--p = "0123456789abcdef"[address & 0xf];
    address >>= 4;
  } while (address != 0);
  *--p = 'x';
  *--p = '0';
  out.append(p, end - p);
}

}  // namespace memprof
