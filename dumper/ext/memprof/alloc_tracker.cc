// NEWOBJ/FREEOBJ hooks and the tracked-object table; see alloc_tracker.h.
#include "alloc_tracker.h"

#include <ruby/debug.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <unordered_map>

#include "class_names.h"
#include "ruby_compat.h"

namespace memprof {
namespace {

VALUE compaction_hook = Qnil;
AllocTracker* hooked = nullptr;  // Instance(), for the hooks: no guard to test on each event

void CompactHook(void*) {
  AllocTracker::Instance().UpdateAfterCompaction();
}

size_t SizeHook(const void*) {
  return AllocTracker::Instance().Bytes();
}

// The tracker as Ruby sees it: told when GC compaction moved objects, and as big as its tables,
// so that a dump counts them as the profiler's. It holds no Ruby object: the allocation stacks
// keep copies of their frames' names, and the hooks are plain functions.
const rb_data_type_t kCompactionHookType = {
    "memprof/tracker", {nullptr, nullptr, SizeHook, CompactHook, {nullptr}}, nullptr, nullptr, 0,
};

// The hooks take the event's arguments as they are (no TracePoint object between): the NEWOBJ
// hook runs on every allocation. Frees are read from the GC's marks once a GC (GC_END_MARK)
// where memprof can read them, else heard of one by one (FREEOBJ, on every freed object).
constexpr rb_event_flag_t kNewObj = RUBY_INTERNAL_EVENT_NEWOBJ;
constexpr rb_event_flag_t kEndMark = RUBY_INTERNAL_EVENT_GC_END_MARK;
constexpr rb_event_flag_t kFreeObj = RUBY_INTERNAL_EVENT_FREEOBJ;

// heapq's label for an object Ruby hid (class 0): "(hidden Array)"; "(no class)" for a type
// that is no instance otherwise.
const char* HiddenClassName(int type) {
  switch (type) {
    case T_OBJECT:
      return "(hidden Object)";
    case T_FLOAT:
      return "(hidden Float)";
    case T_STRING:
      return "(hidden String)";
    case T_REGEXP:
      return "(hidden Regexp)";
    case T_ARRAY:
      return "(hidden Array)";
    case T_HASH:
      return "(hidden Hash)";
    case T_STRUCT:
      return "(hidden Struct)";
    case T_BIGNUM:
      return "(hidden Bignum)";
    case T_FILE:
      return "(hidden File)";
    case T_DATA:
      return "(hidden Data)";
    case T_MATCH:
      return "(hidden Match)";
    case T_COMPLEX:
      return "(hidden Complex)";
    case T_RATIONAL:
      return "(hidden Rational)";
    case T_SYMBOL:
      return "(hidden Symbol)";
    default:
      return "(no class)";
  }
}

// What a sampled object is first counted as: one slot of Ruby's heap (its memsize is read when
// a profile is written; an object freed before any is counted so).
constexpr uint32_t kSlotBytes = 40;

bool IsClassType(int type) {
  return type == T_CLASS || type == T_MODULE || type == T_ICLASS;
}

}  // namespace

uint64_t ClockNanos(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

AllocTracker& AllocTracker::Instance() {
  static AllocTracker tracker;
  return tracker;
}

AllocTracker::AllocTracker() {
  paths_.Intern("(unknown)");
  path_ignored_.push_back(false);
  labels_.Intern("(unknown)");
}

void AllocTracker::Init() {
  hooked = &Instance();
  compaction_hook = TypedData_Wrap_Struct(0, &kCompactionHookType, &Instance());
  rb_gc_register_mark_object(compaction_hook);
}

size_t AllocTracker::Bytes() const {
  // An unordered_map's node: the pair and two pointers; and a pointer a bucket.
  constexpr size_t kFreedNode = sizeof(std::pair<uint64_t, Freed>) + 2 * sizeof(void*);
  constexpr size_t kUnnamedNode = sizeof(std::pair<Unnamed, Freed>) + 2 * sizeof(void*);
  return sizeof *this + objects_.Bytes() + stacks_.Bytes() + stack_cache_.Bytes() +
         frames_.Bytes() + paths_.Bytes() + path_ignored_.capacity() / 8 + labels_.Bytes() +
         class_labels_.Bytes() + freed_.size() * kFreedNode +
         freed_.bucket_count() * sizeof(void*) + unnamed_.size() * kUnnamedNode +
         unnamed_.bucket_count() * sizeof(void*) + unnamed_classes_.Bytes() +
         (young_.capacity() + young_seen_.capacity() + dead_.capacity()) * sizeof(uintptr_t);
}

void AllocTracker::Start(int min_depth, int max_depth, std::vector<std::string> library_dirs,
                         uint32_t sample, uint64_t seed) {
  max_depth_ = std::clamp(max_depth, 0, StackTable::kMaxDepth);
  min_depth_ = std::clamp(min_depth, 0, max_depth_);
  stack_cache_.Clear();  // its stacks were cut to the depths before
  if (running_) return;
  frames_.SetLibraryDirs(std::move(library_dirs));
  sample_ = std::max<uint32_t>(sample, 1);
  log_skip_ = std::log1p(-1.0 / sample_);
  started_nanos_ = ClockNanos(CLOCK_REALTIME);
  random_ = seed != 0 ? seed : started_nanos_ ^ (uint64_t(getpid()) << 32) ^ 0x9E3779B97F4A7C15ULL;
  if (random_ == 0) random_ = 1;
  countdown_ = NextInterval();
  for (int type = 0; type < 32; ++type)
    hidden_labels_[type] = labels_.Intern(HiddenClassName(type));
  marked_ = memprof_gc_marks();
  if (marked_ != nullptr) {  // Ruby context: the GC's statistics name their keys now, not in GC
    major_gc_count_ = ID2SYM(rb_intern("major_gc_count"));
    majors_seen_ = rb_gc_stat(major_gc_count_);
  }
  running_ = true;
  rb_add_event_hook2(Hook(), kNewObj | (marked_ != nullptr ? kEndMark : kFreeObj), Qnil,
                     RUBY_EVENT_HOOK_FLAG_RAW_ARG);
}

void AllocTracker::Stop() {
  if (!running_) return;
  rb_remove_event_hook(Hook());
  running_ = false;
  objects_.Clear();  // without the hooks the entries would go stale
  young_.clear();
  stacks_.Clear();
  stack_cache_.Clear();
  frames_.Clear();
  freed_.clear();
  class_labels_.Clear();
  unnamed_.clear();
  unnamed_classes_.Clear();
}

void AllocTracker::AfterFork() {
  freed_.clear();
  unnamed_.clear();
  unnamed_classes_.Clear();
  started_nanos_ = ClockNanos(CLOCK_REALTIME);
}

// Each allocation is sampled with a chance of 1 in sample_: the count of those skipped before
// the next one is geometric, drawn by inverting its distribution at a uniform u in (0, 1].
uint64_t AllocTracker::NextInterval() noexcept {
  if (sample_ <= 1) return 1;
  random_ ^= random_ >> 12;
  random_ ^= random_ << 25;
  random_ ^= random_ >> 27;
  const uint64_t bits = random_ * 0x2545F4914F6CDD1DULL;
  const double u = static_cast<double>((bits >> 11) + 1) * 0x1.0p-53;
  const double skipped = std::floor(std::log(u) / log_skip_);
  return skipped >= 1e18 ? uint64_t(1e18) : 1 + static_cast<uint64_t>(skipped);
}

uint32_t AllocTracker::InternPath(VALUE path) {
  if (!RB_TYPE_P(path, T_STRING)) return 0;
  try {
    const uint32_t id = paths_.Intern({RSTRING_PTR(path), static_cast<size_t>(RSTRING_LEN(path))});
    while (path_ignored_.size() <= id) path_ignored_.push_back(false);
    return id;
  } catch (const std::bad_alloc&) {
    return 0;  // out of memory: "(unknown)"
  }
}

void AllocTracker::IgnoreFile(VALUE path) {
  uint32_t id = InternPath(path);
  if (id != 0) path_ignored_[id] = true;
}

// Ruby takes a raw-argument hook as an rb_event_hook_func_t and calls it as what it is.
rb_event_hook_func_t AllocTracker::Hook() {
  return reinterpret_cast<rb_event_hook_func_t>(reinterpret_cast<void (*)()>(&OnEvent));
}

// Runs inside Ruby's allocator or sweeper: no Ruby allocation, no raising.
void AllocTracker::OnEvent(VALUE, rb_trace_arg_t* arg) {
  AllocTracker* const self = hooked;
  const rb_event_flag_t event = rb_tracearg_event_flag(arg);
  if (event == kEndMark) return self->ForgetUnmarked();
  VALUE obj = rb_tracearg_object(arg);
  if (event == kFreeObj) return self->OnFree(obj);
  if (self->paused_ || --self->countdown_ != 0) return;
  self->countdown_ = self->NextInterval();
  AllocationSite site;
  site.path = self->InternPath(rb_tracearg_path(arg));
  if (self->path_ignored_[site.path]) return;
  site.seq = self->next_seq_++;
  VALUE line = rb_tracearg_lineno(arg);
  site.line = FIXNUM_P(line) ? static_cast<uint32_t>(FIX2LONG(line)) : 0;
  VALUE method = rb_tracearg_method_id(arg);
  // A method named by a Symbol that was dynamic first ("name".to_sym before the def) has a
  // dynamic Symbol made permanent when the method got its ID: rb_sym2id only reads that ID.
  site.method = STATIC_SYM_P(method)       ? RSHIFT(method, RUBY_SPECIAL_SHIFT)
                : RB_DYNAMIC_SYM_P(method) ? rb_sym2id(method)
                                           : 0;
  site.generation = static_cast<uint32_t>(rb_gc_count());
  site.stack = 0;
  if (self->max_depth_ > 0) site.stack = self->InternStack(arg);
  site.size = kSlotBytes;
  self->objects_.Insert(obj, site);
  if (self->marked_ != nullptr) {
    try {
      self->young_.push_back(obj);
    } catch (const std::bad_alloc&) {
      self->young_lost_ = true;  // out of memory: the next GC reads every object's mark
    }
  }
}

// A freed object (FREEOBJ): a tracked one is counted; a frame object or a class freed leaves the
// tables, so that its address names no other.
void AllocTracker::OnFree(VALUE obj) noexcept {
  ForgetObject(obj);
  if (stack_cache_.Holds(obj)) stack_cache_.Clear();
  frames_.Forget(obj);
  if (IsClassType(BUILTIN_TYPE(obj))) ForgetClass(obj);
}

// At the end of a GC's marking (GC_END_MARK), what it did not mark is what its sweep frees:
// the same as OnFree of each, objects first (their classes are still named), in one pass over
// each table rather than a hook call on every freed object. A minor GC frees no old object:
// it reads the marks of the objects young when last seen only (young_), a major GC all.
void AllocTracker::ForgetUnmarked() noexcept {
  auto unmarked = [marked = marked_](uintptr_t key) { return marked(key) == 0; };
  const size_t majors = rb_gc_stat(major_gc_count_);
  const bool all = majors != majors_seen_ || young_lost_;
  majors_seen_ = majors;
  try {
    dead_.clear();
    // Each object read is young still (kept in young_), old now, or dead.
    auto check = [&](uintptr_t obj, AllocationSite& site) {
      if (unmarked(obj)) return dead_.push_back(obj);
      site.old = IsOld(static_cast<VALUE>(obj));
      if (!site.old) young_.push_back(obj);
    };
    if (all) {
      young_.clear();
      young_lost_ = false;
      objects_.ForEachMutable(check);
    } else {
      young_seen_.swap(young_);
      young_.clear();
      for (uintptr_t obj : young_seen_) {
        if (AllocationSite* site = objects_.FindMutable(obj)) check(obj, *site);
      }
    }
    for (uintptr_t obj : dead_) ForgetObject(obj);
    frames_.ForgetUnmarked(marked_, dead_);
    if (stack_cache_.AnyObject(unmarked)) stack_cache_.Clear();
    dead_.clear();
    class_labels_.KeysWhere(unmarked, &dead_);
    unnamed_classes_.KeysWhere(unmarked, &dead_);
    for (uintptr_t klass : dead_) ForgetClass(klass);
  } catch (const std::bad_alloc&) {
    // Out of memory: forget all that may be dead rather than let a slot's next object pass for
    // it (frames and class names are named again when next seen).
    objects_.Clear();
    young_.clear();
    frames_.ForgetObjects();
    stack_cache_.Clear();
    class_labels_.Clear();
    unnamed_.clear();
    unnamed_classes_.Clear();
  }
}

// A tracked object freed is counted by its stack, label and type for the profiles' allocations
// (its class is read before Ruby frees it, its name from the table MeasureLive fills).
void AllocTracker::ForgetObject(VALUE obj) noexcept {
  AllocationSite site;
  if (objects_.Erase(obj, &site)) {
    try {
      const int type = BUILTIN_TYPE(obj);
      if (type == T_IMEMO) NameImemo(ImemoType(obj));
      const uint32_t label = LabelOf(obj);
      const VALUE klass = RBASIC(obj)->klass;
      const bool unnamed = label == 0 && ClassNames::IsClassLike(klass);
      Freed& f =
          unnamed ? unnamed_[{site.stack, type, klass}] : freed_[FreedKey(site.stack, label, type)];
      if (unnamed && f.count == 0) unnamed_classes_.Insert(klass, 1);
      ++f.count;
      f.bytes += site.size;
    } catch (const std::bad_alloc&) {
      // out of memory: the profile's allocations leave this one out
    }
  }
}

// A class freed: its address may next be another class's. Its objects freed unnamed so far
// stay "(unknown)".
void AllocTracker::ForgetClass(VALUE klass) noexcept {
  if (class_labels_.Size() != 0) class_labels_.Erase(klass);
  if (!unnamed_classes_.Erase(klass)) return;
  for (auto it = unnamed_.begin(); it != unnamed_.end();) {
    if (it->first.klass != klass) {
      ++it;
      continue;
    }
    try {
      Freed& f = freed_[FreedKey(it->first.stack, 0, it->first.type)];
      f.count += it->second.count;
      f.bytes += it->second.bytes;
    } catch (const std::bad_alloc&) {
      // out of memory: left out
    }
    it = unnamed_.erase(it);
  }
}

void AllocTracker::NameFreed() {
  ClassNames names;
  for (const auto& [u, count] : unnamed_) {
    const uint32_t* known = class_labels_.Find(u.klass);
    uint32_t label = known ? *known : 0;
    if (!known && ClassNames::IsClassLike(u.klass)) {  // not so only when memory ran out
      label = labels_.Intern(names.Of(rb_class_real(u.klass)));
      class_labels_.Insert(u.klass, label);
    }
    Freed& f = freed_[FreedKey(u.stack, label, u.type)];
    f.count += count.count;
    f.bytes += count.bytes;
  }
  unnamed_.clear();
  unnamed_classes_.Clear();
}

// "IMEMO:ment": named from an object of the type (rb_imemo_name knows only this Ruby's types).
void AllocTracker::NameImemo(int imemo) {
  if (imemo_labels_[imemo & 31] == 0)
    imemo_labels_[imemo & 31] = labels_.Intern(std::string("IMEMO:") + rb_imemo_name(imemo));
}

uint32_t AllocTracker::LabelOf(VALUE obj) const noexcept {
  const int type = BUILTIN_TYPE(obj);
  if (type == T_IMEMO) return imemo_labels_[ImemoType(obj) & 31];
  const VALUE klass = RBASIC(obj)->klass;
  if (!ClassNames::IsClassLike(klass)) return hidden_labels_[type & 31];
  const uint32_t* label = class_labels_.Find(klass);
  return label ? *label : 0;
}

uint32_t AllocTracker::NameOf(VALUE obj, ClassNames& names) {
  if (BUILTIN_TYPE(obj) == T_IMEMO) {
    NameImemo(ImemoType(obj));
  } else if (const VALUE klass = RBASIC(obj)->klass;
             ClassNames::IsClassLike(klass) && class_labels_.Find(klass) == nullptr) {
    class_labels_.Insert(klass, labels_.Intern(names.Of(rb_class_real(klass))));
  }
  return LabelOf(obj);
}

namespace {

// Whether every frame rb_profile_frames gave (an iseq or a method entry) is among the raw
// frames' words: the layout memprof_raw_frames reads is this Ruby's.
bool RawFramesAgree(const uintptr_t* words, int raw, const VALUE* frames, int n) {
  for (int i = 0; i < n; ++i) {
    bool found = false;
    for (int j = 0; j < raw && !found; ++j) {
      const uintptr_t* w = words + StackCache::kWords * j;
      found = w[0] == frames[i] || (w[2] & ~uintptr_t{1}) == frames[i];
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace

// The current stack's id: a stack seen before by its raw frames (StackCache), else walked.
uint32_t AllocTracker::InternStack(const rb_trace_arg_t* arg) noexcept {
  uintptr_t words[StackCache::kMaxFrames * StackCache::kWords];
  const int raw = cache_stacks_ ? memprof_raw_frames(arg, words, StackCache::kMaxFrames) : -1;
  StackCache::Key key{};
  if (raw > 0) {
    key = StackCache::KeyOf(words, raw);
    if (const uint32_t id = stack_cache_.Find(key)) return id;
  }
  VALUE frames[StackTable::kMaxDepth];
  int n = 0;
  const uint32_t id = WalkStack(frames, &n);
  if (raw > 0 && id != 0) {
    if (RawFramesAgree(words, raw, frames, n)) {
      stack_cache_.Insert(key, id, words, raw);
    } else {
      cache_stacks_ = false;
      stack_cache_.Clear();
    }
  }
  return id;
}

// The current stack's id, its frames named by the frame table; 0 when it cannot be stored.
// Past min_depth_ frames, the stack is walked again as deep as max_depth_ only when none of
// them was the application's (rb_profile_frames' start argument skips no frame before 3.4).
// frames, *n: what rb_profile_frames gave.
uint32_t AllocTracker::WalkStack(VALUE* frames, int* walked) noexcept {
  int lines[StackTable::kMaxDepth];
  uint32_t ids[StackTable::kMaxDepth];
  int n = rb_profile_frames(0, std::max(min_depth_, 1), frames, lines);
  int resolved = 0;
  int app = -1;  // the first frame of the application's code
  auto resolve = [&]() {
    for (; resolved < n; ++resolved) {
      ids[resolved] = frames_.Resolve(frames[resolved]);
      if (ids[resolved] == FrameTable::kFailed) return false;
      if (app < 0 && frames_.IsApp(ids[resolved])) app = resolved;
    }
    return true;
  };
  if (!resolve()) return 0;
  if (app < 0 && n == std::max(min_depth_, 1) && max_depth_ > n) {
    n = rb_profile_frames(0, max_depth_, frames, lines);
    if (!resolve()) return 0;
  }
  *walked = n;
  if (app >= 0) n = std::clamp(app + 1 + kPastApp, std::min(min_depth_, n), n);
  return stacks_.Intern(ids, lines, n);
}

void AllocTracker::UpdateAfterCompaction() {
  auto moved = [](uintptr_t key) { return static_cast<uintptr_t>(rb_gc_location(key)); };
  objects_.RekeyAll(moved);
  class_labels_.RekeyAll(moved);
  unnamed_classes_.RekeyAll(moved);
  try {  // inside the GC: nothing may be thrown out of here
    std::unordered_map<Unnamed, Freed, UnnamedHash> unnamed;
    for (const auto& [u, f] : unnamed_) unnamed[{u.stack, u.type, rb_gc_location(u.klass)}] = f;
    unnamed_.swap(unnamed);
  } catch (const std::bad_alloc&) {
    unnamed_.clear();  // out of memory: their objects leave the profile's allocations
    unnamed_classes_.Clear();
  }
  frames_.UpdateAfterCompaction();
  stack_cache_.Clear();  // the words of the stacks it names have moved
  young_.clear();        // moved too: the next GC reads every object's mark
  young_lost_ = true;
}

std::vector<SiteStats> AllocTracker::Stats(uint64_t min_seq) const {
  ClassNames names;
  std::unordered_map<std::string, SiteStats> sites;
  std::string key;
  objects_.ForEach([&](uintptr_t obj, const AllocationSite& site) {
    if (site.seq < min_seq) return;
    key.assign(paths_[site.path]);
    key += ':';
    key += std::to_string(site.line);
    key += ':';
    // The labels heapq gives objects without a class.
    VALUE klass = RBASIC(obj)->klass;
    if (BUILTIN_TYPE(obj) == T_IMEMO) {
      key += "IMEMO:";
      key += rb_imemo_name(ImemoType(obj));
    } else if (!ClassNames::IsClassLike(klass)) {
      key += HiddenClassName(BUILTIN_TYPE(obj));
    } else {
      key += names.Of(rb_class_real(klass));
    }
    SiteStats& stats = sites[key];
    ++stats.count;
    stats.bytes += rb_obj_memsize_of(obj);
  });
  std::vector<SiteStats> sorted;
  sorted.reserve(sites.size());
  for (auto& [name, stats] : sites) {
    stats.key = name;
    sorted.push_back(std::move(stats));
  }
  std::sort(sorted.begin(), sorted.end(), [](const SiteStats& a, const SiteStats& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.key < b.key;
  });
  return sorted;
}

}  // namespace memprof
