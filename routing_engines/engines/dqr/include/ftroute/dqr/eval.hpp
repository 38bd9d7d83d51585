// The DQR evaluation (seed 004 §V, Figs. 3-4 and the rerouted fraction; `ftroute dqr-eval`):
// successive random link faults on DOR-routed n x n meshes (and tori, and the 648-port fat tree),
// DQR after each fault, the probability of a connected and deadlock-free result per variant.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ftroute/dqr/dqr.hpp"

namespace ftroute {

struct DqrEvalOptions {
  std::vector<DqrOptions> variants;         // e.g. dqr_variant("mesh-all")
  std::vector<std::pair<int, bool>> sizes;  // (side, torus?) in order
  // Lft: DQR on InfiniBand's destination-based tables (the implementation); Flow: the paper's
  // per-flow model (every source/destination switch pair its own path and layer; variants
  // without the mesh plug-in and tlr only); Both: each variant in both models, side by side.
  enum class Model { Lft, Flow, Both };
  Model model = Model::Lft;
  std::string base = "ft-dor";               // engine routing the meshes and tori (ft-dor, ft-lash)
  EngineOptions base_options;               // its options (ft-lash fill=even); none by default
  bool layer_moves = false;                 // multi-layer fabrics: each variant also with layers=all
  int faults = 10, runs = 50;
  uint64_t seed = 1;
  bool fattree = false;                     // the 648-port 2-level fat tree too (runs/5 runs)
  int fattree_faults = 3;
  std::string fattree_engine = "ftree-misroute";
};

// The markdown tables of docs/dqr.md; progress lines go to stderr.
std::string dqr_eval(const DqrEvalOptions& options);

// The flow model's path of one flow (--model flow): the links (switch, output port) the LFTs take
// for DLID dl from switch s until switch t, walked by walk_path() (ftroute/route_walk.hpp).
// Throws Error "dqr-eval --model flow: the base routing does not deliver S -> T" when the route
// stops (no route, port 0, a bad or down port, a CA), loops or passes t by.
std::vector<std::pair<int, uint8_t>> dqr_flow_path(const Fabric& f, const Lfts& lfts, int s, int t, Lid dl);

}  // namespace ftroute
