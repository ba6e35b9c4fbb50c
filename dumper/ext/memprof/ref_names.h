// Names for an object's references: which instance variable, constant, hash key, array index,
// struct member or captured local each referenced object sits in. No Ruby allocation.
#pragma once

#include <ruby.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "class_names.h"
#include "elements.h"

namespace memprof {

// Constants of every class and module, read before the walk (reading them needs Ruby's
// allocator); a class maps to its (value, name) pairs.
class ConstantTable {
 public:
  // Ruby context, with GC disabled so that no address changes until the walk ends.
  void Build(VALUE only = Qundef);
  const std::vector<std::pair<VALUE, ID>>* Of(VALUE klass) const {
    auto it = table_.find(klass);
    return it == table_.end() ? nullptr : &it->second;
  }

 private:
  void Add(VALUE klass);
  std::unordered_map<VALUE, std::vector<std::pair<VALUE, ID>>> table_;
};

class ReferenceNamer {
 public:
  ReferenceNamer(const ConstantTable& constants, ClassNames& class_names)
      : constants_(constants), class_names_(class_names) {}

  // Learns what obj's references are called; then Name() each reference in turn, in the order
  // the GC reports them. Its memory does not grow with an Array or a Hash.
  void Begin(VALUE obj, int type, VALUE klass);
  // Appends the name of the next reference equal to ref to out; false when it has none.
  bool Name(VALUE ref, std::string& out);

  static void Init();  // interns IDs; Ruby context

 private:
  enum class Kind : uint8_t {
    kClass,
    kSuper,
    kIvar,
    kConstant,
    kIndex,
    kKey,
    kValue,
    kMember,
    kLocal,
    kFiberLocal,
    kMethod,
    kDefault,
    kRegistered  // detail: a static name
  };
  struct Named {
    VALUE value;
    Kind kind;
    uintptr_t detail;  // ID, index, hash key or member Symbol, by kind
    bool used;         // already given to a reference
  };
  // The next few of the container's elements, which a reference is looked for in.
  static constexpr size_t kWindow = 16;

  void Add(VALUE value, Kind kind, uintptr_t detail);
  bool NextElement(Named& next);
  bool TakeFromWindow(VALUE ref, std::string& out);
  void Format(const Named& named, std::string& out);
  // A Hash key as Ruby's inspect writes it, cut; an Array's elements (nested: no deeper).
  void AppendKey(VALUE key, std::string& out, bool nested = false);
  void CollectStruct(VALUE obj);

  static int OnIvar(ID name, VALUE value, st_data_t data);
  static int OnHashPair(VALUE key, VALUE value, VALUE data);
  static void OnLocal(void* data, uintptr_t value, uintptr_t id);
  static void OnFiberLocal(void* data, uintptr_t value, uintptr_t id);
  static void OnMethod(void* data, uintptr_t entry, uintptr_t id);
  static void OnRegistered(void* data, uintptr_t value);

  const ConstantTable& constants_;
  ClassNames& class_names_;
  std::vector<Named> named_;  // all but the elements': few
  Elements elements_;         // an Array's or a big Hash's, named as the GC reports them
  Named window_[kWindow];
  size_t window_first_ = 0;
  size_t window_count_ = 0;
  size_t cursor_ = 0;
  bool indexed_ = false;
  std::unordered_map<VALUE, std::vector<uint32_t>> index_;  // unused entries, last first
};

// Appends a Symbol's name (static or dynamic) without allocating.
void AppendSymbolName(VALUE symbol, std::string& out);
// Appends a Symbol as Symbol#inspect writes it: :name, or :"odd name"; or the Symbol of a name.
void AppendSymbolLiteral(VALUE symbol, std::string& out);
void AppendSymbolLiteral(std::string_view name, std::string& out);
// Appends a Float as Float#inspect writes it (1.5, 1.0e+20).
void AppendFloat(double value, std::string& out);

// Appends bytes as a Ruby-inspect-like quoted string: printable ASCII and valid UTF-8 kept,
// everything else as \xNN.
void AppendQuoted(std::string& out, const char* bytes, size_t len);

}  // namespace memprof
