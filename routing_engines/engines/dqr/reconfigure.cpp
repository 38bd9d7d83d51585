// DQR reconfiguration of one fault set: Reconfigurer::run() over every LID routed into a failed
// link, dqr_reconfigure() and dqr_routing(). See ftroute/dqr/dqr.hpp and docs/dqr.md.
#include "reconfigurer.hpp"

#include "ftroute/route_walk.hpp"

namespace ftroute::dqr_detail {

DqrResult Reconfigurer::run() {
  auto t0 = std::chrono::steady_clock::now();
  if (before_.size() != after_.size())
    throw EngineError("dqr", "fabric changed its node set (" + std::to_string(before_.size()) + " -> " +
                                 std::to_string(after_.size()) + " nodes): DQR only handles removed links");
  DqrResult res;
  tables_ = o_.tables ? o_.tables : dqr_tables(before_, r_);
  if (tables_->nodes != before_.size() || tables_->max_lid < before_.max_lid() ||
      tables_->nports.size() != static_cast<size_t>(before_.size()) || tables_->type.size() != tables_->nports.size() ||
      tables_->slot.size() != static_cast<size_t>(before_.size()) ||
      tables_->stride != static_cast<int>(before_.switches().size()) + 1)
    throw Error("dqr: precomputed tables do not describe this fabric");
  // `before` as the tables describe it against `after`, node by node in memory order
  for (int i = 0; i < before_.size(); i++) {
    const Node& a = after_.node(i);
    const int np = tables_->nports[static_cast<size_t>(i)];
    if (np != a.num_ports || tables_->type[static_cast<size_t>(i)] != a.type) {
      const Node& b = before_.node(i);
      if (b.num_ports != a.num_ports || b.type != a.type)
        throw EngineError("dqr", "node " + after_.node_name(i) + " changed type or port count");
      throw Error("dqr: precomputed tables do not describe this fabric (ports of " + before_.node_name(i) + ")");
    }
  }
  res.entries_total = tables_->entries_total;
  {
    const std::vector<EndPort>& eb = before_.end_ports();
    const std::vector<EndPort>& ea = after_.end_ports();
    same_lids_ = eb.size() == ea.size();
    for (size_t i = 0; same_lids_ && i < eb.size(); i++)
      same_lids_ = eb[i].node == ea[i].node && eb[i].port == ea[i].port && eb[i].base_lid == ea[i].base_lid && eb[i].lmc == ea[i].lmc;
  }
  node_.resize(static_cast<size_t>(before_.size()));
  for (size_t i = 0; i < node_.size(); i++)
    node_[i] = {tables_->port_base[i], tables_->nports[i], tables_->slot[i]};
  // The links of `after`: failed switch links (dead_ports_; dead() = a port of `before` that is
  // gone or leads elsewhere), where every switch port leads now, and the switch ports whose
  // link changed (port_changed_: a CA behind one may have lost its link).
  next_sw_.assign(static_cast<size_t>(tables_->num_links()), -1);
  port_changed_.assign(static_cast<size_t>(tables_->num_links()), 0);
  port_dead_.assign(static_cast<size_t>(tables_->num_links()), 0);
  bool added = false;  // a switch link of `after` that `before` does not have
  for (int y : after_.switches()) {
    const Node& n = after_.node(y);
    for (int q = 1; q <= n.num_ports; q++) {
      const size_t l = static_cast<size_t>(link(y, q));
      const Port& p = n.port(q);
      const int bp = tables_->peer[l];
      if (bp >= 0 && (!p.connected() || p.peer_node != bp || p.peer_port != tables_->peer_port[l])) {  // dead(y, q)
        port_changed_[l] = port_dead_[l] = 1;
        if (before_.node(bp).is_switch()) dead_ports_.push_back({y, static_cast<uint8_t>(q)}), res.failed_channels++;
        continue;
      }
      if (!p.connected()) continue;
      if (bp >= 0 ? tables_->next_sw[l] < 0 : !after_.node(p.peer_node).is_switch()) continue;  // not to a switch
      if (bp < 0) added = true, port_changed_[l] = 1;  // a new link: usable
      next_sw_[l] = p.peer_node;
    }
  }
  // Second attempt (dqr_reconfigure): a failed link's channels can be part of no deadlock
  // (nothing enters them; what waits for them is discarded), so their dependencies leave the
  // list before any path is searched and the old routes through the fault no longer hold turns
  // against the repairs (docs/dqr.md, "Reconfiguration" step 1).
  if (drop_failed_)
    for (auto [y, q] : dead_ports_)
      for (int vl = 0; vl < kNumVlSlots; vl++) list_.drop_dependencies_of(ch(y, q, vl));
  dist_ok_ = !tables_->sw_dist.empty() && !added && dead_ports_.size() <= 64;
  spw_gen_.assign(static_cast<size_t>(after_.size()), 0);
  spw_val_.assign(static_cast<size_t>(after_.size()), 0);
  near_gen_.assign(static_cast<size_t>(after_.size()), 0);
  near_d_.assign(static_cast<size_t>(after_.size()), 0);
  collect_sources();
  single_vl_ = !r_.path_sl && r_.sl2vl.empty();
  rmemo_.assign(static_cast<size_t>(tables_->stride), {});
  // reaches()'s view of `after` in column slots (16 bits: every switch has a LID)
  slot_info_.assign(static_cast<size_t>(tables_->stride), {});
  next_slot_.assign(static_cast<size_t>(tables_->num_links()), kNoSlot);
  if (tables_->stride > kNoSlot) throw Error("dqr: more switches than LIDs (" + std::to_string(tables_->stride - 1) + ")");
  for (int y : after_.switches()) {
    const NodeInfo& n = node_[static_cast<size_t>(y)];
    slot_info_[static_cast<size_t>(n.slot)] = {n.port_base, n.nports};
    for (int q = 1; q <= n.nports; q++) {
      const int z = next_sw_[static_cast<size_t>(n.port_base + q)];
      if (z >= 0) next_slot_[static_cast<size_t>(n.port_base + q)] = static_cast<uint16_t>(node_[static_cast<size_t>(z)].slot);
    }
  }
  aff_.assign(static_cast<size_t>(after_.size()), 0);
  idle_.assign(static_cast<size_t>(after_.size()), 0);
  depth_.assign(static_cast<size_t>(after_.size()), 0);
  dgen_.assign(static_cast<size_t>(after_.size()), 0);
  mask_.assign(static_cast<size_t>(after_.size()), 0);
  mgen_.assign(static_cast<size_t>(after_.size()), 0);
  taint_.assign(static_cast<size_t>(after_.size()), 0);
  chg_gen_.assign(static_cast<size_t>(after_.size()), 0);
  chg_at_.assign(static_cast<size_t>(after_.size()), 0);
  omask_.assign(static_cast<size_t>(after_.size()), 0);
  omgen_.assign(static_cast<size_t>(after_.size()), 0);
  ref_omask_.assign(static_cast<size_t>(after_.size()), 0);
  ref_omgen_.assign(static_cast<size_t>(after_.size()), 0);
  {
    uint64_t ca_sources = 0;
    for (const Source& s : sources_)
      if (s.port != 0) ca_sources++;
    fast_traffic_ = single_vl_ && !o_.switch_sources && ca_sources == tables_->ca_sources && !tables_->traffic.empty();
  }
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
    if (s.port != 0) ca_lids++;  // a CA port (a switch's own LID has port 0)
  res.flows_total = ca_lids * (ca_lids > 0 ? ca_lids - 1 : 0);
  const uint64_t moved0 = list_.channels_moved(), en0 = list_.turns_enabled();
  if (!dead_ports_.empty() && (o_.mesh_plugin || o_.tlr)) {
    std::set<std::pair<int, int>> detoured;
    if (o_.mesh_plugin) detoured = apply_mesh_plugin(res);
    // tlr; with the plug-in (mesh-tlr) only for the failed channels it could not detour
    if (o_.tlr) apply_local_reroutes(res, detoured);
  }
  bool ok = true;
  if (o_.connect) {
    // every destination LID with a switch whose entry leads nowhere: repair() takes each
    // switch that has no route to it as affected
    for (const EndPort& ep : before_.end_ports())
      for (Lid d = ep.base_lid; d <= ep.last_lid(); d++) {
        const Attach at = before_.attach(d);
        if (!at.valid()) continue;
        bool missing = false;
        for (int s : before_.switches())
          if (s != at.sw && !missing) {
            const uint8_t q = r_.lfts.get(s, d);
            missing = no_port(s, q) || !before_.node(s).port(q).connected();
          }
        if (missing) {
          lid_order_.push_back(d);
          lid_switch_.push_back(before_.node(ep.node).is_switch() ? ep.node : -1);
        }
      }
    for (size_t i = 0; i < lid_order_.size(); i++) {
      lid_next_ = i + 1;
      if (!repair(lid_order_[i], res)) ok = false;
    }
  } else if (!dead_ports_.empty()) {
    // quick test: the LIDs some near end of a failed link forwards into it (its LFT row)
    std::vector<uint8_t> hit(static_cast<size_t>(before_.max_lid()) + 1, 0);
    for (auto [s, p] : dead_ports_) {
      const std::vector<uint8_t>& row = r_.lfts.table(s);
      for (size_t d = 1; d < row.size() && d < hit.size(); d++) hit[d] |= row[d] == p;
    }
    for (const EndPort& ep : before_.end_ports())
      for (Lid d = ep.base_lid; d <= ep.last_lid(); d++)
        if (hit[d]) {
          lid_order_.push_back(d);
          lid_switch_.push_back(before_.node(ep.node).is_switch() ? ep.node : -1);
        }
    for (size_t i = 0; i < lid_order_.size(); i++) {
      lid_next_ = i + 1;
      if (!repair(lid_order_[i], res)) ok = false;
    }
  }
  std::vector<LftChange> ch;
  for (const LftChange& c : changes_)
    if (c.old_port != c.new_port) ch.push_back(c);
  Lfts patched;
  if (o_.patched_tables && ok) {
    patched = r_.lfts;
    for (const LftChange& c : ch) patched.set(c.sw, c.lid, c.new_port);
  }
  order_transition(ch);  // DqrResult::changes (stages computed per LID in repair: stage_changes)
  res.changes = std::move(ch);
  res.entries_changed = res.changes.size();
  res.turns_enabled = list_.turns_enabled() - en0;
  res.channels_moved = list_.channels_moved() - moved0;
  res.search_states = search_states_;
  res.joint_refusals = joint_refusals_;
  res.commit_refusals = commit_refusals_;
  res.ok = ok;
  if (o_.patched_tables) res.lfts = ok ? std::move(patched) : r_.lfts;
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

}  // namespace ftroute::dqr_detail

namespace ftroute {

DqrResult dqr_reconfigure(ChannelList& list, const Fabric& before, const Fabric& after, const Routing& old_routing,
                          const DqrOptions& options) {
  // First in the flows' own layers with the failed links' dependencies in the list: they keep
  // the repairs local (without them a ring the fault cut is an acyclic path, and the search may
  // send whole destinations round it, which later destinations then cannot cross). If that
  // fails, its dependencies are taken back and the repair runs again without the failed links'
  // ones; with layers=all, a third attempt may then also move flows to other layers (so layers
  // move only where no repair in the own layers exists either way).
  DqrOptions own = options;
  own.layers = DqrOptions::Layers::Same;
  struct Attempt {
    const DqrOptions* o;
    bool drop;
  };
  std::vector<Attempt> attempts{{&own, false}, {&own, true}};
  if (options.layers == DqrOptions::Layers::All) attempts.push_back({&options, true});
  DqrResult res;
  std::vector<std::string> first_failures;  // why the first attempt failed
  for (size_t i = 0; i < attempts.size(); i++) {
    list.begin_journal();
    DqrResult r = dqr_detail::Reconfigurer(list, before, after, old_routing, *attempts[i].o, attempts[i].drop).run();
    std::vector<ChannelList::Dep> added = list.end_journal();
    if (i == 0) {
      if (r.ok || r.failed_channels == 0) return r;
      first_failures = r.failures;
    } else {
      r.seconds += res.seconds;
      r.search_states += res.search_states;
      r.joint_refusals += res.joint_refusals;
      r.commit_refusals += res.commit_refusals;
      r.dropped_failed_deps = true;
    }
    res = std::move(r);
    if (res.ok) break;
    if (i + 1 < attempts.size()) list.drop_dependencies(added);  // undone: the next attempt starts clean
  }
  if (res.ok)
    res.notes.push_back("repaired without the failed links' dependencies in the list (with them: " +
                        (first_failures.empty() ? std::string("unknown") : first_failures.front()) + ")");
  else
    res.failures.insert(res.failures.begin(), first_failures.begin(), first_failures.end());
  return res;
}

size_t dqr_strip_switch_paths(const Fabric& fabric, Routing& routing) {
  size_t removed = 0;
  std::vector<int> with_cas;  // the switches CAs attach to (a CA's route to d is its switch's)
  std::vector<char> on(static_cast<size_t>(fabric.size()), 0);
  for (int c : fabric.cas()) {
    const Node& n = fabric.node(c);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (x.connected() && fabric.node(x.peer_node).is_switch() && !on[static_cast<size_t>(x.peer_node)])
        on[static_cast<size_t>(x.peer_node)] = 1, with_cas.push_back(x.peer_node);
    }
  }
  for (const EndPort& ep : fabric.end_ports()) {
    if (!fabric.node(ep.node).is_switch()) continue;
    for (Lid d = ep.base_lid; d <= ep.last_lid(); d++) {
      std::fill(on.begin(), on.end(), 0);
      on[static_cast<size_t>(ep.node)] = 1;
      for (int sw : with_cas)  // the switches on every CA's route to d
        walk_path(fabric, routing.lfts, sw, d, -1, 0, [&](int y, const RouteHop&) {
          on[static_cast<size_t>(y)] = 1;
          return true;
        });
      for (int s : fabric.switches())
        if (!on[static_cast<size_t>(s)] && routing.lfts.get(s, d) != kNoPath) routing.lfts.set(s, d, kNoPath), removed++;
    }
  }
  return removed;
}

void dqr_apply(Lfts& lfts, const DqrResult& res) {
  if (!res.ok) return;
  for (const LftChange& c : res.changes) lfts.set(c.sw, c.lid, c.new_port);
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

}  // namespace ftroute
