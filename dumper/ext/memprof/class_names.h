// Class and module names for the dump, read from Ruby's own tables without allocating.
#pragma once

#include <ruby.h>

#include <string>
#include <string_view>
#include <unordered_map>

namespace memprof {

class ClassNames {
 public:
  // The name of klass ("Foo::Bar", "#<Class:Foo>", "#<Class:0x...>"); klass must be a
  // T_CLASS, T_MODULE or T_ICLASS. Safe inside a heap walk: no Ruby allocation.
  std::string_view Of(VALUE klass);
  // The same name quoted and escaped as a JSON string.
  std::string_view JsonOf(VALUE klass) { return Lookup(klass).json; }
  // `"class":"0x...","class_name":"..."` for an object of class klass.
  std::string_view ClassFieldsOf(VALUE klass) { return Lookup(klass).class_fields; }
  // `"references":["0x..."],"reference_names":["(class)"]`: an object whose only reference
  // is its class.
  std::string_view ClassOnlyReferencesOf(VALUE klass) {
    return Lookup(klass).class_only_references;
  }

  // The class path Ruby caches for klass, or empty for an anonymous class.
  static std::string_view CachedPath(VALUE klass);

  // True when klass is an object a name can be read from.
  static bool IsClassLike(VALUE klass);

 private:
  void Append(std::string& out, VALUE klass, int depth);

  struct Names {
    std::string name;
    std::string json;
    std::string class_fields;
    std::string class_only_references;
  };
  const Names& Lookup(VALUE klass);

  std::unordered_map<VALUE, Names> cache_;
  VALUE last_klass_ = 0;
  const Names* last_ = nullptr;
};

// Appends "0x" and the lower-case hex digits of address.
void AppendHexAddress(std::string& out, uintptr_t address);

}  // namespace memprof
