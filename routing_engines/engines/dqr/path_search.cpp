// DQR path search: the cheap repairs (one hop to a neighbour that reaches d, idle switches)
// and the constrained Dijkstra / A* over channels with its admissible bound (monotone()).
#include "reconfigurer.hpp"

#include <limits>

namespace ftroute::dqr_detail {

// Depth-first over channels in increasing list position: channel c = (link l, vl) is
// "monotone" if its head switch is d's switch, or its head's route reaches d and every turn
// of joining it goes up (joins_up), or some channel leaving the head goes up from c and is
// monotone.
// Generous on purpose (it ignores loops, U-turns, the joined route's further hops and the
// traffic entering the path), so it never rules out a completion the search could price
// without a reorder: the bound it gives is admissible, and consistent because a step from a
// non-monotone channel to a monotone one is itself a downward turn.
bool Reconfigurer::monotone_reference(const Dest& D, int l0, int vl) {
  if (mono_gen_.empty()) {
    mono_yes_.assign(static_cast<size_t>(tables_->num_links()), 0);
    mono_no_.assign(static_cast<size_t>(tables_->num_links()), 0);
    mono_gen_.assign(static_cast<size_t>(tables_->num_links()), 0);
  }
  const uint16_t bit = static_cast<uint16_t>(1u << vl);
  auto known = [&](Id c) {
    const size_t l = c / kNumVlSlots;
    return mono_gen_[l] == mono_g_ && ((mono_yes_[l] | mono_no_[l]) & bit);
  };
  auto yes = [&](Id c) { return (mono_yes_[c / kNumVlSlots] & bit) != 0; };
  auto set = [&](Id c, bool v) {
    const size_t l = c / kNumVlSlots;
    if (mono_gen_[l] != mono_g_) mono_gen_[l] = mono_g_, mono_yes_[l] = mono_no_[l] = 0;
    (v ? mono_yes_[l] : mono_no_[l]) |= bit;
  };
  const Id c0 = static_cast<Id>(l0) * kNumVlSlots + static_cast<Id>(vl);
  if (known(c0)) return yes(c0);
  mono_stack_.clear();
  mono_stack_.push_back({c0, 0});
  bool result = false;  // of the channel just finished
  bool returning = false;
  while (!mono_stack_.empty()) {
    auto& [c, q] = mono_stack_.back();
    const int y = next_sw_[c / kNumVlSlots];
    const int pc = list_.pos(c);
    if (returning && result) {  // the child tried at port q is monotone
      set(c, true);
      mono_stack_.pop_back();
      continue;
    }
    if (!returning && q == 0) {  // first visit
      bool done = y < 0, val = false;
      if (y == D.t) done = val = true;
      else if (y >= 0 && reaches(D, y) && joins_up(D, c, y, vl)) done = val = true;
      if (done) {
        set(c, val), result = val, returning = true;
        mono_stack_.pop_back();
        continue;
      }
    }
    returning = false;
    bool pushed = false;
    const int np = nports(y);
    while (++q <= np) {
      if (next_switch(y, static_cast<uint8_t>(q)) < 0) continue;
      const Id c2 = ch(y, q, vl);
      if (list_.pos(c2) <= pc) continue;
      if (known(c2)) {
        if (yes(c2)) break;
        continue;
      }
      mono_stack_.push_back({c2, 0});
      pushed = true;
      break;
    }
    if (pushed) continue;
    // all ports tried (q > np: none monotone) or a known monotone child (q <= np)
    const bool val = q <= np;
    set(mono_stack_.back().first, val), result = val, returning = true;
    mono_stack_.pop_back();
  }
  return yes(c0);
}

bool Reconfigurer::monotone(const Dest& D, int l0, int vl) {
  const uint16_t bit = static_cast<uint16_t>(1u << vl);
  if (good_for_ != mono_g_) {  // a new search: nothing marked yet
    good_for_ = mono_g_, good_vls_ = 0;
    const size_t nl = static_cast<size_t>(tables_->num_links());
    if (good_gen_.size() < nl) {
      good_.assign(nl, 0);
      good_gen_.assign(nl, 0);
      done_gen_.assign(static_cast<size_t>(after_.size()), 0);
    }
    if (++good_g_ == 0) std::fill(good_gen_.begin(), good_gen_.end(), 0), good_g_ = 1;
  }
  if (!(good_vls_ & bit)) {
    good_vls_ |= bit;
    // Several searches between two reorders of the list: the monotone channels of the next
    // destinations' switches in one sweep (mark_batch); the first one alone (mark_good). One
    // layer only: the batch holds one.
    const uint64_t ver = list_.order_version();
    const bool in_batch = single_vl_ && batch_ver_ == ver && tbit_[static_cast<size_t>(D.t)] >= 0;
    if (single_vl_ && !in_batch && miss_ver_ == ver) mark_batch(D, vl);
    if (single_vl_ && batch_ver_ == ver && tbit_[static_cast<size_t>(D.t)] >= 0) {
      batch_vls_ |= bit;
    } else {
      batch_vls_ &= static_cast<uint16_t>(~bit);
      miss_ver_ = ver;
      mark_good(D, vl);
    }
  }
  const bool r = (batch_vls_ & bit) ? (gsets_[static_cast<size_t>(l0)] >> tbit_[static_cast<size_t>(D.t)]) & 1
                                    : good_gen_[static_cast<size_t>(l0)] == good_g_ && (good_[static_cast<size_t>(l0)] & bit);
  if (o_.cross_check && monotone_reference(D, l0, vl) != r)
    throw Error("dqr cross-check: bound of " + list_.name(ch(tables_->link_node[static_cast<size_t>(l0)],
                                                            l0 - tables_->port_base[static_cast<size_t>(tables_->link_node[static_cast<size_t>(l0)])], vl)) +
                " for LID " + std::to_string(D.d) + ": the walk over the list says " + (r ? "not " : "") + "monotone");
  return r;
}

// The channels on layer vl from which some walk over working switch links, each channel higher
// in the list than the one before, enters d's switch (see monotone()): backwards from the
// channels entering d's switch, highest position first.
void Reconfigurer::mark_good(const Dest& D, int vl) {
  if (++done_g_ == 0) std::fill(done_gen_.begin(), done_gen_.end(), 0), done_g_ = 1;
  const uint32_t g = good_g_, done = done_g_;
  const uint16_t bit = static_cast<uint16_t>(1u << vl);
  const size_t npos = list_.order().size();
  if (pending_.size() < (npos + 63) / 64) pending_.assign((npos + 63) / 64, 0);
  if (in_pos_.size() != tables_->sw_in.size()) {
    in_pos_.assign(tables_->sw_in.size(), 0);
    in_pos_ver_.assign(static_cast<size_t>(after_.size()), 0);
  }
  int top = -1;
  auto add = [&](int u, uint8_t up) {  // the channel (u, up, vl) is good
    const size_t l = static_cast<size_t>(link(u, up));
    if (good_gen_[l] != g) good_gen_[l] = g, good_[l] = 0;
    if (good_[l] & bit) return;
    good_[l] |= bit;
    const int p = list_.pos(ch(u, up, vl));
    if (p < 0) return;  // not in the list: nothing is below it
    pending_[static_cast<size_t>(p) >> 6] |= 1ULL << (p & 63);
    top = std::max(top, p);
  };
  for (auto [u, up] : sw_in(D.t))
    if (next_switch(u, up) == D.t) add(u, up);
  // highest pending position first: the first good channel taken from a switch is its highest,
  // and every channel entering that switch below it is good
  for (int w = top >> 6; w >= 0; w--) {
    while (pending_[static_cast<size_t>(w)]) {
      const int b = 63 - __builtin_clzll(pending_[static_cast<size_t>(w)]);
      pending_[static_cast<size_t>(w)] &= ~(1ULL << b);
      const int p = w * 64 + b;
      const int u = tables_->link_node[list_.order()[static_cast<size_t>(p)] / kNumVlSlots];
      if (done_gen_[static_cast<size_t>(u)] == done) continue;
      done_gen_[static_cast<size_t>(u)] = done;
      // the positions of the working switch channels entering u on vl, cached in sw_in's order
      // (INT_MAX where the link failed) while the list order stays the same
      const size_t k0 = static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(u)]);
      const size_t k1 = static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(u) + 1]);
      const uint64_t ver = list_.order_version() * kNumVlSlots + static_cast<uint64_t>(vl) + 1;
      if (in_pos_ver_[static_cast<size_t>(u)] != ver) {
        in_pos_ver_[static_cast<size_t>(u)] = ver;
        for (size_t k = k0; k < k1; k++) {
          auto [x, xp] = tables_->sw_in[k];
          in_pos_[k] = next_switch(x, xp) == u ? list_.pos(ch(x, xp, vl)) : std::numeric_limits<int32_t>::max();
        }
      }
      for (size_t k = k0; k < k1; k++)
        if (in_pos_[k] < p) add(tables_->sw_in[k].first, tables_->sw_in[k].second);
    }
  }
}

// mark_good() (single VL) for up to 64 destination switches at once: D.t and those of the LIDs still to be
// repaired that belong to switches (a switch's own LID is what needs long searches on a fat
// tree: it is reached through turnarounds). One sweep over the list from the top: a channel on
// a working switch link is monotone for target t iff it enters t or a channel leaving its head
// higher in the list is; acc_ holds, per switch, the targets of the channels leaving it seen so
// far (all higher), so the channel's set is acc_ of its head (plus its head if that is a target).
void Reconfigurer::mark_batch(const Dest& D, int vl) {
  if (tbit_.empty()) {
    tbit_.assign(static_cast<size_t>(after_.size()), -1);
    acc_.assign(static_cast<size_t>(after_.size()), 0);
    gsets_.assign(static_cast<size_t>(tables_->num_links()), 0);
  }
  for (int x : batch_targets_) tbit_[static_cast<size_t>(x)] = -1;
  batch_targets_.clear();
  auto add = [&](int x) {
    if (tbit_[static_cast<size_t>(x)] >= 0 || batch_targets_.size() >= 64) return;
    tbit_[static_cast<size_t>(x)] = static_cast<int8_t>(batch_targets_.size());
    batch_targets_.push_back(x);
  };
  add(D.t);
  for (size_t i = lid_next_; i < lid_order_.size() && batch_targets_.size() < 64; i++)
    if (lid_switch_[i] >= 0) add(lid_switch_[i]);
  std::fill(acc_.begin(), acc_.end(), 0);
  const std::vector<Id>& order = list_.order();
  for (size_t p = order.size(); p-- > 0;) {
    const Id c = order[p];
    if (static_cast<int>(c % kNumVlSlots) != vl) continue;
    const size_t l = c / kNumVlSlots;
    const int y = next_sw_[l];
    if (y < 0) continue;
    const int8_t b = tbit_[static_cast<size_t>(y)];
    const uint64_t gs = acc_[static_cast<size_t>(y)] | (b >= 0 ? 1ULL << b : 0);
    gsets_[l] = gs;
    acc_[static_cast<size_t>(tables_->link_node[l])] |= gs;
  }
  batch_ver_ = list_.order_version();
}

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
  std::vector<Dep> best_new, nd;
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
    deps.clear();
    junction_deps(D, link(w, q), lay, z, deps);
    if (!std::all_of(deps.rbegin(), deps.rend(), price)) continue;
    deps.clear();
    entry_deps(D, w, static_cast<uint8_t>(q), -1, 0, deps);
    if (!std::all_of(deps.begin(), deps.end(), price)) continue;
    if (cost >= best) continue;
    best = cost, best_q = q;
    best_new = nd;
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
  new_routes();  // routes changed
  return true;
}

int Reconfigurer::switch_dist(int t, int v) {
  const int d = switch_dist_table(t, v);
  if (o_.cross_check && d != dist_to(t)[static_cast<size_t>(v)])
    throw Error("dqr cross-check: distance from " + after_.node_name(v) + " to " + after_.node_name(t) + " is " +
                std::to_string(dist_to(t)[static_cast<size_t>(v)]) + ", from the table " + std::to_string(d));
  return d;
}

int Reconfigurer::switch_dist_table(int t, int v) {
  if (!dist_ok_ || tables_->dist(t, v) == 255) return dist_to(t)[static_cast<size_t>(v)];
  if (spw_t_ != t) {
    spw_t_ = t;
    if (++spw_g_ == 0) {
      std::fill(spw_gen_.begin(), spw_gen_.end(), 0);
      std::fill(near_gen_.begin(), near_gen_.end(), 0);
      spw_g_ = 1;
    }
  }
  // No path got shorter (no link was added). A switch some shortest path of which survived is
  // as far from t as before, and every path from v meets such a switch (t itself is one). So
  // over the switches whose shortest paths all failed (found from v through each other), the
  // distances are shortest paths from their neighbours of the first kind: Dijkstra, seeded
  // with 1 + their distance, over that set only; memoised for t.
  if (shortest_path_works(t, v)) return tables_->dist(t, v);
  if (near_gen_[static_cast<size_t>(v)] == spw_g_) return near_d_[static_cast<size_t>(v)];
  constexpr int kFar = 1 << 30;
  near_q_.clear();
  near_q_.push_back(v);
  near_gen_[static_cast<size_t>(v)] = spw_g_;
  near_d_[static_cast<size_t>(v)] = kFar;
  std::vector<std::pair<int, int>> heap;  // (-distance, switch)
  for (size_t i = 0; i < near_q_.size(); i++) {
    const int x = near_q_[i];
    for (int q = 1; q <= nports(x); q++) {
      const int y = next_switch(x, static_cast<uint8_t>(q));
      if (y < 0) continue;
      const int dy = tables_->dist(t, y);
      if (dy == 255) return dist_to(t)[static_cast<size_t>(v)];
      if (shortest_path_works(t, y)) {
        near_d_[static_cast<size_t>(x)] = std::min(near_d_[static_cast<size_t>(x)], 1 + dy);
      } else if (near_gen_[static_cast<size_t>(y)] != spw_g_) {
        near_gen_[static_cast<size_t>(y)] = spw_g_;
        near_d_[static_cast<size_t>(y)] = kFar;
        near_q_.push_back(y);
      }
    }
  }
  for (int x : near_q_)
    if (near_d_[static_cast<size_t>(x)] < kFar) heap.push_back({-near_d_[static_cast<size_t>(x)], x});
  std::make_heap(heap.begin(), heap.end());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const auto [nd, x] = heap.back();
    heap.pop_back();
    if (-nd != near_d_[static_cast<size_t>(x)]) continue;
    for (int q = 1; q <= nports(x); q++) {
      const int y = next_switch(x, static_cast<uint8_t>(q));
      if (y < 0 || near_gen_[static_cast<size_t>(y)] != spw_g_ || shortest_path_works(t, y)) continue;
      if (near_d_[static_cast<size_t>(x)] + 1 < near_d_[static_cast<size_t>(y)]) {
        near_d_[static_cast<size_t>(y)] = near_d_[static_cast<size_t>(x)] + 1;
        heap.push_back({-near_d_[static_cast<size_t>(y)], y});
        std::push_heap(heap.begin(), heap.end());
      }
    }
  }
  return near_d_[static_cast<size_t>(v)];
}

bool Reconfigurer::shortest_path_works(int t, int x) {
  if (x == t) return true;
  if (spw_gen_[static_cast<size_t>(x)] == spw_g_) return spw_val_[static_cast<size_t>(x)];
  const int dx = tables_->dist(t, x);
  bool ok = true;  // no failed link lies on a shortest path from x
  for (auto [a, q] : dead_ports_) {
    const int b = old_next_switch(a, q);
    if (b >= 0 && tables_->dist(a, x) + 1 + tables_->dist(t, b) == dx) {
      ok = false;
      break;
    }
  }
  for (int q = 1; !ok && q <= nports(x); q++) {  // a working first hop on a shortest path that works
    const int y = next_switch(x, static_cast<uint8_t>(q));
    ok = y >= 0 && tables_->dist(t, y) + 1 == dx && shortest_path_works(t, y);
  }
  spw_gen_[static_cast<size_t>(x)] = spw_g_;
  spw_val_[static_cast<size_t>(x)] = ok;
  return ok;
}

const std::vector<int>& Reconfigurer::dist_to(int t) {
  // hop distances to t over working switch links; they depend on t only, so they are kept for
  // the other DLIDs attached to the same switch
  std::vector<int>& dt = dist_by_t_[static_cast<size_t>(t)];
  if (dt.empty()) {
    dt.assign(static_cast<size_t>(after_.size()), 1 << 30);
    std::vector<int> q{t};
    dt[static_cast<size_t>(t)] = 0;
    for (size_t i = 0; i < q.size(); i++) {
      const int u = q[i];
      for (int p = 1; p <= nports(u); p++) {
        const int v = next_switch(u, static_cast<uint8_t>(p));
        if (v >= 0 && dt[static_cast<size_t>(v)] > dt[static_cast<size_t>(u)] + 1)
          dt[static_cast<size_t>(v)] = dt[static_cast<size_t>(u)] + 1, q.push_back(v);
      }
    }
  }
  return dt;
}

}  // namespace ftroute::dqr_detail
