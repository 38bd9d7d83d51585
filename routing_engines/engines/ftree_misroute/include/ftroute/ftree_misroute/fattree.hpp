// Fat-tree recognition from the discovered graph (never from node names), for ftree-misroute.
//
// Rules (see docs/ftree-misroute.md "Recognition"):
//  R1 leaf switches are the switches with at least one CA/router attached (compute hosts: CAs
//     not named in io_guids); there must be one. Two refinements make real clusters fat trees:
//     * hosts on an upper level: a CA-attached switch linked to CA-attached switches, more of
//       them than each of those has (a spine/aggregation switch with storage or gateways), is no
//       leaf; repeated until no such switch is left (ties, as in rings and tori, stay and fail R3);
//     * empty leaves: a switch with no CA that the BFS puts at rank 2 with all its neighbours at
//       rank 1, and that reaches one sub-tree through two switches (R4), is a leaf with 0 hosts.
//     With root_guids (OpenSM ftree's root_guid_file) ranks come from the top instead:
//     rank = H - distance from the nearest root, leaves are the switches at the largest distance.
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
  std::vector<int> leaves;              // dense indices of rank-0 switches (empty leaves included)
  std::vector<int> hosted;              // dense indices of CA-attached switches (any rank)
  std::vector<int> hosts_per_switch;    // CA/router ports attached, by dense index
  int num_hosts = 0;                    // CA/router ports attached to switches (aggregation nodes not counted)
  // Some switch joins sub-trees and reaches one of them through several child switches (a
  // generalised fat tree: cores cabled to several spines of each pod). Routes from a sub-tree of
  // the valley chain to a destination inside it then stay inside it (see ftree_misroute.cpp).
  bool multi_child = false;
  int num_aggregation_nodes = 0;        // SHARP ANs (is_aggregation_node): destinations of their switch, no leaf
  int missing_links = 0;                // inferred missing switch-switch links (faults)
  int k = 0, n = 0;                     // k-ary n-tree parameters, 0 if the shape does not fit
  std::string shape;                    // human-readable description

  int num_switches() const { return static_cast<int>(sw_node.size()); }
};

// Hints for ambiguous graphs, the way OpenSM's ftree takes them (root_guid_file, io_guid_file).
struct RankHints {
  std::vector<uint64_t> root_guids;  // switch node GUIDs of the top rank (absent ones are ignored)
  std::vector<uint64_t> io_guids;    // CA node or port GUIDs of I/O nodes: their switches are no leaves
};

// Recognises the fat tree or throws EngineError(engine, reason) naming a switch/port. With
// `partial`, what was recognised up to the failing rule (ranks, links, blocks as far as they got)
// is stored there before the throw, for `ftroute show-tree`.
FatTree recognize_fat_tree(const Fabric& fabric, const std::string& engine = "ftree-misroute",
                           const RankHints& hints = {}, FatTree* partial = nullptr);

// What the recognition found, for people (`ftroute show-tree`, the engine's --explain): the
// shape, per rank the switch count with and without hosts and a few names, the sub-trees
// (pods), upper-level hosts, aggregation nodes, dead ends hanging off one switch, and the
// switches with fewer links than their rank's widest (missing cables). Names are escaped.
std::string explain_fat_tree(const Fabric& fabric, const FatTree& t, int max_names = 6);

// A GUID file as OpenSM reads root_guid_file / io_guid_file: one GUID per line (hex, 0x
// optional), '#' comments and blank lines ignored. Throws ParseError naming file:line.
std::vector<uint64_t> read_guid_file(const std::string& path);

}  // namespace ftroute
