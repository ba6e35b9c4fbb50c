// The rows of heapq sql as they stream from SQLite: an aligned text table per statement (it
// waits for the statement's last row), one JSON array of row objects, or CSV.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "heapq/render/render.h"
#include "heapq/store/store.h"

namespace heapq::render {

// Where rendered output goes, a piece at a time: false when it could not be written.
using Writer = std::function<bool(std::string_view)>;

class SqlRenderer : public SqlSink {
 public:
  virtual Status finish() = 0;  // after the last row
};

// format: kText, kJson or kCsv.
std::unique_ptr<SqlRenderer> sql_renderer(Format format, const TextOptions& options, Writer write);

}  // namespace heapq::render
