// KNS ("k-ary n-direct s-indirect") hybrid topology generator, after R. Penaranda's thesis
// (seed 002, Ch 3-4; spec docs/specs/penaranda_kns.md §1).
//
// Mapping of the thesis' elements to InfiniBand (docs/kns.md has the full table):
//  * router <r_{n-1},...,r_0>  -> IB switch "R_<r_{n-1}>_..._<r_0>" with n + p ports:
//        port 1 + d          = the router's (only) link of dimension d,
//        ports n + 1 .. n + p = its p processing nodes (IB HCAs cannot forward, so a KNS router
//                               has to be a switch; the thesis' "router inside a dual-port NIC"
//                               is not realisable on IB).
//  * processing node c of router R -> single-port CA "H_<r_{n-1}>_..._<r_0>_<c>", port 1 to
//        router port n + 1 + c. Node id (XORDET, spec §1.2) = R * p + c, R = sum r_i k^i.
//  * crossbar subnet [d, p] (s = 1) -> IB switch "X_<d>_<p>" with k ports: port 1 + j goes to
//        the router of that line whose coordinate d is j. p = mixed-radix index of the router
//        coordinates without coordinate d (dimension 0 least significant).
//  * fat-tree subnet [d, p] (s > 1, k = k_i^s) -> k_i-ary s-tree of 2k_i-port switches
//        "F_<d>_<p>_<e>_<o>" (stage e, order o), ports 1..k_i down, k_i+1..2k_i up, wired as in
//        spec §1.3 (DESTRO-consistent): router with line coordinate t attaches to down port
//        1 + t_0 of stage-0 switch o = (t_{s-1} .. t_1); up port k_i+1+j of stage-e switch w goes
//        to the stage-(e+1) switch w with digit w_e := j, arriving at its down port 1 + w_e.
//        Top-stage up ports are left unconnected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute {

enum class KnsSubnet : uint8_t { Crossbar, FatTree };

struct KnsParams {
  int k = 4;        // routers per dimension (k_h)
  int n = 2;        // dimensions (n_h)
  int p = 1;        // processing nodes (CAs) per router (p_h)
  KnsSubnet subnet = KnsSubnet::Crossbar;
  int ki = 0;       // fat-tree switch arity (k = ki^s); ignored for crossbars
  // Throws FabricError with the reason when the parameters make no KNS (k < 2, n < 1, p < 1,
  // k not a power of ki, ...) and, with ib_ports, when a switch would need more than 254 ports.
  void validate(bool ib_ports = true) const;
  int stages() const;   // s_h: 1 for crossbars, log_ki(k) for fat trees
  int arity() const { return subnet == KnsSubnet::Crossbar ? k : ki; }   // k_i of Table 4.3
  std::string name() const;   // "4-ary 2-direct 1-indirect (crossbar), p=1"
};

// Sizes counted on the generated IB fabric, and the thesis' closed forms (Table 4.3 / 3.2).
struct KnsSize {
  long nodes = 0;            // processing nodes N = p k^n (= IB CAs)
  long routers = 0;          // k^n (IB switches)
  long subnet_switches = 0;  // crossbars or fat-tree switches
  long ib_switches = 0;      // routers + subnet switches (what ibsim counts against -S)
  long links = 0;            // bidirectional links incl. node links (Table 4.3 "Links")
  long router_links = 0;     // router <-> subnet links (k^n n), the fault population of Ch 6
  long unidir_links = 0;     // Table 3.2 unidirectional links (no node links)
  long ports = 0;            // connected IB ports (2 per link)
  long switching_elements = 0;   // Table 3.2 (d-port switch = d*d; FT uses 4 m n k_i form)
  int router_ports = 0;      // n + p
  int subnet_switch_ports = 0;
  int diameter = 0;          // router-to-router links: 2n (crossbar), 2 s n (fat tree)
  int switch_hops_diameter = 0;  // longest CA-to-CA path counted in switches traversed
};

// Sizes from the thesis' formulas only (no fabric is built, no IB port limit); works for the
// thesis' 64K-node configurations.
KnsSize kns_formula_size(const KnsParams& params);
// Sizes counted on a generated fabric.
KnsSize kns_count_size(const KnsParams& params, const Fabric& fabric);

struct KnsGenLimits {
  int max_switches = 256;    // ibsim default -S
  int max_nodes = 2048;      // ibsim default -N (switches + CAs)
};

// Builds the fabric (GUIDs assigned the ibsim way, LIDs assigned with `lmc`, switches first).
// Throws FabricError when the parameters are invalid or the fabric exceeds `limits`
// (pass limits with large values to build bigger fabrics for offline study) or the LID space.
Fabric make_kns(const KnsParams& params, uint8_t lmc = 0, const KnsGenLimits& limits = {});

// Names used by the generator (recognition never relies on them).
std::string kns_router_name(const KnsParams& params, const std::vector<int>& coords);
std::string kns_host_name(const KnsParams& params, const std::vector<int>& coords, int c);

}  // namespace ftroute
