// Fat trees cabled the way real clusters are (issue 16): per-leaf host counts (empty leaves),
// parallel cables per leaf-spine pair, blocking ratios, pods of different sizes, partly built core
// levels, dual-rail (2-port) HCAs on two leaves, hosts on spine/aggregation/core switches, mixed
// switch radices. One spec text serves `ftroute gen ctree --spec ...` (or one --KEY VALUE per key)
// and `ftroute campaign --gen ctree:...`; the same spec always gives the same fabric.
//
// Spec: comma-separated KEY=VALUE (values never contain ','). Lists use '/', "N*R" repeats N R times;
// a host pattern is cycled over the switches it applies to.
//   leaves=L        2-level tree: L leaf switches (default 8 if pods is not given)
//   spines=S        2-level: spine switches (default: from blocking, else 4)
//   pods=A/B/..     3-level tree: leaves per pod (e.g. pods=4/4/2 or pods=4*3/2)
//   aggs=A          3-level: aggregation switches per pod (default 4)
//   cores=C         3-level: core switches per aggregation index (default: most leaves of a pod);
//                   core C<a>_<c> is cabled to aggregation switch a of every pod
//   hosts=PATTERN   hosts per leaf, cycled over the leaves in order (e.g. 4/4/0/2, 8*3/0);
//                   default: blocking x up-links (non-blocking when blocking is not given)
//   links=M         parallel cables per leaf-spine (leaf-aggregation) pair (default 1)
//   blocking=B      hosts : up-links of a leaf (e.g. 2 or 1.5); sets spines/aggs when not given
//                   (ceil(max hosts / (B x links))), else hosts when not given (B x up-links)
//   dual=N          N dual-rail HCAs (2 ports) per pair of neighbouring leaves (0-1, 2-3, .. in
//                   each pod): port 1 on the even leaf, port 2 on the odd one (default 0)
//   tophosts=PATTERN hosts on the top switches (spines / cores), cycled (default 0)
//   agghosts=PATTERN 3-level: hosts on the aggregation switches, cycled (default 0)
//   radix=R[/R2[/R3]] switch radix of leaves / spines (aggregation) / cores; 0 or missing: the
//                   smallest that fits each switch level (mixed radices, unused ports allowed)
// Names: leaves L<i> (3-level L<pod>_<i>), spines S<j>, aggregation A<pod>_<a>, cores C<a>_<c>,
// hosts H<leaf>_<x>, dual-rail D<leaf>_<x> (leaf = the even leaf of the pair), hosts on spine /
// aggregation / core switches T<j>_<x> / I<pod>_<a>_<x> / T<a>_<c>_<x>.
// Ports: a leaf's hosts 1..h, then its dual-rail ports, then the up-links (spine/aggregation
// major, cable minor); a spine/aggregation switch's down-links (leaf major, cable minor), then its
// up-links (to cores c = 0..), then its hosts; a core's down-links (pod p at port p+1), then hosts.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute::topo {

struct ClusterTree {
  std::vector<int> pod_leaves;  // one entry: 2-level tree; several (or pods= given): 3-level
  bool three_level = false;
  int uplinks_sw = 0;           // spines (2-level) or aggregation switches per pod (3-level)
  int cores = 0;                // 3-level: cores per aggregation index
  std::vector<int> hosts;       // per leaf, in leaf order (all pods)
  int links = 1;
  int dual = 0;
  std::vector<int> top_hosts;   // per top switch
  std::vector<int> agg_hosts;   // per aggregation switch (3-level, pod major)
  int radix_leaf = 0, radix_mid = 0, radix_core = 0;
  std::string spec;             // normalised spec text (every key, for headers)
};

// Parses a spec ("leaves=8,hosts=4/0,links=2"); throws OptionError naming the bad key/value.
ClusterTree parse_cluster_tree(const std::string& spec);
// The same from KEY -> VALUE pairs (the gen CLI's --KEY VALUE options).
ClusterTree parse_cluster_tree(const std::map<std::string, std::string>& kv);
// Keys the spec accepts (for the CLI's option list).
const std::vector<std::string>& cluster_tree_keys();
Fabric cluster_tree(const ClusterTree& t);

// A host/count pattern "4/4/0/2" or "8*3/0" -> {4,4,0,2} / {8,8,8,0}; throws OptionError.
std::vector<int> parse_count_pattern(const std::string& text, const std::string& what);

}  // namespace ftroute::topo
