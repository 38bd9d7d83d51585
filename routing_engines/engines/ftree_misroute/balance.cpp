// ftree-misroute's cable balancing on one VL (option `balance`, docs/ftree-misroute.md section 8,
// "Cable balancing"): a local search over the entries after the routing. Each (switch, LID) entry
// that carries routes may move to another cable of its switch whose route on reaches the LID in no
// more hops, when that lowers the potential sum over cables of (load / initial EFI max)^8, no cable
// rises above the busiest cable's load, and the channel dependency graph with switch sources (every
// switch's route to every LID) stays acyclic. A high power makes the busiest cables weigh most
// while every cable counts, so entries also move off cables next to the busiest and make room for
// the moves that relieve them (a search on the busiest cable alone stops early, session 18). The
// entries are visited LID by LID, round after round, until a round moves none or the work budget
// runs out. Loads are those of `ftroute compare`: routes per directed switch-to-switch cable, CA
// sources, CA and switch LIDs.
// Also the hole filling before it (option `fill_holes`, section 8, "Switches the construction
// cannot serve"), on the same per-LID routes, loads and dependency graph: fill_holes below.
#include "ftree_misroute/ftree_misroute_internal.hpp"
#include "ftroute/incremental_dag.hpp"
#include "ftroute/routing.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <unordered_set>
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
    np_.assign(S, 0);
    for (size_t s = 0; s < S; s++) {
      np_[s] = f.node(nodes_[s]).num_ports;
      port_base_[s + 1] = port_base_[s] + np_[s] + 1;
    }
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
    hop_.assign(L * S, -1);
    load_.assign(peer_.size(), 0);
    dag_ = IncrementalDag(static_cast<int>(peer_.size()));
    mark_.assign(S, 0);
    pos_.assign(S, 0);
    for (size_t i = 0; i < L; i++) {
      flows(i);
      add_loads(i, 1);
      for (size_t s = 0; s < S; s++)
        if (!add_dep(i, static_cast<int>(s))) acyclic_ = false;  // (the routing balanced was checked acyclic)
    }
  }

  // Rounds over every entry (LID by LID) while one moves, within a budget of work (route steps:
  // deterministic, unlike a clock); returns the moves made. A routing whose CDG with switch sources
  // already has a cycle is left as given (0 moves): that includes every routing where a route
  // loops (the loop's dependencies close a cycle), so the moves below may take each LID's routes
  // for an in-forest.
  size_t run(size_t max_moves, uint64_t budget) {
    size_t moves = 0;
    if (!acyclic_) return 0;
    rescan_top();
    if (top_ == 0) return 0;
    inv_ = 1.0 / static_cast<double>(top_);
    for (bool moved = true; moved && moves < max_moves && work() < budget;) {
      moved = false;
      for (size_t i = 0; i < lids_.size() && moves < max_moves && work() < budget; i++)
        for (int s = 0; s < static_cast<int>(S()) && moves < max_moves; s++)
          if (try_move(s, i)) moves++, moved = true;
    }
    return moves;
  }
  uint64_t top() const { return top_; }

  // fill_holes (ftree_misroute_internal.hpp): LID by LID, each switch without a route (a hole)
  // gets a path to a switch that has one, through other holes, found by a search over the
  // switches that counts first the dependencies the path adds to the CDG (one it already has can
  // never close a cycle), then hops, then the load of the cables taken. The path's entries are set
  // from its end backwards, each with its dependency checked; one that would close a cycle is
  // barred and the search runs again (up to kFillTries times per LID: -1 then).
  // `order`: the LIDs (indices) in the order they are filled; on failure `failed` is the LID whose
  // hole could not be filled.
  long fill(const std::vector<size_t>& order, size_t& failed) {
    if (!acyclic_) {
      failed = order.front();
      return -1;
    }
    long filled = 0;
    for (size_t i : order) {
      barred_.clear();
      int tries = 0;
      for (int s = 0; s < static_cast<int>(S());) {
        if (s == target_[i] || hop_[i * S() + static_cast<size_t>(s)] >= 0) {
          s++;
          continue;
        }
        const long n = fill_path(s, i);
        if (n > 0) {
          filled += n;
        } else if (n == 0 || ++tries > kFillTries) {  // no path at all, or too many cycles
          failed = i;
          return -1;
        }
      }
    }
    return filled;
  }
  size_t num_lids() const { return lids_.size(); }
  uint64_t work() const { return work_ + dag_.steps(); }

 private:
  size_t S() const { return nodes_.size(); }
  uint8_t entry(int s, size_t i) const { return lfts_.get(nodes_[static_cast<size_t>(s)], lids_[i]); }
  // the next switch from s towards LID i, -1 at the target or where the route leaves the switches
  int next(int s, size_t i) const { return s == target_[i] ? -1 : peer_at(s, entry(s, i)); }
  // the switch at the far end of s's port q; -1 for no route (0, kNoPath, a port s lacks) or a CA
  int peer_at(int s, uint8_t q) const {
    if (q == 0 || q == kNoPath || q > np_[static_cast<size_t>(s)]) return -1;
    return peer_[static_cast<size_t>(port_base_[static_cast<size_t>(s)] + q)];
  }
  // flow_[i][s]: CA sources whose route to LID i passes switch s (routes are in-trees: each
  // switch passes its sum on once every switch routing into it has, Kahn's order); hop_[i][s]:
  // switch hops from s to LID i's switch, -1 where the route ends elsewhere (Kahn's order backwards)
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
    int16_t* hp = &hop_[i * S()];
    std::fill(hp, hp + S(), int16_t{-1});
    for (size_t h = queue_.size(); h-- > 0;) {
      const int s = queue_[h], n = nxt_[static_cast<size_t>(s)];
      hp[s] = s == target_[i] ? 0 : n < 0 || hp[n] < 0 ? -1 : static_cast<int16_t>(hp[n] + 1);
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
  bool add_dep(size_t i, int s, uint64_t max_steps = UINT64_MAX) {
    std::pair<int, int> e;
    work_++;
    return !dep(s, i, e) || dag_.add_edge(e.first, e.second, max_steps);
  }
  void remove_dep(size_t i, int s) {
    std::pair<int, int> e;
    if (dep(s, i, e)) dag_.remove_edge(e.first, e.second);
  }
  // the switches whose entry for LID i leads to s (the dependencies into s's cable), in switch
  // order: only s's neighbours can (a cable's far end is a neighbour both ways)
  void preds(int s, size_t i, std::vector<int>& out) const {
    out.clear();
    const size_t b = cable(s, 0);
    for (int q = 1; q <= np_[static_cast<size_t>(s)]; q++) {
      const int u = peer_[b + static_cast<size_t>(q)];
      if (u >= 0 && next(u, i) == s) out.push_back(u);
    }
    std::sort(out.begin(), out.end());  // (a bundle of cables from u: once)
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  // Switch s's entry for LID i set to q, with the dependencies of s and of the switches routing
  // into it (`pre`), and LID i's flows and loads; false (and the entry back to `was`, all as
  // before) when a dependency would close a cycle.
  bool rewrite(int s, size_t i, uint8_t q, uint8_t was, const std::vector<int>& pre) {
    for (int u : pre) remove_dep(i, u);
    remove_dep(i, s);
    lfts_.set(nodes_[static_cast<size_t>(s)], lids_[i], q);
    size_t added = 0;
    bool ok = true;
    for (; added < pre.size() && ok; added++) ok = add_dep(i, pre[added], kSearch);
    if (ok) ok = add_dep(i, s, kSearch);
    else added--;  // the one that failed added nothing
    if (!ok) {
      for (size_t k = 0; k < added; k++) remove_dep(i, pre[k]);
      lfts_.set(nodes_[static_cast<size_t>(s)], lids_[i], was);
      for (int u : pre) add_dep(i, u);
      add_dep(i, s);
    }
    work_ += S();  // the budget's unit: a move counts as a recomputation of the LID's flows
    if (ok) moved(s, i, was);
    return ok;
  }
  // LID i's flows, hops and loads after switch s's entry went from port `was` to its entry now
  // (the routes to LID i are an in-forest: run() and fill() start only on an acyclic CDG, and every
  // move keeps it so): s's sources leave the cables of its old
  // route and join those of its new one, and the switches routing through s (its subtree) move by
  // as many hops as s did. The same numbers as flows(i) with add_loads over the whole LID.
  void moved(int s, size_t i, uint8_t was) {
    const size_t at = i * S();
    uint32_t* fl = &flow_[at];
    int16_t* hp = &hop_[at];
    const uint32_t mine = fl[static_cast<size_t>(s)];
    const int a = peer_at(s, was), b = next(s, i);
    if (mine) {
      // s's sources taken off (add false) or put on the switches and cables of the route from y
      // to its end (neither route passes s: in-forest)
      const auto shift = [&](int y, bool add) {
        for (; y >= 0; y = next(y, i)) {
          uint32_t& f = fl[static_cast<size_t>(y)];
          f = add ? f + mine : f - mine;
          if (next(y, i) < 0) continue;
          uint64_t& l = load_[cable(y, entry(y, i))];
          l = add ? l + mine : l - mine;
        }
      };
      if (a >= 0) load_[cable(s, was)] -= mine;
      if (b >= 0) load_[cable(s, entry(s, i))] += mine;
      shift(a, false);
      shift(b, true);
    }
    const int16_t h = b < 0 || hp[b] < 0 ? int16_t{-1} : static_cast<int16_t>(hp[b] + 1);
    if (h == hp[s]) return;
    hp[s] = h;
    sub_.assign(1, s);
    for (size_t k = 0; k < sub_.size(); k++) {
      const int y = sub_[k];
      preds(y, i, pre_sub_);
      for (int u : pre_sub_) {
        hp[u] = hp[y] < 0 ? int16_t{-1} : static_cast<int16_t>(hp[y] + 1);
        sub_.push_back(u);
      }
    }
  }
  bool set(int s, size_t i, uint8_t q) {
    preds(s, i, pre_);
    return rewrite(s, i, q, entry(s, i), pre_);
  }
  double phi(uint64_t load) const {
    const double r = static_cast<double>(load) * inv_, r2 = r * r, r4 = r2 * r2;
    return r4 * r4;
  }
  void rescan_top() {
    top_ = 0;
    for (uint64_t l : load_) top_ = std::max(top_, l);
  }
  // Switch s's entry for LID i to the cable of the lowest potential, if one lowers it (see the top).
  // The old route from s and a new one from the cable's far switch b coincide from the first switch
  // they share on (routes are in-trees), so only the cables before it change; b reaching the LID in
  // fewer hops than s keeps s off b's route (no loop).
  bool try_move(int s, size_t i) {
    const size_t at = i * S() + static_cast<size_t>(s);
    const uint32_t fl = flow_[at];
    if (!fl || s == target_[i] || hop_[at] <= 0) return false;
    const int h = hop_[at];
    const uint8_t p = entry(s, i);
    stamp_++;
    gain_.assign(1, 0.0);
    bool tops = false;
    uint64_t hottest = 0;
    for (int y = s; y != target_[i]; y = next(y, i)) {
      mark_[static_cast<size_t>(y)] = stamp_, pos_[static_cast<size_t>(y)] = static_cast<int>(gain_.size()) - 1;
      const uint64_t l = load_[cable(y, entry(y, i))];
      tops = tops || l == top_;
      hottest = std::max(hottest, l);
      gain_.push_back(gain_.back() + phi(l - fl) - phi(l));
    }
    work_ += gain_.size();
    if (static_cast<double>(hottest) < kHot * static_cast<double>(top_)) return false;
    mark_[static_cast<size_t>(target_[i])] = stamp_, pos_[static_cast<size_t>(target_[i])] = static_cast<int>(gain_.size()) - 1;
    cands_.clear();
    const int np = f_.node(nodes_[static_cast<size_t>(s)]).num_ports;
    for (int q = 1; q <= np; q++) {
      const int b = peer_[cable(s, static_cast<uint8_t>(q))];
      if (q == p || b < 0) continue;
      const int hb = hop_[i * S() + static_cast<size_t>(b)];
      if (hb < 0 || hb + 1 > h) continue;
      uint64_t l = load_[cable(s, static_cast<uint8_t>(q))], worst = l + fl;
      double d = phi(l + fl) - phi(l);
      int y = b;
      for (; mark_[static_cast<size_t>(y)] != stamp_; y = next(y, i), work_++) {
        l = load_[cable(y, entry(y, i))];
        worst = std::max(worst, l + fl);
        d += phi(l + fl) - phi(l);
      }
      d += gain_[static_cast<size_t>(pos_[static_cast<size_t>(y)])];
      if (worst <= top_ && d < -kMinGain * static_cast<double>(fl) * inv_) cands_.push_back({d, static_cast<uint8_t>(q)});
    }
    std::stable_sort(cands_.begin(), cands_.end(), [](const Cand& a, const Cand& b) { return a.d < b.d; });
    if (cands_.size() > kTries) cands_.resize(kTries);
    for (const Cand& k : cands_) {
      if (set(s, i, k.q)) {
        if (tops) rescan_top();
        return true;
      }
    }
    return false;
  }

  // The search's bounds (tuned on the faulted AN trees, hdr-3tier and edr-director, docs section 8):
  // entries whose route crosses a cable of at least kHot x the busiest load; moves that lower the
  // potential by at least kMinGain x their routes / the initial EFI max (so a move off a cable
  // below 0.39 of that never counts: 8 x 0.39^7 < kMinGain); the kTries best moves of an entry; a
  // dependency search of at most kSearch steps (longer counts as a cycle: the move is left out).
  static constexpr double kHot = 0.8;
  static constexpr double kMinGain = 0.01;
  static constexpr size_t kTries = 3;
  static constexpr uint64_t kSearch = 2000;
  struct Cand {
    double d;
    uint8_t q;
  };
  // One hole s of LID i (fill above): > 0 the entries set, 0 no path, -1 a dependency barred.
  long fill_path(int s, size_t i) {
    struct Item {
      uint64_t cost;  // (new dependencies, hops, load) packed
      int x;
      uint8_t q;      // the port of x's predecessor towards x (the predecessor is from_[x])
      int from;
      bool operator>(const Item& o) const { return cost != o.cost ? cost > o.cost : x > o.x; }
    };
    const size_t SS = S();
    from_.assign(SS, -2);  // -2 unsettled; the settled hole's predecessor on the way from s (-1: s)
    via_.assign(SS, 0);
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
    pq.push({0, s, 0, -1});
    int end = -1;
    while (!pq.empty()) {
      const Item it = pq.top();
      pq.pop();
      if (from_[static_cast<size_t>(it.x)] != -2) continue;
      from_[static_cast<size_t>(it.x)] = it.from;
      via_[static_cast<size_t>(it.x)] = it.q;
      work_++;
      if (it.x != s && (it.x == target_[i] || hop_[i * SS + static_cast<size_t>(it.x)] >= 0)) {
        end = it.x;
        break;
      }
      // from hole x on: to every neighbour not yet settled
      const int x = it.x;
      const int in = it.from < 0 ? -1 : static_cast<int>(cable(it.from, it.q));
      const Node& nd = f_.node(nodes_[static_cast<size_t>(x)]);
      for (int q = 1; q <= nd.num_ports; q++) {
        const int y = peer_[cable(x, static_cast<uint8_t>(q))];
        if (y < 0 || from_[static_cast<size_t>(y)] != -2) continue;
        const int c = static_cast<int>(cable(x, static_cast<uint8_t>(q)));
        uint64_t add = 0;
        if (in >= 0) {  // the dependency (predecessor's cable) -> (x's cable)
          if (barred_.count(IncrementalDag::key(in, c))) continue;
          add += dag_.has_edge(in, c) ? 0 : 1;
        }
        if (y != target_[i] && hop_[i * SS + static_cast<size_t>(y)] >= 0) {  // y routes on: (x's cable) -> (y's)
          const int c2 = static_cast<int>(cable(y, entry(y, i)));
          if (barred_.count(IncrementalDag::key(c, c2))) continue;
          add += dag_.has_edge(c, c2) ? 0 : 1;
        }
        const uint64_t cost = it.cost + (add << 48) + (uint64_t{1} << 32) + std::min<uint64_t>(load_[static_cast<size_t>(c)], 0xffffffffu);
        pq.push({cost, y, static_cast<uint8_t>(q), x});
      }
    }
    if (end < 0) return 0;
    // the path s -> ... -> end, set from its end backwards
    path_.clear();
    for (int x = end; x != s; x = from_[static_cast<size_t>(x)]) path_.push_back(from_[static_cast<size_t>(x)]);
    long n = 0;
    int next_sw = end;
    for (int x : path_) {  // path_[0] is the switch before end
      const uint8_t q = via_[static_cast<size_t>(next_sw)];
      if (!set(x, i, q)) {  // (set restored the entry, flows and loads)
        // x is a hole, so nothing routes into it: the dependency refused is its own, (x's new
        // cable) -> (the next switch's), which exists only where the next switch routes on
        if (next_sw != target_[i])
          barred_.insert(IncrementalDag::key(static_cast<int>(cable(x, q)), static_cast<int>(cable(next_sw, entry(next_sw, i)))));
        return -1;
      }
      n++;
      next_sw = x;
    }
    return n;
  }
  static constexpr int kFillTries = 64;

  const Fabric& f_;
  Lfts& lfts_;
  std::vector<int> sw_, nodes_, port_base_, peer_, target_;
  std::vector<uint32_t> cas_, flow_;
  std::vector<Lid> lids_;
  std::vector<uint64_t> load_;
  IncrementalDag dag_;                   // the dependencies between cables (switch sources)
  std::vector<int> nxt_, indeg_, queue_;  // flows()' scratch
  std::vector<int> pre_;                  // set()'s scratch
  std::vector<int> sub_, pre_sub_;        // moved()'s scratch
  std::vector<int> np_;                   // ports of each switch
  std::vector<int16_t> hop_;
  std::vector<uint32_t> mark_;            // try_move()'s scratch: the old route's switches
  std::vector<int> pos_;
  std::vector<double> gain_;
  std::vector<Cand> cands_;
  uint32_t stamp_ = 0;
  uint64_t top_ = 0;                      // the busiest cable's load
  double inv_ = 0;                        // 1 / the busiest cable's load before the search
  uint64_t work_ = 0;                     // steps taken (the budget's unit)
  bool acyclic_ = true;                   // every dependency of the routing given went in
  std::vector<int> from_, path_;          // fill_path()'s scratch
  std::vector<uint8_t> via_;
  std::unordered_set<uint64_t> barred_;   // dependencies that closed a cycle (this LID)
};

}  // namespace

BalanceResult balance_cables(const Fabric& fabric, Routing& routing, size_t max_moves, uint64_t budget) {
  Balancer b(fabric, routing.lfts);
  BalanceResult r;
  r.moves = b.run(max_moves, budget);
  r.efi_max = b.top();
  return r;
}

FillResult fill_holes(const Fabric& fabric, Routing& routing) {
  // A LID whose holes cannot be filled after the others were goes first in the next attempt (the
  // dependencies the earlier fills added are what blocks it), up to kFillRestarts attempts.
  constexpr int kFillRestarts = 8;
  std::vector<size_t> order;
  FillResult r;
  for (r.attempts = 1; r.attempts <= kFillRestarts; r.attempts++) {
    Lfts lfts = routing.lfts;
    Balancer b(fabric, lfts);
    if (order.empty())
      for (size_t i = 0; i < b.num_lids(); i++) order.push_back(i);
    size_t failed = 0;
    r.entries = b.fill(order, failed);
    if (r.entries >= 0) {
      routing.lfts = std::move(lfts);
      return r;
    }
    const auto it = std::find(order.begin(), order.end(), failed);
    if (it == order.begin()) return r;  // first already: nothing to gain
    std::rotate(order.begin(), it, it + 1);
  }
  r.entries = -1;
  return r;
}

}  // namespace ftroute
