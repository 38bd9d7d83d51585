#include "ftroute/grid.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>

#include "ftroute/switch_graph.hpp"

namespace ftroute {

std::string MeshGrid::describe() const {
  std::string s;
  for (int d = 0; d < ndims; d++) s += (d ? "x" : "") + std::to_string(size[static_cast<size_t>(d)]);
  return s + (torus ? " torus" : " mesh");
}

namespace {

// Distinct switch neighbours of every switch, with the lowest port leading to each, read from
// the fabric's SwitchGraph (ftroute/switch_graph.hpp), which also gives the BFS.
struct GridGraph {
  SwitchGraph sg;
  std::vector<std::map<int, uint8_t>> nbr;  // by node index
};

GridGraph switch_graph(const Fabric& f) {
  GridGraph g{SwitchGraph(f), {}};
  g.nbr.resize(static_cast<size_t>(f.size()));
  for (int i = 0; i < g.sg.size(); i++)
    for (const SwitchGraph::Edge& e : g.sg.edges(i)) g.nbr[static_cast<size_t>(g.sg.node(i))].emplace(g.sg.node(e.nbr), e.port);
  return g;
}

// Hop distances from switch node src, by node index (-1: not reached, or not a switch).
std::vector<int> bfs(const Fabric& f, const GridGraph& g, int src) {
  const std::vector<int> by_pos = g.sg.bfs(g.sg.pos(src));
  std::vector<int> d(static_cast<size_t>(f.size()), -1);
  for (int i = 0; i < g.sg.size(); i++) d[static_cast<size_t>(g.sg.node(i))] = by_pos[static_cast<size_t>(i)];
  return d;
}

// Tries one choice of axis corners; returns the verified grid or nullopt.
std::optional<MeshGrid> try_axes(const Fabric& f, const GridGraph& g, const std::vector<int>& d0,
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


std::string quoted(const Fabric& f, int s) { return f.node_name(s); }

std::string coord_text(const std::array<int, 3>& c, int n) {
  std::string s = "(";
  for (int d = 0; d < n; d++) s += (d ? "," : "") + std::to_string(c[static_cast<size_t>(d)]);
  return s + ")";
}

const char* kDirName[6] = {"+x", "-x", "+y", "-y", "+z", "-z"};

// One torus embedding attempt from the root's frame (root_frame[2d] = root + e_d, [2d+1] = root -
// e_d); see grid.hpp for the method. On failure sets why (naming a switch) and returns nullopt.
std::optional<MeshGrid> try_torus_frame(const Fabric& f, const GridGraph& g, int n, int root,
                                        const std::array<int, 6>& root_frame, std::string& why) {
  const int deg = 2 * n;
  const size_t N = f.switches().size();
  std::vector<std::array<int, 6>> frame(static_cast<size_t>(f.size()));
  std::vector<char> has(static_cast<size_t>(f.size()), 0);
  frame[static_cast<size_t>(root)] = root_frame;
  has[static_cast<size_t>(root)] = 1;
  std::deque<int> q{root};
  auto nb = [&](int s) -> const std::map<int, uint8_t>& { return g.nbr[static_cast<size_t>(s)]; };
  while (!q.empty()) {
    const int v = q.front();
    q.pop_front();
    for (int k = 0; k < deg; k++) {
      const int u = frame[static_cast<size_t>(v)][static_cast<size_t>(k)];
      if (has[static_cast<size_t>(u)]) continue;
      const int i = k / 2;
      const bool plus = k % 2 == 0;
      std::array<int, 6> fu;
      fu.fill(-1);
      fu[static_cast<size_t>(2 * i + (plus ? 1 : 0))] = v;
      for (int j = 0; j < n; j++) {
        if (j == i) continue;
        for (int t = 0; t < 2; t++) {
          const int w = frame[static_cast<size_t>(v)][static_cast<size_t>(2 * j + t)];
          int found = -1, count = 0;
          for (const auto& [x, p] : nb(u))
            if (x != v && nb(w).count(x)) found = x, count++;
          if (count != 1) {
            why = "switches " + quoted(f, u) + " (" + kDirName[k] + " of " + quoted(f, v) + ") and " + quoted(f, w) + " (" +
                  kDirName[2 * j + t] + " of " + quoted(f, v) + ") have " + std::to_string(count) +
                  " common neighbours besides " + quoted(f, v) + ", a torus square has exactly 1";
            return std::nullopt;
          }
          fu[static_cast<size_t>(2 * j + t)] = found;
        }
      }
      int rest = -1, nrest = 0;
      for (const auto& [x, p] : nb(u))
        if (std::find(fu.begin(), fu.begin() + deg, x) == fu.begin() + deg) rest = x, nrest++;
      if (nrest != 1) {
        why = "switch " + quoted(f, u) + ": its ring neighbours in the other dimensions coincide, no single " +
              kDirName[k] + " neighbour is left";
        return std::nullopt;
      }
      fu[static_cast<size_t>(2 * i + (plus ? 0 : 1))] = rest;
      frame[static_cast<size_t>(u)] = fu;
      has[static_cast<size_t>(u)] = 1;
      q.push_back(u);
    }
  }
  for (int s : f.switches())
    if (!has[static_cast<size_t>(s)]) {
      why = "switch " + quoted(f, s) + " is not connected to " + quoted(f, root);
      return std::nullopt;
    }
  MeshGrid grid;
  grid.ndims = n;
  grid.torus = true;
  size_t prod = 1;
  for (int d = 0; d < n; d++) {
    int x = root, len = 0;
    do {
      x = frame[static_cast<size_t>(x)][static_cast<size_t>(2 * d)];
      len++;
    } while (x != root && static_cast<size_t>(len) <= N);
    if (x != root || len < 3) {
      why = std::string("the ") + kDirName[2 * d] + " ring through " + quoted(f, root) + " does not close";
      return std::nullopt;
    }
    grid.size[static_cast<size_t>(d)] = len;
    prod *= static_cast<size_t>(len);
  }
  if (prod != N) {
    why = "rings through " + quoted(f, root) + " of sizes " + grid.describe() + " span " + std::to_string(prod) +
          " switches, the fabric has " + std::to_string(N);
    return std::nullopt;
  }
  grid.coord.assign(static_cast<size_t>(f.size()), {-1, -1, -1});
  grid.node_at.assign(N, -1);
  grid.port.assign(static_cast<size_t>(f.size()), {0, 0, 0, 0, 0, 0});
  grid.coord[static_cast<size_t>(root)] = {0, 0, 0};
  q.push_back(root);
  while (!q.empty()) {
    const int v = q.front();
    q.pop_front();
    for (int k = 0; k < deg; k++) {
      const int u = frame[static_cast<size_t>(v)][static_cast<size_t>(k)];
      const size_t i = static_cast<size_t>(k / 2);
      std::array<int, 3> c = grid.coord[static_cast<size_t>(v)];
      c[i] = (c[i] + (k % 2 == 0 ? 1 : grid.size[i] - 1)) % grid.size[i];
      auto& cu = grid.coord[static_cast<size_t>(u)];
      if (cu[0] < 0) {
        cu = c;
        q.push_back(u);
      } else if (cu != c) {
        why = "switch " + quoted(f, u) + " gets torus coordinates " + coord_text(cu, n) + " and " + coord_text(c, n) +
              " (" + kDirName[k] + " of " + quoted(f, v) + ")";
        return std::nullopt;
      }
    }
  }
  for (int s : f.switches()) {
    int& at = grid.node_at[static_cast<size_t>(grid.linear(grid.coord[static_cast<size_t>(s)]))];
    if (at >= 0) {
      why = "switches " + quoted(f, at) + " and " + quoted(f, s) + " both get torus coordinates " +
            coord_text(grid.coord[static_cast<size_t>(s)], n);
      return std::nullopt;
    }
    at = s;
  }
  // link by link: ring neighbours (+-1 mod size) in exactly one dimension
  for (int s : f.switches()) {
    const auto& cs = grid.coord[static_cast<size_t>(s)];
    for (const auto& [v, p] : nb(s)) {
      const auto& cv = grid.coord[static_cast<size_t>(v)];
      int ndiff = 0, dir = -1;
      for (int d = 0; d < n; d++) {
        const int sz = grid.size[static_cast<size_t>(d)];
        const int delta = ((cv[static_cast<size_t>(d)] - cs[static_cast<size_t>(d)]) % sz + sz) % sz;
        if (delta == 0) continue;
        ndiff++;
        dir = delta == 1 ? 2 * d : delta == sz - 1 ? 2 * d + 1 : -1;
      }
      if (ndiff != 1 || dir < 0) {
        why = "link " + f.port_name(s, p) + " joins torus coordinates " + coord_text(cs, n) + " and " + coord_text(cv, n) +
              " (" + quoted(f, v) + "), which are not ring neighbours";
        return std::nullopt;
      }
      grid.port[static_cast<size_t>(s)][static_cast<size_t>(dir)] = p;
    }
    for (int k = 0; k < deg; k++)
      if (!grid.port[static_cast<size_t>(s)][static_cast<size_t>(k)]) {
        why = "switch " + quoted(f, s) + " at " + coord_text(cs, n) + " has no " + kDirName[k] + " link";
        return std::nullopt;
      }
  }
  return grid;
}

// Degree histogram of the switch graph: the most common degree and the switches that differ.
struct DegreeSummary {
  int modal = 0;
  std::vector<int> off;  // switches whose degree != modal, ascending node index
  int mindeg = 0, maxdeg = 0;
};

DegreeSummary degree_summary(const Fabric& f, const GridGraph& g) {
  DegreeSummary r;
  std::map<int, int> hist;
  for (int s : f.switches()) hist[static_cast<int>(g.nbr[static_cast<size_t>(s)].size())]++;
  int best = -1;
  for (const auto& [d, c] : hist)
    if (c > best) best = c, r.modal = d;
  r.mindeg = hist.empty() ? 0 : hist.begin()->first;
  r.maxdeg = hist.empty() ? 0 : hist.rbegin()->first;
  for (int s : f.switches())
    if (static_cast<int>(g.nbr[static_cast<size_t>(s)].size()) != r.modal) r.off.push_back(s);
  std::sort(r.off.begin(), r.off.end());
  return r;
}

// "switches "A" and "B" have 3 switch neighbours, every other switch (14 of 16) has 4: a missing link?"
std::string degree_reason(const Fabric& f, const GridGraph& g, const DegreeSummary& ds, const std::string& shape) {
  const int s0 = ds.off.front();
  const int d0 = static_cast<int>(g.nbr[static_cast<size_t>(s0)].size());
  std::string who = "switch " + quoted(f, s0) + " has ";
  if (ds.off.size() >= 2 && static_cast<int>(g.nbr[static_cast<size_t>(ds.off[1])].size()) == d0)
    who = "switches " + quoted(f, s0) + " and " + quoted(f, ds.off[1]) + (ds.off.size() > 2 ? " (and others)" : "") + " have ";
  return who + std::to_string(d0) + " switch neighbours, every other switch (" +
         std::to_string(f.switches().size() - ds.off.size()) + " of " + std::to_string(f.switches().size()) + ") has " +
         std::to_string(ds.modal) + " as in a " + shape + (d0 < ds.modal ? ": a missing link?" : ": an extra link?");
}

}  // namespace

std::optional<MeshGrid> recognise_mesh(const Fabric& f, std::string* why) {
  auto fail = [&](const std::string& msg) -> std::optional<MeshGrid> {
    if (why) *why = msg;
    return std::nullopt;
  };
  const auto& sw = f.switches();
  if (sw.size() < 4) return fail("fewer than 4 switches: not a 2-D/3-D mesh");
  GridGraph g = switch_graph(f);
  int mindeg = 1 << 30, maxdeg = 0;
  for (int s : sw) {
    int d = static_cast<int>(g.nbr[static_cast<size_t>(s)].size());
    mindeg = std::min(mindeg, d);
    maxdeg = std::max(maxdeg, d);
  }
  if (mindeg == maxdeg && (mindeg == 4 || mindeg == 6))
    return fail("every switch has " + std::to_string(mindeg) + " switch neighbours: looks like a torus, which is not supported");
  if (mindeg < 2 || mindeg > 3)
    return fail("switch " + f.node_name(*std::min_element(sw.begin(), sw.end(), [&](int a, int b) {
                  return g.nbr[static_cast<size_t>(a)].size() < g.nbr[static_cast<size_t>(b)].size();
                })) + " has " + std::to_string(mindeg) + " switch neighbours: a 2-D/3-D mesh corner has 2 or 3");
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
    if (d0[static_cast<size_t>(s)] < 0) return fail("switch " + f.node_name(s) + " is not connected to " + f.node_name(c0));
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

namespace ftroute {

std::optional<MeshGrid> recognise_torus(const Fabric& f, std::string* why) {
  auto fail = [&](const std::string& msg) -> std::optional<MeshGrid> {
    if (why) *why = msg;
    return std::nullopt;
  };
  const auto& sw = f.switches();
  if (sw.size() < 9) return fail("fewer than 9 switches: not a 2-D/3-D torus with rings of >= 3 switches");
  GridGraph g = switch_graph(f);
  DegreeSummary ds = degree_summary(f, g);
  if (ds.modal != 4 && ds.modal != 6)
    return fail("most switches have " + std::to_string(ds.modal) +
                " switch neighbours: every switch of a 2-D/3-D torus has 4/6");
  const int n = ds.modal / 2;
  if (!ds.off.empty()) return fail(degree_reason(f, g, ds, std::to_string(n) + "-D torus"));
  // Order by GUID (node index for equal/unset GUIDs): the embedding, hence ft-dor's routing, must
  // not depend on the node numbering (OpenSM's and ibnetdiscover's differ; grid.hpp).
  auto before = [&](int a, int b) { return std::make_pair(f.node(a).guid, a) < std::make_pair(f.node(b).guid, b); };
  const int root = *std::min_element(sw.begin(), sw.end(), before);
  std::vector<int> nbrs;
  for (const auto& [v, p] : g.nbr[static_cast<size_t>(root)]) nbrs.push_back(v);
  std::sort(nbrs.begin(), nbrs.end(), before);
  // Canonical frames: the lowest unassigned neighbour is +e_k of the next dimension k, each
  // remaining neighbour in turn its partner -e_k (see grid.hpp).
  std::string first_why;
  std::optional<MeshGrid> found;
  std::array<int, 6> fr{-1, -1, -1, -1, -1, -1};
  std::function<void(std::vector<int>, int)> pair = [&](std::vector<int> rest, int k) {
    if (found) return;
    if (rest.empty()) {
      std::string w;
      found = try_torus_frame(f, g, n, root, fr, w);
      if (!found && first_why.empty()) first_why = w;
      return;
    }
    fr[static_cast<size_t>(2 * k)] = rest[0];
    for (size_t j = 1; j < rest.size() && !found; j++) {
      fr[static_cast<size_t>(2 * k + 1)] = rest[j];
      std::vector<int> r2;
      for (size_t i = 1; i < rest.size(); i++)
        if (i != j) r2.push_back(rest[i]);
      pair(r2, k + 1);
    }
  };
  pair(nbrs, 0);
  if (found) return found;
  return fail("switch graph is not a full " + std::to_string(n) + "-D torus: " + first_why);
}

std::optional<MeshGrid> recognise_grid(const Fabric& f, std::string* why) {
  std::string mesh_why, torus_why;
  if (auto m = recognise_mesh(f, &mesh_why)) return m;
  if (auto t = recognise_torus(f, &torus_why)) return t;
  if (why) {
    // Explain the shape the fabric resembles (message only): a torus with a few missing/extra
    // links has almost every switch at degree 4/6 and the rest one off; a mesh has corners.
    GridGraph g = switch_graph(f);
    DegreeSummary ds = degree_summary(f, g);
    const bool torus_like = (ds.modal == 4 || ds.modal == 6) && ds.mindeg >= ds.modal - 1 &&
                            ds.maxdeg <= ds.modal + 1 && ds.off.size() * 4 <= f.switches().size();
    *why = torus_like ? torus_why : mesh_why;
  }
  return std::nullopt;
}

}  // namespace ftroute
