#include "ftroute/grid.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

namespace ftroute {

std::string MeshGrid::describe() const {
  std::string s;
  for (int d = 0; d < ndims; d++) s += (d ? "x" : "") + std::to_string(size[static_cast<size_t>(d)]);
  return s + (torus ? " torus" : " mesh");
}

namespace {

// Distinct switch neighbours of every switch, with the lowest port leading to each.
struct SwitchGraph {
  std::vector<std::map<int, uint8_t>> nbr;  // by node index
};

SwitchGraph switch_graph(const Fabric& f) {
  SwitchGraph g;
  g.nbr.resize(static_cast<size_t>(f.size()));
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& pt = n.port(p);
      if (!pt.connected() || pt.peer_node == s || !f.node(pt.peer_node).is_switch()) continue;
      auto it = g.nbr[static_cast<size_t>(s)].find(pt.peer_node);
      if (it == g.nbr[static_cast<size_t>(s)].end()) g.nbr[static_cast<size_t>(s)][pt.peer_node] = static_cast<uint8_t>(p);
    }
  }
  return g;
}

std::vector<int> bfs(const Fabric& f, const SwitchGraph& g, int src) {
  std::vector<int> d(static_cast<size_t>(f.size()), -1);
  std::deque<int> q{src};
  d[static_cast<size_t>(src)] = 0;
  while (!q.empty()) {
    int u = q.front();
    q.pop_front();
    for (auto& [v, p] : g.nbr[static_cast<size_t>(u)])
      if (d[static_cast<size_t>(v)] < 0) d[static_cast<size_t>(v)] = d[static_cast<size_t>(u)] + 1, q.push_back(v);
  }
  return d;
}

// Tries one choice of axis corners; returns the verified grid or nullopt.
std::optional<MeshGrid> try_axes(const Fabric& f, const SwitchGraph& g, const std::vector<int>& d0,
                             const std::vector<std::vector<int>>& dk, const std::vector<int>& len) {
  const int n = static_cast<int>(dk.size());
  MeshGrid grid;
  grid.ndims = n;
  for (int k = 0; k < n; k++) grid.size[static_cast<size_t>(k)] = len[static_cast<size_t>(k)] + 1;
  const size_t total = static_cast<size_t>(grid.num_switches());
  if (total != f.switches().size()) return std::nullopt;
  grid.coord.assign(static_cast<size_t>(f.size()), {-1, -1, -1});
  grid.node_at.assign(total, -1);
  grid.port.assign(static_cast<size_t>(f.size()), {0, 0, 0, 0, 0, 0});
  for (int s : f.switches()) {
    std::array<int, 3> c{0, 0, 0};
    int sum = 0;
    for (int k = 0; k < n; k++) {
      int v = d0[static_cast<size_t>(s)] - dk[static_cast<size_t>(k)][static_cast<size_t>(s)] + len[static_cast<size_t>(k)];
      if (v < 0 || v % 2) return std::nullopt;
      c[static_cast<size_t>(k)] = v / 2;
      if (c[static_cast<size_t>(k)] > len[static_cast<size_t>(k)]) return std::nullopt;
      sum += c[static_cast<size_t>(k)];
    }
    if (sum != d0[static_cast<size_t>(s)]) return std::nullopt;
    int li = grid.linear(c);
    if (grid.node_at[static_cast<size_t>(li)] >= 0) return std::nullopt;
    grid.node_at[static_cast<size_t>(li)] = s;
    grid.coord[static_cast<size_t>(s)] = c;
  }
  size_t links = 0;
  for (int s : f.switches()) {
    const auto& cs = grid.coord[static_cast<size_t>(s)];
    for (auto& [v, p] : g.nbr[static_cast<size_t>(s)]) {
      const auto& cv = grid.coord[static_cast<size_t>(v)];
      int diffdim = -1, ndiff = 0;
      for (int k = 0; k < 3; k++)
        if (cs[static_cast<size_t>(k)] != cv[static_cast<size_t>(k)]) ndiff++, diffdim = k;
      if (ndiff != 1) return std::nullopt;
      int delta = cv[static_cast<size_t>(diffdim)] - cs[static_cast<size_t>(diffdim)];
      if (delta != 1 && delta != -1) return std::nullopt;
      grid.port[static_cast<size_t>(s)][static_cast<size_t>(2 * diffdim + (delta > 0 ? 0 : 1))] = p;
      links++;
    }
  }
  size_t expect = 0;  // directed grid adjacencies
  for (int k = 0; k < n; k++) {
    size_t per = 1;
    for (int j = 0; j < n; j++) per *= static_cast<size_t>(j == k ? grid.size[static_cast<size_t>(j)] - 1 : grid.size[static_cast<size_t>(j)]);
    expect += 2 * per;
  }
  if (links != expect) return std::nullopt;
  return grid;
}

}  // namespace

std::optional<MeshGrid> recognise_mesh(const Fabric& f, std::string* why) {
  auto fail = [&](const std::string& msg) -> std::optional<MeshGrid> {
    if (why) *why = msg;
    return std::nullopt;
  };
  const auto& sw = f.switches();
  if (sw.size() < 4) return fail("fewer than 4 switches: not a 2-D/3-D mesh");
  SwitchGraph g = switch_graph(f);
  int mindeg = 1 << 30, maxdeg = 0;
  for (int s : sw) {
    int d = static_cast<int>(g.nbr[static_cast<size_t>(s)].size());
    mindeg = std::min(mindeg, d);
    maxdeg = std::max(maxdeg, d);
  }
  if (mindeg == maxdeg && (mindeg == 4 || mindeg == 6))
    return fail("every switch has " + std::to_string(mindeg) + " switch neighbours: looks like a torus, which is not supported");
  if (mindeg < 2 || mindeg > 3)
    return fail("switch \"" + f.node(*std::min_element(sw.begin(), sw.end(), [&](int a, int b) {
                  return g.nbr[static_cast<size_t>(a)].size() < g.nbr[static_cast<size_t>(b)].size();
                })).id + "\" has " + std::to_string(mindeg) + " switch neighbours: a 2-D/3-D mesh corner has 2 or 3");
  const int n = mindeg;
  std::vector<int> corners;
  for (int s : sw)
    if (static_cast<int>(g.nbr[static_cast<size_t>(s)].size()) == n) corners.push_back(s);
  if (static_cast<int>(corners.size()) != (1 << n))
    return fail(std::to_string(corners.size()) + " switches of degree " + std::to_string(n) + " (mesh corners): a " +
                std::to_string(n) + "-D mesh has " + std::to_string(1 << n));
  const int c0 = corners[0];
  auto d0 = bfs(f, g, c0);
  for (int s : sw)
    if (d0[static_cast<size_t>(s)] < 0) return fail("switch \"" + f.node(s).id + "\" is not connected to \"" + f.node(c0).id + "\"");
  std::vector<std::vector<int>> dist(corners.size());
  for (size_t i = 1; i < corners.size(); i++) dist[i] = bfs(f, g, corners[i]);
  // Choose n axis corners among corners[1..] (ascending node index order = dimension order).
  std::vector<int> idx;
  for (size_t i = 1; i < corners.size(); i++) idx.push_back(static_cast<int>(i));
  std::vector<bool> pick(idx.size(), false);
  std::fill(pick.begin(), pick.begin() + n, true);
  do {
    std::vector<std::vector<int>> dk;
    std::vector<int> len;
    for (size_t i = 0; i < idx.size(); i++)
      if (pick[i]) {
        dk.push_back(dist[static_cast<size_t>(idx[i])]);
        len.push_back(d0[static_cast<size_t>(corners[static_cast<size_t>(idx[i])])]);
      }
    if (auto gr = try_axes(f, g, d0, dk, len)) return gr;
  } while (std::prev_permutation(pick.begin(), pick.end()));
  return fail("switch graph is not a full " + std::to_string(n) + "-D mesh (missing or extra switch links)");
}

}  // namespace ftroute
