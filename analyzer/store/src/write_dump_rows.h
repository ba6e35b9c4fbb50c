// The rows one dump makes in a store, in either backend: strings, classes, sites, objects with
// their analyses, references, roots, the load's report and the dump's tags.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "heapq/model/heap_graph.h"
#include "heapq/read/load_report.h"
#include "heapq/store/store.h"
#include "table_rows.h"

namespace heapq::store {

// Writes the dump's rows under id `dump`, table by table, the objects' once their analyses are
// ready. The dumps row comes last.
Status write_dump_rows(RowTarget& to, int64_t dump, const std::string& source,
                       const HeapGraph& graph, const LoadReport& report, PendingAnalyses analyses,
                       const DumpTags& tags);

// The rows of the types table (object types as the dump spells them).
Status write_types(RowTarget& to);

// Now, UTC, ISO 8601 to the second: when a load wrote a row (loaded_at).
std::string utc_now();

// A text, or NULL for an empty one.
void add_text_or_null(TableRows& rows, std::string_view s);

// The labels as a JSON object ({"deploy":"abc123"}); empty without any.
std::string labels_json(const DumpTags& tags);

}  // namespace heapq::store
