#include "ftroute/incremental_dag.hpp"

#include <algorithm>

namespace ftroute {

IncrementalDag::IncrementalDag(int n)
    : out_(static_cast<size_t>(n)), in_(static_cast<size_t>(n)), refs_(static_cast<size_t>(n)), ord_(static_cast<size_t>(n)),
      node_at_(static_cast<size_t>(n)), mark_(static_cast<size_t>(n), 0) {
  for (int i = 0; i < n; i++) ord_[static_cast<size_t>(i)] = node_at_[static_cast<size_t>(i)] = i;
}

void IncrementalDag::seed_order(const IncrementalDag& other) {
  if (edges_ != 0 || other.ord_.size() != ord_.size()) return;
  ord_ = other.ord_;
  node_at_ = other.node_at_;
}

bool IncrementalDag::add_edge(int u, int v, uint64_t max_steps) {
  if (u == v) return false;
  const int j = find(u, v);
  if (j >= 0) {
    refs_[static_cast<size_t>(u)][static_cast<size_t>(j)]++;
    return true;
  }
  if (ord_[static_cast<size_t>(u)] > ord_[static_cast<size_t>(v)] && !reorder(u, v, max_steps)) return false;
  out_[static_cast<size_t>(u)].push_back(v);
  refs_[static_cast<size_t>(u)].push_back(1);
  in_[static_cast<size_t>(v)].push_back(u);
  edges_++;
  return true;
}

bool IncrementalDag::add_path(const std::vector<int>& chans, uint64_t* closing, bool* alone) {
  bool grew = false;  // an edge new to the graph added so far
  size_t k = 0;
  for (; k + 1 < chans.size(); k++) {
    const bool known = has_edge(chans[k], chans[k + 1]);
    if (!add_edge(chans[k], chans[k + 1])) break;
    grew = grew || !known;
  }
  if (k + 1 >= chans.size()) return true;
  if (closing) *closing = key(chans[k], chans[k + 1]);
  if (alone) *alone = !grew;
  for (size_t j = 0; j < k; j++) remove_edge(chans[j], chans[j + 1]);
  return false;
}

void IncrementalDag::remove_edge(int u, int v) {
  const int j = find(u, v);
  if (j < 0) return;
  std::vector<int>& o = out_[static_cast<size_t>(u)];
  std::vector<int>& r = refs_[static_cast<size_t>(u)];
  if (--r[static_cast<size_t>(j)] > 0) return;
  o[static_cast<size_t>(j)] = o.back();  // (the edge's slot takes the last one's, as before)
  o.pop_back();
  r[static_cast<size_t>(j)] = r.back();
  r.pop_back();
  edges_--;
  std::vector<int>& in = in_[static_cast<size_t>(v)];
  auto p = std::find(in.begin(), in.end(), u);
  if (p != in.end()) {
    *p = in.back();
    in.pop_back();
  }
}

// Inserting u->v with ord[u] > ord[v]: the affected region is the order interval [ord v, ord u].
// Forward search from v inside it; reaching u means a cycle. Otherwise move the backward set of
// u (nodes that reach u) before the forward set of v, reusing their positions. A forward search
// longer than max_steps gives up as if it had found a cycle (nothing has changed yet).
bool IncrementalDag::reorder(int u, int v, uint64_t max_steps) {
  const uint64_t limit = max_steps > UINT64_MAX - steps_ ? UINT64_MAX : steps_ + max_steps;
  const int lb = ord_[static_cast<size_t>(v)], ub = ord_[static_cast<size_t>(u)];
  ++stamp_;
  std::vector<int>&fwd = fwd_, &bwd = bwd_, &stack = stack_;
  fwd.clear();
  bwd.clear();
  stack.assign(1, v);
  mark_[static_cast<size_t>(v)] = stamp_;
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    fwd.push_back(x);
    steps_ += 1 + out_[static_cast<size_t>(x)].size();
    if (steps_ > limit) return false;
    for (int y : out_[static_cast<size_t>(x)]) {
      if (y == u) return false;  // cycle
      if (mark_[static_cast<size_t>(y)] != stamp_ && ord_[static_cast<size_t>(y)] < ub) {
        mark_[static_cast<size_t>(y)] = stamp_;
        stack.push_back(y);
      }
    }
  }
  ++stamp_;
  stack.assign(1, u);
  mark_[static_cast<size_t>(u)] = stamp_;
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    bwd.push_back(x);
    steps_ += 1 + in_[static_cast<size_t>(x)].size();
    for (int y : in_[static_cast<size_t>(x)]) {
      if (mark_[static_cast<size_t>(y)] != stamp_ && ord_[static_cast<size_t>(y)] > lb) {
        mark_[static_cast<size_t>(y)] = stamp_;
        stack.push_back(y);
      }
    }
  }
  auto by_ord = [&](int a, int b) { return ord_[static_cast<size_t>(a)] < ord_[static_cast<size_t>(b)]; };
  std::sort(fwd.begin(), fwd.end(), by_ord);
  std::sort(bwd.begin(), bwd.end(), by_ord);
  // the positions both sets held, in increasing order: a merge of the two sorted lists
  std::vector<int>& slots = slots_;
  slots.resize(fwd.size() + bwd.size());
  std::merge(bwd.begin(), bwd.end(), fwd.begin(), fwd.end(), slots.begin(), by_ord);
  for (int& x : slots) x = ord_[static_cast<size_t>(x)];
  size_t k = 0;
  for (int x : bwd) {
    ord_[static_cast<size_t>(x)] = slots[k];
    node_at_[static_cast<size_t>(slots[k++])] = x;
  }
  for (int x : fwd) {
    ord_[static_cast<size_t>(x)] = slots[k];
    node_at_[static_cast<size_t>(slots[k++])] = x;
  }
  return true;
}

}  // namespace ftroute
