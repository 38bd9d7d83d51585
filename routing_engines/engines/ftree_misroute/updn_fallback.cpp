// ftree-misroute's last resort: Up*/Down* from one root (see updn_fallback.hpp).
#include "ftree_misroute/ftree_misroute_internal.hpp"

#include <algorithm>
#include <climits>
#include <utility>

#include "ftroute/switch_graph.hpp"

namespace ftroute {

namespace {
constexpr int kInf = INT_MAX / 4;
}  // namespace

// Last resort of all (option updn_fallback): Up*/Down* on the switch graph, oriented from one
// root (the top-rank switch of least eccentricity): a link goes "up" towards the switch of lower
// (BFS level, index). Every route climbs and then only descends, so one VL is deadlock free on
// any connected fabric; a switch that can reach the destination by descending alone always
// does (so a packet that arrived descending never climbs again), otherwise it climbs towards the
// root on a shortest such route. Ties between ports go by the destination's d-mod-k index.
// Returns the root's switch index, or -1 if some switch cannot reach a destination.
int route_updn(const Fabric& fabric, const FatTree& t, const std::vector<std::vector<DestLid>>& dests,
               std::vector<uint8_t*>& tab) {
  const int S = t.num_switches();
  const size_t NS = static_cast<size_t>(S);
  // BFS levels over the switch links (the fabric's switch graph), by dense switch index; the
  // largest, or kInf if some switch is not reached
  const SwitchGraph g(fabric);
  std::vector<int> dist, queue;
  auto bfs = [&](int from, std::vector<int>& lvl) {
    g.bfs(g.pos(t.sw_node[static_cast<size_t>(from)]), dist, queue);
    lvl.assign(NS, kInf);
    int ecc = 0;
    for (int s = 0; s < S; s++) {
      const int d = dist[static_cast<size_t>(g.pos(t.sw_node[static_cast<size_t>(s)]))];
      lvl[static_cast<size_t>(s)] = d < 0 ? kInf : d;
      ecc = std::max(ecc, lvl[static_cast<size_t>(s)]);
    }
    return ecc;
  };
  int root = -1, best = kInf;
  std::vector<int> lvl;
  for (int s : t.by_rank[static_cast<size_t>(t.height)]) {
    const int ecc = bfs(s, lvl);
    if (ecc < best) best = ecc, root = s;
  }
  if (root < 0 || best >= kInf) return -1;
  bfs(root, lvl);
  std::vector<int> order(NS);  // root first: ascending (level, index)
  for (int s = 0; s < S; s++) order[static_cast<size_t>(s)] = s;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return std::make_pair(lvl[static_cast<size_t>(a)], a) < std::make_pair(lvl[static_cast<size_t>(b)], b);
  });
  std::vector<int> key(NS);
  for (int i = 0; i < S; i++) key[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  std::vector<int> down(NS), any(NS);  // hops to the target descending only / climbing first
  std::vector<uint8_t> cand;
  for (int target = 0; target < S; target++) {
    const auto& dl = dests[static_cast<size_t>(target)];
    if (dl.empty()) continue;
    std::fill(down.begin(), down.end(), kInf);
    down[static_cast<size_t>(target)] = 0;
    for (int i = S - 1; i >= 0; i--) {  // descending moves go to a higher key
      const int s = order[static_cast<size_t>(i)];
      for (const auto* adj : {&t.up[static_cast<size_t>(s)], &t.down[static_cast<size_t>(s)]})
        for (const auto& e : *adj)
          if (key[static_cast<size_t>(e.peer)] > i && down[static_cast<size_t>(e.peer)] < kInf)
            down[static_cast<size_t>(s)] = std::min(down[static_cast<size_t>(s)], down[static_cast<size_t>(e.peer)] + 1);
    }
    for (int i = 0; i < S; i++) {  // climbing moves go to a lower key
      const int s = order[static_cast<size_t>(i)];
      int a = down[static_cast<size_t>(s)];
      for (const auto* adj : {&t.up[static_cast<size_t>(s)], &t.down[static_cast<size_t>(s)]})
        for (const auto& e : *adj)
          if (key[static_cast<size_t>(e.peer)] < i && any[static_cast<size_t>(e.peer)] < kInf)
            a = std::min(a, any[static_cast<size_t>(e.peer)] + 1);
      any[static_cast<size_t>(s)] = a;
    }
    for (int s = 0; s < S; s++) {
      uint8_t* ts = tab[static_cast<size_t>(s)];
      if (s == target) {
        for (const DestLid& d : dl) ts[d.lid] = d.attach_port;
        continue;
      }
      const int i = key[static_cast<size_t>(s)];
      const bool descend = down[static_cast<size_t>(s)] < kInf;
      if (!descend && any[static_cast<size_t>(s)] >= kInf) return -1;
      cand.clear();
      for (const auto* adj : {&t.up[static_cast<size_t>(s)], &t.down[static_cast<size_t>(s)]})
        for (const auto& e : *adj) {
          const size_t n = static_cast<size_t>(e.peer);
          if (descend ? key[n] > i && down[n] == down[static_cast<size_t>(s)] - 1
                      : key[n] < i && any[n] == any[static_cast<size_t>(s)] - 1)
            cand.push_back(e.port);
        }
      for (const DestLid& d : dl)
        ts[d.lid] = cand[static_cast<size_t>((d.index + d.offset) % static_cast<long>(cand.size()))];
    }
  }
  return root;
}

}  // namespace ftroute
