// heapq's operator new: a big allocation is advised for huge pages, a small one is left alone.
#include "huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool huge_pages_on_request() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return modes.find("[madvise]") != std::string::npos ||
         modes.find("[always]") != std::string::npos;
}

// The VmFlags of the mapping that holds p, from /proc/self/smaps; empty when none does.
std::string vm_flags_of(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.starts_with("VmFlags:")) return line;
  }
  return {};
}

bool advised(const std::string& flags) {
  return flags.find(" hg") != std::string::npos;
}

TEST(HugePages, BigArraysAreAdvisedSmallOnesAreNot) {
  if (!heapq::cli::kBigAllocationsOnHugePages) GTEST_SKIP() << "a sanitizer's operator new";
  if (!huge_pages_on_request()) GTEST_SKIP() << "no transparent huge pages on this kernel";
  // 34 MiB: over the threshold (32 MiB), with whole, aligned 2 MiB pages inside.
  std::vector<uint32_t> big(std::size_t{34} << 20 >> 2, 1);
  const std::string big_flags = vm_flags_of(big.data() + big.size() / 2);
  ASSERT_FALSE(big_flags.empty());
  EXPECT_TRUE(advised(big_flags)) << big_flags;
  // The same through the array form of new.
  const std::unique_ptr<char[]> array(new char[std::size_t{34} << 20]);
  EXPECT_TRUE(advised(vm_flags_of(array.get() + (std::size_t{17} << 20))));
  // Below the threshold: glibc's heap, not advised.
  std::vector<uint32_t> small(1024, 1);
  const std::string small_flags = vm_flags_of(small.data());
  ASSERT_FALSE(small_flags.empty());
  EXPECT_FALSE(advised(small_flags)) << small_flags;
}

}  // namespace
