// The list of every routing engine compiled into ftroute. Each paper's algorithm lives in
// its own folder under routing_engines/engines/; this file only
// names them so the CLI and the OpenSM plugin can offer them.
#include <string>

#include "ftroute/registry.hpp"
#include "ftdrb/ftdrb.hpp"
#include "minhop/minhop.hpp"
#include "dor/dor.hpp"
#include "ft_lash/ft_lash.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftree_misroute/ftree_misroute.hpp"
#include "kns/kns.hpp"
#include "lft_file/lft_file.hpp"

namespace ftroute {

const std::vector<EngineInfo>& engines() {
  static const std::vector<EngineInfo> list = {
      // {"name", "summary", [] { return std::make_unique<SomeEngine>(); }},
      {"ftdrb", "FT-DRB multipath: one LID per path through intermediate switches (LMC), VL layers (seed 000)",
       [] { return std::make_unique<FtDrbEngine>(); }},
      {"kns", "KNS hybrid topology: Hybrid-DOR, intermediate-router fault tolerance, XORDET classes (seed 002)",
       [] { return std::make_unique<KnsEngine>(); }},
      {"ftree-misroute", "fat-tree d-mod-k up/down routing with static misrouting around link faults, one VL (seed 001)",
       [] { return std::make_unique<FtreeMisrouteEngine>(); }},
      {"ft-dor", "dimension-order (XY/XYZ) routing for full 2-D/3-D meshes (one VL) and tori (E-cube, 2^dims virtual layers; reference for DQR)",
       [] { return std::make_unique<DorEngine>(); }},
      {"ft-lash", "LASH: shortest paths packed into as few virtual layers as keep each layer's CDG acyclic (topology agnostic; DQR's torus base, seed 004)",
       [] { return std::make_unique<FtLashEngine>(); }},
      {"dqr", "DQR: patch the previous routing after link faults via the channel list, else base engine (seed 004)",
       [] { return std::make_unique<DqrEngine>(&make_engine); }},
      {"ft-minhop", "min-hop routing balanced by per-port route counters (reference engine)",
       [] { return std::make_unique<MinHopEngine>(); }},
      {"lft-file", "a routing read from an LFT dump (opensm-lfts.dump, dump_fts) and optional path-SL/SL2VL files, "
                   "e.g. another engine's tables as DQR's base",
       [] { return std::make_unique<LftFileEngine>(); }},
  };
  return list;
}

const EngineInfo* find_engine(const std::string& name) {
  for (const auto& e : engines())
    if (e.name == name) return &e;
  return nullptr;
}

std::unique_ptr<Engine> make_engine(const std::string& name) {
  if (const EngineInfo* e = find_engine(name)) return e->create();
  std::string known;
  for (const auto& e : engines()) known += (known.empty() ? "" : ", ") + e.name;
  throw OptionError("unknown engine '" + name + "' (known: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace ftroute
