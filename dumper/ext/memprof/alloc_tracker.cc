// NEWOBJ/FREEOBJ hooks and the tracked-object table; see alloc_tracker.h.
#include "alloc_tracker.h"

#include <ruby/debug.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <unordered_map>

#include "class_names.h"
#include "ruby_compat.h"

namespace memprof {
namespace {

VALUE compaction_hook = Qnil;

void CompactHook(void*) {
  AllocTracker::Instance().UpdateAfterCompaction();
}

void MarkHook(void*) {
  AllocTracker::Instance().Mark();
}

size_t SizeHook(const void*) {
  return AllocTracker::Instance().Bytes();
}

// The tracker as Ruby sees it: told when GC compaction moved objects, holder of memprof's own
// tracepoint, and as big as its tables, so that a dump counts them as the profiler's. It holds
// none of the program's objects: the allocation stacks keep copies of their frames' names.
const rb_data_type_t kCompactionHookType = {
    "memprof/tracker", {MarkHook, nullptr, SizeHook, CompactHook, {nullptr}}, nullptr, nullptr, 0,
};

}  // namespace

AllocTracker& AllocTracker::Instance() {
  static AllocTracker tracker;
  return tracker;
}

AllocTracker::AllocTracker() {
  paths_.Intern("(unknown)");
  path_ignored_.push_back(false);
}

// The data type is not write-barrier protected: every GC marks the tracepoint it holds.
void AllocTracker::Init() {
  compaction_hook = TypedData_Wrap_Struct(0, &kCompactionHookType, &Instance());
  rb_gc_register_mark_object(compaction_hook);
}

void AllocTracker::Mark() const {
  rb_gc_mark(tracepoint_);
}

size_t AllocTracker::Bytes() const {
  return sizeof *this + objects_.Bytes() + stacks_.Bytes() + frames_.Bytes() + paths_.Bytes() +
         path_ignored_.capacity() / 8;
}

void AllocTracker::Start(int min_depth, int max_depth, std::vector<std::string> library_dirs) {
  max_depth_ = std::clamp(max_depth, 0, StackTable::kMaxDepth);
  min_depth_ = std::clamp(min_depth, 0, max_depth_);
  if (running_) return;
  frames_.SetLibraryDirs(std::move(library_dirs));
  if (NIL_P(tracepoint_)) {
    tracepoint_ = rb_tracepoint_new(0, RUBY_INTERNAL_EVENT_NEWOBJ | RUBY_INTERNAL_EVENT_FREEOBJ,
                                    &AllocTracker::OnEvent, this);
  }
  running_ = true;
  rb_tracepoint_enable(tracepoint_);
}

void AllocTracker::Stop() {
  if (!running_) return;
  rb_tracepoint_disable(tracepoint_);
  running_ = false;
  objects_.Clear();  // without FREEOBJ events the entries would go stale
  stacks_.Clear();
  frames_.Clear();
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

// Runs inside Ruby's allocator or sweeper: no Ruby allocation, no raising.
void AllocTracker::OnEvent(VALUE tracepoint, void* data) {
  auto* self = static_cast<AllocTracker*>(data);
  rb_trace_arg_t* arg = rb_tracearg_from_tracepoint(tracepoint);
  VALUE obj = rb_tracearg_object(arg);
  if (rb_tracearg_event_flag(arg) == RUBY_INTERNAL_EVENT_FREEOBJ) {
    self->objects_.Erase(obj);
    self->frames_.Forget(obj);
    return;
  }
  if (self->paused_) return;
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
  if (self->max_depth_ > 0) site.stack = self->InternStack();
  self->objects_.Insert(obj, site);
}

// The current stack's id, its frames named by the frame table; 0 when it cannot be stored.
// Past min_depth_ frames, the stack is walked again as deep as max_depth_ only when none of
// them was the application's (rb_profile_frames' start argument skips no frame before 3.4).
uint32_t AllocTracker::InternStack() noexcept {
  VALUE frames[StackTable::kMaxDepth];
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
  if (app >= 0) n = std::clamp(app + 1 + kPastApp, std::min(min_depth_, n), n);
  return stacks_.Intern(ids, lines, n);
}

void AllocTracker::UpdateAfterCompaction() {
  objects_.RekeyAll([](uintptr_t key) { return static_cast<uintptr_t>(rb_gc_location(key)); });
  frames_.UpdateAfterCompaction();
}

namespace {

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

}  // namespace

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
