// The other balanced topologies of the fail-in-place study (Domke et al., seed 003, Table III):
// undirected Kautz graphs, XGFTs, Dragonflies (1-D flattened butterfly inside and between the
// groups) and random regular switch graphs. Each generator lives in its own file
// (kautz.cpp, xgft.cpp, dragonfly.cpp, random_topology.cpp) and follows the rules of
// topology.hpp: switches first, then the CAs, ibsim's default GUIDs, no LIDs.
//
// Table III of the paper (balanced configuration) and the specs that build it here:
//   Kautz(2,4)           24 switches, 264 HCAs, 288 links, r = 6   kautz:2,4,11,6
//   XGFT(1,22,11)        33 switches, 264 HCAs, 242 links, r = 1   xgft:1,22,11,12
//   Dragonfly(10,5,5,4)  40 switches, 280 HCAs, 276 links, r = 1   dragonfly:10,5,5,4,7
//   Random               32 switches, 256 HCAs, 256 links, r = 1   random:32,16,8,1
// ("links" = switch-to-switch links; r = parallel links per neighbour pair.) The paper spreads
// the HCAs evenly over the switches for every topology except fat trees, hence 7 HCAs per
// Dragonfly router (280 / 40) instead of p = 5 and 12 per XGFT leaf (264 / 22).
//
// Port layout and names:
//  * Kautz(d, k) (Li, Lu, Su; undirected): one switch per string s_1..s_k over the d+1 symbols
//    0..d with s_i != s_i+1, "K<s_1..s_k>" ('.'-separated when d+1 > 10): (d+1) d^(k-1)
//    switches. Every arc s -> s_2..s_k x (x != s_k) of the Kautz digraph becomes r undirected
//    links: ports 1..H hosts "H<s>_<j>", ports H+1+j*r+c the out-arcs (j = rank of x among the
//    symbols != s_k, copy c < r), ports H+d*r+1+j*r+c the in-arcs (j = rank of the predecessor's
//    first symbol among the symbols != s_1). A 2-cycle of the digraph (s -> t -> s) gives 2r
//    links between s and t. Degree 2dr switch ports, d (d+1) d^(k-1) r links.
//  * XGFT(h; m_1..m_h; w_1..w_h) (Ohring et al.): level l = 0..h has
//    prod_{j<=l} w_j * prod_{j>l} m_j switches "X<l>_<digits>" (digits for levels h..1: a_j < m_j
//    above l, b_j < w_j at or below l). Level 0 switches are the leaves with H hosts each
//    ("H<digits>_<j>", ports 1..H); a level-l switch has its m_l children on ports 1..m_l (a_l + 1)
//    and its w_l+1 parents on ports (l ? m_l : H) + 1 + b_l+1. Links sum_l (level-l switches x w_l+1).
//  * Dragonfly(a, p, h, g) with 1-D flattened butterflies: g groups of a routers "D<group>_<i>";
//    every group is a complete graph (router i port H+1+j for the j-th other router in order),
//    every pair of groups is joined by L = floor(a h / (g-1)) global links; router i's k-th global
//    port (k = 0..h-1) is port H+a+k. Which global port goes to which group is the arrangement
//    (the paper, following Kim et al. 2008, does not say; Camarero et al. 2014 and Hastings et al.
//    2015 name the common ones), L (g-1) of the a h global ports of a group are used:
//     - round-robin (the default): the global links are dealt round robin over the pairs
//       (t = 0..L-1, then group pairs in order), and a group's q-th global link (q = 0..a h - 1,
//       in dealing order) sits on router q mod a, port H+a+(q div a): the links of one group pair
//       are spread over all routers, every router has links to every other group (for g - 1 <= a).
//     - consecutive (Kim et al.'s "absolute" arrangement): global port j = i h + k of group x
//       (router i, its k-th global port) goes to the (j div L)-th other group in ascending order,
//       copy j mod L, paired with the same copy of the peer's block for x: the L links to one
//       group sit on consecutive ports, i.e. on about L / h neighbouring routers.
//     - palmtree (the "relative" / palm-tree arrangement): port j of group x goes to group
//       (x + d) mod g, d = (j div L) + 1, copy c = j mod L, paired with port (g - d - 1) L + c of
//       that group (offset g - d leads back to x): consecutive blocks as above, but by offset.
//    Hosts "H<group>_<i>_<j>" on ports 1..H (H = p unless given). Links g a (a-1) / 2 + L g (g-1) / 2.
//  * Random: a simple connected DEGREE-regular graph on SWITCHES switches "R<i>" (the paper
//    gives no construction; ours): a circulant start graph (i ~ i+-1..DEGREE/2, plus i ~ i+N/2
//    for odd DEGREE) is shuffled by 20 x links accepted double-edge swaps (a-b, c-d -> a-d, c-b
//    or a-c, b-d; rejected when they would add a loop or a parallel link) drawn from
//    mt19937_64(SEED) with uniform_index(); while the result is disconnected more swaps follow.
//    Same seed, same graph on every platform. Ports 1..H hosts "H<i>_<j>", ports H+1.. the
//    neighbours in ascending switch order. SWITCHES x DEGREE / 2 links.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute::topo {

struct Kautz {
  int d = 2;                 // degree of the digraph (d + 1 symbols), >= 1
  int k = 4;                 // string length (diameter), >= 1
  int hosts_per_switch = 1;
  int redundancy = 1;        // r: parallel links per arc
};
Fabric kautz(const Kautz& p);

struct Xgft {
  std::vector<int> m;        // m_1..m_h (children per switch at level 1..h; level-0 "children" are hosts)
  std::vector<int> w;        // w_1..w_h (parents per switch at level 0..h-1)
  int hosts_per_leaf = 1;
};
Fabric xgft(const Xgft& p);

enum class DragonflyArrangement { RoundRobin, Consecutive, PalmTree };

struct Dragonfly {
  int a = 4;                 // routers per group
  int p = 2;                 // terminals per router (the default host count)
  int h = 2;                 // global channels per router
  int g = 9;                 // groups
  int hosts_per_switch = -1; // -1: p
  DragonflyArrangement arrangement = DragonflyArrangement::RoundRobin;  // global links (above)
};
Fabric dragonfly(const Dragonfly& q);

// "round-robin", "consecutive", "palmtree" <-> DragonflyArrangement; parse throws OptionError
// naming the three for anything else.
DragonflyArrangement parse_dragonfly_arrangement(const std::string& name);
const char* dragonfly_arrangement_name(DragonflyArrangement a);

struct RandomTopo {
  int switches = 32;
  int degree = 16;
  int hosts_per_switch = 8;
  uint64_t seed = 1;
};
Fabric random_topology(const RandomTopo& q);

// The list of an XGFT spec, "H,M1..MH,W1..WH[,HOSTS]" (xgft:1,22,11,12: the fabric spec's
// kind `xgft`, fabric_spec.cpp); throws OptionError("<what> (xgft:...): ...") when malformed.
Xgft parse_xgft(const std::string& params, const std::string& what);

}  // namespace ftroute::topo
