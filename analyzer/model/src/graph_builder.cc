#include "graph_builder.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "chunk_objects.h"
#include "heapq/base/keyed_hash.h"
#include "heapq/read/source_paths.h"

namespace heapq {

namespace {

template <typename T>
void append(std::vector<T>& to, std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
  std::vector<T>().swap(from);
}

template <typename T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// Runs fn(i) for i in [0, n) on up to `threads` threads; an exception (std::bad_alloc) one
// of them throws is thrown again here, once all are done.
template <typename Fn>
void parallel_for(size_t n, unsigned threads, Fn fn) {
  std::atomic<size_t> next{0};
  std::exception_ptr failed;
  std::mutex failed_mutex;
  auto work = [&] {
    try {
      for (size_t i; (i = next++) < n;) fn(i);
    } catch (...) {
      std::lock_guard lock(failed_mutex);
      if (!failed) failed = std::current_exception();
      next = n;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<size_t>(threads, n); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
}

// A chunk's references, as its records gave them, until every address is known.
struct PendingBlock {
  uint32_t first_object = 0;    // the graph id of the chunk's first object
  std::vector<uint64_t> refs;   // addresses
  std::vector<StringId> names;  // as the graph's strings; empty: none named
  std::vector<uint32_t> ends;   // per object, into refs
};

void release(PendingBlock& b) {
  b = PendingBlock{b.first_object, {}, {}, {}};
}

// A chunk's references as object ids, dangling ones dropped.
struct ResolvedRefs {
  std::vector<uint32_t> targets;
  std::vector<StringId> names;
  std::vector<uint32_t> ends;              // per object, into targets
  std::vector<uint32_t> added_class_edge;  // objects (chunk-relative) given their class edge
  uint64_t dangling = 0;
};

// Drops the references of one object (targets[first...], with their names when named) that
// repeat an earlier one to the same object under the same name, keeping the first of each in
// order: Ruby marks some references twice (a Thread's fiber-local values; an Array holding one
// object at many indexes), and a dump lists each marking, so counts of references would be
// counts of markings. Short lists are compared pairwise, long ones sorted: O(k log k).
void drop_repeated_references(std::vector<uint32_t>& targets, std::vector<StringId>& names,
                              size_t first, bool named) {
  const size_t k = targets.size() - first;
  if (k < 2) return;
  auto same = [&](size_t a, size_t b) {
    return targets[a] == targets[b] && (!named || names[a] == names[b]);
  };
  std::vector<bool> repeat(k, false);
  bool any = false;
  if (k <= 32) {
    for (size_t i = 1; i < k; ++i)
      for (size_t j = 0; j < i && !repeat[i]; ++j) repeat[i] = same(first + i, first + j);
    any = std::find(repeat.begin(), repeat.end(), true) != repeat.end();
  } else {
    std::vector<uint32_t> order(k);
    for (uint32_t i = 0; i < k; ++i) order[i] = i;
    auto key = [&](uint32_t i) {
      return std::pair(targets[first + i], named ? names[first + i].value() : 0u);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    for (size_t i = 1; i < k; ++i)
      if (key(order[i]) == key(order[i - 1])) any = repeat[order[i]] = true;
  }
  if (!any) return;
  size_t out = first;
  for (size_t i = 0; i < k; ++i) {
    if (repeat[i]) continue;
    targets[out] = targets[first + i];
    if (named) names[out] = names[first + i];
    ++out;
  }
  targets.resize(out);
  if (named) names.resize(out);
}

}  // namespace

// Builds the graph as chunks come in (their objects), then in stages (references, roots,
// classes), each stage freeing what it no longer needs.
class GraphBuilder::Builder {
 public:
  Builder(unsigned threads, bool references, std::string_view app_root, LoadReport& report,
          uint64_t input_bytes)
      : threads_(threads),
        references_(references),
        app_root_(app_root),
        report_(report),
        input_bytes_(input_bytes) {}

  void add(ParsedChunk& c) {
    if (first_chunk_) {
      first_chunk_ = false;
      reserve_for(c);
    }
    const uint32_t base = static_cast<uint32_t>(g_.address_.size());
    report_.duplicate_addresses +=
        index_chunk_objects(c, g_.address_index_, g_.address_, expected_objects(c));
    std::vector<StringId> strings = remap_strings(c);
    std::vector<ClassId> classes;
    for (const ClassKey& k : c.class_keys) classes.push_back(class_for(k, strings));
    std::vector<SiteId> sites;
    for (const SiteKey& k : c.site_keys)
      sites.push_back(site_for({mapped(strings, k.file), k.line, mapped(strings, k.method)}));
    add_references(c, strings, base);
    add_object_columns(c, classes, sites, base);
    add_records(c, strings, sites, base);
  }

  // The chunk's per-object fields (moved out of it), after the objects of the chunks before it.
  void add_object_columns(ParsedChunk& c, const std::vector<ClassId>& classes,
                          const std::vector<SiteId>& sites, uint32_t base) {
    const size_t n = c.object_count();
    for (uint32_t slot : c.class_slot) g_.class_of_.push_back(classes[slot]);
    // Sites and generations only from the first chunk that has any (see drop_empty_fields).
    const bool any_site = std::any_of(c.site_slot.begin(), c.site_slot.end(),
                                      [](uint32_t s) { return s != ParsedChunk::kNoSite; });
    if (any_site || !g_.site_.empty()) {
      g_.site_.resize(base, SiteId::none());
      for (uint32_t slot : c.site_slot)
        g_.site_.push_back(slot == ParsedChunk::kNoSite ? SiteId::none() : sites[slot]);
    }
    append(g_.type_, c.type);
    for (uint64_t m : c.memsize) g_.memsize_.push_back(m);
    const bool any_generation =
        std::any_of(c.generation.begin(), c.generation.end(), [](uint32_t g) { return g != 0; });
    if (any_generation || !g_.generation_.empty()) {
      g_.generation_.resize(base, 0);
      g_.generation_.append(c.generation);
    }
    if (!c.seq.empty() || !g_.seq_.empty()) {
      g_.seq_.resize(base, 0);  // objects of chunks without seq: 0
      append(g_.seq_, c.seq);
      g_.seq_.resize(base + n, 0);
    }
    if (!c.stack.empty() || !g_.stack_.empty()) {
      g_.stack_.resize(base, 0);  // the dump's stack ids until add_stacks() makes them indexes
      append(g_.stack_, c.stack);
      g_.stack_.resize(base + n, 0);
    }
    g_.weak_holder_.resize(base + n, false);
    for (uint32_t w : c.weak_holders) g_.weak_holder_[base + w] = true;
    g_.weak_holders_ += c.weak_holders.size();
  }

  // The chunk's tables (frames, stacks, classes, string values, roots), its strings and object
  // ids made the graph's.
  void add_records(ParsedChunk& c, const std::vector<StringId>& strings,
                   const std::vector<SiteId>& sites, uint32_t base) {
    for (const FrameRecord& f : c.frames) frame_sites_.try_emplace(f.id, sites[f.site]);
    uint32_t first_frame = 0;
    for (const StackRecord& st : c.stacks) {
      stack_defs_.push_back({st.id, static_cast<uint32_t>(stack_frame_ids_.size())});
      stack_frame_ids_.insert(stack_frame_ids_.end(), c.stack_frames.begin() + first_frame,
                              c.stack_frames.begin() + st.frames_end);
      first_frame = st.frames_end;
    }
    for (ClassRecord r : c.classes) {
      r.object += base;
      r.name = mapped(strings, r.name);
      r.real_class_name = mapped(strings, r.real_class_name);
      class_records_.push_back(r);
    }
    for (ObjectLabel l : c.class_names)
      class_names_.push_back({l.object + base, mapped(strings, l.label)});
    for (auto [object, slot] : c.block_sites) g_.block_sites_.emplace(base + object, sites[slot]);
    if (!c.string_values.empty()) {
      // The chunk's bytes move into the graph whole (a vector's move keeps its buffer).
      const char* bytes = g_.value_bytes_.emplace_back(std::move(c.value_bytes)).data();
      for (const ValueRecord& v : c.string_values)
        g_.string_values_.push_back({ObjectId(base + v.object),
                                     {bytes + v.offset, v.size},
                                     v.bytesize,
                                     v.hash,
                                     v.frozen,
                                     v.interned});
    }
    size_t r = 0;
    for (const RootRecord& root : c.roots) {
      const StringId category = mapped(strings, root.category);
      for (; r < root.refs_end; ++r)
        roots_.push_back(
            {category, c.root_refs[r],
             r < c.root_ref_names.size() ? mapped(strings, c.root_ref_names[r]) : StringId::none(),
             r < c.root_ref_owners.size() ? c.root_ref_owners[r] : 0});
    }
  }

  HeapGraph finish() {
    g_.address_index_built();
    const size_t n = g_.address_.size();
    if (references_) {
      resolve_references();
    } else {
      report_.references_read = false;
      g_.edge_begin_.assign(n + 1, 0);
      g_.added_class_edge_.assign(n, false);
    }
    std::vector<FinalizerOwner> owners = add_roots();
    // The virtual root's references close the CSR.
    g_.edge_begin_.push_back(static_cast<uint32_t>(g_.edge_target_.size()));
    if (references_) report_.dead_finalizers = GraphBuilder::drop_dead_finalizers(g_, owners);
    count_dangling_classes();
    add_stacks();
    g_.drop_empty_fields();
    GraphBuilder::name_classes(g_, class_records_, class_names_);
    g_.drop_address_index();  // 4/3 of 4 bytes an object, for the few that look addresses up
    return std::move(g_);
  }

 private:
  // The first chunk tells how big the input's records are: the arrays are reserved for the
  // whole input once (pages never written cost nothing), so that they are not copied as they
  // grow. A compressed input's size says nothing of its records: the arrays then grow.
  void reserve_for(const ParsedChunk& c) {
    if (input_bytes_ == 0 || c.bytes == 0 || c.object_count() == 0) return;
    const double scale = 1.15 * static_cast<double>(input_bytes_) / static_cast<double>(c.bytes);
    const size_t n = std::min<size_t>(static_cast<size_t>(scale * c.object_count()) + 1024,
                                      input_bytes_ / 16);  // no record is that short
    g_.address_.reserve(n);
    g_.type_.reserve(n);
    g_.class_of_.reserve(n);
    g_.memsize_.reserve(n);
    g_.site_.reserve(n);
    g_.generation_.reserve(n);
    g_.weak_holder_.reserve(n);
  }

  // How many objects the input holds at the rate of those read so far; 0: unknown.
  size_t expected_objects(const ParsedChunk& c) const {
    if (input_bytes_ == 0 || c.consumed == 0) return 0;
    return static_cast<size_t>(static_cast<double>(g_.address_.size() + c.object_count()) *
                               static_cast<double>(input_bytes_) / static_cast<double>(c.consumed));
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

  // Keeps the chunk's references (addresses, names as the graph's strings) until every
  // address is known, as a block of their own that finish() frees once it is resolved. An
  // ICLASS's (or a profiler object's) class slot is not the class its pseudo class stands
  // for: its address is kept aside for the class edge.
  void add_references(const ParsedChunk& c, const std::vector<StringId>& strings, uint32_t base) {
    if (!references_) return;
    PendingBlock& b = pending_.emplace_back();
    b.first_object = base;
    b.refs.assign(c.refs.begin(), c.refs.end());  // exact size: no slack held until finish()
    b.ends.assign(c.refs_end.begin(), c.refs_end.end());
    if (!c.ref_names.empty()) {
      named_ = true;
      b.names.reserve(c.ref_names.size());
      for (StringId name : c.ref_names) b.names.push_back(mapped(strings, name));
    }
    for (size_t i = 0; i < c.class_slot.size(); ++i) {
      const ClassKey& k = c.class_keys[c.class_slot[i]];
      if ((k.iclass || k.profiler) && !k.imemo && k.address != 0)
        class_slot_addresses_.emplace_back(base + static_cast<uint32_t>(i), k.address);
    }
  }

  // An object keeps its class alive, but ObjectSpace leaves that reference out of its dumps
  // (memprof writes it): without it class objects would look like garbage. The class object
  // of each class, found once; none for IMEMO objects, whose class slot is not a class.
  std::vector<uint32_t> class_objects() const {
    std::vector<uint32_t> out(g_.classes_.size(), UINT32_MAX);
    if (report_.format == DumpFormat::kMemprof) return out;
    for (size_t k = 0; k < out.size(); ++k)
      if (g_.classes_[k].address != 0)
        if (auto o = g_.find(g_.classes_[k].address)) out[k] = o->value();
    return out;
  }

  // Resolves addresses to ids on every core, a block each (the index is complete and
  // read-only by now), a few blocks per core at a time: their edges are appended in order and
  // the blocks freed before the next ones, so that the pending addresses (8 bytes a
  // reference) and the resolved edges (4) are never all in memory together.
  void resolve_references() {
    const uint32_t n = static_cast<uint32_t>(g_.address_.size());
    const std::vector<uint32_t> class_object = class_objects();
    size_t most_edges = roots_.size() + n;  // each object may gain its class edge
    for (const PendingBlock& b : pending_) most_edges += b.refs.size();
    g_.edge_target_.reserve(most_edges);  // pages never written cost nothing
    if (named_) g_.edge_name_.reserve(most_edges);
    g_.edge_begin_.reserve(size_t(n) + 2);
    g_.edge_begin_.push_back(0);
    g_.added_class_edge_.assign(n, false);
    const size_t batch = 8 * size_t(threads_);
    std::vector<ResolvedRefs> resolved(batch);
    size_t freed = 0;  // bytes of blocks freed since the pages were last given back
    for (size_t first = 0; first < pending_.size(); first += batch) {
      const size_t count = std::min(batch, pending_.size() - first);
      for (size_t k = 0; k < count; ++k) freed += bytes_of(pending_[first + k]);
      parallel_for(count, threads_, [&](size_t k) {
        resolve(pending_[first + k], class_object, resolved[k]);
        release(pending_[first + k]);
      });
      if (freed >= kGiveBackBytes) {
        give_back_free_pages();
        freed = 0;
      }
      for (size_t k = 0; k < count; ++k) {
        ResolvedRefs& r = resolved[k];
        const uint32_t first_object = pending_[first + k].first_object;
        for (uint32_t i : r.added_class_edge) g_.added_class_edge_[first_object + i] = true;
        const uint32_t base = static_cast<uint32_t>(g_.edge_target_.size());
        for (uint32_t end : r.ends) g_.edge_begin_.push_back(base + end);
        append(g_.edge_target_, r.targets);
        append(g_.edge_name_, r.names);
        report_.dangling_references += r.dangling;
        r = ResolvedRefs();  // the rest of it
      }
    }
    release(pending_);
    release(class_slot_addresses_);
    give_back_free_pages();
  }

  // The blocks came from the parsing threads' malloc arenas, a few hundred KiB each, and are
  // freed a few at a time: their pages stay in the process unless given back, under the edges
  // appended meanwhile and whatever an analysis allocates next. Given back every 64 MiB freed
  // (every 16 MiB: no lower): 16.7M records, stats peak 905-910 MB when given back only at
  // the end, 805-833 MB so, in the same time.
  static constexpr size_t kGiveBackBytes = size_t{64} << 20;
  static void give_back_free_pages() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
  }
  static size_t bytes_of(const PendingBlock& b) {
    return b.refs.capacity() * sizeof(uint64_t) + b.names.capacity() * sizeof(StringId) +
           b.ends.capacity() * sizeof(uint32_t);
  }

  void resolve(const PendingBlock& b, const std::vector<uint32_t>& class_object,
               ResolvedRefs& out) const {
    const size_t end = b.refs.size();
    const uint32_t objects = static_cast<uint32_t>(b.ends.size());
    out.targets.reserve(end + objects);
    out.ends.reserve(objects);
    if (named_) out.names.reserve(out.targets.capacity());
    auto special = std::lower_bound(
        class_slot_addresses_.begin(), class_slot_addresses_.end(), b.first_object,
        [](const std::pair<uint32_t, uint64_t>& e, uint32_t object) { return e.first < object; });
    size_t r = 0;
    // The address index is far bigger than the caches: each find would wait for two reads
    // from memory (its slot, then the object's address). Both are asked for ahead.
    constexpr size_t kCellAhead = 16, kObjectAhead = 8;
    for (uint32_t k = 0; k < objects; ++k) {
      const uint32_t i = b.first_object + k;
      const size_t first = out.targets.size();
      for (const size_t stop = b.ends[k]; r < stop; ++r) {
        if (r + kCellAhead < end) g_.prefetch_cell(b.refs[r + kCellAhead]);
        if (r + kObjectAhead < end) g_.prefetch_object(b.refs[r + kObjectAhead]);
        std::optional<ObjectId> to = g_.find(b.refs[r]);
        if (!to) {
          ++out.dangling;
          continue;
        }
        out.targets.push_back(to->value());
        // A block read before the first named one has no names: all none.
        if (named_) out.names.push_back(b.names.empty() ? StringId::none() : b.names[r]);
      }
      drop_repeated_references(out.targets, out.names, first, named_);
      uint32_t klass = UINT32_MAX;
      if (special != class_slot_addresses_.end() && special->first == i) {
        if (report_.format != DumpFormat::kMemprof)
          if (auto o = g_.find(special->second)) klass = o->value();
        ++special;
      } else {
        klass = class_object[g_.class_of_[i].value()];
      }
      if (klass != UINT32_MAX &&
          std::find(out.targets.begin() + first, out.targets.end(), klass) == out.targets.end()) {
        out.targets.push_back(klass);
        out.added_class_edge.push_back(k);
        if (named_) out.names.push_back(StringId::none());
      }
      out.ends.push_back(static_cast<uint32_t>(out.targets.size()));
    }
  }

  // The roots; and for those the dump gives the object of (memprof's finalizers), that object
  // (none: not in the dump).
  std::vector<FinalizerOwner> add_roots() {
    std::vector<FinalizerOwner> owners;
    for (const PendingRoot& root : roots_) {
      if (auto to = g_.find(root.address)) {
        if (root.owner != 0)
          owners.push_back({static_cast<uint32_t>(g_.roots_.size()),
                            g_.find(root.owner).value_or(ObjectId::none())});
        g_.roots_.push_back({root.category, *to, root.name});
        g_.edge_target_.push_back(to->value());
        if (!g_.edge_name_.empty() || named_) g_.edge_name_.push_back(root.category);
      } else {
        ++report_.dangling_references;
      }
    }
    release(roots_);
    return owners;
  }

  ClassId class_for(const ClassKey& key, const std::vector<StringId>& strings) {
    // An IMEMO's class slot holds internal data (often junk such as 0x8), not a class.
    if (key.imemo)
      return pseudo_class("IMEMO:" + std::string(g_.strings_[mapped(strings, key.imemo_type)]));
    // A profiler's object before hidden ones: memprof's tracker has no class.
    if (key.profiler) {
      ClassId c = pseudo_class(std::string(g_.strings_[mapped(strings, key.imemo_type)]) +
                               std::string(kProfilerSuffix));
      g_.classes_[c.value()].profiler = true;
      return c;
    }
    if (key.address == 0) return pseudo_class(hidden_class_name(key.hidden));
    // An included module's proxy is VM internals, not an instance of the module it points at.
    if (key.iclass) return pseudo_class("ICLASS");
    auto [it, added] = class_by_address_.try_emplace(key.address, ClassId());
    if (added) {
      it->second = ClassId(static_cast<uint32_t>(g_.classes_.size()));
      g_.classes_.push_back({key.address, ObjectId::none(), StringId::none()});
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

  SiteId site_for(const SiteKey& key) {
    auto [it, added] = sites_.try_emplace(key, SiteId());
    if (added) {
      it->second = SiteId(static_cast<uint32_t>(g_.sites_.size()));
      g_.sites_.push_back({key.file, key.line, key.method});
    }
    return it->second;
  }

  // memprof's allocation stacks, which follow the objects (in any chunk): each STACK's frames
  // as sites, the first definition of an id winning; objects' stack ids become indexes, and an
  // id no STACK defines, or a frame id no FRAME does, is left out.
  void add_stacks() {
    if (g_.stack_.empty()) return;
    std::unordered_map<uint32_t, uint32_t, KeyedHash> index;  // the dump's stack id -> index from 1
    g_.stack_begin_ = {0, 0};                                 // index 0: no stack
    g_.stack_app_site_ = {SiteId::none()};
    std::unordered_map<uint32_t, bool> app_file;  // by file StringId
    stack_defs_.push_back({0, static_cast<uint32_t>(stack_frame_ids_.size())});
    for (size_t d = 0; d + 1 < stack_defs_.size(); ++d) {
      if (!index.try_emplace(stack_defs_[d].first, uint32_t(g_.stack_begin_.size() - 1)).second)
        continue;
      SiteId app = SiteId::none();
      for (uint32_t f = stack_defs_[d].second; f < stack_defs_[d + 1].second; ++f) {
        auto it = frame_sites_.find(stack_frame_ids_[f]);
        if (it == frame_sites_.end()) continue;
        g_.stack_sites_.push_back(it->second);
        const StringId file = g_.sites_[it->second.value()].file;
        auto [known, added] = app_file.try_emplace(file.value(), false);
        if (added) known->second = is_app_path(g_.string(file), app_root_);
        if (known->second && !app.valid()) app = it->second;
      }
      g_.stack_begin_.push_back(static_cast<uint32_t>(g_.stack_sites_.size()));
      g_.stack_app_site_.push_back(app);
    }
    // memprof numbers its stacks 1, 2, ...: a table by id, not a hash lookup per object.
    uint32_t top = 0;
    for (const auto& [id, ignored] : index) top = std::max(top, id);
    if (top <= 4 * index.size() + 1024) {
      std::vector<uint32_t> by_id(size_t(top) + 1, 0);
      for (const auto& [id, i] : index) by_id[id] = i;
      for (uint32_t& s : g_.stack_) s = s <= top ? by_id[s] : 0;
    } else {
      for (uint32_t& s : g_.stack_) {
        if (s == 0) continue;
        auto it = index.find(s);
        s = it == index.end() ? 0 : it->second;
      }
    }
    release(stack_defs_);
    release(stack_frame_ids_);
    frame_sites_.clear();
  }

  void count_dangling_classes() {
    std::vector<uint64_t> users(g_.classes_.size(), 0);
    for (size_t o = 0; o < g_.class_of_.size(); ++o) ++users[g_.class_of_[o].value()];
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

  struct PendingRoot {
    StringId category;
    uint64_t address = 0;
    StringId name;
    uint64_t owner = 0;  // the object a finalizers Array is for; 0: not given
  };

  const unsigned threads_;
  const bool references_;
  const std::string_view app_root_;
  LoadReport& report_;
  const uint64_t input_bytes_;
  bool first_chunk_ = true;
  HeapGraph g_;
  // References until every address is known, a block per chunk.
  std::vector<PendingBlock> pending_;
  bool named_ = false;  // some chunk named its references
  std::vector<std::pair<uint32_t, uint64_t>> class_slot_addresses_;  // (object, class address)
  std::vector<PendingRoot> roots_;
  std::vector<ClassRecord> class_records_;
  std::vector<ObjectLabel> class_names_;
  std::unordered_map<uint64_t, ClassId, KeyedHash> class_by_address_;
  std::unordered_map<StringId, ClassId> pseudo_classes_;
  std::unordered_map<SiteKey, SiteId, SiteKeyHash> sites_;
  std::unordered_map<uint32_t, SiteId, KeyedHash> frame_sites_;  // FRAME id -> site
  std::vector<std::pair<uint32_t, uint32_t>> stack_defs_;        // (STACK id, first frame id)
  std::vector<uint32_t> stack_frame_ids_;
};

GraphBuilder::GraphBuilder(unsigned threads, bool references, LoadReport& report,
                           std::string_view app_root, uint64_t input_bytes)
    : builder_(std::make_unique<Builder>(std::max(threads, 1u), references, app_root, report,
                                         input_bytes)) {}

GraphBuilder::~GraphBuilder() = default;

void GraphBuilder::add(ParsedChunk& chunk) {
  builder_->add(chunk);
}

HeapGraph GraphBuilder::finish() {
  return builder_->finish();
}

}  // namespace heapq
