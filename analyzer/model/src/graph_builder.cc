#include "heapq/model/graph_builder.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "heapq/base/keyed_hash.h"
#include "heapq/read/source_paths.h"

namespace heapq {

namespace {

std::string number_of(uint64_t value, size_t count) {
  return std::to_string(value) + " (of " + std::to_string(count) + ")";
}

// Appends from's values to `to` (moved whole into an empty one that has no room reserved),
// then frees from.
template <typename T>
void append(std::vector<T>& to, std::vector<T>& from) {
  if (to.empty() && to.capacity() < from.size())
    to.swap(from);
  else
    to.insert(to.end(), from.begin(), from.end());
  std::vector<T>().swap(from);
}

// A column that stays empty until a value is given (a dump without seq or stacks), then runs
// beside the objects, those before it padded with none.
template <typename Column, typename Value>
void put(Column& column, size_t object, Value value, bool given) {
  if (!given && column.empty()) return;
  if (column.size() != object) column.resize(object, Value{});
  column.push_back(value);
}

}  // namespace

// The graph being built: a HeapGraph whose protected columns the builder's operations fill.
class GraphBuilder::Graph : public HeapGraph {
 public:
  Graph(std::string_view app_root, Addresses addresses)
      : app_root_(app_root), unique_(addresses == Addresses::kUnique) {
    edge_begin_.push_back(0);
    // Filled as objects come, so that find() works while the graph is built.
    if (unique_) address_index_built();
  }

  StringId intern(std::string_view s) { return strings_.intern(s); }

  ClassId add_class(const ClassInfo& info) {
    classes_.push_back(info);
    return ClassId(static_cast<uint32_t>(classes_.size() - 1));
  }
  Status set_class(ClassId c, const ClassInfo& info) {
    if (!c.valid() || c.value() >= classes_.size())
      return bad_input("class " + number_of(c.value(), classes_.size()) + " does not exist");
    classes_[c.value()] = info;
    return Ok{};
  }
  Result<SiteId> add_site(const Site& site) {
    if (!string_or_none(site.file) || !string_or_none(site.method))
      return bad_input("a site's file or method is not a string");
    sites_.push_back(site);
    return SiteId(static_cast<uint32_t>(sites_.size() - 1));
  }
  Status move_objects_to_classes(const std::vector<ClassId>& to) {
    if (to.size() != classes_.size()) return bad_input("classes moved to: one a class");
    for (ClassId c : to)
      if (!c.valid() || c.value() >= classes_.size())
        return bad_input("objects moved to class " + number_of(c.value(), classes_.size()));
    for (size_t o = 0; o < class_of_.size(); ++o) class_of_.set(o, to[class_of_[o].value()]);
    return Ok{};
  }

  void reserve(size_t n) {
    address_.reserve(n);
    type_.reserve(n);
    class_of_.reserve(n);
    memsize_.reserve(n);
    site_.reserve(n);
    generation_.reserve(n);
    weak_holder_.reserve(n);
    added_class_edge_.reserve(n);
  }

  Status add_objects(std::span<const ObjectFields> objects, std::vector<uint32_t>* repeats,
                     size_t expected) {
    if (edges_started_) return bad_input("objects after references");
    if (Status s = check_objects(objects); !s) return s;
    std::vector<uint32_t> left_out;
    if (unique_) {
      std::vector<uint64_t> fresh(objects.size());
      for (size_t i = 0; i < objects.size(); ++i) fresh[i] = objects[i].address;
      address_index_.add_new(address_, fresh, expected, left_out);
    }
    for (size_t i = 0, skip = 0; i < objects.size(); ++i) {
      if (skip < left_out.size() && left_out[skip] == i) {
        ++skip;
        continue;
      }
      if (!unique_) address_.push_back(objects[i].address);
      add_fields(objects[i]);
    }
    weak_holder_.resize(address_.size(), false);
    added_class_edge_.resize(address_.size(), false);
    if (repeats) *repeats = std::move(left_out);
    return Ok{};
  }

  Status add_object_columns(ObjectColumns& c);

  void name_references() { named_ = true; }
  void reserve_references(size_t edges) {
    edge_target_.reserve(edges);
    if (named_) edge_name_.reserve(edges);
    edge_begin_.reserve(address_.size() + 2);
  }
  Status add_references(ReferenceBlock& b);

  Status add_root(const RootEdge& r) {
    if (!r.target.valid() || r.target.value() >= address_.size() || !string_or_none(r.category) ||
        !string_or_none(r.name))
      return bad_input("a root to object " + number_of(r.target.value(), address_.size()));
    close_references();
    if (edge_target_.size() >= UINT32_MAX - 1) return bad_input("more than 2^32 - 2 references");
    roots_.push_back(r);
    edge_target_.push_back(r.target.value());
    if (named_) edge_name_.push_back(r.category);
    edge_begin_.back() = static_cast<uint32_t>(edge_target_.size());
    return Ok{};
  }
  Status drop_dead_finalizer_roots(const std::vector<bool>& dead);

  Status add_weak_holder(ObjectId o) {
    if (!is_object(o)) return bad_input("weak holder " + number_of(o.value(), address_.size()));
    size_object_flags();
    if (!weak_holder_[o.value()]) ++weak_holders_;
    weak_holder_[o.value()] = true;
    return Ok{};
  }
  Status add_record_name(ObjectId o, StringId name) {
    if (!is_object(o) || !name.valid() || !string_or_none(name))
      return bad_input("the name of object " + number_of(o.value(), address_.size()));
    record_names_.emplace(o.value(), name);
    return Ok{};
  }
  Status add_block_site(ObjectId o, SiteId site) {
    if (!is_object(o) || !site.valid() || site.value() >= sites_.size())
      return bad_input("the block site of object " + number_of(o.value(), address_.size()));
    block_sites_.emplace(o.value(), site);
    return Ok{};
  }
  Status add_stack(uint32_t id, std::span<const SiteId> frames) {
    for (SiteId s : frames)
      if (!s.valid() || s.value() >= sites_.size())
        return bad_input("a frame of stack " + std::to_string(id) + " at site " +
                         number_of(s.value(), sites_.size()));
    if (id == 0) return bad_input("a stack numbered 0");
    stack_defs_.emplace_back(id, static_cast<uint32_t>(stack_frames_.size()));
    stack_frames_.insert(stack_frames_.end(), frames.begin(), frames.end());
    return Ok{};
  }
  std::string_view keep_value_bytes(std::vector<char> bytes) {
    const std::vector<char>& kept = value_bytes_.emplace_back(std::move(bytes));
    return {kept.data(), kept.size()};
  }
  Status add_string_value(const StringValue& v) {
    if (!is_object(v.object))
      return bad_input("a value of object " + number_of(v.object.value(), address_.size()));
    string_values_.push_back(v);
    return Ok{};
  }

  Result<HeapGraph> build();

  // The objects' flags after add_object_columns, sized when first set or at build(): sized
  // before a store's columns are all read, they pin the heap those leave (glibc: +8% RSS).
  void size_object_flags() {
    weak_holder_.resize(address_.size(), false);
    added_class_edge_.resize(address_.size(), false);
  }

 private:
  bool string_or_none(StringId s) const { return !s.valid() || s.value() < strings_.size(); }
  bool is_object(ObjectId o) const { return o.valid() && o.value() < address_.size(); }

  Status check_objects(std::span<const ObjectFields> objects) const {
    if (address_.size() + objects.size() >= UINT32_MAX) return bad_input("2^32 objects or more");
    for (size_t i = 0; i < objects.size(); ++i) {
      const ObjectFields& f = objects[i];
      if (Status s = check_object(address_.size() + i, f.type, f.class_id, f.site); !s) return s;
    }
    return Ok{};
  }
  Status check_object(size_t i, ObjectType type, ClassId c, SiteId site) const {
    if (static_cast<int>(type) < kObjectTypeCount && c.valid() && c.value() < classes_.size() &&
        (!site.valid() || site.value() < sites_.size()))
      return Ok{};
    return bad_input("object " + std::to_string(i) + ": its type " +
                     std::to_string(static_cast<int>(type)) + ", class " +
                     number_of(c.value(), classes_.size()) + " or site " +
                     number_of(site.value(), sites_.size()) + " does not exist");
  }
  Status check_object_columns(const ObjectColumns& c) const;

  void add_fields(const ObjectFields& f) {
    const size_t i = type_.size();
    type_.push_back(f.type);
    class_of_.push_back(f.class_id);
    memsize_.push_back(f.memsize);
    put(site_, i, f.site, f.site.valid());
    put(generation_, i, f.generation, f.generation != 0);
    put(seq_, i, f.seq, f.has_seq);
    put(stack_, i, f.stack, f.stack != 0);
  }

  // The objects' references are all in: the virtual root's follow.
  void close_references() {
    if (roots_started_) return;
    roots_started_ = edges_started_ = true;
    edge_begin_.resize(address_.size() + 1, static_cast<uint32_t>(edge_target_.size()));
    edge_begin_.push_back(static_cast<uint32_t>(edge_target_.size()));
  }

  Status check_classes() const;
  void resolve_stacks();
  void renumber_stacks(const std::unordered_map<uint32_t, uint32_t, KeyedHash>& index);

  const std::string app_root_;
  const bool unique_;
  bool named_ = false;
  bool edges_started_ = false;                             // no more objects
  bool roots_started_ = false;                             // no more objects' references
  std::vector<std::pair<uint32_t, uint32_t>> stack_defs_;  // (id, its first frame)
  std::vector<SiteId> stack_frames_;
};

Status GraphBuilder::Graph::add_object_columns(ObjectColumns& c) {
  if (unique_ || address_.size() != 0 || edges_started_)
    return bad_input("object columns on a builder that has objects, or indexes addresses");
  if (Status s = check_object_columns(c); !s) return s;
  address_ = std::move(c.address);
  type_ = std::move(c.type);
  class_of_ = std::move(c.class_of);
  memsize_ = std::move(c.memsize);
  site_ = std::move(c.site);
  generation_ = std::move(c.generation);
  // As add_objects leaves it: no column when no object has a stack.
  if (std::ranges::any_of(c.stack, [](uint32_t s) { return s != 0; })) stack_ = std::move(c.stack);
  return Ok{};
}

// The columns' sizes, then their values in bulk; the first object refused is named.
Status GraphBuilder::Graph::check_object_columns(const ObjectColumns& c) const {
  const size_t n = c.address.size();
  if (n >= UINT32_MAX) return bad_input("2^32 objects or more");
  if (c.type.size() != n || c.class_of.size() != n || c.memsize.size() != n || c.site.size() != n ||
      c.generation.size() != n || (!c.stack.empty() && c.stack.size() != n))
    return bad_input("object columns of different sizes");
  const bool types = std::ranges::all_of(
      c.type, [](ObjectType t) { return static_cast<int>(t) < kObjectTypeCount; });
  if (types && c.class_of.all_below(classes_.size(), false) &&
      c.site.all_below(sites_.size(), true))
    return Ok{};
  for (size_t i = 0; i < n; ++i)
    if (Status s = check_object(i, c.type[i], c.class_of[i], c.site[i]); !s) return s;
  return Ok{};
}

Status GraphBuilder::Graph::add_references(ReferenceBlock& b) {
  const size_t n = address_.size(), done = edge_begin_.size() - 1;
  if (roots_started_) return bad_input("references after the roots");
  if (b.begin.empty() || !b.first.valid() || b.first.value() < done ||
      b.first.value() + (b.begin.size() - 1) > n)
    return bad_input("references of objects out of order, from " + number_of(b.first.value(), n));
  const size_t count = b.begin.size() - 1;
  if (b.begin[0] != 0 || b.begin.back() != b.targets.size() ||
      !std::is_sorted(b.begin.begin(), b.begin.end()))
    return bad_input("references that do not add up, from object " +
                     std::to_string(b.first.value()));
  if (!b.names.empty() && (!named_ || b.names.size() != b.targets.size()))
    return bad_input("reference names that are not one a reference");
  if (auto top = std::max_element(b.targets.begin(), b.targets.end());
      top != b.targets.end() && *top >= n)
    return bad_input("a reference to object " + number_of(*top, n));
  for (StringId s : b.names)
    if (!string_or_none(s))
      return bad_input("a reference named by string " + std::to_string(s.value()));
  for (uint32_t k : b.class_edges)
    if (k >= count || b.begin[k] == b.begin[k + 1])
      return bad_input("a class edge of an object without references");
  if (edge_target_.size() + b.targets.size() >= UINT32_MAX - 1)
    return bad_input("2^32 references or more");
  edges_started_ = true;
  const uint32_t base = static_cast<uint32_t>(edge_target_.size());
  edge_begin_.resize(b.first.value() + 1, base);  // objects between blocks have none
  if (edge_begin_.size() == 1 && edge_begin_.capacity() < b.begin.size()) {
    edge_begin_.swap(b.begin);
  } else {
    for (size_t k = 1; k < b.begin.size(); ++k) edge_begin_.push_back(base + b.begin[k]);
  }
  if (named_ && b.names.empty()) b.names.assign(b.targets.size(), StringId::none());
  if (named_) append(edge_name_, b.names);
  append(edge_target_, b.targets);
  size_object_flags();
  for (uint32_t k : b.class_edges) added_class_edge_[b.first.value() + k] = true;
  return Ok{};
}

Status GraphBuilder::Graph::drop_dead_finalizer_roots(const std::vector<bool>& dead) {
  if (dead.size() != roots_.size()) return bad_input("dead finalizers: one flag a root");
  if (roots_.empty()) return Ok{};  // no root: the references may not even be closed
  // The virtual root's references are the last of the CSR, in the order of roots().
  const size_t first = edge_begin_[object_count()];
  size_t out = 0;
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (dead[i]) {
      dead_finalizers_.emplace_back(edge_target_[first + i]);
      continue;
    }
    roots_[out] = roots_[i];
    edge_target_[first + out] = edge_target_[first + i];
    if (named_) edge_name_[first + out] = edge_name_[first + i];
    ++out;
  }
  roots_.resize(out);
  edge_target_.resize(first + out);
  if (named_) edge_name_.resize(first + out);
  edge_begin_.back() = static_cast<uint32_t>(first + out);
  return Ok{};
}

Status GraphBuilder::Graph::check_classes() const {
  for (size_t c = 0; c < classes_.size(); ++c) {
    const ClassInfo& info = classes_[c];
    if (!info.name.valid() || !string_or_none(info.name))
      return bad_input("class " + std::to_string(c) + " has no name");
    if (info.object.valid() && !is_object(info.object))
      return bad_input("class " + std::to_string(c) + " is object " +
                       number_of(info.object.value(), address_.size()));
  }
  return Ok{};
}

Result<HeapGraph> GraphBuilder::Graph::build() {
  close_references();
  size_object_flags();
  if (Status s = check_classes(); !s) return s.error();
  const size_t n = address_.size();
  if (!site_.empty()) site_.resize(n, SiteId::none());
  if (!generation_.empty()) generation_.resize(n, 0);
  if (!seq_.empty()) seq_.resize(n, 0);
  if (!stack_.empty()) stack_.resize(n, 0);
  resolve_stacks();
  drop_empty_fields();
  drop_address_index();  // 4/3 of 4 bytes an object, for the few that look addresses up
  return HeapGraph(std::move(static_cast<HeapGraph&>(*this)));
}

// Each stack's frames, an id's first definition winning, with its application frame; the
// objects' stack ids become indexes (from 1; 0: none), an id no stack defines none.
void GraphBuilder::Graph::resolve_stacks() {
  if (stack_.empty()) return;
  std::unordered_map<uint32_t, uint32_t, KeyedHash> index;  // id -> index from 1
  stack_begin_ = {0, 0};                                    // index 0: no stack
  stack_app_site_ = {SiteId::none()};
  std::unordered_map<uint32_t, bool> app_file;  // by file StringId
  stack_defs_.emplace_back(0, static_cast<uint32_t>(stack_frames_.size()));
  for (size_t d = 0; d + 1 < stack_defs_.size(); ++d) {
    if (!index.try_emplace(stack_defs_[d].first, uint32_t(stack_begin_.size() - 1)).second)
      continue;
    SiteId app = SiteId::none();
    for (uint32_t f = stack_defs_[d].second; f < stack_defs_[d + 1].second; ++f) {
      const SiteId frame = stack_frames_[f];
      stack_sites_.push_back(frame);
      const StringId file = sites_[frame.value()].file;
      auto [known, added] = app_file.try_emplace(file.value(), false);
      if (added) known->second = file.valid() && is_app_path(string(file), app_root_);
      if (known->second && !app.valid()) app = frame;
    }
    stack_begin_.push_back(static_cast<uint32_t>(stack_sites_.size()));
    stack_app_site_.push_back(app);
  }
  renumber_stacks(index);
  std::vector<std::pair<uint32_t, uint32_t>>().swap(stack_defs_);
  std::vector<SiteId>().swap(stack_frames_);
}

void GraphBuilder::Graph::renumber_stacks(
    const std::unordered_map<uint32_t, uint32_t, KeyedHash>& index) {
  // memprof numbers its stacks 1, 2, ...: a table by id, not a hash lookup per object.
  uint32_t top = 0;
  for (const auto& [id, ignored] : index) top = std::max(top, id);
  if (top <= 4 * index.size() + 1024) {
    std::vector<uint32_t> by_id(size_t(top) + 1, 0);
    for (const auto& [id, i] : index) by_id[id] = i;
    for (uint32_t& s : stack_) s = s <= top ? by_id[s] : 0;
    return;
  }
  for (uint32_t& s : stack_) {
    if (s == 0) continue;
    auto it = index.find(s);
    s = it == index.end() ? 0 : it->second;
  }
}

GraphBuilder::GraphBuilder(std::string_view app_root, Addresses addresses)
    : g_(std::make_unique<Graph>(app_root, addresses)) {}
GraphBuilder::GraphBuilder(GraphBuilder&&) noexcept = default;
GraphBuilder& GraphBuilder::operator=(GraphBuilder&&) noexcept = default;
GraphBuilder::~GraphBuilder() = default;

const HeapGraph& GraphBuilder::graph() const {
  g_->size_object_flags();  // so that holds_weakly() and added_class_edge() may be read
  return *g_;
}
StringId GraphBuilder::intern(std::string_view s) {
  return g_->intern(s);
}
ClassId GraphBuilder::add_class(const ClassInfo& info) {
  return g_->add_class(info);
}
Status GraphBuilder::set_class(ClassId c, const ClassInfo& info) {
  return g_->set_class(c, info);
}
Result<SiteId> GraphBuilder::add_site(const Site& site) {
  return g_->add_site(site);
}
Status GraphBuilder::move_objects_to_classes(const std::vector<ClassId>& to) {
  return g_->move_objects_to_classes(to);
}
void GraphBuilder::reserve(size_t objects) {
  g_->reserve(objects);
}
Status GraphBuilder::add_objects(std::span<const ObjectFields> objects,
                                 std::vector<uint32_t>* repeats, size_t expected) {
  return g_->add_objects(objects, repeats, expected);
}
Status GraphBuilder::add_object_columns(ObjectColumns columns) {
  return g_->add_object_columns(columns);
}
void GraphBuilder::name_references() {
  g_->name_references();
}
void GraphBuilder::reserve_references(size_t edges) {
  g_->reserve_references(edges);
}
Status GraphBuilder::add_references(ReferenceBlock block) {
  return g_->add_references(block);
}
Status GraphBuilder::add_root(const RootEdge& root) {
  return g_->add_root(root);
}
Status GraphBuilder::drop_dead_finalizer_roots(const std::vector<bool>& dead) {
  return g_->drop_dead_finalizer_roots(dead);
}
Status GraphBuilder::add_weak_holder(ObjectId o) {
  return g_->add_weak_holder(o);
}
Status GraphBuilder::add_record_name(ObjectId o, StringId name) {
  return g_->add_record_name(o, name);
}
Status GraphBuilder::add_block_site(ObjectId o, SiteId site) {
  return g_->add_block_site(o, site);
}
Status GraphBuilder::add_stack(uint32_t id, std::span<const SiteId> frames) {
  return g_->add_stack(id, frames);
}
std::string_view GraphBuilder::keep_value_bytes(std::vector<char> bytes) {
  return g_->keep_value_bytes(std::move(bytes));
}
Status GraphBuilder::add_string_value(const StringValue& value) {
  return g_->add_string_value(value);
}
Result<HeapGraph> GraphBuilder::build() {
  return g_->build();
}

}  // namespace heapq
