// kns: Hybrid-DOR routing for k-ary n-direct s-indirect KNS fabrics (crossbar subnets, or
// complete k_i-ary s-tree fat-tree subnets routed with DESTRO, spec §1.3/§4.4.2) with
// intermediate-router fault tolerance and XORDET destination classes (seed 002, Penaranda;
// spec docs/specs/penaranda_kns.md; docs/kns.md describes the IB mapping).
//
// Recognition (recognize_kns): from the discovered graph only (never from names):
//  * routers = switches with at least one CA; the other switches form the subnets (connected
//    components): one switch = a crossbar, more = a fat-tree subnet that must be a complete
//    k_i-ary s-tree of 2k_i-port switches wired as docs/kns.md says (ports 1..k_i down); its
//    switches' stages/labels and the routers' coordinates come from the port numbers;
//  * cabling convention (the generator's, spec §6.3): router port 1 + d is its dimension-d
//    link, router ports above n are hosts; crossbar port 1 + j goes to the router whose
//    coordinate in the crossbar's dimension is j. The crossbar's dimension is the router port
//    its links arrive on; a router's coordinate d is the crossbar port it is cabled to (or, when
//    that link is down, the coordinate shared with its line-mates in other dimensions);
//  * n = highest router port cabled to a switch, k = highest crossbar port cabled to a router
//    (options n=, k= pin them). Every check that fails throws EngineError naming the switch
//    and port that break the shape. Missing links and missing crossbars are faults; a missing
//    router is an error (the thesis does not support router faults).
//
// Routing: for every destination switch an IN tree (kns_model.hpp build_tree): Hybrid-DOR where
// the DOR path works, otherwise DOR legs through intermediate routers. LMC > 0 (lmc_alt=1, the
// default): when the base tree serves some source router with more than max_in intermediate
// routers, the CA's extra LIDs carry alternative trees that serve those sources within max_in
// (kns::build_lid_trees; preferred_dlid() tells which DLID a source uses); other extra LIDs reuse
// the base tree. Each (source, DLID) path gets an SL = layer * classes + class:
// layer 0 = paths without intermediate routers (pure DOR, acyclic), paths with intermediate
// routers go to layers 1, 2, ... chosen so every layer's channel dependency graph stays acyclic
// (identity SL2VL, VL = SL). class = XORDET class of the destination node id (xordet=1).
//
// Options (KnsEngine::option_specs, kns.cpp): max_in, lmc_alt, switch_sources (false: paths
// from subnet switches only use VL layers the CA traffic needs; true: all of them get an acyclic
// layer, possibly more VLs), xordet, vls (classes, a power of 2), max_vls (VL budget), k, n
// (expected shape).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ftroute/engine.hpp"
#include "ftroute/kns/kns_model.hpp"

namespace ftroute {

struct KnsShape {
  int k = 0, n = 0, p = 0;            // p = host ports per router (num_ports - n, max)
  int ki = 0, s = 1;                  // fat-tree subnets: k = ki^s (ki = 0: crossbar subnets)
  std::vector<int> ft_stage, ft_label; // fat-tree switches: stage e and label w (-1 otherwise)
  kns::Model model;                   // faults filled in from missing links/crossbars
  std::vector<int> router_node;       // R -> fabric node
  std::vector<int> xbar_node;         // d * lines + line -> fabric node, -1 = absent (dead)
  std::vector<long> node_model;       // fabric node -> model node id, -1 for CAs
  std::vector<std::string> faults;    // human-readable list of detected faults
};

// Throws EngineError("kns", reason) when the fabric is not a KNS with crossbar or fat-tree subnets.
KnsShape recognize_kns(const Fabric& fabric, int expect_k = 0, int expect_n = 0);

class KnsEngine : public Engine {
 public:
  static constexpr const char* kName = "kns";
  std::string name() const override { return kName; }
  std::vector<OptionSpec> option_specs() const override;
  using Engine::route;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:
  // After route(): the DLID a CA source (slid) should use to reach the CA owning dlid, i.e. that
  // CA's base LID + the LMC offset of the tree serving the source's router within max_in
  // intermediate routers (= dlid's base LID unless the base tree needs too many). The value is
  // only meaningful for the fabric last routed; it returns dlid for switch LIDs/unknown LIDs.
  Lid preferred_dlid(Lid slid, Lid dlid) const { return dlid_choice_ ? dlid_choice_(slid, dlid) : dlid; }

 private:
  std::function<Lid(Lid, Lid)> dlid_choice_;
};

}  // namespace ftroute
