#include "ftroute/incremental_dag.hpp"

#include <algorithm>

namespace ftroute {

IncrementalDag::IncrementalDag(int n)
    : out_(static_cast<size_t>(n)), in_(static_cast<size_t>(n)), ord_(static_cast<size_t>(n)),
      node_at_(static_cast<size_t>(n)), mark_(static_cast<size_t>(n), 0) {
  for (int i = 0; i < n; i++) ord_[static_cast<size_t>(i)] = node_at_[static_cast<size_t>(i)] = i;
}

void IncrementalDag::seed_order(const IncrementalDag& other) {
  if (!refs_.empty() || other.ord_.size() != ord_.size()) return;
  ord_ = other.ord_;
  node_at_ = other.node_at_;
}

bool IncrementalDag::add_edge(int u, int v, uint64_t max_steps) {
  if (u == v) return false;
  auto it = refs_.find(key(u, v));
  if (it != refs_.end()) {
    it->second++;
    return true;
  }
  if (ord_[static_cast<size_t>(u)] > ord_[static_cast<size_t>(v)] && !reorder(u, v, max_steps)) return false;
  refs_.emplace(key(u, v), 1);
  out_[static_cast<size_t>(u)].push_back(v);
  in_[static_cast<size_t>(v)].push_back(u);
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
  auto it = refs_.find(key(u, v));
  if (it == refs_.end()) return;
  if (--it->second > 0) return;
  refs_.erase(it);
  auto drop = [](std::vector<int>& l, int x) {
    auto p = std::find(l.begin(), l.end(), x);
    if (p != l.end()) {
      *p = l.back();
      l.pop_back();
    }
  };
  drop(out_[static_cast<size_t>(u)], v);
  drop(in_[static_cast<size_t>(v)], u);
}

// Inserting u->v with ord[u] > ord[v]: the affected region is the order interval [ord v, ord u].
// Forward search from v inside it; reaching u means a cycle. Otherwise move the backward set of
// u (nodes that reach u) before the forward set of v, reusing their positions. A forward search
// longer than max_steps gives up as if it had found a cycle (nothing has changed yet).
bool IncrementalDag::reorder(int u, int v, uint64_t max_steps) {
  const uint64_t limit = max_steps > UINT64_MAX - steps_ ? UINT64_MAX : steps_ + max_steps;
  const int lb = ord_[static_cast<size_t>(v)], ub = ord_[static_cast<size_t>(u)];
  ++stamp_;
  std::vector<int> fwd, bwd, stack{v};
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
  stack = {u};
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
  std::vector<int> slots(fwd.size() + bwd.size());
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
