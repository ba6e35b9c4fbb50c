// Names every class of the class table the way Ruby would print it, and points each object at
// its real class (what obj.class returns) rather than its singleton class.
//
// Sources, best first: memprof's class_name field; the CLASS/MODULE record's "name"; for a
// singleton class, the class it is attached to ("#<Class:Foo>", found as the class whose own
// class field points at it) or, failing that, its real_class_name ("#<Class:#<Foo>>"); else an
// anonymous class ("#<Class:0x...>"). A class the dump does not have is "(unknown class 0x...)".
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>

#include "chunk_loader.h"
#include "heapq/base/keyed_hash.h"

namespace heapq {

bool is_made_up_class_name(std::string_view name) {
  // No constant path has ":0x": a constant starts with a capital letter.
  return name.find(":0x") != std::string_view::npos || name.starts_with("(unknown class 0x");
}

namespace {

std::string hex_name(const char* prefix, uint64_t address, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s0x%llx%s", prefix, static_cast<unsigned long long>(address),
                suffix);
  return buf;
}

class ClassNamer {
 public:
  ClassNamer(const HeapGraph& g, const std::vector<ClassRecord>& records) : g_(g) {
    for (const ClassRecord& r : records) {
      record_of_.emplace(r.object, &r);
      flags_ = flags_ || r.singleton;
      if (r.name.valid() && !r.singleton)
        by_name_.try_emplace(g.strings()[r.name], ObjectId(r.object));
    }
    // A metaclass is the class of the class it is attached to; prefer named owners.
    for (int pass = 0; pass < 2; ++pass) {
      for (const ClassRecord& r : records) {
        if (r.name.valid() != (pass == 0) || g.type(ObjectId(r.object)) == ObjectType::kIclass)
          continue;
        ObjectId meta = g.class_info(g.class_of(ObjectId(r.object))).object;
        if (meta.valid() && (!flags_ || is_flagged(meta)))
          owner_of_.try_emplace(meta.value(), ObjectId(r.object));
      }
    }
  }

  // The first class up the superclass chain that is neither a singleton class nor an included
  // module's proxy (rb_class_real skips both): a class that extends a module has an ICLASS
  // between its singleton class and #<Class:Object>.
  ObjectId real_class(ObjectId record) const {
    ObjectId x = record;
    for (int step = 0; step < kMaxChain && (is_singleton(x) || is_iclass(x)); ++step) {
      const ClassRecord* r = record_of(x);
      std::optional<ObjectId> super = r->superclass ? g_.find(r->superclass) : std::nullopt;
      if (!super || !record_of(*super)) return fallback_real_class(record);
      x = *super;
    }
    return is_singleton(x) || is_iclass(x) ? fallback_real_class(record) : x;
  }

  std::string name(ObjectId record) const {
    std::string prefix, suffix;
    // Walk up metaclass owners iteratively: #<Class:#<Class:Foo>>.
    for (int depth = 0; depth < 8; ++depth) {
      auto it = record_of_.find(record.value());
      if (it == record_of_.end()) break;
      const ClassRecord& r = *it->second;
      if (r.name.valid()) return prefix + std::string(g_.strings()[r.name]) + suffix;
      auto owner = owner_of_.find(record.value());
      if (owner == owner_of_.end()) {
        if (r.singleton && r.real_class_name.valid())
          return prefix + "#<Class:#<" + std::string(g_.strings()[r.real_class_name]) + ">>" +
                 suffix;
        break;
      }
      prefix += "#<Class:";
      suffix += ">";
      record = owner->second;
    }
    return prefix + hex_name("#<Class:", g_.address(record), ">") + suffix;
  }

 private:
  // Ancestor chains of real classes (Rails models extend dozens of modules) stay far below.
  static constexpr int kMaxChain = 4096;
  bool is_iclass(ObjectId o) const { return g_.type(o) == ObjectType::kIclass; }
  const ClassRecord* record_of(ObjectId o) const {
    auto it = record_of_.find(o.value());
    return it == record_of_.end() ? nullptr : it->second;
  }
  // Ruby 3.1+ flags singleton classes; for older dumps a metaclass is known by its owner.
  bool is_singleton(ObjectId o) const {
    return flags_ ? is_flagged(o) : owner_of_.count(o.value()) > 0;
  }
  bool is_flagged(ObjectId o) const {
    const ClassRecord* r = record_of(o);
    return r && r->singleton;
  }
  // Dumps without superclass fields (Ruby < 3.0): a metaclass is a Class or Module; another
  // singleton class has its real class's name in real_class_name (Ruby 3.1).
  ObjectId fallback_real_class(ObjectId record) const {
    const ClassRecord* r = record_of(record);
    if (auto owner = owner_of_.find(record.value()); owner != owner_of_.end()) {
      bool module = g_.type(owner->second) == ObjectType::kModule;
      if (auto it = by_name_.find(module ? "Module" : "Class"); it != by_name_.end())
        return it->second;
    }
    if (r && r->real_class_name.valid())
      if (auto it = by_name_.find(g_.strings()[r->real_class_name]); it != by_name_.end())
        return it->second;
    return record;
  }

  const HeapGraph& g_;
  // Named, non-singleton classes.
  std::unordered_map<std::string_view, ObjectId, KeyedHash> by_name_;
  bool flags_ = false;  // the dump marks singleton classes (Ruby 3.1+)
  std::unordered_map<uint32_t, const ClassRecord*> record_of_;
  std::unordered_map<uint32_t, ObjectId> owner_of_;
};

}  // namespace

Status ChunkLoader::name_classes(GraphBuilder& b, const std::vector<ClassRecord>& records,
                                 const std::vector<ObjectLabel>& class_names) {
  const HeapGraph& g = b.graph();
  const size_t classes = g.class_count();
  std::vector<StringId> labels(classes);
  for (const ObjectLabel& l : class_names) {
    StringId& slot = labels[g.class_of(ObjectId(l.object)).value()];
    if (!slot.valid()) slot = l.label;
  }
  ClassNamer namer(g, records);
  for (const ClassRecord& r : records)
    if (g.type(ObjectId(r.object)) != ObjectType::kIclass)
      HEAPQ_RETURN_IF_ERROR(
          b.add_record_name(ObjectId(r.object), b.intern(namer.name(ObjectId(r.object)))));
  for (uint32_t i = 0; i < classes; ++i) {
    ClassInfo c = g.class_info(ClassId(i));
    if (c.address == 0) continue;  // pseudo classes are named already
    if (labels[i].valid())
      c.name = labels[i];
    else if (c.object.valid())
      c.name = b.intern(namer.name(c.object));
    else
      c.name = b.intern(hex_name("(unknown class ", c.address, ")"));
    HEAPQ_RETURN_IF_ERROR(b.set_class(ClassId(i), c));
  }
  // Objects of a singleton class count as instances of its real class.
  std::unordered_map<uint64_t, ClassId, KeyedHash> by_address;
  for (uint32_t i = 0; i < classes; ++i)
    if (const uint64_t address = g.class_info(ClassId(i)).address)
      by_address.emplace(address, ClassId(i));
  std::vector<ClassId> real(classes);
  for (uint32_t i = 0; i < classes; ++i) {
    real[i] = ClassId(i);
    const ObjectId object = g.class_info(ClassId(i)).object;
    if (!object.valid()) continue;
    ObjectId r = namer.real_class(object);
    if (r == object) continue;
    auto [it, added] = by_address.try_emplace(g.address(r), ClassId());
    if (added) it->second = b.add_class({g.address(r), r, b.intern(namer.name(r))});
    real[i] = it->second;
  }
  // The real classes added keep their objects (none yet).
  for (uint32_t i = static_cast<uint32_t>(classes); i < g.class_count(); ++i)
    real.push_back(ClassId(i));
  return b.move_objects_to_classes(real);
}

}  // namespace heapq
