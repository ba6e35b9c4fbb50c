// heapq sites: memory by allocation site (file:line), file, method, class, gem or app line.
#include "command.h"
#include "heapq/answer/ask/profile.h"
#include "heapq/answer/ask/sites.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr Choice<SiteGrouping> kGroupings[] = {
    {"site", SiteGrouping::kSite},     {"file", SiteGrouping::kFile},
    {"method", SiteGrouping::kMethod}, {"class", SiteGrouping::kClass},
    {"gem", SiteGrouping::kGem},       {"app", SiteGrouping::kApp}};

constexpr Option<SitesOptions> kOptions[] = {
    Bind<SitesOptions>::choice<&SitesOptions::by, kGroupings>(
        "by", "GROUP",
        "site (file:line and class), file, method, class, gem, or app: the app's line that made "
        "them, past the frames of gems and Ruby's library (memprof dumps with allocation "
        "stacks)"),
    top_option<SitesOptions>("groups to list, largest first; 0 lists all"),
    sort_option<SitesOptions>(),
    retained_option<SitesOptions>(),
    output_option<SitesOptions>(),
    output_long_option<SitesOptions>(),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<SitesOptions>& in) {
  if (in.inputs.size() != 1) return usage_error("sites takes one INPUT (see heapq sites --help)");
  HEAPQ_RETURN_IF_ERROR(in.output_once());
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(in.output, in.inputs));
  if (profile_format(global)) {
    if (in.given("by") || in.given("top") || in.given("sort"))
      return usage_error("--format " + format_name(global) +
                         " profiles every allocation stack and class: no --by, --top or --sort");
    HEAPQ_ASSIGN_OR_RETURN(
        ProfileAnswer profile,
        answer_sites_profile(in.inputs[0], in.values.retained, input_options(global)));
    return render::Answer(std::move(profile));
  }
  HEAPQ_ASSIGN_OR_RETURN(const SitesOptions options, in.options());
  HEAPQ_ASSIGN_OR_RETURN(SitesAnswer sites,
                         answer_sites(in.inputs[0], options, input_options(global)));
  return render::Answer(std::move(sites));
}

}  // namespace

const Command kSitesCommand = {
    "sites",
    "memory by allocation site: file:line, file, method, class or gem",
    "heapq sites [--by site|file|method|class|gem|app] [--top N] [--sort bytes|count] "
    "[--retained] [-o FILE] INPUT\n"
    "       heapq sites --format pprof|folded [--retained] [-o FILE] INPUT",
    "Groups the live objects by where they were allocated, from the dump's tracing fields\n"
    "(file, line, method), and lists the groups with the most memory first. Those fields are\n"
    "there only when the process traced allocations: ObjectSpace.trace_object_allocations_start,\n"
    "or Memprof.start. --by gem takes the gem from paths like .../gems/NAME-VERSION/...;\n"
    "Ruby's own library is \"(ruby)\" and other files \"(app)\". --retained adds each group's\n"
    "retained bytes: what freeing all its objects at once would free (one walk of the heap per\n"
    "row shown at worst: keep --top small on big dumps).\n"
    "--format pprof writes every allocation stack (memprof's, else the one site) and class as\n"
    "a gzip'd profile.proto with objects and bytes (go tool pprof -http : heap.pb.gz, or\n"
    "speedscope, Pyroscope); --format folded as folded stacks for flame graphs (the class as\n"
    "the innermost frame). --retained adds the bytes each stack's objects keep alive (pprof's\n"
    "-sample_index=retained; they overlap between stacks, so a sum over stacks counts some\n"
    "bytes twice: the default view stays the objects' own bytes).\n",
    specs_of<kOptions>,
    run_answer_to_output<kOptions, answer>,
    render::kTextAndJson | render::kProfileFormats,
};

}  // namespace heapq::cli
