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

// seed_order: an empty graph takes another's topological order, so that edges agreeing with it
// need no search (KNS's layers above 0 start from layer 0's order); a graph with edges, or of
// another size, keeps its own.
TEST(IncrementalDag, SeedOrderStartsFromAnotherGraphsOrder) {
  IncrementalDag base(6);
  for (int v = 5; v > 0; v--) ASSERT_TRUE(base.add_edge(v, v - 1));  // order 5, 4, ..., 0
  IncrementalDag layer(6);
  layer.seed_order(base);
  for (int v = 0; v < 6; v++) EXPECT_EQ(layer.order(v), base.order(v));
  const uint64_t s0 = layer.steps();
  for (int v = 5; v > 1; v -= 2) ASSERT_TRUE(layer.add_edge(v, v - 2));  // along the order
  EXPECT_EQ(layer.steps(), s0);                                           // no search at all
  EXPECT_FALSE(layer.add_edge(1, 5));                                     // 5->3->1->5
  IncrementalDag fresh(6);                                                // numbered order: the same edges search
  for (int v = 5; v > 1; v -= 2) ASSERT_TRUE(fresh.add_edge(v, v - 2));
  EXPECT_GT(fresh.steps(), 0u);
  // not on a graph with edges, nor from another size
  IncrementalDag busy(6);
  ASSERT_TRUE(busy.add_edge(0, 1));
  busy.seed_order(base);
  EXPECT_LT(busy.order(0), busy.order(1));
  IncrementalDag small(3);
  small.seed_order(base);
  EXPECT_EQ(small.order(2), 2);
}

// add_path: a path's edges all or none; the edge that closes a cycle, and whether it closed it
// with the graph's own edges alone (FT-DRB's and kns's VL layers place paths with it).
TEST(IncrementalDag, AddPathIsAllOrNothingAndNamesTheClosingEdge) {
  IncrementalDag d(6);
  ASSERT_TRUE(d.add_path({0, 1, 2}));
  ASSERT_TRUE(d.add_path({2, 3}));
  const int edges = d.num_edges();
  uint64_t closing = 0;
  bool alone = false;
  // 4->5 is new, 5->0 fine, 0->1 known, 1->2 known, then 2->4 closes 4->5->0->1->2->4 through
  // the path's own new edges: not alone, and everything taken back
  EXPECT_FALSE(d.add_path({4, 5, 0, 1, 2, 4}, &closing, &alone));
  EXPECT_EQ(closing, IncrementalDag::key(2, 4));
  EXPECT_FALSE(alone);
  EXPECT_EQ(d.num_edges(), edges);
  EXPECT_FALSE(d.has_edge(4, 5));
  EXPECT_FALSE(d.has_edge(5, 0));
  // a known edge first, then 3->0 closes 0->1->2->3->0 with the graph's edges alone
  EXPECT_FALSE(d.add_path({1, 2, 3, 0}, &closing, &alone));
  EXPECT_EQ(closing, IncrementalDag::key(3, 0));
  EXPECT_TRUE(alone);
  EXPECT_EQ(d.num_edges(), edges);
  // the known edges' references were taken back too: one removal each drops them
  d.remove_edge(1, 2);
  d.remove_edge(2, 3);
  EXPECT_FALSE(d.has_edge(1, 2));
  EXPECT_FALSE(d.has_edge(2, 3));
  EXPECT_TRUE(d.add_path({}));
  EXPECT_TRUE(d.add_path({5}));
}
