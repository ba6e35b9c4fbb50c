// heapq load: dumps parsed once into a store that every command reads without parsing, and
// sampled profiles beside them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace heapq {

struct LoadAnswer {
  std::string store;    // a file, or a server's URL without its password
  bool server = false;  // a PostgreSQL server
  uint64_t bytes = 0;   // the file's size once written (0 for a server)
  struct Dump {
    int64_t id = 0;    // its number in the store (STORE#id)
    std::string path;  // as given
    uint64_t objects = 0, references = 0;
  };
  std::vector<Dump> dumps;  // those this load added
  struct Profile {
    int64_t id = 0;    // its number among the store's profiles
    std::string path;  // as given
    uint64_t samples = 0;
    uint64_t objects = 0, bytes = 0;  // live, estimated
  };
  std::vector<Profile> profiles;  // the sampled profiles this load added
};

}  // namespace heapq
