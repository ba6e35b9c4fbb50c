// heapq sql: SQL on a store, printed as an aligned table, JSON rows or CSV.
#include <cmath>
#include <cstdio>

#include "cli/command.h"
#include "cli/output.h"
#include "heapq/store.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"write", "", "allow statements that change the store (it is opened read-only otherwise)"},
};

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
class TextSink : public SqlSink {
 public:
  Status columns(const std::vector<std::string>& names) override {
    if (Status s = flush(); !s) return s;
    names_ = names;
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
      cells.push_back(null ? "NULL" : cell_text(v));
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
        emit(table.render(output_width()) + "(" + counted(table.size(), "row", "rows") + ")\n");
    return ok ? Status(Ok{}) : Status(io_error("cannot write the output"));
  }

 private:
  std::vector<std::string> names_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
  bool open_ = false;
};

// Writes its output in pieces of about a megabyte.
class StreamingSink : public SqlSink {
 protected:
  Status maybe_emit(std::string& pending, bool force) {
    if (pending.empty() || (!force && pending.size() < (1 << 20))) return Ok{};
    bool ok = emit(pending);
    pending.clear();
    return ok ? Status(Ok{}) : Status(io_error("cannot write the output"));
  }
};

// JSON: one array of row objects, the rows of every statement in turn.
class JsonSink : public StreamingSink {
 public:
  JsonSink() : w_(buffer_) { w_.StartArray(); }
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
  Status finish() {
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
// escaped as in text output (\n, \e, \xhh, ...): CSV is data, yet often read on a terminal,
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
  Status finish() { return maybe_emit(out_, true); }

 private:
  void line(const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) out_ += (c ? "," : "") + csv_field(cells[c]);
    out_ += "\r\n";
  }
  std::string out_;
  std::vector<std::string> cells_;
};

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 2)
    return report_error(usage_error("sql takes STORE and one SQL text (see heapq sql --help)"));
  const std::string store = parse_store_ref(args.positional()[0]).file;
  const std::string& sql = args.positional()[1];
  Status s = Ok{};
  if (global.format == OutputFormat::kJson) {
    JsonSink sink;
    s = run_sql(store, sql, args.has("write"), sink);
    if (s) s = sink.finish();
  } else if (global.format == OutputFormat::kCsv) {
    CsvSink sink;
    s = run_sql(store, sql, args.has("write"), sink);
    if (s) s = sink.finish();
  } else {
    TextSink sink;
    s = run_sql(store, sql, args.has("write"), sink);
    if (s) s = sink.flush();
  }
  return s ? 0 : report_error(s.error());
}

}  // namespace

const Command kSqlCommand = {
    "sql",
    "run SQL on a store (heapq load): tables of objects, references, roots, classes, sites",
    "heapq sql [--format text|json|csv] [--write] STORE \"SELECT ...\"",
    "Runs the SQL on the store and prints the rows: an aligned table (text, NULL shown as NULL),\n"
    "a JSON array of row objects (--format json; an infinite or NaN real is null there), or CSV\n"
    "with a header line (--format csv). Control characters of text values are escaped in text\n"
    "and CSV as \\n, \\t, \\e, \\xhh or \\uhhhh (a dump's strings never drive the terminal); JSON\n"
    "has them exactly.\n"
    "Several statements may be given, separated by ';': the rows of each one that returns rows\n"
    "are printed in turn, as SQLite produces them (the text table waits for its last row). The\n"
    "store is opened read-only: a statement that would change it is refused (exit status 1)\n"
    "unless --write is given. An SQL error exits with status 2 and SQLite's message.\n\n"
    "Tables: dumps, objects, refs, roots, classes, sites, gems, strings, types,\n"
    "class_records, weak_holders, dump_issues; views objects_v, refs_v, roots_v, sites_v\n"
    "with names spelled out. Join and filter on integer columns (id, address, dump_id),\n"
    "which are indexed; address_hex is for reading. The schema, documented, is\n"
    "schemas/store.sql; heapq sql STORE \"SELECT sql FROM sqlite_schema\" prints it.\n"
    "Every row carries its dump_id (dumps.id). For example:\n"
    "  heapq sql app.db \"SELECT class, count(*), sum(memsize) FROM objects_v\n"
    "                    WHERE dump_id = 1 GROUP BY class ORDER BY 3 DESC LIMIT 10\"\n",
    kOptions,
    run,
    true,  // writes csv
};

}  // namespace heapq::cli
