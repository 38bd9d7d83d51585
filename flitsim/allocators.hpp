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

// BookSim model, Config::va_per_vc: VC allocation as BookSim2's VC allocator does it, iSLIP with
// input VCs as requesters and output VCs as resources (cfg.islip_iterations rounds). Every
// candidate input VC requests each free VC of its class on its output channel; each output VC
// grants the requester next at or after its pointer (in_port * V + vc); each input VC accepts,
// of its grants, the output VC next at or after its pointer (out_port * V + vc); pointers move
// on accepts of the first round. Several VCs of one output or input port may so be granted in a
// cycle (the per-port allocators above grant one).
inline void Simulator::Impl::alloc_va_vc() {
  const int VV = V, M = kAllocPorts * V;
  va_req.clear();
  for (uint32_t i = 0; i < cands.size(); i++) {
    const Cand& x = cands[i];
    const InVC& q = ivc[x.r];
    const int blk = class_vcs(x.oc);
    const int32_t in_idx = x.in_port * VV + static_cast<int32_t>(x.r % static_cast<uint32_t>(VV));
    for (int j = 0; j < blk; j++) {
      const int ov = q.out_vc + j;
      const int32_t o = x.oc * VV + ov;
      if (ovc_conn[static_cast<size_t>(o)] == -1) va_req.push_back({i, o, in_idx, x.out_port * VV + ov});
    }
  }
  va_matched.assign(cands.size(), 0);
  for (int it = 0; it < cfg.islip_iterations && !va_req.empty(); it++) {
    // grant: per output VC, the requester next at or after the output VC's pointer
    std::sort(va_req.begin(), va_req.end(), [&](const VaReq& a, const VaReq& b) {
      if (a.ovc != b.ovc) return a.ovc < b.ovc;
      const int p = va_g_rr[static_cast<size_t>(a.ovc)];
      return rr_dist(a.in_idx, p, M) < rr_dist(b.in_idx, p, M);
    });
    va_grants.clear();
    for (size_t i = 0; i < va_req.size(); i++) {
      const VaReq& x = va_req[i];
      if (ovc_conn[static_cast<size_t>(x.ovc)] != -1) continue;  // matched in an earlier round
      if (!va_grants.empty() && va_grants.back().ovc == x.ovc) continue;
      if (!va_matched[x.cand]) va_grants.push_back(x);
    }
    // accept: per input VC, the grant next at or after the input VC's pointer
    std::sort(va_grants.begin(), va_grants.end(), [&](const VaReq& a, const VaReq& b) {
      if (a.cand != b.cand) return a.cand < b.cand;
      const int p = va_a_rr[cands[a.cand].r];
      return rr_dist(a.out_idx, p, M) < rr_dist(b.out_idx, p, M);
    });
    for (size_t i = 0; i < va_grants.size(); i++) {
      const VaReq& g = va_grants[i];
      if (i > 0 && va_grants[i - 1].cand == g.cand) continue;
      const uint32_t r = cands[g.cand].r;
      va_matched[g.cand] = 1;
      if (it == 0) {
        va_g_rr[static_cast<size_t>(g.ovc)] = static_cast<uint16_t>(g.in_idx + 1);
        va_a_rr[r] = static_cast<uint16_t>(g.out_idx + 1);
      }
      grant(static_cast<int>(r / static_cast<uint32_t>(VV)), static_cast<int>(r % static_cast<uint32_t>(VV)),
            g.ovc % VV);
    }
    // the next round only sees unmatched input VCs and free output VCs
    size_t k = 0;
    for (const VaReq& x : va_req)
      if (!va_matched[x.cand] && ovc_conn[static_cast<size_t>(x.ovc)] == -1) va_req[k++] = x;
    va_req.resize(k);
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
  if (bsm && cfg.va_per_vc) alloc_va_vc();
  else (this->*alloc_step)();  // the allocator chosen by allocator_for(cfg.allocator)
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
