#include "minhop/minhop.hpp"

#include <algorithm>
#include <deque>
#include <tuple>

namespace ftroute {

namespace {

struct SwitchGraph {
  std::vector<int> pos;                                 // node index -> switch position, -1
  std::vector<std::vector<std::pair<uint8_t, int>>> adj;  // per switch: (port, neighbour position)
};

SwitchGraph build_graph(const Fabric& f) {
  SwitchGraph g;
  g.pos.assign(static_cast<size_t>(f.size()), -1);
  const auto& sws = f.switches();
  for (size_t i = 0; i < sws.size(); i++) g.pos[static_cast<size_t>(sws[i])] = static_cast<int>(i);
  g.adj.resize(sws.size());
  for (size_t i = 0; i < sws.size(); i++) {
    const Node& n = f.node(sws[i]);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (!x.connected()) continue;
      int q = g.pos[static_cast<size_t>(x.peer_node)];
      if (q >= 0 && q != static_cast<int>(i)) g.adj[i].push_back({static_cast<uint8_t>(p), q});
    }
  }
  return g;
}

std::vector<int> bfs(const SwitchGraph& g, int src) {
  std::vector<int> d(g.adj.size(), -1);
  std::deque<int> q{src};
  d[static_cast<size_t>(src)] = 0;
  while (!q.empty()) {
    int u = q.front();
    q.pop_front();
    for (auto [port, v] : g.adj[static_cast<size_t>(u)])
      if (d[static_cast<size_t>(v)] < 0) {
        d[static_cast<size_t>(v)] = d[static_cast<size_t>(u)] + 1;
        q.push_back(v);
      }
  }
  return d;
}

}  // namespace

std::vector<std::vector<int>> switch_distances(const Fabric& fabric) {
  SwitchGraph g = build_graph(fabric);
  std::vector<std::vector<int>> d(g.adj.size());
  for (size_t i = 0; i < g.adj.size(); i++) d[i] = bfs(g, static_cast<int>(i));
  return d;
}

Routing MinHopEngine::route(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  options.check_known(kName, option_keys());
  const bool balance = options.get_bool("balance", true);
  const bool spread = options.get_bool("lmc_spread", true);
  const bool count_sw = options.get_bool("count_switch_lids", true);

  Routing r;
  r.engine = kName;
  r.lfts = Lfts(fabric);
  const auto& sws = fabric.switches();
  if (sws.empty()) {
    r.notes.push_back("fabric has no switches: nothing to route");
    return r;
  }
  SwitchGraph g = build_graph(fabric);
  const size_t S = sws.size();

  // Connectivity: every switch must reach every other one.
  {
    std::vector<int> d0 = bfs(g, 0);
    for (size_t i = 0; i < S; i++)
      if (d0[i] < 0)
        throw EngineError(kName, "fabric is disconnected: switch \"" + fabric.node(sws[i]).id +
                                     "\" cannot be reached from switch \"" + fabric.node(sws[0]).id + "\"");
  }
  // Distances towards every switch (computed lazily per attach switch, cached).
  std::vector<std::vector<int>> dist_to(S);

  std::vector<std::vector<uint32_t>> counter(S);
  for (size_t i = 0; i < S; i++) counter[i].assign(static_cast<size_t>(fabric.node(sws[i]).num_ports) + 1, 0);

  // Per end port, per switch: ports / neighbours already used by its LMC LIDs.
  std::vector<std::vector<uint8_t>> used_ports(S);
  std::vector<std::vector<int>> used_nbrs(S);

  int unattached = 0;
  for (const EndPort& e : fabric.end_ports()) {
    Attach a = fabric.attach(e.base_lid);
    if (!a.valid()) {
      unattached++;
      continue;
    }
    const int dst = g.pos[static_cast<size_t>(a.sw)];
    if (dist_to[static_cast<size_t>(dst)].empty()) dist_to[static_cast<size_t>(dst)] = bfs(g, dst);
    const std::vector<int>& dist = dist_to[static_cast<size_t>(dst)];
    const bool is_sw_lid = fabric.node(e.node).is_switch();
    for (size_t i = 0; i < S; i++) used_ports[i].clear(), used_nbrs[i].clear();

    for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) {
      for (size_t i = 0; i < S; i++) {
        uint8_t out;
        if (static_cast<int>(i) == dst) {
          out = a.port;
        } else {
          const int di = dist[i];
          if (di < 0)  // cannot happen after the connectivity check; keep the error explicit
            throw EngineError(kName, "switch \"" + fabric.node(sws[i]).id + "\" has no path to LID " +
                                         std::to_string(lid));
          // best = lexicographic minimum of (neighbour used, port used, counter, port)
          std::tuple<int, int, uint32_t, int> best{1 << 30, 0, 0, 0};
          int best_nbr = -1;
          out = kNoPath;
          for (auto [port, v] : g.adj[i]) {
            if (dist[static_cast<size_t>(v)] != di - 1) continue;
            int nbr_used = 0, port_used = 0;
            if (spread && e.lmc > 0) {
              nbr_used = std::count(used_nbrs[i].begin(), used_nbrs[i].end(), v) ? 1 : 0;
              port_used = std::count(used_ports[i].begin(), used_ports[i].end(), port) ? 1 : 0;
            }
            std::tuple<int, int, uint32_t, int> key{nbr_used, port_used, balance ? counter[i][port] : 0u, port};
            if (key < best) best = key, out = port, best_nbr = v;
          }
          if (out == kNoPath)
            throw EngineError(kName, "switch \"" + fabric.node(sws[i]).id + "\" has no min-hop port towards LID " +
                                         std::to_string(lid));
          if (e.lmc > 0) {
            used_ports[i].push_back(out);
            used_nbrs[i].push_back(best_nbr);
          }
        }
        r.lfts.set(sws[i], static_cast<Lid>(lid), out);
        if (out != 0 && (count_sw || !is_sw_lid)) counter[i][out]++;
      }
    }
  }
  if (unattached)
    r.notes.push_back(std::to_string(unattached) + " end port(s) not attached to a switch were not routed");
  return r;
}

}  // namespace ftroute
