// heapq load: dumps parsed once into a SQLite store that every command reads without parsing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "heapq/answer/inputs.h"
#include "heapq/store/store.h"

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
};

struct StoreLoadOptions {
  std::string output;   // empty: the first dump's name + .db; a postgresql:// URL: a server
  bool force = false;   // replace an existing store
  bool append = false;  // add to an existing store
  DumpTags tags;        // host, app and labels recorded with each dump
};

// What the command line does around a load: its messages, its signal handler.
struct StoreLoadHooks {
  std::function<void(const std::string& path)> removed_stale;  // an interrupted load's temp file
  // The store's temporary file exists: what to remove if the process is stopped.
  std::function<void(const std::string& temp)> writing_to;
  // Around each dump's writing: (the store, true) before, (the store, false) after.
  std::function<void(const std::string& store, bool)> writing;
  // A dump is in the store.
  std::function<void(const LoadAnswer::Dump&)> added;
};

Result<LoadAnswer> answer_load(const std::vector<std::string>& dumps,
                               const StoreLoadOptions& options, const InputOptions& inputs,
                               const StoreLoadHooks& hooks);

}  // namespace heapq
