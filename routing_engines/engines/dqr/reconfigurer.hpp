// DQR's reconfiguration state (private to routing_engines/engines/dqr/): one Reconfigurer per
// dqr_reconfigure() call. Its members are defined by responsibility:
//   tables.cpp        the old routing by LID, its traffic, switch distances and the fault-free
//                     fabric's look-ups (DqrTables)
//   traffic.cpp       sources, routes that reach d, VL masks of the traffic
//   dependencies.cpp  the turns a new path adds to the channel list
//   path_search.cpp   cheap repairs and the constrained Dijkstra / A* search
//   search_bound.cpp  the A* bound: monotone channels (one destination or a batch)
//   distances.cpp     hop distances to the destination's switch after the fault
//   repair.cpp        one destination LID: affected switches, attempts, commit, rollback
//   layer_moves.cpp   layers=all: moving flows to another virtual layer
//   mesh_plugin.cpp   the mesh plug-in
//   staging.cpp       transition order of the changed entries
//   reconfigure.cpp   run(): one fault set, all LIDs; dqr_reconfigure(), dqr_routing()
// See ftroute/dqr/dqr.hpp and docs/dqr.md.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <span>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ftroute/dqr/dqr.hpp"
#include "ftroute/grid.hpp"

namespace ftroute::dqr_detail {

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
  // drop_failed: the failed links' dependencies leave the list before the repair (the second
  // attempt of dqr_reconfigure()).
  Reconfigurer(ChannelList& list, const Fabric& before, const Fabric& after, const Routing& r, const DqrOptions& o,
               bool drop_failed = false)
      : list_(list), before_(before), after_(after), r_(r), o_(o), drop_failed_(drop_failed) {}

  DqrResult run();

 private:
  bool dead(int n, int p) const {  // link used by the old routing that is gone or re-cabled
    if (node_[static_cast<size_t>(n)].slot + 1 < tables_->stride) return port_dead_[static_cast<size_t>(link(n, p))];  // a switch
    const Port& b = before_.node(n).port(p);
    const Port& a = after_.node(n).port(p);
    return b.connected() && (!a.connected() || a.peer_node != b.peer_node || a.peer_port != b.peer_port);
  }
  bool alive(int n, int p) const { return after_.node(n).port(p).connected(); }
  Id ch(int n, int p, int vl) const { return static_cast<Id>(link(n, p)) * kNumVlSlots + static_cast<Id>(vl); }
  int link(int n, int p) const { return node_[static_cast<size_t>(n)].port_base + p; }
  int nports(int n) const { return node_[static_cast<size_t>(n)].nports; }
  // an entry that forwards through no port (none, port 0 at a switch that is not the target, or
  // past the last port): what DqrOptions::connect builds, where a repair finds dead links
  bool no_port(int n, uint8_t q) const { return q == kNoPath || q == 0 || q > nports(n); }
  // (switch u, port of u) for every switch link entering y in `before`
  std::span<const std::pair<int, uint8_t>> sw_in(int y) const {
    const size_t b = static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(y)]);
    return {tables_->sw_in.data() + b, static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(y) + 1]) - b};
  }
  // The switch that port q of switch y leads to in `after` through a link that is not dead,
  // else -1 (also for q = 0, kNoPath, ports out of range, CAs): one table look-up per hop.
  int next_switch(int y, uint8_t q) const {
    const NodeInfo& n = node_[static_cast<size_t>(y)];
    if (q == 0 || q > n.nports) return -1;
    return next_sw_[static_cast<size_t>(n.port_base + q)];
  }
  // The same in `before` (the fault-free links).
  int old_next_switch(int y, uint8_t q) const {
    if (q == 0 || q > nports(y)) return -1;
    return tables_->next_sw[static_cast<size_t>(link(y, q))];
  }

  void collect_sources();
  // Returns the failed channels (switch, port) the plug-in detoured on every layer.
  std::set<std::pair<int, int>> apply_mesh_plugin(DqrResult& res);
  // tlr (local_reroute.cpp): makes a detour around the failed channel (from, port) legal with all
  // its turns checked together, on layer only_vl or every layer; false if some layer has none.
  bool local_reroute(int from, uint8_t port, int only_vl = -1);
  // local_reroute for every failed channel not in skip (the ones the mesh plug-in detoured)
  void apply_local_reroutes(DqrResult& res, const std::set<std::pair<int, int>>& skip);
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
  // The old routing's part of mask() (single VL; use_table = false: the recursion alone)
  uint16_t old_mask(const Dest& D, int u, bool use_table);
  // Does y's current route (after the fault) reach d? Memoised until the next commit.
  bool reaches(const Dest& D, int y);
  int route_hops(int y) const { return rmemo_[slot(y)].hops; }  // after reaches(y) == true
  int route_last(int y) const { return rmemo_[slot(y)].last; }  // after reaches(y) == true
  void new_routes() {  // entries changed: forget what reaches() knew
    if (++rg_ == 0) {
      for (RouteMemo& m : rmemo_) m.gen = 0;
      rg_ = 1;
    }
  }
  // Entries changed only at switches whose route did not reach d: a route that reached d passes
  // none of them (it would not reach d), so it and its hop count stay; only the broken verdicts
  // are forgotten.
  void new_routes_from_broken() {
    if (++rbg_ == 0) {
      for (RouteMemo& m : rmemo_) m.bgen = 0;
      rbg_ = 1;
    }
  }
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
  bool monotone_reference(const Dest& D, int l, int vl);  // DqrOptions::cross_check
  void mark_good(const Dest& D, int vl);
  void mark_batch(const Dest& D, int vl);
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
  // Dependencies of joining z's route from channel prev_link, one at a time to f (which returns
  // false to stop): the junction turn and, while the route carried no traffic for d before (or
  // only an idle switch's), its own turns. False if f stopped.
  template <class F>
  bool each_junction_dep(const Dest& D, int prev_link, uint16_t lay, int z, F&& f) {
    for (int hops = 0; hops <= after_.size(); hops++) {
      uint8_t q = cur(z);
      if (q == 0) break;  // z owns d
      for (uint32_t m = lay; m; m &= m - 1) {
        const int l = __builtin_ctz(m);
        if (!f(Dep{static_cast<Id>(prev_link) * kNumVlSlots + static_cast<Id>(l), ch(z, q, l)})) return false;
      }
      if (z == D.t) break;
      // downstream already carries d-traffic: its deps are in the list (not so behind an idle switch)
      if ((mask(D, z) & lay) == lay && !is_idle(z)) break;
      prev_link = link(z, q);
      // z's route reaches d, so it goes on to a switch over a working link
      z = next_sw_[static_cast<size_t>(prev_link)];
    }
    return true;
  }
  struct Entry {
    int sw;
    uint8_t port;
    uint16_t lay;  // layers of the traffic the new entry forwards
  };
  void commit(Dest& D, const std::vector<Entry>& entries, int junction);
  // Transition stage of every entry changed for d (staging.cpp).
  void stage_changes(const Dest& D);
  // y sends traffic to d itself: a CA at y other than d's owner, or y with switch_sources
  bool has_own_source(const Dest& D, int y) const;
  bool carries_no_traffic(const Dest& D, int w) const;
  bool is_idle(int u) const { return idle_[static_cast<size_t>(u)] == ag_; }
  void record_change(int y, Lid d, uint8_t q);
  const std::vector<int>& dist_to(int t);  // hop distances to switch t over working links
  // dist_to(t)[v], from DqrTables::sw_dist where no failed link lies on a shortest path (or
  // another shortest path avoids them), else from dist_to(t).
  int switch_dist(int t, int v);
  int switch_dist_table(int t, int v);  // switch_dist() proper (cross_check compares it)
  bool shortest_path_works(int t, int x);  // some shortest x -> t path of `before` has no failed link
  // Entries of the LID being repaired: current (col_) and of the old routing (old_col_).
  // Both are indexed by DqrTables::slot (switches only; any other node reads kNoPath).
  size_t slot(int y) const { return static_cast<size_t>(node_[static_cast<size_t>(y)].slot); }
  uint8_t cur(int y) const { return col_[slot(y)]; }
  uint8_t old(int y) const { return old_col_[slot(y)]; }

  ChannelList& list_;
  const Fabric& before_;
  const Fabric& after_;
  const Routing& r_;
  DqrOptions o_;
  bool drop_failed_ = false;
  std::shared_ptr<const DqrTables> tables_;  // the old routing by LID, the fault-free fabric's look-ups
  std::vector<uint8_t> col_;                 // current entries for the LID being repaired, by slot
  const uint8_t* old_col_ = nullptr;         // the old routing's, by slot (DqrTables::column)
  // DqrTables::port_base, nports and slot side by side: what every hop of a walk looks up
  struct NodeInfo {
    int32_t port_base = 0, nports = 0, slot = 0;
  };
  std::vector<NodeInfo> node_;
  std::vector<Source> sources_;
  std::vector<int> cas_at_;  // CA base LIDs attached per switch
  // Every changed entry, LID by LID (the current LID's from lid_changes_ on); the current LID's
  // entry of switch y is changes_[chg_at_[y]] where chg_gen_[y] == cg_.
  std::vector<LftChange> changes_;
  size_t lid_changes_ = 0;
  std::vector<uint32_t> chg_gen_;
  std::vector<size_t> chg_at_;
  uint32_t cg_ = 0;
  std::vector<std::pair<int, uint8_t>> dead_ports_;  // switch-side ports of failed switch links
  std::vector<uint32_t> stamp_;
  uint32_t gen_ = 0;
  // by node: VLs on which traffic for the current d leaves (or is delivered at) the node
  std::vector<uint16_t> mask_;
  std::vector<uint32_t> mgen_;  // mask_[u] valid iff mgen_[u] == mg_
  // Single VL, CA sources only, every CA source of the tables still connected: mask() reads
  // DqrTables::traffic except at switches downstream of a failed link (taint_ == mg_).
  bool fast_traffic_ = false;
  std::vector<uint32_t> taint_;
  std::vector<uint16_t> omask_;      // old_mask() memo, valid iff omgen_ == mg_
  std::vector<uint32_t> omgen_;
  std::vector<uint16_t> ref_omask_;  // the same for old_mask(.., false) (DqrOptions::cross_check)
  std::vector<uint32_t> ref_omgen_;
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
  // reaches() walks in column slots: where each switch port leads (kNoSlot: nowhere, or not to a
  // switch over a working link) and each slot's port base and count (the last slot: 0 ports)
  static constexpr uint16_t kNoSlot = 0xffff;
  std::vector<uint16_t> next_slot_;  // by link id
  struct SlotInfo {
    int32_t port_base = 0, nports = 0;
  };
  std::vector<SlotInfo> slot_info_;
  struct RouteMemo {  // reaches() by column slot, valid where gen == rg_ and (val == 1 or bgen == rbg_)
    uint32_t gen = 0, bgen = 0;
    int32_t hops = 0;  // hops to d along the current route, where val == 1
    int32_t last = -1; // where val == 1: the link the route enters d's switch by (-1: it is d's switch)
    int8_t val = 0;
  };
  std::vector<RouteMemo> rmemo_;
  uint32_t rg_ = 0, rbg_ = 0;
  std::vector<int> rstack_;
  std::vector<uint32_t> aff_;  // affected-set membership stamp (one generation per DLID)
  uint32_t ag_ = 0;
  std::vector<uint32_t> idle_;  // by switch: == ag_ while its new entry for d carries no traffic
  std::vector<int> idle_list_;  // switches made idle for the current d
  std::vector<int> changed_now_;  // switches whose entry for the current d changed
  std::vector<int> affected_, todo_;  // repair()'s, for the current d
  std::vector<int> depth_;        // by switch: hops to d along the new routes, valid where dgen_ == ag_
  std::vector<uint32_t> dgen_;
  std::vector<int> dstack_;
  std::vector<std::pair<int, int>> cand_;  // scratch of direct_route
  std::vector<Dep> deps_;                  // scratch of direct_route
  std::vector<Dep> dr_new_, dr_best_;      // scratch of direct_route: a candidate's new dependencies, the best's
  static uint64_t dep_key(const Dep& d) { return (static_cast<uint64_t>(d.first) << 32) | d.second; }
  std::vector<int> next_sw_;              // by link id, see next_switch()
  std::vector<uint8_t> port_changed_;     // by link id: a switch port whose link is gone, moved or new
  std::vector<uint8_t> port_dead_;        // by link id: dead() of a switch port
  bool same_lids_ = true;                 // `after` has the LIDs of `before` (end ports alike)
  std::vector<std::vector<int>> dist_by_t_;  // by switch t: hop distances to t (lazy)
  bool dist_ok_ = false;                     // DqrTables::sw_dist usable (no link was added)
  int spw_t_ = -1;                           // shortest_path_works() memo: for this t,
  uint32_t spw_g_ = 0;                       // valid where spw_gen_ == spw_g_
  std::vector<uint32_t> spw_gen_;
  std::vector<uint8_t> spw_val_;
  // switch_dist_table(): distances of switches whose shortest paths to spw_t_ all failed,
  // valid where near_gen_ == spw_g_
  std::vector<uint32_t> near_gen_;
  std::vector<int> near_d_, near_q_;
  std::unordered_set<uint64_t> refused_;  // deps that cannot be enabled (alone) in this run
  std::unordered_map<uint64_t, uint8_t> sl_over_;  // (source LID << 16 | DLID) -> new SL
  std::vector<uint8_t> ca_deps_ok_;       // by link id: every CA at the switch -> link is in the list
  // monotone() by link id, bit vl: known true / known false (valid iff mono_gen_ == mono_g_)
  std::vector<uint16_t> mono_yes_, mono_no_;
  std::vector<uint32_t> mono_gen_;
  uint32_t mono_g_ = 0;
  std::vector<std::pair<Id, int>> mono_stack_;  // (channel, last port tried at its head)
  std::vector<uint16_t> good_;       // by link id, bit vl: monotone (valid iff good_gen_ == good_g_[vl])
  std::vector<uint32_t> good_gen_, done_gen_;
  uint32_t good_g_ = 0, done_g_ = 0;
  uint32_t good_for_ = 0;            // the search (mono_g_) good_vls_ belongs to
  uint16_t good_vls_ = 0;            // layers marked for it
  std::vector<uint64_t> pending_;    // by list position
  // mark_batch(): targets (bit tbit_[switch] of gsets_[link]) for list order batch_ver_ (VL 0 of
  // a single-VL routing); the current search uses them where batch_vls_ (bit 0) is set
  std::vector<int8_t> tbit_;
  std::vector<int> batch_targets_;
  std::vector<uint64_t> gsets_, acc_;
  uint64_t batch_ver_ = ~0ULL, miss_ver_ = ~0ULL;
  uint16_t batch_vls_ = 0;
  std::vector<Lid> lid_order_;       // the LIDs run() repairs, in order; lid_next_: after the current
  std::vector<int> lid_switch_;      // by index in lid_order_: the switch owning the LID, or -1
  size_t lid_next_ = 0;
  std::vector<int32_t> in_pos_;      // by index into DqrTables::sw_in: see mark_good()
  std::vector<uint64_t> in_pos_ver_; // by node: list order version and layer in_pos_ holds
  std::vector<Dep> join_deps_;            // scratch of joins_up
  uint64_t search_states_ = 0;            // states popped by the searches (DqrResult::search_states)
  uint64_t joint_refusals_ = 0;           // DqrResult::joint_refusals
  uint64_t commit_refusals_ = 0;          // DqrResult::commit_refusals
};

// Transition stages (DqrResult::changes): idle entries after every other, then by stage, LID,
// switch. staging.cpp.
void order_transition(std::vector<LftChange>& changes);

}  // namespace ftroute::dqr_detail
