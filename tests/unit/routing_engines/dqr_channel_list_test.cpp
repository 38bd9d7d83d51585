// DQR channel list: topological order of every channel, turn enabling by reordering
// (Pearce-Kelly), joint ("all turns") checks, refusal of routings that are not deadlock-free.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "dor/dor.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/dqr/channel_list.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/topology.hpp"
#include "test_grids.hpp"

using namespace ftroute;
using Dep = ChannelList::Dep;

namespace {
// brute-force: is there a cycle in deps?
bool cyclic(uint32_t n, const std::vector<Dep>& deps) {
  std::vector<std::vector<uint32_t>> adj(n);
  for (auto [a, b] : deps) adj[a].push_back(b);
  std::vector<int> state(n, 0);
  std::function<bool(uint32_t)> dfs = [&](uint32_t u) {
    state[u] = 1;
    for (uint32_t v : adj[u]) {
      if (state[v] == 1) return true;
      if (state[v] == 0 && dfs(v)) return true;
    }
    state[u] = 2;
    return false;
  };
  for (uint32_t u = 0; u < n; u++)
    if (state[u] == 0 && dfs(u)) return true;
  return false;
}
}  // namespace

// Paper Fig. 1/2: a 4-node ring A-B-C-D. Clockwise paths AB->BC->CD->DA and counter-clockwise
// BA->AD->DC: deadlock-free, so every dependency goes up in the list. A dependency closing the
// ring is refused. After link D-A fails, the path D->A needs DC->CB->BA: DC->CB goes down in the
// list and is enabled by moving channels up; CB->BA would close BA->AD->DC->CB while the old
// dependencies through the dead AD are kept, and becomes possible once they are dropped.
TEST(ChannelList, RingExampleFromThePaper) {
  enum : uint32_t { AB, BC, CD, DA, BA, CB, DC, AD, N };
  ChannelList cl(N, {AB, BC, CD, DA, BA, CB, DC, AD}, {{AB, BC}, {BC, CD}, {CD, DA}, {BA, AD}, {AD, DC}});
  EXPECT_EQ(cl.num_channels(), 8u);
  EXPECT_TRUE(cl.valid());
  EXPECT_LT(cl.pos(AB), cl.pos(BC));
  EXPECT_LT(cl.pos(CD), cl.pos(DA));
  auto before = cl.order();
  EXPECT_FALSE(cl.can_enable(DA, AB));
  EXPECT_FALSE(cl.enable(DA, AB));
  EXPECT_EQ(cl.order(), before);
  ASSERT_GT(cl.pos(DC), cl.pos(CB));  // Kahn with ties by id puts CB first: DC->CB is a downward turn
  EXPECT_TRUE(cl.enable(DC, CB));
  EXPECT_EQ(cl.turns_enabled(), 1u);
  EXPECT_GT(cl.channels_moved(), 0u);
  EXPECT_LT(cl.pos(DC), cl.pos(CB));
  EXPECT_TRUE(cl.valid());
  EXPECT_FALSE(cl.can_enable(CB, BA));  // BA -> AD -> DC -> CB
  cl.replace_dependencies({{AB, BC}, {BC, CD}, {DC, CB}});  // transition over, DA/AD gone
  EXPECT_TRUE(cl.enable(CB, BA));
  EXPECT_TRUE(cl.valid());
  EXPECT_LT(cl.pos(DC), cl.pos(CB));
  EXPECT_LT(cl.pos(CB), cl.pos(BA));
}

// "All turns": each turn alone is fine, the pair closes a cycle; can_enable with the first
// turn as extra sees it, enable_all refuses the pair atomically.
TEST(ChannelList, JointCheckSeesCyclesOfSeveralTurns) {
  // chain 0->1->2 and 3->4->5
  ChannelList cl(6, {0, 1, 2, 3, 4, 5}, {{0, 1}, {1, 2}, {3, 4}, {4, 5}});
  EXPECT_TRUE(cl.can_enable(2, 3));
  EXPECT_TRUE(cl.can_enable(5, 0));
  EXPECT_FALSE(cl.can_enable(5, 0, {{2, 3}}));
  auto before = cl.order();
  EXPECT_FALSE(cl.enable_all({{2, 3}, {5, 0}}));
  EXPECT_EQ(cl.order(), before);
  EXPECT_FALSE(cl.has_dep(2, 3));
  EXPECT_TRUE(cl.enable_all({{5, 0}}));
  EXPECT_TRUE(cl.valid());
  EXPECT_FALSE(cl.can_enable(2, 3));
}

// Random graphs: can_enable/enable agree with a brute-force cycle test and the list stays a
// valid topological order after every operation.
TEST(ChannelList, RandomOperationsMatchBruteForce) {
  std::mt19937 rng(3);
  for (int g = 0; g < 30; g++) {
    const uint32_t n = 12 + rng() % 20;
    std::vector<uint32_t> perm(n);
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Dep> deps;
    for (int e = 0; e < static_cast<int>(n); e++) {
      uint32_t a = rng() % n, b = rng() % n;
      if (a == b) continue;
      if (perm[a] > perm[b]) std::swap(a, b);  // acyclic by construction
      deps.push_back({a, b});
    }
    std::vector<uint32_t> all(n);
    for (uint32_t i = 0; i < n; i++) all[i] = i;
    ChannelList cl(n, all, deps);
    ASSERT_TRUE(cl.valid());
    for (int op = 0; op < 40; op++) {
      uint32_t a = rng() % n, b = rng() % n;
      if (a == b) continue;
      std::vector<Dep> with = deps;
      with.push_back({a, b});
      const bool expect = !cyclic(n, with);
      ASSERT_EQ(cl.can_enable(a, b), expect);
      ASSERT_EQ(cl.enable(a, b), expect);
      if (expect) deps = with;
      std::string why;
      ASSERT_TRUE(cl.valid(&why)) << why;
    }
  }
}

TEST(ChannelList, BuildFromDorMeshCoversEveryChannel) {
  Fabric f = ftroute::mesh({4, 4});
  Routing r = DorEngine().route(f);
  ChannelList cl = ChannelList::build(f, r);
  EXPECT_TRUE(cl.valid());
  // every connected directed link on VL 0 is in the list (used or not)
  size_t links = 0;
  for (int n = 0; n < f.size(); n++)
    for (int p = 1; p <= f.node(n).num_ports; p++)
      if (f.node(n).port(p).connected()) {
        links++;
        EXPECT_TRUE(cl.contains(cl.ids().id(n, p, 0))) << f.port_name(n, p);
      }
  EXPECT_EQ(cl.num_channels(), links);
  CdgBuild b = build_cdg(f, r);
  EXPECT_EQ(cl.num_deps(), b.cdg.num_edges());
  for (auto [a, c] : b.cdg.edges()) EXPECT_LT(cl.pos(a), cl.pos(c));
  // XY routing never turns from Y into X: such a turn at an inner switch is downward-only
  // if it would close a cycle; the list answers without touching the CDG.
  EXPECT_FALSE(cl.describe(5).empty());
  auto mg = recognise_mesh(f);
  ASSERT_TRUE(mg.has_value());
  // channel leaving switch (x, y) towards direction dir (0 +x, 1 -x, 2 +y, 3 -y), VL 0
  auto ch = [&](int x, int y, int dir) -> Cdg::Id {
    const int n = mg->node({x, y, 0});
    const int p = mg->port[static_cast<size_t>(n)][static_cast<size_t>(dir)];
    EXPECT_NE(p, 0) << x << "," << y << " dir " << dir;
    return cl.ids().id(n, p, 0);
  };
  const auto all = cl.dependencies();
  const uint32_t nid = static_cast<uint32_t>(cl.ids().num_ids());
  auto brute = [&](std::vector<Dep> extra) {
    std::vector<Dep> d = all;
    d.insert(d.end(), extra.begin(), extra.end());
    return !cyclic(nid, d);
  };
  // Every Y->X turn at an inner switch: absent from the list, and enabling any one alone is
  // legal (after it the packet only moves away in x, and without another Y->X turn it cannot
  // come back to the channel it came in on); the list agrees with a brute-force cycle search.
  int turns = 0;
  for (int x = 1; x <= 2; x++)
    for (int y = 1; y <= 2; y++)
      for (int yin : {2, 3})
        for (int xout : {0, 1}) {
          // arriving at (x, y) moving +y comes from (x, y-1); moving -y from (x, y+1)
          const Cdg::Id in = ch(x, yin == 2 ? y - 1 : y + 1, yin);
          const Cdg::Id out = ch(x, y, xout);
          EXPECT_FALSE(cl.has_dep(in, out)) << "XY routing turned Y->X at " << x << "," << y;
          EXPECT_TRUE(cl.can_enable(in, out)) << x << "," << y;
          EXPECT_EQ(cl.can_enable(in, out), brute({{in, out}}));
          turns++;
        }
  EXPECT_EQ(turns, 16);
  // Two Y->X turns close the clockwise square (1,2) -> (2,2) -> (2,1) -> (1,1) -> (1,2) with the
  // X->Y turns XY routing already uses: -y into (2,1) then -x, and +y into (1,2) then +x.
  const Dep ta{ch(2, 2, 3), ch(2, 1, 1)}, tb{ch(1, 1, 2), ch(1, 2, 0)};
  ASSERT_TRUE(cl.has_dep(ch(1, 2, 0), ch(2, 2, 3)));  // +x then -y at (2,2)
  ASSERT_TRUE(cl.has_dep(ch(2, 1, 1), ch(1, 1, 2)));  // -x then +y at (1,1)
  EXPECT_TRUE(cl.can_enable(tb.first, tb.second));
  EXPECT_FALSE(cl.can_enable(tb.first, tb.second, {ta}));
  EXPECT_FALSE(brute({ta, tb}));
}

TEST(ChannelList, RefusesRoutingWithACycleAndPrintsIt) {
  // 4 switches in a ring, one CA each, every LID routed clockwise: cyclic CDG
  Fabric f;
  std::vector<int> s, h;
  for (int i = 0; i < 4; i++) s.push_back(f.add_node(NodeType::Switch, "S" + std::to_string(i), 3));
  for (int i = 0; i < 4; i++) h.push_back(f.add_node(NodeType::Ca, "H" + std::to_string(i), 1));
  for (int i = 0; i < 4; i++) {
    f.connect(s[static_cast<size_t>(i)], 1, s[static_cast<size_t>((i + 1) % 4)], 2);  // port 1 clockwise
    f.connect(s[static_cast<size_t>(i)], 3, h[static_cast<size_t>(i)], 1);
  }
  f.assign_default_guids();
  f.assign_lids();
  Routing r;
  r.engine = "clockwise";
  r.lfts = Lfts(f);
  for (int i = 0; i < 4; i++)
    for (const EndPort& ep : f.end_ports()) {
      Attach at = f.attach(ep.base_lid);
      r.lfts.set(s[static_cast<size_t>(i)], ep.base_lid, at.sw == s[static_cast<size_t>(i)] ? at.port : 1);
    }
  try {
    ChannelList::build(f, r);
    FAIL() << "cyclic routing accepted";
  } catch (const EngineError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("not deadlock-free"), std::string::npos) << w;
    EXPECT_NE(w.find("\"S0\"[1]"), std::string::npos) << w;
    EXPECT_NE(w.find("clockwise"), std::string::npos) << w;
  }
}

TEST(ChannelList, ReplaceDependenciesKeepsOrRebuildsOrder) {
  ChannelList cl(5, {0, 1, 2, 3, 4}, {{0, 1}, {1, 2}});
  auto before = cl.order();
  cl.replace_dependencies({{0, 1}});
  EXPECT_EQ(cl.order(), before);  // fewer deps: order kept
  cl.replace_dependencies({{2, 0}});
  EXPECT_TRUE(cl.valid());
  EXPECT_LT(cl.pos(2), cl.pos(0));
  EXPECT_THROW(cl.replace_dependencies({{0, 1}, {1, 0}}), Error);
}
