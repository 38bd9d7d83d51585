// Incremental acyclicity for one virtual layer: a directed graph over channel ids whose edges
// can be added (rejected if they would close a cycle) and removed, keeping a topological order
// all the time (Pearce & Kelly, "A dynamic topological sort algorithm for directed acyclic
// graphs", JEA 2007). Used by FT-DRB to place paths onto VL layers LASH-style (a path goes to
// the first layer whose dependency graph stays acyclic with it) and by ftree-misroute's cable
// balancing (a moved entry's new dependencies must keep the graph acyclic).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftroute {

class IncrementalDag {
 public:
  explicit IncrementalDag(int num_nodes);

  // Adds u->v (reference counted). Returns false, leaving the graph unchanged, if the edge
  // would close a cycle, or might: when the search for a cycle takes more than max_steps steps
  // (a bound for callers that can do without an edge). Self loops are rejected.
  bool add_edge(int u, int v, uint64_t max_steps = UINT64_MAX);
  // Every edge chans[i] -> chans[i + 1] of a path (reference counted), or none: false if one
  // would close a cycle, and the ones added before it are taken back. With `closing`: that
  // edge's key, and `*alone` whether it closed the cycle with the graph's own edges, no edge of
  // the path new to the graph added before it (then it closes one as long as the graph only
  // gains edges).
  bool add_path(const std::vector<int>& chans, uint64_t* closing = nullptr, bool* alone = nullptr);
  // Drops one reference of u->v; the edge disappears at zero. No-op when absent.
  void remove_edge(int u, int v);
  bool has_edge(int u, int v) const { return find(u, v) >= 0; }
  int num_edges() const { return edges_; }
  // Starts an empty graph from `other`'s topological order instead of the node numbers, so that
  // edges that agree with that order (a new layer filled with paths like the ones of a layer
  // already built) cost no search. Only on a graph without edges, of the same size.
  void seed_order(const IncrementalDag& other);
  // Position of a node in the maintained topological order (for tests).
  int order(int v) const { return ord_[static_cast<size_t>(v)]; }
  // Nodes and edges visited by the searches so far (a measure of work, for budgets).
  uint64_t steps() const { return steps_; }
  // The edge u->v as one number (the graph's own key; also for callers' sets of edges).
  static uint64_t key(int u, int v) { return (static_cast<uint64_t>(static_cast<uint32_t>(u)) << 32) | static_cast<uint32_t>(v); }

 private:
  bool reorder(int u, int v, uint64_t max_steps);  // restores the order after inserting u->v with ord[u] > ord[v]
  // u->v's index in out_[u], -1 when absent (a scan: a channel's dependencies are at most a
  // switch's ports, a hash lookup costs more)
  int find(int u, int v) const {
    const std::vector<int>& o = out_[static_cast<size_t>(u)];
    for (size_t j = 0; j < o.size(); j++)
      if (o[j] == v) return static_cast<int>(j);
    return -1;
  }

  std::vector<std::vector<int>> out_, in_;
  std::vector<std::vector<int>> refs_;  // refs_[u][j]: the references of the edge u -> out_[u][j]
  std::vector<int> ord_, node_at_;
  int edges_ = 0;
  std::vector<int> mark_;     // visit stamps
  std::vector<int> fwd_, bwd_, stack_, slots_;  // reorder()'s scratch
  int stamp_ = 0;
  uint64_t steps_ = 0;
};

}  // namespace ftroute
