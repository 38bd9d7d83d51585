// Topology generators: counts vs closed forms, k-ary n-tree structure, fault injection
// (deterministic per seed, keep-connected honoured), shipped files up to date.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <map>
#include <set>
#include <sstream>

#include "test_fabrics.hpp"
#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using namespace ftroute::topo;

using ftroute::test_fabrics::switch_links;

namespace {

uint64_t ipow(uint64_t b, int e) {
  uint64_t r = 1;
  while (e--) r *= b;
  return r;
}


// stage and digit label of a k-ary n-tree switch "S<l>_<digits>" (k <= 10)
std::pair<int, std::string> label(const std::string& id) {
  size_t u = id.find('_');
  return {std::stoi(id.substr(1, u - 1)), id.substr(u + 1)};
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(Topology, KaryNtreeCounts) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{2, 1}, {2, 3}, {3, 2}, {4, 3}, {2, 5}, {5, 2}}) {
    SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n));
    Fabric f = kary_ntree(k, n);
    const uint64_t hosts = ipow(k, n);
    EXPECT_EQ(f.switches().size(), n * ipow(k, n - 1));
    EXPECT_EQ(f.cas().size(), hosts);
    EXPECT_EQ(static_cast<uint64_t>(f.num_links()), hosts + (n - 1) * hosts);
    EXPECT_EQ(static_cast<uint64_t>(switch_links(f)), (n - 1) * hosts);
    EXPECT_TRUE(f.connected());
    EXPECT_NO_THROW(f.validate());
    for (int s : f.switches()) EXPECT_EQ(f.node(s).num_ports, 2 * k);
  }
  // the 4-ary 3-tree of the fat-tree papers: 48 switches, 64 hosts, 128 switch links
  Fabric f = kary_ntree(4, 3);
  EXPECT_EQ(f.switches().size(), 48u);
  EXPECT_EQ(switch_links(f), 128);
  EXPECT_THROW(kary_ntree(1, 3), OptionError);
  EXPECT_THROW(kary_ntree(4, 0), OptionError);
}

TEST(Topology, KaryNtreeStructure) {
  const int k = 3, n = 3;
  Fabric f = kary_ntree(k, n);
  for (int s : f.switches()) {
    const Node& sw = f.node(s);
    auto [l, w] = label(sw.id);
    int up = 0, down = 0;
    for (int p = 1; p <= sw.num_ports; p++) {
      const Port& x = sw.port(p);
      if (!x.connected()) {
        EXPECT_EQ(l, n - 1) << sw.id << " port " << p << " unused below the top stage";
        EXPECT_GT(p, k);
        continue;
      }
      const Node& peer = f.node(x.peer_node);
      if (p <= k) {  // down ports
        down++;
        if (l == 0) {
          EXPECT_FALSE(peer.is_switch());
          // host digits = leaf digits + (port - 1)
          EXPECT_EQ(peer.id, "H" + w + std::to_string(p - 1));
        } else {
          ASSERT_TRUE(peer.is_switch());
          EXPECT_EQ(label(peer.id).first, l - 1);
          EXPECT_GT(x.peer_port, k);  // arrives on an up port
        }
      } else {  // up ports
        up++;
        ASSERT_TRUE(peer.is_switch());
        auto [pl, pw] = label(peer.id);
        EXPECT_EQ(pl, l + 1);
        EXPECT_LE(x.peer_port, k);
        // labels differ at most in digit l (digit l counted from the least significant end)
        for (int d = 0; d < n - 1; d++) {
          if (d == l) continue;
          EXPECT_EQ(w[static_cast<size_t>(n - 2 - d)], pw[static_cast<size_t>(n - 2 - d)]) << sw.id << " - " << peer.id;
        }
        // up port k+1+u goes to the switch whose digit l is u
        EXPECT_EQ(pw[static_cast<size_t>(n - 2 - l)] - '0', p - k - 1);
      }
    }
    EXPECT_EQ(down, k) << sw.id;
    EXPECT_EQ(up, l == n - 1 ? 0 : k) << sw.id;
  }
}

TEST(Topology, KaryNtreeLargeArityNames) {
  Fabric f = kary_ntree(12, 2);
  EXPECT_TRUE(f.find("S0_11").has_value());
  EXPECT_TRUE(f.find("H11.3").has_value());
  EXPECT_EQ(f.cas().size(), 144u);
}

TEST(Topology, TwoLevelFatTree) {
  for (auto p : std::vector<FatTree2>{{4, 2, 3, 1, 0}, {6, 3, 5, 2, 0}, {2, 4, 1, 3, 16}}) {
    Fabric f = fat_tree2(p);
    EXPECT_EQ(static_cast<int>(f.switches().size()), p.leaves + p.spines);
    EXPECT_EQ(static_cast<int>(f.cas().size()), p.leaves * p.hosts_per_leaf);
    EXPECT_EQ(f.num_links(), p.leaves * p.hosts_per_leaf + p.leaves * p.spines * p.links_per_pair);
    EXPECT_TRUE(f.connected());
  }
  Fabric f = fat_tree648();
  EXPECT_EQ(f.switches().size(), 54u);
  EXPECT_EQ(f.cas().size(), 648u);
  EXPECT_EQ(switch_links(f), 36 * 18);
  for (int s : f.switches()) {  // every port of every 36-port switch is used
    EXPECT_EQ(f.node(s).num_ports, 36);
    for (int p = 1; p <= 36; p++) EXPECT_TRUE(f.node(s).port(p).connected()) << f.port_name(s, p);
  }
  EXPECT_EQ(f.node(*f.find("L0")).port(19).peer_node, *f.find("S0"));
  EXPECT_THROW(fat_tree2({36, 18, 18, 1, 35}), OptionError);  // radix too small
}

TEST(Topology, ThreeLevelFatTree) {
  Fabric small = fat_tree3(4);  // 4 pods: 16 hosts, 8 leaves, 8 aggs, 4 cores
  EXPECT_EQ(small.cas().size(), 16u);
  EXPECT_EQ(small.switches().size(), 20u);
  EXPECT_TRUE(small.connected());
  Fabric f = fat_tree3(36);
  EXPECT_GE(f.cas().size(), 10000u);
  EXPECT_EQ(f.cas().size(), 11664u);        // r^3/4
  EXPECT_EQ(f.switches().size(), 1620u);    // 5r^2/4
  EXPECT_EQ(f.num_links(), 11664 + 2 * 36 * 18 * 18);
  EXPECT_TRUE(f.connected());
  Fabric half = fat_tree3(36, 18);
  EXPECT_EQ(half.cas().size(), 18u * 324);
  EXPECT_THROW(fat_tree3(35), OptionError);
}

TEST(Topology, MeshAndTorus) {
  Fabric m = grid({{4, 4}, false, 1, 0});
  EXPECT_EQ(m.switches().size(), 16u);
  EXPECT_EQ(m.cas().size(), 16u);
  EXPECT_EQ(switch_links(m), 2 * 4 * 3);
  Fabric t = grid({{4, 4}, true, 2, 0});
  EXPECT_EQ(t.cas().size(), 32u);
  EXPECT_EQ(switch_links(t), 2 * 16);
  for (int s : t.switches())
    for (int p = 1; p <= t.node(s).num_ports; p++) EXPECT_TRUE(t.node(s).port(p).connected());
  Fabric t3 = grid({{4, 4, 4}, true, 1, 0});
  EXPECT_EQ(t3.switches().size(), 64u);
  EXPECT_EQ(switch_links(t3), 3 * 64);
  Fabric m3 = grid({{2, 3, 4}, false, 0, 10});
  EXPECT_EQ(switch_links(m3), 1 * 3 * 4 + 2 * 2 * 4 + 3 * 2 * 3);  // (size_d - 1) * product of the others
  EXPECT_EQ(m3.node(0).num_ports, 10);
  Fabric ring = grid({{8}, true, 1, 0});
  EXPECT_EQ(switch_links(ring), 8);
  // +1 neighbour along dimension 0 on port hosts+1, arriving on its port hosts+2
  const Port& x = ring.node(*ring.find("S7")).port(2);
  EXPECT_EQ(ring.node(x.peer_node).id, "S0");
  EXPECT_EQ(x.peer_port, 3);
  EXPECT_EQ(parse_dims("4x4x4"), (std::vector<int>{4, 4, 4}));
  EXPECT_THROW(parse_dims("4xx4"), OptionError);
  EXPECT_THROW(grid({{4, 1}, false, 1, 0}), OptionError);
  EXPECT_THROW(grid({{4, 4}, false, 1, 4}), OptionError);  // radix < hosts + 2 dims
}

TEST(Topology, UniformIndexIsPinned) {
  // pinned values: a change of the draw would silently change every "seeded" fault set
  std::mt19937_64 g(42);
  const uint64_t want[] = {406, 824, 450, 662, 381, 428};
  for (uint64_t w : want) EXPECT_EQ(uniform_index(g, 1000), w);
  std::mt19937_64 h(7);
  EXPECT_EQ(uniform_index(h, 1), 0u);
}

TEST(Topology, FaultsAreDeterministicPerSeed) {
  FaultSpec s;
  s.random_links = 6;
  s.random_switches = 2;
  s.seed = 123;
  Fabric a = kary_ntree(4, 3), b = kary_ntree(4, 3), c = kary_ntree(4, 3);
  FaultReport ra = inject_faults(a, s);
  FaultReport rb = inject_faults(b, s);
  EXPECT_EQ(ra.links, rb.links);
  EXPECT_EQ(ra.switches, rb.switches);
  EXPECT_EQ(fabric_diff(a, b), "");
  EXPECT_EQ(ra.links.size(), 6u);
  EXPECT_EQ(ra.switches.size(), 2u);
  s.seed = 124;
  FaultReport rc = inject_faults(c, s);
  EXPECT_NE(ra.links, rc.links);
  // failed switches are gone (with the hosts of a failed leaf), survivors keep their GUIDs
  Fabric intact = kary_ntree(4, 3);
  EXPECT_EQ(a.switches().size(), 46u);
  EXPECT_EQ(a.size() + 2 + static_cast<int>(ra.hosts.size()), intact.size());
  for (const auto& id : ra.switches) EXPECT_FALSE(a.find(id).has_value());
  for (int n = 0; n < a.size(); n++) EXPECT_EQ(a.node(n).guid, intact.node(*intact.find(a.node(n).id)).guid);
}

TEST(Topology, RandomLinksAreSwitchLinksUnlessAsked) {
  Fabric f = kary_ntree(4, 3);
  FaultSpec s;
  s.random_links = 40;
  s.seed = 5;
  inject_faults(f, s);
  EXPECT_EQ(switch_links(f), 128 - 40);
  EXPECT_EQ(f.num_links(), 192 - 40);  // every host link still there
  Fabric g = grid({{4, 4}, false, 4, 0});
  s.random_links = 60;
  s.host_links = true;
  inject_faults(g, s);
  EXPECT_LT(g.num_links() - switch_links(g), 64);  // some host links went
}

TEST(Topology, KeepConnectedIsHonoured) {
  for (uint64_t seed = 1; seed <= 20; seed++) {
    Fabric f = grid({{4, 4}, false, 1, 0});
    FaultSpec s;
    s.random_links = 8;  // 24 links, a spanning tree needs 15: 9 could go, draws may cut
    s.seed = seed;
    s.keep_connected = true;
    inject_faults(f, s);
    EXPECT_TRUE(f.connected()) << "seed " << seed;
    EXPECT_EQ(switch_links(f), 16);
  }
  // without keep_connected the same faults disconnect the mesh for some seed
  bool some_disconnected = false;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    Fabric f = grid({{4, 4}, false, 1, 0});
    FaultSpec s;
    s.random_links = 8;
    s.seed = seed;
    inject_faults(f, s);
    some_disconnected |= !f.connected();
  }
  EXPECT_TRUE(some_disconnected);
  // a ring survives one failed link, never two
  Fabric ring = grid({{8}, true, 1, 0});
  FaultSpec two;
  two.random_links = 2;
  two.keep_connected = true;
  EXPECT_THROW(inject_faults(ring, two), FabricError);
  EXPECT_EQ(switch_links(ring), 8);  // untouched after the failure
  // switch failures with keep_connected: spines only can go in a two-level tree
  Fabric ft = fat_tree2({4, 3, 2, 1, 0});
  FaultSpec sw;
  sw.random_switches = 2;
  sw.keep_connected = true;
  sw.seed = 3;
  FaultReport r = inject_faults(ft, sw);
  EXPECT_TRUE(ft.connected());
  EXPECT_EQ(ft.switches().size(), 5u);
}

TEST(Topology, NamedLinkRemoval) {
  Fabric f = fat_tree648();
  FaultSpec s;
  s.remove_links = {"\"L0\"[19]", "S3[5]"};
  FaultReport r = inject_faults(f, s);
  ASSERT_EQ(r.links.size(), 2u);
  EXPECT_EQ(r.links[0], "\"L0\"[19] - \"S0\"[1]");
  EXPECT_EQ(switch_links(f), 36 * 18 - 2);
  EXPECT_FALSE(f.node(*f.find("L4")).port(22).connected());  // S3[5] is leaf 4's 4th up-link
  for (const char* bad : {"\"L0\"[19]", "\"Q\"[1]", "\"L0\"[40]", "L0", "\"L0\"[x]"}) {
    Fabric g = f;
    FaultSpec b;
    b.remove_links = {bad};
    try {
      inject_faults(g, b);
      ADD_FAILURE() << bad;
    } catch (const FabricError& e) {
      EXPECT_EQ(fabric_diff(f, g), "") << "fabric changed by a failed injection";
    }
  }
}

TEST(Topology, ShippedNetsAreUpToDate) {
  const std::string dir = std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/";
  std::set<std::string> files;
  for (const auto& n : shipped_nets()) {
    SCOPED_TRACE(n.file);
    files.insert(n.file);
    const std::string text = read(dir + n.file);
    ASSERT_FALSE(text.empty()) << "missing " << dir + n.file << " (cmake --build <build> --target gen-nets)";
    EXPECT_TRUE(text == shipped_net_text(n))
        << dir + n.file << " differs from the generator; regenerate with the gen-nets target";
    Fabric f = read_net_file(dir + n.file);
    EXPECT_EQ(fabric_diff(n.make(nullptr), f), "");
    EXPECT_TRUE(f.connected());
  }
  for (const char* need : {"4ary3tree.net", "4ary3tree_f3.net", "ft648.net", "ft648_f1.net", "mesh4x4.net",
                           "torus4x4.net", "ring8.net", "torus3d_4x4x4.net", "mesh4x4_f1.net", "torus4x4_f1.net", "kns_4x2.net", "kns_4x2_p2.net",
                           "kns_8x2.net", "kns_4x3.net", "kns_4x3_f3.net", "kns_4x2_ft2.net", "kns_8x2_ft3.net"})
    EXPECT_TRUE(files.count(need)) << need;
  // the faulty variants really are faulty
  Fabric f3 = read_net_file(dir + "4ary3tree_f3.net");
  EXPECT_EQ(switch_links(f3), 125);
  EXPECT_EQ(switch_links(read_net_file(dir + "ft648_f1.net")), 36 * 18 - 1);
  EXPECT_EQ(switch_links(read_net_file(dir + "mesh4x4_f1.net")), 23);
  EXPECT_EQ(switch_links(read_net_file(dir + "torus4x4_f1.net")), 31);
}

TEST(Topology, GeneratorGuidsAreIbsimDefaults) {
  Fabric f = kary_ntree(2, 2);
  // switches first from 0x200000, then hosts from 0x100000 with 2 GUIDs each (1 port)
  EXPECT_EQ(f.node(0).guid, 0x200000u);
  EXPECT_EQ(f.node(3).guid, 0x200003u);
  EXPECT_EQ(f.node(4).guid, 0x100000u);
  EXPECT_EQ(f.node(5).guid, 0x100002u);
  EXPECT_EQ(f.node(5).port(1).guid, 0x100003u);
  // the written file carries no GUID directives, ibsim's counters give the same GUIDs
  EXPECT_EQ(write_net(f).find("guid="), std::string::npos);
}

// `ftroute gen` (cli/cmd_gen.cpp) produces the library's fabrics; a failing command writes nothing.
TEST(Topology, CliGenMatchesLibrary) {
  const std::string exe = std::string(FTROUTE_BINARY_DIR) + "/cli/ftroute";
  if (!std::ifstream(exe)) GTEST_SKIP() << "ftroute not built (" << exe << ")";
  const std::string out = std::string(FTROUTE_BINARY_DIR) + "/topology_test_gen.net";
  std::remove(out.c_str());
  auto run = [&](const std::string& args) { return std::system((exe + " gen " + args + " >/dev/null 2>&1").c_str()); };
  ASSERT_EQ(run("fattree --k 4 --n 3 --fail-links 3 --seed 1 --keep-connected -o " + out), 0);
  const ShippedNet* f3 = nullptr;
  for (const auto& n : shipped_nets())
    if (n.file == "4ary3tree_f3.net") f3 = &n;
  ASSERT_NE(f3, nullptr);
  EXPECT_EQ(fabric_diff(f3->make(nullptr), read_net_file(out)), "");
  ASSERT_EQ(run("torus --dims 4x4x4 --hosts 2 -o " + out), 0);
  EXPECT_EQ(fabric_diff(grid({{4, 4, 4}, true, 2, 0}), read_net_file(out)), "");
  ASSERT_EQ(run("fattree2 --leaves 4 --spines 2 --hosts-per-leaf 3 --links-per-pair 2 --remove-link '\"L1\"[4]' -o " + out), 0);
  Fabric want = fat_tree2({4, 2, 3, 2, 0});
  want.disconnect(*want.find("L1"), 4);
  EXPECT_EQ(fabric_diff(want, read_net_file(out)), "");
  std::remove(out.c_str());
  // usage errors exit 2, impossible requests exit 1; neither leaves a file behind
  EXPECT_EQ(WEXITSTATUS(run("mesh --dims 4x4 --k 3 -o " + out)), 2);
  EXPECT_EQ(WEXITSTATUS(run("fattree --k 4 --n 3 --fail-links 200 --keep-connected -o " + out)), 1);
  EXPECT_EQ(WEXITSTATUS(run("fattree --k 4 --n 3 --remove-link '\"S0_00\"[99]' -o " + out)), 1);
  EXPECT_FALSE(std::ifstream(out).good());
}
