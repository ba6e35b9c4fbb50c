// Allocation tracking on the NEWOBJ/FREEOBJ internal tracepoints: file, line, method, GC
// generation, a sequence number and (stack depth > 0) the allocation stack of every live object
// allocated while tracking is on.
#pragma once

#include <ruby.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frame_table.h"
#include "object_table.h"
#include "stack_table.h"
#include "string_table.h"

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
  // Defines the tracker's data object (GC-compaction hook, holder of the tracepoint); call once
  // from Init_memprof_ext.
  static void Init();

  // Ruby context; no-op when running but for the stack depths, which apply from now on: of each
  // allocation's stack, the innermost min_depth frames, and past them the frames up to the first
  // of the application's code and kPastApp more, at most max_depth in all (0: no stacks; at most
  // StackTable::kMaxDepth). library_dirs: where this Ruby's libraries are (LibraryPaths).
  void Start(int min_depth, int max_depth, std::vector<std::string> library_dirs);
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
  const StackTable& Stacks() const { return stacks_; }
  const FrameTable& Frames() const { return frames_; }
  std::string_view Path(uint32_t id) const { return paths_[id]; }

  // Live tracked objects allocated at or after min_seq, grouped by "file:line:Class" (IMEMO
  // and class-less objects labelled as heapq labels them), largest count first. Reads the
  // table without calling Ruby; the caller runs GC first so that only survivors count.
  std::vector<SiteStats> Stats(uint64_t min_seq) const;

  void UpdateAfterCompaction();
  // Marks memprof's own Ruby objects (the tracepoint): never the program's.
  void Mark() const;
  size_t Bytes() const;  // the tables' memory, the tracker's memsize

 private:
  AllocTracker();
  static void OnEvent(VALUE tracepoint, void* data);
  uint32_t InternPath(VALUE path);
  uint32_t InternStack() noexcept;

  // Frames kept past the application's first: its caller's line gives that line's context.
  static constexpr int kPastApp = 2;

  VALUE tracepoint_ = Qnil;
  bool running_ = false;
  bool paused_ = false;
  uint64_t next_seq_ = 1;
  int min_depth_ = 0;
  int max_depth_ = 0;
  ObjectTable objects_;
  StackTable stacks_;
  FrameTable frames_;
  StringTable paths_;               // id 0 is "(unknown)"
  std::vector<bool> path_ignored_;  // by path id, beside paths_: one lookup in the hook
};

}  // namespace memprof
