// graph_columns: the arrays of a HeapGraph saved as blobs, so that reopening a store copies
// arrays instead of stepping through a row per object and per reference.
#include "store_columns.h"

#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "store_reader.h"

namespace heapq {

namespace {

constexpr size_t kChunkBytes = 64 << 20;  // well under SQLite's 1 GB limit on a blob
constexpr bool kLittleEndian = std::endian::native == std::endian::little;

template <typename T>
Status write_column(store::TableRows& rows, int64_t dump, const char* name,
                    const std::vector<T>& v) {
  const size_t bytes = v.size() * sizeof(T);
  const char* data = reinterpret_cast<const char*>(v.data());
  for (size_t at = 0, chunk = 0; at < bytes || chunk == 0; at += kChunkBytes, ++chunk) {
    const size_t n = std::min(kChunkBytes, bytes - at);
    rows.add(dump);
    rows.add_text(name);
    rows.add(static_cast<int64_t>(chunk));
    rows.add_blob(std::string_view(n ? data + at : "", n));
    if (Status s = rows.end_row(); !s) return s;
  }
  return Ok{};
}

template <typename T, typename Fn>
std::vector<T> per_object(const HeapGraph& g, Fn fn) {
  std::vector<T> v(g.object_count());
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = fn(ObjectId(i));
  return v;
}

}  // namespace

Status store::write_graph_columns(RowTarget& to, int64_t dump, const HeapGraph& g) {
  if (!kLittleEndian) return Ok{};  // the reader falls back to the rows
  auto st = to.rows("graph_columns", 4);
  if (!st) return st.error();
  const size_t n = g.object_count();
  Status s = write_column(**st, dump, "address",
                          per_object<uint64_t>(g, [&](ObjectId o) { return g.address(o); }));
  if (s)
    s = write_column(**st, dump, "type",
                     per_object<uint8_t>(g, [&](ObjectId o) { return uint8_t(g.type(o)); }));
  if (s)
    s = write_column(**st, dump, "class",
                     per_object<uint32_t>(g, [&](ObjectId o) { return g.class_of(o).value(); }));
  if (s)
    s = write_column(**st, dump, "memsize",
                     per_object<uint64_t>(g, [&](ObjectId o) { return g.memsize(o); }));
  if (s)
    s = write_column(**st, dump, "site",
                     per_object<uint32_t>(g, [&](ObjectId o) { return g.site(o).value(); }));
  if (s)
    s = write_column(**st, dump, "generation",
                     per_object<uint32_t>(g, [&](ObjectId o) { return g.generation(o); }));
  // The objects' part of the CSR; the roots' edges come from the roots table.
  std::vector<uint32_t> begin(g.edge_begin().begin(), g.edge_begin().begin() + n + 1);
  const uint32_t edges = begin.back();
  if (s) s = write_column(**st, dump, "edge_begin", begin);
  if (s)
    s = write_column(
        **st, dump, "edge_target",
        std::vector<uint32_t>(g.edge_targets().begin(), g.edge_targets().begin() + edges));
  if (s && g.has_reference_names()) {
    std::vector<uint32_t> names(edges);
    for (uint32_t o = 0, e = 0; o < n; ++o)
      for (size_t i = 0; i < g.references(ObjectId(o)).size(); ++i)
        names[e++] = g.reference_name(ObjectId(o), i).value();
    s = write_column(**st, dump, "edge_name", names);
  }
  if (s && g.has_stacks())
    s = write_column(**st, dump, "stack",
                     per_object<uint32_t>(g, [&](ObjectId o) { return g.stack_number(o); }));
  return s ? (*st)->finish() : s;
}

Status store::write_class_edges(RowTarget& to, int64_t dump, const HeapGraph& g) {
  if (!kLittleEndian) return io_error("class_edges needs a little-endian machine");
  auto st = to.rows("class_edges", 4);
  if (!st) return st.error();
  std::vector<uint32_t> targets(g.object_count(), UINT32_MAX);
  for (uint32_t o = 0; o < targets.size(); ++o)
    if (g.added_class_edge(ObjectId(o))) {
      IdRange<ObjectId> refs = g.references(ObjectId(o));
      targets[o] = refs[refs.size() - 1].value();
    }
  Status s = write_column(**st, dump, "target", targets);
  return s ? (*st)->finish() : s;
}

namespace {

enum class Column { kMissing, kMisfit, kRead };

// Reads one column's chunks into v, when they hold `count` elements: checked before anything
// is allocated, so that chunks planted in a store are refused by their sizes, never read in.
template <typename T>
Result<Column> read_column(store::RowSource& db, int64_t dump, const char* name, std::vector<T>& v,
                           uint64_t count, const char* table = "graph_columns") {
  bool misfit = false;
  auto read = db.read_column(table, dump, name, [&](size_t bytes) -> char* {
    misfit = bytes % sizeof(T) || bytes / sizeof(T) != count;
    if (misfit) return nullptr;
    v.resize(count);
    return reinterpret_cast<char*>(v.data());
  });
  if (!read) return read.error();
  if (*read) return v.size() == count ? Column::kRead : Column::kMisfit;
  return misfit ? Column::kMisfit : Column::kMissing;
}

}  // namespace

Result<bool> StoreReader::read_columns() {
  if (!kLittleEndian) return false;
  bool all = true;
  auto read = [&](const char* column, auto& v, uint64_t count) -> Status {
    auto r = read_column(db_, dump_, column, v, count);
    if (!r) return r.error();
    all = all && *r == Column::kRead;
    return Ok{};
  };
  // The packed columns through a plain array each, as they were written.
  auto read_packed = [&]<typename T>(const char* column, std::vector<T> plain, auto& to) {
    Status st = read(column, plain, objects_);
    to.clear();
    to.reserve(plain.size());
    for (T v : plain) to.push_back(v);
    return st;
  };
  Status s = read_packed("address", std::vector<uint64_t>(), g_.address_);
  if (s) s = read("type", g_.type_, objects_);
  if (s) s = read_packed("class", std::vector<ClassId>(), g_.class_of_);
  if (s) s = read_packed("memsize", std::vector<uint64_t>(), g_.memsize_);
  if (s) s = read_packed("site", std::vector<SiteId>(), g_.site_);
  if (s) s = read_packed("generation", std::vector<uint32_t>(), g_.generation_);
  if (s && references_) s = read("edge_begin", g_.edge_begin_, objects_ + 1);
  // As many edges as edge_begin says (none when it was not read).
  const uint64_t edges = g_.edge_begin_.size() == objects_ + 1 ? g_.edge_begin_.back() : 0;
  if (s && references_) s = read("edge_target", g_.edge_target_, edges);
  if (s && names_ && references_) s = read("edge_name", g_.edge_name_, edges);
  if (s && !references_) g_.edge_begin_.assign(g_.address_.size() + 1, 0);
  if (!s) return s.error();
  if (all && columns_fit()) {
    // The stacks' numbers, written with the other columns when the dump has stacks.
    std::vector<uint32_t> stack;
    auto got = read_column(db_, dump_, "stack", stack, objects_);
    if (!got) return got.error();
    if (*got == Column::kMissing) return true;
    if (*got == Column::kRead) {
      g_.stack_ = std::move(stack);
      return true;
    }
  }
  // Not there, or not what the tables say: the rows are the truth.
  g_.address_.clear();
  g_.type_.clear();
  g_.class_of_.clear();
  g_.memsize_.clear();
  g_.site_.clear();
  g_.generation_.clear();
  g_.edge_begin_.clear();
  g_.edge_target_.clear();
  g_.edge_name_.clear();
  return false;
}

// The class edges heapq added (class_edges): appended to the references read from rows, or,
// with the references read from graph_columns, checked against their last reference.
Status StoreReader::read_class_edges(bool edges_from_rows) {
  const size_t n = g_.address_.size();
  std::vector<uint32_t> targets;
  g_.added_class_edge_.assign(n, false);
  auto got = read_column(db_, dump_, "target", targets, n, "class_edges");
  if (!got) return got.error();
  if (*got != Column::kRead) return damaged_store("class_edges");
  std::vector<uint32_t> begin, target;
  if (edges_from_rows) {
    begin.reserve(n + 1);
    target.reserve(g_.edge_target_.size() + n);
    begin.push_back(0);
  }
  for (uint32_t o = 0; o < n; ++o) {
    const uint32_t klass = targets[o];
    if (klass != UINT32_MAX && klass >= n) return damaged_store("class_edges");
    g_.added_class_edge_[o] = klass != UINT32_MAX;
    const uint32_t from = g_.edge_begin_[o], to = g_.edge_begin_[o + 1];
    if (!edges_from_rows) {
      if (klass != UINT32_MAX && (from == to || g_.edge_target_[to - 1] != klass))
        return damaged_store("class_edges");
      continue;
    }
    target.insert(target.end(), g_.edge_target_.begin() + from, g_.edge_target_.begin() + to);
    if (klass != UINT32_MAX) target.push_back(klass);
    begin.push_back(static_cast<uint32_t>(target.size()));
  }
  if (!edges_from_rows) return Ok{};
  if (names_) {  // memprof dumps get no added edges, but keep the arrays parallel regardless
    std::vector<StringId> names;
    names.reserve(target.size());
    for (uint32_t o = 0; o < n; ++o) {
      names.insert(names.end(), g_.edge_name_.begin() + g_.edge_begin_[o],
                   g_.edge_name_.begin() + g_.edge_begin_[o + 1]);
      if (targets[o] != UINT32_MAX) names.push_back(StringId::none());
    }
    g_.edge_name_ = std::move(names);
  }
  g_.edge_begin_ = std::move(begin);
  g_.edge_target_ = std::move(target);
  return Ok{};
}

// Whether the arrays read from graph_columns make a valid graph over the tables' classes,
// sites and strings: the commands index arrays with these values without checking them.
bool StoreReader::columns_fit() const {
  const size_t n = g_.address_.size();
  if (g_.type_.size() != n || g_.class_of_.size() != n || g_.memsize_.size() != n ||
      g_.site_.size() != n || g_.generation_.size() != n || g_.edge_begin_.size() != n + 1 ||
      g_.edge_begin_[0] != 0 || g_.edge_begin_.back() != g_.edge_target_.size() ||
      (names_ && g_.edge_name_.size() != g_.edge_target_.size()))
    return false;
  for (size_t i = 0; i < n; ++i) {
    if (g_.edge_begin_[i] > g_.edge_begin_[i + 1] ||
        static_cast<int>(g_.type_[i]) >= kObjectTypeCount)
      return false;
    if (!g_.class_of_[i].valid() || g_.class_of_[i].value() >= g_.classes_.size()) return false;
    if (g_.site_[i].valid() && g_.site_[i].value() >= g_.sites_.size()) return false;
  }
  for (uint32_t t : g_.edge_target_)
    if (t >= n) return false;
  for (StringId s : g_.edge_name_)
    if (s.valid() && s.value() >= g_.strings_.size()) return false;
  for (const ClassInfo& c : g_.classes_)
    if (c.object.valid() && c.object.value() >= n) return false;
  return true;
}

}  // namespace heapq
