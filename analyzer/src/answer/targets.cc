#include "heapq/targets.h"

#include <charconv>

namespace heapq {

Result<Target> find_target(const HeapGraph& g, const std::string& spec, const std::string& path) {
  Target t;
  t.label = spec;
  if (spec.starts_with("0x") || spec.starts_with("0X")) {
    uint64_t address = 0;
    const char* first = spec.data() + 2;
    const char* last = spec.data() + spec.size();
    auto [end, ec] = std::from_chars(first, last, address, 16);
    if (first == last || ec != std::errc() || end != last)
      return usage_error("\"" + spec + "\" is not a hex address");
    auto o = g.find(address);
    if (!o) return usage_error("no object at " + spec + " in " + path);
    t.object = *o;
    return t;
  }
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (g.class_name(g.class_of(ObjectId(i))) == spec) t.instances.push_back(ObjectId(i));
  if (t.instances.empty())
    return usage_error("no instances of " + spec + " in " + path +
                       " (TARGET is an address 0x... or a class name as heapq stats shows it)");
  return t;
}

}  // namespace heapq
