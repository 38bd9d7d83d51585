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
