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

#include "graph_builder.h"
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

void GraphBuilder::name_classes(HeapGraph& g, const std::vector<ClassRecord>& records,
                                const std::vector<ObjectLabel>& class_names) {
  std::vector<StringId> labels(g.classes_.size());
  for (const ObjectLabel& l : class_names) {
    StringId& slot = labels[g.class_of_[l.object].value()];
    if (!slot.valid()) slot = l.label;
  }
  ClassNamer namer(g, records);
  for (const ClassRecord& r : records)
    if (g.type(ObjectId(r.object)) != ObjectType::kIclass)
      g.record_names_.emplace(r.object, g.strings_.intern(namer.name(ObjectId(r.object))));
  for (size_t i = 0; i < g.classes_.size(); ++i) {
    ClassInfo& c = g.classes_[i];
    if (c.address == 0) continue;  // pseudo classes are named already
    if (labels[i].valid())
      c.name = labels[i];
    else if (c.object.valid())
      c.name = g.strings_.intern(namer.name(c.object));
    else
      c.name = g.strings_.intern(hex_name("(unknown class ", c.address, ")"));
  }
  // Objects of a singleton class count as instances of its real class.
  std::unordered_map<uint64_t, ClassId, KeyedHash> by_address;
  for (size_t i = 0; i < g.classes_.size(); ++i)
    if (g.classes_[i].address)
      by_address.emplace(g.classes_[i].address, ClassId(static_cast<uint32_t>(i)));
  std::vector<ClassId> real(g.classes_.size());
  for (size_t i = 0; i < real.size(); ++i) {
    real[i] = ClassId(static_cast<uint32_t>(i));
    if (!g.classes_[i].object.valid()) continue;
    ObjectId r = namer.real_class(g.classes_[i].object);
    if (r == g.classes_[i].object) continue;
    auto [it, added] =
        by_address.try_emplace(g.address(r), ClassId(static_cast<uint32_t>(g.classes_.size())));
    if (added) g.classes_.push_back({g.address(r), r, g.strings_.intern(namer.name(r))});
    real[i] = it->second;
  }
  for (size_t o = 0; o < g.class_of_.size(); ++o) g.class_of_.set(o, real[g.class_of_[o].value()]);
}

}  // namespace heapq
