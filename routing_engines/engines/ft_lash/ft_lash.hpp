// ft-lash: LASH (Skeie, Lysne, Theiss: "Layered shortest path (LASH) routing in irregular
// system area networks", the torus base of seed 004 §V-B) as an ftroute engine.
//
// * Shortest paths, topology agnostic: for every destination switch t a BFS over the switch
//   graph; each switch forwards to a neighbour one hop closer to t, ties broken by the fewest
//   routes already given to that link (balance), then the one reached by the lowest port. The
//   LFT of every LID (CA and switch port 0, every LMC LID) follows the tree of its switch, so all
//   paths are minimal and destination-based as InfiniBand needs. A bundle of parallel cables is
//   one link: the LIDs a switch sends over it are dealt round its cables in LID order.
// * Virtual layers: the path of every ordered switch pair (s, t), s != t, goes to the first
//   layer whose channel dependency graph stays acyclic with the path's dependencies added
//   (checked incrementally: one ChannelList per layer, Pearce-Kelly order, ftroute/dqr/channel_list.hpp;
//   a dependency refused alone in a layer is remembered as refused there). A new layer is opened
//   only when no existing one takes the path: as few layers as this greedy order gives, which
//   is what LASH does (pairs in switch order). No balancing over spare VLs afterwards.
//   fill=even: the same pass again over as many layers as it opened, each path to the layer
//   with the fewest paths so far that takes it (layers about equally full; a new one only when
//   none takes the path), for DQR's "every layer searched" (docs/dqr.md "DQR over LASH").
// * path_sl(slid, dlid) = layer of (switch of slid, switch of dlid) (0 on the same switch),
//   SL2VL identity (Routing::sl2vl empty; the plugin programs it with `qos TRUE`),
//   num_vls = layers. A path never changes VL (what DQR's channel list needs).
// * check=true (default): the finished routing is walked through the CDG check (ftroute/cdg.hpp,
//   per VL); a cycle or an undelivered pair is an EngineError (a bug, never expected).
// Options (FtLashEngine::option_specs, ft_lash.cpp): max_vls (more layers needed -> EngineError
// naming the count), check, fill, layers (fill=even over at least that many layers).
#pragma once

#include "ftroute/engine.hpp"

namespace ftroute {

class FtLashEngine : public Engine {
 public:
  static constexpr const char* kName = "ft-lash";
  std::string name() const override { return kName; }
  std::vector<OptionSpec> option_specs() const override;
  using Engine::route;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:
};

}  // namespace ftroute
