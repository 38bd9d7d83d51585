// ftree-misroute's valley chains (option vls=N, docs/ftree-misroute.md "Valley chains"): on a
// tree built in planes, every route between planes turns at a leaf, and on one VL all those
// U-turns must share one valley leaf (two leaves with opposite turns close a credit loop through
// ordinary traffic between them). vls=N routes each destination with one of N valley leaves and
// puts its routes on that chain's VL, so the U-turn load is split N ways and each VL still holds
// the routes of a single valley. Also the balance of the extra destinations (switch LIDs, ANs,
// upper-level hosts) on the production presets, at 1 VL.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "ftroute/cluster_tree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

namespace {

Fabric preset(const std::string& name) {
  Fabric f = topo::cluster_tree(topo::parse_cluster_tree("preset=" + name));
  f.assign_lids();
  return f;
}

Routing route(const Fabric& f, const std::string& opts) {
  return make_engine("ftree-misroute")->route(f, EngineOptions::parse(opts));
}

ValidationReport check_all(const Fabric& f, const Routing& r) {
  ValidateOptions o;
  o.switch_sources = true;  // switches are sources too (SM and management traffic)
  return validate(f, r, o);
}

}  // namespace

// The hdr-3tier preset (8 pods in 10 planes, ANs on every switch, hosts on two spines, missing
// cables): on one VL the valley leaf's cables are the busiest, above ft-minhop's EFI max (which
// has credit loops). With two chains every pair is routed, each VL's CDG is acyclic with
// switches as sources, the load is below ft-minhop's, and both VLs carry routes.
TEST(ValleyChains, TwoChainsOnHdr3TierRouteDeadlockFreeBelowFtMinhop) {
  const Fabric f = preset("hdr-3tier");
  const Routing one = route(f, "");
  const Routing two = route(f, "vls=2");
  ASSERT_EQ(one.num_vls, 1);
  ASSERT_EQ(two.num_vls, 2);
  const ValidationReport v1 = check_all(f, one), v2 = check_all(f, two);
  EXPECT_TRUE(v2.ok()) << v2.cycle_text;
  EXPECT_EQ(v2.unreachable, 0u);
  EXPECT_EQ(v2.looping, 0u);
  EXPECT_TRUE(v2.deadlock_checked && v2.cdg_acyclic) << v2.cycle_text;
  EXPECT_EQ(v2.vls_used.size(), 2u);
  const Routing minhop = make_engine("ft-minhop")->route(f, {});
  const uint64_t theirs = validate(f, minhop, {}).efi_max;
  const uint64_t efi1 = validate(f, one, {}).efi_max, efi2 = validate(f, two, {}).efi_max;
  EXPECT_LT(efi2, efi1);
  EXPECT_LE(efi2, theirs);
  std::printf("hdr-3tier: EFI max 1 VL %llu, 2 VLs %llu, ft-minhop %llu\n", static_cast<unsigned long long>(efi1),
              static_cast<unsigned long long>(efi2), static_cast<unsigned long long>(theirs));
  // the destinations with U-turns are dealt to both chains, and the note names both valleys
  std::map<int, int> per_sl;
  for (const EndPort& ep : f.end_ports()) per_sl[two.sl(1, static_cast<Lid>(ep.base_lid))]++;
  EXPECT_EQ(per_sl.size(), 2u);
  EXPECT_GT(per_sl[1], 100);
  ASSERT_FALSE(two.notes.empty());
  EXPECT_NE(two.notes.front().find("2 valley chains"), std::string::npos) << two.notes.front();
}

// Why the chains need a VL each: the same tables with every route on VL0 (path SLs dropped)
// have a credit loop, through the two valley leaves' opposite U-turns (docs/ftree-misroute.md
// section 9). This is the single-VL bound the chains lift, shown on the fabric.
TEST(ValleyChains, TwoValleysOnOneVlCloseACreditLoop) {
  const Fabric f = preset("hdr-3tier");
  Routing r = route(f, "vls=2");
  ASSERT_EQ(r.num_vls, 2);
  r.path_sl = nullptr;
  r.num_vls = 1;
  const ValidationReport v = check_all(f, r);
  EXPECT_EQ(v.unreachable, 0u);
  EXPECT_TRUE(v.deadlock_checked);
  EXPECT_FALSE(v.cdg_acyclic) << "two valley leaves on one VL should close a cycle";
}

// The same LFTs and SLs for every thread count.
TEST(ValleyChains, SameTablesForEveryThreadCount) {
  const Fabric f = preset("hdr-3tier");
  const Routing a = route(f, "vls=3,threads=1"), b = route(f, "vls=3,threads=2");
  ASSERT_EQ(a.num_vls, b.num_vls);
  for (int sw : f.switches()) EXPECT_EQ(a.lfts.table(sw), b.lfts.table(sw)) << f.node(sw).id;
  for (const EndPort& ep : f.end_ports()) EXPECT_EQ(a.sl(1, static_cast<Lid>(ep.base_lid)), b.sl(1, static_cast<Lid>(ep.base_lid)));
}

// Bad options are refused with the reason: out of range, or a chain count with one named valley.
TEST(ValleyChains, OptionErrorsNameTheProblem) {
  const Fabric f = preset("hdr-3tier");
  EXPECT_THROW(route(f, "vls=9"), OptionError);
  EXPECT_THROW(route(f, "vls=0"), OptionError);
  try {
    route(f, "valley_leaf=L0_0,vls=2");
    FAIL() << "valley_leaf with vls=2 accepted";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("leave valley_leaf unset"), std::string::npos) << e.what();
  }
}

// A two-level tree with missing cables: U-turns at a valley leaf reach the leaves short of a
// spine; three chains route it, deadlock free per VL. With a single spine no route turns, and
// vls=3 stays on one VL (no VL is asked for nothing).
TEST(ValleyChains, TwoLevelTreeWithMissingCables) {
  Fabric f = topo::cluster_tree(topo::parse_cluster_tree("leaves=8,spines=4,hosts=4,links=2,an=1,missing=3,seed=2"));
  f.assign_lids();
  const Routing r = route(f, "vls=3");
  EXPECT_EQ(r.num_vls, 3);
  const ValidationReport v = check_all(f, r);
  EXPECT_TRUE(v.ok()) << v.cycle_text;
  EXPECT_TRUE(v.deadlock_checked && v.cdg_acyclic) << v.cycle_text;
  Fabric g = topo::cluster_tree(topo::parse_cluster_tree("leaves=8,spines=1,hosts=4,links=2,an=1"));
  g.assign_lids();
  const Routing full = route(g, "vls=3");
  EXPECT_EQ(full.num_vls, 1);
  ASSERT_FALSE(full.notes.empty());
  EXPECT_NE(full.notes.back().find("no route needs a U-turn"), std::string::npos) << full.notes.back();
}

// The extra destinations (switch LIDs, ANs, hosts on spines) take the index whose own climb
// crosses the least used cables, and the spines climb to the core the destination itself
// climbs to (UpToMirror) where bundles are short of a cable. EFI max at 1 VL, before -> after:
// hdr-3tier 5,840 -> 4,914, edr-director 7,738 -> 6,601, hdr-mcs8500 3,600 -> 3,210.
TEST(ValleyChains, ExtraDestinationsBalancedOnThePresets) {
  for (const auto& [name, bound] : std::map<std::string, uint64_t>{{"hdr-3tier", 4914}, {"edr-director", 6601}, {"hdr-mcs8500", 3210}}) {
    SCOPED_TRACE(name);
    const Fabric f = preset(name);
    const Routing r = route(f, "");
    const ValidationReport v = validate(f, r, {});
    EXPECT_TRUE(v.ok());
    EXPECT_LE(v.efi_max, bound);
  }
}
