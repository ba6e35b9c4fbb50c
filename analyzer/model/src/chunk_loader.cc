#include "chunk_loader.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "chunk_objects.h"
#include "heapq/base/keyed_hash.h"

namespace heapq {

namespace {

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
  std::mutex status_mutex;
  auto work = [&] {
    try {
      for (size_t i; (i = next++) < n;) fn(i);
    } catch (...) {
      std::lock_guard lock(status_mutex);
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
  ReferenceBlock block;
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
class ChunkLoader::Loader {
 public:
  Loader(unsigned threads, bool references, std::string_view app_root, LoadReport& report,
         uint64_t input_bytes)
      : threads_(threads),
        references_(references),
        report_(report),
        input_bytes_(input_bytes),
        b_(app_root, GraphBuilder::Addresses::kUnique),
        g_(b_.graph()) {}

  void add(ParsedChunk& c) {
    if (!status_) return;
    if (first_chunk_) {
      first_chunk_ = false;
      reserve_for(c);
    }
    const uint32_t base = static_cast<uint32_t>(g_.object_count());
    std::vector<StringId> strings = remap_strings(c);
    std::vector<ClassId> classes;
    for (const ClassKey& k : c.class_keys) classes.push_back(class_for(k, strings));
    std::vector<SiteId> sites;
    for (const SiteKey& k : c.site_keys)
      sites.push_back(site_for({mapped(strings, k.file), k.line, mapped(strings, k.method)}));
    add_objects(c, classes, sites);
    add_references(c, strings, base);
    add_records(c, strings, sites, base);
  }

  // The chunk's objects, after those of the chunks before it; those at an address an earlier
  // object has leave the chunk.
  void add_objects(ParsedChunk& c, const std::vector<ClassId>& classes,
                   const std::vector<SiteId>& sites) {
    const size_t n = c.object_count();
    const bool has_seq = !c.seq.empty(), has_stack = !c.stack.empty();
    std::vector<ObjectFields> objects(n);
    for (size_t i = 0; i < n; ++i) {
      ObjectFields& o = objects[i];
      o.address = c.address[i];
      o.memsize = c.memsize[i];
      o.seq = has_seq ? c.seq[i] : 0;
      o.has_seq = has_seq;
      o.class_id = classes[c.class_slot[i]];
      o.site = c.site_slot[i] == ParsedChunk::kNoSite ? SiteId::none() : sites[c.site_slot[i]];
      o.generation = c.generation[i];
      o.stack = has_stack ? c.stack[i] : 0;  // the dump's id, which build() resolves
      o.type = c.type[i];
    }
    std::vector<uint32_t> repeats;
    const size_t expected = expected_objects(c);
    if (!keep(b_.add_objects(objects, &repeats, expected))) return;
    report_.duplicate_addresses += drop_repeated_objects(c, repeats);
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
    for (uint32_t w : c.weak_holders) keep(b_.add_weak_holder(ObjectId(base + w)));
    for (auto [object, slot] : c.block_sites)
      keep(b_.add_block_site(ObjectId(base + object), sites[slot]));
    if (!c.string_values.empty()) {
      // The chunk's bytes move into the graph whole (a vector's move keeps its buffer).
      const char* bytes = b_.keep_value_bytes(std::move(c.value_bytes)).data();
      for (const ValueRecord& v : c.string_values)
        keep(b_.add_string_value({ObjectId(base + v.object),
                                  {bytes + v.offset, v.size},
                                  v.bytesize,
                                  v.hash,
                                  v.frozen,
                                  v.interned}));
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

  Result<HeapGraph> finish() {
    if (references_)
      resolve_references();
    else
      report_.references_read = false;
    std::vector<FinalizerOwner> owners = add_roots();
    if (references_ && status_) {
      auto dead = ChunkLoader::drop_dead_finalizers(b_, owners);
      if (keep(dead)) report_.dead_finalizers = *dead;
    }
    count_dangling_classes();
    add_stacks();
    if (status_) keep(ChunkLoader::name_classes(b_, class_records_, class_names_));
    if (!status_) return status_.error();
    return b_.build();
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
    b_.reserve(n);
  }

  // How many objects the input holds at the rate of those read so far; 0: unknown.
  size_t expected_objects(const ParsedChunk& c) const {
    if (input_bytes_ == 0 || c.consumed == 0) return 0;
    return static_cast<size_t>(static_cast<double>(g_.object_count() + c.object_count()) *
                               static_cast<double>(input_bytes_) / static_cast<double>(c.consumed));
  }

  // Strings of a chunk, as ids of the graph's table.
  std::vector<StringId> remap_strings(const ParsedChunk& c) {
    std::vector<StringId> map(c.strings.size());
    for (uint32_t i = 0; i < map.size(); ++i) map[i] = b_.intern(c.strings[StringId(i)]);
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
    std::vector<uint32_t> out(g_.class_count(), UINT32_MAX);
    if (report_.format == DumpFormat::kMemprof) return out;
    for (size_t k = 0; k < out.size(); ++k)
      if (const uint64_t address = g_.class_info(ClassId(uint32_t(k))).address)
        if (auto o = g_.find(address)) out[k] = o->value();
    return out;
  }

  // Resolves addresses to ids on every core, a block each (the index is complete and
  // read-only by now), a few blocks per core at a time: their edges are appended in order and
  // the blocks freed before the next ones, so that the pending addresses (8 bytes a
  // reference) and the resolved edges (4) are never all in memory together.
  void resolve_references() {
    const uint32_t n = static_cast<uint32_t>(g_.object_count());
    const std::vector<uint32_t> class_object = class_objects();
    size_t most_edges = roots_.size() + n;  // each object may gain its class edge
    for (const PendingBlock& b : pending_) most_edges += b.refs.size();
    if (named_) b_.name_references();
    b_.reserve_references(most_edges);  // pages never written cost nothing
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
        r.block.first = ObjectId(pending_[first + k].first_object);
        keep(b_.add_references(std::move(r.block)));
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
               ResolvedRefs& resolved) const {
    ReferenceBlock& out = resolved.block;
    const size_t end = b.refs.size();
    const uint32_t objects = static_cast<uint32_t>(b.ends.size());
    out.targets.reserve(end + objects);
    out.begin.reserve(size_t(objects) + 1);
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
          ++resolved.dangling;
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
        klass = class_object[g_.class_of(ObjectId(i)).value()];
      }
      if (klass != UINT32_MAX &&
          std::find(out.targets.begin() + first, out.targets.end(), klass) == out.targets.end()) {
        out.targets.push_back(klass);
        out.class_edges.push_back(k);
        if (named_) out.names.push_back(StringId::none());
      }
      out.begin.push_back(static_cast<uint32_t>(out.targets.size()));
    }
  }

  // The roots; and for those the dump gives the object of (memprof's finalizers), that object
  // (none: not in the dump).
  std::vector<FinalizerOwner> add_roots() {
    std::vector<FinalizerOwner> owners;
    for (const PendingRoot& root : roots_) {
      if (auto to = g_.find(root.address)) {
        if (root.owner != 0)
          owners.push_back({static_cast<uint32_t>(g_.roots().size()),
                            g_.find(root.owner).value_or(ObjectId::none())});
        keep(b_.add_root({root.category, *to, root.name}));
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
      return pseudo_class("IMEMO:" + std::string(g_.string(mapped(strings, key.imemo_type))));
    // A profiler's object before hidden ones: memprof's tracker has no class.
    if (key.profiler)
      return pseudo_class(
          std::string(g_.string(mapped(strings, key.imemo_type))) + std::string(kProfilerSuffix),
          true);
    if (key.address == 0) return pseudo_class(hidden_class_name(key.hidden));
    // An included module's proxy is VM internals, not an instance of the module it points at.
    if (key.iclass) return pseudo_class("ICLASS");
    auto [it, added] = class_by_address_.try_emplace(key.address, ClassId());
    if (added) it->second = b_.add_class({key.address, ObjectId::none(), StringId::none()});
    return it->second;
  }

  // Pseudo classes are named at once: they have no object to be named after.
  ClassId pseudo_class(const std::string& name, bool profiler = false) {
    StringId s = b_.intern(name);
    auto [it, added] = pseudo_classes_.try_emplace(s, ClassId());
    if (added) it->second = b_.add_class({0, ObjectId::none(), s, profiler});
    return it->second;
  }

  SiteId site_for(const SiteKey& key) {
    auto [it, added] = sites_.try_emplace(key, SiteId());
    if (added) {
      auto site = b_.add_site({key.file, key.line, key.method});
      it->second = keep(site) ? *site : SiteId::none();
    }
    return it->second;
  }

  // memprof's allocation stacks, which follow the objects (in any chunk): each STACK's frames
  // as sites, a frame id no FRAME defines left out; the builder resolves the objects' ids.
  void add_stacks() {
    if (g_.has_stacks()) {
      std::vector<SiteId> frames;
      stack_defs_.push_back({0, static_cast<uint32_t>(stack_frame_ids_.size())});
      for (size_t d = 0; d + 1 < stack_defs_.size(); ++d) {
        frames.clear();
        for (uint32_t f = stack_defs_[d].second; f < stack_defs_[d + 1].second; ++f)
          if (auto it = frame_sites_.find(stack_frame_ids_[f]); it != frame_sites_.end())
            frames.push_back(it->second);
        keep(b_.add_stack(stack_defs_[d].first, frames));
      }
    }
    release(stack_defs_);
    release(stack_frame_ids_);
    frame_sites_.clear();
  }

  // Each class's object, where the dump has it as a class; the objects of the others count as
  // those of a class the dump lacks.
  void count_dangling_classes() {
    std::vector<uint64_t> users(g_.class_count(), 0);
    for (uint32_t o = 0; o < g_.object_count(); ++o) ++users[g_.class_of(ObjectId(o)).value()];
    for (uint32_t c = 0; c < users.size(); ++c) {
      ClassInfo info = g_.class_info(ClassId(c));
      if (info.address == 0) continue;
      std::optional<ObjectId> o = g_.find(info.address);
      ObjectType t = o ? g_.type(*o) : ObjectType::kNone;
      if (t == ObjectType::kClass || t == ObjectType::kModule || t == ObjectType::kIclass) {
        info.object = *o;
        keep(b_.set_class(ClassId(c), info));
      } else {
        report_.dangling_classes += users[c];
      }
    }
  }

  // What the builder refused first: the graph is not made, and finish() says why.
  bool keep(const Status& s) {
    if (!s && status_) status_ = s;
    return s.ok();
  }
  template <typename T>
  bool keep(const Result<T>& r) {
    if (!r && status_) status_ = r.error();
    return r.ok();
  }

  struct PendingRoot {
    StringId category;
    uint64_t address = 0;
    StringId name;
    uint64_t owner = 0;  // the object a finalizers Array is for; 0: not given
  };

  const unsigned threads_;
  const bool references_;
  LoadReport& report_;
  const uint64_t input_bytes_;
  bool first_chunk_ = true;
  GraphBuilder b_;
  const HeapGraph& g_;  // b_'s graph so far
  Status status_ = Ok{};
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

ChunkLoader::ChunkLoader(unsigned threads, bool references, LoadReport& report,
                         std::string_view app_root, uint64_t input_bytes)
    : loader_(std::make_unique<Loader>(std::max(threads, 1u), references, app_root, report,
                                       input_bytes)) {}

ChunkLoader::~ChunkLoader() = default;

void ChunkLoader::add(ParsedChunk& chunk) {
  loader_->add(chunk);
}

Result<HeapGraph> ChunkLoader::finish() {
  return loader_->finish();
}

}  // namespace heapq
