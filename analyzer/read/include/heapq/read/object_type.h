// The types of records a heap dump holds, as Ruby's ObjectSpace names them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace heapq {

enum class ObjectType : uint8_t {
  kNone,
  kObject,
  kClass,
  kModule,
  kFloat,
  kString,
  kRegexp,
  kArray,
  kHash,
  kStruct,
  kBignum,
  kFile,
  kData,
  kMatch,
  kComplex,
  kRational,
  kNil,
  kTrue,
  kFalse,
  kSymbol,
  kFixnum,
  kUndef,
  kImemo,
  kNode,
  kIclass,
  kZombie,
  kMoved,
  kUnknown,  // a type name this version of heapq does not know
};
inline constexpr int kObjectTypeCount = static_cast<int>(ObjectType::kUnknown) + 1;

// The dump's spelling ("OBJECT", "IMEMO", ...).
std::string_view object_type_name(ObjectType type);
// The pseudo class of an object whose class slot is empty: Ruby hides internal objects
// (rb_obj_hide: a finalizer's Array, the symbol table's) that way: "(hidden Array)"; for a type
// that is not an instance of a class otherwise (a ZOMBIE, a NODE): "(no class)". memprof's
// Memprof.stats labels them alike.
std::string hidden_class_name(ObjectType type);
// Inverse of object_type_name; nullopt for names that are not object types (ROOT, SHAPE, ...).
std::optional<ObjectType> parse_object_type(std::string_view name);

}  // namespace heapq
