// FT-DRB source-side metapath state for flitsim (LidPolicy::FtDrb), seed 000 (Zarza 2011)
// sections 3.3-3.5 (metapath, latency-weighted MSP choice, eqs 3.5-3.8) and 3.6 (fault
// notification, fault list, probing). One MSP = one LMC LID of the destination (the `ftdrb`
// routing engine gives offset 0 the base path and offsets 1.. paths through intermediate
// switches). The source learns the path of every MSP by walking the LFTs, which is what a
// host could do with SA PathRecord/LFT queries; the simulator uses the routing it replays.
// Defaults and the exact rules are documented in docs/ftdrb.md ("Simulator side").
#include "ftdrb_select.hpp"

#include <algorithm>

#include "ftroute/route_walk.hpp"

namespace ftroute::flitsim {

uint64_t FtDrbSelector::link_key(int node, int port) const {
  const Port& p = f_.node(node).port(port);
  uint64_t a = (static_cast<uint64_t>(node) << 8) | static_cast<uint64_t>(port);
  if (!p.connected()) return a;
  uint64_t b = (static_cast<uint64_t>(p.peer_node) << 8) | p.peer_port;
  return std::min(a, b);  // both directions of a link share one key: a failure kills both
}

void FtDrbSelector::walk(const Routing& r, int src_node, int src_port, Lid dlid, Msp& m) const {
  m.links.clear();
  m.path_ok = false;
  const Port& sp = f_.node(src_node).port(src_port);
  if (!sp.connected()) return;
  m.links.push_back(link_key(src_node, src_port));
  const int first = sp.peer_node;
  if (!f_.node(first).is_switch()) {
    m.path_ok = true;
    return;
  }
  // A path reaches a CA after at most hop_limit switches (links recorded for hop_limit + 1 of
  // them; walk_path's own bound catches loops); any CA counts (the owner is not checked) and
  // port 0 is no path.
  int visited = 0;
  const PathWalk w = walk_path(f_, r.lfts, first, dlid, -1, 0, [&](int cur, const RouteHop& h) {
    if (++visited > cfg_.hop_limit + 1 || h.port == 0 || h.kind == RouteHop::Dropped) return false;
    m.links.push_back(link_key(cur, h.port));
    return true;
  });
  m.path_ok = w.end == PathWalk::Delivered && w.switches <= cfg_.hop_limit;
}

bool FtDrbSelector::faulty(const SrcState& s, const Msp& m, bool* permanent) const {
  bool any = false;
  if (permanent) *permanent = false;
  for (uint64_t k : m.links) {
    auto it = s.faults.find(k);
    if (it == s.faults.end() || !it->second.faulty) continue;
    any = true;
    if (permanent && it->second.permanent) *permanent = true;
  }
  return any;
}

FtDrbSelector::Choice FtDrbSelector::choose(const Routing& r, int src, int dst, int src_node, int src_port,
                                            Lid dst_base, uint32_t nl, double u) {
  SrcState& s = src_[src];
  MetaPath& m = s.mp[dst];
  if (m.msp.size() != nl) m.msp.assign(nl, Msp{}), m.size = 1, m.gen = ~0ull;
  if (m.gen != gen_) {
    for (uint32_t i = 0; i < nl; i++) walk(r, src_node, src_port, static_cast<Lid>(dst_base + i), m.msp[i]);
    m.gen = gen_;
  }
  m.msgs++;
  std::vector<uint32_t> healthy, probe_cand;
  for (uint32_t i = 0; i < nl; i++) {
    if (!m.msp[i].path_ok) continue;
    bool perm = false;
    if (!faulty(s, m.msp[i], &perm)) healthy.push_back(i);
    else if (!perm) probe_cand.push_back(i);
  }
  Choice c;
  if (!probe_cand.empty() && cfg_.ftdrb_probe_every > 0 &&
      m.msgs % static_cast<uint64_t>(cfg_.ftdrb_probe_every) == 0) {
    c.offset = probe_cand[m.probe_rr++ % probe_cand.size()];
    c.probe = true;
    probes++;
    return c;
  }
  if (healthy.empty()) return c;  // every MSP faulty: the base LID (nothing better is known)
  size_t k = std::min<size_t>(std::max<uint32_t>(m.size, 1), healthy.size());
  // Eqs 3.5-3.8: P(i) = (1/L_i) / sum_j (1/L_j) over the active MSPs, sampled via the CDF.
  // An MSP without a latency sample yet counts as the fastest known one (so it gets tried).
  double known = 0;
  for (size_t j = 0; j < k; j++) {
    double l = m.msp[healthy[j]].lat;
    if (l > 0 && (known == 0 || l < known)) known = l;
  }
  if (known == 0) known = 1;
  std::vector<double> w(k);
  double sum = 0;
  for (size_t j = 0; j < k; j++) {
    double l = m.msp[healthy[j]].lat;
    w[j] = 1.0 / (l > 0 ? l : known);
    sum += w[j];
  }
  double x = u * sum, acc = 0;
  c.offset = healthy[k - 1];
  for (size_t j = 0; j < k; j++) {
    acc += w[j];
    if (x < acc) {
      c.offset = healthy[j];
      break;
    }
  }
  return c;
}

void FtDrbSelector::delivered(int src, int dst, uint32_t off, bool probe, int64_t net_latency) {
  auto si = src_.find(src);
  if (si == src_.end()) return;
  SrcState& s = si->second;
  auto mi = s.mp.find(dst);
  if (mi == s.mp.end() || off >= mi->second.msp.size()) return;
  MetaPath& m = mi->second;
  Msp& x = m.msp[off];
  double l = static_cast<double>(std::max<int64_t>(net_latency, 1));
  x.lat = x.lat > 0 ? (1 - cfg_.ftdrb_ewma) * x.lat + cfg_.ftdrb_ewma * l : l;
  if (probe) {  // a delivered probe proves the path: its links' (transient) faults are cleared
    probes_delivered++;
    for (uint64_t k : x.links) {
      auto it = s.faults.find(k);
      if (it != s.faults.end() && !it->second.permanent) it->second.faulty = false;
    }
  }
  // Metapath size: mean EWMA latency of the active healthy MSPs against Thl +- Tol.
  double sum = 0;
  int n = 0, seen = 0, healthy = 0;
  for (size_t i = 0; i < m.msp.size() && seen < static_cast<int>(m.size); i++) {
    if (!m.msp[i].path_ok || faulty(s, m.msp[i])) continue;
    seen++;
    if (m.msp[i].lat > 0) sum += m.msp[i].lat, n++;
  }
  for (auto& y : m.msp) healthy += y.path_ok && !faulty(s, y);
  if (n == 0) return;
  double L = sum / n;
  if (L > cfg_.ftdrb_thl + cfg_.ftdrb_tol && static_cast<int>(m.size) < healthy) m.size++, grows++;
  else if (L < cfg_.ftdrb_thl - cfg_.ftdrb_tol && m.size > 1) m.size--, shrinks++;
}

void FtDrbSelector::notify_broadcast(int src, int node, int port, int64_t now) {
  LinkFault& lf = src_[src].faults[link_key(node, port)];
  notifications++;
  if (lf.faulty) return;
  lf.faulty = true, lf.since = now;
  if (++lf.count >= cfg_.ftdrb_permanent_after && !lf.permanent) lf.permanent = true, permanent++;
}

void FtDrbSelector::notify(int src, int node, int port, int64_t sent, bool probe, int64_t now) {
  SrcState& s = src_[src];
  LinkFault& lf = s.faults[link_key(node, port)];
  notifications++;
  // A notification for a message sent before the source marked the link is stale (it was
  // already in flight) and does not count; one for a message sent later (a probe) does.
  if (lf.faulty && sent < lf.since) return;
  if (lf.faulty && !probe) late_drops++;
  lf.count++;
  if (!lf.faulty) lf.faulty = true, lf.since = now;
  if (!lf.permanent && lf.count >= cfg_.ftdrb_permanent_after) lf.permanent = true, permanent++;
}

}  // namespace ftroute::flitsim
