#include "stack_cache.h"

namespace memprof {
namespace {

uint64_t Mix(uint64_t h, uint64_t word) {
  h ^= word * 0xC2B2AE3D27D4EB4FULL;
  return (h << 31 | h >> 33) * 0x9E3779B97F4A7C15ULL;
}

}  // namespace

StackCache::Key StackCache::KeyOf(const uintptr_t* words, int frames) noexcept {
  Key key{0x243F6A8885A308D3ULL ^ static_cast<uint64_t>(frames), 0x13198A2E03707344ULL};
  // a mixes each word in; b, a polynomial of the words, makes a collision of a alone harmless.
  for (int i = 0; i < frames * kWords; ++i) {
    key.a = Mix(key.a, words[i]);
    key.b = key.b * 0x100000001B3ULL + words[i];
  }
  key.a ^= key.a >> 29;
  return key;
}

void StackCache::Insert(const Key& key, uint32_t stack, const uintptr_t* words,
                        int frames) noexcept {
  if (stacks_.Size() >= kMaxStacks) Clear();
  for (int i = 0; i < frames; ++i) {
    const uintptr_t iseq = words[kWords * i];
    const uintptr_t method_entry = words[kWords * i + 2] & ~uintptr_t{1};  // less the C flag
    for (uintptr_t obj : {iseq, method_entry}) {
      if (obj == 0) continue;
      objects_.Insert(obj, 1);
      if (!Holds(obj)) return;  // its free would go unnoticed
    }
  }
  stacks_.Insert(Slot(key), Entry{key.b, stack});
}

}  // namespace memprof
