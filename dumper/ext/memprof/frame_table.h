// The frames of allocation stacks, named by what the dump writes of them (file, method) copied
// the first time the NEWOBJ hook sees each frame object. Nothing here refers to a Ruby object
// after that: the program's iseqs and method entries are freed as they are without tracking,
// and a stack keeps naming the frames of code that is gone.
#pragma once

#include <ruby.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "library_paths.h"
#include "object_table.h"
#include "ruby_compat.h"
#include "string_table.h"

namespace memprof {

class FrameTable {
 public:
  static constexpr uint32_t kCFrame = 0;           // a C method's frame: dumps write none
  static constexpr uint32_t kFailed = UINT32_MAX;  // out of memory

  FrameTable() { Clear(); }
  // The id of a frame as rb_profile_frames gives it: frames named alike share one. Runs in the
  // NEWOBJ hook: reads the frame's own Strings, allocates no Ruby object.
  uint32_t Resolve(VALUE frame) noexcept;
  // FREEOBJ of any object: a frame object freed, its address may next hold other code.
  void Forget(VALUE obj) {
    if (watched_imemo_types_ != 0 && RB_BUILTIN_TYPE(obj) == RUBY_T_IMEMO &&
        (watched_imemo_types_ & (1u << ImemoType(obj))) != 0)
      by_object_.Erase(obj);
  }
  // At the end of a GC's marking: the frame objects it did not mark are freed. scratch: a
  // vector to reuse. Throws std::bad_alloc.
  template <class Marked>
  void ForgetUnmarked(Marked&& marked, std::vector<uintptr_t>& scratch) {
    scratch.clear();
    by_object_.KeysWhere([&](uintptr_t key) { return !marked(key); }, &scratch);
    for (uintptr_t key : scratch) by_object_.Erase(key);
  }
  void ForgetObjects() {  // every frame is named again when next seen
    by_object_.Clear();
    watched_imemo_types_ = 0;
  }
  void UpdateAfterCompaction();
  void Clear();
  // This Ruby's library directories (LibraryPaths), for the frames first seen from now on.
  void SetLibraryDirs(std::vector<std::string> dirs) { libraries_.SetDirs(std::move(dirs)); }

  // Whether the frame is the application's code (LibraryPaths); never a C method's.
  bool IsApp(uint32_t id) const { return frames_[id].app; }

  std::string_view Path(uint32_t id) const { return names_[frames_[id].path]; }
  bool HasMethod(uint32_t id) const { return frames_[id].method != kNoName; }
  std::string_view Method(uint32_t id) const { return names_[frames_[id].method]; }
  size_t Bytes() const;

 private:
  static constexpr uint32_t kNoName = UINT32_MAX;
  struct Frame {
    uint32_t path;    // into names_
    uint32_t method;  // into names_, or kNoName
    bool app;
  };
  uint32_t Intern(VALUE path, VALUE method);

  AddressTable<uint32_t> by_object_;  // frame object -> id, while the object lives
  uint32_t watched_imemo_types_ = 0;  // a bit per IMEMO type by_object_ holds
  StringTable names_;
  LibraryPaths libraries_;
  std::vector<Frame> frames_;                        // by id; id 0 is kCFrame
  std::unordered_map<uint64_t, uint32_t> by_names_;  // (path, method) -> id
};

}  // namespace memprof
