// flitsim NAC (inline, included by sim.cpp): Zarza's deadlock recovery for VCT - trigger scan,
// identification and recovery signals, deadlock avoidance buffers (DABs), stop tokens and the
// credits that recovery moves. docs/flitsim.md "NAC".
#pragma once

#include "sim_impl.hpp"

namespace ftroute::flitsim {

inline bool Simulator::Impl::logical_full(int oc, int ov, int slack_pkts) const {
  if (ch[oc].dst_sw < 0) return false;  // sinks never fill
  return credits[static_cast<size_t>(oc) * V + ov] < cfg.packet_flits * (1 + slack_pkts);
}

inline bool Simulator::Impl::front_complete(InVC& q) {
  if (!q.has_front()) return false;
  Entry& e = q.front();
  return e.arrived == e.size && e.departed == 0;
}

inline uint32_t Simulator::Impl::new_msg(const NacMsg& m) {
  uint32_t i;
  if (!msg_free.empty()) i = msg_free.back(), msg_free.pop_back(), msgs[i] = m;
  else i = static_cast<uint32_t>(msgs.size()), msgs.push_back(m);
  return i;
}

inline void Simulator::Impl::send_ctrl(EvKind kind, NacMsg m, int via_ch, int via_vc) {
  if (ch[via_ch].src_sw < 0) return;  // upstream is a CA: cannot be on a cycle
  m.ch = via_ch, m.vc = static_cast<uint8_t>(via_vc);
  uint32_t i = new_msg(m);
  if (kind == kEvNacId) res.nac_id_packets++;
  at(now + cfg.nac_tf, Ev{kind, 0, 0, 0, i, 0, 0});
}

inline void Simulator::Impl::nac_trigger_scan() {
  for (size_t s = 0; s < sws.size(); s++) {
    SwitchState& S = sws[s];
    for (uint32_t r : S.req) {
      InVC& q = ivc[r];
      if (q.state != kWaiting || q.dab_full || q.nac_run >= 0) continue;
      int c = static_cast<int>(r / V), v = static_cast<int>(r % V);
      if (ch[c].src_sw < 0) continue;  // injection inputs are not on cycles
      if (stopped_st[static_cast<size_t>(q.out_ch) * V + q.out_vc]) continue;
      if (!input_full(q) || !logical_full(q.out_ch, q.out_vc, 0) || !front_complete(q)) continue;
      // trigger (eqs 4.1-4.3)
      res.nac_triggers++;
      NacRun run;
      run.seq = nac_seq++;
      run.start = now;
      run.sw = static_cast<int>(s), run.in_ch = c, run.in_vc = static_cast<uint8_t>(v);
      run.out_ch = q.out_ch, run.out_vc = q.out_vc;
      int32_t ri = static_cast<int32_t>(runs.size());
      runs.push_back(run);
      run_of_seq[run.seq] = ri;
      q.nac_run = ri;
      stopped_st[static_cast<size_t>(q.out_ch) * V + q.out_vc]++;
      S.stopped_fw++;
      NacMsg m{run.seq, static_cast<int>(s), c, static_cast<uint8_t>(v), q.out_vc, q.out_ch,
               static_cast<int32_t>(sws.size()) + 1, 0, 0, 0};
      send_ctrl(kEvNacId, m, c, v);
      at(now + nac_timeout(), Ev{kEvNacTimeout, 0, 0, 0, static_cast<uint32_t>(ri), 0, 0});
    }
  }
}

inline void Simulator::Impl::release_run_token(NacRun& run) {
  if (!run.token) return;
  run.token = false;
  stopped_st[static_cast<size_t>(run.out_ch) * V + run.out_vc]--;
  sws[run.sw].stopped_fw--;
  if (ch[run.out_ch].src_sw >= 0) mark_sw(ch[run.out_ch].src_sw);
  mark_sw(run.sw);
}

inline void Simulator::Impl::close_run(int32_t ri) {
  NacRun& run = runs[ri];
  if (!run.open) return;
  run.open = false;
  InVC& q = ivc[static_cast<size_t>(run.in_ch) * V + run.in_vc];
  if (q.nac_run == ri) q.nac_run = -1;
  release_run_token(run);
}

// Move the (complete, waiting) front of input (c, v) into its DAB; the stop token on
// (tok_ch, tok_vc) stays with the DAB packet until it has left.
inline int32_t Simulator::Impl::move_to_dab(int c, int v, int tok_ch, int tok_vc, bool take_new_token) {
  InVC& q = ivc[static_cast<size_t>(c) * V + v];
  Entry e = q.q.front();
  q.q.pop();
  q.occ -= e.size;
  q.dab = e;
  q.dab_full = true;
  int s = ch[c].dst_sw;
  sws[s].dab_count++;
  if (ch[c].src_sw < 0) credit_return(c, v, e.size);  // (never: cycles do not cross CAs)
  if (take_new_token) {
    stopped_st[static_cast<size_t>(tok_ch) * V + tok_vc]++;
    sws[s].stopped_fw++;
  }
  q.dab_holds_st = true, q.st_ch = tok_ch, q.st_vc = static_cast<uint8_t>(tok_vc);
  last_progress = now;
  mark_sw(s);
  return ch[c].src_sw < 0 ? 0 : e.size;
}

// Credits carried by a recovery signal arriving over channel c: reserved for switch inputs.
inline void Simulator::Impl::apply_nac_credits(int c, int v, int32_t n) {
  if (n <= 0) return;
  size_t i = static_cast<size_t>(c) * V + v;
  credits[i] += n;
  nac_rsv[i] += n;
  FLITSIM_CHECK(credits[i] <= cfg.buffer_flits, "credit counter above buffer size (NAC) at " + chan_name(c));
  mark_sw(ch[c].src_sw);
}

inline void Simulator::Impl::on_nac_id(uint32_t mi) {
  NacMsg m = msgs[mi];
  msg_free.push_back(mi);
  int h = ch[m.ch].src_sw;  // the router that receives it, on its output m.ch
  if (h < 0) return;
  if (h == m.origin_sw) {
    auto it = run_of_seq.find(m.seq);
    if (it == run_of_seq.end()) return;
    NacRun& run = runs[it->second];
    if (!run.open || run.confirmed || m.ch != run.out_ch || m.vc != run.out_vc) return;
    InVC& q = ivc[static_cast<size_t>(run.in_ch) * V + run.in_vc];
    if (q.state != kWaiting || q.dab_full || q.out_ch != run.out_ch || !front_complete(q)) return;
    run.confirmed = true;
    res.nac_confirmed++;
    res.nac_confirm_cycles += static_cast<uint64_t>(now - run.start);
    if (res.nac_first_confirmed < 0 || run.start < res.nac_first_confirmed) res.nac_first_confirmed = run.start;
    run.token = false;  // token moves to the DAB packet
    q.nac_run = -1;
    NacMsg rm = m;
    rm.credits = move_to_dab(run.in_ch, run.in_vc, run.out_ch, run.out_vc, false);
    send_ctrl(kEvNacRec, rm, run.in_ch, run.in_vc);
    return;
  }
  uint64_t key = m.seq * 1000003ULL + static_cast<uint64_t>(h);
  if (!seen.insert(key).second) return;
  if (--m.ttl <= 0) return;
  for (uint32_t r : sws[h].req) {
    InVC& q = ivc[r];
    if (q.state != kWaiting || q.dab_full || q.out_ch != m.ch || q.out_vc != m.vc) continue;
    if (ch[r / V].src_sw < 0) continue;  // CA inputs are never on a cycle
    if (!input_full(q) || !logical_full(m.ch, m.vc, 0)) continue;
    send_ctrl(kEvNacId, m, static_cast<int>(r / V), static_cast<int>(r % V));
  }
}

inline void Simulator::Impl::on_nac_rec(uint32_t mi) {
  NacMsg m = msgs[mi];
  msg_free.push_back(mi);
  int h = ch[m.ch].src_sw;
  if (h < 0) return;
  if (h == m.origin_sw) {  // went round the cycle: end of the run
    apply_nac_credits(m.ch, m.vc, m.credits);
    auto it = run_of_seq.find(m.seq);
    if (it != run_of_seq.end()) {
      res.nac_recovered++;
      res.nac_time_cycles += static_cast<uint64_t>(now - runs[it->second].start);
      close_run(it->second);
    }
    return;
  }
  for (uint32_t r : sws[h].req) {  // eqs 4.4-4.7
    InVC& q = ivc[r];
    if (q.state != kWaiting || q.dab_full || q.out_ch != m.ch || q.out_vc != m.vc) continue;
    if (ch[r / V].src_sw < 0) continue;  // CA inputs are never on a cycle
    if (!input_full(q) || !logical_full(m.ch, m.vc, 1) || !front_complete(q)) continue;
    res.nac_recovery_moves++;
    int c = static_cast<int>(r / V), v = static_cast<int>(r % V);
    int32_t freed = move_to_dab(c, v, m.ch, m.vc, true);  // takes the stop token first
    apply_nac_credits(m.ch, m.vc, m.credits);
    NacMsg fwd = m;
    fwd.credits = freed;
    send_ctrl(kEvNacRec, fwd, c, v);
    return;
  }
  apply_nac_credits(m.ch, m.vc, m.credits);  // cannot act: restore normal, keep the slot in the cycle
}

inline void Simulator::Impl::on_nac_timeout(uint32_t ri) {
  NacRun& run = runs[ri];
  if (!run.open) return;
  if (!run.confirmed) res.nac_timeouts++;
  close_run(static_cast<int32_t>(ri));
  run_of_seq.erase(run.seq);
  if (seen.size() > (1u << 20)) seen.clear();  // keys carry the run's sequence number
}

}  // namespace ftroute::flitsim
