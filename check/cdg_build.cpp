// build_cdg(): the CDG and the route statistics of a routing. Flat copies of the topology and the
// SL2VL tables, the sources and destinations, the switch-level pass's set-up, parallel loop and
// merge (the pass itself: cdg_fast.cpp), and the per-source walk that takes every other
// destination (SL2VL tables, path SLs, unreachable or looping pairs while examples are wanted).
#include <algorithm>
#include <memory>

#include "cdg_fast.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/parallel.hpp"
#include "ftroute/route_walk.hpp"

namespace ftroute {

// ---------------------------------------------------------------- build_cdg

namespace {

struct Source {
  Lid lid;
  int node;           // source node (CA or switch)
  int port;           // source end port (0 for a switch)
  int sw;             // first switch
  int in_port;        // input port on that switch (0 for a switch source)
  int inj_link;       // CA injection link id, -1 for a switch source
};

struct Drop {
  DropKind kind;
  int node;
  int port;
};

using cdg_fast::FastShared;
using cdg_fast::FastWorker;

}  // namespace

CdgBuild build_cdg(const Fabric& f, const Routing& r, const CdgBuildOptions& opt) {
  CdgBuild out{Cdg(f), {}};
  Cdg& cdg = out.cdg;
  RouteWalkStats& st = out.stats;
  const int nlinks = cdg.num_links();
  const int nnodes = f.size();

  // Flat copies of the topology.
  std::vector<int> peer_node(static_cast<size_t>(nlinks), -1), peer_port(static_cast<size_t>(nlinks), 0);
  std::vector<int> nports(static_cast<size_t>(nnodes));
  std::vector<uint8_t> is_sw(static_cast<size_t>(nnodes));
  for (int i = 0; i < nnodes; i++) {
    const Node& n = f.node(i);
    nports[static_cast<size_t>(i)] = n.num_ports;
    is_sw[static_cast<size_t>(i)] = n.is_switch();
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      peer_node[static_cast<size_t>(cdg.link_id(i, p))] = x.peer_node;
      peer_port[static_cast<size_t>(cdg.link_id(i, p))] = x.peer_port;
    }
  }

  // Dense SL2VL tables: switch (s, in, out) -> 16 VLs; CA port -> 16 VLs. Empty => identity.
  const bool identity_vl = r.sl2vl.empty();
  std::vector<size_t> pair_base(static_cast<size_t>(nnodes), 0);  // (s, in, out) index base
  size_t npairs = 0;
  for (int i = 0; i < nnodes; i++) {
    pair_base[static_cast<size_t>(i)] = npairs;
    if (is_sw[static_cast<size_t>(i)]) npairs += static_cast<size_t>(nports[static_cast<size_t>(i)] + 1) * (nports[static_cast<size_t>(i)] + 1);
  }
  // (s, out, in) order: the sources behind one switch share `out` for a destination, so their
  // entries are adjacent.
  auto pair_index = [&](int s, int in, int o) {
    return pair_base[static_cast<size_t>(s)] + static_cast<size_t>(o) * (nports[static_cast<size_t>(s)] + 1) + static_cast<size_t>(in);
  };
  std::vector<uint8_t> sw_vl, ca_vl;
  if (!identity_vl) {
    sw_vl.assign(npairs * kNumVlSlots, 0);
    ca_vl.assign(static_cast<size_t>(nlinks) * kNumVlSlots, 0);
    for (int i = 0; i < nnodes; i++) {
      const int np = nports[static_cast<size_t>(i)];
      if (is_sw[static_cast<size_t>(i)]) {
        for (int in = 0; in <= np; in++)
          for (int o = 1; o <= np; o++)
            for (int sl = 0; sl < kNumVlSlots; sl++)
              sw_vl[pair_index(i, in, o) * kNumVlSlots + static_cast<size_t>(sl)] = r.sl2vl.vl(i, in, o, sl) & 15;
      } else {
        for (int p = 1; p <= np; p++)
          for (int sl = 0; sl < kNumVlSlots; sl++)
            ca_vl[static_cast<size_t>(cdg.link_id(i, p)) * kNumVlSlots + static_cast<size_t>(sl)] = r.sl2vl.vl(i, 0, p, sl) & 15;
      }
    }
  }

  // Sources.
  std::vector<Source> sources;
  for (const EndPort& e : f.end_ports()) {
    const Node& n = f.node(e.node);
    const Lid last = opt.all_source_lids ? e.last_lid() : e.base_lid;
    if (n.is_switch()) {
      if (!opt.switch_sources) continue;
      sources.push_back({e.base_lid, e.node, 0, e.node, 0, -1});
    } else {
      if (!opt.ca_sources) continue;
      const Port& p = n.port(e.port);
      if (!p.connected() || !f.node(p.peer_node).is_switch()) continue;  // cannot inject
      for (uint32_t l = e.base_lid; l <= last; l++)
        sources.push_back({static_cast<Lid>(l), e.node, e.port, p.peer_node, p.peer_port, cdg.link_id(e.node, e.port)});
    }
  }
  st.sources = static_cast<int>(sources.size());

  // Per-state arrays; a state is (node, in_port, sl), index (link_id(node, in_port)) * 16 + sl.
  // SL-major (index sl * nlinks + link) so the states of one SL are contiguous, and one record per
  // state so a visit touches one cache line.
  struct StateRec {
    uint32_t stamp = 0;
    int32_t next = -1, res = -1, outch = -1;
    uint32_t cnt = 0;
    uint16_t hops = 0;
  };
  const size_t nstates = static_cast<size_t>(nlinks) * kNumVlSlots;
  std::vector<StateRec> S;  // allocated by the first destination the per-source walk handles
  std::unique_ptr<RouteWalker> slow_walker;  // the per-source walk's hops (allocated with S)
  std::vector<uint16_t> edge_cache;  // (s,in,out) -> last (vin*16+vout)+1 inserted (per-source walk)
  if (opt.collect_loads) st.link_load.assign(static_cast<size_t>(nlinks), 0);
  std::vector<uint8_t> used_local(static_cast<size_t>(nlinks) * kNumVlSlots, 0);

  uint32_t walk_id = 0;
  std::vector<int32_t> walk;      // states of the current walk
  std::vector<int32_t> touched;   // states visited for the current destination
  std::vector<Drop> drops;        // per destination
  std::vector<std::vector<int32_t>> buckets;

  auto state_of = [&](int node, int in, int sl) {
    return static_cast<int32_t>(static_cast<size_t>(sl) * static_cast<size_t>(nlinks) + static_cast<size_t>(cdg.link_id(node, in)));
  };
  auto vl_at = [&](int s, int in, int o, int sl) -> int {
    if (identity_vl) return sl;
    return sw_vl[pair_index(s, in, o) * kNumVlSlots + static_cast<size_t>(sl)];
  };
  auto record_edge = [&](int s, int in, int o, Cdg::Id cin, Cdg::Id cout) {
    const uint16_t v = static_cast<uint16_t>(Cdg::vl_of(cin) * kNumVlSlots + Cdg::vl_of(cout) + 1);
    uint16_t& slot = edge_cache[pair_index(s, in, o)];
    if (slot == v) return;
    slot = v;
    cdg.add_dependency(cin, cout);
  };

  // ---- Switch-level pass (FastWorker, cdg_fast.hpp): set-up.
  const bool fast_ok = identity_vl && !r.path_sl && !opt.force_per_source;
  FastShared sh(f, cdg);
  if (fast_ok) {
    sh.collect_loads = opt.collect_loads;
    sh.nlinks = nlinks;
    sh.swl = f.switches();
    const size_t NS = sh.swl.size();
    sh.swpos.assign(static_cast<size_t>(nnodes), -1);
    for (size_t i = 0; i < NS; i++) sh.swpos[static_cast<size_t>(sh.swl[i])] = static_cast<int>(i);
    sh.nports = nports;
    sh.is_sw = is_sw;
    sh.peer_node = peer_node;
    sh.peer_port = peer_port;
    int maxnp = 0;
    for (size_t i = 0; i < NS; i++) {
      const int node = sh.swl[i];
      const int np = nports[static_cast<size_t>(node)];
      maxnp = std::max(maxnp, np);
      sh.link_base.push_back(cdg.link_id(node, 0));
      sh.np_pos.push_back(np);
      sh.pt_base.push_back(static_cast<uint32_t>(sh.ptab.size()));
      sh.row_base.push_back(static_cast<uint32_t>(sh.nrows));
      sh.nrows += static_cast<size_t>(np) + 1;
      for (int p = 0; p <= np; p++) {
        const int l = cdg.link_id(node, p), pn = p ? peer_node[static_cast<size_t>(l)] : -1;
        int32_t code = -1;
        if (pn >= 0 && is_sw[static_cast<size_t>(pn)])
          code = static_cast<int32_t>((sh.swpos[static_cast<size_t>(pn)] << 8) | peer_port[static_cast<size_t>(l)]);
        else if (pn >= 0)
          code = -2 - cdg.link_id(pn, peer_port[static_cast<size_t>(l)]);
        sh.ptab.push_back(code);
      }
      if (node < r.lfts.num_nodes()) {
        sh.tab.push_back(r.lfts.table(node).data());
        sh.tab_len.push_back(r.lfts.table(node).size());
      } else {
        sh.tab.push_back(nullptr);
        sh.tab_len.push_back(0);
      }
    }
    sh.W = (maxnp + 1 + 63) / 64;
    sh.ca_cnt.assign(NS, 0);
    sh.sw_src.assign(NS, 0);
    sh.ca_at.resize(NS);
    sh.link_entries.assign(static_cast<size_t>(nlinks), 0);
    for (const Source& src : sources) {
      const size_t i = static_cast<size_t>(sh.swpos[static_cast<size_t>(src.sw)]);
      if (src.inj_link >= 0) {
        sh.ca_cnt[i]++;
        if (sh.link_entries[static_cast<size_t>(src.inj_link)]++ == 0) sh.ca_at[i].emplace_back(src.inj_link, src.in_port);
      } else {
        sh.sw_src[i] = 1;
      }
    }
    bool all_sources = true;  // every switch is a source
    for (size_t i = 0; i < NS; i++) {
      sh.total_sources += sh.ca_cnt[i] + sh.sw_src[i];
      if (sh.ca_cnt[i] == 0 && !sh.sw_src[i]) all_sources = false;
    }
    sh.lean = all_sources && !opt.collect_loads && !opt.hop_histogram;
    sh.camask.assign(NS * static_cast<size_t>(sh.W), 0);
    for (size_t i = 0; i < NS; i++)
      for (const auto& [inj, inport] : sh.ca_at[i])
        sh.camask[i * static_cast<size_t>(sh.W) + static_cast<size_t>(inport >> 6)] |= uint64_t{1} << (inport & 63);
  }
  // Destinations in order.
  struct Dest {
    const EndPort* de;
    Lid d;
  };
  std::vector<Dest> dlist;
  const std::vector<EndPort>& end_ports = f.end_ports();
  for (const EndPort& de : end_ports) {
    if (f.node(de.node).is_switch() && !opt.switch_destinations) continue;
    for (uint32_t dl = de.base_lid; dl <= de.last_lid(); dl++) dlist.push_back({&de, static_cast<Lid>(dl)});
  }
  // Parallel phase: every destination whose pairs all arrive; the others are deferred.
  std::vector<FastWorker> fw;
  std::vector<uint8_t> deferred(dlist.size(), 1);
  if (fast_ok) {
    // default (threads 0): parallel from 4M (switch, destination) pairs on; below that (the
    // fabrics DQR, the campaigns and the plugin check by the thousand, ft648 inside OpenSM) the
    // pass takes milliseconds and spawning threads costs more than it saves
    const long n = static_cast<long>(dlist.size());
    const bool big = static_cast<double>(n) * static_cast<double>(sh.swl.size()) >= 4194304.0;
    const int workers = resolve_threads(opt.threads, opt.threads > 0 ? n : big ? n : 1);
    fw.reserve(static_cast<size_t>(workers));
    for (int w = 0; w < workers; w++) fw.emplace_back(sh);
    // by LFT block (64 LIDs): a worker transposes a block once for all its destinations
    std::vector<uint32_t> order(dlist.size());
    for (size_t k = 0; k < order.size(); k++) order[k] = static_cast<uint32_t>(k);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return dlist[a].d / FastWorker::kBlock < dlist[b].d / FastWorker::kBlock;
    });
    std::vector<size_t> group{0};
    for (size_t k = 1; k < order.size(); k++)
      if (dlist[order[k]].d / FastWorker::kBlock != dlist[order[k - 1]].d / FastWorker::kBlock) group.push_back(k);
    group.push_back(order.size());
    parallel_for(workers, static_cast<long>(group.size()) - 1, 1, [&](int w, long g) {
      for (size_t k = group[static_cast<size_t>(g)]; k < group[static_cast<size_t>(g) + 1]; k++) {
        const Dest& x = dlist[order[k]];
        FastWorker& wk = fw[static_cast<size_t>(w)];
        if ((sh.lean && wk.run_lean(*x.de, x.d)) || wk.run(*x.de, x.d, true, true)) deferred[order[k]] = 0;
      }
    });
  }

  for (const Dest& dst : dlist) {
    const EndPort& de = *dst.de;
    {
      const Lid d = dst.d;
      st.destinations++;
      if (fast_ok && !deferred[static_cast<size_t>(&dst - dlist.data())]) continue;
      if (fast_ok &&
          fw[0].run(de, d, static_cast<int>(st.unreachable_examples.size()) < opt.max_examples,
                    static_cast<int>(st.loop_examples.size()) < opt.max_examples))
        continue;
      if (S.empty()) {
        S.resize(nstates);
        edge_cache.assign(npairs, 0);
        slow_walker = std::make_unique<RouteWalker>(f, r.lfts);
      }
      slow_walker->begin(d, de.node, de.port);
      const uint32_t dest_base = walk_id + 1;
      touched.clear();
      drops.clear();
      int max_hops = 0;
      // Outcome bookkeeping of one pair whose first switch state has result rs / hops h0 and
      // leaves through channel outch towards state next.
      auto account = [&](const Source& src, int32_t rs, uint16_t h0, int32_t outch, int32_t nxt) {
        if (rs < 0) {
          st.delivered++;
          const int h = h0 + (src.inj_link >= 0 ? 1 : 0);
          if (static_cast<size_t>(h) >= st.hop_histogram.size()) st.hop_histogram.resize(static_cast<size_t>(h) + 1, 0);
          st.hop_histogram[static_cast<size_t>(h)]++;
          max_hops = std::max(max_hops, h);
          if (opt.collect_loads) {
            if (src.inj_link >= 0) st.link_load[static_cast<size_t>(src.inj_link)]++;
            if (outch >= 0) st.link_load[static_cast<size_t>(outch) / kNumVlSlots]++;
            if (nxt >= 0) S[static_cast<size_t>(nxt)].cnt++;
          }
          return;
        }
        const Drop& dr = drops[static_cast<size_t>(rs)];
        st.per_kind[static_cast<int>(dr.kind)]++;
        if (dr.kind == DropKind::Loop) {
          st.looping++;
          return;
        }
        st.dropped++;
        if (static_cast<int>(st.unreachable_examples.size()) < opt.max_examples)
          st.unreachable_examples.push_back(
              f.node_label(src.node) + "(" + std::to_string(src.lid) + ") -> " + f.node_label(de.node) + "(" +
              std::to_string(d) + ") stops at " +
              (dr.kind == DropKind::NoRoute || dr.kind == DropKind::NotLocal ? f.node_name(dr.node)
                                                                               : f.port_name(dr.node, dr.port)) +
              ": " + drop_kind_text(dr.kind));
      };
      int fast_sw = -1, fast_sl = -1, fast_out = 0;
      int32_t fast_res = -1, fast_next = -1;
      uint16_t fast_hops = 0;
      for (const Source& src : sources) {
        if (src.node == de.node && src.port == de.port) continue;  // same end port
        const int sl = r.path_sl ? (r.path_sl(src.lid, d) & 15) : 0;
        st.pairs++;
        if (src.sw == fast_sw && sl == fast_sl && src.inj_link >= 0) {
          const int vi = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          const Cdg::Id ci = static_cast<Cdg::Id>(src.inj_link) * kNumVlSlots + static_cast<Cdg::Id>(vi);
          const int vo = vl_at(fast_sw, src.in_port, fast_out, sl);
          const Cdg::Id oc = static_cast<Cdg::Id>(cdg.link_id(fast_sw, fast_out)) * kNumVlSlots + static_cast<Cdg::Id>(vo);
          used_local[ci] = 1;
          used_local[oc] = 1;
          record_edge(fast_sw, src.in_port, fast_out, ci, oc);
          if (fast_next >= 0) {
            const StateRec& nx = S[static_cast<size_t>(fast_next)];
            if (nx.outch >= 0) {
              const int nl = static_cast<int>(static_cast<size_t>(fast_next) % static_cast<size_t>(nlinks));
              record_edge(cdg.link_node(nl), cdg.link_port(nl), cdg.link_port(static_cast<int>(nx.outch / kNumVlSlots)), oc,
                          static_cast<Cdg::Id>(nx.outch));
            }
          }
          account(src, fast_res, fast_hops, static_cast<int32_t>(oc), fast_next);
          continue;
        }
        ++walk_id;
        walk.clear();
        int s = src.sw, in = src.in_port;
        int32_t cin = -1;
        if (src.inj_link >= 0) {
          const int v = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          cin = static_cast<int32_t>(static_cast<Cdg::Id>(src.inj_link) * kNumVlSlots + static_cast<Cdg::Id>(v));
        }
        const int32_t start = state_of(s, in, sl);
        int32_t result = -1;
        int32_t cur = start;
        for (;;) {
          const size_t cu = static_cast<size_t>(cur);
          if (S[cu].stamp >= dest_base) {
            if (S[cu].stamp == walk_id) {  // revisited within this walk: loop
              if (cin >= 0 && S[cu].outch >= 0)  // the dependency that closes the loop
                record_edge(s, in, cdg.link_port(static_cast<int>(S[cu].outch / kNumVlSlots)),
                            static_cast<Cdg::Id>(cin), static_cast<Cdg::Id>(S[cu].outch));
              drops.push_back({DropKind::Loop, s, in});
              result = static_cast<int32_t>(drops.size() - 1);
              if (static_cast<int>(st.loop_examples.size()) < opt.max_examples) {
                std::string txt;
                size_t i = walk.size();
                while (i > 0 && walk[i - 1] != cur) i--;
                for (size_t j = i - 1; j < walk.size(); j++) {
                  const int link = static_cast<int>(static_cast<size_t>(walk[j]) % static_cast<size_t>(nlinks));
                  const int sw = cdg.link_node(link);
                  const int32_t oc = S[static_cast<size_t>(walk[j])].outch;
                  txt += f.port_name(sw, oc >= 0 ? cdg.link_port(static_cast<int>(oc / kNumVlSlots)) : 0) + " -> ";
                }
                txt += "" + f.node_name(s) + " (DLID " + std::to_string(d) + ")";
                st.loop_examples.push_back(txt);
              }
            } else {
              if (cin >= 0 && S[cu].outch >= 0)
                record_edge(s, in, cdg.link_port(static_cast<int>(S[cu].outch / kNumVlSlots)),
                            static_cast<Cdg::Id>(cin), static_cast<Cdg::Id>(S[cu].outch));
              result = S[cu].res;
            }
            break;
          }
          S[cu].stamp = walk_id;
          walk.push_back(cur);
          // A start state (CA-facing input port, or port 0) has no predecessors: its count is
          // settled right after the walk, so it stays out of the per-destination propagation.
          if (cur != start) touched.push_back(cur);
          S[cu].next = -1;
          S[cu].outch = -1;
          // the hop itself is the check library's one (RouteWalker::hop = follow())
          const RouteHop hp = slow_walker->hop(s);
          const int o = hp.port;
          DropKind dk{};
          bool drop = false, done = false;
          if (hp.kind == RouteHop::Dropped && hp.drop != DropKind::WrongEndpoint) {
            dk = hp.drop, drop = true;
          } else if (hp.kind == RouteHop::Delivered && o == 0) {
            S[cu].hops = 0;
            done = true;
          } else {  // a linked port: to the next switch, the owner, or another CA
            const int link = cdg.link_id(s, o);
            const int v = vl_at(s, in, o, sl);
            const Cdg::Id oc = static_cast<Cdg::Id>(link) * kNumVlSlots + static_cast<Cdg::Id>(v);
            S[cu].outch = static_cast<int32_t>(oc);
            used_local[oc] = 1;
            if (cin >= 0) record_edge(s, in, o, static_cast<Cdg::Id>(cin), oc);
            if (hp.kind == RouteHop::Forward) {
              cin = static_cast<int32_t>(oc);
              s = hp.next;
              in = hp.next_port;
              const int32_t nx = state_of(s, in, sl);
              S[cu].next = nx;
              cur = nx;
              continue;
            }
            if (hp.kind == RouteHop::Delivered) {
              S[cu].hops = 1;
              done = true;
            } else {
              dk = DropKind::WrongEndpoint, drop = true;
              s = hp.next, in = hp.next_port;  // name the endpoint in the message
            }
          }
          if (drop) {
            drops.push_back({dk, s, dk == DropKind::WrongEndpoint ? in : o});
            result = static_cast<int32_t>(drops.size() - 1);
          } else if (done) {
            result = -1;
          }
          break;
        }
        // Propagate the outcome (and hop counts) back along the walk.
        if (result < 0) {
          for (size_t j = walk.size(); j-- > 0;) {
            const size_t w = static_cast<size_t>(walk[j]);
            S[w].res = -1;
            if (S[w].next >= 0) S[w].hops = static_cast<uint16_t>(S[static_cast<size_t>(S[w].next)].hops + 1);
          }
        } else {
          for (int32_t w : walk) S[static_cast<size_t>(w)].res = result;
        }
        if (src.inj_link >= 0) {
          const int v = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          used_local[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(v)] = 1;
        }
        const StateRec& sr = S[static_cast<size_t>(start)];
        account(src, sr.res, sr.hops, sr.outch, sr.next);
        // Remember the continuation: the next CA sources behind the same switch with the same SL
        // leave through the same LFT entry, so they only add their injection edge and counts.
        if (src.inj_link >= 0 && sr.outch >= 0) {
          fast_sw = src.sw;
          fast_sl = sl;
          fast_out = cdg.link_port(static_cast<int>(sr.outch / kNumVlSlots));
          fast_res = sr.res;
          fast_hops = sr.hops;
          fast_next = sr.next;
        } else {
          fast_sw = -1;
        }
      }
      // Routes per link: push the per-state counts down the in-tree (decreasing hops).
      if (opt.collect_loads) {
        if (buckets.size() < static_cast<size_t>(max_hops) + 2) buckets.resize(static_cast<size_t>(max_hops) + 2);
        for (auto& b : buckets) b.clear();
        for (int32_t t : touched) {
          const size_t w = static_cast<size_t>(t);
          if (S[w].res >= 0) continue;
          buckets[std::min<size_t>(S[w].hops, buckets.size() - 1)].push_back(t);
        }
        for (size_t h = buckets.size(); h-- > 0;) {
          for (int32_t t : buckets[h]) {
            const size_t w = static_cast<size_t>(t);
            const uint32_t c = S[w].cnt;
            if (c == 0) continue;
            if (S[w].outch >= 0) st.link_load[static_cast<size_t>(S[w].outch) / kNumVlSlots] += c;
            if (S[w].next >= 0) S[static_cast<size_t>(S[w].next)].cnt += c;
            S[w].cnt = 0;
          }
        }
      }
      // stamps are only compared against dest_base; guard against wrap-around
      if (walk_id > 0xF0000000u) {
        for (auto& x : S) x.stamp = 0;
        walk_id = 0;
      }
    }
  }
  // Merge the switch-level pass's workers (sums and unions: independent of the thread count).
  uint32_t fast_dests = 0;
  for (const FastWorker& w : fw) fast_dests += w.fast_dests;
  if (fast_ok && fast_dests > 0) {
    std::vector<uint32_t> deliv_count(sh.swl.size(), 0), own_fast(static_cast<size_t>(nlinks), 0);
    std::vector<uint64_t> inj_corr(static_cast<size_t>(nlinks), 0), bits(fw[0].edge_bits.size(), 0);
    for (const FastWorker& w : fw) {
      st.pairs += w.pairs;
      st.delivered += w.delivered;
      st.dropped += w.dropped;
      st.looping += w.looping;
      for (int k = 0; k < 6; k++) st.per_kind[k] += w.per_kind[k];
      if (w.hop_histogram.size() > st.hop_histogram.size()) st.hop_histogram.resize(w.hop_histogram.size(), 0);
      for (size_t h = 0; h < w.hop_histogram.size(); h++) st.hop_histogram[h] += w.hop_histogram[h];
      for (size_t l = 0; l < w.link_load.size(); l++) st.link_load[l] += w.link_load[l];
      for (size_t u = 0; u < sh.swl.size(); u++)
        for (int o = 0; o <= sh.np_pos[u]; o++)
          if (w.used_out[u * static_cast<size_t>(sh.W) + static_cast<size_t>(o >> 6)] >> (o & 63) & 1)
            used_local[static_cast<size_t>(sh.link_base[u] + o) * kNumVlSlots] = 1;
      for (size_t i = 0; i < deliv_count.size(); i++) deliv_count[i] += w.deliv_count[i];
      for (size_t l = 0; l < own_fast.size(); l++) own_fast[l] += w.own_fast[l], inj_corr[l] += w.inj_corr[l];
      for (size_t b = 0; b < bits.size(); b++) bits[b] |= w.edge_bits[b];
    }
    // Dependencies on VL0: row (u, out), bit in = the link arriving at (u, in) -> (u, out).
    // Transposed (row (u, in), bit out: the successors of the channel arriving at (u, in), in
    // increasing order), they are the CDG's adjacency lists, handed over without a sort.
    const size_t W = static_cast<size_t>(sh.W);
    std::vector<uint64_t> tr(bits.size(), 0);
    for (size_t u = 0; u < sh.swl.size(); u++)
      for (int o = 0; o <= sh.np_pos[u]; o++)
        for (size_t k = 0; k < W; k++)
          for (uint64_t m = bits[(sh.row_base[u] + static_cast<size_t>(o)) * W + k]; m; m &= m - 1) {
            const size_t in = k * 64 + static_cast<size_t>(__builtin_ctzll(m));
            tr[(sh.row_base[u] + in) * W + static_cast<size_t>(o >> 6)] |= uint64_t{1} << (o & 63);
          }
    auto arriving = [&](size_t u, int in) {  // the VL0 channel arriving at (u, in)
      const size_t l = static_cast<size_t>(sh.link_base[u] + in);
      return static_cast<size_t>(cdg.link_id(peer_node[l], peer_port[l])) * kNumVlSlots;
    };
    std::vector<uint32_t> off(static_cast<size_t>(cdg.num_ids()) + 1, 0);
    for (size_t u = 0; u < sh.swl.size(); u++)
      for (int in = 1; in <= sh.np_pos[u]; in++) {
        uint32_t cnt = 0;
        for (size_t k = 0; k < W; k++) cnt += static_cast<uint32_t>(__builtin_popcountll(tr[(sh.row_base[u] + static_cast<size_t>(in)) * W + k]));
        if (cnt) off[arriving(u, in) + 1] = cnt;
      }
    for (size_t c = 1; c < off.size(); c++) off[c] += off[c - 1];
    std::vector<Cdg::Id> adj(off.back());
    for (size_t u = 0; u < sh.swl.size(); u++)
      for (int in = 1; in <= sh.np_pos[u]; in++) {
        const uint64_t* t = &tr[(sh.row_base[u] + static_cast<size_t>(in)) * W];
        if (std::all_of(t, t + W, [](uint64_t x) { return x == 0; })) continue;  // also: no link at (u, in)
        size_t pos = off[arriving(u, in)];
        for (size_t k = 0; k < W; k++)
          for (uint64_t m = t[k]; m; m &= m - 1)
            adj[pos++] = static_cast<Cdg::Id>(sh.link_base[u] + static_cast<int>(k * 64) + __builtin_ctzll(m)) * kNumVlSlots;
      }
    cdg.add_dependencies(std::move(off), std::move(adj));
    for (size_t i = 0; i < sh.swl.size(); i++)
      for (const auto& [inj, inport] : sh.ca_at[i]) {
        const size_t l = static_cast<size_t>(inj);
        if (fast_dests > own_fast[l]) used_local[l * kNumVlSlots] = 1;  // paired with some destination
        if (opt.collect_loads) st.link_load[l] += static_cast<uint64_t>(deliv_count[i]) * sh.link_entries[l] - inj_corr[l];
      }
  }
  if (!opt.hop_histogram) st.hop_histogram.clear();
  for (size_t c = 0; c < used_local.size(); c++)
    if (used_local[c]) {
      cdg.mark_used(static_cast<Cdg::Id>(c));
      st.vl_mask = static_cast<uint16_t>(st.vl_mask | (1u << (c % kNumVlSlots)));
    }
  cdg.finalize();
  return out;
}

}  // namespace ftroute
