// flitsim deadlock report: the wait-for graph of the blocked packets after a detected deadlock.
#include "sim_impl.hpp"

namespace ftroute::flitsim {

void Simulator::Impl::build_deadlock_report() {
  std::vector<int64_t> next(ivc.size(), -1);
  fill_wait_for(next);
  report_wait_for(next);
}

// next[i] = the input VC that input VC i waits for (its front's output is held by that VC's
// packet, or its own output VC when it streams). Threads: each shard fills the input VCs it owns.
void Simulator::Impl::fill_wait_for(std::vector<int64_t>& next) {
  size_t n = ivc.size();
  for (size_t i = 0; i < n; i++) {
    if (par && own_dst[i / V] != shard) continue;
    InVC& q = ivc[i];
    if (!q.has_front()) continue;
    int oc = -1, ov = 0;
    if (q.state == kWaiting) {
      oc = q.out_ch, ov = q.out_vc;
      int32_t holder = ovc_conn[static_cast<size_t>(oc) * V + ov];
      if (holder < 0 && !wh) holder = ch[oc].out_conn;
      if (holder >= 0) {
        const Conn& k = conns[holder];
        if (k.in_ch >= 0) next[i] = static_cast<int64_t>(k.in_ch) * V + k.in_vc;
        continue;
      }
      int c = static_cast<int>(i / V);
      if (!wh && ch[c].in_conn >= 0) {
        const Conn& k = conns[ch[c].in_conn];
        if (k.in_ch >= 0) next[i] = static_cast<int64_t>(k.in_ch) * V + k.in_vc;
        continue;
      }
    } else if (q.state == kActive && q.conn >= 0) {
      const Conn& k = conns[q.conn];
      oc = k.out_ch, ov = k.out_vc;
      if (oc < 0) continue;
    } else {
      continue;
    }
    if (ch[oc].dst_sw >= 0 && ch[oc].alive) next[i] = static_cast<int64_t>(oc) * V + ov;
  }
}

// The report: a cycle in the wait-for graph `next`, if there is one.
void Simulator::Impl::report_wait_for(const std::vector<int64_t>& next) {
  DeadlockReport& d = res.deadlock;
  d.detected = true;
  d.cycle = now;
  d.last_progress = last_progress;
  size_t n = next.size();
  std::vector<uint8_t> color(n, 0);
  std::vector<size_t> cyc;
  for (size_t s = 0; s < n && cyc.empty(); s++) {
    if (color[s] || next[s] < 0) continue;
    std::vector<size_t> path;
    size_t u = s;
    while (true) {
      if (color[u] == 2) break;
      if (color[u] == 1) {  // cycle
        auto it = std::find(path.begin(), path.end(), u);
        cyc.assign(it, path.end());
        break;
      }
      color[u] = 1;
      path.push_back(u);
      if (next[u] < 0) break;
      u = static_cast<size_t>(next[u]);
    }
    for (size_t x : path) color[x] = 2;
  }
  std::ostringstream o;
  o << "deadlock suspected at cycle " << now << ": no flit moved since cycle " << last_progress << " with "
    << res.in_network << " packets in the network";
  if (!cyc.empty()) {
    o << "; wait-for cycle of " << cyc.size() << " channels:";
    for (size_t x : cyc) {
      std::string s = chan_name(static_cast<int>(x / V)) + " VL" + std::to_string(x % V);
      d.cycle_channels.push_back(s);
      o << "\n  " << s;
    }
  } else {
    o << "; no cycle in the wait-for graph (packets wait on failed links or unroutable heads)";
  }
  d.text = o.str();
}

}  // namespace ftroute::flitsim
