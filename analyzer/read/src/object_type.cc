#include "heapq/read/object_type.h"

#include <array>

namespace heapq {

namespace {
constexpr std::array<std::string_view, kObjectTypeCount> kNames = {
    "NONE",    "OBJECT",   "CLASS",  "MODULE", "FLOAT",  "STRING", "REGEXP",
    "ARRAY",   "HASH",     "STRUCT", "BIGNUM", "FILE",   "DATA",   "MATCH",
    "COMPLEX", "RATIONAL", "NIL",    "TRUE",   "FALSE",  "SYMBOL", "FIXNUM",
    "UNDEF",   "IMEMO",    "NODE",   "ICLASS", "ZOMBIE", "MOVED",  "UNKNOWN",
};
}  // namespace

std::string_view object_type_name(ObjectType type) {
  return kNames[static_cast<size_t>(type)];
}

std::string hidden_class_name(ObjectType type) {
  switch (type) {
    case ObjectType::kObject:
    case ObjectType::kFloat:
    case ObjectType::kString:
    case ObjectType::kRegexp:
    case ObjectType::kArray:
    case ObjectType::kHash:
    case ObjectType::kStruct:
    case ObjectType::kBignum:
    case ObjectType::kFile:
    case ObjectType::kData:
    case ObjectType::kMatch:
    case ObjectType::kComplex:
    case ObjectType::kRational:
    case ObjectType::kSymbol: {
      std::string name(object_type_name(type));  // "ARRAY" -> "Array"
      for (size_t i = 1; i < name.size(); ++i) name[i] = static_cast<char>(name[i] - 'A' + 'a');
      return "(hidden " + name + ")";
    }
    default:
      return "(no class)";
  }
}

std::optional<ObjectType> parse_object_type(std::string_view name) {
  // NONE and MOVED are free or moved slots, not objects; UNKNOWN is heapq's own label.
  if (name == "NONE" || name == "MOVED" || name == "UNKNOWN") return std::nullopt;
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<ObjectType>(i);
  return std::nullopt;
}

}  // namespace heapq
