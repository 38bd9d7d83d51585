// dqr-eval's flow model path (dqr_flow_path, --model flow): the switch links of the base routing
// from a source switch to a destination switch, walked by walk_path(); a route that stops (no
// route: the copy before walk_path had no kNoPath guard), reaches a CA early or loops is an Error
// naming the pair, never a read past the port table.
#include <gtest/gtest.h>

#include "ftroute/dqr/eval.hpp"
#include "ftroute/error.hpp"

using namespace ftroute;

namespace {

// Ring of n switches R0..R(n-1): Ri[1] -> R(i+1)[2], CA Ci on Ri[3]; clockwise LFTs.
struct Ring {
  Fabric f;
  Routing r;
  explicit Ring(int n) {
    for (int i = 0; i < n; i++) f.add_node(NodeType::Switch, "R" + std::to_string(i), 4);
    for (int i = 0; i < n; i++) f.add_node(NodeType::Ca, "C" + std::to_string(i), 1);
    for (int i = 0; i < n; i++) f.connect(i, 1, (i + 1) % n, 2), f.connect(i, 3, n + i, 1);
    f.assign_default_guids();
    f.assign_lids();
    r.lfts = Lfts(f);
    for (int s = 0; s < n; s++)
      for (const EndPort& e : f.end_ports()) {
        const int home = f.node(e.node).is_switch() ? e.node : e.node - n;
        r.lfts.set(s, e.base_lid, home != s ? 1 : (e.node == s ? 0 : 3));
      }
  }
  Lid ca_lid(int i) const { return f.node(f.size() / 2 + i).port(1).base_lid; }
};

std::string error_of(const Ring& g, int s, int t) {
  try {
    dqr_flow_path(g.f, g.r.lfts, s, t, g.ca_lid(t));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(DqrFlowPath, FollowsTheBaseRouting) {
  Ring g(5);
  const auto links = dqr_flow_path(g.f, g.r.lfts, 0, 3, g.ca_lid(3));
  EXPECT_EQ(links, (std::vector<std::pair<int, uint8_t>>{{0, 1}, {1, 1}, {2, 1}}));
}

TEST(DqrFlowPath, NoRouteIsAnErrorNamingThePair) {
  Ring g(5);
  g.r.lfts.set(1, g.ca_lid(3), kNoPath);  // the old loop read port 255 of R1 here
  EXPECT_EQ(error_of(g, 0, 3), "dqr-eval --model flow: the base routing does not deliver R0 -> R3");
}

TEST(DqrFlowPath, EarlyCaDownPortAndLoopsAreErrors) {
  Ring g(5);
  g.r.lfts.set(1, g.ca_lid(3), 3);  // delivered to C1
  EXPECT_NE(error_of(g, 0, 3), "");
  g.r.lfts.set(1, g.ca_lid(3), 4);  // port without link
  EXPECT_NE(error_of(g, 0, 3), "");
  g.r.lfts.set(1, g.ca_lid(3), 1);
  g.r.lfts.set(2, g.ca_lid(3), 2);  // R2 back to R1: a loop
  EXPECT_NE(error_of(g, 0, 3), "");
  g.r.lfts.set(2, g.ca_lid(3), 1);
  EXPECT_EQ(error_of(g, 0, 3), "");
}
