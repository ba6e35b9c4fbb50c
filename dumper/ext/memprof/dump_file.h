// Where a dump to a path lands: a temporary file renamed over the path when the directory
// allows it, the file itself otherwise; symlinks are followed to their target.
#pragma once

namespace memprof {

// What failed, written into a fixed buffer so that nothing needs freeing before raising.
struct Failure {
  int err = 0;              // errno, or 0
  char message[1024] = "";  // empty: success

  bool failed() const { return message[0] != '\0'; }
  void Set(int error, const char* format, ...) __attribute__((format(printf, 3, 4)));
};

// Writes the dump to fd; reports errors in failure (what names the file for messages).
using WriteDump = void (*)(int fd, const char* what, Failure& failure, void* context);

// Dumps to path without raising: a regular file (or a path that does not exist yet) is
// written to PATH.tmp-PID-N and renamed over it, keeping the old file's permissions; when the
// directory refuses the temporary file but the file itself is writable, the file is
// truncated and written in place, as ObjectSpace.dump_all does. Devices are written in place.
// A symlink is followed: its target is replaced, the link stays.
void DumpToPath(const char* path, WriteDump write, void* context, Failure& failure);

}  // namespace memprof
