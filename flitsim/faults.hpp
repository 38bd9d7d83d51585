// flitsim faults (inline, included by sim.cpp): fault policies, escape LIDs (FaultPolicy::Escape),
// link up/down events, truncation of a packet crossing a dying link, and re-routing after a
// routing change.
#pragma once

#include "ftroute/route_walk.hpp"
#include "sim_impl.hpp"

namespace ftroute::flitsim {

// FaultPolicy::Escape: the first LID of p's destination (base + 0, 1, ... 2^LMC - 1) other
// than p.dlid whose LFT walk from the switch channel c enters (the packet arriving by c)
// reaches the destination CA over live links, visiting no switch twice, with every VL (SL2VL
// of the routing's path_sl for (SLID, new DLID)) below V. 0 if there is none.
inline Lid Simulator::Impl::find_escape(int c, const Pkt& p, uint8_t* sl_out) const {
  const EpState& d = eps[p.dst];
  const uint32_t nl = 1u << d.lmc;
  for (uint32_t off = 0; off < nl; off++) {
    const Lid l = static_cast<Lid>(d.base + off);
    if (l == p.dlid) continue;
    const uint8_t sl = R->sl(p.slid, l);
    int in = c;
    bool ok = false;
    if (ch[in].dst_sw < 0) {
      ok = ch[in].dst_ep == p.dst;
    } else {
      // the LFT walk (walk_path: hop decoding, loop bound), over live channels with a VL below V
      const PathWalk w = walk_path(f, R->lfts, sws[ch[in].dst_sw].node, l, d.node, d.port, [&](int, const RouteHop& h) {
        if (h.kind == RouteHop::Dropped || h.port == 0) return false;
        const int s = ch[in].dst_sw;
        const int oc = sws[s].out_by_port[h.port];
        if (oc < 0 || !ch[oc].alive || vl_at(in, h.port, sl) * vc_blk >= V) return false;
        in = oc;
        return true;
      });
      ok = w.end == PathWalk::Delivered;
    }
    if (ok) {
      *sl_out = sl;
      return l;
    }
  }
  return 0;
}

// What a packet that meets a dead port gets when it cannot (or may not) escape.
inline FaultPolicy Simulator::Impl::dead_port_policy() const {
  return cfg.fault_policy == FaultPolicy::Escape ? cfg.escape_fallback : cfg.fault_policy;
}

// Cut a packet being streamed over output `oc` (link died, drop policy).
inline void Simulator::Impl::truncate_conn(int32_t id) {
  Conn& k = conns[id];
  uint32_t pi = k.pkt;
  int32_t sent_over = k.sent;
  int32_t oc = k.out_ch, ov = k.out_vc;
  if (!pk(pi).doomed && !pk(pi).finalized) ftdrb_fault(pi, ch[oc].src_node, ch[oc].src_port);
  finalize_drop(pi, "link failed while the packet crossed it");
  min_need = 1;
  if (par) par_min_need_1();
  // Upstream part: discard the rest of this packet at this input.
  if (ch[oc].out_conn == id) ch[oc].out_conn = -1;
  if (ovc_conn[static_cast<size_t>(oc) * V + ov] == id) ovc_conn[static_cast<size_t>(oc) * V + ov] = -1;
  if (k.in_ch >= 0 && ch[k.in_ch].in_conn == id) ch[k.in_ch].in_conn = -1;
  k.out_ch = -1;
  if (k.in_ch >= 0) {
    InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
    q.state = kDiscard;
    mark_sw(ch[k.in_ch].dst_sw);
  }
  // Downstream part: the worm now ends after sent_over flits.
  int c = oc, v = ov;
  while (sent_over > 0) {
    if (ch[c].dst_ep >= 0) {
      Pkt& p = pk(pi);
      p.deliver_size = sent_over;
      break;
    }
    // (threads: the buffers downstream may be another shard's; this runs while all wait)
    Impl& D = par ? shard_impl(own_dst[static_cast<size_t>(c)]) : *this;
    InVC& q = D.ivc[static_cast<size_t>(c) * V + v];
    Entry* e = nullptr;
    if (q.dab_full && q.dab.pkt == pi) e = &q.dab;
    for (uint32_t i = 0; !e && i < q.q.size(); i++)
      if (q.q.at(i).pkt == pi && q.q.at(i).size > q.q.at(i).arrived) e = &q.q.at(i);
    if (!e) {
      // Flits are still on the wire and the head has not arrived yet: remember the cut on the
      // packet so the arrival creates a short entry.
      pk(pi).deliver_size = sent_over;
      break;
    }
    int32_t lost = e->size - sent_over;
    e->size = sent_over;
    (void)lost;
    bool is_front = q.has_front() && &q.front() == e;
    if (!is_front || q.conn < 0) break;
    Conn& dk = D.conns[q.conn];
    dk.size = sent_over;
    if (dk.out_ch < 0) break;
    c = dk.out_ch, v = dk.out_vc;
  }
}

inline void Simulator::Impl::set_link(int node, int port, bool up) {
  const Node& n = f.node(node);
  if (port < 1 || port > n.num_ports || !n.port(port).connected())
    throw FabricError("flitsim: link event on " + f.port_name(node, port) + ", which is not linked");
  int peer = n.port(port).peer_node, pp = n.port(port).peer_port;
  if (up) ft_bcast.erase({node, port}), ft_bcast.erase({peer, pp});
  for (size_t c = 0; c < ch.size(); c++) {
    Channel& x = ch[c];
    if (!((x.src_node == node && x.src_port == port) || (x.src_node == peer && x.src_port == pp))) continue;
    if (x.alive == up) continue;
    if (par) {  // threads (shard 0, while all wait): every copy learns it, the sender side acts
      for (int s = 0; s < nsh; s++) shard_impl(s).ch[c].alive = up;
      shard_impl(own_src[c]).link_changed(c, up);
    } else {
      x.alive = up;
      link_changed(c, up);
    }
  }
}

// Channel c just went down (up = false) or came back: what its sender's side does about it.
inline void Simulator::Impl::link_changed(size_t c, bool up) {
  {
    Channel& x = ch[c];
    if (!up) {  // Drop/Hold: a packet crossing the link is cut in two: it cannot be held
      for (int v = 0; v < V; v++)
        if (ovc_conn[c * V + v] >= 0) {
          int32_t id = ovc_conn[c * V + v];
          if (conns[id].sent > 0 && cfg.fault_policy == FaultPolicy::Escape)
            conns[id].finish_dead = true;  // Escape: the link fails at the packet boundary
          else if (conns[id].sent > 0 || cfg.fault_policy == FaultPolicy::Drop) truncate_conn(id);
          else ungrant(id);  // hold/escape: not started yet, wait again or escape below
        }
    }
    if (!up && cfg.fault_policy == FaultPolicy::Escape && x.src_sw >= 0) {
      // Heads waiting for the dead port (the thesis' "output buffer" packets, [A] re-submit to
      // the routing unit): routed again now, so they take an escape LID or the fallback.
      std::vector<uint32_t> waiting;
      for (uint32_t r : sws[x.src_sw].req)
        if (ivc[r].state == kWaiting && ivc[r].out_ch == static_cast<int>(c)) waiting.push_back(r);
      for (uint32_t r : waiting) {
        ivc[r].state = kRouting;
        pk(ivc[r].front().pkt).hops--;
        route_front(static_cast<int>(r / V), static_cast<int>(r % V));
      }
    }
    if (!up && cfg.fault_policy == FaultPolicy::Hold && ftdrb && x.src_sw >= 0) {
      for (uint32_t r : sws[x.src_sw].req) {  // held heads: their sources are notified
        InVC& q = ivc[r];
        if (q.state == kWaiting && q.out_ch == static_cast<int>(c) && !pk(q.front().pkt).notified) {
          pk(q.front().pkt).notified = true;
          ftdrb_fault(q.front().pkt, x.src_node, x.src_port);
        }
      }
    }
    if (!up && cfg.fault_policy == FaultPolicy::Drop) {
      if (x.src_sw >= 0) {  // heads waiting for this output are dropped now
        for (uint32_t r : sws[x.src_sw].req) {
          InVC& q = ivc[r];
          if (q.state == kWaiting && q.out_ch == static_cast<int>(c)) {
            if (!pk(q.front().pkt).finalized) ftdrb_fault(q.front().pkt, x.src_node, x.src_port);
            finalize_drop(q.front().pkt, "output link down");
            start_discard(static_cast<int>(r / V), static_cast<int>(r % V));
          }
        }
      }
    }
    if (x.src_sw >= 0) mark_sw(x.src_sw);
    if (x.src_ep >= 0) mark_ep(x.src_ep);
  }
}

// Undo a grant whose connection has not sent anything (hold policy, its link died).
inline void Simulator::Impl::ungrant(int32_t id) {
  Conn k = conns[id];
  if (ovc_conn[static_cast<size_t>(k.out_ch) * V + k.out_vc] == id) ovc_conn[static_cast<size_t>(k.out_ch) * V + k.out_vc] = -1;
  if (ch[k.out_ch].out_conn == id) ch[k.out_ch].out_conn = -1;
  drop_conn(id);
  if (k.in_ch >= 0) {
    if (ch[k.in_ch].in_conn == id) ch[k.in_ch].in_conn = -1;
    InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
    q.state = kWaiting;
    q.conn = -1;
    int s = ch[k.in_ch].dst_sw;
    if (!q.in_req) sws[s].req.push_back(static_cast<uint32_t>(k.in_ch) * V + k.in_vc), q.in_req = true;
    mark_sw(s);
  } else {
    Pkt& p = pk(k.pkt);
    eps[k.ep].queue.push_front(k.pkt);
    p.injected = false;
    res.injected--, res.in_network--, res.in_source++;
    mark_ep(k.ep);
  }
}

inline void Simulator::Impl::reroute_all() {
  std::vector<uint32_t> old;
  for (auto& S : sws) {
    old.swap(S.req);
    S.req.clear();
    for (uint32_t r : old) ivc[r].in_req = false;
    for (uint32_t r : old) {
      InVC& q = ivc[r];
      if (q.state != kWaiting) continue;
      if (q.dab_full) {  // a DAB packet keeps its output (NAC must drain it)
        if (!q.in_req) S.req.push_back(r), q.in_req = true;
        continue;
      }
      q.state = kRouting;
      pk(q.front().pkt).hops--;
      route_front(static_cast<int>(r / V), static_cast<int>(r % V));
    }
  }
  for (size_t i = 0; i < sws.size(); i++)
    if (!par || own_sw[i] == shard) mark_sw(static_cast<int>(i));  // (threads: its own switches)
}

}  // namespace ftroute::flitsim
