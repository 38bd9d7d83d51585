// Small ibsim .net generators for integration tests (text, ibsim 0.10 syntax, links listed on
// both ends). Shipped fabrics live in ibsim_topologies/nets/; these inline ones keep the tests
// independent of them and small enough to run in well under a second in ibsim + OpenSM.
#pragma once

#include <string>
#include <vector>

namespace ftroute::itest {

// k-ary n-tree (Petrini/Vanneschi): n levels of k^(n-1) switches with 2k ports (down 1..k,
// up k+1..2k), k^n single-port HCAs. Switch "L<l>_<w>" (level l, 0 = leaves; w in base k with
// n-1 digits) up port k+1+j links to "L<l+1>_<w'>" (w' = w with digit l set to j), arriving at
// its down port 1 + digit_l(w). HCA "H<p>" attaches to leaf w = p / k, down port 1 + p % k.
// Top-level up ports stay unconnected.
std::string kary_ntree_net(int k, int n);
std::string kary_ntree_switch(int k, int n, int level, int w);  // node id of a switch
std::string kary_ntree_host(int p);                            // node id of an HCA

// Ring of `switches` switches "R<i>": port 1 -> R<i+1> port 2, HCAs "H<i>_<c>" on ports 3...
std::string ring_net(int switches, int hcas_per_switch);

// 2-D torus x*y of switches "T<i>_<j>": ports 1/2 = -x/+x, 3/4 = -y/+y, HCAs on 5...
// (x, y >= 3 so that the neighbours differ).
std::string torus2d_net(int x, int y, int hcas_per_switch);

}  // namespace ftroute::itest
