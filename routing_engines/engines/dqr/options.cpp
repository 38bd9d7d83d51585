// DQR options: one parser for the engine's options (dqr_options_from: paths, turns, plugin,
// layers, switch_sources, search_bound) and `ftroute dqr-eval`'s variant names (dqr_variant:
// e2e|local|mesh - all|single, translated into the same engine options), and the names back.
#include "ftroute/dqr.hpp"

namespace ftroute {

std::string DqrOptions::variant_name() const {
  std::string s = mesh_plugin ? "mesh" : (paths == Paths::Local ? "local" : "e2e");
  if (mesh_plugin && paths == Paths::EndToEnd) s += "-e2e";
  return s + (turns == Turns::All ? "-all" : "-single") + (layers == Layers::All ? "-layers" : "");
}

DqrOptions dqr_options_from(const EngineOptions& o, bool mesh_recognised) {
  DqrOptions d;
  std::string paths = o.get("paths", "local");
  if (paths == "local") d.paths = DqrOptions::Paths::Local;
  else if (paths == "e2e" || paths == "end-to-end") d.paths = DqrOptions::Paths::EndToEnd;
  else throw OptionError("option paths=" + paths + " for engine 'dqr': expected local or e2e");
  std::string turns = o.get("turns", "all");
  if (turns == "all") d.turns = DqrOptions::Turns::All;
  else if (turns == "single") d.turns = DqrOptions::Turns::Single;
  else throw OptionError("option turns=" + turns + " for engine 'dqr': expected single or all");
  std::string plugin = o.get("plugin", "auto");
  if (plugin == "auto") d.mesh_plugin = mesh_recognised;
  else if (plugin == "mesh") d.mesh_plugin = true;
  else if (plugin == "none") d.mesh_plugin = false;
  else throw OptionError("option plugin=" + plugin + " for engine 'dqr': expected auto, mesh or none");
  std::string layers = o.get("layers", "same");
  if (layers == "same") d.layers = DqrOptions::Layers::Same;
  else if (layers == "all") d.layers = DqrOptions::Layers::All;
  else throw OptionError("option layers=" + layers + " for engine 'dqr': expected same or all");
  d.switch_sources = o.get_bool("switch_sources", false);
  d.search_bound = o.get_bool("search_bound", true);
  return d;
}

DqrOptions dqr_variant(const std::string& variant) {
  const auto dash = variant.find('-');
  const std::string p = variant.substr(0, dash), t = dash == std::string::npos ? "" : variant.substr(dash + 1);
  const std::string bad = "unknown variant '" + variant + "' (use e2e|local|mesh - all|single)";
  EngineOptions o;
  if (p == "mesh") o.set("plugin", "mesh"), o.set("paths", "local");
  else if (p == "local" || p == "e2e") o.set("plugin", "none"), o.set("paths", p);
  else throw OptionError(bad);
  if (t == "all" || t == "single") o.set("turns", t);
  else throw OptionError(bad);
  return dqr_options_from(o, false);
}

}  // namespace ftroute
