// flitsim switch allocators (inline, included by sim.cpp): request feasibility, the factory
// allocator_for(Config::allocator) and the two allocators (separable input-first, iSLIP), and
// allocate_switch(), which collects a switch's feasible requests and runs the chosen one.
#pragma once

#include "sim_impl.hpp"

namespace ftroute::flitsim {

// Is the request of input VC id r feasible right now?
inline bool Simulator::Impl::feasible(uint32_t r) {
  int c = static_cast<int>(r / V), v = static_cast<int>(r % V);
  InVC& q = ivc[r];
  if (q.state != kWaiting) return false;
  if (bsm)  // VC allocation only: a free VC of the class; credits are for switch allocation
    return ch[q.out_ch].alive && free_vc(q.out_ch, q.out_vc, va_rr[static_cast<size_t>(q.out_ch)]) >= 0;
  const Channel& in = ch[c];
  int oc = q.out_ch;
  if (!ch[oc].alive || ovc_conn[static_cast<size_t>(oc) * V + q.out_vc] >= 0) return false;
  if (!wh && (in.in_conn >= 0 || ch[oc].out_conn >= 0)) return false;
  Entry& e = q.front();
  if (!credits_ok(oc, q.out_vc, e.size - e.departed)) return false;
  if (cfg.nac) {
    if (!q.dab_full) {
      bool origin = q.nac_run >= 0 && !runs[q.nac_run].confirmed;  // stop_st stops the *other* inputs
      if (!origin && stopped_st[static_cast<size_t>(oc) * V + q.out_vc]) return false;
      const SwitchState& s = sws[in.dst_sw];
      if (in.src_ep >= 0 && (s.stopped_fw > 0 || s.dab_count > 0)) return false;
    }
    if (in.src_ep >= 0 &&
        credits[static_cast<size_t>(oc) * V + q.out_vc] - nac_rsv[static_cast<size_t>(oc) * V + q.out_vc] < e.size)
      return false;
  }
  (void)v;
  return true;
}

inline Simulator::Impl::AllocStep Simulator::Impl::allocator_for(Allocator a) {
  return a == Allocator::Separable ? &Impl::alloc_separable : &Impl::alloc_islip;
}

// distance from a round-robin pointer (0 <= x < mod, 0 <= ptr <= mod); no division: the
// comparators run O(n log n) times per allocation
inline int Simulator::Impl::rr_dist(int x, int ptr, int mod) {
  int d = x - ptr;
  return d < 0 ? d + mod : d;
}

// Separable input-first allocator: one VC per input port, then one input per output.
inline void Simulator::Impl::alloc_separable() {
  const int P = kAllocPorts, VV = V;
  // input stage: one VC per input port (DAB first, then round-robin from in_rr)
  std::sort(cands.begin(), cands.end(), [&](const Cand& a, const Cand& b) {
    if (a.in_port != b.in_port) return a.in_port < b.in_port;
    if (a.dab != b.dab) return a.dab;
    int ca = static_cast<int>(a.r / VV), cb = static_cast<int>(b.r / VV);
    return rr_dist(static_cast<int>(a.r % VV), ch[ca].in_rr, VV) < rr_dist(static_cast<int>(b.r % VV), ch[cb].in_rr, VV);
  });
  chosen.clear();
  for (size_t i = 0; i < cands.size(); i++)
    if (i == 0 || cands[i].in_port != cands[i - 1].in_port) chosen.push_back(cands[i]);
  // output stage: one input per output (DAB first, then round-robin from out_rr)
  std::sort(chosen.begin(), chosen.end(), [&](const Cand& a, const Cand& b) {
    if (a.oc != b.oc) return a.oc < b.oc;
    if (a.dab != b.dab) return a.dab;
    return rr_dist(a.in_port, ch[a.oc].out_rr, P) < rr_dist(b.in_port, ch[b.oc].out_rr, P);
  });
  for (size_t i = 0; i < chosen.size(); i++) {
    if (i > 0 && chosen[i].oc == chosen[i - 1].oc) continue;
    const Cand& g = chosen[i];
    int c = static_cast<int>(g.r / VV), v = static_cast<int>(g.r % VV);
    ch[g.oc].out_rr = static_cast<uint16_t>(g.in_port + 1);
    ch[c].in_rr = static_cast<uint16_t>(v + 1);
    grant(c, v);
  }
}

// iSLIP (cfg.islip_iterations rounds): each output grants one request, each input port accepts
// one grant.
inline void Simulator::Impl::alloc_islip() {
  const int P = kAllocPorts, VV = V;
  // iSLIP: requests per (input port, output); grant by output pointer; accept by input pointer
  for (int it = 0; it < cfg.islip_iterations; it++) {
    if (it > 0) {
      size_t k = 0;
      for (auto& x : cands)
        if (feasible(x.r)) cands[k++] = x;
      cands.resize(k);
      if (cands.empty()) break;
    }
    // grant: for each output pick one candidate
    std::sort(cands.begin(), cands.end(), [&](const Cand& a, const Cand& b) {
      if (a.oc != b.oc) return a.oc < b.oc;
      if (a.dab != b.dab) return a.dab;
      int da = rr_dist(a.in_port, ch[a.oc].out_rr, P), db = rr_dist(b.in_port, ch[b.oc].out_rr, P);
      if (da != db) return da < db;
      int ca = static_cast<int>(a.r / VV), cb = static_cast<int>(b.r / VV);
      return rr_dist(static_cast<int>(a.r % VV), ch[ca].in_rr, VV) < rr_dist(static_cast<int>(b.r % VV), ch[cb].in_rr, VV);
    });
    chosen.clear();
    for (size_t i = 0; i < cands.size(); i++)
      if (i == 0 || cands[i].oc != cands[i - 1].oc) chosen.push_back(cands[i]);
    // accept: each input port picks one grant (DAB first, then accept pointer)
    std::sort(chosen.begin(), chosen.end(), [&](const Cand& a, const Cand& b) {
      if (a.in_port != b.in_port) return a.in_port < b.in_port;
      if (a.dab != b.dab) return a.dab;
      int ca = static_cast<int>(a.r / VV);
      return rr_dist(a.out_port, ch[ca].acc_rr, P) < rr_dist(b.out_port, ch[ca].acc_rr, P);
    });
    for (size_t i = 0; i < chosen.size(); i++) {
      if (i > 0 && chosen[i].in_port == chosen[i - 1].in_port) continue;
      const Cand& g = chosen[i];
      int c = static_cast<int>(g.r / VV), v = static_cast<int>(g.r % VV);
      if (it == 0) {
        ch[g.oc].out_rr = static_cast<uint16_t>(g.in_port + 1);
        ch[c].acc_rr = static_cast<uint16_t>(g.out_port + 1);
      }
      ch[c].in_rr = static_cast<uint16_t>(v + 1);
      grant(c, v);
    }
  }
}

inline void Simulator::Impl::allocate_switch(int s) {
  SwitchState& S = sws[s];
  S.dirty = false;
  // compact: keep only waiting requests
  size_t w = 0;
  for (uint32_t r : S.req) {
    if (ivc[r].state == kWaiting) S.req[w++] = r;
    else ivc[r].in_req = false;
  }
  S.req.resize(w);
  if (S.req.empty()) return;
  cands.clear();
  for (uint32_t r : S.req)
    if (feasible(r)) {
      int c = static_cast<int>(r / V);
      InVC& q = ivc[r];
      cands.push_back({r, ch[c].dst_port, ch[q.out_ch].src_port, q.out_ch, q.dab_full});
    }
  if (cands.empty()) return;
  (this->*alloc_step)();  // the allocator chosen by allocator_for(cfg.allocator)
  // A request that lost arbitration but is still feasible (e.g. its input port picked another
  // VC whose output went elsewhere) is retried next cycle, as a router's allocator runs every
  // cycle. Without this it would wait for an unrelated event to wake the switch.
  // (Requests that were not candidates were infeasible, and grants only take resources.)
  for (const Cand& x : cands)
    if (feasible(x.r)) {
      retry_sw.push_back(s);
      break;
    }
}

}  // namespace ftroute::flitsim
