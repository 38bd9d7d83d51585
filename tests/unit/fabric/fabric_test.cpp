#include <gtest/gtest.h>

#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/error.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

using namespace ftroute;

namespace {
// Two switches joined by one link, two CAs on each.
Fabric small() {
  Fabric f;
  int s1 = f.add_node(NodeType::Switch, "S1", 8);
  int s2 = f.add_node(NodeType::Switch, "S2", 8);
  f.connect(s1, 8, s2, 8);
  for (int i = 0; i < 4; i++) {
    int h = f.add_node(NodeType::Ca, "H" + std::to_string(i), 1);
    f.connect(h, 1, i < 2 ? s1 : s2, 1 + i % 2);
  }
  return f;
}
}  // namespace

TEST(Fabric, LinksAreSymmetricAndCounted) {
  Fabric f = small();
  EXPECT_EQ(f.num_links(), 5);
  EXPECT_EQ(f.switches().size(), 2u);
  EXPECT_EQ(f.cas().size(), 4u);
  EXPECT_NO_THROW(f.validate());
  EXPECT_TRUE(f.connected());
  f.disconnect(0, 8);
  EXPECT_EQ(f.num_links(), 4);
  EXPECT_FALSE(f.connected());
}

TEST(Fabric, RejectsBadLinks) {
  Fabric f = small();
  EXPECT_THROW(f.connect(0, 9, 1, 1), FabricError);  // port out of range
  try {
    f.connect(0, 1, 1, 5);  // S1[1] already used by H0
    FAIL();
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("\"S1\"[1]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.add_node(NodeType::Switch, "S1", 4), FabricError);
}

TEST(Fabric, LidAssignmentWithLmc) {
  Fabric f = small();
  f.assign_lids(2);
  // switches first with LMC 0: LIDs 1, 2; CAs aligned to 4: 4, 8, 12, 16
  EXPECT_EQ(f.node(0).port(0).base_lid, 1);
  EXPECT_EQ(f.node(1).port(0).base_lid, 2);
  EXPECT_EQ(f.node(2).port(1).base_lid, 4);
  EXPECT_EQ(f.max_lid(), 19);
  auto a = f.attach(9);  // second LID block of H1 -> S1 port 2
  ASSERT_TRUE(a.valid());
  EXPECT_EQ(a.sw, 0);
  EXPECT_EQ(a.port, 2);
  EXPECT_EQ(f.attach(2).sw, 1);
  EXPECT_EQ(f.attach(2).port, 0);
  EXPECT_FALSE(f.owner(3).has_value());
  EXPECT_NO_THROW(f.validate());
  f.set_lid(3, 1, 4);  // H1 now overlaps H0's block
  EXPECT_THROW(f.validate(), FabricError);
}

TEST(Fabric, DefaultGuidsFollowIbsim) {
  Fabric f = small();
  f.assign_default_guids();
  EXPECT_EQ(f.node(0).guid, 0x200000u);
  EXPECT_EQ(f.node(1).guid, 0x200001u);
  EXPECT_EQ(f.node(2).guid, 0x100000u);
  EXPECT_EQ(f.node(2).port(1).guid, 0x100001u);
  EXPECT_EQ(f.node(3).guid, 0x100002u);
}

TEST(Lfts, DefaultsToNoPath) {
  Fabric f = small();
  f.assign_lids();
  Lfts l(f);
  EXPECT_EQ(l.get(0, 3), kNoPath);
  l.set(0, 3, 1);
  EXPECT_EQ(l.get(0, 3), 1);
  EXPECT_TRUE(l.table(2).empty());  // CA has no LFT
}

TEST(Sl2Vl, IdentityUnlessSet) {
  Sl2Vl m;
  EXPECT_EQ(m.vl(0, 1, 2, 5), 5);
  auto t = Sl2Vl::identity();
  t[5] = 1;
  m.set(0, 1, 2, t);
  EXPECT_EQ(m.vl(0, 1, 2, 5), 1);
  EXPECT_EQ(m.vl(0, 2, 1, 5), 5);
}

TEST(EngineOptions, ParseAndValidate) {
  auto o = EngineOptions::parse("a=1, b=true c=x");
  EXPECT_EQ(o.get_int("a", 0), 1);
  EXPECT_TRUE(o.get_bool("b", false));
  EXPECT_EQ(o.get("c", ""), "x");
  EXPECT_THROW(o.get_int("c", 0), OptionError);
  EXPECT_THROW(o.check_known("e", {OptionSpec::integer("a", 0, 9, "0", "a"), OptionSpec::boolean("b", "false", "b")}), OptionError);
  EXPECT_THROW(EngineOptions::parse("novalue"), OptionError);
  EXPECT_THROW(make_engine("no-such-engine"), OptionError);
}

// Issue 15: a fabric that does not fit the 49151 unicast LIDs is refused with the count and the
// limit, and keeps the LIDs it had.
TEST(Fabric, LidSpaceExhaustedNamesCountAndLimit) {
  Fabric f;
  const int s0 = f.add_node(NodeType::Switch, "S0", 254), s1 = f.add_node(NodeType::Switch, "S1", 254);
  f.connect(s0, 254, s1, 254);
  for (int i = 0; i < 400; i++) {
    const int c = f.add_node(NodeType::Ca, "H" + std::to_string(i), 1);
    f.connect(c, 1, i < 200 ? s0 : s1, 1 + i % 200);
  }
  f.assign_default_guids();
  f.assign_lids(0);
  const Lid before = f.max_lid();
  EXPECT_EQ(before, 402);
  f.assign_lids(6);  // 400 x 64 + 2 = 25602: fits
  EXPECT_GT(f.max_lid(), 25000);
  f.assign_lids(0);
  try {
    f.assign_lids(7);  // switches 1-2, CAs from 128 (aligned): highest LID 128 + 400 x 128 - 1 = 51327
    FAIL() << "51202+ LIDs assigned";
  } catch (const FabricError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("needs 51327 unicast LIDs"), std::string::npos) << m;
    EXPECT_NE(m.find("49151"), std::string::npos) << m;
    EXPECT_NE(m.find("400 connected CA/router ports with LMC 7"), std::string::npos) << m;
  }
  EXPECT_EQ(f.max_lid(), before) << "a refused assignment changed the LIDs";
}

// The id index (open addressing, the first 16 bytes inline): every length, shared prefixes,
// duplicates refused, lookups of absent ids, and a copy keeps working.
TEST(Fabric, IdIndexFindsEveryIdAndRefusesDuplicates) {
  Fabric f;
  std::vector<std::string> ids;
  for (int len = 1; len <= 40; len++)
    for (char c : {'a', 'b'}) ids.push_back(std::string(static_cast<size_t>(len), 'x') + c);
  for (int i = 0; i < 3000; i++) ids.push_back("node_with_a_long_common_prefix_" + std::to_string(i));
  for (const auto& id : ids) f.add_node(NodeType::Ca, id, 1);
  for (size_t i = 0; i < ids.size(); i++) ASSERT_EQ(f.find(ids[i]), static_cast<int>(i)) << ids[i];
  EXPECT_THROW(f.add_node(NodeType::Ca, ids[5], 1), FabricError);
  EXPECT_THROW(f.add_node(NodeType::Switch, ids.back(), 4), FabricError);
  EXPECT_FALSE(f.find("").has_value());
  EXPECT_FALSE(f.find("xa_").has_value());
  EXPECT_FALSE(f.find("node_with_a_long_common_prefix_3000").has_value());
  EXPECT_FALSE(f.find(std::string(41, 'x') + 'c').has_value());
  const Fabric g = f;
  EXPECT_EQ(g.find(ids[1234]), 1234);
  Fabric h;
  h.reserve(10);
  EXPECT_EQ(h.add_node(NodeType::Switch, "s", 2), 0);
  EXPECT_EQ(h.find("s"), 0);
}
