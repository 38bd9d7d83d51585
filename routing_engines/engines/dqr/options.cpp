// DQR options: one parser for the engine's options (dqr_options_from: paths, turns, plugin,
// layers, tlr, switch_sources, search_bound) and `ftroute dqr-eval`'s variant names (dqr_variant:
// e2e|local|mesh - all|single, [mesh-]tlr[-e2e][-single|-all], translated into the same engine options), and the names back.
#include "ftroute/dqr/dqr.hpp"

namespace ftroute {

std::string DqrOptions::variant_name() const {
  std::string s = mesh_plugin ? "mesh" : (paths == Paths::Local ? "local" : "e2e");
  if (tlr) s = mesh_plugin ? "mesh-tlr" : "tlr";
  if ((mesh_plugin || tlr) && paths == Paths::EndToEnd) s += "-e2e";
  // tlr's own name means single turns for the flows' paths (the paper's tlr)
  if (tlr) return s + (turns == Turns::All ? "-all" : "") + (layers == Layers::All ? "-layers" : "");
  return s + (turns == Turns::All ? "-all" : "-single") + (layers == Layers::All ? "-layers" : "");
}

std::vector<OptionSpec> dqr_option_specs() {
  using S = OptionSpec;
  return {
      S::text("base", "", "engine for the first routing and full re-routes (default: ft-dor on meshes and tori, "
                          "ftree-misroute on fat trees, else ft-minhop)"),
      S::prefix("base.*", "options passed to the base engine (base.max_vls=4, ...)"),
      S::choice("paths", {"local", "e2e", "end-to-end"}, "local", "local = repair near the fault ends first; e2e = every affected switch"),
      S::choice("turns", {"all", "single"}, "all", "all = check a path's dependencies jointly; single = one at a time"),
      S::choice("plugin", {"auto", "mesh", "none"}, "auto", "mesh turn-model plugin: auto (meshes), mesh, none"),
      S::choice("layers", {"same", "all"}, "same", "same = keep path SLs; all = move flows to another virtual layer if needed"),
      S::boolean("tlr", "false", "turn local reroute: all turns of the local reroute path (the paper's tlr; plugin=mesh: mesh-tlr)"),
      S::boolean("switch_sources", "false", "switch-sourced traffic is deadlock-checked too"),
      S::boolean("search_bound", "true", "lower bound that cuts long path searches"),
      S::boolean("fallback", "true", "full CDG-checked re-route of the base engine when patching fails"),
      S::boolean("precompute", "true", "build the channel list in the background after each sweep"),
      S::boolean("staged", "true", "plugin: apply the repair stage by stage (false: OpenSM sends it at once)"),
      S::integer("drain_ms", 0, 60000, "", "plugin: wait between stages (default: from packet_life_time / HOQ lifetimes)"),
      S::integer("ack_timeout_ms", 100, 600000, "",
                 "plugin: longest wait for a stage's LFT answers (default: from transaction_timeout, at least 2000)"),
      S::text("stage_dump", "", "plugin: write the acknowledged tables after each stage to DIR/stage-K.dump"),
      S::choice("stages", {"packed", "hops"}, "packed", "plugin: packed = every LID's k-th group in stage k; hops = one stage per hop count"),
  };
}

DqrOptions dqr_options_from(const EngineOptions& o, bool mesh_recognised) {
  DqrOptions d;
  const std::vector<OptionSpec> specs = dqr_option_specs();
  auto spec = [&](const char* key) -> const OptionSpec& { return find_option_spec(specs, key); };
  std::string paths = o.get(spec("paths"));
  if (paths == "local") d.paths = DqrOptions::Paths::Local;
  else if (paths == "e2e" || paths == "end-to-end") d.paths = DqrOptions::Paths::EndToEnd;
  else throw OptionError("option paths=" + paths + " for engine 'dqr': expected local or e2e");
  std::string turns = o.get(spec("turns"));
  if (turns == "all") d.turns = DqrOptions::Turns::All;
  else if (turns == "single") d.turns = DqrOptions::Turns::Single;
  else throw OptionError("option turns=" + turns + " for engine 'dqr': expected single or all");
  std::string plugin = o.get(spec("plugin"));
  if (plugin == "auto") d.mesh_plugin = mesh_recognised;
  else if (plugin == "mesh") d.mesh_plugin = true;
  else if (plugin == "none") d.mesh_plugin = false;
  else throw OptionError("option plugin=" + plugin + " for engine 'dqr': expected auto, mesh or none");
  std::string layers = o.get(spec("layers"));
  if (layers == "same") d.layers = DqrOptions::Layers::Same;
  else if (layers == "all") d.layers = DqrOptions::Layers::All;
  else throw OptionError("option layers=" + layers + " for engine 'dqr': expected same or all");
  d.tlr = o.get_bool(spec("tlr"));
  d.switch_sources = o.get_bool(spec("switch_sources"));
  d.search_bound = o.get_bool(spec("search_bound"));
  return d;
}

DqrOptions dqr_variant(const std::string& variant) {
  // [mesh-]tlr[-e2e][-single|-all], or (e2e|local|mesh)-(all|single)
  const std::string bad =
      "unknown variant '" + variant + "' (use e2e|local|mesh - all|single, or [mesh-]tlr[-e2e][-single|-all])";
  EngineOptions o;
  std::string rest = variant;
  auto take = [&](const std::string& prefix) {
    if (rest.rfind(prefix, 0) != 0) return false;
    rest = rest.substr(prefix.size());
    return true;
  };
  if (take("mesh-tlr") || take("tlr")) {
    o.set("plugin", variant.rfind("mesh", 0) == 0 ? "mesh" : "none");
    o.set("paths", take("-e2e") ? "e2e" : "local");
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
