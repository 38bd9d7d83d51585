// The KNS thesis' source tables for a faulty KNS fabric (seed 002 §5.4): per pair of hosts, the
// intermediate routers kns::thesis_ins() picks, for `ftroute kns-waypoints` and flitsim's
// waypoints (docs/kns.md "Per-pair intermediate routers in the simulator").
#pragma once

#include <cstdint>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/kns/kns_model.hpp"

namespace ftroute {

struct KnsWaypoints {
  int src = -1, dst = -1;  // host nodes (CAs or routers cabled to a KNS router)
  std::vector<int> via;    // intermediate router (switch) nodes, in order
};
struct KnsWaypointTable {
  int k = 0, n = 0;        // the KNS recognised
  long failed_links = 0;   // failed router-crossbar links and dead crossbars
  long router_pairs = 0, with_one = 0, with_two = 0;  // router pairs whose DOR path is faulty
  std::vector<KnsWaypoints> pairs;  // every host pair of those router pairs
};
// For every pair of hosts whose routers' Hybrid-DOR path crosses a failed link or crossbar.
// EngineError ("kns") when the fabric is not a KNS (recognize_kns), or when a router pair has no
// path within max_in intermediate routers (naming the two routers).
KnsWaypointTable kns_thesis_waypoints(const Fabric& fabric, int max_in, kns::InTies ties, uint64_t seed,
                                      kns::InLength length = kns::InLength::Shortest);

}  // namespace ftroute
