// Link events of a run (flitsim/link_events.cpp): `sim --fail/--recover` parsed against the
// fabric, and the fabric as it is at a cycle, which `sim --reroute CYCLE` routes.
#include <gtest/gtest.h>

#include "ftroute/flitsim.hpp"
#include "ftroute/flitsim_testnets.hpp"

namespace ftroute::flitsim {
namespace {

bool linked(const Fabric& f, const std::string& node, int port) { return f.node(*f.find(node)).port(port).connected(); }

TEST(LinkEvents, FabricAtACycleHasTheLinksDownThatAreDownThen) {
  const Fabric f = make_mesh(3, 1, false);  // S0_0 - S1_0 - S2_0
  const LinkEvent a = parse_link_event(f, "100:\"S0_0\"[2]", false);
  const LinkEvent b = parse_link_event(f, "150:S1_0[2]", false);
  LinkEvent a_up = parse_link_event(f, "200:\"S0_0\"[2]", true);
  ASSERT_TRUE(linked(f, "S0_0", 2));
  ASSERT_TRUE(linked(f, "S1_0", 2));
  const std::vector<LinkEvent> ev = {a_up, b, a};  // any order: sorted by cycle
  EXPECT_TRUE(linked(fabric_at(f, ev, 99), "S0_0", 2));
  EXPECT_FALSE(linked(fabric_at(f, ev, 100), "S0_0", 2));
  EXPECT_FALSE(linked(fabric_at(f, ev, 100), "S1_0", 3)) << "the peer goes down with it";
  EXPECT_TRUE(linked(fabric_at(f, ev, 120), "S1_0", 2));
  EXPECT_FALSE(linked(fabric_at(f, ev, 170), "S1_0", 2));
  EXPECT_FALSE(linked(fabric_at(f, ev, 170), "S0_0", 2));
  EXPECT_TRUE(linked(fabric_at(f, ev, 250), "S0_0", 2));
  EXPECT_FALSE(linked(fabric_at(f, ev, 250), "S1_0", 2));
  // two events in one cycle: the later one in the given order wins
  a_up.cycle = 100;
  EXPECT_TRUE(linked(fabric_at(f, {a, a_up}, 100), "S0_0", 2));
  EXPECT_FALSE(linked(fabric_at(f, {a_up, a}, 100), "S0_0", 2));
}

TEST(LinkEvents, BadEventsNameWhatIsWrong) {
  const Fabric f = make_mesh(3, 1, false);
  auto message = [&](const std::string& arg) {
    try {
      parse_link_event(f, arg, false);
    } catch (const OptionError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("S0_0[2]").find("expected CYCLE:"), std::string::npos);
  EXPECT_NE(message("x1:S0_0[2]").find("bad cycle 'x1'"), std::string::npos);
  EXPECT_NE(message("-5:S0_0[2]").find("is negative"), std::string::npos);
  EXPECT_NE(message("5:Nope[2]").find("unknown node 'Nope'"), std::string::npos);
  EXPECT_NE(message("5:S0_0[3]").find("is not linked"), std::string::npos) << "S0_0 is a corner: no -x link";
  EXPECT_NE(message("5:S0_0[99]").find("is not linked"), std::string::npos);
}

}  // namespace
}  // namespace ftroute::flitsim
