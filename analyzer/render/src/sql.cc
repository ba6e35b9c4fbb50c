#include "heapq/render/sql.h"

#include <cmath>
#include <cstdio>

#include "heapq/answer/wording.h"
#include "heapq/render/terminal_text.h"
#include "json/writer.h"
#include "text/table.h"

namespace heapq::render {

namespace {

std::string cell_text(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    return buf;
  }
  return std::get<std::string>(v);
}

bool numeric(const SqlValue& v) {
  return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
}

// Text: a table needs every row to size its columns, so rows are kept until the statement
// ends; one table per statement that returns rows.
class TextSink : public SqlRenderer {
 public:
  TextSink(size_t width, Writer write) : width_(width), write_(std::move(write)) {}
  Status finish() override { return flush(); }
  Status columns(const std::vector<std::string>& names) override {
    if (Status s = flush(); !s) return s;
    names_.clear();
    for (const std::string& name : names) names_.push_back(escape_controls(name));
    right_.assign(names.size(), true);
    rows_.clear();
    open_ = true;
    return Ok{};
  }
  Status row(const std::vector<SqlValue>& values) override {
    std::vector<std::string> cells;
    cells.reserve(values.size());
    for (size_t c = 0; c < values.size(); ++c) {
      const SqlValue& v = values[c];
      const bool null = std::holds_alternative<std::monostate>(v);
      // A column is right-aligned when all its values are numbers (NULLs aside).
      if (!null && !numeric(v) && c < right_.size()) right_[c] = false;
      cells.push_back(null ? "NULL" : escape_controls(cell_text(v)));
    }
    rows_.push_back(std::move(cells));
    return Ok{};
  }
  Status flush() {
    if (!open_) return Ok{};
    open_ = false;
    TextTable table(names_, right_);
    for (auto& r : rows_) table.add(std::move(r));
    rows_ = {};
    // The table is escaped and fitted already.
    const bool ok =
        write_(table.render(width_) + "(" + counted(table.size(), "row", "rows") + ")\n");
    return ok ? Status(Ok{}) : Status(io_error("cannot write the output"));
  }

 private:
  std::vector<std::string> names_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
  bool open_ = false;
  size_t width_;
  Writer write_;
};

// Writes its output in pieces of about a megabyte.
class StreamingSink : public SqlRenderer {
 public:
  explicit StreamingSink(Writer write) : write_(std::move(write)) {}

 protected:
  Status maybe_emit(std::string& pending, bool force) {
    if (pending.empty() || (!force && pending.size() < (1 << 20))) return Ok{};
    bool ok = write_(pending);
    pending.clear();
    return ok ? Status(Ok{}) : Status(io_error("cannot write the output"));
  }

 private:
  Writer write_;
};

// JSON: one array of row objects, the rows of every statement in turn.
class JsonSink : public StreamingSink {
 public:
  explicit JsonSink(Writer write) : StreamingSink(std::move(write)), w_(buffer_) {
    w_.StartArray();
  }
  Status columns(const std::vector<std::string>& names) override {
    names_ = names;
    return Ok{};
  }
  Status row(const std::vector<SqlValue>& values) override {
    w_.StartObject();
    for (size_t c = 0; c < values.size(); ++c) {
      json_key(w_, names_[c]);
      if (auto* i = std::get_if<int64_t>(&values[c]))
        w_.Int64(*i);
      else if (auto* d = std::get_if<double>(&values[c]); d && std::isfinite(*d))
        w_.Double(*d);
      else if (auto* s = std::get_if<std::string>(&values[c]))
        json_string(w_, *s);
      else
        w_.Null();
    }
    w_.EndObject();
    return drain(false);
  }
  Status finish() override {
    w_.EndArray();
    buffer_.Put('\n');
    return drain(true);
  }

 private:
  Status drain(bool force) {
    if (!force && buffer_.GetSize() < (1 << 20)) return Ok{};
    pending_.assign(buffer_.GetString(), buffer_.GetSize());
    buffer_.Clear();
    return maybe_emit(pending_, true);
  }
  rapidjson::StringBuffer buffer_;
  JsonWriter w_;
  std::vector<std::string> names_;
  std::string pending_;
};

// RFC 4180: fields with a comma or a quote are quoted, quotes doubled. Control characters are
// escaped as in text output (\n, \e, \xhh, \\, ...): CSV is data, yet often read on a terminal,
// which a dump's strings must not drive.
std::string csv_field(const std::string& raw) {
  const std::string s = escape_controls(raw);
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// CSV: a header line, then the rows; another header for each further statement with rows.
class CsvSink : public StreamingSink {
 public:
  explicit CsvSink(Writer write) : StreamingSink(std::move(write)) {}
  Status columns(const std::vector<std::string>& names) override {
    line(names);
    return Ok{};
  }
  Status row(const std::vector<SqlValue>& values) override {
    cells_.clear();
    for (const SqlValue& v : values) cells_.push_back(cell_text(v));
    line(cells_);
    return maybe_emit(out_, false);
  }
  Status finish() override { return maybe_emit(out_, true); }

 private:
  void line(const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) out_ += (c ? "," : "") + csv_field(cells[c]);
    out_ += "\r\n";
  }
  std::string out_;
  std::vector<std::string> cells_;
};

}  // namespace

std::unique_ptr<SqlRenderer> sql_renderer(Format format, const TextOptions& options, Writer write) {
  if (format == Format::kJson) return std::make_unique<JsonSink>(std::move(write));
  if (format == Format::kCsv) return std::make_unique<CsvSink>(std::move(write));
  return std::make_unique<TextSink>(options.width, std::move(write));
}

}  // namespace heapq::render
