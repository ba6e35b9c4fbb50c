#include "model/graph_builder.h"

#include "model/address_hash.h"

#include <bit>
#include <cstring>
#include <string>
#include <unordered_map>

namespace heapq {

namespace {

template <typename T>
void append(std::vector<T>& to, std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
  std::vector<T>().swap(from);
}

struct SiteKey {
  StringId file;
  uint32_t line;
  StringId method;
  bool operator==(const SiteKey&) const = default;
};
struct SiteKeyHash {
  size_t operator()(const SiteKey& k) const {
    return address_hash((uint64_t(k.file.value()) << 32 | k.line) ^ (uint64_t(k.method.value()) << 17));
  }
};

}  // namespace

// Builds the graph in stages; each stage frees the chunk arrays it no longer needs.
class GraphBuilder::Builder {
 public:
  Builder(std::vector<std::unique_ptr<ParsedChunk>>& chunks, LoadReport& report)
      : chunks_(chunks), report_(report) {}

  HeapGraph run() {
    size_t n = 0, refs = 0;
    bool named = false;
    for (auto& c : chunks_) {
      n += c->object_count();
      refs += c->refs.size();
      named = named || !c->ref_names.empty();
    }
    reserve(n, refs, named);
    for (auto& c : chunks_) add_objects(*c);
    for (auto& c : chunks_) add_references(*c);
    for (auto& c : chunks_) add_roots(*c);
    count_dangling_classes();
    GraphBuilder::name_classes(g_, class_records_, class_names_);
    return std::move(g_);
  }

 private:
  void reserve(size_t n, size_t refs, bool named) {
    g_.address_.reserve(n);
    g_.type_.reserve(n);
    g_.class_of_.reserve(n);
    g_.memsize_.reserve(n);
    g_.site_.reserve(n);
    g_.generation_.reserve(n);
    g_.edge_begin_.reserve(n + 1);
    g_.edge_begin_.push_back(0);
    g_.edge_target_.reserve(refs);
    if (named) g_.edge_name_.reserve(refs);
    g_.address_index_.assign(std::bit_ceil(std::max<size_t>(16, n * 2)), ObjectId::none());
  }

  // Strings of a chunk, as ids of the graph's table.
  std::vector<StringId> remap_strings(const ParsedChunk& c) {
    std::vector<StringId> map(c.strings.size());
    for (uint32_t i = 0; i < map.size(); ++i) map[i] = g_.strings_.intern(c.strings[StringId(i)]);
    return map;
  }
  static StringId mapped(const std::vector<StringId>& map, StringId s) {
    return s.valid() ? map[s.value()] : s;
  }

  void add_objects(ParsedChunk& c) {
    std::vector<StringId> strings = remap_strings(c);
    const uint32_t base = static_cast<uint32_t>(g_.address_.size());
    const size_t n = c.object_count();
    append(g_.address_, c.address);
    size_t imemo = 0;
    for (size_t i = 0; i < n; ++i) {
      ObjectId id(base + static_cast<uint32_t>(i));
      if (!index_address(id)) ++report_.duplicate_addresses;
      StringId imemo_type;
      while (imemo < c.imemo_types.size() && c.imemo_types[imemo].object < i) ++imemo;
      if (imemo < c.imemo_types.size() && c.imemo_types[imemo].object == i)
        imemo_type = mapped(strings, c.imemo_types[imemo].label);
      g_.class_of_.push_back(class_for(c.type[i], c.class_address[i], imemo_type));
      g_.site_.push_back(site_for(mapped(strings, c.file[i]), c.line[i], mapped(strings, c.method[i])));
    }
    append(g_.type_, c.type);
    append(g_.memsize_, c.memsize);
    append(g_.generation_, c.generation);
    for (ClassRecord r : c.classes) {
      r.object += base;
      r.name = mapped(strings, r.name);
      r.real_class_name = mapped(strings, r.real_class_name);
      class_records_.push_back(r);
    }
    for (ObjectLabel l : c.class_names) class_names_.push_back({l.object + base, mapped(strings, l.label)});
    ref_name_strings_.push_back(std::move(strings));
    std::vector<uint64_t>().swap(c.class_address);
    std::vector<StringId>().swap(c.file);
    std::vector<StringId>().swap(c.method);
    std::vector<uint32_t>().swap(c.line);
  }

  void add_references(ParsedChunk& c) {
    const std::vector<StringId>& strings = ref_name_strings_[chunk_++];
    size_t r = 0;
    for (uint32_t end : c.refs_end) {
      for (; r < end; ++r) {
        std::optional<ObjectId> to = g_.find(c.refs[r]);
        if (!to) {
          ++report_.dangling_references;
          continue;
        }
        g_.edge_target_.push_back(*to);
        if (g_.edge_name_.capacity() > 0)
          g_.edge_name_.push_back(c.ref_names.empty() ? StringId::none() : mapped(strings, c.ref_names[r]));
      }
      g_.edge_begin_.push_back(static_cast<uint32_t>(g_.edge_target_.size()));
    }
    std::vector<uint64_t>().swap(c.refs);
    std::vector<StringId>().swap(c.ref_names);
    std::vector<uint32_t>().swap(c.refs_end);
  }

  void add_roots(ParsedChunk& c) {
    const std::vector<StringId>& strings = ref_name_strings_[root_chunk_++];
    size_t r = 0;
    for (const RootRecord& root : c.roots) {
      StringId category = mapped(strings, root.category);
      for (; r < root.refs_end; ++r) {
        if (auto to = g_.find(c.root_refs[r])) g_.roots_.push_back({category, *to});
        else ++report_.dangling_references;
      }
    }
  }

  // Indexes the object by its address; false when the address is already there (the first
  // record wins).
  bool index_address(ObjectId id) {
    const uint64_t address = g_.address_[id.value()];
    const size_t mask = g_.address_index_.size() - 1;
    for (size_t slot = address_hash(address) & mask;; slot = (slot + 1) & mask) {
      ObjectId& cell = g_.address_index_[slot];
      if (!cell.valid()) {
        cell = id;
        return true;
      }
      if (g_.address_[cell.value()] == address) return false;
    }
  }

  ClassId class_for(ObjectType type, uint64_t class_address, StringId imemo_type) {
    if (type == ObjectType::kImemo) {
      // An IMEMO's class slot holds internal data (often junk such as 0x8), not a class.
      std::string name = "IMEMO:";
      name += imemo_type.valid() ? g_.strings_[imemo_type] : "?";
      return pseudo_class(name);
    }
    if (class_address == 0) return pseudo_class("(no class)");
    auto [it, added] = class_by_address_.try_emplace(class_address, ClassId());
    if (added) {
      it->second = ClassId(static_cast<uint32_t>(g_.classes_.size()));
      g_.classes_.push_back({class_address, ObjectId::none(), StringId::none()});
    }
    return it->second;
  }

  ClassId pseudo_class(const std::string& name) {
    StringId s = g_.strings_.intern(name);
    auto [it, added] = pseudo_classes_.try_emplace(s, ClassId());
    if (added) {
      it->second = ClassId(static_cast<uint32_t>(g_.classes_.size()));
      g_.classes_.push_back({0, ObjectId::none(), s});
    }
    return it->second;
  }

  SiteId site_for(StringId file, uint32_t line, StringId method) {
    if (!file.valid()) return SiteId::none();
    SiteKey key{file, line, method};
    if (last_site_.valid() && key == last_key_) return last_site_;
    auto [it, added] = sites_.try_emplace(key, SiteId());
    if (added) {
      it->second = SiteId(static_cast<uint32_t>(g_.sites_.size()));
      g_.sites_.push_back({file, line, method});
    }
    last_key_ = key;
    last_site_ = it->second;
    return it->second;
  }

  void count_dangling_classes() {
    std::vector<uint64_t> users(g_.classes_.size(), 0);
    for (ClassId c : g_.class_of_) ++users[c.value()];
    for (ClassInfo& info : g_.classes_) {
      if (info.address == 0) continue;
      std::optional<ObjectId> o = g_.find(info.address);
      ObjectType t = o ? g_.type_[o->value()] : ObjectType::kNone;
      if (t == ObjectType::kClass || t == ObjectType::kModule || t == ObjectType::kIclass)
        info.object = *o;
      else
        report_.dangling_classes += users[&info - g_.classes_.data()];
    }
  }

  std::vector<std::unique_ptr<ParsedChunk>>& chunks_;
  LoadReport& report_;
  HeapGraph g_;
  std::vector<ClassRecord> class_records_;
  std::vector<ObjectLabel> class_names_;
  std::vector<std::vector<StringId>> ref_name_strings_;  // per chunk string remaps
  size_t chunk_ = 0, root_chunk_ = 0;
  std::unordered_map<uint64_t, ClassId> class_by_address_;
  std::unordered_map<StringId, ClassId> pseudo_classes_;
  std::unordered_map<SiteKey, SiteId, SiteKeyHash> sites_;
  SiteKey last_key_{};
  SiteId last_site_;
};

HeapGraph GraphBuilder::build(std::vector<std::unique_ptr<ParsedChunk>>& chunks, LoadReport& report) {
  return Builder(chunks, report).run();
}

}  // namespace heapq
