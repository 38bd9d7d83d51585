// Fat-tree recognition from the discovered graph (never from node names), for ftree-misroute.
//
// Rules (see docs/ftree-misroute.md "Recognition"):
//  R1 leaf switches are the switches with at least one CA/router attached; there must be one.
//  R2 rank(s) = BFS distance (over working switch-switch links) from the nearest leaf switch.
//     Every switch must get a rank (else: switch not connected to any leaf -> error).
//  R3 every switch-switch link joins ranks r and r+1 (BFS guarantees |diff| <= 1); a link
//     between two switches of equal rank is rejected. This catches hosts on non-leaf
//     switches (the spine becomes rank 0 next to rank-0 leaves), meshes, tori and rings.
//     The port towards rank r+1 is an up-port, towards r-1 a down-port.
//  R4 blocks: block_r(s) = connected component of s in the subgraph of switches of rank <= r.
//     In a (faulty) fat tree these are the sub-trees (groups / pods). A switch s of rank r >= 1
//     must reach each block of rank r-1 through ONE child switch (parallel cables allowed);
//     reaching the same sub-tree through two different child switches is the signature of a
//     mesh/torus/irregular graph and is rejected naming both ports.
//  Missing links (faults) are tolerated as long as R1-R4 hold: a switch that reaches fewer
//  sub-trees than the widest switch of its block, or has fewer up-links than the widest switch
//  of its rank, is counted as having missing links. A switch that lost ALL its down-links is
//  re-ranked by the BFS (it sits above its former parents) and then violates R3/R4: rejected.
//  k-ary n-tree parameters are reported when the counts fit (k^(n-1) switches per rank,
//  degrees <= k); otherwise the tree is reported as a generic h-level fat tree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute {

struct FatTreeLink {
  uint8_t port = 0;  // local port
  int peer = -1;     // peer switch, dense switch index (see FatTree::sw_node)
  uint8_t peer_port = 0;
};

struct FatTree {
  int height = 0;                       // highest rank (levels = height + 1)
  std::vector<int> sw_node;             // dense switch index -> fabric node index
  std::vector<int> sw_index;            // fabric node index -> dense switch index (-1 = not a switch)
  std::vector<int> rank;                // by dense switch index
  std::vector<std::vector<FatTreeLink>> up, down;  // by dense switch index, sorted by port
  std::vector<std::vector<int>> by_rank;           // dense switch indices per rank
  std::vector<std::vector<int>> block;  // block[r][sw] = block id at rank r (-1 if rank(sw) > r)
  std::vector<int> num_blocks;          // per rank
  std::vector<int> leaves;              // dense indices of CA-attached switches (rank 0)
  std::vector<int> hosts_per_switch;    // CA/router ports attached, by dense index
  int num_hosts = 0;                    // CA/router ports attached to switches
  int missing_links = 0;                // inferred missing switch-switch links (faults)
  int k = 0, n = 0;                     // k-ary n-tree parameters, 0 if the shape does not fit
  std::string shape;                    // human-readable description

  int num_switches() const { return static_cast<int>(sw_node.size()); }
};

// Recognises the fat tree or throws EngineError(engine, reason) naming a switch/port.
FatTree recognize_fat_tree(const Fabric& fabric, const std::string& engine = "ftree-misroute");

}  // namespace ftroute
