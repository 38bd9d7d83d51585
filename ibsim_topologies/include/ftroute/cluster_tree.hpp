// Fat trees cabled the way real clusters are (issue 16, issue 27): per-leaf host counts (empty
// leaves), parallel cables per leaf-spine and spine-core pair, blocking ratios, pods of different
// sizes, storage pods, partly built core levels, dual-rail (2-port) HCAs on two leaves, hosts on
// spine/aggregation/core switches, mixed switch radices, SHARP aggregation nodes, director
// chassis (shared chassis node GUIDs too) and missing cables. One spec text serves `ftroute gen
// ctree --spec ...` (or one --KEY VALUE per key) and `ftroute campaign --gen ctree:...`; the same
// spec always gives the same fabric.
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
//   corelinks=K     3-level: parallel cables per aggregation-core pair (default 1)
//   blocking=B      hosts : up-links of a leaf (e.g. 2 or 1.5); sets spines/aggs when not given
//                   (ceil(max hosts / (B x links))), else hosts when not given (B x up-links)
//   dual=N          N dual-rail HCAs (2 ports) per pair of neighbouring leaves (0-1, 2-3, .. in
//                   each pod): port 1 on the even leaf, port 2 on the odd one (default 0)
//   tophosts=PATTERN hosts on the top switches (spines / cores), cycled (default 0)
//   agghosts=PATTERN 3-level: hosts on the aggregation switches, cycled (default 0; storage pods'
//                   aggregation switches included, pod major)
//   radix=R[/R2[/R3]] switch radix of leaves / spines (aggregation) / cores; 0 or missing: the
//                   smallest that fits each switch level (mixed radices, unused ports allowed)
//   storage=P       3-level: P storage pods after the pods of pods=, each with its own leaves and
//                   aggregation switches, joined through the same cores (default 0)
//   storageleaves=N leaves per storage pod (default: most leaves of a pod of pods=)
//   storagehosts=PATTERN storage servers per storage leaf, cycled (default: most hosts of a leaf)
//   an=1            a SHARP aggregation node on every switch: the switch gets one more port than
//                   its radix (41 on a 40-port switch), an internal port with a 1-port CA whose
//                   NodeDescription is "Mellanox Technologies Aggregation Node"
//   director=1      3-level: the aggregation and core levels are director chassis, one per
//                   aggregation index a: its line ASICs are the aggregation switches A<pod>_<a>
//                   (one per pod, facing that pod's leaves), its spine ASICs the cores C<a>_<c>;
//                   descriptions as in real dumps, "MF0;dirA:MCS8500/L01/U1" (line ASIC of pod p:
//                   slot p/2+1, unit p%2+1), "MF0;dirA:MCS8500/S01/U1" (spine ASIC c: slot c+1);
//                   CS7500 for line ASICs of up to 36 ports, MCS8500 above
//   chassisguid=shared  with director=1: every ASIC of a chassis reports the chassis GUID
//                   (0x300000 + a) as its node GUID (Node::reported_guid), as in some MCS8500
//                   dumps; `ftroute gen` writes `switchguid=0xCHASSIS(GUID)` (ibsim refuses it,
//                   `ftroute export --to ibsim` makes it loadable). Default: unique
//   missing=N       N switch-to-switch cables missing, drawn at random (seeded) by the fault code of
//                   `gen --fail-links N --keep-connected`: never disconnects the fabric
//   seed=S          the seed of missing= (default 1)
//   preset=NAME     a real cluster's shape (keys given beside it override the preset's):
//                   hdr-3tier, edr-director, hdr-mcs8500 (cluster_tree_presets())
// Names: leaves L<i> (3-level L<pod>_<i>), spines S<j>, aggregation A<pod>_<a>, cores C<a>_<c>,
// hosts H<leaf>_<x>, storage servers F<leaf>_<x>, dual-rail D<leaf>_<x> (leaf = the even leaf of
// the pair), hosts on spine / aggregation / core switches T<j>_<x> / I<pod>_<a>_<x> / T<a>_<c>_<x>,
// aggregation nodes AN-<switch>. Storage pods are numbered after the pods of pods=.
// Ports: a leaf's hosts 1..h, then its dual-rail ports, then the up-links (spine/aggregation
// major, cable minor); a spine/aggregation switch's down-links (leaf major, cable minor), then its
// up-links (core c major, cable minor), then its hosts; a core's down-links (pod major, cable
// minor: pod p cable k at port p*K+k+1), then hosts; the aggregation node on port radix+1.
// Nodes: switches (leaves, spines/aggregation, cores), then hosts, storage servers, dual-rail
// HCAs, hosts on upper switches, aggregation nodes; GUIDs as ibsim numbers them.
#pragma once

#include <map>
#include <cstdint>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute::topo {

// The NodeDescription of a SHARP aggregation node (an=1), as real fabrics report it.
constexpr const char* kAggregationNodeDesc = "Mellanox Technologies Aggregation Node";
// chassisguid=shared: chassis a reports node GUID kChassisGuidBase + a (above every switch GUID
// ibsim numbers from 0x200000 for the at most 200,000 nodes of a generated fabric).
constexpr uint64_t kChassisGuidBase = 0x300000;

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
  int core_links = 1;           // corelinks=
  int storage_pods = 0;         // storage=: the last storage_pods entries of pod_leaves
  bool an = false;              // an=1
  bool director = false;        // director=1
  bool shared_chassis_guid = false;  // chassisguid=shared
  int missing = 0;              // missing=
  uint64_t seed = 1;            // seed= (of missing=)
  std::string spec;             // normalised spec text (every key, for headers)
};

struct ClusterTreePreset {
  const char* name;
  const char* spec;     // the keys it stands for
  const char* summary;  // what real cluster it reproduces, with its exact counts
};
// The presets of preset=NAME: shapes of three production clusters (issue 27).
const std::vector<ClusterTreePreset>& cluster_tree_presets();

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
