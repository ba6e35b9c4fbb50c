// graph_columns: the arrays of a HeapGraph saved as blobs, so that reopening a store copies
// arrays instead of stepping through a row per object and per reference.
#include "graph_columns.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "read_dump.h"

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
// `room`: elements more to reserve once they are (what the graph appends without a copy).
template <typename T>
Result<Column> read_column(store::RowSource& db, int64_t dump, const char* name, std::vector<T>& v,
                           uint64_t count, const char* table = "graph_columns", uint64_t room = 0) {
  bool misfit = false;
  auto read = db.read_column(table, dump, name, [&](size_t bytes) -> char* {
    misfit = bytes % sizeof(T) || bytes / sizeof(T) != count;
    if (misfit) return nullptr;
    v.reserve(count + room);
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
  auto read = [&](const char* column, auto& v, uint64_t count, uint64_t room = 0) -> Status {
    auto r = read_column(db_, dump_, column, v, count, "graph_columns", room);
    if (!r) return r.error();
    all = all && *r == Column::kRead;
    return Ok{};
  };
  // The packed columns through a plain array each, as they were written.
  auto read_packed = [&]<typename T>(const char* column, std::vector<T> plain, auto& to) {
    Status st = read(column, plain, objects_);
    to.reserve(plain.size());
    for (T v : plain) to.push_back(v);
    return st;
  };
  // Each packed as the graph keeps it once read, so that one alone is held plain at a time.
  ObjectColumns c;
  Status s = read_packed("address", std::vector<uint64_t>(), c.address);
  if (s) s = read("type", c.type, objects_);
  if (s) s = read_packed("class", std::vector<ClassId>(), c.class_of);
  if (s) s = read_packed("memsize", std::vector<uint64_t>(), c.memsize);
  if (s) s = read_packed("site", std::vector<SiteId>(), c.site);
  if (s) s = read_packed("generation", std::vector<uint32_t>(), c.generation);
  if (!s) return s.error();
  if (!all) return false;
  // The stacks' numbers, written with the other columns when the dump has stacks.
  auto got = read_column(db_, dump_, "stack", c.stack, objects_);
  if (!got) return got.error();
  if (*got == Column::kMisfit) return false;
  if (!add_object_columns(c)) return false;
  if (!references_) return true;
  ReferenceBlock refs;
  s = read("edge_begin", refs.begin, objects_ + 1);
  // As many edges as edge_begin says (none when it was not read).
  const uint64_t edges = refs.begin.size() == objects_ + 1 ? refs.begin.back() : 0;
  // Room for the roots' references, which the graph appends (dumps.edges, a hint: at most 1M).
  const uint64_t roots = edge_count_ > edges ? std::min<uint64_t>(edge_count_ - edges, 1 << 20) : 0;
  if (s) s = read("edge_target", refs.targets, edges, roots);
  if (s && names_) s = read("edge_name", refs.names, edges, roots);
  if (!s) return s.error();
  // Offsets that do not add up are the columns' damage (the rows may do): checked before the
  // class edges read them.
  if (!all || refs.begin.front() != 0 || refs.begin.back() != refs.targets.size() ||
      !std::is_sorted(refs.begin.begin(), refs.begin.end()))
    return false;
  HEAPQ_RETURN_IF_ERROR(read_class_edges(refs, false));
  return b_.add_references(std::move(refs)).ok();
}

// The columns' objects, to the builder whole; false when it refuses them.
bool StoreReader::add_object_columns(ObjectColumns& c) {
  if (!c.stack.empty()) top_stack_ = std::ranges::max(c.stack);
  return b_.add_object_columns(std::move(c)).ok();
}

// The class edges heapq added (class_edges): appended to the references read from rows, or,
// with the references read from graph_columns, checked against their last reference.
Status StoreReader::read_class_edges(ReferenceBlock& refs, bool edges_from_rows) {
  const size_t n = refs.begin.size() - 1;
  std::vector<uint32_t> targets;
  auto got = read_column(db_, dump_, "target", targets, n, "class_edges");
  if (!got) return got.error();
  if (*got != Column::kRead) return damaged_store("class_edges");
  std::vector<uint32_t> begin, target;
  if (edges_from_rows) {
    begin.reserve(n + 1);
    target.reserve(refs.targets.size() + n);
    begin.push_back(0);
  }
  for (uint32_t o = 0; o < n; ++o) {
    const uint32_t klass = targets[o];
    if (klass != UINT32_MAX && klass >= n) return damaged_store("class_edges");
    const uint32_t from = refs.begin[o], to = refs.begin[o + 1];
    if (!edges_from_rows) {
      if (klass != UINT32_MAX && (from == to || refs.targets[to - 1] != klass))
        return damaged_store("class_edges");
      continue;
    }
    target.insert(target.end(), refs.targets.begin() + from, refs.targets.begin() + to);
    if (klass != UINT32_MAX) target.push_back(klass);
    begin.push_back(static_cast<uint32_t>(target.size()));
  }
  if (edges_from_rows) {
    if (names_) {  // memprof dumps get no added edges, but keep the arrays parallel regardless
      std::vector<StringId> names;
      names.reserve(target.size());
      for (uint32_t o = 0; o < n; ++o) {
        names.insert(names.end(), refs.names.begin() + refs.begin[o],
                     refs.names.begin() + refs.begin[o + 1]);
        if (targets[o] != UINT32_MAX) names.push_back(StringId::none());
      }
      refs.names = std::move(names);
    }
    refs.begin = std::move(begin);
    refs.targets = std::move(target);
  }
  // The objects that have one, in the column's place: it may list every object.
  size_t listed = 0;
  for (uint32_t o = 0; o < n; ++o)
    if (targets[o] != UINT32_MAX) targets[listed++] = o;
  targets.resize(listed);
  refs.class_edges = std::move(targets);
  return Ok{};
}

}  // namespace heapq
