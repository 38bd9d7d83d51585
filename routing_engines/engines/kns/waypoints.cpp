// The KNS thesis' per-pair intermediate routers of a faulty KNS fabric (ftroute/kns/waypoints.hpp).
#include "ftroute/kns/waypoints.hpp"

#include <random>

#include "ftroute/error.hpp"
#include "kns/kns.hpp"

namespace ftroute {

KnsWaypointTable kns_thesis_waypoints(const Fabric& f, int max_in, kns::InTies ties, uint64_t seed, kns::InLength length) {
  KnsWaypointTable t;
  const KnsShape sh = recognize_kns(f);
  const kns::Model& m = sh.model;
  t.k = sh.k, t.n = sh.n, t.failed_links = static_cast<long>(sh.faults.size());
  std::vector<std::vector<int>> hosts(static_cast<size_t>(m.K));  // CAs and routers cabled to each router
  for (long R = 0; R < m.K; R++) {
    const Node& r = f.node(sh.router_node[static_cast<size_t>(R)]);
    for (int p = 1; p <= r.num_ports; p++)
      if (r.port(p).connected() && !f.node(r.port(p).peer_node).is_switch())
        hosts[static_cast<size_t>(R)].push_back(r.port(p).peer_node);
  }
  std::mt19937_64 rng(seed);
  for (auto [S, D] : kns::faulty_dor_pairs(m)) {
    auto ins = kns::thesis_ins(m, S, D, max_in, ties, rng, length);
    if (!ins)
      throw EngineError(KnsEngine::kName, "no path from router " + f.node_name(sh.router_node[static_cast<size_t>(S)]) + " to " +
           f.node_name(sh.router_node[static_cast<size_t>(D)]) + " within " + std::to_string(max_in) +
           " intermediate router(s) of fault-free Hybrid-DOR legs: the thesis does not tolerate this fault set");
    t.router_pairs++;
    (ins->size() == 1 ? t.with_one : t.with_two)++;
    std::vector<int> via;
    for (long I : *ins) via.push_back(sh.router_node[static_cast<size_t>(I)]);
    for (int hs : hosts[static_cast<size_t>(S)])
      for (int hd : hosts[static_cast<size_t>(D)]) t.pairs.push_back({hs, hd, via});
  }
  return t;
}

}  // namespace ftroute
