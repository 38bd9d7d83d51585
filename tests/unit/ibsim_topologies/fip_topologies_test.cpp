// Seed 003's other Table III topologies (ibsim_topologies/{kautz,xgft,dragonfly,random_topology}.cpp):
// the paper's switch / HCA / link counts, degrees, the structure each name promises, connectivity
// and edge connectivity (Table II), determinism of the random graph, spec parsing and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "ftroute/campaign.hpp"
#include "ftroute/error.hpp"
#include "ftroute/fip_topologies.hpp"
#include "ftroute/netfile.hpp"

using namespace ftroute;
using namespace ftroute::topo;

namespace {

struct Counts {
  int switches = 0, cas = 0, switch_links = 0;
  std::map<int, int> degree;     // switch node -> switch-to-switch link ports
  std::map<int, int> hosts;      // switch node -> CAs attached
};

Counts count(const Fabric& f) {
  Counts c;
  c.switches = static_cast<int>(f.switches().size());
  c.cas = static_cast<int>(f.cas().size());
  c.switch_links = static_cast<int>(f.switch_links().size());
  for (int s : f.switches()) {
    c.degree[s] = 0;
    c.hosts[s] = 0;
    for (int p = 1; p <= f.node(s).num_ports; p++) {
      const Port& x = f.node(s).port(p);
      if (!x.connected()) continue;
      (f.node(x.peer_node).is_switch() ? c.degree[s] : c.hosts[s])++;
    }
  }
  return c;
}

// Edge connectivity of the switch graph (parallel links counted): min over t of max-flow(s0, t)
// with unit capacity per link in both directions.
int edge_connectivity(const Fabric& f) {
  std::vector<int> sw = f.switches();
  const int n = static_cast<int>(sw.size());
  std::map<int, int> idx;
  for (int i = 0; i < n; i++) idx[sw[static_cast<size_t>(i)]] = i;
  std::vector<std::vector<int>> cap(static_cast<size_t>(n), std::vector<int>(static_cast<size_t>(n), 0));
  for (auto [node, port] : f.switch_links()) {
    const Port& x = f.node(node).port(port);
    int a = idx.at(node), b = idx.at(x.peer_node);
    cap[static_cast<size_t>(a)][static_cast<size_t>(b)]++;
    cap[static_cast<size_t>(b)][static_cast<size_t>(a)]++;
  }
  int best = 1 << 30;
  for (int t = 1; t < n; t++) {
    auto r = cap;
    int flow = 0;
    while (true) {  // BFS augmenting paths
      std::vector<int> prev(static_cast<size_t>(n), -1);
      prev[0] = 0;
      std::vector<int> q{0};
      for (size_t h = 0; h < q.size() && prev[static_cast<size_t>(t)] < 0; h++)
        for (int v = 0; v < n; v++)
          if (prev[static_cast<size_t>(v)] < 0 && r[static_cast<size_t>(q[h])][static_cast<size_t>(v)] > 0)
            prev[static_cast<size_t>(v)] = q[h], q.push_back(v);
      if (prev[static_cast<size_t>(t)] < 0) break;
      for (int v = t; v != 0; v = prev[static_cast<size_t>(v)]) {
        r[static_cast<size_t>(prev[static_cast<size_t>(v)])][static_cast<size_t>(v)]--;
        r[static_cast<size_t>(v)][static_cast<size_t>(prev[static_cast<size_t>(v)])]++;
      }
      flow++;
    }
    best = std::min(best, flow);
  }
  return best;
}

// distinct switch neighbours of a switch
std::set<int> neighbours(const Fabric& f, int s) {
  std::set<int> out;
  for (int p = 1; p <= f.node(s).num_ports; p++) {
    const Port& x = f.node(s).port(p);
    if (x.connected() && f.node(x.peer_node).is_switch()) out.insert(x.peer_node);
  }
  return out;
}

}  // namespace

TEST(FipTopologies, KautzTableIII) {
  Fabric f = kautz({2, 4, 11, 6});  // kautz:2,4,11,6
  Counts c = count(f);
  EXPECT_EQ(c.switches, 24);        // (d+1) d^(k-1)
  EXPECT_EQ(c.cas, 264);
  EXPECT_EQ(c.switch_links, 288);   // 48 arcs x r = 6
  for (auto [s, d] : c.degree) EXPECT_EQ(d, 24) << f.node(s).id;  // 2 d r
  for (auto [s, h] : c.hosts) EXPECT_EQ(h, 11);
  EXPECT_TRUE(f.connected());
  EXPECT_EQ(edge_connectivity(f), 24);  // Table II: 2d per arc copy
  f.validate();
}

TEST(FipTopologies, KautzArcsAreShifts) {
  Fabric f = kautz({2, 3, 1, 1});
  Counts c = count(f);
  ASSERT_EQ(c.switches, 12);
  EXPECT_EQ(c.switch_links, 24);  // d (d+1) d^(k-1)
  EXPECT_EQ(edge_connectivity(f), 4);
  // every link joins s and t with s_2..s_k == t_1..t_k-1 (or the reverse); no two equal
  // consecutive symbols in any name
  for (auto [node, port] : f.switch_links()) {
    std::string s = f.node(node).id.substr(1), t = f.node(f.node(node).port(port).peer_node).id.substr(1);
    EXPECT_TRUE(s.substr(1) == t.substr(0, 2) || t.substr(1) == s.substr(0, 2)) << s << " - " << t;
  }
  for (int s : f.switches()) {
    const std::string& id = f.node(s).id;
    for (size_t i = 2; i < id.size(); i++) EXPECT_NE(id[i], id[i - 1]) << id;
  }
  // out-ports H+1..H+d go to the shifts of the switch's own string
  int k012 = *f.find("K012");
  std::set<std::string> outs;
  for (int p = 2; p <= 3; p++) outs.insert(f.node(f.node(k012).port(p).peer_node).id);
  EXPECT_EQ(outs, (std::set<std::string>{"K120", "K121"}));
}

TEST(FipTopologies, XgftTableIII) {
  Fabric f = xgft({{22}, {11}, 12});  // xgft:1,22,11,12
  Counts c = count(f);
  EXPECT_EQ(c.switches, 33);
  EXPECT_EQ(c.cas, 264);
  EXPECT_EQ(c.switch_links, 242);
  int leaves = 0, tops = 0;
  for (auto [s, d] : c.degree) {
    if (f.node(s).id.rfind("X0_", 0) == 0) {
      leaves++;
      EXPECT_EQ(d, 11);
      EXPECT_EQ(c.hosts[s], 12);
      EXPECT_EQ(neighbours(f, s).size(), 11u);  // every top switch
    } else {
      tops++;
      EXPECT_EQ(d, 22);
      EXPECT_EQ(c.hosts[s], 0);
    }
  }
  EXPECT_EQ(leaves, 22);
  EXPECT_EQ(tops, 11);
  EXPECT_EQ(edge_connectivity(f), 11);  // Table II: w_1
}

TEST(FipTopologies, XgftTwoLevelsIsAFatTree) {
  // XGFT(2; 4,4; 1,4): level 0 = m1 m2 = 16 leaves (one up-link each), level 1 = w1 m2 = 4,
  // level 2 = w1 w2 = 4
  Fabric f = xgft({{4, 4}, {1, 4}, 2});
  Counts c = count(f);
  EXPECT_EQ(c.switches, 16 + 4 + 4);
  EXPECT_EQ(c.cas, 32);
  EXPECT_EQ(c.switch_links, 16 * 1 + 4 * 4);
  EXPECT_TRUE(f.connected());
  EXPECT_EQ(edge_connectivity(f), 1);  // w_1 = 1
  // a level-1 switch has 4 children and 4 parents
  for (auto [s, d] : c.degree)
    if (f.node(s).id.rfind("X1_", 0) == 0) {
      EXPECT_EQ(d, 8) << f.node(s).id;
    }
}

TEST(FipTopologies, DragonflyTableIII) {
  Fabric f = dragonfly({10, 5, 5, 4, 7});  // dragonfly:10,5,5,4,7
  Counts c = count(f);
  EXPECT_EQ(c.switches, 40);
  EXPECT_EQ(c.cas, 280);
  EXPECT_EQ(c.switch_links, 276);  // 4 x 45 intra + 6 pairs x 16 global
  int min_deg = 1 << 30, max_deg = 0;
  std::map<std::pair<char, char>, int> between;
  for (auto [s, d] : c.degree) {
    min_deg = std::min(min_deg, d);
    max_deg = std::max(max_deg, d);
    EXPECT_EQ(c.hosts[s], 7);
  }
  EXPECT_EQ(min_deg, 9 + 4);  // 48 of a h = 50 global ports used: 8 routers with 5, 2 with 4
  EXPECT_EQ(max_deg, 9 + 5);
  for (auto [node, port] : f.switch_links()) {
    char g1 = f.node(node).id[1], g2 = f.node(f.node(node).port(port).peer_node).id[1];
    if (g1 != g2) between[{std::min(g1, g2), std::max(g1, g2)}]++;
  }
  EXPECT_EQ(between.size(), 6u);
  for (auto [k, n] : between) EXPECT_EQ(n, 16);
  // each group is a complete graph
  for (int s : f.switches()) {
    int same = 0;
    for (int t : neighbours(f, s)) same += f.node(t).id[1] == f.node(s).id[1];
    EXPECT_EQ(same, 9) << f.node(s).id;
  }
  EXPECT_EQ(edge_connectivity(f), min_deg);
  // Table II's a + h - 1 when every global port is used: a h divisible by g - 1
  EXPECT_EQ(edge_connectivity(dragonfly({4, 1, 2, 5, 1})), 4 + 2 - 1);
}

namespace {

// group of a Dragonfly router "D<group>_<i>" and its index i
int df_group(const Fabric& f, int s) { return std::stoi(f.node(s).id.substr(1)); }
int df_index(const Fabric& f, int s) { return std::stoi(f.node(s).id.substr(f.node(s).id.find('_') + 1)); }

// The structure every arrangement must have: each group a complete graph on its intra ports
// H+1..H+a-1, exactly L = floor(a h / (g-1)) global links between every pair of groups on the
// global ports H+a..H+a+h-1, at most h global links per router (exactly h when a h = L (g-1)),
// L (g-1) per group, connected, edge connectivity min degree.
void expect_dragonfly_structure(const Dragonfly& q, const std::string& what, int edge_conn = -1) {
  SCOPED_TRACE(what);
  Fabric f = dragonfly(q);
  const int H = q.hosts_per_switch < 0 ? q.p : q.hosts_per_switch;
  const int L = q.g > 1 ? q.a * q.h / (q.g - 1) : 0;
  Counts c = count(f);
  EXPECT_EQ(c.switches, q.a * q.g);
  EXPECT_EQ(c.switch_links, q.g * q.a * (q.a - 1) / 2 + L * q.g * (q.g - 1) / 2);
  std::map<std::pair<int, int>, int> between;
  std::map<int, int> global_of_group;
  int min_deg = 1 << 30;
  for (int s : f.switches()) {
    int global = 0, local = 0;
    std::set<int> same;
    for (int p = 1; p <= f.node(s).num_ports; p++) {
      const Port& x = f.node(s).port(p);
      if (!x.connected() || !f.node(x.peer_node).is_switch()) continue;
      if (df_group(f, x.peer_node) == df_group(f, s)) {
        ++local;
        same.insert(x.peer_node);
        EXPECT_TRUE(p > H && p < H + q.a) << f.node(s).id << " port " << p;
      } else {
        ++global;
        EXPECT_TRUE(p >= H + q.a && p < H + q.a + q.h) << f.node(s).id << " port " << p;
        between[{std::min(df_group(f, s), df_group(f, x.peer_node)), std::max(df_group(f, s), df_group(f, x.peer_node))}]++;
      }
    }
    EXPECT_EQ(local, q.a - 1) << f.node(s).id;
    EXPECT_EQ(same.size(), static_cast<size_t>(q.a - 1)) << f.node(s).id;
    EXPECT_LE(global, q.h) << f.node(s).id;
    if (q.a * q.h == L * (q.g - 1)) {
      EXPECT_EQ(global, q.h) << f.node(s).id;
    }
    global_of_group[df_group(f, s)] += global;
    min_deg = std::min(min_deg, local + global);
  }
  EXPECT_EQ(between.size(), static_cast<size_t>(q.g * (q.g - 1) / 2));
  for (auto [k, n] : between) EXPECT_EQ(n, 2 * L) << k.first << "-" << k.second;  // counted from both ends
  for (auto [grp, n] : global_of_group) EXPECT_EQ(n, L * (q.g - 1)) << "group " << grp;
  EXPECT_TRUE(f.connected());
  EXPECT_EQ(edge_connectivity(f), edge_conn < 0 ? min_deg : edge_conn);  // -1: the minimum degree
}

// routers of group x with a global link to group y
std::set<int> routers_towards(const Fabric& f, int x, int y) {
  std::set<int> r;
  for (auto [node, port] : f.switch_links()) {
    int peer = f.node(node).port(port).peer_node;
    if (df_group(f, node) == x && df_group(f, peer) == y) r.insert(df_index(f, node));
    if (df_group(f, peer) == x && df_group(f, node) == y) r.insert(df_index(f, peer));
  }
  return r;
}

}  // namespace

TEST(FipTopologies, DragonflyArrangements) {
  using A = DragonflyArrangement;
  for (A arr : {A::RoundRobin, A::Consecutive, A::PalmTree}) {
    const std::string name = dragonfly_arrangement_name(arr);
    EXPECT_EQ(parse_dragonfly_arrangement(name), arr);
    expect_dragonfly_structure({10, 5, 5, 4, 7, arr}, name + " Table III");  // L = 16, 2 ports unused
    expect_dragonfly_structure({4, 1, 2, 5, 1, arr}, name + " L = 2");      // every port used
    expect_dragonfly_structure({4, 2, 2, 9, -1, arr}, name + " g = a h + 1");  // Kim et al.'s largest
    // consecutive with L > h: router 0 of groups 0 and 1 are joined by h = 4 parallel links, so
    // cutting them off takes only their 2 + 2 intra-group links
    expect_dragonfly_structure({3, 1, 4, 3, 1, arr}, name + " L = 6 > a", arr == A::Consecutive ? 4 : -1);
  }
  EXPECT_THROW(parse_dragonfly_arrangement("absolute"), OptionError);
  // the three are different fabrics
  Fabric rr = dragonfly({10, 5, 5, 4, 7, A::RoundRobin}), co = dragonfly({10, 5, 5, 4, 7, A::Consecutive}),
         pt = dragonfly({10, 5, 5, 4, 7, A::PalmTree});
  NetWriteOptions wo;
  EXPECT_NE(write_net(rr, wo), write_net(co, wo));
  EXPECT_NE(write_net(rr, wo), write_net(pt, wo));
  EXPECT_NE(write_net(co, wo), write_net(pt, wo));
  // round robin spreads the 16 links of a group pair over all 10 routers; consecutive and palm
  // tree put them on ceil(16 / 5) + 1 = 4 neighbouring routers at most
  for (int x = 0; x < 4; x++)
    for (int y = 0; y < 4; y++) {
      if (x == y) continue;
      EXPECT_EQ(routers_towards(rr, x, y).size(), 10u) << x << "->" << y;
      for (const Fabric* f : {&co, &pt}) {
        std::set<int> r = routers_towards(*f, x, y);
        EXPECT_LE(r.size(), 4u) << x << "->" << y;
        EXPECT_EQ(*r.rbegin() - *r.begin() + 1, static_cast<int>(r.size())) << "not neighbouring routers";
      }
    }
  // Kim et al.'s definitions on g = a h + 1 (one link per pair): global port j = i h + k of
  // group x (router i, its k-th global port) goes to group j (j < x) or j + 1 (absolute /
  // consecutive), to group x + j + 1 mod g (palm tree)
  const Dragonfly k{4, 2, 2, 9, -1};
  for (A arr : {A::Consecutive, A::PalmTree}) {
    Dragonfly q = k;
    q.arrangement = arr;
    Fabric f = dragonfly(q);
    for (int s : f.switches())
      for (int kk = 0; kk < q.h; kk++) {
        const Port& x = f.node(s).port(q.p + q.a + kk);
        ASSERT_TRUE(x.connected()) << f.node(s).id;
        const int grp = df_group(f, s), j = df_index(f, s) * q.h + kk;
        const int want = arr == A::Consecutive ? (j < grp ? j : j + 1) : (grp + j + 1) % q.g;
        EXPECT_EQ(df_group(f, x.peer_node), want) << dragonfly_arrangement_name(arr) << " " << f.node(s).id << " global port " << kk;
      }
  }
}

TEST(FipTopologies, RandomTableIII) {
  Fabric f = random_topology({32, 16, 8, 1});  // random:32,16,8,1
  Counts c = count(f);
  EXPECT_EQ(c.switches, 32);
  EXPECT_EQ(c.cas, 256);
  EXPECT_EQ(c.switch_links, 256);
  for (auto [s, d] : c.degree) {
    EXPECT_EQ(d, 16);
    EXPECT_EQ(neighbours(f, s).size(), 16u) << "parallel link at " << f.node(s).id;
    EXPECT_EQ(neighbours(f, s).count(s), 0u);
  }
  EXPECT_TRUE(f.connected());
  // same seed, same fabric; another seed, another graph; not the circulant start graph
  NetWriteOptions wo;
  EXPECT_EQ(write_net(f, wo), write_net(random_topology({32, 16, 8, 1}), wo));
  EXPECT_NE(write_net(f, wo), write_net(random_topology({32, 16, 8, 2}), wo));
  std::set<int> n0 = neighbours(f, *f.find("R0"));
  std::set<int> circ;
  for (int s = 1; s <= 8; s++) circ.insert(*f.find("R" + std::to_string(s))), circ.insert(*f.find("R" + std::to_string(32 - s)));
  EXPECT_NE(n0, circ);
  // odd degree, a sparse graph that the swaps must keep connected
  for (uint64_t seed = 1; seed <= 5; seed++) {
    Fabric g = random_topology({20, 3, 1, seed});
    EXPECT_TRUE(g.connected()) << seed;
    EXPECT_EQ(count(g).switch_links, 30);
  }
}

TEST(FipTopologies, CampaignSpecsBuildThePaperFabrics) {
  using campaign::build_fabric;
  using campaign::parse_fabric_source;
  EXPECT_EQ(count(build_fabric(parse_fabric_source("kautz:2,4,11,6", false))).switch_links, 288);
  EXPECT_EQ(count(build_fabric(parse_fabric_source("xgft:1,22,11,12", false))).cas, 264);
  EXPECT_EQ(count(build_fabric(parse_fabric_source("dragonfly:10,5,5,4,7", false))).switch_links, 276);
  EXPECT_EQ(count(build_fabric(parse_fabric_source("random:32,16,8,1", false))).cas, 256);
  EXPECT_EQ(count(build_fabric(parse_fabric_source("dragonfly:10,5,5,4", false))).cas, 200);  // hosts = p
  for (const char* bad : {"kautz:2", "kautz:2,x", "kautz:0,3", "xgft:1,22", "xgft:2,4,4,1", "dragonfly:10,5,5",
                          "dragonfly:2,1,0,4", "random:31,15,1", "random:8,8,1", "kautz:2,4,240,6"})
    EXPECT_THROW(build_fabric(parse_fabric_source(bad, false)), OptionError) << bad;
}
