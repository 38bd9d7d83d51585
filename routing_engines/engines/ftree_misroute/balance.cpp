// ftree-misroute's cable balancing on one VL (option `balance`, docs/ftree-misroute.md section 8,
// "Cable balancing"): after the routing, the entries that load the busiest cable move, one at a
// time, to another cable of their switch whose route on reaches the same LID in no more hops,
// whenever no cable then reaches the busiest cable's load and the channel dependency graph with
// switch sources (every switch's route to every LID) stays acyclic. Loads are those of `ftroute
// compare`: routes per directed switch-to-switch cable, CA sources, CA and switch LIDs.
#include "ftree_misroute/ftree_misroute_internal.hpp"
#include "ftroute/incremental_dag.hpp"
#include "ftroute/routing.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace ftroute {

namespace {

class Balancer {
 public:
  Balancer(const Fabric& f, Lfts& lfts) : f_(f), lfts_(lfts), dag_(0) {
    sw_.assign(static_cast<size_t>(f.size()), -1);
    for (int n : f.switches()) {
      sw_[static_cast<size_t>(n)] = static_cast<int>(nodes_.size());
      nodes_.push_back(n);
    }
    const size_t S = nodes_.size();
    port_base_.assign(S + 1, 0);
    for (size_t s = 0; s < S; s++) port_base_[s + 1] = port_base_[s] + f.node(nodes_[s]).num_ports + 1;
    peer_.assign(static_cast<size_t>(port_base_[S]), -1);
    cas_.assign(S, 0);
    for (size_t s = 0; s < S; s++) {
      const Node& n = f.node(nodes_[s]);
      for (int p = 1; p <= n.num_ports; p++) {
        const Port& x = n.port(p);
        if (!x.connected()) continue;
        if (f.node(x.peer_node).is_switch()) peer_[static_cast<size_t>(port_base_[s] + p)] = sw_[static_cast<size_t>(x.peer_node)];
        else cas_[s]++;
      }
    }
    for (const EndPort& e : f.end_ports())
      for (Lid l = e.base_lid; l <= e.last_lid(); l++) {
        const Attach a = f.attach(l);
        if (a.valid()) lids_.push_back(l), target_.push_back(sw_[static_cast<size_t>(a.sw)]);
      }
    const size_t L = lids_.size();
    flow_.assign(L * S, 0);
    load_.assign(peer_.size(), 0);
    dag_ = IncrementalDag(static_cast<int>(peer_.size()));
    for (size_t i = 0; i < L; i++) {
      flows(i);
      add_loads(i, 1);
      for (size_t s = 0; s < S; s++) add_dep(i, static_cast<int>(s));  // the routing was checked acyclic
    }
  }

  // Moves entries off the busiest cable while it helps, within a budget of work (route steps,
  // search steps: deterministic, unlike a clock); returns the moves made.
  size_t run(size_t max_moves, uint64_t budget) {
    size_t moves = 0;
    std::vector<char> stuck(load_.size(), 0);
    while (moves < max_moves && work_ < budget) {
      uint64_t top = 0;
      for (size_t c = 0; c < load_.size(); c++) top = std::max(top, load_[c]);
      if (top == 0) break;
      bool moved = false;
      for (size_t c = 0; c < load_.size() && !moved; c++)
        if (load_[c] == top && !stuck[c]) {
          moved = move_off(c, top);
          if (!moved) stuck[c] = 1;
        }
      if (!moved) break;
      moves++;
      std::fill(stuck.begin(), stuck.end(), 0);
    }
    return moves;
  }

 private:
  size_t S() const { return nodes_.size(); }
  uint8_t entry(int s, size_t i) const { return lfts_.get(nodes_[static_cast<size_t>(s)], lids_[i]); }
  // the next switch from s towards LID i, -1 at the target or where the route leaves the switches
  int next(int s, size_t i) const {
    if (s == target_[i]) return -1;
    const uint8_t q = entry(s, i);
    if (q == 0 || q == kNoPath || q > f_.node(nodes_[static_cast<size_t>(s)]).num_ports) return -1;
    return peer_[static_cast<size_t>(port_base_[static_cast<size_t>(s)] + q)];
  }
  int hops(int s, size_t i) {
    int h = 0;
    for (int y = s; y >= 0 && y != target_[i] && h <= static_cast<int>(S()); y = next(y, i)) h++;
    work_ += static_cast<uint64_t>(h) + 1;
    return h;
  }
  bool passes(int from, int x, size_t i) const {
    int h = 0;
    for (int y = from; y >= 0 && h <= static_cast<int>(S()); y = next(y, i), h++)
      if (y == x) return true;
    return false;
  }
  // flow_[i][s]: CA sources whose route to LID i passes switch s (routes are in-trees: each
  // switch passes its sum on once every switch routing into it has, Kahn's order)
  void flows(size_t i) {
    uint32_t* fl = &flow_[i * S()];
    work_ += S();
    nxt_.resize(S());
    indeg_.assign(S(), 0);
    for (size_t s = 0; s < S(); s++) {
      fl[s] = cas_[s];
      nxt_[s] = next(static_cast<int>(s), i);
      if (nxt_[s] >= 0) indeg_[static_cast<size_t>(nxt_[s])]++;
    }
    queue_.clear();
    for (size_t s = 0; s < S(); s++)
      if (!indeg_[s]) queue_.push_back(static_cast<int>(s));
    for (size_t h = 0; h < queue_.size(); h++) {
      const int s = queue_[h], n = nxt_[static_cast<size_t>(s)];
      if (n < 0) continue;
      fl[n] += fl[s];
      if (--indeg_[static_cast<size_t>(n)] == 0) queue_.push_back(n);
    }
  }
  size_t cable(int s, uint8_t q) const { return static_cast<size_t>(port_base_[static_cast<size_t>(s)] + q); }
  void add_loads(size_t i, int sign) {
    const uint32_t* fl = &flow_[i * S()];
    for (size_t s = 0; s < S(); s++)
      if (fl[s] && next(static_cast<int>(s), i) >= 0) {
        uint64_t& l = load_[cable(static_cast<int>(s), entry(static_cast<int>(s), i))];
        l = sign > 0 ? l + fl[s] : l - fl[s];
      }
  }
  // The dependency (s's cable towards LID i) -> (the next switch's cable): an edge of dag_,
  // reference counted over the LIDs. add_dep is false (and adds nothing) where it would close a
  // cycle of dependencies.
  bool dep(int s, size_t i, std::pair<int, int>& e) const {
    const int n = next(s, i);
    if (n < 0 || next(n, i) < 0) return false;
    e = {static_cast<int>(cable(s, entry(s, i))), static_cast<int>(cable(n, entry(n, i)))};
    return true;
  }
  bool add_dep(size_t i, int s) {
    std::pair<int, int> e;
    work_++;
    return !dep(s, i, e) || dag_.add_edge(e.first, e.second);
  }
  void remove_dep(size_t i, int s) {
    std::pair<int, int> e;
    if (dep(s, i, e)) dag_.remove_edge(e.first, e.second);
  }
  // the switches whose entry for LID i leads to s (the dependencies into s's cable)
  void preds(int s, size_t i, std::vector<int>& out) const {
    out.clear();
    for (size_t u = 0; u < S(); u++)
      if (next(static_cast<int>(u), i) == s) out.push_back(static_cast<int>(u));
  }
  // Switch s's entry for LID i set to q, with the dependencies of s and of the switches routing
  // into it (`pre`), and LID i's flows and loads; false (and the entry back to `was`, all as
  // before) when a dependency would close a cycle.
  bool rewrite(int s, size_t i, uint8_t q, uint8_t was, const std::vector<int>& pre) {
    add_loads(i, -1);
    for (int u : pre) remove_dep(i, u);
    remove_dep(i, s);
    lfts_.set(nodes_[static_cast<size_t>(s)], lids_[i], q);
    size_t added = 0;
    bool ok = true;
    for (; added < pre.size() && ok; added++) ok = add_dep(i, pre[added]);
    if (ok) ok = add_dep(i, s);
    else added--;  // the one that failed added nothing
    if (!ok) {
      for (size_t k = 0; k < added; k++) remove_dep(i, pre[k]);
      lfts_.set(nodes_[static_cast<size_t>(s)], lids_[i], was);
      for (int u : pre) add_dep(i, u);
      add_dep(i, s);
    }
    flows(i);
    add_loads(i, 1);
    return ok;
  }
  bool set(int s, size_t i, uint8_t q) {
    preds(s, i, pre_);
    return rewrite(s, i, q, entry(s, i), pre_);
  }
  // One entry off cable c (load top): the candidate whose new cables stay lowest, all below top.
  bool move_off(size_t c, uint64_t top) {
    int s = 0;
    while (static_cast<size_t>(port_base_[static_cast<size_t>(s) + 1]) <= c) s++;
    const uint8_t p = static_cast<uint8_t>(c - static_cast<size_t>(port_base_[static_cast<size_t>(s)]));
    struct Cand {
      uint64_t worst;
      size_t i;
      uint8_t q;
    };
    std::vector<Cand> cands;
    const int np = f_.node(nodes_[static_cast<size_t>(s)]).num_ports;
    for (size_t i = 0; i < lids_.size(); i++) {
      if (entry(s, i) != p || s == target_[i]) continue;
      const uint32_t fl = flow_[i * S() + static_cast<size_t>(s)];
      if (!fl) continue;
      const int h = hops(s, i);
      std::vector<size_t> old_cables;
      for (int y = s; y >= 0 && y != target_[i]; y = next(y, i)) old_cables.push_back(cable(y, entry(y, i)));
      for (int q = 1; q <= np; q++) {
        const int b = peer_[cable(s, static_cast<uint8_t>(q))];
        if (q == p || b < 0 || (b != target_[i] && next(b, i) < 0) || passes(b, s, i) || 1 + hops(b, i) > h) continue;
        uint64_t worst = load_[cable(s, static_cast<uint8_t>(q))] + fl;
        for (int y = b; y >= 0 && y != target_[i]; y = next(y, i)) {
          const size_t k = cable(y, entry(y, i));
          const bool was_on = std::find(old_cables.begin(), old_cables.end(), k) != old_cables.end();
          worst = std::max(worst, load_[k] + (was_on ? 0 : fl));
        }
        if (worst < top) cands.push_back({worst, i, static_cast<uint8_t>(q)});
      }
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.worst < b.worst; });
    for (const Cand& k : cands)
      if (set(s, k.i, k.q)) return true;
    return false;
  }

  const Fabric& f_;
  Lfts& lfts_;
  std::vector<int> sw_, nodes_, port_base_, peer_, target_;
  std::vector<uint32_t> cas_, flow_;
  std::vector<Lid> lids_;
  std::vector<uint64_t> load_;
  IncrementalDag dag_;                   // the dependencies between cables (switch sources)
  std::vector<int> nxt_, indeg_, queue_;  // flows()' scratch
  std::vector<int> pre_;                  // set()'s scratch
  uint64_t work_ = 0;                     // steps taken (the budget's unit)
};

}  // namespace

size_t balance_cables(const Fabric& fabric, Routing& routing, size_t max_moves, uint64_t budget) {
  Balancer b(fabric, routing.lfts);
  return b.run(max_moves, budget);
}

}  // namespace ftroute
