// Allocation tracking on the NEWOBJ and GC_END_MARK (or FREEOBJ) internal events: file, line,
// method, GC generation, a sequence number and (stack depth > 0) the allocation stack of every live
// object allocated while tracking is on, or of a sample of them: one allocation in N, at random.
#pragma once

#include <ruby.h>
#include <ruby/debug.h>
#include <time.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "class_names.h"
#include "frame_table.h"
#include "object_table.h"
#include "stack_cache.h"
#include "stack_table.h"
#include "string_table.h"
#include "vm_internals.h"

namespace memprof {

// Live tracked objects of one "file:line:Class".
struct SiteStats {
  std::string key;
  size_t count = 0;
  size_t bytes = 0;  // rb_obj_memsize_of, summed
};

class AllocTracker {
 public:
  static AllocTracker& Instance();
  // Defines the tracker's data object (GC-compaction hook, memsize of the tables); call once
  // from Init_memprof_ext.
  static void Init();

  // Ruby context; no-op when running but for the stack depths, which apply from now on: of each
  // allocation's stack, the innermost min_depth frames, and past them the frames up to the first
  // of the application's code and kPastApp more, at most max_depth in all (0: no stacks; at most
  // StackTable::kMaxDepth). library_dirs: where this Ruby's libraries are (LibraryPaths).
  // sample: one allocation in that many is recorded on average, at geometric intervals (each
  // allocation alike has a chance of 1 in sample, whatever the program's rhythm); 1: every
  // one. seed: the intervals' random numbers (0: from the clock). Running already, the rate
  // changes only with a Stop first.
  void Start(int min_depth, int max_depth, std::vector<std::string> library_dirs,
             uint32_t sample = 1, uint64_t seed = 0);
  void Stop();  // disables the hooks and forgets every tracked object
  bool Running() const { return running_; }
  // While paused, new objects are not recorded: memprof's own allocations during a dump.
  // Returns the previous state.
  bool Pause(bool paused) {
    bool was = paused_;
    paused_ = paused;
    return was;
  }
  // Objects allocated by Ruby code in path (memprof's own lib/memprof.rb and
  // lib/memprof/signal.rb) are not recorded; every path so named stays ignored.
  void IgnoreFile(VALUE path);
  uint64_t NextSeq() const { return next_seq_; }

  const AllocationSite* Find(VALUE obj) const { return objects_.Find(obj); }
  uint32_t SampleRate() const { return sample_; }
  uint64_t StartedNanos() const { return started_nanos_; }  // CLOCK_REALTIME
  size_t LiveCount() const { return objects_.Size(); }
  // Whether frees are read from the GC's marks once a GC (else a hook on every freed object).
  bool FreesFromMarks() const { return marked_ != nullptr; }
  size_t CachedStacks() const { return stack_cache_.Size(); }  // named by their raw frames

  // For profiles (profile.cc). Sampled objects since freed, by FreedKey: how many, and their
  // bytes as last measured.
  struct Freed {
    uint64_t count = 0, bytes = 0;
  };
  static uint64_t FreedKey(uint32_t stack, uint32_t label, int type) {
    return uint64_t(stack) << 32 | uint64_t(label) << 8 | static_cast<uint64_t>(type);
  }
  const std::unordered_map<uint64_t, Freed>& FreedStats() const { return freed_; }
  // Ruby context: names the classes of freed objects that no profile had named yet (those
  // classes are alive: one freed first hands its objects to "(unknown)").
  void NameFreed();
  // Ruby context: fn(obj, site, label) for every live tracked object, its size set to its
  // memsize now and its class named (the label of its class's objects from now on, freed ones'
  // too). No Ruby allocation.
  template <class Fn>
  void MeasureLive(Fn&& fn) {
    ClassNames names;
    objects_.ForEachObject([&](uintptr_t key, AllocationSite& site) {
      const VALUE obj = static_cast<VALUE>(key);
      const size_t size = rb_obj_memsize_of(obj);
      site.size = size > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(size);
      fn(obj, site, NameOf(obj, names));
    });
  }
  // An object's label: its class's name, "IMEMO:type" or "(hidden Array)"; 0 "(unknown)"
  // for a class or IMEMO type not named yet (MeasureLive names them). No Ruby call.
  uint32_t LabelOf(VALUE obj) const noexcept;
  std::string_view Label(uint32_t id) const { return labels_[id]; }
  // In a forked child (Process._fork, lib/memprof.rb): its profiles start now, with the
  // sampled objects it inherited (its own as much as its parent's) and none of what its parent
  // freed.
  void AfterFork();
  const StackTable& Stacks() const { return stacks_; }
  const FrameTable& Frames() const { return frames_; }
  std::string_view Path(uint32_t id) const { return paths_[id]; }

  // Live tracked objects allocated at or after min_seq, grouped by "file:line:Class" (IMEMO
  // and class-less objects labelled as heapq labels them), largest count first. Reads the
  // table without calling Ruby; the caller runs GC first so that only survivors count.
  std::vector<SiteStats> Stats(uint64_t min_seq) const;

  void UpdateAfterCompaction();
  size_t Bytes() const;  // the tables' memory, the tracker's memsize

 private:
  AllocTracker();
  static void OnEvent(VALUE unused, rb_trace_arg_t* arg);
  static rb_event_hook_func_t Hook();
  void OnFree(VALUE obj) noexcept;
  void ForgetUnmarked() noexcept;
  void ForgetObject(VALUE obj) noexcept;
  void ForgetClass(VALUE klass) noexcept;
  void NameImemo(int imemo);                      // throws std::bad_alloc
  uint32_t NameOf(VALUE obj, ClassNames& names);  // LabelOf, naming what is not yet
  uint32_t InternPath(VALUE path);
  uint32_t InternStack(const rb_trace_arg_t* arg) noexcept;
  uint32_t WalkStack(VALUE* frames, int* n) noexcept;
  uint64_t NextInterval() noexcept;  // allocations until the next one sampled

  // Frames kept past the application's first: its caller's line gives that line's context.
  static constexpr int kPastApp = 2;

  bool running_ = false;
  memprof_marked_fn* marked_ = nullptr;  // null: frees come one by one (FREEOBJ)
  std::vector<uintptr_t> dead_;          // ForgetUnmarked's, kept for the next GC
  VALUE major_gc_count_ = Qnil;          // :major_gc_count, a static Symbol
  size_t majors_seen_ = 0;               // major GCs so far, at the last GC
  std::vector<uintptr_t> young_;         // tracked objects not old when last seen, or new since
  std::vector<uintptr_t> young_seen_;    // young_ as the last GC left it, read by this one
  bool young_lost_ = false;              // young_ incomplete: the next GC reads every mark
  bool paused_ = false;
  uint64_t next_seq_ = 1;
  int min_depth_ = 0;
  int max_depth_ = 0;
  ObjectTable objects_;
  StackTable stacks_;
  StackCache stack_cache_;
  bool cache_stacks_ = true;  // off for good if the raw frames disagree with rb_profile_frames
  FrameTable frames_;
  StringTable paths_;               // id 0 is "(unknown)"
  std::vector<bool> path_ignored_;  // by path id, beside paths_: one lookup in the hook

  uint32_t sample_ = 1;
  uint64_t countdown_ = 1;  // allocations to the next sampled one, this one included
  uint64_t random_ = 1;     // xorshift64* state
  double log_skip_ = 0;     // log(1 - 1 / sample_)
  uint64_t started_nanos_ = 0;
  std::unordered_map<uint64_t, Freed> freed_;
  // Freed objects of classes not named yet, by stack, type and class, until NameFreed names
  // them or the class is freed.
  struct Unnamed {
    uint32_t stack;
    int type;
    VALUE klass;
    bool operator==(const Unnamed&) const = default;
  };
  struct UnnamedHash {
    size_t operator()(const Unnamed& u) const {
      return std::hash<uint64_t>()(u.klass * 0x9E3779B97F4A7C15ULL ^ uint64_t(u.stack) << 8 ^
                                   static_cast<uint64_t>(u.type));
    }
  };
  std::unordered_map<Unnamed, Freed, UnnamedHash> unnamed_;
  AddressTable<uint32_t> unnamed_classes_;  // the classes unnamed_ holds
  StringTable labels_;                      // id 0 "(unknown)"
  AddressTable<uint32_t> class_labels_;     // class -> label, while the class lives
  uint32_t imemo_labels_[32] = {};
  uint32_t hidden_labels_[32] = {};  // by type: objects without a class
};

// GC disabled and memprof's own allocations untracked for the scope's life.
struct GcPause {
  GcPause()
      : gc_was_disabled(rb_gc_disable() == Qtrue),
        tracker_was_paused(AllocTracker::Instance().Pause(true)) {}
  ~GcPause() {
    AllocTracker::Instance().Pause(tracker_was_paused);
    if (!gc_was_disabled) rb_gc_enable();
  }
  bool gc_was_disabled;
  bool tracker_was_paused;
};

// clock's time in nanoseconds (CLOCK_REALTIME, CLOCK_MONOTONIC).
uint64_t ClockNanos(clockid_t clock);

// Defines Memprof._profile and what goes with it (profile_bindings.cc).
void DefineProfileMethods(VALUE module);

}  // namespace memprof
