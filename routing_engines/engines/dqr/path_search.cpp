// DQR path search: the cheap repairs (one hop to a neighbour that reaches d, idle switches)
// and the constrained Dijkstra / A* over channels with its admissible bound (monotone(),
// search_bound.cpp).
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

// Two passes: a plain Dijkstra, and if that creates more than kPlainStates states without
// committing, the same search again as A* with bound() (see monotone()). The bound costs a walk
// over the list per pushed channel, which is only worth it in long searches (a fat tree's spine
// LID: every repair needs a reorder, so the plain search first visits every path cheaper than
// turn_cost); short ones (most mesh repairs) stay exactly as they were.
bool Reconfigurer::search_and_commit(Dest& D, int w, std::string& why) {
  int r = search_pass(D, w, false);
  if (r < 0) r = search_pass(D, w, true);
  if (r > 0) return true;
  why = "no deadlock-free, loop-free path from switch " + after_.node_name(w);
  return false;
}

int Reconfigurer::search_pass(Dest& D, int w, bool bounded) {
  struct St {
    int link;     // link id of the channel taken
    int from;     // switch the channel leaves
    uint8_t port;
    int sw;       // switch it enters
    int parent;
    double cost;
    std::vector<Dep> newdeps;  // deps not yet in the list, along the path (incl. terminal)
    int in_link = -1;          // channel the path arrived on at `from` (-1 at w)
    bool evaluated = false;    // deps costed (lazy: only when the state is popped)
    size_t verified_from = 0;  // newdeps[verified_from..] not yet checked against the list
    double pre = 0;            // cost of the arrival turn, added when the state was pushed
    uint16_t lay = 0;          // layers on the channel taken (traffic entering at w .. from)
    uint16_t in_lay = 0;       // layers on the arrival channel (0 at w)
    double h = 0;              // bound(): the queue holds cost + h
  };
  std::vector<St> st;
  // cost (with the bound), cost without it (on ties the deeper state first: A*'s usual
  // tie-break; in the plain pass both are equal), kind (0 = terminal, 1 = state, 2 = deferred
  // expansion; lower first on ties), state
  struct QE {
    double cost, g;
    int kind, idx;
    bool operator>(const QE& o) const {
      if (cost != o.cost) return cost > o.cost;
      if (kind != o.kind) return kind > o.kind;
      if (g != o.g) return g < o.g;
      return idx > o.idx;
    }
  };
  struct MinHeap {  // std::priority_queue with the comparison above, reserve()-able
    std::vector<QE> v;
    void push(QE e) { v.push_back(e), std::push_heap(v.begin(), v.end(), std::greater<QE>{}); }
    const QE& top() const { return v.front(); }
    void pop() { std::pop_heap(v.begin(), v.end(), std::greater<QE>{}), v.pop_back(); }
    bool empty() const { return v.empty(); }
  } pq;
  pq.v.reserve(64);
  st.reserve(64);
  const bool all = o_.turns == DqrOptions::Turns::All;
  if (stamp_.size() < static_cast<size_t>(tables_->num_links())) stamp_.assign(static_cast<size_t>(tables_->num_links()), 0);
  if (++gen_ == 0) std::fill(stamp_.begin(), stamp_.end(), 0), gen_ = 1;
  if (++mono_g_ == 0) std::fill(mono_gen_.begin(), mono_gen_.end(), 0), mono_g_ = 1;

  // Cost of the dependencies in `cand` that are not in the list yet (appended to nd), or -1 if
  // one of them is known to be impossible. Whether a new dependency can really be enabled (a
  // DFS in the list) is checked only when the state is popped at its final cost (`verify`):
  // the cost does not depend on it, and most states are never popped again.
  auto eval = [&](const std::vector<Dep>& cand, std::vector<Dep>& nd) -> double {
    double c = 0;
    for (const Dep& dp : cand) {
      if (list_.has_dep(dp.first, dp.second)) continue;
      if (std::find(nd.begin(), nd.end(), dp) != nd.end()) continue;
      if (!list_.contains(dp.first) || !list_.contains(dp.second)) return -1;
      if (refused_.count(dep_key(dp))) return -1;
      c += list_.pos(dp.first) < list_.pos(dp.second) ? o_.new_dep_cost : o_.turn_cost;
      nd.push_back(dp);
    }
    return c;
  };
  // Checks nd[from..] against the list (with nd[0..i) assumed present in "all turns" mode).
  // A dependency that cannot be enabled alone never can later in this reconfiguration (the
  // list only gains dependencies), so it is remembered in refused_.
  auto verify = [&](const std::vector<Dep>& nd, size_t from) -> bool {
    static const std::vector<Dep> none;
    bool has_down = false;
    for (size_t i = 0; i < nd.size(); i++) {
      const bool down = list_.pos(nd[i].first) >= list_.pos(nd[i].second);
      if (i >= from && (down || (all && has_down))) {
        std::vector<Dep> prefix;
        if (all) prefix.assign(nd.begin(), nd.begin() + static_cast<std::ptrdiff_t>(i));
        if (!list_.can_enable(nd[i].first, nd[i].second, prefix)) {
          if (!all || !list_.can_enable(nd[i].first, nd[i].second, none)) refused_.insert(dep_key(nd[i]));
          else joint_refusals_++;  // refused only together with the path's other turns
          return false;
        }
      }
      has_down = has_down || down;
    }
    return true;
  };
  auto path_of = [&](int s) {  // w and the switches entered by state s and its ancestors
    std::vector<int> p{w};
    for (int i = s; i >= 0; i = st[static_cast<size_t>(i)].parent) p.push_back(st[static_cast<size_t>(i)].sw);
    return p;
  };
  // deps for switch y taking port q: existing traffic into y (except channels on link `skip`)
  if (++ain_g_ == 0) std::fill(ain_gen_.begin(), ain_gen_.end(), 0), ain_g_ = 1;
  auto push_children = [&](int s, int y, int in_link, uint16_t in_lay, double base_cost,
                           const std::vector<int>& path) {
    const Node& n = after_.node(y);
    const uint16_t lay = static_cast<uint16_t>(in_lay | mask(D, y));
    const bool override_ok = reaches(D, y);
    for (int q = 1; q <= n.num_ports; q++) {
      const Port& p = n.port(q);
      if (!p.connected() || !after_.node(p.peer_node).is_switch()) continue;
      if (std::find(path.begin(), path.end(), p.peer_node) != path.end()) continue;
      if (override_ok && cur(y) == q) continue;  // that is the terminal "join at y"
      int l = link(y, q);
      if (stamp_[static_cast<size_t>(l)] == gen_) continue;
      // lazy: the dependencies are checked when the state is popped (Dijkstra stays exact
      // because their cost is >= 0 and a re-push carries the full cost)
      double total = base_cost + 1 + (override_ok ? o_.override_cost : 0);
      // The turn from the arrival channel is known now and costs the same in eval: adding it
      // here keeps children behind a needed reorder out of the way of cheaper terminals.
      double pre = 0;
      bool refused = false;
      if (in_link >= 0)
        for (int vl = 0; vl < kNumVlSlots; vl++) {
          if (!(in_lay & (1u << vl))) continue;
          const Dep dp{static_cast<Id>(in_link) * kNumVlSlots + static_cast<Id>(vl), ch(y, q, vl)};
          if (list_.has_dep(dp.first, dp.second)) continue;
          if (refused_.count(dep_key(dp))) refused = true;
          pre += list_.pos(dp.first) < list_.pos(dp.second) ? o_.new_dep_cost : o_.turn_cost;
        }
      if (refused) continue;
      total += pre;
      const double h = bounded ? bound(D, l, lay) : 0;
      St child{l, y, static_cast<uint8_t>(q), p.peer_node, s, total, {}, in_link, false, 0, pre, lay, in_lay, h};
      st.push_back(std::move(child));
      pq.push({total + h, total, 1, static_cast<int>(st.size()) - 1});
    }
  };
  push_children(-1, w, -1, 0, 0, {w});
  while (!pq.empty()) {
    const QE top = pq.top();
    const int nonterminal = top.kind, si = top.idx;
    const bool terminal = nonterminal == 0;
    pq.pop();
    search_states_++;
    if (!bounded && o_.search_bound && st.size() > kPlainStates) return -1;
    if (terminal) {
      // commit (enable_all checks the whole path's new dependencies jointly)
      St& T = st[static_cast<size_t>(si)];
      if (!list_.enable_all(T.newdeps)) {  // single-turn mode: jointly impossible; try next
        commit_refusals_++;
        continue;
      }
      std::vector<Entry> entries;
      for (int i = si; i >= 0; i = st[static_cast<size_t>(i)].parent)
        entries.push_back({st[static_cast<size_t>(i)].from, st[static_cast<size_t>(i)].port, st[static_cast<size_t>(i)].lay});
      std::reverse(entries.begin(), entries.end());  // w first: the last entry feeds the junction
      commit(D, entries, T.sw);
      return 1;
    }
    if (nonterminal == 2) {  // deferred expansion of a switch that could also end the path
      const int y = st[static_cast<size_t>(si)].sw, l = st[static_cast<size_t>(si)].link;
      const double c = st[static_cast<size_t>(si)].cost;
      std::vector<int> path = path_of(st[static_cast<size_t>(si)].parent);
      path.push_back(y);
      push_children(si, y, l, st[static_cast<size_t>(si)].lay, c, path);
      continue;
    }
    if (stamp_[static_cast<size_t>(st[static_cast<size_t>(si)].link)] == gen_) continue;
    if (!st[static_cast<size_t>(si)].evaluated) {
      St& e = st[static_cast<size_t>(si)];
      std::vector<Dep> cand;
      entry_deps(D, e.from, e.port, e.in_link, e.in_lay, cand);
      std::vector<Dep> nd = e.parent >= 0 ? st[static_cast<size_t>(e.parent)].newdeps : std::vector<Dep>{};
      const size_t inherited = nd.size();
      double c = eval(cand, nd);
      if (c < 0) continue;
      e.newdeps = std::move(nd);
      e.evaluated = true;
      e.verified_from = inherited;
      if (c - e.pre > 1e-9) {
        e.cost += c - e.pre;
        pq.push({e.cost + e.h, e.cost, 1, si});
        continue;
      }
    }
    if (st[static_cast<size_t>(si)].verified_from < st[static_cast<size_t>(si)].newdeps.size()) {
      St& e = st[static_cast<size_t>(si)];
      if (!verify(e.newdeps, e.verified_from)) continue;
      e.verified_from = e.newdeps.size();
    }
    St s = st[static_cast<size_t>(si)];  // copy: st may grow
    stamp_[static_cast<size_t>(s.link)] = gen_;
    const int y = s.sw;
    std::vector<int> path = path_of(s.parent);  // switches before y (w first... any order)
    // terminal: y is the destination's switch, or y's route already reaches d
    if (y == D.t || (reaches(D, y) && !route_touches(D, y, path))) {
      std::vector<Dep> cand;
      junction_deps(D, s.link, s.lay, y, cand);
      std::vector<Dep> nd = s.newdeps;
      double c = eval(cand, nd);
      if (c >= 0) {
        st.push_back({s.link, s.from, s.port, s.sw, s.parent, s.cost + c, std::move(nd), s.in_link, true, 0, 0, s.lay, s.in_lay, 0});
        pq.push({s.cost + c, s.cost + c, 0, static_cast<int>(st.size()) - 1});
      }
      if (y == D.t) continue;
      // Going on through y overrides its working entry: every child costs at least
      // 1 + override_cost more, so expand only if no cheaper terminal commits first.
      pq.push({s.cost + 1 + o_.override_cost, s.cost + 1 + o_.override_cost, 2, si});
      continue;
    }
    path.push_back(y);
    push_children(si, y, s.link, s.lay, s.cost, path);
  }
  return 0;
}

// The cheapest possible repair, tried before the search: one hop to a neighbour whose route
// reaches d (nearest to d first), with every dependency already in the list: cost 1, which no
// path found by the search can undercut (the search does not count the joined route's hops).
bool Reconfigurer::direct_route(Dest& D, int w) {
  if (++ain_g_ == 0) std::fill(ain_gen_.begin(), ain_gen_.end(), 0), ain_g_ = 1;
  // w does not reach d, so no route that reaches d passes through w: no loop possible
  const Node& n = after_.node(w);
  std::vector<std::pair<int, int>>& cand = cand_;  // (hops of z's route, port)
  cand.clear();
  for (int q = 1; q <= n.num_ports; q++) {
    const int z = next_switch(w, static_cast<uint8_t>(q));
    if (z >= 0 && reaches(D, z)) cand.push_back({route_hops(z), q});
  }
  std::sort(cand.begin(), cand.end());
  std::vector<Dep>& deps = deps_;
  std::vector<Dep>& best_new = dr_best_;
  std::vector<Dep>& nd = dr_new_;
  best_new.clear();
  const uint16_t lay = mask(D, w);  // layers of the traffic w forwards
  double best = 2;  // a path of two hops or more costs at least 2: leave those to the search
  int best_q = 0;
  for (auto [dz, q] : cand) {
    const int z = next_switch(w, static_cast<uint8_t>(q));
    double cost = 1;
    nd.clear();
    // false once the candidate costs at least the best one's
    auto price = [&](const Dep& dp) {
      if (list_.has_dep(dp.first, dp.second) || std::find(nd.begin(), nd.end(), dp) != nd.end()) return true;
      // new dependencies must go up (a reorder is the search's business)
      if (!list_.contains(dp.first) || !list_.contains(dp.second) || list_.pos(dp.first) >= list_.pos(dp.second)) {
        cost = best;
        return false;
      }
      nd.push_back(dp);
      cost += o_.new_dep_cost;
      return cost < best;
    };
    // A candidate is dropped as soon as its partial cost reaches the best one's, and its cost
    // does not depend on the order its dependencies are priced in (same choice in any order).
    // The junction's first, from the far end of the joined route back: there the routes of
    // different destinations part, so a dependency no route had is met there first; the
    // entry's only if the junction's pass.
    // Once a candidate with one new dependency is the best, only one with none can beat it, and
    // the joined route's last turn (into d's port at d's switch) is then one of its
    // dependencies: a route whose traffic stops short of d's switch only does so where
    // downstream already carries d's traffic, whose turns, that one included, are in the list.
    // That turn is where the routes of different destinations part, so it is checked first,
    // from reaches()'s memo, before the joined route is walked.
    if (best <= 1 + o_.new_dep_cost && D.tport != 0) {
      const int in = z == D.t ? link(w, q) : route_last(z);
      bool has_last = in >= 0;
      for (uint32_t m = lay; has_last && m; m &= m - 1) {
        const int l = __builtin_ctz(m);
        has_last = list_.has_dep(static_cast<Id>(in) * kNumVlSlots + static_cast<Id>(l), ch(D.t, D.tport, l));
      }
      if (!has_last) continue;
    }
    deps.clear();
    junction_deps(D, link(w, q), lay, z, deps);
    if (!std::all_of(deps.rbegin(), deps.rend(), price)) continue;
    deps.clear();
    entry_deps(D, w, static_cast<uint8_t>(q), -1, 0, deps);
    if (!std::all_of(deps.begin(), deps.end(), price)) continue;
    if (cost >= best) continue;
    best = cost, best_q = q;
    best_new.swap(nd);  // nd is cleared for the next candidate
    if (cost == 1) break;  // nothing cheaper exists
  }
  if (!best_q) return false;
  for (const Dep& dp : best_new) list_.enable(dp.first, dp.second);  // all go up: plain inserts
  commit(D, {{w, static_cast<uint8_t>(best_q), lay}}, next_switch(w, static_cast<uint8_t>(best_q)));
  return true;
}

bool Reconfigurer::idle_route(Dest& D, int w) {
  if (!carries_no_traffic(D, w)) return false;
  // w does not reach d, so no route that reaches d passes through w: no loop possible
  const Node& n = after_.node(w);
  int best_q = 0, best_d = 1 << 30;
  for (int q = 1; q <= n.num_ports; q++) {
    const int z = next_switch(w, static_cast<uint8_t>(q));
    if (z < 0 || !reaches(D, z) || route_hops(z) >= best_d) continue;
    best_q = q, best_d = route_hops(z);
  }
  if (!best_q) return false;
  record_change(w, D.d, static_cast<uint8_t>(best_q));
  idle_[static_cast<size_t>(w)] = ag_;
  idle_list_.push_back(w);
  new_routes_from_broken();  // w's route did not reach d (attempt() asked)
  return true;
}

}  // namespace ftroute::dqr_detail
