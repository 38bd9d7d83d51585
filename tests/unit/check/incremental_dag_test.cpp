// IncrementalDag (check/incremental_dag.cpp): cycles rejected, the topological order kept,
// edges reference counted. Its users' own tests: FtDrb.* and Balance.* (routing_engines).
#include <gtest/gtest.h>

#include "ftroute/incremental_dag.hpp"

using namespace ftroute;

TEST(IncrementalDag, RejectsCyclesAndKeepsOrder) {
  IncrementalDag d(5);
  EXPECT_TRUE(d.add_edge(3, 1));
  EXPECT_TRUE(d.add_edge(1, 0));
  EXPECT_LT(d.order(3), d.order(1));
  EXPECT_LT(d.order(1), d.order(0));
  EXPECT_FALSE(d.add_edge(0, 3));  // 3->1->0->3
  EXPECT_FALSE(d.has_edge(0, 3));
  EXPECT_TRUE(d.add_edge(3, 1));   // second reference
  d.remove_edge(3, 1);
  EXPECT_TRUE(d.has_edge(3, 1));
  d.remove_edge(3, 1);
  EXPECT_FALSE(d.has_edge(3, 1));
  EXPECT_TRUE(d.add_edge(0, 3));   // no longer a cycle
  EXPECT_FALSE(d.add_edge(2, 2));
}

TEST(IncrementalDag, BoundedSearchGivesUpWithoutChangingTheGraph) {
  // a chain 9 -> 8 -> ... -> 0 placed before node 10; the edge 10 -> 9 closes no cycle, but the
  // search for one walks the whole chain (10 has to move before 9)
  IncrementalDag d(11);
  for (int v = 9; v > 0; v--) ASSERT_TRUE(d.add_edge(v, v - 1));
  ASSERT_LT(d.order(0), d.order(10));
  const int before = d.num_edges();
  const uint64_t s0 = d.steps();
  EXPECT_FALSE(d.add_edge(10, 9, 3));  // gives up after 3 steps
  EXPECT_FALSE(d.has_edge(10, 9));
  EXPECT_EQ(d.num_edges(), before);
  EXPECT_GT(d.steps(), s0);
  for (int v = 9; v > 0; v--) EXPECT_LT(d.order(v), d.order(v - 1));
  EXPECT_LT(d.order(0), d.order(10));  // the order untouched
  EXPECT_TRUE(d.add_edge(10, 9));      // unbounded: no cycle, so added
  EXPECT_LT(d.order(10), d.order(9));
  EXPECT_FALSE(d.add_edge(0, 10, 1000));  // a real cycle
}
