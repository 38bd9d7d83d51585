// Topology generators (return a Fabric with ibsim's default GUIDs, no LIDs) and fault injection.
//
// Every generator adds all switches first, then the CAs, so write_net() lists nodes in Fabric
// order and ibsim assigns exactly the GUIDs Fabric::assign_default_guids() gave (switches from
// 0x200000, CAs from 0x100000 with port GUID = node GUID + 1). A faulty variant keeps the GUIDs
// of the intact fabric (write_net() emits switchguid=/caguid= where nodes were removed), so the
// same switch has the same GUID in the intact and the faulty fabric.
//
// Node naming (ids are ibsim node ids; digits are written most significant first; when the
// base is above 10 the digits are decimal numbers separated by '.'):
//  * k-ary n-tree (Petrini/Vanneschi, stage 0 = leaves, stage n-1 = top): switch "S<l>_<w>" with
//    w = n-1 base-k digits w_{n-2}..w_0, host "H<p>" with p = n base-k digits p_{n-1}..p_0.
//    Host p hangs off leaf S0_<p div k> at port (p mod k) + 1. Switch (w, l) has down ports 1..k
//    and up ports k+1..2k; up port k+1+u goes to (w with digit w_l replaced by u, l+1), arriving
//    on its down port w_l + 1. So (w, l) and (w', l+1) are linked iff w and w' differ at most in
//    digit l. Top-stage switches keep ports k+1..2k free (radix 2k everywhere).
//    Counts: n*k^(n-1) switches, k^n hosts, k^n host links, (n-1)*k^n switch links.
//  * two-level fat tree: leaves "L<i>", spines "S<j>", hosts "H<i>_<h>". Leaf ports 1..hpl go to
//    its hosts, port hpl + 1 + j*m + c (c < m = links per pair) goes to spine j port i*m + c + 1.
//  * three-level fat tree (radix r, h = r/2, p pods): per pod h leaves "L<pod>_<i>" and h
//    aggregation switches "A<pod>_<a>", h*h core switches "C<a>_<c>". Leaf ports 1..h hosts
//    "H<pod>_<i>_<x>", leaf port h+1+a -> A<pod>_<a> port i+1, A<pod>_<a> port h+1+c ->
//    C<a>_<c> port pod+1. p = r gives r^3/4 hosts (11664 for r = 36), 5r^2/4 switches.
//  * mesh / torus (any number of dimensions, sizes >= 2): switch "S<x0>_<x1>[_<x2>...]" (x0 is
//    the first dimension), host "H<x0>_<x1>..._<j>". Ports 1..hps are hosts; dimension d uses
//    port hps+1+2d towards +1 and hps+2+2d towards -1 (torus wraps; a torus dimension of size 2
//    gives two parallel links). A 1-D torus is a ring.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute::topo {

// Checked by every generator before it builds anything (so a huge request fails at once):
// at most 200,000 nodes, switches + CA ports x 2^lmc <= 49,151 unicast LIDs, and CA GUIDs
// (0x100000 + (ports + 1) per CA, ibsim's numbering) below the switch GUIDs at 0x200000.
// Throws OptionError("<what>: too large: N nodes, limit M") (or LIDs / GUIDs).
void check_generated_size(const std::string& what, uint64_t switches, uint64_t cas, int ca_ports = 1, int lmc = 0);

// k-ary n-tree: k >= 2, n >= 1, k^n hosts, 2k <= kMaxPorts.
Fabric kary_ntree(int k, int n);

struct FatTree2 {
  int leaves = 36;
  int spines = 18;
  int hosts_per_leaf = 18;
  int links_per_pair = 1;
  int radix = 0;  // 0: the smallest radix that fits both leaves and spines
};
Fabric fat_tree2(const FatTree2& p);
// The classic 648-port two-level tree of 36-port switches: 36 leaves x 18 hosts, 18 spines.
inline Fabric fat_tree648() { return fat_tree2({36, 18, 18, 1, 36}); }

// Three-level folded Clos of radix-r switches (r even), `pods` pods (0 = r, the maximum).
Fabric fat_tree3(int radix = 36, int pods = 0);

struct Grid {
  std::vector<int> dims;     // e.g. {4, 4} or {4, 4, 4}; every size >= 2
  bool torus = false;
  int hosts_per_switch = 1;
  int radix = 0;             // 0: hosts_per_switch + 2 * links * dims.size()
  // Parallel cables between every pair of neighbour switches (seed 003's grids fill the radix:
  // torus:5x5,11,links=6). Ports: hosts 1..H, then per dimension d the +d cables on
  // H+1+2dL .. H+L+2dL and the -d cables on H+L+1+2dL .. H+2L+2dL (L = links); links = 1 is
  // the classic one-cable layout (+d on H+1+2d, -d on H+2+2d). A ring of 2 switches gets
  // its pair cabled twice (once as +d, once as the wrap-around), 2L cables, as with L = 1.
  int links = 1;
};
Fabric grid(const Grid& g);
// "4x4x4" -> {4, 4, 4}; throws OptionError on malformed text.
std::vector<int> parse_dims(const std::string& text);

// ---- fault injection ----
struct FaultSpec {
  std::vector<std::string> remove_links;  // "\"S0_00\"[3]" (or S0_00[3]): the link at that port
  int random_links = 0;                   // number of random links to remove
  int random_switches = 0;                // number of random switches to fail
  uint64_t seed = 1;
  bool keep_connected = false;            // reject random draws that disconnect the fabric
  bool host_links = false;                // random links may also be switch-CA links
};

struct FaultReport {
  std::vector<std::string> links;     // removed links as "\"A\"[p] - \"B\"[q]" in removal order
  std::vector<std::string> switches;  // failed switch ids in failure order
  std::vector<std::string> hosts;     // CAs dropped because all their links went to failed switches
  std::string summary() const;        // multi-line text for a .net header comment
};

// Applies the faults in this order: named links, random switches, random links.
// A failed switch is removed from the fabric with its links; CAs left without any link are
// removed too (a dead leaf takes its hosts with it). Node order and GUIDs of the survivors are
// kept. Random choices use std::mt19937_64(seed) and uniform_index(), so the result is the same
// on every platform. With keep_connected a candidate whose removal disconnects the remaining
// fabric is put back and never drawn again; if too few candidates remain, throws FabricError.
// Named links that do not exist throw FabricError naming the port.
FaultReport inject_faults(Fabric& f, const FaultSpec& spec);

// Uniform integer in [0, n) from a mt19937_64 by rejection (no std::uniform_int_distribution,
// whose output differs between standard libraries). n >= 1.
uint64_t uniform_index(std::mt19937_64& g, uint64_t n);

// ---- shipped .net files (ibsim_topologies/nets) ----
struct ShippedNet {
  std::string file;     // e.g. "4ary3tree.net"
  std::string comment;  // header comment (how it was generated)
  Fabric (*make)(std::string* notes);  // notes: fault summary for the header (may be null)
};
const std::vector<ShippedNet>& shipped_nets();
// The exact text of a shipped file: write_net(make(), {comment + fault summary}).
std::string shipped_net_text(const ShippedNet& n);

}  // namespace ftroute::topo
