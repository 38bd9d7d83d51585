// Where the switches of the picture go (fabric_svg.hpp): the recognised fat tree, or BFS levels.
#include <algorithm>
#include <map>
#include <set>

#include "ftroute/ftree_misroute/fattree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/fabric_svg.hpp"
#include "ftroute/switch_graph.hpp"

namespace ftroute {

int TreeLevels::missing_cables() const {
  int n = 0;
  for (const auto& m : missing_pairs) n += m.cables;
  for (const auto& m : missing_stubs) n += m.cables;
  return n;
}

namespace {

size_t at(int i) { return static_cast<size_t>(i); }

bool has_end_node(const Fabric& f, int s) {
  const Node& n = f.node(s);
  for (int p = 1; p <= n.num_ports; p++) {
    const Port& x = n.port(p);
    if (x.connected() && !f.node(x.peer_node).is_switch()) return true;
  }
  return false;
}

// The most frequent value (ties: the larger one); 0 for none.
int mode_of(const std::vector<int>& v) {
  std::map<int, int> count;
  for (int x : v) count[x]++;
  int best = 0, n = 0;
  for (auto [x, c] : count)
    if (c >= n) best = x, n = c;
  return best;
}

// Missing cables of a recognised tree, as pairs where a peer can be named, else as stubs:
//  1. a bundle (parallel cables between two switches) with fewer cables than the most common
//     bundle of its rank: the difference, between those two switches;
//  2. a switch of rank r >= 1 that reaches no switch of a sub-tree (block of rank r-1) of its
//     block: the cables to the rank-(r-1) switch of that sub-tree that has fewer up-cables than
//     the widest of its rank (a stub down when none has);
//  3. up-cables still missing against the widest switch of the rank: stubs up.
// The same facts as FatTree::missing_links counts, placed on switches.
void place_missing(const FatTree& t, TreeLevels& L) {
  const int S = t.num_switches();
  std::vector<int> deficit(at(S), 0);
  std::vector<int> bundle(at(t.height + 1), 1);  // usual bundle size per rank (up-cables)
  for (int r = 0; r < t.height; r++) {
    std::vector<int> sizes;
    size_t widest = 0;
    for (int s : t.by_rank[at(r)]) {
      std::map<int, int> per_peer;
      for (const auto& e : t.up[at(s)]) per_peer[e.peer]++;
      for (auto [p, c] : per_peer) sizes.push_back(c);
      widest = std::max(widest, t.up[at(s)].size());
    }
    bundle[at(r)] = std::max(1, mode_of(sizes));
    for (int s : t.by_rank[at(r)]) {
      int shortfall = 0;
      std::map<int, int> per_peer;
      for (const auto& e : t.up[at(s)]) per_peer[e.peer]++;
      for (auto [p, c] : per_peer)
        if (c < bundle[at(r)]) {
          L.missing_pairs.push_back({t.sw_node[at(s)], t.sw_node[at(p)], bundle[at(r)] - c});
          shortfall += bundle[at(r)] - c;
        }
      deficit[at(s)] = std::max(0, static_cast<int>(widest - t.up[at(s)].size()) - shortfall);
    }
  }
  for (int r = 1; r <= t.height; r++) {
    std::map<int, std::set<int>> subblocks;  // block of rank r -> its sub-blocks of rank r-1
    for (int s = 0; s < S; s++)
      if (t.rank[at(s)] <= r - 1) subblocks[t.block[at(r)][at(s)]].insert(t.block[at(r - 1)][at(s)]);
    for (int s : t.by_rank[at(r)]) {
      std::set<int> reached;
      for (const auto& e : t.down[at(s)]) reached.insert(t.block[at(r - 1)][at(e.peer)]);
      for (int b : subblocks[t.block[at(r)][at(s)]]) {
        if (reached.count(b)) continue;
        int best = -1;
        for (int u : t.by_rank[at(r - 1)])
          if (t.block[at(r - 1)][at(u)] == b && deficit[at(u)] > 0 && (best < 0 || deficit[at(u)] > deficit[at(best)]))
            best = u;
        const int cables = bundle[at(r - 1)];
        if (best >= 0) {
          const int c = std::min(cables, deficit[at(best)]);
          L.missing_pairs.push_back({t.sw_node[at(best)], t.sw_node[at(s)], c});
          deficit[at(best)] -= c;
        } else {
          L.missing_stubs.push_back({t.sw_node[at(s)], cables, false});
        }
      }
    }
  }
  for (int s = 0; s < S; s++)
    if (deficit[at(s)] > 0) L.missing_stubs.push_back({t.sw_node[at(s)], deficit[at(s)], true});
}

void bfs_levels(const Fabric& f, TreeLevels& L) {
  const SwitchGraph g(f);
  std::vector<int> seeds;
  for (int i = 0; i < g.size(); i++)
    if (has_end_node(f, g.node(i))) seeds.push_back(i);
  if (seeds.empty()) {  // no CA at all: one row
    for (int s : f.switches()) L.level[at(s)] = 0;
  } else {
    std::vector<int> dist, queue;
    g.bfs(seeds, dist, queue, [](int, const SwitchGraph::Edge&) { return true; });
    for (int i = 0; i < g.size(); i++) L.level[at(g.node(i))] = dist[at(i)];
  }
  for (int s : f.switches()) L.height = std::max(L.height, L.level[at(s)]);
}

}  // namespace

TreeLevels tree_levels(const Fabric& fabric) {
  TreeLevels L;
  L.level.assign(at(fabric.size()), -1);
  L.groups.assign(at(fabric.size()), {});
  if (fabric.switches().empty()) return L;
  try {
    const FatTree t = recognize_fat_tree(fabric, "fat-tree recognition");
    L.recognised = true;
    L.shape = t.shape;
    L.height = t.height;
    L.missing_estimate = t.missing_links;
    for (int s = 0; s < t.num_switches(); s++) {
      const int node = t.sw_node[at(s)], r = t.rank[at(s)];
      L.level[at(node)] = r;
      for (int q = t.height - 1; q >= r; q--) L.groups[at(node)].push_back(t.block[at(q)][at(s)]);
    }
    if (t.height >= 2) {
      std::map<int, int> size;
      for (int s = 0; s < t.num_switches(); s++)
        if (t.rank[at(s)] <= t.height - 1) size[t.block[at(t.height - 1)][at(s)]]++;
      for (auto [b, n] : size) L.pods += n > 1;
    }
    place_missing(t, L);
  } catch (const EngineError& e) {
    L = TreeLevels{};
    L.level.assign(at(fabric.size()), -1);
    L.groups.assign(at(fabric.size()), {});
    L.shape = e.reason();
    bfs_levels(fabric, L);
  }
  return L;
}

}  // namespace ftroute
