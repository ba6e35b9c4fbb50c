// heapq load: dumps parsed once into a SQLite store that every command reads without parsing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "heapq/inputs.h"

namespace heapq {

struct LoadAnswer {
  std::string store;
  uint64_t bytes = 0;  // the store's size once written
  struct Dump {
    int64_t id = 0;    // its number in the store (STORE#id)
    std::string path;  // as given
    uint64_t objects = 0, references = 0;
  };
  std::vector<Dump> dumps;  // those this load added
};

struct StoreLoadOptions {
  std::string output;   // empty: the first dump's name + .db
  bool force = false;   // replace an existing store
  bool append = false;  // add to an existing store
};

// What the command line does around a load: its messages, its signal handler.
struct StoreLoadHooks {
  std::function<void(const std::string& path)> removed_stale;  // an interrupted load's temp file
  // The store's temporary file exists: what to remove if the process is stopped.
  std::function<void(const std::string& temp)> writing_to;
  // Around each dump's writing: (the store, true) before, (the store, false) after.
  std::function<void(const std::string& store, bool)> writing;
};

Result<LoadAnswer> answer_load(const std::vector<std::string>& dumps,
                               const StoreLoadOptions& options, const InputOptions& inputs,
                               const StoreLoadHooks& hooks);

}  // namespace heapq
