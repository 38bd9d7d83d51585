// DQR reconfiguration: see ftroute/dqr.hpp and docs/dqr.md.
#include "ftroute/dqr.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <span>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ftroute/grid.hpp"

namespace ftroute {

std::string DqrOptions::variant_name() const {
  std::string s = mesh_plugin ? "mesh" : (paths == Paths::Local ? "local" : "e2e");
  if (mesh_plugin && paths == Paths::EndToEnd) s += "-e2e";
  return s + (turns == Turns::All ? "-all" : "-single") + (layers == Layers::All ? "-layers" : "");
}

namespace {
// Entries != kNoPath (0xff) among n bytes, eight at a time (a per-byte loop over all
// switches x LIDs was the largest single cost of a mesh reconfiguration).
uint64_t count_routed(const uint8_t* p, size_t n) {
  static_assert(kNoPath == 0xff);
  uint64_t no_path = 0;
  size_t i = 0;
  constexpr uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL, hi = 0x8080808080808080ULL;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    const uint64_t x = ~w;  // 0xff bytes of w are zero bytes of x
    const uint64_t t = ((x & lo7) + lo7) | x;  // high bit set in every non-zero byte
    no_path += 8 - ((((t & hi) >> 7) * 0x0101010101010101ULL) >> 56);  // 8 - non-zero bytes
  }
  for (; i < n; i++) no_path += p[i] == kNoPath;
  return n - no_path;
}

using Id = ChannelList::Id;
using Dep = ChannelList::Dep;

struct Source {
  Lid lid;
  int node;        // CA (or switch) node
  uint8_t port;    // CA port (0 for a switch)
  int sw;          // first switch
  uint8_t in_port; // port of sw the traffic enters on (0 for a switch source)
};

class Reconfigurer {
 public:
  Reconfigurer(ChannelList& list, const Fabric& before, const Fabric& after, const Routing& r, const DqrOptions& o)
      : list_(list), before_(before), after_(after), r_(r), o_(o) {}

  DqrResult run();

 private:
  bool dead(int n, int p) const {  // link used by the old routing that is gone or re-cabled
    const Port& b = before_.node(n).port(p);
    const Port& a = after_.node(n).port(p);
    return b.connected() && (!a.connected() || a.peer_node != b.peer_node || a.peer_port != b.peer_port);
  }
  bool alive(int n, int p) const { return after_.node(n).port(p).connected(); }
  Id ch(int n, int p, int vl) const { return static_cast<Id>(link(n, p)) * kNumVlSlots + static_cast<Id>(vl); }
  int link(int n, int p) const { return tables_->link_id(n, p); }
  int nports(int n) const { return tables_->nports[static_cast<size_t>(n)]; }
  // (switch u, port of u) for every switch link entering y in `before`
  std::span<const std::pair<int, uint8_t>> sw_in(int y) const {
    const size_t b = static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(y)]);
    return {tables_->sw_in.data() + b, static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(y) + 1]) - b};
  }
  // The switch that port q of switch y leads to in `after` through a link that is not dead,
  // else -1 (also for q = 0, kNoPath, ports out of range, CAs): one table look-up per hop.
  int next_switch(int y, uint8_t q) const {
    if (q == 0 || q > nports(y)) return -1;
    return next_sw_[static_cast<size_t>(link(y, q))];
  }
  // The same in `before` (the fault-free links).
  int old_next_switch(int y, uint8_t q) const {
    if (q == 0 || q > nports(y)) return -1;
    return tables_->next_sw[static_cast<size_t>(link(y, q))];
  }

  void collect_sources();
  void apply_mesh_plugin(DqrResult& res);
  bool repair(Lid d, DqrResult& res);

  // ---- per destination state ----
  struct Dest {
    Lid d = 0;
    int t = -1;           // attach switch
    uint8_t tport = 0;    // port at t (0 = t's own LID)
    int owner = -1;       // node owning d
  };
  // Channels carrying (old or new) traffic for d into switch y, from mask_.
  void active_in(const Dest& D, int y, std::vector<Id>& out);
  // VLs of traffic for d leaving node u (old routing + committed new paths). Single-VL
  // routings compute it lazily (a switch with a CA has traffic; others inherit from the
  // switches routed into them), others by a full walk in mark_traffic.
  uint16_t mask(const Dest& D, int u);
  void set_mask(const Dest& D, int u, uint16_t bits) { mask_[static_cast<size_t>(u)] = mask(D, u) | bits; }
  // Does y's current route (after the fault) reach d? Memoised until the next commit.
  bool reaches(const Dest& D, int y);
  int route_hops(int y) const { return rhops_[static_cast<size_t>(y)]; }  // after reaches(y) == true
  bool route_touches(const Dest& D, int y, const std::vector<int>& path) const;
  void mark_traffic(const Dest& D);
  bool search_and_commit(Dest& D, int w, std::string& why);
  // One pass of it: 1 = a path was committed, 0 = there is none, -1 = the plain pass
  // (bounded = false) gave up after kPlainStates states.
  int search_pass(Dest& D, int w, bool bounded);
  static constexpr size_t kPlainStates = 48;
  // Lower bound of the search (A*) from the channel on link l carrying layers lay: one more hop
  // unless the link enters d's switch or a switch whose route reaches d, plus turn_cost if on
  // some layer no way on keeps every turn going up in the list (monotone(): memoised per search).
  bool monotone(const Dest& D, int l, int vl);
  bool joins_up(const Dest& D, Id c, int z, int vl);
  double bound(const Dest& D, int l, uint16_t lay) {
    const int y = next_sw_[static_cast<size_t>(l)];
    double h = y == D.t || (y >= 0 && reaches(D, y)) ? 0 : 1;
    for (int v = 0; v < kNumVlSlots; v++)
      if ((lay & (1u << v)) && !monotone(D, l, v)) return h + std::max(0.0, o_.turn_cost);
    return h;
  }
  // The repair of d proper: every switch of todo reaches d afterwards, or false with why.
  bool attempt(Dest& D, const std::vector<int>& todo, const std::vector<int>& affected, std::string& why);
  // Layers::All: after a failed attempt, moves the flows through the broken entries to another
  // layer and tries again (see move_layers in the .cpp).
  bool move_layers(Dest& D, const std::vector<int>& todo, const std::vector<int>& affected, std::string& why);
  void rollback(Dest& D);  // forget this LID's changes (col_, changes_, idle marks)
  uint8_t sl_of(const Source& s, Lid d) const {
    if (!sl_over_.empty()) {
      auto it = sl_over_.find((static_cast<uint64_t>(s.lid) << 16) | d);
      if (it != sl_over_.end()) return it->second;
    }
    return r_.sl(s.lid, d);
  }
  // End-to-end repair of a switch that carries no traffic for d any more (see LftChange::idle):
  // its entry goes to the neighbour nearest to d whose route reaches d without coming back;
  // no dependency is involved. False if w carries traffic or no neighbour qualifies.
  bool idle_route(Dest& D, int w);
  bool direct_route(Dest& D, int w);
  // Layer sets (bit l = VL l) follow the traffic: a path's channel carries the layers of the
  // traffic that entered the path at its switches (mask() of each), not every layer of d.
  void entry_deps(const Dest& D, int y, uint8_t q, int in_link, uint16_t in_lay, std::vector<Dep>& out);
  void junction_deps(const Dest& D, int prev_link, uint16_t lay, int z, std::vector<Dep>& out);
  struct Entry {
    int sw;
    uint8_t port;
    uint16_t lay;  // layers of the traffic the new entry forwards
  };
  void commit(Dest& D, const std::vector<Entry>& entries, int junction);
  // y sends traffic to d itself: a CA at y other than d's owner, or y with switch_sources
  bool has_own_source(const Dest& D, int y) const;
  bool carries_no_traffic(const Dest& D, int w) const;
  bool is_idle(int u) const { return idle_[static_cast<size_t>(u)] == ag_; }
  void record_change(int y, Lid d, uint8_t q);
  const std::vector<int>& dist_to(int t);  // hop distances to switch t over working links
  // Entries of the LID being repaired: current (col_) and of the old routing (old_col_).
  uint8_t cur(int y) const { return col_[static_cast<size_t>(y)]; }
  uint8_t old(int y) const { return old_col_[static_cast<size_t>(y)]; }

  ChannelList& list_;
  const Fabric& before_;
  const Fabric& after_;
  const Routing& r_;
  DqrOptions o_;
  std::shared_ptr<const DqrTables> tables_;  // the old routing by LID, the fault-free fabric's look-ups
  std::vector<uint8_t> col_;                 // current entries for the LID being repaired
  const uint8_t* old_col_ = nullptr;
  std::vector<Source> sources_;
  std::vector<int> cas_at_;  // CA base LIDs attached per switch
  std::unordered_map<uint64_t, LftChange> changes_;  // by (switch << 16) | LID
  std::vector<std::pair<int, uint8_t>> dead_ports_;  // switch-side ports of failed switch links
  std::vector<uint32_t> stamp_;
  uint32_t gen_ = 0;
  // by node: VLs on which traffic for the current d leaves (or is delivered at) the node
  std::vector<uint16_t> mask_;
  std::vector<uint32_t> mgen_;  // mask_[u] valid iff mgen_[u] == mg_
  std::vector<std::vector<Id>> ain_;  // active_in cache for one search
  std::vector<uint32_t> ain_gen_;
  uint32_t ain_g_ = 0;
  uint32_t mg_ = 0;
  // by switch y: indices into sources_ of the CAs attached, src_idx_[src_off_[y] .. src_off_[y + 1])
  std::vector<int> src_off_, src_idx_;
  std::span<const int> src_at(int y) const {
    const size_t b = static_cast<size_t>(src_off_[static_cast<size_t>(y)]);
    return {src_idx_.data() + b, static_cast<size_t>(src_off_[static_cast<size_t>(y) + 1]) - b};
  }
  bool single_vl_ = true;                 // no path_sl and no SL2VL tables: everything on VL 0
  std::vector<int8_t> rval_;
  std::vector<int> rhops_;  // hops to d along the current route, where rval_ == 1
  std::vector<uint32_t> rgen_;
  uint32_t rg_ = 0;
  std::vector<int> rstack_;
  std::vector<uint32_t> aff_;  // affected-set membership stamp (one generation per DLID)
  uint32_t ag_ = 0;
  std::vector<uint32_t> idle_;  // by switch: == ag_ while its new entry for d carries no traffic
  std::vector<int> idle_list_;  // switches made idle for the current d
  std::vector<int> changed_now_;  // switches whose entry for the current d changed
  std::vector<int> depth_;        // by switch: hops to d along the new routes, valid where dgen_ == ag_
  std::vector<uint32_t> dgen_;
  std::vector<int> dstack_;
  std::vector<std::pair<int, int>> cand_;  // scratch of direct_route
  std::vector<Dep> deps_;                  // scratch of direct_route
  static uint64_t dep_key(const Dep& d) { return (static_cast<uint64_t>(d.first) << 32) | d.second; }
  std::vector<int> next_sw_;              // by link id, see next_switch()
  std::vector<std::vector<int>> dist_by_t_;  // by switch t: hop distances to t (lazy)
  std::unordered_set<uint64_t> refused_;  // deps that cannot be enabled (alone) in this run
  std::unordered_map<uint64_t, uint8_t> sl_over_;  // (source LID << 16 | DLID) -> new SL
  std::vector<uint8_t> ca_deps_ok_;       // by link id: every CA at the switch -> link is in the list
  // monotone() by link id, bit vl: known true / known false (valid iff mono_gen_ == mono_g_)
  std::vector<uint16_t> mono_yes_, mono_no_;
  std::vector<uint32_t> mono_gen_;
  uint32_t mono_g_ = 0;
  std::vector<std::pair<Id, int>> mono_stack_;  // (channel, last port tried at its head)
  std::vector<Dep> join_deps_;            // scratch of joins_up
  uint64_t search_states_ = 0;            // states popped by the searches (DqrResult::search_states)
};

void Reconfigurer::collect_sources() {
  cas_at_.assign(static_cast<size_t>(before_.size()), 0);
  for (const EndPort& ep : before_.end_ports()) {
    const Node& n = before_.node(ep.node);
    if (n.is_switch()) {
      if (o_.switch_sources) sources_.push_back({ep.base_lid, ep.node, 0, ep.node, 0});
      continue;
    }
    const Port& p = n.port(ep.port);
    if (!after_.node(ep.node).port(ep.port).connected() || !p.connected()) continue;
    if (!before_.node(p.peer_node).is_switch()) continue;
    sources_.push_back({ep.base_lid, ep.node, ep.port, p.peer_node, p.peer_port});
    cas_at_[static_cast<size_t>(p.peer_node)]++;
  }
}

bool Reconfigurer::reaches(const Dest& D, int s) {
  // rval_: 1 ok, 2 broken, 3 on the current walk (valid while rgen_ == rg_)
  int y = s;
  int8_t verdict = 2;
  int base = 0;  // hops to d from the switch after the last one on the stack
  rstack_.clear();
  while (true) {
    if (rgen_[static_cast<size_t>(y)] == rg_) {
      int8_t st = rval_[static_cast<size_t>(y)];
      verdict = st == 3 ? 2 : st;  // 3: loop
      if (verdict == 1) base = rhops_[static_cast<size_t>(y)];
      break;
    }
    rgen_[static_cast<size_t>(y)] = rg_;
    rval_[static_cast<size_t>(y)] = 3;
    rstack_.push_back(y);
    uint8_t q = cur(y);
    if (y == D.t) { verdict = (q == D.tport) ? 1 : 2, base = -1; break; }
    const int nx = next_switch(y, q);
    if (nx < 0) { verdict = 2; break; }
    y = nx;
  }
  for (size_t i = 0; i < rstack_.size(); i++) {
    const size_t v = static_cast<size_t>(rstack_[i]);
    rval_[v] = verdict;
    rhops_[v] = base + static_cast<int>(rstack_.size() - i);
  }
  return verdict == 1;
}

// Traffic towards d under the old routing: which VLs leave every switch (links still alive).
void Reconfigurer::mark_traffic(const Dest& D) {
  if (++mg_ == 0) std::fill(mgen_.begin(), mgen_.end(), 0), mg_ = 1;
  if (single_vl_) return;  // lazy, see mask()
  std::fill(mask_.begin(), mask_.end(), 0);
  std::fill(mgen_.begin(), mgen_.end(), mg_);
  for (const Source& s : sources_) {
    if (s.node == D.owner) continue;
    const int sl = sl_of(s, D.d);
    int y = s.sw;
    uint8_t in_port = s.in_port;
    int vl = 0;
    if (s.port != 0) {
      vl = r_.sl2vl.vl(s.node, 0, s.port, sl);
    } else {
      uint8_t q = cur(y);
      vl = (q == kNoPath || q == 0) ? 0 : r_.sl2vl.vl(y, 0, q, sl);
    }
    const uint16_t bit = static_cast<uint16_t>(1u << vl);
    for (int hops = 0; hops <= before_.size(); hops++) {
      if (mask_[static_cast<size_t>(y)] & bit) break;
      mask_[static_cast<size_t>(y)] |= bit;
      uint8_t q = cur(y);
      if (y == D.t || q == kNoPath || q == 0 || q > before_.node(y).num_ports) break;
      const Port& p = before_.node(y).port(q);
      if (!p.connected() || dead(y, q) || !before_.node(p.peer_node).is_switch()) break;
      const int vl2 = r_.sl2vl.vl(y, in_port, q, sl);
      if (vl2 != vl)
        throw EngineError("dqr", "the routing changes VL along a path (at " + before_.port_name(y, q) + ", VL " +
                                     std::to_string(vl) + " -> " + std::to_string(vl2) +
                                     "): DQR needs virtual layers (one VL per path)");
      in_port = p.peer_port;
      y = p.peer_node;
    }
  }
}

uint16_t Reconfigurer::mask(const Dest& D, int u) {
  if (mgen_[static_cast<size_t>(u)] == mg_) return mask_[static_cast<size_t>(u)];
  // single VL: old traffic; the old routing is loop-free, so the recursion ends
  mgen_[static_cast<size_t>(u)] = mg_;
  mask_[static_cast<size_t>(u)] = 0;
  uint16_t m = 0;
  if ((o_.switch_sources || !src_at(u).empty()) && u != D.t) {
    m = 1;
  } else {
    for (auto [x, xp] : sw_in(u)) {  // switch x, its port towards u
      if (old(x) == xp && !dead(x, xp) && mask(D, x)) {
        m = 1;
        break;
      }
    }
  }
  mask_[static_cast<size_t>(u)] |= m;
  return mask_[static_cast<size_t>(u)];
}

void Reconfigurer::active_in(const Dest& D, int y, std::vector<Id>& out) {
  out.clear();
  for (int si : src_at(y)) {
    const Source& s = sources_[static_cast<size_t>(si)];
    if (s.node == D.owner) continue;
    int vl = single_vl_ ? 0 : r_.sl2vl.vl(s.node, 0, s.port, sl_of(s, D.d));
    out.push_back(ch(s.node, s.port, vl));
  }
  const Node& n = after_.node(y);
  for (int p = 1; p <= n.num_ports; p++) {
    const Port& pt = n.port(p);
    if (!pt.connected() || !after_.node(pt.peer_node).is_switch()) continue;
    const int u = pt.peer_node;
    const bool old_in = old(u) == pt.peer_port;
    const bool new_in = cur(u) == pt.peer_port && !is_idle(u);
    if (!old_in && !new_in) continue;
    const uint16_t m = mask(D, u);
    if (!m) continue;
    for (int l = 0; l < kNumVlSlots; l++)
      if (m & (1u << l)) out.push_back(ch(u, pt.peer_port, l));
  }
}

bool Reconfigurer::route_touches(const Dest& D, int y, const std::vector<int>& path) const {
  for (int hops = 0; hops <= after_.size(); hops++) {
    if (std::find(path.begin(), path.end(), y) != path.end()) return true;
    if (y == D.t) return false;
    uint8_t q = cur(y);
    y = after_.node(y).port(q).peer_node;
  }
  return true;
}

// Joining z's route (which reaches d) from channel c on layer vl: does every turn that
// junction_deps adds go up in the list? (Those already in the list do.)
bool Reconfigurer::joins_up(const Dest& D, Id c, int z, int vl) {
  join_deps_.clear();
  junction_deps(D, static_cast<int>(c / kNumVlSlots), static_cast<uint16_t>(1u << vl), z, join_deps_);
  return std::all_of(join_deps_.begin(), join_deps_.end(),
                     [&](const Dep& d) { return list_.pos(d.first) < list_.pos(d.second); });
}

// Depth-first over channels in increasing list position: channel c = (link l, vl) is
// "monotone" if its head switch is d's switch, or its head's route reaches d and every turn
// of joining it goes up (joins_up), or some channel leaving the head goes up from c and is
// monotone.
// Generous on purpose (it ignores loops, U-turns, the joined route's further hops and the
// traffic entering the path), so it never rules out a completion the search could price
// without a reorder: the bound it gives is admissible, and consistent because a step from a
// non-monotone channel to a monotone one is itself a downward turn.
bool Reconfigurer::monotone(const Dest& D, int l0, int vl) {
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

// Two passes: a plain Dijkstra, and if that creates more than kPlainStates states without
// committing, the same search again as A* with bound() (see monotone()). The bound costs a walk
// over the list per pushed channel, which is only worth it in long searches (a fat tree's spine
// LID: every repair needs a reorder, so the plain search first visits every path cheaper than
// turn_cost); short ones (most mesh repairs) stay exactly as they were.
bool Reconfigurer::search_and_commit(Dest& D, int w, std::string& why) {
  int r = search_pass(D, w, false);
  if (r < 0) r = search_pass(D, w, true);
  if (r > 0) return true;
  why = "no deadlock-free, loop-free path from switch \"" + after_.node(w).id + "\"";
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
      if (!list_.enable_all(T.newdeps)) continue;  // single-turn mode: jointly impossible; try next
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

bool Reconfigurer::attempt(Dest& D, const std::vector<int>& todo, const std::vector<int>& affected, std::string& why) {
  for (int w : todo) {
    if (reaches(D, w)) continue;
    if (idle_route(D, w) || direct_route(D, w)) continue;
    if (!search_and_commit(D, w, why)) {
      if (dist_to(D.t)[static_cast<size_t>(w)] >= (1 << 30)) why = "switch \"" + after_.node(w).id + "\" is physically cut off";
      return false;
    }
  }
  for (int s : affected)
    if (!reaches(D, s)) {
      why = "switch \"" + after_.node(s).id + "\" still has no route";
      return false;
    }
  return true;
}

void Reconfigurer::rollback(Dest& D) {
  for (int y : changed_now_) changes_.erase((static_cast<uint64_t>(y) << 16) | D.d);
  changed_now_.clear();
  for (int w : idle_list_) idle_[static_cast<size_t>(w)] = 0;
  idle_list_.clear();
  col_.assign(old_col_, old_col_ + before_.size());
  if (++rg_ == 0) std::fill(rgen_.begin(), rgen_.end(), 0), rg_ = 1;
}

// Layer move (Layers::All), tried when d cannot be repaired in the layers its traffic uses.
// The flows that reach a broken entry (sources upstream of the near ends) all move to one
// other layer l among the VLs the routing already uses, with the first SL whose SL2VL gives l:
//  1. the dependencies of their unchanged old prefixes on l (source -> ... -> near end) are
//     enabled in the channel list (jointly; a layer where that closes a cycle is skipped);
//  2. the traffic marks are recomputed with the new SLs and d is repaired again as usual (its
//     new paths are checked on l). If that fails too, the next layer is tried.
// Dependencies enabled for a layer that was then given up stay in the list (they were legal;
// they only constrain later repairs). One VL per path is kept (a hop whose SL2VL would change
// the VL excludes the layer), and the number of VLs does not grow.
bool Reconfigurer::move_layers(Dest& D, const std::vector<int>& todo, const std::vector<int>& affected, std::string& why) {
  const std::string first_why = why;
  // switches upstream of the near ends (the affected set may hold only the near ends)
  std::vector<uint8_t> up(static_cast<size_t>(before_.size()), 0);
  std::vector<int> queue;
  rollback(D);
  for (auto [s, p] : dead_ports_)
    if (cur(s) == p && !up[static_cast<size_t>(s)]) up[static_cast<size_t>(s)] = 1, queue.push_back(s);
  for (size_t i = 0; i < queue.size(); i++)
    for (auto [u, pu] : sw_in(queue[i]))
      if (!up[static_cast<size_t>(u)] && cur(u) == pu) up[static_cast<size_t>(u)] = 1, queue.push_back(u);
  const int layers = std::max(1, std::min(r_.num_vls, kNumVlSlots));
  for (int l = 0; l < layers; l++) {
    // the flows to move and their SL on layer l
    std::vector<std::pair<const Source*, uint8_t>> mv;
    bool usable = true;
    for (const Source& s : sources_) {
      if (s.node == D.owner || !up[static_cast<size_t>(s.sw)]) continue;
      if (!s.port) { usable = false; break; }  // switch-sourced flows are not moved
      if (r_.sl2vl.vl(s.node, 0, s.port, sl_of(s, D.d)) == l) continue;
      int nsl = -1;
      for (int x = 0; x < 16 && nsl < 0; x++)
        if (r_.sl2vl.vl(s.node, 0, s.port, x) == l) nsl = x;
      if (nsl < 0) { usable = false; break; }
      mv.push_back({&s, static_cast<uint8_t>(nsl)});
    }
    if (!usable || mv.empty()) continue;
    // 1. the unchanged prefixes on l
    std::vector<Dep> deps;
    for (auto [s, nsl] : mv) {
      Id c = ch(s->node, s->port, l);
      int y = s->sw;
      uint8_t in_port = s->in_port;
      for (int hops = 0; usable && hops <= before_.size(); hops++) {
        const uint8_t q = cur(y);
        if (q == kNoPath || q == 0 || q > nports(y)) break;
        if (r_.sl2vl.vl(y, in_port, q, nsl) != l) usable = false;
        const Id nc = ch(y, q, l);
        if (std::find(deps.begin(), deps.end(), Dep{c, nc}) == deps.end()) deps.push_back({c, nc});
        if (y == D.t || dead(y, q)) break;  // delivered, or the near end: the repair goes on from here
        const int nx = old_next_switch(y, q);
        if (nx < 0) break;
        in_port = before_.node(y).port(q).peer_port;
        c = nc;
        y = nx;
      }
    }
    if (!usable || !list_.enable_all(deps)) continue;
    // 2. repair again with the moved flows on l
    for (auto [s, nsl] : mv) sl_over_[(static_cast<uint64_t>(s->lid) << 16) | D.d] = nsl;
    mark_traffic(D);
    if (++ain_g_ == 0) std::fill(ain_gen_.begin(), ain_gen_.end(), 0), ain_g_ = 1;
    std::string w2;
    if (attempt(D, todo, affected, w2)) return true;
    for (auto [s, nsl] : mv) sl_over_.erase((static_cast<uint64_t>(s->lid) << 16) | D.d);
    rollback(D);
    mark_traffic(D);
  }
  why = first_why + " (in its own layers; no other layer helped)";
  return false;
}

bool Reconfigurer::repair(Lid d, DqrResult& res) {
  Dest D;
  D.d = d;
  Attach at = after_.attach(d);
  Attach atb = before_.attach(d);
  if (!atb.valid()) return true;  // nothing was routed to it
  if (!at.valid() || at.sw != atb.sw) {
    res.notes.push_back("LID " + std::to_string(d) + " lost its link to the fabric; its entries are left as they were");
    return true;
  }
  D.t = at.sw;
  D.tport = at.port;
  D.owner = after_.owner(d)->node;
  old_col_ = tables_->column(d);
  col_.assign(old_col_, old_col_ + before_.size());
  if (++rg_ == 0) std::fill(rgen_.begin(), rgen_.end(), 0), rg_ = 1;
  if (++ag_ == 0) std::fill(aff_.begin(), aff_.end(), 0), ag_ = 1;
  idle_list_.clear();
  changed_now_.clear();
  // affected = near ends (entry on a failed link, route fine before) + everything routed into them
  std::vector<int> affected;
  for (auto [s, p] : dead_ports_) {
    if (cur(s) != p || aff_[static_cast<size_t>(s)] == ag_) continue;
    int y = old_next_switch(s, p);
    bool ok = false;
    for (int hops = 0; y >= 0 && hops <= before_.size(); hops++) {
      if (y == D.t) { ok = cur(y) == D.tport; break; }
      y = old_next_switch(y, cur(y));
    }
    if (!ok) continue;  // already broken before this fault: not ours
    aff_[static_cast<size_t>(s)] = ag_;
    affected.push_back(s);
  }
  // Local repair changes only the near ends; their upstream switches are needed only for the
  // metrics (count_affected) and end-to-end repair.
  const bool upstream = o_.paths == DqrOptions::Paths::EndToEnd || o_.count_affected;
  for (size_t i = 0; upstream && i < affected.size(); i++)
    for (auto [u, up] : sw_in(affected[i])) {
      if (aff_[static_cast<size_t>(u)] == ag_ || cur(u) != up) continue;
      aff_[static_cast<size_t>(u)] = ag_;
      affected.push_back(u);
    }
  if (affected.empty()) return true;
  res.dlids_affected++;
  if (o_.count_affected) res.entries_affected += affected.size();
  const bool d_is_ca = !after_.node(after_.owner(d)->node).is_switch() && after_.owner(d)->base_lid == d;
  if (d_is_ca && o_.count_affected)
    for (int s : affected) res.flows_affected += static_cast<uint64_t>(cas_at_[static_cast<size_t>(s)]);
  mark_traffic(D);

  std::vector<int> todo;
  if (o_.paths == DqrOptions::Paths::Local) {
    for (int s : affected) {
      uint8_t p = cur(s);
      if (p != kNoPath && p != 0 && p <= after_.node(s).num_ports && dead(s, p)) todo.push_back(s);
    }
    if (todo.size() > 1) {  // nearest to d first
      const std::vector<int>& dist = dist_to(D.t);
      std::stable_sort(todo.begin(), todo.end(), [&](int a, int b) { return dist[static_cast<size_t>(a)] < dist[static_cast<size_t>(b)]; });
    }
  } else {
    // End to end: farther from d first (a switch's fresh shortest path fixes the affected
    // switches it passes through); switches with no source of their own last: they only carry
    // the traffic of other affected switches, which get their own paths first and may leave
    // them idle (idle_route). On a fat tree that is the spine that lost a down link: taken
    // first, as the farthest, its leaves would follow its down-up detour instead of going up
    // another spine. (Upstream-first instead of farther-first lost 20 points on the meshes.)
    todo = affected;
    if (todo.size() > 1) {
      const std::vector<int>& dist = dist_to(D.t);
      std::stable_sort(todo.begin(), todo.end(), [&](int a, int b) {
        const bool sa = !has_own_source(D, a), sb = !has_own_source(D, b);
        if (sa != sb) return sb;
        return dist[static_cast<size_t>(a)] > dist[static_cast<size_t>(b)];
      });
    }
  }
  std::string why;
  if (!attempt(D, todo, affected, why)) {
    const bool moved = o_.layers == DqrOptions::Layers::All && !single_vl_ && move_layers(D, todo, affected, why);
    if (!moved) {
      if (res.failures.size() < 5) res.failures.push_back("DLID " + std::to_string(d) + ": " + why);
      return false;
    }
    res.dlids_layer_moved++;
  }
  for (int w : idle_list_)
    if (is_idle(w)) changes_[(static_cast<uint64_t>(w) << 16) | d].idle = true;
  // transition stage of every changed entry: hops to d along the new routes (memoised walks
  // over this LID's column; see DqrResult::changes)
  for (int y0 : changed_now_) {
    int y = y0, base = 0;
    dstack_.clear();
    for (int hops = 0; hops <= after_.size(); hops++) {
      if (dgen_[static_cast<size_t>(y)] == ag_) { base = depth_[static_cast<size_t>(y)]; break; }
      if (y == D.t) { dstack_.push_back(y), base = -1; break; }
      dstack_.push_back(y);
      const int nx = next_switch(y, cur(y));
      if (nx < 0) break;
      y = nx;
    }
    for (size_t i = 0; i < dstack_.size(); i++) {
      const size_t v = static_cast<size_t>(dstack_[i]);
      dgen_[v] = ag_;
      depth_[v] = base + static_cast<int>(dstack_.size() - i);
    }
    changes_[(static_cast<uint64_t>(y0) << 16) | d].stage = depth_[static_cast<size_t>(y0)];
  }
  return true;
}

void Reconfigurer::entry_deps(const Dest& D, int y, uint8_t q, int in_link, uint16_t in_lay, std::vector<Dep>& out) {
  // Traffic that reaches y from the very switch y now forwards to would U-turn; that switch
  // is downstream of y in the new routing, so it is updated in an earlier transition stage
  // and its old packets drain (packet lifetime) before y changes: no such dependency arises.
  const int next = after_.node(y).port(q).peer_node;
  if (ain_gen_[static_cast<size_t>(y)] != ain_g_) {
    active_in(D, y, ain_[static_cast<size_t>(y)]);
    ain_gen_[static_cast<size_t>(y)] = ain_g_;
  }
  // Single VL: once every CA attached to y has its dependency onto (y, q) in the list, that
  // stays true for the rest of the reconfiguration, so those are not looked up again.
  const size_t lq = static_cast<size_t>(link(y, q));
  const bool ca_known = single_vl_ && ca_deps_ok_[lq];
  bool ca_all = single_vl_ && !ca_known;
  size_t ca_seen = 0;
  for (Id c : ain_[static_cast<size_t>(y)]) {
    const int from = tables_->link_node[c / kNumVlSlots];
    if (from == next) continue;
    const bool is_ca = !after_.node(from).is_switch();
    if (is_ca && ca_known) continue;
    const Id to = ch(y, q, Cdg::vl_of(c));
    if (is_ca) ca_seen++;
    if (is_ca && ca_all && !list_.has_dep(c, to)) ca_all = false;
    out.push_back({c, to});
  }
  if (ca_all && ca_seen == src_at(y).size()) ca_deps_ok_[lq] = 1;
  if (in_link >= 0)
    for (int l = 0; l < kNumVlSlots; l++)
      if (in_lay & (1u << l)) out.push_back({static_cast<Id>(in_link) * kNumVlSlots + static_cast<Id>(l), ch(y, q, l)});
}

// Dependencies of joining z's route from channel prev_link: the junction turn and, while the
// route carried no traffic for d before (or only an idle switch's), its own turns.
void Reconfigurer::junction_deps(const Dest& D, int prev_link, uint16_t lay, int z, std::vector<Dep>& out) {
  for (int hops = 0; hops <= after_.size(); hops++) {
    uint8_t q = cur(z);
    if (q == 0) break;  // z owns d
    for (int l = 0; l < kNumVlSlots; l++)
      if (lay & (1u << l)) out.push_back({static_cast<Id>(prev_link) * kNumVlSlots + static_cast<Id>(l), ch(z, q, l)});
    if (z == D.t) break;
    // downstream already carries d-traffic: its deps are in the list (not so behind an idle switch)
    if ((mask(D, z) & lay) == lay && !is_idle(z)) break;
    prev_link = link(z, q);
    z = after_.node(z).port(q).peer_node;
  }
}

// Sets the entries of a new path (switch, port) that joins the route of switch `junction`, and
// records the traffic it now carries.
void Reconfigurer::commit(Dest& D, const std::vector<Entry>& entries, int junction) {
  for (const Entry& e : entries) record_change(e.sw, D.d, e.port);
  // new traffic: the path's switches, then the joined route (idle switches on it carry
  // traffic from now on)
  for (const Entry& e : entries) {
    set_mask(D, e.sw, e.lay);
    idle_[static_cast<size_t>(e.sw)] = 0;
  }
  const uint16_t lm = entries.empty() ? 0 : entries.back().lay;
  int y = junction;
  for (int hops = 0; hops <= after_.size(); hops++) {
    const bool was_idle = is_idle(y);
    idle_[static_cast<size_t>(y)] = 0;
    if ((mask(D, y) & lm) == lm && !was_idle) break;
    set_mask(D, y, lm);
    if (y == D.t) break;
    y = after_.node(y).port(cur(y)).peer_node;
  }
  if (++rg_ == 0) std::fill(rgen_.begin(), rgen_.end(), 0), rg_ = 1;  // routes changed
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
    deps.clear();
    // the junction first: it is what differs most between candidates, and a candidate is
    // dropped as soon as its partial cost reaches the best one's (same choice in any order)
    junction_deps(D, link(w, q), lay, z, deps);
    entry_deps(D, w, static_cast<uint8_t>(q), -1, 0, deps);
    double cost = 1;
    nd.clear();
    for (const Dep& dp : deps) {
      if (list_.has_dep(dp.first, dp.second) || std::find(nd.begin(), nd.end(), dp) != nd.end()) continue;
      // new dependencies must go up (a reorder is the search's business)
      if (!list_.contains(dp.first) || !list_.contains(dp.second) || list_.pos(dp.first) >= list_.pos(dp.second)) {
        cost = best;
        break;
      }
      nd.push_back(dp);
      cost += o_.new_dep_cost;
      if (cost >= best) break;
    }
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

void Reconfigurer::record_change(int y, Lid d, uint8_t q) {
  const uint8_t was = cur(y);
  if (was == q) return;
  const uint64_t key = (static_cast<uint64_t>(y) << 16) | d;
  auto [it, fresh] = changes_.try_emplace(key, LftChange{y, d, was, q});
  if (!fresh) it->second.new_port = q;
  else changed_now_.push_back(y);
  col_[static_cast<size_t>(y)] = q;
}

bool Reconfigurer::has_own_source(const Dest& D, int y) const {
  if (o_.switch_sources) return true;
  for (int si : src_at(y))
    if (sources_[static_cast<size_t>(si)].node != D.owner) return true;
  return false;
}

bool Reconfigurer::carries_no_traffic(const Dest& D, int w) const {
  if (has_own_source(D, w)) return false;
  // anything still routed into w (also over a failed link: not repaired yet) may send traffic
  for (auto [u, up] : sw_in(w))
    if (cur(u) == up) return false;
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
  if (++rg_ == 0) std::fill(rgen_.begin(), rgen_.end(), 0), rg_ = 1;  // routes changed
  return true;
}

void Reconfigurer::apply_mesh_plugin(DqrResult& res) {
  std::string why;
  std::optional<MeshGrid> found;
  if (!o_.mesh) found = recognise_mesh(before_, &why);
  const MeshGrid* grid = o_.mesh ? o_.mesh.get() : (found ? &*found : nullptr);  // precomputed: fault-free topology
  if (!grid) {
    res.notes.push_back("mesh plug-in not applied: " + why);
    return;
  }
  bool all_ok = true;
  std::set<std::pair<int, int>> done;
  for (auto [a, pa] : dead_ports_) {
    const Port& pb = before_.node(a).port(pa);
    int b = pb.peer_node;
    if (done.count({std::min(a, b), std::max(a, b)})) continue;
    done.insert({std::min(a, b), std::max(a, b)});
    const auto& ca = grid->coord[static_cast<size_t>(a)];
    const auto& cb = grid->coord[static_cast<size_t>(b)];
    int k = 0;
    while (k < 3 && ca[static_cast<size_t>(k)] == cb[static_cast<size_t>(k)]) k++;
    int j = -1;
    for (int dd = 0; dd < grid->ndims; dd++)
      if (dd != k && grid->size[static_cast<size_t>(dd)] > 1) {
        j = dd;
        break;
      }
    if (j < 0) { all_ok = false; continue; }
    double centre = (grid->size[static_cast<size_t>(j)] - 1) / 2.0;
    int dir = ca[static_cast<size_t>(j)] < centre ? 1 : ca[static_cast<size_t>(j)] > centre ? -1 : 1;
    auto shifted = [&](std::array<int, 3> c) {
      c[static_cast<size_t>(j)] += dir;
      return c;
    };
    auto a2c = shifted(ca), b2c = shifted(cb);
    if (a2c[static_cast<size_t>(j)] < 0 || a2c[static_cast<size_t>(j)] >= grid->size[static_cast<size_t>(j)]) { all_ok = false; continue; }
    int a2 = grid->node(a2c), b2 = grid->node(b2c);
    auto port_between = [&](int x, int y) -> int {
      const Node& n = after_.node(x);
      for (int p = 1; p <= n.num_ports; p++)
        if (n.port(p).connected() && n.port(p).peer_node == y) return p;
      return 0;
    };
    int p_aa2 = port_between(a, a2), p_a2b2 = port_between(a2, b2), p_b2b = port_between(b2, b);
    int p_bb2 = port_between(b, b2), p_b2a2 = port_between(b2, a2), p_a2a = port_between(a2, a);
    if (!p_aa2 || !p_a2b2 || !p_b2b || !p_bb2 || !p_b2a2 || !p_a2a) { all_ok = false; continue; }
    // both directions of the failed link: X = (from, port) replaced by from->f2->t2->to
    // Traffic that reached `from` coming from f2, or leaves `to` towards t2, would make a
    // U-turn on the detour; it takes the shortcut f2 -> t2 instead, so those turns are not
    // enabled (enabling them would close a cycle with the other direction's detour).
    struct Dir { int from, port, f2, pf, t2, pm, to, pt, back_in, back_out; };
    Dir dirs[2] = {{a, pa, a2, p_aa2, b2, p_a2b2, b, p_b2b, p_a2a, p_bb2},
                   {b, pb.peer_port, b2, p_bb2, a2, p_b2a2, a, p_a2a, p_b2b, p_aa2}};
    for (const Dir& x : dirs) {
      for (int vl = 0; vl < kNumVlSlots; vl++) {
        Id X = ch(x.from, x.port, vl);
        if (!list_.contains(X)) continue;
        Id c1 = ch(x.from, x.pf, vl), c2 = ch(x.f2, x.pm, vl), c3 = ch(x.t2, x.pt, vl);
        const int uturn_in = link(x.f2, x.back_in), uturn_out = link(x.to, x.back_out);
        std::vector<Dep> deps;
        for (Id c : list_.predecessors(X))
          if (static_cast<int>(c / kNumVlSlots) != uturn_in) deps.push_back({c, c1});
        deps.push_back({c1, c2});
        deps.push_back({c2, c3});
        for (Id c : list_.successors(X))
          if (static_cast<int>(c / kNumVlSlots) != uturn_out) deps.push_back({c3, c});
        if (!list_.enable_all(deps)) all_ok = false;
      }
    }
  }
  res.plugin_applied = all_ok;
  res.notes.push_back(std::string("mesh plug-in (detours towards the centre of the ") + grid->describe() + "): " +
                      (all_ok ? "all detour turns enabled" : "some detours could not be enabled"));
}

DqrResult Reconfigurer::run() {
  auto t0 = std::chrono::steady_clock::now();
  if (before_.size() != after_.size())
    throw EngineError("dqr", "fabric changed its node set (" + std::to_string(before_.size()) + " -> " +
                                 std::to_string(after_.size()) + " nodes): DQR only handles removed links");
  for (int i = 0; i < before_.size(); i++)
    if (before_.node(i).num_ports != after_.node(i).num_ports || before_.node(i).type != after_.node(i).type)
      throw EngineError("dqr", "node \"" + after_.node(i).id + "\" changed type or port count");
  DqrResult res;
  tables_ = o_.tables ? o_.tables : dqr_tables(before_, r_);
  if (tables_->nodes != before_.size() || tables_->max_lid < before_.max_lid() ||
      tables_->nports.size() != static_cast<size_t>(before_.size()))
    throw Error("dqr: precomputed tables do not describe this fabric");
  for (int i = 0; i < before_.size(); i++)
    if (tables_->nports[static_cast<size_t>(i)] != before_.node(i).num_ports)
      throw Error("dqr: precomputed tables do not describe this fabric (ports of \"" + before_.node(i).id + "\")");
  res.entries_total = tables_->entries_total;
  // the links of `after`: failed switch links (dead_ports_) and where every port leads now
  next_sw_.assign(static_cast<size_t>(tables_->num_links()), -1);
  for (int y : after_.switches()) {
    const Node& n = after_.node(y);
    for (int q = 1; q <= n.num_ports; q++) {
      if (dead(y, q)) {
        if (before_.node(before_.node(y).port(q).peer_node).is_switch())
          dead_ports_.push_back({y, static_cast<uint8_t>(q)}), res.failed_channels++;
        continue;
      }
      const Port& p = n.port(q);
      if (p.connected() && after_.node(p.peer_node).is_switch()) next_sw_[static_cast<size_t>(link(y, q))] = p.peer_node;
    }
  }
  collect_sources();
  single_vl_ = !r_.path_sl && r_.sl2vl.empty();
  rval_.assign(static_cast<size_t>(after_.size()), 0);
  rhops_.assign(static_cast<size_t>(after_.size()), 0);
  rgen_.assign(static_cast<size_t>(after_.size()), 0);
  aff_.assign(static_cast<size_t>(after_.size()), 0);
  idle_.assign(static_cast<size_t>(after_.size()), 0);
  depth_.assign(static_cast<size_t>(after_.size()), 0);
  dgen_.assign(static_cast<size_t>(after_.size()), 0);
  mask_.assign(static_cast<size_t>(after_.size()), 0);
  mgen_.assign(static_cast<size_t>(after_.size()), 0);
  ain_.assign(static_cast<size_t>(after_.size()), {});
  ain_gen_.assign(static_cast<size_t>(after_.size()), 0);
  ca_deps_ok_.assign(static_cast<size_t>(tables_->num_links()), 0);
  dist_by_t_.assign(static_cast<size_t>(after_.size()), {});
  src_off_.assign(static_cast<size_t>(before_.size()) + 1, 0);
  for (size_t i = 0; i < sources_.size(); i++)
    if (sources_[i].port != 0) src_off_[static_cast<size_t>(sources_[i].sw) + 1]++;
  for (size_t y = 0; y + 1 < src_off_.size(); y++) src_off_[y + 1] += src_off_[y];
  src_idx_.resize(static_cast<size_t>(src_off_.back()));
  {
    std::vector<int> fill(src_off_.begin(), src_off_.end() - 1);
    for (size_t i = 0; i < sources_.size(); i++)
      if (sources_[i].port != 0) src_idx_[static_cast<size_t>(fill[static_cast<size_t>(sources_[i].sw)]++)] = static_cast<int>(i);
  }
  uint64_t ca_lids = 0;
  for (const Source& s : sources_)
    if (!before_.node(s.node).is_switch()) ca_lids++;
  res.flows_total = ca_lids * (ca_lids > 0 ? ca_lids - 1 : 0);
  const uint64_t moved0 = list_.channels_moved(), en0 = list_.turns_enabled();
  if (o_.mesh_plugin && !dead_ports_.empty()) apply_mesh_plugin(res);
  bool ok = true;
  if (!dead_ports_.empty()) {
    // quick test: the LIDs some near end of a failed link forwards into it (its LFT row)
    std::vector<uint8_t> hit(static_cast<size_t>(before_.max_lid()) + 1, 0);
    for (auto [s, p] : dead_ports_) {
      const std::vector<uint8_t>& row = r_.lfts.table(s);
      for (size_t d = 1; d < row.size() && d < hit.size(); d++) hit[d] |= row[d] == p;
    }
    for (const EndPort& ep : before_.end_ports())
      for (Lid d = ep.base_lid; d <= ep.last_lid(); d++)
        if (hit[d] && !repair(d, res)) ok = false;
  }
  std::vector<LftChange> ch;
  for (auto& [k, c] : changes_)
    if (c.old_port != c.new_port) ch.push_back(c);
  Lfts patched = r_.lfts;
  for (const LftChange& c : ch) patched.set(c.sw, c.lid, c.new_port);
  // transition order (DqrResult::changes; the stages were computed per LID in repair)
  int deepest = 0;
  for (const LftChange& c : ch)
    if (!c.idle) deepest = std::max(deepest, c.stage);
  for (LftChange& c : ch)
    if (c.idle) c.stage = deepest + 1;
  std::sort(ch.begin(), ch.end(), [](const LftChange& a, const LftChange& b) {
    return std::tie(a.stage, a.lid, a.sw) < std::tie(b.stage, b.lid, b.sw);
  });
  res.changes = std::move(ch);
  res.entries_changed = res.changes.size();
  res.turns_enabled = list_.turns_enabled() - en0;
  res.channels_moved = list_.channels_moved() - moved0;
  res.search_states = search_states_;
  res.ok = ok;
  res.lfts = ok ? std::move(patched) : r_.lfts;
  if (ok) {
    for (auto [key, nsl] : sl_over_) {
      const Lid slid = static_cast<Lid>(key >> 16), dlid = static_cast<Lid>(key & 0xffff);
      const auto src = before_.owner(slid);
      const Lid last = src ? src->last_lid() : slid;
      for (Lid l = slid; l >= slid && l <= last; l++) res.sl_changes.push_back({l, dlid, r_.sl(l, dlid), nsl});
    }
    std::sort(res.sl_changes.begin(), res.sl_changes.end(),
              [](const SlChange& a, const SlChange& b) { return std::tie(a.dlid, a.slid) < std::tie(b.dlid, b.slid); });
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace

DqrResult dqr_reconfigure(ChannelList& list, const Fabric& before, const Fabric& after, const Routing& old_routing,
                          const DqrOptions& options) {
  Reconfigurer r(list, before, after, old_routing, options);
  return r.run();
}

Routing dqr_routing(const Routing& old, const DqrResult& res) {
  Routing r;
  r.engine = old.engine;
  r.lfts = res.lfts;
  r.sl2vl = old.sl2vl;
  r.num_vls = old.num_vls;
  r.notes = old.notes;
  if (res.sl_changes.empty()) {
    r.path_sl = old.path_sl;
  } else {
    auto over = std::make_shared<std::unordered_map<uint32_t, uint8_t>>();
    for (const SlChange& c : res.sl_changes) (*over)[(static_cast<uint32_t>(c.slid) << 16) | c.dlid] = c.new_sl;
    r.path_sl = [base = old.path_sl, over](Lid slid, Lid dlid) -> uint8_t {
      auto it = over->find((static_cast<uint32_t>(slid) << 16) | dlid);
      if (it != over->end()) return it->second;
      return base ? base(slid, dlid) : 0;
    };
  }
  return r;
}

std::shared_ptr<const DqrTables> dqr_tables(const Fabric& before, const Routing& routing) {
  auto t = std::make_shared<DqrTables>();
  t->nodes = before.size();
  const size_t nn = static_cast<size_t>(before.size());
  t->port_base.resize(nn);
  t->nports.resize(nn);
  for (int i = 0, next = 0; i < before.size(); i++) {  // Cdg's numbering: ports 0..num_ports
    const int np = before.node(i).num_ports;
    t->port_base[static_cast<size_t>(i)] = next;
    t->nports[static_cast<size_t>(i)] = np;
    for (int p = 0; p <= np; p++) t->link_node.push_back(i);
    next += np + 1;
  }
  t->next_sw.assign(t->link_node.size(), -1);
  t->sw_in_off.assign(nn + 1, 0);
  for (int u : before.switches())
    for (int p = 1; p <= before.node(u).num_ports; p++) {
      const Port& pt = before.node(u).port(p);
      if (!pt.connected() || !before.node(pt.peer_node).is_switch()) continue;
      t->next_sw[static_cast<size_t>(t->link_id(u, p))] = pt.peer_node;
      t->sw_in_off[static_cast<size_t>(pt.peer_node) + 1]++;
    }
  for (size_t i = 0; i < nn; i++) t->sw_in_off[i + 1] += t->sw_in_off[i];
  t->sw_in.resize(static_cast<size_t>(t->sw_in_off[nn]));
  std::vector<int> fill(t->sw_in_off.begin(), t->sw_in_off.end() - 1);
  for (int u : before.switches())  // by u, then port: the order the old per-switch lists had
    for (int p = 1; p <= before.node(u).num_ports; p++) {
      const Port& pt = before.node(u).port(p);
      if (pt.connected() && before.node(pt.peer_node).is_switch())
        t->sw_in[static_cast<size_t>(fill[static_cast<size_t>(pt.peer_node)]++)] = {u, static_cast<uint8_t>(p)};
    }
  t->max_lid = before.max_lid();
  const size_t n = static_cast<size_t>(t->nodes), lids = static_cast<size_t>(t->max_lid) + 1;
  t->by_lid.assign(n * lids, kNoPath);
  for (int s : before.switches()) {
    const std::vector<uint8_t>& tab = routing.lfts.table(s);
    const size_t end = std::min(tab.size(), lids);
    for (size_t d = 1; d < end; d++) t->by_lid[d * n + static_cast<size_t>(s)] = tab[d];
    if (end > 1) t->entries_total += count_routed(tab.data() + 1, end - 1);
  }
  return t;
}


}  // namespace ftroute
