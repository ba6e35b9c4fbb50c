// Asking for the answer of answer/load.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "heapq/answer/inputs.h"
#include "heapq/answer/load.h"
#include "heapq/base/result.h"
#include "heapq/store/store.h"

namespace heapq {

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
  // A dump ("#5") or a profile ("profile #3") is in the store.
  std::function<void(const std::string& added)> added;
};

Result<LoadAnswer> answer_load(const std::vector<std::string>& dumps,
                               const StoreLoadOptions& options, const InputOptions& inputs,
                               const StoreLoadHooks& hooks);

}  // namespace heapq
