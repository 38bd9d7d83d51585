// flitsim network construction: channels, switches and endpoints from the fabric, the time
// wheel, and the flattened SL2VL cache of the current routing.
#include "sim_impl.hpp"

namespace ftroute::flitsim {

void Simulator::Impl::build() {
  eps_pub = endpoints_of(f);
  sw_of_node.assign(static_cast<size_t>(f.size()), -1);
  for (int s : f.switches()) {
    sw_of_node[s] = static_cast<int>(sws.size());
    SwitchState st;
    st.node = s;
    st.out_by_port.assign(static_cast<size_t>(f.node(s).num_ports) + 1, -1);
    sws.push_back(std::move(st));
  }
  std::map<std::pair<int, int>, int> ep_index;
  for (size_t i = 0; i < eps_pub.size(); i++) {
    EpState e;
    e.node = eps_pub[i].node, e.port = eps_pub[i].port, e.base = eps_pub[i].base_lid, e.lmc = eps_pub[i].lmc;
    eps.push_back(std::move(e));
    ep_index[{eps_pub[i].node, eps_pub[i].port}] = static_cast<int>(i);
  }
  ep_of_lid.assign(static_cast<size_t>(f.max_lid()) + 1, -1);
  for (size_t i = 0; i < eps.size(); i++)
    for (uint32_t l = eps[i].base; l < eps[i].base + (1u << eps[i].lmc) && l < ep_of_lid.size(); l++)
      ep_of_lid[l] = static_cast<int>(i);
  // channels: one per connected (node, port) whose node is a switch or an endpoint
  for (int n = 0; n < f.size(); n++) {
    const Node& nd = f.node(n);
    for (int p = 1; p <= nd.num_ports; p++) {
      const Port& pp = nd.port(p);
      if (!pp.connected()) continue;
      Channel c{};
      c.src_node = n, c.src_port = p, c.dst_node = pp.peer_node, c.dst_port = pp.peer_port;
      c.src_sw = sw_of_node[n], c.dst_sw = sw_of_node[pp.peer_node];
      auto si = ep_index.find({n, p});
      c.src_ep = si == ep_index.end() ? -1 : si->second;
      auto di = ep_index.find({pp.peer_node, pp.peer_port});
      c.dst_ep = di == ep_index.end() ? -1 : di->second;
      if (c.src_sw < 0 && c.src_ep < 0) continue;  // CA port without LID: cannot send
      if (c.dst_sw < 0 && c.dst_ep < 0) continue;
      c.out_conn = c.in_conn = -1;
      int id = static_cast<int>(ch.size());
      ch.push_back(c);
      if (c.src_sw >= 0) sws[c.src_sw].out_by_port[p] = id;
      if (c.dst_sw >= 0) sws[c.dst_sw].in_chs.push_back(id);
      if (c.src_ep >= 0) eps[c.src_ep].out_ch = id;
      if (c.dst_ep >= 0) eps[c.dst_ep].in_ch = id;
    }
  }
  ivc.resize(ch.size() * V);
  // Packets a VC can hold: buffer / packet size, one more being cut through; smaller (trace or
  // truncated) packets grow the ring. Sinks do not queue.
  size_t cap = static_cast<size_t>(cfg.buffer_flits / cfg.packet_flits) + 2;
  for (size_t i = 0; i < ivc.size(); i++) ivc[i].q.init(ch[i / V].dst_ep >= 0 ? 1 : std::min<size_t>(cap, 64));
  credits.assign(ch.size() * V, cfg.buffer_flits);
  ovc_conn.assign(ch.size() * V, -1);
  in_stamp.assign(ch.size(), -1);
  out_stamp.assign(ch.size(), -1);
  wh = cfg.switching == Switching::Wormhole;
  stopped_st.assign(ch.size() * V, 0);
  nac_rsv.assign(ch.size() * V, 0);
  res.min_credits = cfg.buffer_flits;
  int64_t maxd = std::max<int64_t>({cfg.link_latency + cfg.xbar_delay + cfg.alloc_delay, cfg.credit_delay,
                                    cfg.routing_delay, cfg.nac_tf});
  if (cfg.nac) maxd = std::max<int64_t>(maxd, nac_timeout() + 1);
  if (bsm) {
    // BookSim model (BookSim2's channel timing, docs/flitsim.md "Router models"): a channel
    // sends what was written in a cycle one cycle later, so a flit that wins switch allocation
    // (SA) in cycle s is in the downstream buffer at s + alloc + xbar + L, a source's flit sent
    // in s at s + L + 1; the slot it leaves is free at the end of its SA (s + alloc - 1) and the
    // credit crosses the credit channel (L + 1) and credit_delay (not at sources). CA links
    // (BookSim2's injection / ejection channels) take 1 cycle; switch links link_latency.
    bs_fd.assign(ch.size(), 0), bs_cd.assign(ch.size(), 0);
    for (size_t c = 0; c < ch.size(); c++) {
      const Channel& x = ch[c];
      const int L = x.src_ep >= 0 || x.dst_ep >= 0 ? 1 : cfg.link_latency;
      bs_fd[c] = x.src_ep >= 0 ? L + 1 : cfg.alloc_delay + cfg.xbar_delay + L;
      bs_cd[c] = x.dst_ep >= 0 ? L + 1 + cfg.credit_delay  // the sink credits the flit it reads
                               : cfg.alloc_delay - 1 + L + 1 + (x.src_sw >= 0 ? cfg.credit_delay : 0);
      maxd = std::max<int64_t>({maxd, bs_fd[c], bs_cd[c]});
    }
    maxd = std::max<int64_t>({maxd, cfg.vc_alloc_delay, cfg.routing_delay + 1});
    sa_vc_rr.assign(ch.size(), 0), sa_in_rr.assign(ch.size(), 0), sa_out_rr.assign(ch.size(), 0);
    va_rr.assign(ch.size(), 0);
    va_g_rr.assign(ch.size() * static_cast<size_t>(V), 0), va_a_rr.assign(ch.size() * static_cast<size_t>(V), 0);
    sa_out_stamp.assign(ch.size(), -1), sa_in_stamp.assign(ch.size(), -1);
    sa_out_best.assign(ch.size(), 0), sa_out_key.assign(ch.size(), 0);
    sa_in_best.assign(ch.size(), 0), sa_in_key.assign(ch.size(), 0);
  }
  // As small as the longest delay allows: a bucket is written and read within a few cycles, so
  // a small wheel stays in cache (16 buckets of ~1k events each cost a store miss per event).
  uint64_t w = 2;
  while (w <= static_cast<uint64_t>(maxd)) w <<= 1;
  wheel.assign(w, {});
  wmask = w - 1;
}

void Simulator::Impl::build_vl_cache() {
  // BookSim model: the routing's VLs are VC classes of V / VLs VCs each (a 1-VL mesh routing
  // may then use every VC, as BookSim2's dim_order does).
  vc_blk = bsm && V > std::max(1, R->num_vls) ? V / std::max(1, R->num_vls) : 1;
  vl_tabs.assign(1, Sl2Vl::identity());
  vl_base.clear(), vl_idx.clear(), vl_ep.clear();
  if (R->sl2vl.empty()) return;
  std::map<Sl2Vl::Table, uint16_t> index{{vl_tabs[0], 0}};
  const auto& raw = R->sl2vl.raw();
  auto idx_of = [&](int node, int in, int out) -> uint16_t {
    auto r = raw.find(Sl2Vl::key(node, in, out));
    if (r == raw.end()) return 0;  // no table: VL = SL (Sl2Vl::vl)
    const Sl2Vl::Table& t = r->second;
    auto [it, fresh] = index.emplace(t, static_cast<uint16_t>(vl_tabs.size()));
    if (fresh) {
      FLITSIM_CHECK(vl_tabs.size() < 65535, "too many distinct SL2VL tables");
      vl_tabs.push_back(t);
    }
    return it->second;
  };
  vl_base.assign(ch.size(), 0);
  for (size_t c = 0; c < ch.size(); c++) {
    if (ch[c].dst_sw < 0) continue;
    int node = ch[c].dst_node, P = f.node(node).num_ports;
    vl_base[c] = static_cast<uint32_t>(vl_idx.size());
    for (int out = 0; out <= P; out++) vl_idx.push_back(out ? idx_of(node, ch[c].dst_port, out) : 0);
  }
  for (auto& e : eps) vl_ep.push_back(idx_of(e.node, 0, e.port));
}

}  // namespace ftroute::flitsim
