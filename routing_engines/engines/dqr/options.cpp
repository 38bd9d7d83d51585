// DQR options: one parser for the engine's options (dqr_options_from: paths, turns, plugin,
// layers, tlr, switch_sources, search_bound) and `ftroute dqr-eval`'s variant names (dqr_variant:
// e2e|local|mesh - all|single, [mesh-]tlr[-single|-all], translated into the same engine options), and the names back.
#include "ftroute/dqr.hpp"

namespace ftroute {

std::string DqrOptions::variant_name() const {
  std::string s = mesh_plugin ? "mesh" : (paths == Paths::Local ? "local" : "e2e");
  if (tlr) s = mesh_plugin ? "mesh-tlr" : "tlr";
  if ((mesh_plugin || tlr) && paths == Paths::EndToEnd) s += "-e2e";
  // tlr's own name means single turns for the flows' paths (the paper's tlr)
  if (tlr) return s + (turns == Turns::All ? "-all" : "") + (layers == Layers::All ? "-layers" : "");
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
  d.tlr = o.get_bool("tlr", false);
  d.switch_sources = o.get_bool("switch_sources", false);
  d.search_bound = o.get_bool("search_bound", true);
  return d;
}

DqrOptions dqr_variant(const std::string& variant) {
  // [mesh-]tlr[-single|-all], or (e2e|local|mesh)-(all|single)
  const std::string bad = "unknown variant '" + variant + "' (use e2e|local|mesh - all|single, or [mesh-]tlr[-single|-all])";
  EngineOptions o;
  std::string rest = variant;
  auto take = [&](const std::string& prefix) {
    if (rest.rfind(prefix, 0) != 0) return false;
    rest = rest.substr(prefix.size());
    return true;
  };
  if (take("mesh-tlr") || take("tlr")) {
    o.set("plugin", variant.rfind("mesh", 0) == 0 ? "mesh" : "none");
    o.set("paths", "local");
    o.set("tlr", "true");
    if (rest.empty() || rest == "-single") o.set("turns", "single");
    else if (rest == "-all") o.set("turns", "all");
    else throw OptionError(bad);
    return dqr_options_from(o, false);
  }
  const auto dash = variant.find('-');
  const std::string p = variant.substr(0, dash), t = dash == std::string::npos ? "" : variant.substr(dash + 1);
  if (p == "mesh") o.set("plugin", "mesh"), o.set("paths", "local");
  else if (p == "local" || p == "e2e") o.set("plugin", "none"), o.set("paths", p);
  else throw OptionError(bad);
  if (t == "all" || t == "single") o.set("turns", t);
  else throw OptionError(bad);
  return dqr_options_from(o, false);
}

}  // namespace ftroute
