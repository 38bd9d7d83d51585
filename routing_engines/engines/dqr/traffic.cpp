// DQR traffic: the sources, which switches route to the LID being repaired, and the VL masks
// of its traffic (old routing + committed new paths).
#include "reconfigurer.hpp"

#include "ftroute/route_walk.hpp"

namespace ftroute::dqr_detail {

void Reconfigurer::collect_sources() {
  cas_at_.assign(static_cast<size_t>(before_.size()), 0);
  sources_.reserve(tables_->end_sources.size());
  for (const DqrTables::EndSource& e : tables_->end_sources) {
    if (e.port == 0) {
      if (o_.switch_sources) sources_.push_back({e.lid, e.node, 0, e.node, 0});
      continue;
    }
    // the CA port is still linked unless its switch's side changed (links are symmetric)
    if (port_changed_[static_cast<size_t>(link(e.sw, e.in_port))] && !after_.node(e.node).port(e.port).connected()) continue;
    sources_.push_back({e.lid, e.node, e.port, e.sw, e.in_port});
    cas_at_[static_cast<size_t>(e.sw)]++;
  }
}

bool Reconfigurer::reaches(const Dest& D, int s) {
  // by column slot (switches only, any other node is the slot that is always kNoPath):
  // rmemo_[y].val: 1 ok, 2 broken, 3 on the current walk (valid while .gen == rg_, and for 2
  // and 3 while .bgen == rbg_)
  const uint32_t ts = static_cast<uint32_t>(slot(D.t));
  uint32_t y = static_cast<uint32_t>(slot(s));
  int8_t verdict = 2;
  int base = 0;     // hops to d from the switch after the last one on the stack
  int32_t last = -1;  // the link the route enters d's switch by (for the stack's switches but d's)
  auto link_from = [&](uint32_t x) { return slot_info_[x].port_base + col_[x]; };
  rstack_.clear();
  while (true) {
    RouteMemo& m = rmemo_[y];
    if (m.gen == rg_ && (m.val == 1 || m.bgen == rbg_)) {
      verdict = m.val == 3 ? 2 : m.val;  // 3: loop
      if (verdict == 1) {
        base = m.hops;
        last = y == ts ? (rstack_.empty() ? -1 : link_from(static_cast<uint32_t>(rstack_.back()))) : m.last;
      }
      break;
    }
    m.gen = rg_, m.bgen = rbg_;
    m.val = 3;
    rstack_.push_back(static_cast<int>(y));
    const uint8_t q = col_[y];
    if (y == ts) {
      verdict = (q == D.tport) ? 1 : 2, base = -1;
      if (rstack_.size() >= 2) last = link_from(static_cast<uint32_t>(rstack_[rstack_.size() - 2]));
      break;
    }
    const SlotInfo& si = slot_info_[y];
    if (q == 0 || q > si.nports) { verdict = 2; break; }
    const uint16_t nx = next_slot_[static_cast<size_t>(si.port_base + q)];
    if (nx == kNoSlot) { verdict = 2; break; }
    y = nx;
  }
  for (size_t i = 0; i < rstack_.size(); i++) {
    RouteMemo& m = rmemo_[static_cast<size_t>(rstack_[i])];
    m.val = verdict;
    m.hops = base + static_cast<int>(rstack_.size() - i);
    m.last = static_cast<uint32_t>(rstack_[i]) == ts ? -1 : last;
  }
  return verdict == 1;
}

// Traffic towards d under the old routing: which VLs leave every switch (links still alive).
void Reconfigurer::mark_traffic(const Dest& D) {
  if (++mg_ == 0) {
    std::fill(mgen_.begin(), mgen_.end(), 0);
    std::fill(taint_.begin(), taint_.end(), 0);
    std::fill(omgen_.begin(), omgen_.end(), 0);
    std::fill(ref_omgen_.begin(), ref_omgen_.end(), 0);
    mg_ = 1;
  }
  if (single_vl_) {  // lazy, see mask()
    // The precomputed traffic of the old routing holds wherever no old route from a failed
    // link's far end passes: mark those switches (the only ones whose traffic the fault can
    // have cut off).
    if (fast_traffic_)
      for (auto [s, p] : dead_ports_) {
        if (old(s) != p) continue;
        for (int y = old_next_switch(s, p), hops = 0; y >= 0 && taint_[static_cast<size_t>(y)] != mg_ && hops <= before_.size(); hops++) {
          taint_[static_cast<size_t>(y)] = mg_;
          if (y == D.t) break;
          y = old_next_switch(y, old(y));
        }
      }
    return;
  }
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
    // the working column's route (walk_path: one hop decoding, one loop bound); a switch that
    // already carries this VL stops the walk, so does the destination switch
    walk_path_by(before_, [&](int x) { return cur(x); }, y, -1, 0, [&](int x, const RouteHop& h) {
      if (mask_[static_cast<size_t>(x)] & bit) return false;
      mask_[static_cast<size_t>(x)] |= bit;
      if (x == D.t || h.kind != RouteHop::Forward || dead(x, h.port)) return false;
      const int vl2 = r_.sl2vl.vl(x, in_port, h.port, sl);
      if (vl2 != vl)
        throw EngineError("dqr", "the routing changes VL along a path (at " + before_.port_name(x, h.port) + ", VL " +
                                     std::to_string(vl) + " -> " + std::to_string(vl2) +
                                     "): DQR needs virtual layers (one VL per path)");
      in_port = static_cast<uint8_t>(h.next_port);
      return true;
    });
  }
}

// Traffic for d leaving u in the old routing (after the fault), single VL: u has a source of its
// own (not d's switch), or a switch whose old entry leads to u over a working link has traffic.
// The precomputed table answers wherever no old route from a failed link's far end passes
// (taint_); elsewhere the recursion, memoised per LID.
uint16_t Reconfigurer::old_mask(const Dest& D, int u, bool use_table) {
  if (omgen_[static_cast<size_t>(u)] == mg_) return omask_[static_cast<size_t>(u)];
  omgen_[static_cast<size_t>(u)] = mg_;
  omask_[static_cast<size_t>(u)] = 0;
  uint16_t m = 0;
  if ((o_.switch_sources || !src_at(u).empty()) && u != D.t) {
    m = 1;
  } else if (use_table && fast_traffic_ && taint_[static_cast<size_t>(u)] != mg_) {
    m = tables_->carries(u, D.d) ? 1 : 0;
  } else {
    for (auto [x, xp] : sw_in(u))  // switch x, its port towards u
      if (old(x) == xp && !dead(x, xp) && old_mask(D, x, use_table)) {
        m = 1;
        break;
      }
  }
  omask_[static_cast<size_t>(u)] = m;
  return m;
}

uint16_t Reconfigurer::mask(const Dest& D, int u) {
  if (mgen_[static_cast<size_t>(u)] == mg_) return mask_[static_cast<size_t>(u)];
  mgen_[static_cast<size_t>(u)] = mg_;
  mask_[static_cast<size_t>(u)] = old_mask(D, u, true);
  if (o_.cross_check) {  // the table against the recursion alone (its own memo)
    std::swap(omask_, ref_omask_), std::swap(omgen_, ref_omgen_);
    const uint16_t r = old_mask(D, u, false);
    std::swap(omask_, ref_omask_), std::swap(omgen_, ref_omgen_);
    if (r != mask_[static_cast<size_t>(u)])
      throw Error("dqr cross-check: old traffic for LID " + std::to_string(D.d) + " at " + after_.node_name(u) + ": table " +
                  std::to_string(mask_[static_cast<size_t>(u)]) + ", recursion " + std::to_string(r));
  }
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

}  // namespace ftroute::dqr_detail
