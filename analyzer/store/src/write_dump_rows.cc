// write_dump_rows: what `heapq load` writes of a dump, table by table, for SQLite and
// PostgreSQL alike (schemas/store.sql).
#include "write_dump_rows.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <ctime>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "graph_columns.h"
#include "heapq/base/keyed_hash.h"
#include "heapq/read/source_paths.h"

namespace heapq::store {

namespace {

using Cell = std::optional<int64_t>;  // nullopt: NULL
constexpr Cell kNull = std::nullopt;

Cell or_null(uint32_t id_value) {
  return id_value == UINT32_MAX ? kNull : Cell(id_value);
}

class DumpRows {
 public:
  DumpRows(RowTarget& to, int64_t id, const HeapGraph& g) : to_(to), id_(id), g_(g) {}

  Status strings();
  Status classes();
  Status sites();
  Status records_and_weak();
  Status refs();
  Status roots();
  Status issues(const LoadReport& r);
  Status stacks_and_blocks();
  Status objects(const DumpAnalyses& a);
  Status dump(const std::string& source, const LoadReport& r, const DumpTags& tags,
              const DumpAnalyses& a);

 private:
  template <typename Fn>
  Status table(std::string_view name, int columns, Fn fn) {
    return write_table(to_, name, columns, fn);
  }
  Result<std::unordered_map<uint32_t, int64_t>> gem_ids_of_files();

  RowTarget& to_;
  const int64_t id_;
  const HeapGraph& g_;
};

Status DumpRows::strings() {
  return table("strings", 3, [&](TableRows& rows) -> Status {
    for (uint32_t i = 0; i < g_.strings().size(); ++i) {
      rows.add(id_);
      rows.add(i);
      rows.add_text(g_.strings()[StringId(i)]);
      if (Status s = rows.end_row(); !s) return s;
    }
    return Ok{};
  });
}

Status DumpRows::classes() {
  return table("classes", 5, [&](TableRows& rows) -> Status {
    for (uint32_t c = 0; c < g_.class_count(); ++c) {
      const ClassInfo& info = g_.class_info(ClassId(c));
      for (Cell v : {Cell(id_), Cell(c), Cell(int64_t(info.address)), or_null(info.object.value()),
                     Cell(info.name.value())})
        rows.add(v);
      if (Status s = rows.end_row(); !s) return s;
    }
    return Ok{};
  });
}

// gems.id of the gem each site's file lies in (files in no gem left out), gems rows added as
// needed: the one reading of a path as `heapq sites --by gem` has it.
Result<std::unordered_map<uint32_t, int64_t>> DumpRows::gem_ids_of_files() {
  std::unordered_map<uint32_t, int64_t> out;
  std::unordered_map<std::string, int64_t, KeyedHash> by_label;
  std::unordered_set<uint32_t> seen;
  for (uint32_t s = 0; s < g_.site_count(); ++s) {
    const StringId file = g_.site_info(SiteId(s)).file;
    if (!file.valid() || !seen.insert(file.value()).second) continue;
    const std::string label = gem_of_path(g_.string(file));
    if (label.starts_with('(')) continue;  // (app), (ruby): not a gem
    auto [it, fresh] = by_label.try_emplace(label, 0);
    if (fresh) {
      const auto [name, version] = split_gem(label);
      auto id = to_.gem_id(name, version);
      if (!id) return id.error();
      it->second = *id;
    }
    out.emplace(file.value(), it->second);
  }
  return out;
}

Status DumpRows::sites() {
  auto gem_ids = gem_ids_of_files();
  if (!gem_ids) return gem_ids.error();
  return table("sites", 6, [&](TableRows& rows) -> Status {
    for (uint32_t s = 0; s < g_.site_count(); ++s) {
      const Site& site = g_.site_info(SiteId(s));
      const auto gem = gem_ids->find(site.file.value());
      for (Cell v :
           {Cell(id_), Cell(s), Cell(site.file.value()), site.line ? Cell(site.line) : kNull,
            or_null(site.method.value()), gem == gem_ids->end() ? kNull : Cell(gem->second)})
        rows.add(v);
      if (Status st = rows.end_row(); !st) return st;
    }
    return Ok{};
  });
}

Status DumpRows::records_and_weak() {
  Status s = table("class_records", 3, [&](TableRows& rows) -> Status {
    for (uint32_t o = 0; o < g_.object_count(); ++o) {
      ObjectType t = g_.type(ObjectId(o));
      if (t != ObjectType::kClass && t != ObjectType::kModule) continue;
      if (StringId name = g_.own_name(ObjectId(o)); name.valid()) {
        for (int64_t v : {id_, int64_t(o), int64_t(name.value())}) rows.add(v);
        if (Status st = rows.end_row(); !st) return st;
      }
    }
    return Ok{};
  });
  if (!s) return s;
  return table("weak_holders", 2, [&](TableRows& rows) -> Status {
    for (uint32_t o = 0; o < g_.object_count(); ++o)
      if (g_.holds_weakly(ObjectId(o))) {
        for (int64_t v : {id_, int64_t(o)}) rows.add(v);
        if (Status st = rows.end_row(); !st) return st;
      }
    return Ok{};
  });
}

Status DumpRows::refs() {
  return table("refs", 5, [&](TableRows& rows) -> Status {
    const bool named = g_.has_reference_names();
    for (uint32_t o = 0; o < g_.object_count(); ++o) {
      uint32_t seq = 0;
      const uint32_t* first = g_.edge_targets().data() + g_.edge_begin()[o];
      const uint32_t* last = g_.edge_targets().data() + g_.edge_begin()[o + 1];
      // The class edge heapq added is not the dump's: it lives in class_edges, not in refs.
      if (g_.added_class_edge(ObjectId(o))) --last;
      for (ObjectId t : IdRange<ObjectId>(first, last)) {
        rows.add(id_);
        rows.add(o);
        rows.add(seq);
        rows.add(t.value());
        rows.add(named ? or_null(g_.reference_name(ObjectId(o), seq).value()) : kNull);
        ++seq;
        if (Status s = rows.end_row(); !s) return s;
      }
    }
    return Ok{};
  });
}

Status DumpRows::roots() {
  return table("roots", 5, [&](TableRows& rows) -> Status {
    int64_t seq = 0;
    for (const RootEdge& r : g_.roots()) {
      for (int64_t v : {id_, seq++, int64_t(r.category.value()), int64_t(r.target.value())})
        rows.add(v);
      rows.add(or_null(r.name.value()));
      if (Status s = rows.end_row(); !s) return s;
    }
    return Ok{};
  });
}

Status DumpRows::issues(const LoadReport& r) {
  return table("dump_issues", 5, [&](TableRows& rows) -> Status {
    for (const auto& [kind, issues] : {std::pair{"bad_line", &r.first_bad_lines},
                                       std::pair{"repaired_string", &r.first_repaired_strings}})
      for (size_t i = 0; i < issues->size(); ++i) {
        rows.add(id_);
        rows.add_text(kind);
        rows.add(static_cast<int64_t>(i));
        rows.add(static_cast<int64_t>((*issues)[i].line));
        rows.add_text((*issues)[i].message);
        if (Status s = rows.end_row(); !s) return s;
      }
    return Ok{};
  });
}

Status DumpRows::stacks_and_blocks() {
  Status s = table("stack_frames", 4, [&](TableRows& rows) -> Status {
    for (uint32_t n = 1; n < g_.stack_count(); ++n) {
      int64_t depth = 0;
      for (SiteId site : g_.stack_frames(n)) {
        for (int64_t v : {id_, int64_t(n), depth++, int64_t(site.value())}) rows.add(v);
        if (Status st = rows.end_row(); !st) return st;
      }
    }
    return Ok{};
  });
  if (!s) return s;
  std::vector<std::pair<uint32_t, SiteId>> blocks(g_.block_sites().begin(), g_.block_sites().end());
  std::sort(blocks.begin(), blocks.end());
  return table("block_sites", 3, [&](TableRows& rows) -> Status {
    for (auto [object, site] : blocks) {
      for (int64_t v : {id_, int64_t(object), int64_t(site.value())}) rows.add(v);
      if (Status st = rows.end_row(); !st) return st;
    }
    return Ok{};
  });
}

Status DumpRows::objects(const DumpAnalyses& a) {
  return table("objects", 13, [&](TableRows& rows) -> Status {
    const uint32_t root = g_.virtual_root().value();
    for (uint32_t i = 0; i < g_.object_count(); ++i) {
      const ObjectId o(i);
      const ObjectId idom = a.idom(o);
      const Cell idom_value = !idom.valid()          ? kNull
                              : idom.value() == root ? Cell(-1)
                                                     : Cell(idom.value());
      // Addresses and sizes are 64-bit unsigned: stored as their two's complement bit pattern.
      for (Cell v : {Cell(id_), Cell(i), Cell(int64_t(g_.address(o))), Cell(int64_t(g_.type(o))),
                     or_null(g_.class_of(o).value()), Cell(int64_t(g_.memsize(o))),
                     or_null(g_.site(o).value()), Cell(g_.generation(o)), idom_value,
                     Cell(int64_t(a.retained_bytes(o))), Cell(a.retained_count(o)),
                     or_null(a.distance(o)), g_.stack_number(o) ? Cell(g_.stack_number(o)) : kNull})
        rows.add(v);
      if (Status s = rows.end_row(); !s) return s;
    }
    return Ok{};
  });
}

Status DumpRows::dump(const std::string& source, const LoadReport& r, const DumpTags& tags,
                      const DumpAnalyses& a) {
  return table("dumps", 30, [&](TableRows& rows) -> Status {
    rows.add(id_);
    rows.add_text(source);
    rows.add_text(r.format == DumpFormat::kMemprof ? "memprof" : "objectspace");
    rows.add_text(utc_now());
    for (uint64_t v :
         {r.lines, r.objects, r.roots, r.shapes, r.skipped_records, r.bad_lines, r.repaired_strings,
          r.dangling_references, r.dangling_classes, r.duplicate_addresses})
      rows.add(static_cast<int64_t>(v));
    add_text_or_null(rows, r.damage);
    rows.add(int64_t(r.missing_end));
    rows.add(r.end_records < 0 ? kNull : Cell(r.end_records));
    rows.add(static_cast<int64_t>(g_.edge_count()));
    rows.add(int64_t(g_.has_reference_names()));
    uint64_t weak = 0;
    for (uint32_t o = 0; o < g_.object_count(); ++o) weak += g_.holds_weakly(ObjectId(o));
    rows.add(static_cast<int64_t>(weak));
    rows.add(static_cast<int64_t>(a.retained_bytes(g_.virtual_root())));
    rows.add(static_cast<int64_t>(a.unreachable_count()));
    rows.add(static_cast<int64_t>(a.unreachable_bytes()));
    rows.add(r.origin.pid == 0
                 ? kNull
                 : Cell(static_cast<int64_t>(std::min<uint64_t>(r.origin.pid, INT64_MAX))));
    add_text_or_null(rows, r.origin.time);
    rows.add(r.origin.gc_count < 0 ? kNull : Cell(r.origin.gc_count));
    add_text_or_null(rows, tags.host.empty() ? r.origin.host : tags.host);
    add_text_or_null(rows, r.origin.started);
    add_text_or_null(rows, tags.app);
    add_text_or_null(rows, labels_json(tags));
    return rows.end_row();
  });
}

}  // namespace

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void add_text_or_null(TableRows& rows, std::string_view s) {
  s.empty() ? rows.add_null() : rows.add_text(s);
}

std::string labels_json(const DumpTags& tags) {
  if (tags.labels.empty()) return {};
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  w.StartObject();
  for (const auto& [key, value] : tags.labels) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()), true);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()), true);
  }
  w.EndObject();
  return out.GetString();
}

Status write_types(RowTarget& to) {
  auto rows = to.rows("types", 2);
  if (!rows) return rows.error();
  for (int t = 0; t < kObjectTypeCount; ++t) {
    (*rows)->add(t);
    (*rows)->add_text(object_type_name(static_cast<ObjectType>(t)));
    if (Status s = (*rows)->end_row(); !s) return s;
  }
  return (*rows)->finish();
}

Status write_dump_rows(RowTarget& to, int64_t dump, const std::string& source, const HeapGraph& g,
                       const LoadReport& report, PendingAnalyses analyses, const DumpTags& tags) {
  // The rows that do not need the analyses are written while they run; where a second target
  // takes rows at the same time, the objects' rows go there as soon as the analyses are ready.
  std::unique_ptr<const DumpAnalyses> a;
  RowTarget* beside = to.beside();
  Status objects = Ok{};
  std::thread wait([&] {
    a = analyses.get();
    if (beside) objects = DumpRows(*beside, dump, g).objects(*a);
  });
  DumpRows rows(to, dump, g);
  Status s = rows.strings();
  if (s) s = rows.classes();
  if (s) s = rows.sites();
  if (s) s = rows.records_and_weak();
  if (s) s = rows.refs();
  if (s) s = rows.roots();
  if (s) s = rows.issues(report);
  if (s) s = rows.stacks_and_blocks();
  if (s) s = write_graph_columns(to, dump, g);
  if (s) s = write_class_edges(to, dump, g);
  wait.join();
  if (s) s = beside ? objects : rows.objects(*a);
  if (s) s = rows.dump(source, report, tags, *a);
  return s;
}

}  // namespace heapq::store
