// ftree-misroute: fat-tree recognition from the graph, d-mod-k up/down routing, and static
// misrouting around link faults with full reachability, no loops and an acyclic CDG on one VL.
//
// The fault sweeps use their own, independent checker (walk every switch/CA source to every
// LID through the LFTs, collect channel dependencies, look for a cycle), not the engine's
// internal check, so the engine cannot grade its own homework.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ftroute/ftree_misroute/fattree.hpp"
#include "ftree_misroute/ftree_misroute.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "test_scale.hpp"

using namespace ftroute;

namespace {

// k-ary n-tree (Petrini & Vanneschi): n stages of k^(n-1) switches with 2k ports; switch
// (w, l) links up to (w', l+1) iff w and w' differ at most in digit l. Ports 1..k down (hosts
// on stage 0), k+1..2k up. Stage n-1 switches only use their down ports.
struct KTree {
  Fabric f;
  std::vector<std::pair<int, int>> sw_links;  // (node, port) of the lower end of each switch link
};

KTree kary_ntree(int k, int n, uint8_t lmc = 0, bool with_hosts = true) {
  KTree t;
  int per = 1;
  for (int i = 0; i < n - 1; i++) per *= k;
  std::vector<std::vector<int>> sw(static_cast<size_t>(n));
  for (int l = 0; l < n; l++)
    for (int w = 0; w < per; w++)
      sw[static_cast<size_t>(l)].push_back(
          t.f.add_node(NodeType::Switch, "S" + std::to_string(l) + "_" + std::to_string(w), 2 * k));
  auto digit = [&](int w, int i) {
    for (int j = 0; j < i; j++) w /= k;
    return w % k;
  };
  auto with_digit = [&](int w, int i, int v) {
    int p = 1;
    for (int j = 0; j < i; j++) p *= k;
    return w - digit(w, i) * p + v * p;
  };
  for (int l = 0; l + 1 < n; l++)
    for (int w = 0; w < per; w++)
      for (int j = 0; j < k; j++) {
        int a = sw[static_cast<size_t>(l)][static_cast<size_t>(w)];
        int b = sw[static_cast<size_t>(l + 1)][static_cast<size_t>(with_digit(w, l, j))];
        t.f.connect(a, k + 1 + j, b, 1 + digit(w, l));
        t.sw_links.push_back({a, k + 1 + j});
      }
  if (with_hosts)
    for (int w = 0; w < per; w++)
      for (int h = 0; h < k; h++) {
        int ca = t.f.add_node(NodeType::Ca, "H" + std::to_string(w) + "_" + std::to_string(h), 1);
        t.f.connect(ca, 1, sw[0][static_cast<size_t>(w)], 1 + h);
      }
  t.f.assign_default_guids();
  t.f.assign_lids(lmc);
  return t;
}

// 2-level tree: `leaves` leaf switches with `hosts` CAs and one link to each of `spines` spines.
Fabric two_level(int leaves, int spines, int hosts, uint8_t lmc = 0) {
  Fabric f;
  std::vector<int> L, S;
  for (int s = 0; s < spines; s++) S.push_back(f.add_node(NodeType::Switch, "spine" + std::to_string(s), leaves));
  for (int l = 0; l < leaves; l++) L.push_back(f.add_node(NodeType::Switch, "leaf" + std::to_string(l), hosts + spines));
  for (int l = 0; l < leaves; l++) {
    for (int h = 0; h < hosts; h++) {
      int ca = f.add_node(NodeType::Ca, "node" + std::to_string(l) + "_" + std::to_string(h), 1);
      f.connect(ca, 1, L[static_cast<size_t>(l)], h + 1);
    }
    for (int s = 0; s < spines; s++) f.connect(L[static_cast<size_t>(l)], hosts + 1 + s, S[static_cast<size_t>(s)], l + 1);
  }
  f.assign_default_guids();
  f.assign_lids(lmc);
  return f;
}

Fabric mesh(int w, int h) {
  Fabric f;
  std::vector<int> sw;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) sw.push_back(f.add_node(NodeType::Switch, "M" + std::to_string(x) + "_" + std::to_string(y), 5));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      if (x + 1 < w) f.connect(sw[static_cast<size_t>(y * w + x)], 1, sw[static_cast<size_t>(y * w + x + 1)], 2);
      if (y + 1 < h) f.connect(sw[static_cast<size_t>(y * w + x)], 3, sw[static_cast<size_t>((y + 1) * w + x)], 4);
      int ca = f.add_node(NodeType::Ca, "C" + std::to_string(x) + "_" + std::to_string(y), 1);
      f.connect(ca, 1, sw[static_cast<size_t>(y * w + x)], 5);
    }
  f.assign_default_guids();
  f.assign_lids();
  return f;
}

// Independent checker: every source (switch LIDs and CA LIDs) to every LID over the LFTs.
// Channel = (node, out port); a dependency (c1 -> c2) is recorded where a route enters a switch
// on c1 and leaves on c2. Walks stop early when they join a switch already walked for the same
// destination (the LFTs form one in-tree per destination, so the rest is already recorded).
struct Verdict {
  long unreachable = 0, loops = 0;
  long ca_uturns = 0;  // CA-to-CA routes with a down-hop followed by an up-hop (with `ranks`)
  bool cycle = false;
  std::string example;
  bool ok() const { return unreachable == 0 && loops == 0 && !cycle; }
};

// ranks (by node index, optional): switch ranks to count U-turns on CA-to-CA routes.
Verdict verify(const Fabric& f, const Routing& r, const std::vector<int>* ranks = nullptr) {
  Verdict v;
  const uint64_t N = static_cast<uint64_t>(f.size()) * 256;
  std::vector<uint64_t> deps;
  std::vector<EndPort> eps = f.end_ports();
  std::vector<int> seen(static_cast<size_t>(f.size()), -1);  // dest LID that walked this switch
  for (const auto& de : eps)
    for (int off = 0; off < (1 << de.lmc); off++) {
      Lid d = static_cast<Lid>(de.base_lid + off);
      int owner = de.node;
      for (const auto& src : eps) {
        if (src.node == owner) continue;
        int cur = src.node;
        if (!f.node(cur).is_switch()) {
          const Port& p = f.node(src.node).port(src.port);
          if (!p.connected()) continue;
          cur = p.peer_node;
        }
        int64_t prev_ch = -1;
        for (int hops = 0;; hops++) {
          uint8_t out = r.lfts.get(cur, d);
          if (out == 0 && cur == owner) break;
          if (out == kNoPath || out == 0 || out > f.node(cur).num_ports || !f.node(cur).port(out).connected()) {
            if (v.example.empty())
              v.example = "LID " + std::to_string(d) + " from " + f.node(src.node).id + " stops at " + f.node(cur).id;
            v.unreachable++;
            break;
          }
          uint64_t ch = static_cast<uint64_t>(cur) * 256 + out;
          if (prev_ch >= 0) deps.push_back(static_cast<uint64_t>(prev_ch) * N + ch);
          if (seen[static_cast<size_t>(cur)] == d) break;  // rest of this route already walked
          seen[static_cast<size_t>(cur)] = d;
          prev_ch = static_cast<int64_t>(ch);
          const Port& p = f.node(cur).port(out);
          if (!f.node(p.peer_node).is_switch()) {
            if (p.peer_node != owner) v.unreachable++;
            break;
          }
          cur = p.peer_node;
          if (hops > 64) {
            v.loops++;
            if (v.example.empty()) v.example = "loop towards LID " + std::to_string(d);
            break;
          }
        }
      }
    }
  if (ranks) {
    for (const auto& de : eps) {
      if (f.node(de.node).is_switch()) continue;
      for (const auto& src : eps) {
        if (f.node(src.node).is_switch() || src.node == de.node) continue;
        const Port& p0 = f.node(src.node).port(src.port);
        if (!p0.connected()) continue;
        int cur = p0.peer_node;
        bool went_down = false;
        for (int hops = 0; hops < 64; hops++) {
          uint8_t out = r.lfts.get(cur, de.base_lid);
          if (out == kNoPath || out == 0 || !f.node(cur).port(out).connected()) break;
          int nx = f.node(cur).port(out).peer_node;
          if (!f.node(nx).is_switch()) break;
          bool up = (*ranks)[static_cast<size_t>(nx)] > (*ranks)[static_cast<size_t>(cur)];
          if (up && went_down) {
            v.ca_uturns++;
            break;
          }
          went_down = went_down || !up;
          cur = nx;
        }
      }
    }
  }
  // Cycle search: iterative colouring DFS over the dependency graph (CSR).
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  std::vector<uint32_t> off(N + 1, 0);
  for (uint64_t e : deps) off[e / N + 1]++;
  for (uint64_t i = 0; i < N; i++) off[i + 1] += off[i];
  std::vector<uint8_t> color(N, 0);
  for (uint64_t start = 0; start < N && !v.cycle; start++) {
    if (color[start] || off[start] == off[start + 1]) continue;
    std::vector<std::pair<uint64_t, uint32_t>> st{{start, off[start]}};
    color[start] = 1;
    while (!st.empty() && !v.cycle) {
      auto& [node, i] = st.back();
      if (i < off[node + 1]) {
        uint64_t nx = deps[i++] % N;
        if (color[nx] == 1) v.cycle = true;
        else if (color[nx] == 0) {
          color[nx] = 1;
          st.push_back({nx, off[nx]});
        }
      } else {
        color[node] = 2;
        st.pop_back();
      }
    }
  }
  return v;
}

Routing route(const Fabric& f, const EngineOptions& o = {}) {
  FtreeMisrouteEngine e;
  return e.route(f, o);
}

// For the fault sweeps: the engine's own CDG check is off, the independent checker decides.
// The misrouting of the paper alone: no self-check, and no Up*/Down* last resort (which routes
// every connected fabric; tested on its own).
Routing route_unchecked(const Fabric& f) {
  EngineOptions o;
  o.set("check", "false");
  o.set("updn_fallback", "false");
  return route(f, o);
}

// Switch ranks by node index (from the recognition of the faulty fabric).
std::vector<int> ranks_of(const Fabric& f) {
  FatTree ft = recognize_fat_tree(f);
  std::vector<int> r(static_cast<size_t>(f.size()), -1);
  for (int s = 0; s < ft.num_switches(); s++) r[static_cast<size_t>(ft.sw_node[static_cast<size_t>(s)])] = ft.rank[static_cast<size_t>(s)];
  return r;
}

// Removes the given switch links (indices into sw_links) from a copy of the fabric.
Fabric with_faults(const KTree& t, const std::vector<int>& links) {
  Fabric f = t.f;
  for (int i : links) f.disconnect(t.sw_links[static_cast<size_t>(i)].first, t.sw_links[static_cast<size_t>(i)].second);
  return f;
}

}  // namespace

// ---------------------------------------------------------------- recognition

TEST(FtreeRecognition, KaryNtreeParameters) {
  KTree t = kary_ntree(4, 3);
  FatTree ft = recognize_fat_tree(t.f);
  EXPECT_EQ(ft.k, 4);
  EXPECT_EQ(ft.n, 3);
  EXPECT_EQ(ft.height, 2);
  EXPECT_EQ(ft.missing_links, 0);
  EXPECT_EQ(ft.num_hosts, 64);
  for (int r = 0; r <= 2; r++) EXPECT_EQ(ft.by_rank[static_cast<size_t>(r)].size(), 16u);
  for (int s = 0; s < ft.num_switches(); s++) {
    int r = ft.rank[static_cast<size_t>(s)];
    EXPECT_EQ(ft.up[static_cast<size_t>(s)].size(), r < 2 ? 4u : 0u);
    EXPECT_EQ(ft.down[static_cast<size_t>(s)].size(), r > 0 ? 4u : 0u);
    // ranks come from the graph: the stage digit in the name must agree
    EXPECT_EQ(t.f.node(ft.sw_node[static_cast<size_t>(s)]).id[1] - '0', r);
  }
  EXPECT_EQ(ft.num_blocks[0], 16);
  EXPECT_EQ(ft.num_blocks[1], 4);
  EXPECT_EQ(ft.num_blocks[2], 1);
  EXPECT_NE(ft.shape.find("4-ary 3-tree"), std::string::npos) << ft.shape;
}

TEST(FtreeRecognition, OtherKaryTrees) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{2, 2}, {2, 4}, {3, 3}, {8, 2}}) {
    KTree t = kary_ntree(k, n);
    FatTree ft = recognize_fat_tree(t.f);
    EXPECT_EQ(ft.k, k);
    EXPECT_EQ(ft.n, n);
  }
}

TEST(FtreeRecognition, Real648PortTwoLevelTree) {
  Fabric f = two_level(36, 18, 18);
  FatTree ft = recognize_fat_tree(f);
  EXPECT_EQ(ft.height, 1);
  EXPECT_EQ(ft.by_rank[0].size(), 36u);
  EXPECT_EQ(ft.by_rank[1].size(), 18u);
  EXPECT_EQ(ft.num_hosts, 648);
  EXPECT_EQ(ft.k, 0);  // not a k-ary n-tree (36 leaves, 18 spines)
  EXPECT_EQ(ft.missing_links, 0);
  EXPECT_NE(ft.shape.find("2-level fat tree"), std::string::npos) << ft.shape;
}

TEST(FtreeRecognition, ToleratesMissingLinks) {
  KTree t = kary_ntree(4, 3);
  Fabric f = with_faults(t, {0, 70, 100});
  FatTree ft = recognize_fat_tree(f);
  EXPECT_EQ(ft.k, 4);
  EXPECT_EQ(ft.missing_links, 3);
}

TEST(FtreeRecognition, RejectsMesh) {
  Fabric f = mesh(3, 3);
  try {
    recognize_fat_tree(f);
    FAIL() << "mesh accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("not a fat tree"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"M"), std::string::npos) << e.what();  // names a switch port
  }
}

TEST(FtreeRecognition, RejectsMeshWithHostsOnOneCornerOnly) {
  // Ranks are consistent (bipartite), but switches reach one sub-tree through two children.
  Fabric f;
  std::vector<int> sw;
  for (int i = 0; i < 9; i++) sw.push_back(f.add_node(NodeType::Switch, "G" + std::to_string(i), 5));
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 3; x++) {
      if (x < 2) f.connect(sw[static_cast<size_t>(y * 3 + x)], 1, sw[static_cast<size_t>(y * 3 + x + 1)], 2);
      if (y < 2) f.connect(sw[static_cast<size_t>(y * 3 + x)], 3, sw[static_cast<size_t>((y + 1) * 3 + x)], 4);
    }
  int ca = f.add_node(NodeType::Ca, "H", 1);
  f.connect(ca, 1, sw[0], 5);
  f.assign_lids();
  try {
    recognize_fat_tree(f);
    FAIL() << "mesh accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("through two different switches"), std::string::npos) << e.what();
  }
}

TEST(FtreeRecognition, RejectsTorusRing) {
  Fabric f;
  std::vector<int> sw;
  for (int i = 0; i < 4; i++) sw.push_back(f.add_node(NodeType::Switch, "R" + std::to_string(i), 3));
  for (int i = 0; i < 4; i++) f.connect(sw[static_cast<size_t>(i)], 1, sw[static_cast<size_t>((i + 1) % 4)], 2);
  for (int i = 0; i < 4; i++) f.connect(f.add_node(NodeType::Ca, "H" + std::to_string(i), 1), 1, sw[static_cast<size_t>(i)], 3);
  f.assign_lids();
  EXPECT_THROW(recognize_fat_tree(f), EngineError);
}

// A host on a spine (storage, a gateway) no longer makes the spine a leaf: spine0 sees 4 CA-attached
// neighbours, each leaf only 1, so spine0 is an upper-level host switch (issue 16). Two CA-attached
// switches that see equally many (two leaves cabled to each other) are still refused.
TEST(FtreeRecognition, HostOnSpineIsAnUpperLevelHost) {
  Fabric f = two_level(4, 2, 2);
  // give spine0 a host on an extra port: rebuild with a spare port
  Fabric g;
  std::vector<int> L, S;
  for (int s = 0; s < 2; s++) S.push_back(g.add_node(NodeType::Switch, "spine" + std::to_string(s), 5));
  for (int l = 0; l < 4; l++) L.push_back(g.add_node(NodeType::Switch, "leaf" + std::to_string(l), 4));
  for (int l = 0; l < 4; l++) {
    for (int h = 0; h < 2; h++) g.connect(g.add_node(NodeType::Ca, "n" + std::to_string(l * 2 + h), 1), 1, L[static_cast<size_t>(l)], h + 1);
    for (int s = 0; s < 2; s++) g.connect(L[static_cast<size_t>(l)], 3 + s, S[static_cast<size_t>(s)], l + 1);
  }
  g.connect(g.add_node(NodeType::Ca, "mgmt", 1), 1, S[0], 5);
  g.assign_lids();
  EXPECT_NO_THROW(recognize_fat_tree(f));
  FatTree t = recognize_fat_tree(g);
  EXPECT_EQ(t.rank[static_cast<size_t>(t.sw_index[static_cast<size_t>(S[0])])], 1);
  EXPECT_EQ(t.leaves.size(), 4u);
  EXPECT_EQ(t.hosted.size(), 5u);
  // leaf0 - leaf1 cabled directly: both see one CA-attached neighbour, a tie
  Fabric h = g;
  h.disconnect(*h.find("mgmt"), 1);
  h.disconnect(L[0], 1);
  h.disconnect(L[1], 1);
  h.connect(L[0], 1, L[1], 1);
  h.assign_lids();
  try {
    recognize_fat_tree(h);
    FAIL() << "two leaves cabled to each other accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("hosts on a non-leaf switch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"leaf0\"[1]"), std::string::npos) << e.what();
  }
}

TEST(FtreeRecognition, RejectsDisconnectedAndHostless) {
  KTree t = kary_ntree(2, 2, 0, false);
  EXPECT_THROW(recognize_fat_tree(t.f), EngineError);
  Fabric f = two_level(2, 2, 1);
  f.add_node(NodeType::Switch, "lonely", 4);
  try {
    recognize_fat_tree(f);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("lonely"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- fault-free routing

TEST(FtreeMisroute, Registered) {
  auto e = make_engine("ftree-misroute");
  EXPECT_EQ(e->name(), "ftree-misroute");
}

TEST(FtreeMisroute, FaultFreeIsMinimalUpDownAndBalanced) {
  KTree t = kary_ntree(4, 3);
  Routing r = route(t.f);
  EXPECT_EQ(r.num_vls, 1);
  Verdict v = verify(t.f, r);
  EXPECT_TRUE(v.ok()) << v.example;
  FatTree ft = recognize_fat_tree(t.f);
  // CA-to-CA routes: up to the lowest common block, then down (2 * LCA rank switch hops), and
  // every up-port of every non-top switch carries the same number of CA destinations (d-mod-k).
  std::map<std::pair<int, int>, int> load;  // (switch node, up port) -> CA LIDs routed through it
  for (const auto& ep : t.f.end_ports()) {
    if (t.f.node(ep.node).is_switch()) continue;
    for (int s = 0; s < ft.num_switches(); s++) {
      int node = ft.sw_node[static_cast<size_t>(s)];
      uint8_t p = r.lfts.get(node, ep.base_lid);
      for (const auto& u : ft.up[static_cast<size_t>(s)])
        if (u.port == p) load[{node, p}]++;
    }
  }
  std::set<int> loads;
  for (auto& [k, n] : load) loads.insert(n);
  // leaf: 64-4 non-local CAs over 4 ports = 15 each; rank 1: 64-16 over 4 = 12 each
  EXPECT_EQ(loads, (std::set<int>{12, 15})) << "unbalanced up-port loads";
  // hop counts: CA to CA within a leaf 0 switch-links, same group 2, else 4
  for (const auto& src : t.f.end_ports()) {
    if (t.f.node(src.node).is_switch()) continue;
    int leaf = t.f.node(src.node).port(src.port).peer_node;
    for (const auto& dst : t.f.end_ports()) {
      if (t.f.node(dst.node).is_switch() || dst.node == src.node) continue;
      int dleaf = t.f.node(dst.node).port(dst.port).peer_node;
      int cur = leaf, hops = 0;
      while (cur != dleaf && hops < 10) {
        cur = t.f.node(cur).port(r.lfts.get(cur, dst.base_lid)).peer_node;
        hops++;
      }
      int a = ft.sw_index[static_cast<size_t>(leaf)], b = ft.sw_index[static_cast<size_t>(dleaf)];
      int lca = 0;
      while (ft.block[static_cast<size_t>(lca)][static_cast<size_t>(a)] != ft.block[static_cast<size_t>(lca)][static_cast<size_t>(b)]) lca++;
      ASSERT_EQ(hops, 2 * lca) << t.f.node(src.node).id << " -> " << t.f.node(dst.node).id;
    }
  }
}

TEST(FtreeMisroute, ShiftPermutationIsContentionFree) {
  // D-mod-K on a k-ary n-tree: a shift permutation (host i -> host i+s) uses every switch link
  // at most once per direction.
  KTree t = kary_ntree(4, 3);
  Routing r = route(t.f);
  std::vector<EndPort> cas;
  for (const auto& ep : t.f.end_ports())
    if (!t.f.node(ep.node).is_switch()) cas.push_back(ep);
  std::sort(cas.begin(), cas.end(), [&](const EndPort& a, const EndPort& b) { return t.f.node(a.node).id < t.f.node(b.node).id; });
  // order hosts like the tree: H<leaf>_<h>, leaf index = digits
  std::sort(cas.begin(), cas.end(), [&](const EndPort& a, const EndPort& b) {
    auto key = [&](const EndPort& e) {
      const std::string& id = t.f.node(e.node).id;
      size_t u = id.find('_');
      return std::stoi(id.substr(1, u - 1)) * 100 + std::stoi(id.substr(u + 1));
    };
    return key(a) < key(b);
  });
  for (int shift : {1, 4, 5, 16, 17, 33}) {
    std::map<std::pair<int, int>, int> use;
    int maxuse = 0;
    for (size_t i = 0; i < cas.size(); i++) {
      const EndPort& s = cas[i];
      const EndPort& d = cas[(i + static_cast<size_t>(shift)) % cas.size()];
      int cur = t.f.node(s.node).port(s.port).peer_node;
      for (int hop = 0; hop < 10; hop++) {
        uint8_t p = r.lfts.get(cur, d.base_lid);
        int nx = t.f.node(cur).port(p).peer_node;
        if (!t.f.node(nx).is_switch()) break;
        maxuse = std::max(maxuse, ++use[{cur, p}]);
        cur = nx;
      }
    }
    EXPECT_EQ(maxuse, 1) << "shift " << shift;
  }
}

TEST(FtreeMisroute, LmcLidsTakeDifferentUpPorts) {
  KTree t = kary_ntree(4, 3, 2);
  Routing r = route(t.f);
  EXPECT_TRUE(verify(t.f, r).ok());
  FatTree ft = recognize_fat_tree(t.f);
  int leaf = ft.sw_node[static_cast<size_t>(ft.leaves[0])];
  for (const auto& ep : t.f.end_ports()) {
    if (t.f.node(ep.node).is_switch() || t.f.node(ep.node).port(ep.port).peer_node == leaf) continue;
    std::set<uint8_t> ports;
    for (int o = 0; o < 4; o++) ports.insert(r.lfts.get(leaf, static_cast<Lid>(ep.base_lid + o)));
    EXPECT_EQ(ports.size(), 4u) << t.f.node(ep.node).id;
  }
}

TEST(FtreeMisroute, TwoLevel648AndSwitchLids) {
  Fabric f = two_level(36, 18, 18);
  Routing r = route(f);
  Verdict v = verify(f, r);
  EXPECT_TRUE(v.ok()) << v.example;
  // every spine carries 648/18 = 36 destinations up from every leaf (minus its own 18 hosts)
  // Counted from the leaves' LFTs: leaf l reaches spine s through port 18 + 1 + s (two_level's
  // cabling). Each spine is the up-path of exactly 36 CA LIDs (the same spine from every leaf),
  // and from one leaf each of its 18 up-ports carries 35 of the 630 remote CA LIDs (36 minus the
  // one on that leaf): balanced to the LID.
  std::vector<std::set<Lid>> per_spine(18);
  for (int l = 0; l < 36; l++) {
    const int leaf = *f.find("leaf" + std::to_string(l));
    std::vector<int> per_port(18, 0);
    for (const EndPort& e : f.end_ports()) {
      if (f.node(e.node).is_switch() || f.node(e.node).port(1).peer_node == leaf) continue;
      const int p = r.lfts.get(leaf, e.base_lid);
      ASSERT_GE(p, 19) << "leaf" << l << " sends remote LID " << e.base_lid << " down port " << p;
      ASSERT_LE(p, 36);
      per_port[static_cast<size_t>(p - 19)]++;
      per_spine[static_cast<size_t>(p - 19)].insert(e.base_lid);
    }
    for (int s = 0; s < 18; s++) EXPECT_EQ(per_port[static_cast<size_t>(s)], 35) << "leaf" << l << " up-port to spine" << s;
  }
  for (int s = 0; s < 18; s++) EXPECT_EQ(per_spine[static_cast<size_t>(s)].size(), 36u) << "spine" << s;
  CdgBuildOptions co;
  co.switch_sources = true;
  CdgBuild b = build_cdg(f, r, co);
  EXPECT_EQ(b.stats.dropped, 0u);
  EXPECT_FALSE(b.cdg.find_cycle(0).has_value());
}

TEST(FtreeMisroute, RejectsUnknownOptionAndBadValleyLeaf) {
  KTree t = kary_ntree(2, 2);
  EngineOptions o;
  o.set("bogus", "1");
  EXPECT_THROW(route(t.f, o), OptionError);
  EngineOptions o2;
  o2.set("valley_leaf", "S1_0");
  EXPECT_THROW(route(t.f, o2), OptionError);
  EngineOptions o3;
  o3.set("valley_leaf", "S0_1");
  EXPECT_TRUE(verify(t.f, route(t.f, o3)).ok());
}

TEST(FtreeMisroute, MeshIsRejectedWithReason) {
  Fabric f = mesh(3, 3);
  try {
    route(f);
    FAIL();
  } catch (const EngineError& e) {
    EXPECT_EQ(e.engine(), "ftree-misroute");
  }
}

// ---------------------------------------------------------------- faults

TEST(FtreeMisroute, AllSingleLinkFaults4ary3tree) {
  KTree t = kary_ntree(4, 3);
  ASSERT_EQ(t.sw_links.size(), 128u);
  for (int i = 0; i < 128; i++) {
    Fabric f = with_faults(t, {i});
    Routing r = route_unchecked(f);
    std::vector<int> rk = ranks_of(f);
    Verdict v = verify(f, r, &rk);
    ASSERT_TRUE(v.ok()) << "fault " << i << ": " << v.example << (v.cycle ? " (CDG cycle)" : "");
    // fewer than k faults: CA-to-CA traffic keeps plain up/down routes (no U-turn)
    ASSERT_EQ(v.ca_uturns, 0) << "fault " << i;
  }
}

// CA-to-CA routes per directed switch link (the edge forwarding index of host traffic), walked
// through the tables from every CA's leaf to every other CA.
int max_ca_link_load(const Fabric& f, const Routing& r) {
  std::map<std::pair<int, int>, int> load;  // (switch node, out port) -> routes
  for (const auto& src : f.end_ports()) {
    if (f.node(src.node).is_switch()) continue;
    const int leaf = f.node(src.node).port(src.port).peer_node;
    for (const auto& dst : f.end_ports()) {
      if (f.node(dst.node).is_switch() || dst.node == src.node) continue;
      int cur = leaf;
      for (int hops = 0; hops < 16 && f.node(cur).is_switch(); hops++) {
        const uint8_t p = r.lfts.get(cur, dst.base_lid);
        const int next = f.node(cur).port(p).peer_node;
        if (!f.node(next).is_switch()) break;
        load[{cur, p}]++;
        cur = next;
      }
    }
  }
  int mx = 0;
  for (const auto& [k, n] : load) mx = std::max(mx, n);
  return mx;
}

// With one cable cut, the destinations whose d-mod-k parent no longer leads to them are spread
// over the remaining parents by source (Plan::Spread), and every other destination keeps its
// fault-free up-port. Taken over one other parent by every source, one of the cut leaf's three
// remaining down-cables carried two hosts' routes (120 here; the simulated throughput fell 11 %
// at the first fault, docs/ftree-misroute.md "Re-routed destinations spread by source").
TEST(FtreeMisroute, SingleFaultSpreadsReroutedDestinationsOverSources) {
  KTree t = kary_ntree(4, 3);
  const Routing clean = route(t.f);
  const int clean_max = max_ca_link_load(t.f, clean);
  EXPECT_EQ(clean_max, 60);  // fault-free: each leaf down-cable carries one host from 60 sources
  int worst = 0;
  for (int i = 0; i < 128; i++) {
    Fabric f = with_faults(t, {i});
    const Routing r = route_unchecked(f);
    worst = std::max(worst, max_ca_link_load(f, r));
    // At the leaves that kept their cables, the fault-free up-port stays wherever its parent still
    // leads to the destination with all its cables: a
    // leaf's spine reaches another leaf of its pod by a cable, one of another pod through some
    // core above it and that pod's spine of its plane.
    FatTree ft = recognize_fat_tree(f);
    auto idx = [&](int node) { return static_cast<size_t>(ft.sw_index[static_cast<size_t>(node)]); };
    auto node_of = [&](int s) { return ft.sw_node[static_cast<size_t>(s)]; };
    auto reaches = [&](int parent, int dleaf) {
      for (const auto& e : ft.down[idx(parent)])
        if (node_of(e.peer) == dleaf) return true;
      for (const auto& c : ft.up[idx(parent)])
        for (const auto& sp : ft.down[static_cast<size_t>(c.peer)])
          for (const auto& l : ft.down[static_cast<size_t>(sp.peer)])
            if (node_of(l.peer) == dleaf) return true;
      return false;
    };
    auto ways = [&](int parent, int dleaf) {  // cores above `parent` that lead down to dleaf
      int n = 0;
      for (const auto& e : ft.down[idx(parent)])
        if (node_of(e.peer) == dleaf) return 1000;  // its own pod: straight down
      for (const auto& c : ft.up[idx(parent)]) {
        bool on = false;
        for (const auto& sp : ft.down[static_cast<size_t>(c.peer)])
          for (const auto& l : ft.down[static_cast<size_t>(sp.peer)]) on |= node_of(l.peer) == dleaf;
        n += on;
      }
      return n;
    };
    int changed = 0;
    for (int s : ft.by_rank[0]) {
      const int node = node_of(s);
      if (ft.up[static_cast<size_t>(s)].size() < 4) continue;  // the cut leaf: d-mod-k over its 3 cables
      for (const auto& dst : f.end_ports()) {
        if (f.node(dst.node).is_switch()) continue;
        const int dleaf = f.node(dst.node).port(dst.port).peer_node;
        if (dleaf == node) continue;
        const uint8_t was = clean.lfts.get(node, dst.base_lid), now = r.lfts.get(node, dst.base_lid);
        if (was == now) continue;
        changed++;
        const auto& old_port = f.node(node).port(was);
        // a parent with fewer ways on to the destination than the leaf's widest (a core cable of
        // its plane cut) hands that share of its destinations to the widest (Plan::Spread's weights)
        int widest = 0;
        for (const auto& e : ft.up[static_cast<size_t>(s)]) widest = std::max(widest, ways(node_of(e.peer), dleaf));
        if (old_port.connected() && ways(old_port.peer_node, dleaf) < widest) continue;
        ASSERT_FALSE(old_port.connected() && reaches(old_port.peer_node, dleaf))
            << "fault " << i << ": leaf " << f.node(node).id << " moved LID " << dst.base_lid
            << " off a parent that still reaches it";
      }
    }
    // a cable under a leaf moves its hosts' routes at the other leaves; one above a spine a
    // quarter of the destinations its plane served in that pod
    EXPECT_LE(changed, 15 * 16) << "fault " << i;
  }
  // 60 from each host of the cut leaf, plus its share of the host re-routed over the other 3
  EXPECT_LE(worst, 84) << "re-routed destinations piled onto one parent";
}

// A spine that lost a core cable reaches the other pods over 3 cores instead of 4: the leaves of
// its pod weigh their parents by those ways on (Plan::Spread's weights) and send it 3/4 of its share, the
// rest to the full spines, so its remaining core cables are not the busiest links (by d-mod-k
// alone they carry 4/3 of the others' routes). Checked over every single spine-core fault: the
// busiest link carries no more than fault-free plus a sixth.
TEST(FtreeMisroute, SpineShortOfACoreCableCarriesItsShare) {
  KTree t = kary_ntree(4, 3);
  const int clean_max = max_ca_link_load(t.f, route(t.f));
  int worst = 0, spine_core = 0;
  for (int i = 0; i < 128; i++) {
    const auto [node, port] = t.sw_links[static_cast<size_t>(i)];
    if (t.f.node(node).id.rfind("S1_", 0) != 0) continue;  // the lower end a spine: a spine-core cable
    spine_core++;
    Fabric f = with_faults(t, {i});
    worst = std::max(worst, max_ca_link_load(f, route_unchecked(f)));
  }
  ASSERT_EQ(spine_core, 64);
  EXPECT_LE(worst, clean_max + clean_max / 6) << "fault-free " << clean_max;
}

TEST(FtreeMisroute, AllDoubleLinkFaults4ary3tree) {
  KTree t = kary_ntree(4, 3);
  int n = 0;
  for (int i = 0; i < 128; i++)
    for (int j = i + 1; j < 128; j++) {
      Fabric f = with_faults(t, {i, j});
      Routing r = route_unchecked(f);
      std::vector<int> rk = ranks_of(f);
      Verdict v = verify(f, r, &rk);
      ASSERT_TRUE(v.ok()) << "faults " << i << "," << j << ": " << v.example << (v.cycle ? " (CDG cycle)" : "");
      ASSERT_EQ(v.ca_uturns, 0) << "faults " << i << "," << j;
      n++;
    }
  EXPECT_EQ(n, 8128);
}

TEST(FtreeMisroute, ThousandRandomTripleLinkFaults4ary3tree) {
  KTree t = kary_ntree(4, 3);
  std::mt19937 rng(20260101);
  for (int run = 0; run < test_scale::rounds(1000); run++) {
    std::vector<int> all(128);
    for (int i = 0; i < 128; i++) all[static_cast<size_t>(i)] = i;
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<int> pick(all.begin(), all.begin() + 3);
    Fabric f = with_faults(t, pick);
    Routing r = route_unchecked(f);
    std::vector<int> rk = ranks_of(f);
    Verdict v = verify(f, r, &rk);
    ASSERT_TRUE(v.ok()) << "run " << run << ": " << v.example << (v.cycle ? " (CDG cycle)" : "");
    ASSERT_EQ(v.ca_uturns, 0) << "run " << run;
  }
}

// Beyond radix/2 - 1 = 3 faults the paper gives no guarantee. Report the tolerated fraction
// (the engine either returns a routing that passes the independent checker, or throws an
// EngineError with a reason; anything else fails the test).
TEST(FtreeMisroute, FractionToleratedBeyondGuarantee) {
  KTree t = kary_ntree(4, 3);
  std::mt19937 rng(4242);
  std::printf("faults  tolerated/500  (4-ary 3-tree, random switch-link faults, seed 4242)\n");
  // The documented figures (docs/ftree-misroute.md, "4-20 random faults"), tolerated runs of 500.
  // The run is deterministic, so today it reproduces them exactly; the tolerance of 25 runs (5
  // points) is about 3 binomial standard deviations at the middle rows (sqrt(500 * 0.62 * 0.38)
  // = 10.9 runs at 12 faults, 8.2 at 8): a change of RNG, shuffle or engine tie-break that keeps
  // the engine's strength passes, an engine that refuses (or breaks) more fault sets fails.
  const std::map<int, int> documented = {{4, 496}, {5, 493}, {6, 477}, {8, 419}, {12, 311}, {16, 173}, {20, 108}};
  const int tolerance = 25;
  for (auto [nf, expected] : documented) {
    int ok = 0, disconnected = 0, with_ca_uturns = 0;
    for (int run = 0; run < 500; run++) {
      std::vector<int> all(128);
      for (int i = 0; i < 128; i++) all[static_cast<size_t>(i)] = i;
      std::shuffle(all.begin(), all.end(), rng);
      Fabric f = with_faults(t, std::vector<int>(all.begin(), all.begin() + nf));
      if (!f.connected()) disconnected++;
      try {
        Routing r = route_unchecked(f);
        std::vector<int> rk = ranks_of(f);
        Verdict v = verify(f, r, &rk);
        ASSERT_TRUE(v.ok()) << nf << " faults, run " << run << ": engine returned a bad routing: " << v.example;
        ok++;
        if (v.ca_uturns) with_ca_uturns++;
      } catch (const EngineError& e) {
        EXPECT_FALSE(std::string(e.reason()).empty());
      }
    }
    std::printf("%6d  %d/500 = %.1f%%  (physically disconnected: %d; routed, but some CA-to-CA routes U-turn: %d)\n",
                nf, ok, 100.0 * ok / 500, disconnected, with_ca_uturns);
    EXPECT_NEAR(ok, expected, tolerance) << nf << " faults: docs/ftree-misroute.md says " << expected << "/500";
  }
}

// For a routing made by the Up*/Down* last resort: the root named in its note, BFS levels from it
// (a fat tree is bipartite, so every link joins two levels), and every switch-to-LID route walked:
// once a route descends (to a higher level) it never climbs again. "" if so, else the first
// offending route.
std::string updn_violation(const Fabric& f, const Routing& r) {
  int root = -1;
  for (int s : f.switches())
    if (r.notes.back().find("from root " + f.node_name(s) + " ") != std::string::npos) root = s;
  if (root < 0) return "no root named in: " + r.notes.back();
  std::vector<int> lvl(static_cast<size_t>(f.size()), -1), q{root};
  lvl[static_cast<size_t>(root)] = 0;
  for (size_t h = 0; h < q.size(); h++)
    for (int p = 1; p <= f.node(q[h]).num_ports; p++) {
      const Port& pt = f.node(q[h]).port(p);
      if (pt.connected() && f.node(pt.peer_node).is_switch() && lvl[static_cast<size_t>(pt.peer_node)] < 0) {
        lvl[static_cast<size_t>(pt.peer_node)] = lvl[static_cast<size_t>(q[h])] + 1;
        q.push_back(pt.peer_node);
      }
    }
  for (const EndPort& ep : f.end_ports())
    for (int s : f.switches()) {
      int at = s;
      bool descended = false;
      for (int hop = 0; hop < 64; hop++) {
        const uint8_t p = r.lfts.get(at, ep.base_lid);
        if (p == 0 || p == kNoPath) break;
        const Port& pt = f.node(at).port(p);
        if (!pt.connected() || !f.node(pt.peer_node).is_switch()) break;
        const bool down = lvl[static_cast<size_t>(pt.peer_node)] > lvl[static_cast<size_t>(at)];
        if (descended && !down) return f.node_name(s) + " -> LID " + std::to_string(ep.base_lid) + " climbs at " + f.node_name(at);
        descended = descended || down;
        at = pt.peer_node;
      }
    }
  return "";
}

// The last resort of all (updn_fallback, on by default): Up*/Down* from one root routes every
// connected fault set that the misrouting refuses, on one VL, loop and deadlock free (checked by
// this file's own walker); a disconnected one stays refused. Fault sets the misrouting serves keep
// its tables.
TEST(FtreeMisroute, UpDownLastResortRoutesEveryConnectedFaultSet) {
  KTree t = kary_ntree(4, 3);
  std::mt19937 rng(777);
  int by_updn = 0, by_misrouting = 0, disconnected = 0;
  for (int run = 0; run < 150; run++) {
    std::vector<int> all(128);
    for (int i = 0; i < 128; i++) all[static_cast<size_t>(i)] = i;
    std::shuffle(all.begin(), all.end(), rng);
    const int nf = 10 + run % 11;
    Fabric f = with_faults(t, std::vector<int>(all.begin(), all.begin() + nf));
    if (!f.connected()) {
      disconnected++;
      EXPECT_THROW(route(f), EngineError) << "run " << run;
      continue;
    }
    bool refused = false;
    try {
      route_unchecked(f);
    } catch (const EngineError&) {
      refused = true;
    }
    Routing r = route(f);
    Verdict v = verify(f, r);
    ASSERT_TRUE(v.ok()) << nf << " faults, run " << run << ": " << v.example;
    EXPECT_EQ(r.num_vls, 1);
    ASSERT_FALSE(r.notes.empty());
    const bool updn = r.notes.back().find("Up*/Down* from root") != std::string::npos;
    EXPECT_EQ(updn, refused) << r.notes.back();
    if (updn) {  // the last resort itself (the cable balancing then moves routes off Up*/Down*)
      EngineOptions pure;
      pure.set("balance", "false");
      EXPECT_EQ(updn_violation(f, route(f, pure)), "") << nf << " faults, run " << run;
    }
    (updn ? by_updn : by_misrouting)++;
  }
  std::printf("150 fault sets of 10-20 faults: %d by the misrouting, %d by Up*/Down*, %d disconnected\n",
              by_misrouting, by_updn, disconnected);
  EXPECT_GT(by_updn, 20);
  EXPECT_GT(by_misrouting, 20);
}

// Every one of the C(128,3) = 341,376 triple-fault sets. Long (about 15-30 min on one core):
// runs only with FTROUTE_LONG_TESTS=1 (see docs/ftree-misroute.md for the recorded result).
TEST(FtreeMisrouteLong, AllTripleLinkFaults4ary3tree) {
  if (!std::getenv("FTROUTE_LONG_TESTS")) GTEST_SKIP() << "set FTROUTE_LONG_TESTS=1 to run (long)";
  KTree t = kary_ntree(4, 3);
  long n = 0;
  for (int i = 0; i < 128; i++)
    for (int j = i + 1; j < 128; j++)
      for (int l = j + 1; l < 128; l++) {
        Fabric f = with_faults(t, {i, j, l});
        Routing r = route_unchecked(f);
        std::vector<int> rk = ranks_of(f);
        Verdict v = verify(f, r, &rk);
        ASSERT_TRUE(v.ok()) << "faults " << i << "," << j << "," << l << ": " << v.example;
        ASSERT_EQ(v.ca_uturns, 0) << "faults " << i << "," << j << "," << l;
        n++;
      }
  EXPECT_EQ(n, 341376);
}

// Every triple-fault set up to symmetry: the automorphisms of a k-ary n-tree (independent value
// permutations of the leaf digit 0 and of each switch digit, see the Petrini labelling) act
// transitively on the links of one level, so every triple maps onto a triple that contains the
// level-0 representative link 0 or the level-1 representative link 64. 2 x C(127,2) = 16,002
// sets instead of 341,376. The fabric symmetry is exact; the engine's tie-breaks (d-mod-k
// order, valley-leaf order) depend on indices, so this is strong evidence for all triples, not a
// proof (the full enumeration above is). Long (minutes of CPU): runs with FTROUTE_LONG_TESTS=1.
TEST(FtreeMisrouteLong, AllTripleLinkFaultsUpToSymmetry4ary3tree) {
  if (!std::getenv("FTROUTE_LONG_TESTS")) GTEST_SKIP() << "set FTROUTE_LONG_TESTS=1 to run (long)";
  KTree t = kary_ntree(4, 3);
  long n = 0;
  for (int rep : {0, 64})
    for (int i = 0; i < 128; i++)
      for (int j = i + 1; j < 128; j++) {
        if (i == rep || j == rep) continue;
        Fabric f = with_faults(t, {rep, i, j});
        Routing r = route_unchecked(f);
        std::vector<int> rk = ranks_of(f);
        Verdict v = verify(f, r, &rk);
        ASSERT_TRUE(v.ok()) << "faults " << rep << "," << i << "," << j << ": " << v.example;
        ASSERT_EQ(v.ca_uturns, 0) << "faults " << rep << "," << i << "," << j;
        n++;
      }
  EXPECT_EQ(n, 2 * 127 * 126 / 2);
}
