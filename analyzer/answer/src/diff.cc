#include "heapq/answer/ask/diff.h"

#include "heapq/read/source_paths.h"
#include "refs.h"

namespace heapq {

namespace {

DiffAnswer::Rows rows(const DumpDiff& diff, GroupBy by, size_t top) {
  const std::vector<DiffRow> all = diff.by(by);
  DiffAnswer::Rows out;
  out.total = all.size();
  for (size_t i = 0; i < all.size() && i < top; ++i) {
    DiffAnswer::Row row{all[i], {}, {}};
    if (by == GroupBy::kGem) {
      const auto [name, version] = split_gem(all[i].group.file);
      row.gem_name = std::string(name);
      row.gem_version = std::string(version);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace

Result<DiffAnswer> answer_diff(const std::vector<std::string>& paths, const DiffOptions& options,
                               const InputOptions& inputs) {
  if (paths.size() > 2) return usage_error("diff takes two INPUTs: BEFORE and AFTER");
  const Error one_input = usage_error(
      "diff takes BEFORE and AFTER, or a store holding two dumps or more (see heapq diff --help)");
  if (paths.empty() || (paths.size() == 1 && !is_store(parse_store_ref(paths[0]))))
    return one_input;
  HEAPQ_ASSIGN_OR_RETURN(Inputs opened, Inputs::open_over_time(paths));
  std::vector<Input*> dumps = opened.all();
  if (!options.as_given && paths.size() == 2)
    HEAPQ_RETURN_IF_ERROR(take_in_time_order(dumps, inputs));
  if (dumps.size() < 2) return one_input;
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump before,
                         load(*dumps.front(), inputs, Needs::kObjectsOnly));
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump after, load(*dumps.back(), inputs, Needs::kObjectsOnly));
  return diff_answer(before, after, options);
}

Result<DiffAnswer> diff_answer(const LoadedDump& before, const LoadedDump& after,
                               const DiffOptions& options) {
  HEAPQ_RETURN_IF_ERROR(check_one_process({&before, &after}, options.as_given));
  const DumpDiff diff(before.graph, after.graph);
  DiffAnswer a;
  a.input = summarize(after);
  a.before = summarize(before);
  a.by = options.by;
  a.match = diff.match();
  a.born = diff.born();
  a.freed = diff.freed();
  if (auto w = compaction_warning(before.report.origin, after.report.origin, diff.by_address()))
    a.warnings.push_back(std::move(*w));
  a.objects_before = before.graph.object_count();
  a.objects_after = after.graph.object_count();
  a.by_class = rows(diff, GroupBy::kClass, options.top);
  a.by_site = rows(diff, GroupBy::kClassAndSite, options.top);
  if (options.by == GroupBy::kGem) a.by_gem = rows(diff, GroupBy::kGem, options.top);
  return a;
}

}  // namespace heapq
