// flitsim's simulator state (private to flitsim/): the data structures and Simulator::Impl.
// The per-flit paths (events, routing, allocation, credits, NAC) stay defined in the class so they
// inline into the main loop (sim.cpp); set-up and reporting live in their own files:
//   config.cpp           Config presets and validation
//   routing_check.cpp    check_routing (LFT walk with check/'s RouteWalker), endpoints_of
//   traffic.cpp          traffic patterns and trace files (setup_traffic, load_trace)
//   deadlock_report.cpp  the wait-for graph report after a detected deadlock
//   sim.cpp              the Simulator interface
// See docs/flitsim.md for the model; comments here explain mechanics.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ftroute/flitsim.hpp"
#include "ftdrb_select.hpp"
#include "ftroute/route_walk.hpp"

namespace ftroute::flitsim {

// Internal invariant check: throws instead of aborting (library code may run inside tools).
// The message is built in an out-of-line cold lambda, so a check on the per-flit path costs a
// compare and a branch, not the register pressure of an inline std::string construction.
#define FLITSIM_CHECK(cond, what)                                                              \
  do {                                                                                         \
    if (__builtin_expect(!(cond), 0))                                                          \
      [&]() __attribute__((noinline, cold)) {                                                  \
        throw Error(std::string("flitsim internal invariant violated: ") + (what));           \
      }();                                                                                     \
  } while (0)

namespace detail {

struct Rng {  // xoshiro256** seeded by splitmix64
  uint64_t s[4];
  explicit Rng(uint64_t seed) {
    for (auto& x : s) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      x = z ^ (z >> 31);
    }
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    return r;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

// Ring buffer with a power-of-two capacity (index by mask: a modulo costs a division per flit).
template <class T>
struct Ring {
  std::vector<T> v;
  uint32_t head = 0, n = 0, mask = 0;
  void init(size_t cap) {
    size_t c = 1;
    while (c < cap) c <<= 1;
    v.assign(c, T{});
    mask = static_cast<uint32_t>(c - 1);
  }
  bool empty() const { return n == 0; }
  uint32_t size() const { return n; }
  T& front() { return v[head]; }
  T& back() { return v[(head + n - 1) & mask]; }
  T& at(uint32_t i) { return v[(head + i) & mask]; }
  void push(const T& x) {
    if (n == v.size()) {  // grow (only the DAB-less worst case of 1-flit packets can fill it)
      std::vector<T> nv(v.size() * 2);
      for (uint32_t i = 0; i < n; i++) nv[i] = at(i);
      v.swap(nv);
      head = 0;
      mask = static_cast<uint32_t>(v.size() - 1);
    }
    v[(head + n) & mask] = x;
    n++;
  }
  void pop() { head = (head + 1) & mask, n--; }
};

enum : uint8_t { kIdle, kRouting, kWaiting, kActive, kDiscard };
// kEvFlitCredit = a flit arriving on channel a plus the credit for the buffer it left (channel
// c2, VC vc2): the common case credit_delay == link_latency needs one event per flit hop, not two.
enum EvKind : uint8_t { kEvFlit, kEvCredit, kEvRoute, kEvNacId, kEvNacRec, kEvNacTimeout, kEvFlitCredit };

struct Ev {
  uint8_t kind;
  uint8_t vc;
  uint8_t vc2 = 0;
  uint8_t pad = 0;
  uint32_t a;  // channel / msg index
  uint32_t b;  // packet slot / count
  int32_t size;
  uint32_t c2 = 0;
};

struct Entry {
  uint32_t pkt = 0;
  int32_t size = 0, arrived = 0, departed = 0;
  int64_t head_arrival = 0;
};

struct InVC {
  Ring<Entry> q;
  int32_t occ = 0;  // flits in q (not counting the DAB)
  uint8_t state = kIdle;
  bool dab_full = false;
  bool in_req = false;         // listed in its switch's request vector
  bool dab_holds_st = false;   // the DAB packet holds a NAC stop token on (st_ch, st_vc)
  uint8_t st_vc = 0;
  int32_t st_ch = -1;
  int32_t out_ch = -1;
  uint8_t out_vc = 0;
  int32_t conn = -1;      // connection reading the front (also discard)
  int32_t nac_run = -1;   // open NAC run originated by this input VC
  Entry dab;
  Entry& front() { return dab_full ? dab : q.front(); }
  bool has_front() const { return dab_full || !q.empty(); }
};

struct Channel {
  int src_node, src_port, dst_node, dst_port;
  int src_ep = -1;  // source endpoint (CA side) or -1 for a switch
  int dst_ep = -1;  // sink endpoint or -1 for a switch input
  int src_sw = -1, dst_sw = -1;  // switch index (dense) or -1
  bool alive = true;
  int32_t out_conn = -1;  // connection currently using this channel as output
  int32_t in_conn = -1;   // crossbar connection reading this channel's input buffer
  uint16_t out_rr = 0;    // allocator pointer (input port number) for this output
  uint16_t in_rr = 0;     // allocator pointer (VC) for this input
  uint16_t acc_rr = 0;    // iSLIP accept pointer (output port number) for this input
};

struct Conn {
  uint32_t pkt;
  int32_t in_ch;   // -1 = source queue
  int32_t ep;      // source endpoint when in_ch == -1
  int32_t out_ch;  // -1 = discard
  uint8_t in_vc, out_vc;
  bool from_dab;
  int32_t size, sent;
  int64_t start;
  uint32_t list_pos;
  bool finish_dead = false;  // Escape: its link died after the head crossed; the tail follows
};

struct Pkt {
  uint64_t id;
  int32_t src, dst;
  Lid slid, dlid;
  uint8_t sl;
  bool measured, doomed, finalized, injected;
  bool lid_chosen, probe, notified;  // FtDrb: DLID picked at the head of the source queue; probe message
  bool escaped;  // FaultPolicy::Escape: re-addressed to an escape LID (no latency ACK)
  uint8_t lid_off;
  int64_t lid_at;  // FtDrb: cycle the DLID was chosen
  int32_t size, deliver_size, sink_arrived, flits_left;
  int32_t hops;
  int64_t gen, inject;
};

struct SwitchState {
  int node;
  std::vector<int32_t> in_chs;  // incoming channels
  std::vector<int32_t> out_by_port;  // port -> outgoing channel (-1)
  std::vector<uint32_t> req;    // global ivc ids (ch * V + vc) in kWaiting
  bool dirty = false;
  int stopped_fw = 0;  // NAC: local (CA) inputs may not forward while > 0
  int dab_count = 0;
};

struct EpState {
  int node, port;
  Lid base;
  uint8_t lmc;
  int32_t out_ch = -1, in_ch = -1;
  std::deque<uint32_t> queue;  // source queue (packet slots)
  bool dirty = false;
  uint32_t rr = 0;
  // Synthetic source process: cycle of the next Bernoulli generation not materialised yet (-1:
  // none). Lazy sources (default) materialise it only when the queue is empty (run() comment).
  int64_t gen_due = -1;
};

struct NacMsg {
  uint64_t seq;
  int origin_sw;
  int32_t origin_in_ch;
  uint8_t origin_in_vc, origin_out_vc;
  int32_t origin_out_ch;
  int32_t ttl;
  int32_t credits;  // recovery: the freed DAB slot's credits travel with the signal
  int32_t ch;  // channel the message travels back over (arrives at ch.src)
  uint8_t vc;
};

struct NacRun {
  uint64_t seq;
  int sw;
  int32_t in_ch;
  uint8_t in_vc;
  int32_t out_ch;
  uint8_t out_vc;
  bool confirmed = false, open = true, token = true;
};

struct LinkEv {
  int64_t cycle;
  int node, port;
  bool up;
};
struct RoutingEv {
  int64_t cycle;
  const Routing* r;
};
struct TraceRec {
  int64_t cycle;
  int src, dst, flits;
};

}  // namespace detail
using namespace detail;

struct Simulator::Impl {
  const Fabric& f;
  const Routing* R;
  Config cfg;
  int V = 1;
  Simulator* owner;

  std::vector<Endpoint> eps_pub;
  std::vector<EpState> eps;
  std::vector<Channel> ch;
  std::vector<InVC> ivc;       // ch * V + vc
  std::vector<int32_t> credits;  // ch * V + vc
  std::vector<int32_t> ovc_conn;  // ch * V + vc: connection owning the output VC
  std::vector<int64_t> in_stamp, out_stamp;  // wormhole: last cycle a port moved a flit
  std::vector<int32_t> step_tmp;
  bool wh = false;
  std::vector<uint16_t> stopped_st;  // ch * V + vc (NAC)
  std::vector<int32_t> nac_rsv;      // ch * V + vc: credits freed by NAC, reserved for switch inputs
  std::vector<SwitchState> sws;
  std::vector<int> sw_of_node;  // node -> dense switch index or -1
  std::vector<int32_t> ep_of_lid;  // LID -> endpoint index

  std::vector<Conn> conns;
  std::vector<int32_t> conn_free;
  std::vector<int32_t> active;  // connection ids

  std::vector<Pkt> pkts;
  std::vector<uint32_t> pkt_free;
  uint64_t next_id = 1;

  // Time-wheel bucket: `v` is storage (its size is the capacity), `n` the events in it. Growing
  // is out of line so that at(), called for every flit hop, stays small enough to inline.
  struct Bucket {
    std::vector<Ev> v;
    uint32_t n = 0;
  };
  std::vector<Bucket> wheel;
  __attribute__((noinline)) static void grow(Bucket& b) { b.v.resize(b.v.empty() ? 256 : 2 * b.v.size()); }
  uint64_t wmask = 0;
  int64_t now = 0;

  std::vector<int> dirty_sw, dirty_ep, retry_sw;

  std::priority_queue<std::pair<int64_t, int>, std::vector<std::pair<int64_t, int>>, std::greater<>> gen_q;
  std::vector<LinkEv> link_evs;
  std::vector<RoutingEv> routing_evs;
  size_t link_i = 0, routing_i = 0;
  std::vector<TraceRec> trace;
  size_t trace_i = 0;

  // NAC
  std::vector<NacMsg> msgs;
  std::vector<uint32_t> msg_free;
  std::vector<NacRun> runs;
  std::unordered_map<uint64_t, int32_t> run_of_seq;
  std::unordered_set<uint64_t> seen;
  uint64_t nac_seq = 1;

  Rng rng;
  std::vector<Rng> src_rng;  // per source: gaps, destinations, LMC offsets (same draws eager or lazy)
  Result res;
  // FT-DRB source state and pending fault notifications (time, packet's src, node, port, sent)
  std::unique_ptr<FtDrbSelector> ftdrb;
  struct FtNote {
    int64_t t;
    int src, node, port;
    int64_t sent;
    bool probe;
    bool bcast;
    bool operator>(const FtNote& o) const { return t > o.t; }
  };
  std::priority_queue<FtNote, std::vector<FtNote>, std::greater<>> ft_notes;
  std::set<std::pair<int, int>> ft_bcast;
  struct FtAck {
    int64_t t;
    int src, dst;
    uint8_t off;
    bool probe;
    int64_t latency;
    bool operator>(const FtAck& o) const { return t > o.t; }
  };
  std::priority_queue<FtAck, std::vector<FtAck>, std::greater<>> ft_acks;  // (node, port) already broadcast while down
  int64_t last_progress = 0;
  int32_t min_need = 1;  // VCT: fewest credits any head needs (smallest packet; 1 after a truncation)
  bool generating = false;
  bool eager = false;            // TrafficSpec::eager_sources
  int64_t gen_limit = INT64_MAX;  // no packet is generated at or after this cycle (flush started)
  int64_t gen_upto = -1;          // last cycle whose generations have been processed
  // Sources whose next unmaterialised generation is before owe_limit (win_hi while measuring
  // and draining, gen_limit while flushing): a lazy source still owes those packets.
  uint64_t owing = 0;
  int64_t owe_limit = 0;
  TrafficSpec tr;
  double pkt_prob = 0;
  std::vector<int> perm;  // fixed destination per source (permutations)
  std::vector<double> lat, nlat;
  double hops_sum = 0;
  uint64_t measured_outstanding = 0;
  uint64_t window_flits_ejected = 0, window_flits_generated = 0;
  int64_t win_lo = 0, win_hi = 0;

  Impl(const Fabric& fab, const Routing& r, const Config& c, Simulator* o)
      : f(fab), R(&r), cfg(c), owner(o), rng(c.seed) {
    cfg.validate();
    min_need = cfg.packet_flits;
    V = cfg.num_vcs > 0 ? cfg.num_vcs : std::max(1, r.num_vls);
    build();
    build_vl_cache();
    if (cfg.lid_policy == LidPolicy::FtDrb) ftdrb = std::make_unique<FtDrbSelector>(f, cfg);
    alloc_step = allocator_for(cfg.allocator);
  }

  void build() {
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
    // As small as the longest delay allows: a bucket is written and read within a few cycles, so
    // a small wheel stays in cache (16 buckets of ~1k events each cost a store miss per event).
    uint64_t w = 2;
    while (w <= static_cast<uint64_t>(maxd)) w <<= 1;
    wheel.assign(w, {});
    wmask = w - 1;
  }

  // SL2VL lookups of the current routing, flattened: a hash lookup per routed head was ~10% of
  // the run time on the dateline torus. vl_base[c] indexes vl_idx by the output port of the
  // switch channel c enters; vl_idx holds an index into vl_tabs (0 = identity).
  std::vector<Sl2Vl::Table> vl_tabs;
  std::vector<uint32_t> vl_base;
  std::vector<uint16_t> vl_idx;
  std::vector<uint16_t> vl_ep;  // per endpoint: table of its CA port
  void build_vl_cache() {
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
  // VL of SL `sl` entering switch channel c's switch and leaving by `out_port`.
  int vl_at(int c, int out_port, int sl) const {
    if (vl_base.empty()) return sl;
    return vl_tabs[vl_idx[vl_base[static_cast<size_t>(c)] + static_cast<size_t>(out_port)]][static_cast<size_t>(sl & 15)];
  }
  int vl_src(int e, int sl) const {
    if (vl_ep.empty()) return sl;
    return vl_tabs[vl_ep[static_cast<size_t>(e)]][static_cast<size_t>(sl & 15)];
  }

  int64_t nac_timeout() const { return 2 * static_cast<int64_t>(sws.size() + 1) * cfg.nac_tf + 4; }

  inline void at(int64_t t, const Ev& e) {
    FLITSIM_CHECK(t > now || (t == now && e.kind != kEvFlit), "event scheduled in the past");
    FLITSIM_CHECK(static_cast<uint64_t>(t - now) <= wmask, "event beyond time wheel");
    Bucket& b = wheel[static_cast<uint64_t>(t) & wmask];
    if (__builtin_expect(b.n == b.v.size(), 0)) grow(b);
    b.v[b.n++] = e;
  }

  std::string chan_name(int c) const {
    const Channel& x = ch[c];
    return f.port_name(x.src_node, x.src_port) + "->" + f.port_name(x.dst_node, x.dst_port);
  }

  void mark_sw(int s) {
    if (s >= 0 && !sws[s].dirty) sws[s].dirty = true, dirty_sw.push_back(s);
  }
  void mark_ep(int e) {
    if (e >= 0 && !eps[e].dirty) eps[e].dirty = true, dirty_ep.push_back(e);
  }

  // ---------------- packets ----------------
  uint32_t new_pkt() {
    if (!pkt_free.empty()) {
      uint32_t i = pkt_free.back();
      pkt_free.pop_back();
      return i;
    }
    pkts.push_back({});
    return static_cast<uint32_t>(pkts.size() - 1);
  }

  void finalize_drop(uint32_t pi, const char* reason) {
    Pkt& p = pkts[pi];
    if (p.doomed || p.finalized) return;
    p.doomed = true;
    p.finalized = true;
    res.dropped++;
    res.drops[reason]++;
    if (p.injected) res.in_network--;
    else res.in_source--;
    if (p.measured) res.measured_dropped++, measured_outstanding--;
    if (owner->on_drop) owner->on_drop(p.id, reason);
  }

  // FT-DRB: packet pi was dropped because link (node, port) is dead; its source hears of it
  // after hops x ftdrb_notify_hop_cycles (default link_latency) cycles, at least 1.
  void ftdrb_fault(uint32_t pi, int node, int port) {
    if (!ftdrb) return;
    const Pkt& p = pkts[pi];
    if (!p.injected) return;
    int64_t per = cfg.ftdrb_notify_hop_cycles > 0 ? cfg.ftdrb_notify_hop_cycles : cfg.link_latency;
    ft_notes.push(FtNote{now + std::max<int64_t>(1, static_cast<int64_t>(p.hops) * per), p.src, node, port, p.lid_at, p.probe, false});
    if (cfg.ftdrb_notify_all && ft_bcast.insert({node, port}).second) {
      // BFS hop distance from the detecting switch to every endpoint
      std::vector<int> dist(static_cast<size_t>(f.size()), -1);
      std::deque<int> bq{node};
      dist[node] = 0;
      while (!bq.empty()) {
        int u = bq.front();
        bq.pop_front();
        if (!f.node(u).is_switch() && u != node) continue;
        for (int q = 1; q <= f.node(u).num_ports; q++) {
          const Port& pp = f.node(u).port(q);
          if (pp.connected() && dist[pp.peer_node] < 0) dist[pp.peer_node] = dist[u] + 1, bq.push_back(pp.peer_node);
        }
      }
      for (size_t e = 0; e < eps.size(); e++)
        if (dist[eps[e].node] >= 0)
          ft_notes.push(FtNote{now + std::max<int64_t>(1, dist[eps[e].node] * per), static_cast<int>(e), node, port, now, false, true});
    }
  }

  void flit_gone(uint32_t pi) {  // one flit of the packet left the network for good
    Pkt& p = pkts[pi];
    FLITSIM_CHECK(p.flits_left > 0, "packet flit count underflow");
    if (--p.flits_left == 0) {
      FLITSIM_CHECK(p.finalized, "packet vanished without being delivered or dropped");
      pkt_free.push_back(pi);
    }
  }

  void generate(int src, int dst, int flits, int64_t gen_cycle, bool mark = true) {
    if (dst < 0 || dst == src) return;
    uint32_t pi = new_pkt();
    Pkt& p = pkts[pi];
    p = Pkt{};
    p.id = next_id++;
    p.src = src, p.dst = dst;
    EpState& s = eps[src];
    EpState& d = eps[dst];
    p.slid = s.base;
    uint32_t nl = 1u << d.lmc, off = 0;
    switch (cfg.lid_policy) {
      case LidPolicy::Base: off = 0; break;
      case LidPolicy::Random: off = static_cast<uint32_t>(src_rng[src].below(nl)); break;
      case LidPolicy::Hash: off = static_cast<uint32_t>((static_cast<uint64_t>(src) * 2654435761u) % nl); break;
      case LidPolicy::RoundRobin: off = s.rr++ % nl; break;
      case LidPolicy::FtDrb: off = 0; break;  // chosen at the head of the source queue
    }
    p.dlid = static_cast<Lid>(d.base + off);
    p.sl = R->sl(p.slid, p.dlid);
    p.size = p.deliver_size = p.flits_left = flits;
    min_need = std::min(min_need, flits);
    p.gen = gen_cycle;
    p.measured = gen_cycle >= win_lo && gen_cycle < win_hi;
    res.generated++;
    res.in_source++;
    if (p.measured) {
      res.measured_packets++, measured_outstanding++;
      window_flits_generated += static_cast<uint64_t>(flits);
    }
    s.queue.push_back(pi);
    if (mark) mark_ep(src);
  }

  // ---------------- source process ----------------
  void set_due(int s, int64_t t) {
    int64_t& d = eps[s].gen_due;
    bool owed_before = d >= 0 && d < owe_limit, owed_after = t >= 0 && t < owe_limit;
    if (owed_before && !owed_after) owing--;
    if (!owed_before && owed_after) owing++;
    d = t;
  }
  // Generates source s's packet due at gen_due (its true generation cycle) and draws the next.
  void gen_next(int s, bool mark) {
    int64_t t = eps[s].gen_due;
    generate(s, pick_dest(s), cfg.packet_flits, t, mark);
    int64_t g = next_gap(src_rng[s]);
    set_due(s, g > 0 ? t + g : -1);
  }
  // Lazy source whose queue is empty: materialise the packets already due (a backlog: their
  // generation cycles are in the past) until one is queued, else wait for the next one.
  void refill(int s) {
    EpState& E = eps[s];
    if (eager || !E.queue.empty()) return;
    while (E.queue.empty() && E.gen_due >= 0 && E.gen_due <= gen_upto && E.gen_due < gen_limit) gen_next(s, false);
    if (E.queue.empty() && E.gen_due > gen_upto && E.gen_due < gen_limit) gen_q.push({E.gen_due, s});
  }

  // ---------------- routing ----------------
  // FaultPolicy::Escape: the first LID of p's destination (base + 0, 1, ... 2^LMC - 1) other
  // than p.dlid whose LFT walk from the switch channel c enters (the packet arriving by c)
  // reaches the destination CA over live links, visiting no switch twice, with every VL (SL2VL
  // of the routing's path_sl for (SLID, new DLID)) below V. 0 if there is none.
  Lid find_escape(int c, const Pkt& p, uint8_t* sl_out) const {
    const EpState& d = eps[p.dst];
    const uint32_t nl = 1u << d.lmc;
    for (uint32_t off = 0; off < nl; off++) {
      const Lid l = static_cast<Lid>(d.base + off);
      if (l == p.dlid) continue;
      const uint8_t sl = R->sl(p.slid, l);
      int in = c;
      bool ok = false;
      for (size_t hop = 0; hop <= sws.size(); hop++) {  // more switch hops than switches: a loop
        int s = ch[in].dst_sw;
        if (s < 0) {
          ok = ch[in].dst_ep == p.dst;
          break;
        }
        uint8_t port = R->lfts.get(sws[s].node, l);
        if (port == kNoPath || port == 0 || port >= sws[s].out_by_port.size() || sws[s].out_by_port[port] < 0) break;
        int oc = sws[s].out_by_port[port];
        if (!ch[oc].alive || vl_at(in, port, sl) >= V) break;
        in = oc;
      }
      if (ok) {
        *sl_out = sl;
        return l;
      }
    }
    return 0;
  }
  // What a packet that meets a dead port gets when it cannot (or may not) escape.
  FaultPolicy dead_port_policy() const {
    return cfg.fault_policy == FaultPolicy::Escape ? cfg.escape_fallback : cfg.fault_policy;
  }

  // Route the front packet of (c, v) at switch sw. Returns false if it was dropped.
  void route_front(int c, int v) {
    InVC& q = ivc[static_cast<size_t>(c) * V + v];
    if (!q.has_front() || q.state != kRouting) return;
    Entry& e = q.front();
    Pkt& p = pkts[e.pkt];
    int s = ch[c].dst_sw;
    const char* why = nullptr;
    if (p.doomed) why = "";
    uint8_t port = kNoPath;
    if (!why) {
      if (++p.hops > cfg.hop_limit) why = "hop limit exceeded (routing loop)";
    }
    if (!why) {
      port = R->lfts.get(sws[s].node, p.dlid);
      if (port == kNoPath) why = "no route (LFT entry 255)";
      else if (port == 0) why = "LFT delivers to switch port 0";
      else if (port >= sws[s].out_by_port.size() || sws[s].out_by_port[port] < 0) why = "LFT port missing or unlinked";
    }
    if (!why && cfg.fault_policy == FaultPolicy::Escape && !ch[sws[s].out_by_port[port]].alive) {
      // Escape path (docs/ftdrb.md "Escape paths"): the detecting switch notifies the source
      // and rewrites DLID (and SL) to an escape LID of the same destination.
      const Channel& dead = ch[sws[s].out_by_port[port]];
      uint8_t nsl = 0;
      Lid l = find_escape(c, p, &nsl);
      if (l) {
        ftdrb_fault(e.pkt, dead.src_node, dead.src_port);
        p.notified = true;
        p.dlid = l, p.sl = nsl, p.escaped = true;
        res.escaped++;
        port = R->lfts.get(sws[s].node, l);
      } else {
        res.escape_fallbacks++;
      }
    }
    int oc = -1, ov = 0;
    if (!why) {
      oc = sws[s].out_by_port[port];
      ov = vl_at(c, port, p.sl);
      if (ov >= V) why = "VL out of range";
      else if (!ch[oc].alive && dead_port_policy() == FaultPolicy::Drop)
        why = cfg.fault_policy == FaultPolicy::Escape ? "output link down (no escape LID)" : "output link down";
      else if (!ch[oc].alive && ftdrb && !p.notified) {  // Hold: the switch still notifies the source
        p.notified = true;
        ftdrb_fault(e.pkt, ch[oc].src_node, ch[oc].src_port);
      }
    }
    if (why) {
      if (*why && oc >= 0 && !ch[oc].alive) ftdrb_fault(e.pkt, ch[oc].src_node, ch[oc].src_port);
      if (*why) finalize_drop(e.pkt, why);
      start_discard(c, v);
      return;
    }
    q.out_ch = oc, q.out_vc = static_cast<uint8_t>(ov);
    q.state = kWaiting;
    if (!q.in_req) sws[s].req.push_back(static_cast<uint32_t>(c) * V + v), q.in_req = true;
    mark_sw(s);
  }

  void front_changed(int c, int v) {
    InVC& q = ivc[static_cast<size_t>(c) * V + v];
    q.conn = -1;
    if (!q.has_front()) {
      q.state = kIdle;
      return;
    }
    q.state = kRouting;
    int64_t ready = std::max(now, q.front().head_arrival + cfg.routing_delay);
    if (ready <= now) route_front(c, v);
    else at(ready, Ev{kEvRoute, static_cast<uint8_t>(v), 0, 0, static_cast<uint32_t>(c), 0, 0});
  }

  // ---------------- connections ----------------
  int32_t new_conn() {
    int32_t id;
    if (!conn_free.empty()) id = conn_free.back(), conn_free.pop_back();
    else id = static_cast<int32_t>(conns.size()), conns.push_back({});
    conns[id].list_pos = static_cast<uint32_t>(active.size());
    active.push_back(id);
    return id;
  }
  void drop_conn(int32_t id) {
    uint32_t pos = conns[id].list_pos;
    int32_t last = active.back();
    active[pos] = last;
    conns[last].list_pos = pos;
    active.pop_back();
    conn_free.push_back(id);
  }

  void start_discard(int c, int v) {
    InVC& q = ivc[static_cast<size_t>(c) * V + v];
    int32_t id = new_conn();
    Conn& k = conns[id];
    Entry& e = q.front();
    k = Conn{e.pkt, c, -1, -1, static_cast<uint8_t>(v), 0, q.dab_full, e.size, e.departed, now, k.list_pos};
    q.state = kDiscard;
    q.conn = id;
  }

  void grant(int c, int v) {  // switch input (c, v) front gets its output
    InVC& q = ivc[static_cast<size_t>(c) * V + v];
    Entry& e = q.front();
    int32_t id = new_conn();
    Conn& k = conns[id];
    k = Conn{e.pkt, c, -1, q.out_ch, static_cast<uint8_t>(v), q.out_vc, q.dab_full, e.size, 0,
             now + cfg.alloc_delay + cfg.xbar_delay, k.list_pos};
    q.state = kActive;
    q.conn = id;
    if (q.nac_run >= 0) close_run(q.nac_run);  // the deadlock-prone state went away
    if (cfg.nac && ch[c].src_sw >= 0) {
      int32_t& rsv = nac_rsv[static_cast<size_t>(q.out_ch) * V + q.out_vc];
      rsv = std::max(0, rsv - e.size);
    }
    ovc_conn[static_cast<size_t>(q.out_ch) * V + q.out_vc] = id;
    if (!wh) {  // VCT: the crossbar connection is held for the packet (IB never interleaves)
      ch[c].in_conn = id;
      ch[q.out_ch].out_conn = id;
    }
  }

  void credit_return(int c, int v, int n) {
    if (ch[c].src_sw < 0 && ch[c].src_ep < 0) return;
    at(now + cfg.credit_delay, Ev{kEvCredit, static_cast<uint8_t>(v), 0, 0, static_cast<uint32_t>(c), static_cast<uint32_t>(n), 0});
  }

  // A connection finished (all `size` flits sent or discarded).
  void finish_conn(int32_t id) {
    Conn k = conns[id];
    drop_conn(id);
    if (k.out_ch >= 0) {
      if (ovc_conn[static_cast<size_t>(k.out_ch) * V + k.out_vc] == id) ovc_conn[static_cast<size_t>(k.out_ch) * V + k.out_vc] = -1;
      if (ch[k.out_ch].out_conn == id) ch[k.out_ch].out_conn = -1;
      if (ch[k.out_ch].src_sw >= 0) mark_sw(ch[k.out_ch].src_sw);
    }
    if (k.in_ch < 0) {  // source
      mark_ep(k.ep);
      return;
    }
    InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
    if (ch[k.in_ch].in_conn == id) ch[k.in_ch].in_conn = -1;
    int s = ch[k.in_ch].dst_sw;
    if (k.from_dab) {
      q.dab_full = false;
      sws[s].dab_count--;
      if (q.dab_holds_st) {
        stopped_st[static_cast<size_t>(q.st_ch) * V + q.st_vc]--;
        sws[s].stopped_fw--;
        q.dab_holds_st = false;
        if (ch[q.st_ch].src_sw >= 0) mark_sw(ch[q.st_ch].src_sw);
      }
    } else {
      q.q.pop();
    }
    mark_sw(s);
    front_changed(k.in_ch, k.in_vc);
  }

  // Cut a packet being streamed over output `oc` (link died, drop policy).
  void truncate_conn(int32_t id) {
    Conn& k = conns[id];
    uint32_t pi = k.pkt;
    int32_t sent_over = k.sent;
    int32_t oc = k.out_ch, ov = k.out_vc;
    if (!pkts[pi].doomed && !pkts[pi].finalized) ftdrb_fault(pi, ch[oc].src_node, ch[oc].src_port);
    finalize_drop(pi, "link failed while the packet crossed it");
    min_need = 1;
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
        Pkt& p = pkts[pi];
        p.deliver_size = sent_over;
        break;
      }
      InVC& q = ivc[static_cast<size_t>(c) * V + v];
      Entry* e = nullptr;
      if (q.dab_full && q.dab.pkt == pi) e = &q.dab;
      for (uint32_t i = 0; !e && i < q.q.size(); i++)
        if (q.q.at(i).pkt == pi && q.q.at(i).size > q.q.at(i).arrived) e = &q.q.at(i);
      if (!e) {
        // Flits are still on the wire and the head has not arrived yet: remember the cut on the
        // packet so the arrival creates a short entry.
        pkts[pi].deliver_size = sent_over;
        break;
      }
      int32_t lost = e->size - sent_over;
      e->size = sent_over;
      (void)lost;
      bool is_front = q.has_front() && &q.front() == e;
      if (!is_front || q.conn < 0) break;
      Conn& dk = conns[q.conn];
      dk.size = sent_over;
      if (dk.out_ch < 0) break;
      c = dk.out_ch, v = dk.out_vc;
    }
  }

  // ---------------- per-cycle steps ----------------
  __attribute__((always_inline)) inline void on_flit(const Ev& e) {
    int c = static_cast<int>(e.a);
    uint32_t pi = e.b;
    Pkt& p = pkts[pi];
    res.flits_moved++;
    if (ch[c].dst_ep >= 0) {  // sink
      credit_return(c, e.vc, 1);
      p.sink_arrived++;
      if (!p.doomed && p.dst != ch[c].dst_ep) finalize_drop(pi, "delivered to the wrong CA (LFT error)");
      if (now >= win_lo && now < win_hi) window_flits_ejected++;
      if (p.sink_arrived == std::min(p.deliver_size, p.size)) deliver(pi, ch[c].dst_ep);
      flit_gone(pi);
      return;
    }
    InVC& q = ivc[static_cast<size_t>(c) * V + e.vc];
    bool appended = false;
    if (!q.q.empty()) {
      Entry& b = q.q.back();
      if (b.pkt == pi && b.arrived < b.size) b.arrived++, appended = true;
    }
    if (!appended) {
      Entry n;
      n.pkt = pi;
      n.size = e.size;
      if (p.deliver_size < n.size && p.doomed) n.size = std::max(1, p.deliver_size);
      n.arrived = 1;
      n.departed = 0;
      n.head_arrival = now;
      q.q.push(n);
    }
    q.occ++;
    FLITSIM_CHECK(q.occ <= cfg.buffer_flits, "input buffer overflow at " + chan_name(c));
    if (!appended && q.q.size() == 1 && !q.dab_full) front_changed(c, e.vc);
  }

  void deliver(uint32_t pi, int dst_ep) {
    Pkt& p = pkts[pi];
    if (p.doomed) return;  // truncated/dropped fragments drain into the sink
    FLITSIM_CHECK(!p.finalized, "packet delivered twice");
    FLITSIM_CHECK(p.dst == dst_ep, "packet delivered to the wrong endpoint");
    p.finalized = true;
    res.delivered++;
    res.in_network--;
    int64_t latency = now - p.gen;
    if (p.measured) {
      measured_outstanding--;
      res.measured_delivered++;
      lat.push_back(static_cast<double>(latency));
      nlat.push_back(static_cast<double>(now - p.inject));
      hops_sum += p.hops;
    }
    if (ftdrb && !p.escaped) {  // latency ACK back to the source (escaped packets send none): hops x per-hop cycles, like notifications
      int64_t per = cfg.ftdrb_notify_hop_cycles > 0 ? cfg.ftdrb_notify_hop_cycles : cfg.link_latency;
      ft_acks.push(FtAck{now + std::max<int64_t>(1, static_cast<int64_t>(p.hops + 1) * per), p.src, p.dst,
                         p.lid_off, p.probe, now - p.inject});
    }
    if (owner->on_deliver) owner->on_deliver(p.id, p.src, p.dst, latency);
  }

  void on_credit(const Ev& e) { credit_arrives(e.a, e.vc, static_cast<int32_t>(e.b)); }
  __attribute__((always_inline)) inline void credit_arrives(uint32_t cid, uint8_t vc, int32_t n) {
    size_t i = static_cast<size_t>(cid) * V + vc;
    credits[i] += n;
    FLITSIM_CHECK(credits[i] <= cfg.buffer_flits, "credit counter above buffer size at " + chan_name(static_cast<int>(cid)));
    // Wake the sender only if the credit can make a head feasible: its output is not streaming
    // another packet (VCT: finish_conn wakes it then) and the counter covers the smallest packet.
    const Channel& c = ch[cid];
    if (!wh && (c.out_conn >= 0 || credits[i] < min_need)) return;
    if (c.src_sw >= 0) {
      if (!sws[c.src_sw].req.empty()) mark_sw(c.src_sw);
    } else if (c.src_ep >= 0) {
      if (!eps[c.src_ep].queue.empty()) mark_ep(c.src_ep);
    }
  }

  bool credits_ok(int oc, int ov, int size) const {
    int32_t cr = credits[static_cast<size_t>(oc) * V + ov];
    return cfg.switching == Switching::VirtualCutThrough ? cr >= size : cr >= 1;
  }

  // Is the request of input VC id r feasible right now?
  bool feasible(uint32_t r) {
    int c = static_cast<int>(r / V), v = static_cast<int>(r % V);
    InVC& q = ivc[r];
    if (q.state != kWaiting) return false;
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

  struct Cand {
    uint32_t r;
    int in_port, out_port;
    int32_t oc;
    bool dab;
  };
  std::vector<Cand> cands, chosen;

  // ---------------- allocators ----------------
  // One allocation round of a switch over `cands` (its feasible requests, see allocate_switch):
  // grants through grant(). allocator_for() is the factory: the step is chosen once per simulator
  // (Config::allocator) and called through a member pointer, one indirect call per allocation.
  using AllocStep = void (Impl::*)();
  static AllocStep allocator_for(Allocator a) {
    return a == Allocator::Separable ? &Impl::alloc_separable : &Impl::alloc_islip;
  }
  AllocStep alloc_step = nullptr;
  // distance from a round-robin pointer (0 <= x < mod, 0 <= ptr <= mod); no division: the
  // comparators run O(n log n) times per allocation
  static int rr_dist(int x, int ptr, int mod) {
    int d = x - ptr;
    return d < 0 ? d + mod : d;
  }
  static constexpr int kAllocPorts = 256;

  // Separable input-first allocator: one VC per input port, then one input per output.
  void alloc_separable() {
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
  void alloc_islip() {
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

  void allocate_switch(int s) {
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

  void allocate_ep(int e) {
    EpState& E = eps[e];
    E.dirty = false;
    while (true) {
      refill(e);
      if (E.queue.empty()) return;
      if (E.out_ch < 0) {  // endpoint without a link: nothing can leave
        uint32_t pi = E.queue.front();
        E.queue.pop_front();
        finalize_drop(pi, "source not connected");
        for (int i = 0; i < pkts[pi].size; i++) flit_gone(pi);
        continue;
      }
      Channel& oc = ch[E.out_ch];
      if (oc.out_conn >= 0) return;
      uint32_t pi = E.queue.front();
      Pkt& p = pkts[pi];
      if (ftdrb && !p.lid_chosen) {
        const EpState& d = eps[p.dst];
        auto c = ftdrb->choose(*R, p.src, p.dst, E.node, E.port, d.base, 1u << d.lmc, rng.uniform());
        p.lid_chosen = true, p.lid_at = now, p.probe = c.probe, p.lid_off = static_cast<uint8_t>(c.offset);
        p.dlid = static_cast<Lid>(d.base + c.offset);
        p.sl = R->sl(p.slid, p.dlid);
      }
      if (!oc.alive) {  // the CA's own link: no escape LID can avoid it
        if (dead_port_policy() == FaultPolicy::Hold) return;
        if (cfg.fault_policy == FaultPolicy::Escape) res.escape_fallbacks++;
        E.queue.pop_front();
        finalize_drop(pi, "source link down");
        for (int i = 0; i < p.size; i++) flit_gone(pi);
        continue;
      }
      int vl = vl_src(e, p.sl);
      if (vl >= V) {
        E.queue.pop_front();
        finalize_drop(pi, "VL out of range");
        for (int i = 0; i < p.size; i++) flit_gone(pi);
        continue;
      }
      if (!credits_ok(E.out_ch, vl, p.size)) return;
      int32_t id = new_conn();
      Conn& k = conns[id];
      k = Conn{pi, -1, e, E.out_ch, 0, static_cast<uint8_t>(vl), false, p.size, 0, now, k.list_pos};
      oc.out_conn = id;
      ovc_conn[static_cast<size_t>(E.out_ch) * V + vl] = id;
      E.queue.pop_front();
      p.injected = true;
      p.inject = now;
      res.injected++;
      res.in_source--;
      res.in_network++;
      refill(e);
      return;
    }
  }

  // Every active connection moves at most one flit per cycle. Under wormhole several
  // connections share a port, so a port moves at most one flit per cycle (rotating priority).
  void step_conns() {
    step_tmp.assign(active.begin(), active.end());  // finish_conn edits `active`
    size_t n = step_tmp.size();
    size_t off = wh && n ? static_cast<size_t>(now) % n : 0;
    for (size_t j = 0; j < n; j++) {
      int32_t id = step_tmp[off ? (j + off) % n : j];
      Conn& k = conns[id];
      if (k.sent >= k.size) {
        finish_conn(id);
        continue;
      }
      if (now < k.start) continue;
      if (k.in_ch < 0) {  // from the source queue: all flits present
        if (k.out_ch < 0) {  // truncated at the source link: discard the rest
          while (k.sent < k.size) k.sent++, flit_gone(k.pkt);
          last_progress = now;
          finish_conn(id);
          continue;
        }
        if (!ch[k.out_ch].alive && !k.finish_dead) continue;
        size_t ci = static_cast<size_t>(k.out_ch) * V + k.out_vc;
        if (credits[ci] <= 0) continue;
        send_flit(k, ci);
        if (k.sent >= k.size) finish_conn(id);
        continue;
      }
      InVC& q = ivc[static_cast<size_t>(k.in_ch) * V + k.in_vc];
      Entry& e = q.front();
      if (k.out_ch < 0) {  // discard everything that has arrived
        while (e.departed < e.arrived) {
          e.departed++;
          k.sent++;
          if (!k.from_dab) {
            q.occ--;
            credit_return(k.in_ch, k.in_vc, 1);
          }
          flit_gone(k.pkt);
          last_progress = now;
        }
        if (k.sent >= k.size) finish_conn(id);
        continue;
      }
      if (e.departed >= e.arrived || (!ch[k.out_ch].alive && !k.finish_dead)) continue;
      size_t ci = static_cast<size_t>(k.out_ch) * V + k.out_vc;
      if (credits[ci] <= 0) continue;
      if (wh) {
        if (in_stamp[k.in_ch] == now || out_stamp[k.out_ch] == now) continue;
        in_stamp[k.in_ch] = out_stamp[k.out_ch] = now;
      }
      e.departed++;
      if (!k.from_dab) {
        q.occ--;
        if (cfg.credit_delay == cfg.link_latency) {  // flit and credit in one event
          send_flit(k, ci, static_cast<uint32_t>(k.in_ch), k.in_vc);
          if (k.sent >= k.size) finish_conn(id);
          continue;
        }
        credit_return(k.in_ch, k.in_vc, 1);
      }
      send_flit(k, ci);
      if (k.sent >= k.size) finish_conn(id);
    }
  }

  // credit_ch >= 0: the flit's event also returns one credit of (credit_ch, credit_vc), which
  // the caller guarantees is due at the same cycle (credit_delay == link_latency).
  void send_flit(Conn& k, size_t ci, uint32_t credit_ch = UINT32_MAX, uint8_t credit_vc = 0) {
    credits[ci]--;
    FLITSIM_CHECK(credits[ci] >= 0, "negative credits at " + chan_name(k.out_ch));
    if (credits[ci] < res.min_credits) res.min_credits = credits[ci];
    if (credit_ch != UINT32_MAX)  // (every channel has a sender: build() skips the others)
      at(now + cfg.link_latency, Ev{kEvFlitCredit, k.out_vc, credit_vc, 0, static_cast<uint32_t>(k.out_ch), k.pkt,
                                    k.size, credit_ch});
    else
      at(now + cfg.link_latency, Ev{kEvFlit, k.out_vc, 0, 0, static_cast<uint32_t>(k.out_ch), k.pkt, k.size});
    k.sent++;
    last_progress = now;
  }

  // ---------------- faults and re-routing ----------------
  void set_link(int node, int port, bool up) {
    const Node& n = f.node(node);
    if (port < 1 || port > n.num_ports || !n.port(port).connected())
      throw FabricError("flitsim: link event on " + f.port_name(node, port) + ", which is not linked");
    int peer = n.port(port).peer_node, pp = n.port(port).peer_port;
    if (up) ft_bcast.erase({node, port}), ft_bcast.erase({peer, pp});
    for (size_t c = 0; c < ch.size(); c++) {
      Channel& x = ch[c];
      if (!((x.src_node == node && x.src_port == port) || (x.src_node == peer && x.src_port == pp))) continue;
      if (x.alive == up) continue;
      x.alive = up;
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
          pkts[ivc[r].front().pkt].hops--;
          route_front(static_cast<int>(r / V), static_cast<int>(r % V));
        }
      }
      if (!up && cfg.fault_policy == FaultPolicy::Hold && ftdrb && x.src_sw >= 0) {
        for (uint32_t r : sws[x.src_sw].req) {  // held heads: their sources are notified
          InVC& q = ivc[r];
          if (q.state == kWaiting && q.out_ch == static_cast<int>(c) && !pkts[q.front().pkt].notified) {
            pkts[q.front().pkt].notified = true;
            ftdrb_fault(q.front().pkt, x.src_node, x.src_port);
          }
        }
      }
      if (!up && cfg.fault_policy == FaultPolicy::Drop) {
        if (x.src_sw >= 0) {  // heads waiting for this output are dropped now
          for (uint32_t r : sws[x.src_sw].req) {
            InVC& q = ivc[r];
            if (q.state == kWaiting && q.out_ch == static_cast<int>(c)) {
              if (!pkts[q.front().pkt].finalized) ftdrb_fault(q.front().pkt, x.src_node, x.src_port);
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
  void ungrant(int32_t id) {
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
      Pkt& p = pkts[k.pkt];
      eps[k.ep].queue.push_front(k.pkt);
      p.injected = false;
      res.injected--, res.in_network--, res.in_source++;
      mark_ep(k.ep);
    }
  }

  void reroute_all() {
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
        pkts[q.front().pkt].hops--;
        route_front(static_cast<int>(r / V), static_cast<int>(r % V));
      }
    }
    for (size_t i = 0; i < sws.size(); i++) mark_sw(static_cast<int>(i));
  }

  // ---------------- NAC ----------------
  bool input_full(const InVC& q) const { return cfg.buffer_flits - q.occ < cfg.packet_flits; }
  bool logical_full(int oc, int ov, int slack_pkts) const {
    if (ch[oc].dst_sw < 0) return false;  // sinks never fill
    return credits[static_cast<size_t>(oc) * V + ov] < cfg.packet_flits * (1 + slack_pkts);
  }
  bool front_complete(InVC& q) {
    if (!q.has_front()) return false;
    Entry& e = q.front();
    return e.arrived == e.size && e.departed == 0;
  }

  uint32_t new_msg(const NacMsg& m) {
    uint32_t i;
    if (!msg_free.empty()) i = msg_free.back(), msg_free.pop_back(), msgs[i] = m;
    else i = static_cast<uint32_t>(msgs.size()), msgs.push_back(m);
    return i;
  }
  void send_ctrl(EvKind kind, NacMsg m, int via_ch, int via_vc) {
    if (ch[via_ch].src_sw < 0) return;  // upstream is a CA: cannot be on a cycle
    m.ch = via_ch, m.vc = static_cast<uint8_t>(via_vc);
    uint32_t i = new_msg(m);
    if (kind == kEvNacId) res.nac_id_packets++;
    at(now + cfg.nac_tf, Ev{kind, 0, 0, 0, i, 0, 0});
  }

  void nac_trigger_scan() {
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

  void release_run_token(NacRun& run) {
    if (!run.token) return;
    run.token = false;
    stopped_st[static_cast<size_t>(run.out_ch) * V + run.out_vc]--;
    sws[run.sw].stopped_fw--;
    if (ch[run.out_ch].src_sw >= 0) mark_sw(ch[run.out_ch].src_sw);
    mark_sw(run.sw);
  }

  void close_run(int32_t ri) {
    NacRun& run = runs[ri];
    if (!run.open) return;
    run.open = false;
    InVC& q = ivc[static_cast<size_t>(run.in_ch) * V + run.in_vc];
    if (q.nac_run == ri) q.nac_run = -1;
    release_run_token(run);
  }

  // Move the (complete, waiting) front of input (c, v) into its DAB; the stop token on
  // (tok_ch, tok_vc) stays with the DAB packet until it has left.
  int32_t move_to_dab(int c, int v, int tok_ch, int tok_vc, bool take_new_token) {
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
  void apply_nac_credits(int c, int v, int32_t n) {
    if (n <= 0) return;
    size_t i = static_cast<size_t>(c) * V + v;
    credits[i] += n;
    nac_rsv[i] += n;
    FLITSIM_CHECK(credits[i] <= cfg.buffer_flits, "credit counter above buffer size (NAC) at " + chan_name(c));
    mark_sw(ch[c].src_sw);
  }

  void on_nac_id(uint32_t mi) {
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

  void on_nac_rec(uint32_t mi) {
    NacMsg m = msgs[mi];
    msg_free.push_back(mi);
    int h = ch[m.ch].src_sw;
    if (h < 0) return;
    if (h == m.origin_sw) {  // went round the cycle: end of the run
      apply_nac_credits(m.ch, m.vc, m.credits);
      auto it = run_of_seq.find(m.seq);
      if (it != run_of_seq.end()) close_run(it->second);
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

  void on_nac_timeout(uint32_t ri) {
    NacRun& run = runs[ri];
    if (!run.open) return;
    if (!run.confirmed) res.nac_timeouts++;
    close_run(static_cast<int32_t>(ri));
    run_of_seq.erase(run.seq);
    if (seen.size() > (1u << 20)) seen.clear();  // keys carry the run's sequence number
  }

  // ---------------- deadlock report ----------------
  void build_deadlock_report();  // deadlock_report.cpp

  // ---------------- traffic ----------------
  static bool pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

  void setup_traffic();  // traffic.cpp

  void load_trace();  // traffic.cpp

  int64_t next_gap(Rng& rg) {
    if (pkt_prob >= 1.0) return 1;
    if (pkt_prob <= 0) return -1;
    double u = rg.uniform();
    double g = std::floor(std::log1p(-u) / std::log1p(-pkt_prob));
    if (g > 1e15) return -1;
    return 1 + static_cast<int64_t>(g);
  }

  int pick_dest(int s) {
    int N = static_cast<int>(eps.size());
    if (N < 2) return -1;
    if (tr.pattern == "hotspot") {
      static const std::vector<int> kZero{0};
      const std::vector<int>& hs = tr.hotspots.empty() ? kZero : tr.hotspots;
      if (src_rng[s].uniform() < tr.hotspot_fraction) return hs[src_rng[s].below(hs.size())];
    }
    if (tr.pattern == "uniform" || tr.pattern == "hotspot") {
      int d = static_cast<int>(src_rng[s].below(static_cast<uint64_t>(N - 1)));
      return d >= s ? d + 1 : d;
    }
    return perm[s];
  }

  // ---------------- main loop ----------------
  void process_events() {
    Bucket& bucket = wheel[static_cast<uint64_t>(now) & wmask];
    for (uint32_t i = 0; i < bucket.n; i++) {
      Ev e = bucket.v[i];  // (a handler may append to this bucket and grow it)
      switch (e.kind) {
        case kEvFlit: on_flit(e); break;
        case kEvCredit: on_credit(e); break;
        case kEvFlitCredit:
          on_flit(e);
          credit_arrives(e.c2, e.vc2, 1);
          break;
        case kEvRoute: route_front(static_cast<int>(e.a), e.vc); break;
        case kEvNacId: on_nac_id(e.a); break;
        case kEvNacRec: on_nac_rec(e.a); break;
        case kEvNacTimeout: on_nac_timeout(e.a); break;
      }
    }
    bucket.n = 0;
  }

  // Empty = nothing in the network, nothing queued, and (flushing) no lazy source still owes a
  // packet generated before the flush started.
  bool network_empty() const { return res.in_network == 0 && res.in_source == 0 && owing == 0; }

  // End of run: packets that lazy sources owe (generated, in the eager sense, up to the last
  // simulated cycle but never materialised) are counted as generated and waiting at the source.
  void settle_sources() {
    for (size_t s = 0; s < eps.size(); s++) {
      EpState& E = eps[s];
      while (E.gen_due >= 0 && E.gen_due <= gen_upto && E.gen_due < gen_limit) {
        int64_t t = E.gen_due;
        int d = pick_dest(static_cast<int>(s));
        if (d >= 0 && d != static_cast<int>(s)) {
          res.generated++, res.in_source++;
          if (t >= win_lo && t < win_hi) {
            res.measured_packets++;
            window_flits_generated += static_cast<uint64_t>(cfg.packet_flits);
          }
        }
        int64_t g = next_gap(src_rng[s]);
        set_due(static_cast<int>(s), g > 0 ? t + g : -1);
      }
    }
  }

  Result run(const TrafficSpec& t) {
    tr = t;
    setup_traffic();
    if (t.warmup < 0 || t.measure < 1) throw OptionError("warmup must be >= 0 and measure >= 1");
    win_lo = t.warmup, win_hi = t.warmup + t.measure;
    // Source process. Each source's Bernoulli process is a sequence of generation cycles with
    // geometric gaps, drawn from the source's own RNG stream (as are its destinations), so it does
    // not depend on when the packets are materialised. Eager sources create every packet at its
    // generation cycle; lazy sources (default) create a packet only when the source queue is
    // empty, stamped with its true generation cycle - the packets, their order and their
    // latencies (which include source queueing) are the same, but a source past saturation holds
    // one packet instead of thousands (BookSim2's TrafficManager injects the same way). Packets
    // still owed at the end are counted in generated/in_source/offered by settle_sources().
    eager = t.eager_sources;
    src_rng.clear();
    for (size_t i = 0; i < eps.size(); i++) src_rng.emplace_back(cfg.seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL * (i + 1));
    owe_limit = win_hi;
    std::vector<int> sources = t.active_sources;
    if (sources.empty())
      for (size_t i = 0; i < eps.size(); i++) sources.push_back(static_cast<int>(i));
    for (int s : sources) {
      if (s < 0 || s >= static_cast<int>(eps.size())) throw OptionError("active source out of range");
      if (t.pattern == "trace") break;
      if (eps[s].gen_due >= 0) continue;  // listed twice
      int64_t g = next_gap(src_rng[s]);
      set_due(s, g > 0 ? g - 1 : -1);
      if (g > 0) gen_q.push({g - 1, s});
    }
    std::sort(link_evs.begin(), link_evs.end(), [](auto& a, auto& b) { return a.cycle < b.cycle; });
    std::stable_sort(routing_evs.begin(), routing_evs.end(), [](auto& a, auto& b) { return a.cycle < b.cycle; });
    generating = true;
    int64_t drain_end = win_hi + t.max_drain;
    int64_t hard_end = drain_end + (t.flush ? t.max_flush : 0);
    bool trace_mode = t.pattern == "trace";
    if (trace_mode) win_lo = 0, win_hi = trace.empty() ? 1 : trace.back().cycle + 1;
    bool flushing = false;
    last_progress = 0;
    for (now = 0;; now++) {
      // phase control
      if (!trace_mode && now >= win_hi && !flushing) {
        if ((measured_outstanding == 0 && owing == 0) || now >= drain_end) {
          if (measured_outstanding || owing) res.drained = false;
          if (!t.flush) break;
          flushing = true;
          generating = false;
          gen_limit = now;  // packets generated before this cycle are still delivered
          owe_limit = now;
          owing = 0;
          for (auto& e : eps) owing += e.gen_due >= 0 && e.gen_due < owe_limit;
        }
      }
      if (trace_mode && trace_i >= trace.size() && network_empty()) break;
      if (flushing && network_empty()) break;
      if (now >= hard_end && !trace_mode) break;
      if (trace_mode && now >= win_hi + t.max_drain) break;
      while (link_i < link_evs.size() && link_evs[link_i].cycle <= now) {
        auto& l = link_evs[link_i++];
        set_link(l.node, l.port, l.up);
      }
      while (routing_i < routing_evs.size() && routing_evs[routing_i].cycle <= now) {
        R = routing_evs[routing_i++].r;
        build_vl_cache();
        if (ftdrb) ftdrb->routing_changed();
        reroute_all();
      }
      while (!ft_notes.empty() && ft_notes.top().t <= now) {
        FtNote n = ft_notes.top();
        ft_notes.pop();
        if (n.bcast) ftdrb->notify_broadcast(n.src, n.node, n.port, now);
        else ftdrb->notify(n.src, n.node, n.port, n.sent, n.probe, now);
      }
      while (!ft_acks.empty() && ft_acks.top().t <= now) {
        FtAck k = ft_acks.top();
        ft_acks.pop();
        ftdrb->delivered(k.src, k.dst, k.off, k.probe, k.latency);
      }
      process_events();
      if (trace_mode) {
        while (trace_i < trace.size() && trace[trace_i].cycle <= now) {
          auto& x = trace[trace_i++];
          generate(x.src, x.dst, x.flits, now);
        }
      } else {
        gen_upto = now;
        while (!gen_q.empty() && gen_q.top().first <= now) {
          auto [tt, s] = gen_q.top();
          gen_q.pop();
          EpState& E = eps[s];
          if (tt != E.gen_due || tt >= gen_limit) continue;  // stale, or after the flush started
          if (eager) {
            gen_next(s, true);
            if (E.gen_due >= 0) gen_q.push({E.gen_due, s});
          } else if (E.queue.empty()) {
            refill(s);  // (a non-empty queue refills itself when it empties)
            if (!E.queue.empty()) mark_ep(s);
          }
        }
      }
      if (cfg.nac && now % cfg.nac_period == 0) nac_trigger_scan();
      for (size_t i = 0; i < dirty_ep.size(); i++) allocate_ep(dirty_ep[i]);
      dirty_ep.clear();
      for (int s : retry_sw) mark_sw(s);
      retry_sw.clear();
      for (size_t i = 0; i < dirty_sw.size(); i++) allocate_switch(dirty_sw[i]);
      dirty_sw.clear();
      step_conns();
      if (res.in_network > 0 && now - last_progress > cfg.deadlock_timeout) {
        build_deadlock_report();
        break;
      }
      if (res.in_network == 0 && res.in_source > 0 && now - last_progress > cfg.deadlock_timeout) {
        bool any = false;
        for (auto& e : eps) any = any || (!e.queue.empty() && e.out_ch >= 0 && ch[e.out_ch].alive);
        if (!any) {
          build_deadlock_report();
          res.deadlock.text = "stalled at cycle " + std::to_string(now) +
                              ": packets wait in source queues behind failed links (hold policy)";
          break;
        }
      }
    }
    res.cycles = now;
    res.endpoints = static_cast<int>(eps.size());
    if (!trace_mode) settle_sources();
    if (ftdrb) {
      res.ftdrb_notifications = ftdrb->notifications, res.ftdrb_probes = ftdrb->probes;
      res.ftdrb_probes_delivered = ftdrb->probes_delivered, res.ftdrb_permanent = ftdrb->permanent;
      res.ftdrb_grows = ftdrb->grows, res.ftdrb_shrinks = ftdrb->shrinks;
      res.ftdrb_late_drops = ftdrb->late_drops;
    }
    res.flushed = network_empty();
    int64_t win = trace_mode ? std::max<int64_t>(1, now) : t.measure;
    double denom = static_cast<double>(std::max<size_t>(1, eps.size())) * static_cast<double>(win);
    res.offered = static_cast<double>(window_flits_generated) / denom;
    res.accepted = static_cast<double>(window_flits_ejected) / denom;
    if (!lat.empty()) {
      double s = 0, sn = 0;
      for (double x : lat) s += x;
      for (double x : nlat) sn += x;
      res.avg_latency = s / lat.size();
      res.avg_network_latency = sn / nlat.size();
      res.avg_hops = hops_sum / lat.size();
      std::vector<double> v = lat;
      size_t k = static_cast<size_t>(std::ceil(0.99 * v.size())) - 1;
      std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
      res.p99_latency = v[k];
      res.max_latency = *std::max_element(lat.begin(), lat.end());
    }
    if (res.measured_delivered + res.measured_dropped < res.measured_packets) res.drained = false;
    FLITSIM_CHECK(res.generated == res.delivered + res.dropped + res.in_network + res.in_source,
                  "packet conservation");
    return res;
  }
};

}  // namespace ftroute::flitsim
