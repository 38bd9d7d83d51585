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
//   is what LASH does (pairs in switch order); fill=first (default) stops there.
//   fill=even: then, sweep after sweep in switch order, a path moves from its layer to the
//   emptiest one that takes it while that holds at least two fewer paths (a dependency leaves
//   a layer with its last path), until a sweep moves none: the layers end about equally full
//   (within one on the tori tested), as OpenSM's lash balances them; `layers=N` adds empty
//   layers to spread into first (docs/dqr.md "The layers' slack").
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
