// Ruby bindings of the sampled-heap profiles: Memprof._profile and what lib/memprof.rb needs
// beside it. The program stops only while the profile's data is copied out (GVL held, GC off);
// it is encoded, compressed and written without the GVL. As in memprof.cc, whatever may raise
// happens outside the C++ scopes that own memory.
#include <ruby.h>
#include <ruby/thread.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <stdexcept>
#include <string>

#include "alloc_tracker.h"
#include "dump_file.h"
#include "profile.h"

namespace memprof {
namespace {

uint64_t last_pause_nanos = 0;

// One profile's work without the GVL: encode, then write to path (or keep the bytes).
struct ProfileJob {
  const ProfileSnapshot* snapshot = nullptr;
  const char* path = nullptr;  // null: bytes are the answer
  std::string bytes;
  Failure failure;
};

void WriteBytes(int fd, const char* what, Failure& failure, void* context) {
  const std::string& bytes = static_cast<ProfileJob*>(context)->bytes;
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failure.Set(errno, "memprof: cannot write the profile to %s", what);
    done += static_cast<size_t>(n);
  }
}

void* EncodeAndWrite(void* data) {
  auto* job = static_cast<ProfileJob*>(data);
  try {
    job->bytes = EncodeProfile(*job->snapshot);
  } catch (const std::bad_alloc&) {
    job->failure.Set(ENOMEM, "memprof: out of memory writing a profile");
    return nullptr;
  } catch (const std::runtime_error& e) {
    job->failure.Set(0, "memprof: cannot compress the profile: %s", e.what());
    return nullptr;
  }
  if (job->path != nullptr) DumpToPath(job->path, &WriteBytes, job, job->failure);
  return nullptr;
}

// The profile to path, or as bytes (path null) into *bytes; false with failure set otherwise.
bool Profile(const char* path, VALUE* bytes, Failure& failure) {
  ProfileSnapshot* snapshot = nullptr;
  const uint64_t start = ClockNanos(CLOCK_MONOTONIC);
  // No GC can run meanwhile: nothing here allocates on Ruby's heap or with Ruby's malloc
  // (disabling GC would first finish a lazy sweep, a pause of its own).
  try {
    snapshot = new ProfileSnapshot(CollectProfile(AllocTracker::Instance()));
  } catch (const std::bad_alloc&) {
    snapshot = nullptr;
  }
  last_pause_nanos = ClockNanos(CLOCK_MONOTONIC) - start;
  if (snapshot == nullptr) {
    failure.Set(ENOMEM, "memprof: out of memory reading the sampled objects");
    return false;
  }
  auto* job = new (std::nothrow) ProfileJob;
  if (job == nullptr) {
    delete snapshot;
    failure.Set(ENOMEM, "memprof: out of memory writing a profile");
    return false;
  }
  job->snapshot = snapshot;
  job->path = path;
  rb_thread_call_without_gvl(&EncodeAndWrite, job, RUBY_UBF_IO, nullptr);
  delete snapshot;
  failure = job->failure;
  const bool ok = !failure.failed();
  // rb_str_new raises only NoMemoryError (the job is then lost with the process's memory).
  if (ok && path == nullptr)
    *bytes = rb_str_new(job->bytes.data(), static_cast<long>(job->bytes.size()));
  delete job;
  return ok;
}

// Memprof._profile(path or nil): writes the profile to path (returns nil) or returns its bytes.
VALUE ProfileMethod(VALUE, VALUE path) {
  if (!AllocTracker::Instance().Running())
    rb_raise(rb_eRuntimeError, "memprof: not tracking: Memprof.start(sample: N) first");
  const char* target = NIL_P(path) ? nullptr : StringValueCStr(path);
  VALUE bytes = Qnil;
  Failure failure;
  if (!Profile(target, &bytes, failure)) {
    if (failure.err != 0) rb_syserr_fail(failure.err, failure.message);
    rb_raise(rb_eRuntimeError, "%s", failure.message);
  }
  return bytes;
}

// Memprof._profile_pause_ns: how long the last profile stopped the program.
VALUE PauseMethod(VALUE) {
  return ULL2NUM(last_pause_nanos);
}

// Memprof._sampling: [sample rate, sampled objects alive, the tracker's bytes, whether frees
// are read from the GC's marks, stacks named by their raw frames].
VALUE SamplingMethod(VALUE) {
  const AllocTracker& tracker = AllocTracker::Instance();
  return rb_ary_new_from_args(5, UINT2NUM(tracker.SampleRate()), SIZET2NUM(tracker.LiveCount()),
                              SIZET2NUM(tracker.Bytes()), tracker.FreesFromMarks() ? Qtrue : Qfalse,
                              SIZET2NUM(tracker.CachedStacks()));
}

VALUE AfterForkMethod(VALUE) {
  AllocTracker::Instance().AfterFork();
  return Qnil;
}

}  // namespace

void DefineProfileMethods(VALUE module) {
  rb_define_singleton_method(module, "_after_fork", AfterForkMethod, 0);
  rb_define_singleton_method(module, "_profile", ProfileMethod, 1);
  rb_define_singleton_method(module, "_profile_pause_ns", PauseMethod, 0);
  rb_define_singleton_method(module, "_sampling", SamplingMethod, 0);
}

}  // namespace memprof
