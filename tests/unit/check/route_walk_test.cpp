// The route walk (check/route_walk.hpp): decode_hop()/follow() name every drop kind in their
// order of checks, walk_path() delivers, drops (also at a cable taken down under unchanged
// tables), stops on request and catches loops with its one bound, and agrees with RouteWalker
// (a fresh walk per start switch) on random damaged routings.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "ftroute/route_walk.hpp"
#include "test_fabrics.hpp"

using namespace ftroute;
using test_fabrics::clockwise;
using test_fabrics::ring;

namespace {

struct Trace {
  std::vector<int> sws;
  PathWalk w;
};

Trace walk(const Fabric& f, const Lfts& l, int from, int ca) {
  Trace t;
  const EndPort e = *f.owner(f.node(ca).port(1).base_lid);
  t.w = walk_path(f, l, from, e.base_lid, e.node, e.port, [&](int s, const RouteHop&) { t.sws.push_back(s); });
  return t;
}

}  // namespace

TEST(RouteWalk, DeliversAlongTheRoute) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  Trace t = walk(f, r.lfts, 0, n + 2);  // R0 -> C2: R0, R1, R2, then port 3
  EXPECT_EQ(t.w.end, PathWalk::Delivered);
  EXPECT_EQ(t.sws, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(t.w.sw, 2);
  EXPECT_EQ(t.w.switches, 3);
  EXPECT_EQ(t.w.hop.port, 3);
  EXPECT_EQ(t.w.hop.next, n + 2);
  // a switch's own LID: port 0 on the owner delivers
  const Lid sl = f.node(3).port(0).base_lid;
  PathWalk w = walk_path(f, r.lfts, 1, sl, 3, 0, [](int, const RouteHop&) {});
  EXPECT_EQ(w.end, PathWalk::Delivered);
  EXPECT_EQ(w.switches, 3);
  EXPECT_EQ(w.hop.port, 0);
}

TEST(RouteWalk, NamesEveryDropInOrder) {
  const int n = 4;
  Fabric f = ring(n);
  const Lid l2 = f.node(n + 2).port(1).base_lid;
  auto drop_at_r1 = [&](uint8_t entry) {
    Routing r = clockwise(f, n);
    r.lfts.set(1, l2, entry);
    Trace t = walk(f, r.lfts, 0, n + 2);
    EXPECT_EQ(t.w.end, PathWalk::Dropped) << int(entry);
    EXPECT_EQ(t.w.sw, 1) << int(entry);
    EXPECT_EQ(t.sws, (std::vector<int>{0, 1})) << int(entry);
    return t.w.hop.drop;
  };
  EXPECT_EQ(drop_at_r1(kNoPath), DropKind::NoRoute);
  EXPECT_EQ(drop_at_r1(0), DropKind::NotLocal);
  EXPECT_EQ(drop_at_r1(9), DropKind::BadPort);
  EXPECT_EQ(drop_at_r1(4), DropKind::DownPort);
  EXPECT_EQ(drop_at_r1(3), DropKind::WrongEndpoint);  // C1 does not own C2's LID
  // follow() is decode_hop() of the LFT entry
  Routing r = clockwise(f, n);
  r.lfts.set(1, l2, 4);
  EXPECT_EQ(follow(f, r.lfts, 1, l2, n + 2, 1).drop, DropKind::DownPort);
  // the texts are distinct
  std::set<std::string> texts;
  for (int k = 0; k <= static_cast<int>(DropKind::Loop); k++) texts.insert(drop_kind_text(static_cast<DropKind>(k)));
  EXPECT_EQ(texts.size(), 6u);
}

// A cable taken down under unchanged tables (the fabric after a fault): the walk stops at the
// near end with DownPort, in both directions of the cable; and port 0 on a switch that is not the
// destination switch (a switch's own LID) is NotLocal, not a delivery.
TEST(RouteWalk, DownLinkAndPortZeroOnAForeignSwitch) {
  const int n = 5;
  Fabric f = ring(n);
  const Routing r = clockwise(f, n);
  f.disconnect(2, 1);  // R2[1] -> R3[2] is down
  Trace t = walk(f, r.lfts, 0, n + 4);  // R0 -> C4 passes R2 -> R3
  EXPECT_EQ(t.w.end, PathWalk::Dropped);
  EXPECT_EQ(t.w.hop.drop, DropKind::DownPort);
  EXPECT_EQ(t.w.sw, 2);
  EXPECT_EQ(t.w.hop.port, 1);
  EXPECT_EQ(t.sws, (std::vector<int>{0, 1, 2}));
  // a route that does not use the cable is not touched
  t = walk(f, r.lfts, 0, n + 2);
  EXPECT_EQ(t.w.end, PathWalk::Delivered);
  // the other end of the same cable (R3[2]) is down as well: an entry to it drops at R3
  Routing back = r;
  const Lid l4 = f.node(n + 4).port(1).base_lid;
  back.lfts.set(3, l4, 2);
  t = walk(f, back.lfts, 3, n + 4);
  EXPECT_EQ(t.w.end, PathWalk::Dropped);
  EXPECT_EQ(t.w.hop.drop, DropKind::DownPort);
  EXPECT_EQ(t.w.sw, 3);
  // a switch's own LID: port 0 on R1 (the owner is R3) is NotLocal, on R3 it delivers
  const Fabric whole = ring(n);
  Routing own = clockwise(whole, n);
  const Lid l3 = whole.node(3).port(0).base_lid;
  own.lfts.set(1, l3, 0);
  PathWalk w = walk_path(whole, own.lfts, 0, l3, 3, 0, [](int, const RouteHop&) {});
  EXPECT_EQ(w.end, PathWalk::Dropped);
  EXPECT_EQ(w.hop.drop, DropKind::NotLocal);
  EXPECT_EQ(w.sw, 1);
  w = walk_path(whole, own.lfts, 2, l3, 3, 0, [](int, const RouteHop&) {});
  EXPECT_EQ(w.end, PathWalk::Delivered);
  EXPECT_EQ(w.sw, 3);
}

TEST(RouteWalk, OwnerNotCheckedDeliversAtTheFirstEndpoint) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  const Lid l2 = f.node(n + 2).port(1).base_lid;
  r.lfts.set(1, l2, 3);  // to C1
  PathWalk w = walk_path(f, r.lfts, 0, l2, -1, 0, [](int, const RouteHop&) {});
  EXPECT_EQ(w.end, PathWalk::Delivered);
  EXPECT_EQ(w.hop.next, n + 1);
  r.lfts.set(1, l2, 0);
  w = walk_path(f, r.lfts, 0, l2, -1, 0, [](int, const RouteHop&) {});
  EXPECT_EQ(w.end, PathWalk::Delivered);
  EXPECT_EQ(w.sw, 1);
}

TEST(RouteWalk, CatchesLoopsWithOneBound) {
  const int n = 5;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  const Lid l3 = f.node(n + 3).port(1).base_lid;
  r.lfts.set(2, l3, 2);  // R2 sends back to R1, R1 forwards to R2 again
  Trace t = walk(f, r.lfts, 0, n + 3);
  EXPECT_EQ(t.w.end, PathWalk::Loop);
  EXPECT_EQ(t.w.switches, n);  // as many visits as the fabric has switches, then the verdict
  EXPECT_EQ(t.sws, (std::vector<int>{0, 1, 2, 1, 2}));
  // the whole ring clockwise with no delivery anywhere: n visits, then Loop
  Routing all = clockwise(f, n);
  for (int s = 0; s < n; s++) all.lfts.set(s, l3, 1);
  t = walk(f, all.lfts, 0, n + 3);
  EXPECT_EQ(t.w.end, PathWalk::Loop);
  EXPECT_EQ(t.sws.size(), static_cast<size_t>(n));
}

TEST(RouteWalk, StopsWhenTheCallbackSaysSo) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  const EndPort e = *f.owner(f.node(n + 3).port(1).base_lid);
  std::vector<int> seen;
  PathWalk w = walk_path(f, r.lfts, 0, e.base_lid, e.node, e.port, [&](int s, const RouteHop& h) {
    seen.push_back(s);
    EXPECT_EQ(h.kind, RouteHop::Forward);
    return s != 1;
  });
  EXPECT_EQ(w.end, PathWalk::Stopped);
  EXPECT_EQ(w.sw, 1);
  EXPECT_EQ(seen, (std::vector<int>{0, 1}));
  // walk_path_by reads the entries from any source (here: a column held by the caller)
  std::vector<uint8_t> col(static_cast<size_t>(f.size()), 1);
  col[3] = 3;
  w = walk_path_by(f, [&](int s) { return col[static_cast<size_t>(s)]; }, 1, e.node, e.port, [](int, const RouteHop&) {});
  EXPECT_EQ(w.end, PathWalk::Delivered);
  EXPECT_EQ(w.switches, 3);
}

// walk_path and RouteWalker (fresh per start switch, so no Joined) end alike on random damage.
TEST(RouteWalk, AgreesWithRouteWalkerOnDamagedRoutings) {
  const int n = 6;
  Fabric f = ring(n);
  std::mt19937 rng(7);
  const uint8_t entries[] = {0, 1, 2, 3, 4, 9, kNoPath};
  int kinds[5] = {};
  for (int round = 0; round < 200; round++) {
    Routing r = clockwise(f, n);
    for (int k = 0; k < 3; k++) {
      const EndPort& e = f.end_ports()[rng() % f.end_ports().size()];
      r.lfts.set(static_cast<int>(rng() % n), e.base_lid, entries[rng() % 7]);
    }
    RouteWalker rw(f, r.lfts);
    for (const EndPort& e : f.end_ports())
      for (int s = 0; s < n; s++) {
        rw.begin(e.base_lid, e.node, e.port);
        const RouteWalker::Walk a = rw.walk(s);
        const PathWalk b = walk_path(f, r.lfts, s, e.base_lid, e.node, e.port, [](int, const RouteHop&) {});
        ASSERT_NE(a.end, RouteWalker::End::Joined);
        if (a.end == RouteWalker::End::Loop) {
          EXPECT_EQ(b.end, PathWalk::Loop);
          kinds[4]++;
        } else if (a.end == RouteWalker::End::Delivered) {
          EXPECT_EQ(b.end, PathWalk::Delivered);
          EXPECT_EQ(b.sw, a.sw);
          kinds[0]++;
        } else {
          EXPECT_EQ(b.end, PathWalk::Dropped);
          EXPECT_EQ(b.sw, a.sw);
          EXPECT_EQ(b.hop.drop, a.hop.drop);
          kinds[1]++;
        }
        if (b.end != PathWalk::Loop) {
          EXPECT_EQ(b.switches, static_cast<int>(rw.path().size()));
        }
      }
  }
  EXPECT_GT(kinds[0], 0);
  EXPECT_GT(kinds[1], 0);
  EXPECT_GT(kinds[4], 0);  // the random damage made loops too
}
