// ftroute engines: the routing engines and their options, as each engine declares them
// (OptionSpec: name, range, default, meaning).
#include <cstdio>

#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"

using namespace ftroute;

namespace {

int run_engines(cli::Args& a) {
  const bool json = a.flag("json");
  a.positionals();
  int undocumented = 0;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& info : engines()) {
    nlohmann::json opts = nlohmann::json::array();
    if (!json) std::printf("%-16s %s\n", info.name.c_str(), info.summary.c_str());
    // the engine's OptionSpecs: name, range, default (none: "-", JSON null), meaning
    const auto specs = info.create()->option_specs();
    if (!json) std::printf("%-16s options: %s\n", "", specs.empty() ? "(none)" : "key, default, meaning");
    for (const auto& spec : specs) {
      const std::string range = spec.range();
      std::string meaning = spec.doc;
      if (meaning.empty()) {
        ++undocumented;
        meaning = "(undocumented: give its OptionSpec a doc)";
      }
      if (json) {
        opts.push_back({{"key", spec.name},
                        {"default", spec.def.empty() ? nlohmann::json() : nlohmann::json(spec.def)},
                        {"meaning", meaning},
                        {"range", range.empty() ? nlohmann::json() : nlohmann::json(range)},
                        {"required", spec.required}});
      } else {
        if (!range.empty()) meaning += " [" + range + "]";
        std::printf("%-16s   %-18s %-18s %s\n", "", spec.name.c_str(),
                    spec.required ? "(required)" : spec.def.empty() ? "-" : spec.def.c_str(),
                    meaning.c_str());
      }
    }
    if (json) list.push_back({{"name", info.name}, {"summary", info.summary}, {"options", opts}});
  }
  if (json) {
    nlohmann::json j = cli::json_doc("engines");
    j["engines"] = list;
    std::fputs(cli::dump_json(j).c_str(), stdout);
  }
  if (undocumented) {
    std::fprintf(stderr, "ftroute engines: %d option(s) without a description\n", undocumented);
    return 1;
  }
  return 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(engines, "list routing engines and their options", R"(usage: ftroute engines [--json]

Lists the routing engines and, for each option (`--opt key=value`, or `engine:key=value` in
OpenSM's event_plugin_options), its default and meaning. --json: the same as JSON (docs/JSON.md).
Exit 1 if an engine accepts an option that has no description.)", run_engines);
