// ftree-misroute on the project's shared topology generators, shipped .net files and the
// lft_export validators (the same checks `ftroute check` runs), switches included as sources.
#include <gtest/gtest.h>

#include <string>

#include "ftroute/ftree_misroute/fattree.hpp"
#include "ftree_misroute/ftree_misroute.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

namespace {

Routing route(const Fabric& f) {
  FtreeMisrouteEngine e;
  return e.route(f, {});
}

void expect_valid(const Fabric& f, const Routing& r, const std::string& what) {
  ValidateOptions vo;
  vo.switch_sources = true;
  ValidationReport rep = validate(f, r, vo);
  EXPECT_TRUE(rep.ok()) << what << "\n" << format_report(f, rep);
  EXPECT_EQ(rep.vls_used, std::vector<int>{0}) << what;
  EXPECT_EQ(r.num_vls, 1);
}

std::string net(const std::string& name) { return std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/" + name; }

}  // namespace

TEST(FtreeTopologies, GeneratedKaryTreesWithRandomFaults) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{2, 3}, {4, 2}, {4, 3}, {3, 4}}) {
    for (uint64_t seed = 1; seed <= 5; seed++) {
      Fabric f = topo::kary_ntree(k, n);
      topo::FaultSpec spec;
      spec.random_links = k - 1;  // the paper's guarantee: up to radix/2 - 1 link faults
      spec.seed = seed;
      spec.keep_connected = true;
      topo::inject_faults(f, spec);
      f.assign_lids();
      FatTree ft = recognize_fat_tree(f);
      EXPECT_EQ(ft.k, k);
      EXPECT_EQ(ft.n, n);
      expect_valid(f, route(f), std::to_string(k) + "-ary " + std::to_string(n) + "-tree seed " + std::to_string(seed));
    }
  }
}

TEST(FtreeTopologies, ThreeLevelFoldedClosWithFaultsAndLmc) {
  Fabric f = topo::fat_tree3(8);  // 128 hosts, 80 switches
  topo::FaultSpec spec;
  spec.random_links = 3;
  spec.seed = 11;
  spec.keep_connected = true;
  topo::inject_faults(f, spec);
  f.assign_lids(1);
  FatTree ft = recognize_fat_tree(f);
  EXPECT_EQ(ft.height, 2);
  EXPECT_EQ(ft.num_hosts, 128);
  expect_valid(f, route(f), "fat_tree3(8), 3 faults, LMC 1");
}

TEST(FtreeTopologies, ShippedNets) {
  for (const char* name : {"4ary3tree.net", "4ary3tree_f3.net", "ft648.net", "ft648_f1.net"}) {
    Fabric f = read_net_file(net(name));
    f.assign_lids();
    expect_valid(f, route(f), name);
  }
}

TEST(FtreeTopologies, ShippedMeshTorusRingAreRejected) {
  for (const char* name : {"mesh4x4.net", "torus4x4.net", "ring8.net", "torus3d_4x4x4.net"}) {
    Fabric f = read_net_file(net(name));
    f.assign_lids();
    try {
      route(f);
      ADD_FAILURE() << name << " accepted as a fat tree";
    } catch (const EngineError& e) {
      EXPECT_EQ(e.engine(), "ftree-misroute");
      EXPECT_NE(std::string(e.reason()).find("not a fat tree"), std::string::npos) << name << ": " << e.what();
    }
  }
}
