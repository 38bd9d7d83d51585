// flitsim's simulator (private to flitsim/): Simulator::Impl, its state and the declarations of
// its parts. Split by responsibility like BookSim2 (routers / allocators / traffic manager); the
// per-flit paths are inline functions in headers that the one translation unit sim.cpp includes,
// so they still inline into the main loop:
//   sim_types.hpp        the records (events, buffers, channels, connections, packets, NAC)
//   router.hpp           input buffers, VC state, route computation, crossbar connections, credits
//   allocators.hpp       switch allocation: feasibility, the factory allocator_for(), separable, iSLIP
//   endpoint.hpp         packets, the source process (injection), the source queue, ejection, measurement
//   faults.hpp           link failures, escape LIDs, truncation, re-routing on a new routing
//   nac.hpp              NAC (Zarza's deadlock recovery): trigger, identification, recovery, DABs
//   ftdrb_source.hpp     FT-DRB source: fault notifications and latency ACKs to the selector
//   sim.cpp              the core loop (events, phases, per-cycle steps) and the Simulator interface
//   network.cpp          building channels, switches and endpoints from the fabric; the SL2VL cache
//   config.cpp           Config presets and validation
//   routing_check.cpp    check_routing (LFT walk with check/'s RouteWalker), endpoints_of
//   traffic.cpp          traffic patterns and trace files (setup_traffic, load_trace)
//   deadlock_report.cpp  the wait-for graph report after a detected deadlock
// See docs/flitsim.md for the model; comments here explain mechanics.
#pragma once

#include "sim_types.hpp"

namespace ftroute::flitsim {

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

  // Packet records in fixed chunks of kPkChunk, found through a chunk table, so a record never
  // moves: with threads (Par) every shard reads the records of packets other shards created.
  // A shard allocates the chunks k * nsh + shard (k = 0, 1, ...): slot numbers, and so the whole
  // run, depend only on the seed and the thread count. One thread: slots 0, 1, 2, ... as before.
  static constexpr uint32_t kPkShift = 12, kPkChunk = 1u << kPkShift;
  static constexpr size_t kPkMaxChunks = size_t(1) << 19;  // 2^31 packet slots
  Pkt** pk_tab = nullptr;             // the chunk table (own_pk_tab, or Par's with threads)
  std::vector<Pkt*> own_pk_tab;
  std::vector<std::unique_ptr<Pkt[]>> pk_chunks;  // chunks this shard allocated
  uint32_t pk_cur = 0, pk_fill = kPkChunk;
  Pkt& pk(uint32_t pi) { return pk_tab[pi >> kPkShift][pi & (kPkChunk - 1)]; }
  std::vector<uint32_t> pkt_free;
  uint64_t next_id = 1;

  // ---------------- threads (sim.cpp; docs/flitsim.md "Threads") ----------------
  // With Config::threads > 1 the simulator runs nsh shards, one Impl per thread, each owning a
  // range of switches and the endpoints attached to them (own_sw, own_ep; per channel the
  // sender side own_src and the receiver side own_dst). Each shard keeps a full copy of the
  // network arrays but only touches the entries it owns; events for another shard's side of a
  // channel (a flit arriving, a credit returning) go to my_out[shard] and are put on that shard's
  // wheel at the start of the next cycle, in the order of sending shard, then send order.
  struct Par;
  struct OutEv {
    int64_t t;
    Ev e;
  };
  Par* par = nullptr;
  int shard = 0, nsh = 1;
  std::vector<OutEv>* my_out = nullptr;  // this cycle's outboxes, one per destination shard
  std::vector<uint16_t> own_src, own_dst, own_sw, own_ep;
  struct HookRec {  // a delivery (reason == nullptr) or a drop, for the hooks (called in order)
    uint64_t id;
    int src, dst;
    int64_t latency;
    const char* reason;
  };
  std::vector<HookRec> hook_buf;
  int dl_kind = 0;
  std::vector<double> shard_cpu;  // threads: CPU seconds of each shard's loop, then of its barrier waits
  double wait_cpu = 0;
  bool any_src = false;  // threads: this shard has a queued packet behind a live link (stall check)
  uint64_t par_meas_out() const;
  uint64_t par_owing() const;
  uint64_t par_in_network() const;
  uint64_t par_in_source() const;
  int64_t par_last_progress() const;
  bool par_any_src() const;
  bool par_empty() const;  // threads: the loop stopped on a deadlock (1) or a stalled source (2)
  void post(int64_t t, const Ev& e, int to) {
    if (to == shard) at(t, e);
    else my_out[to].push_back({t, e});
  }
  void post_flit_credit(int64_t t, const Ev& e);
  void put(int64_t t, const Ev& e) {  // an event from another shard (due now or later)
    Bucket& b = wheel[static_cast<uint64_t>(t) & wmask];
    if (b.n == b.v.size()) grow(b);
    b.v[b.n++] = e;
  }
  void sync(bool publish = true);
  void drain_inbox();
  void run_setup(const TrafficSpec& t);
  void run_loop();
  Result run_finish();
  void absorb(Impl& o);
  void fill_wait_for(std::vector<int64_t>& next);
  void report_wait_for(const std::vector<int64_t>& next);
  int64_t drain_end = 0, hard_end = 0;
  bool trace_mode = false;

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
  // Waypoints (set_waypoints): the table, shared by every shard, and (src << 32 | dst) -> index
  struct WpTable {
    std::vector<Waypoints> w;
    std::unordered_map<uint64_t, int32_t> of_pair;
  };
  std::shared_ptr<const WpTable> wp;
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
  std::vector<Rng> sl_rng;   // per source: the --sl-spread draws, apart so that they change no destination
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
  // cycles without progress that count as a deadlock: Config::deadlock_timeout, but at least two
  // link latencies and a margin (a flit on a long link moves nothing until it arrives, and its
  // credit as long again: --link-latency 2500 at 1 % load read as a deadlock)
  int64_t deadlock_after = 0;
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
  // hotspot with hot sources (TrafficSpec::hot_sources): which sources send only to the hot
  // endpoints (at hot_prob packets/cycle), which endpoints are hot; empty otherwise
  std::vector<char> hot_src, hot_ep;
  double hot_prob = 0;
  std::vector<double> blat;  // latencies of the measured background packets (to endpoints not hot)
  std::vector<int> perm;  // fixed destination per source (permutations)
  std::vector<double> lat, nlat;
  double hops_sum = 0;
  uint64_t measured_outstanding = 0;
  uint64_t window_flits_ejected = 0, window_flits_generated = 0;
  int64_t win_lo = 0, win_hi = 0;

  Impl(const Fabric& fab, const Routing& r, const Config& c, Simulator* o, Pkt** shared_pk_tab = nullptr)
      : f(fab), R(&r), cfg(c), owner(o), rng(c.seed) {
    cfg.validate();
    if (shared_pk_tab) {
      pk_tab = shared_pk_tab;
    } else {
      own_pk_tab.assign(kPkMaxChunks, nullptr);
      pk_tab = own_pk_tab.data();
    }
    min_need = cfg.packet_flits;
    V = cfg.num_vcs > 0 ? cfg.num_vcs : std::max(1, r.num_vls);
    bsm = cfg.model == RouterModel::BookSim;
    build();
    build_vl_cache();
    if (cfg.sl_spread > 1 && (!vl_base.empty() || r.path_sl))
      throw OptionError("flitsim: --sl-spread needs a routing on SL 0 with the identity SL2VL (no path SLs, no SL2VL "
                        "tables: the spread picks the VCs)");
    if (cfg.sl_spread > V)
      throw OptionError("flitsim: --sl-spread " + std::to_string(cfg.sl_spread) + " needs as many VCs, the run has " +
                        std::to_string(V) + " (--vcs)");
    if (cfg.lid_policy == LidPolicy::FtDrb) ftdrb = std::make_unique<FtDrbSelector>(f, cfg);
    alloc_step = allocator_for(cfg.allocator);
  }

  void build();  // network.cpp (also build_vl_cache)

  // SL2VL lookups of the current routing, flattened: a hash lookup per routed head was ~10% of
  // the run time on the dateline torus. vl_base[c] indexes vl_idx by the output port of the
  // switch channel c enters; vl_idx holds an index into vl_tabs (0 = identity).
  std::vector<Sl2Vl::Table> vl_tabs;
  std::vector<uint32_t> vl_base;
  std::vector<uint16_t> vl_idx;
  std::vector<uint16_t> vl_ep;  // per endpoint: table of its CA port
  void build_vl_cache();
  int vl_at(int c, int out_port, int sl) const;
  int vl_src(int e, int sl) const;

  int64_t nac_timeout() const { return 2 * static_cast<int64_t>(sws.size() + 1) * cfg.nac_tf + 4; }

  // (always_inline: with the BookSim model's callers GCC stopped inlining it into the ib model's
  // step_conns, 18 % of the run time went into calls)
  __attribute__((always_inline)) inline void at(int64_t t, const Ev& e) {
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

  // ---------------- packets (endpoint.hpp; ftdrb_fault: ftdrb_source.hpp) ----------------
  uint32_t new_pkt();

  void finalize_drop(uint32_t pi, const char* reason);

  void ftdrb_fault(uint32_t pi, int node, int port);
  void ftdrb_deliver_due();

  void flit_gone(uint32_t pi);  // one flit of the packet left the network for good

  void generate(int src, int dst, int flits, int64_t gen_cycle, bool mark = true);

  // ---------------- source process (endpoint.hpp) ----------------
  void set_due(int s, int64_t t);
  void gen_next(int s, bool mark);
  void refill(int s);

  // ---------------- routing (router.hpp; escape LIDs: faults.hpp) ----------------
  Lid find_escape(int c, const Pkt& p, uint8_t* sl_out) const;
  FaultPolicy dead_port_policy() const;

  void route_front(int c, int v);
  void next_waypoint(Pkt& p, int sw);

  void front_changed(int c, int v, bool after_tail = false);

  // ---------------- crossbar connections (router.hpp; truncate_conn: faults.hpp) ----------------
  int32_t new_conn();
  void drop_conn(int32_t id);

  void start_discard(int c, int v);

  void grant(int c, int v, int ov = -1);  // switch input (c, v) front gets its output (BookSim: VC ov, -1 = any free)

  __attribute__((always_inline)) inline void credit_return(int c, int v, int n);

  void finish_conn(int32_t id);
  void discard_arrived(int32_t id, Conn& k, InVC& q, Entry& e);
  void discard_at_source(int32_t id, Conn& k);

  void truncate_conn(int32_t id);

  // ---------------- flits and credits (router.hpp; deliver: endpoint.hpp) ----------------
  __attribute__((always_inline)) inline void on_flit(const Ev& e);

  void deliver(uint32_t pi, int dst_ep);

  void on_credit(const Ev& e);
  __attribute__((always_inline)) inline void credit_arrives(uint32_t cid, uint8_t vc, int32_t n);

  bool credits_ok(int oc, int ov, int size) const;

  bool feasible(uint32_t r);

  struct Cand {
    uint32_t r;
    int in_port, out_port;
    int32_t oc;
    bool dab;
  };
  std::vector<Cand> cands, chosen;

  // ---------------- allocators (allocators.hpp; allocate_ep: endpoint.hpp) ----------------
  // One allocation round of a switch over `cands` (its feasible requests, see allocate_switch):
  // grants through grant(). allocator_for() is the factory: the step is chosen once per simulator
  // (Config::allocator) and called through a member pointer, one indirect call per allocation.
  using AllocStep = void (Impl::*)();
  static AllocStep allocator_for(Allocator a);
  AllocStep alloc_step = nullptr;
  static int rr_dist(int x, int ptr, int mod);
  static constexpr int kAllocPorts = 256;

  void alloc_separable();

  void alloc_islip();
  // BookSim model with Config::va_per_vc: iSLIP over input VCs x output VCs (BookSim2's VC
  // allocator); va_g_rr: grant pointer per output VC (ch * V + vc, over in_port * V + vc),
  // va_a_rr: accept pointer per input VC (over out_port * V + vc).
  void alloc_va_vc();
  struct VaReq {
    uint32_t cand;
    int32_t ovc;      // oc * V + ov
    int32_t in_idx, out_idx;
  };
  std::vector<VaReq> va_req, va_grants;
  std::vector<uint8_t> va_matched;
  std::vector<uint16_t> va_g_rr, va_a_rr;
  int class_vcs(int oc) const;  // BookSim: VCs in a class of output channel oc

  void allocate_switch(int s);

  void allocate_ep(int e);

  void step_conns();
  void step_conns_bs();  // RouterModel::BookSim: switch allocation per flit
  void send_flit_bs(Conn& k, size_t ci, int credit_ch, uint8_t credit_vc);
  int free_vc(int oc, int base, uint16_t from) const;  // BookSim: a free output VC of a class

  void send_flit(Conn& k, size_t ci, uint32_t credit_ch = UINT32_MAX, uint8_t credit_vc = 0);

  // ---------------- faults and re-routing (faults.hpp) ----------------
  void set_link(int node, int port, bool up);
  void link_changed(size_t c, bool up);
  Impl& shard_impl(int s);  // threads: shard s (serial sections only)
  void par_min_need_1();

  void ungrant(int32_t id);

  void reroute_all();

  // ---------------- NAC (nac.hpp) ----------------
  bool input_full(const InVC& q) const { return cfg.buffer_flits - q.occ < cfg.packet_flits; }
  bool logical_full(int oc, int ov, int slack_pkts) const;
  bool front_complete(InVC& q);

  uint32_t new_msg(const NacMsg& m);
  void send_ctrl(EvKind kind, NacMsg m, int via_ch, int via_vc);

  void nac_trigger_scan();

  void release_run_token(NacRun& run);

  void close_run(int32_t ri);

  int32_t move_to_dab(int c, int v, int tok_ch, int tok_vc, bool take_new_token);

  void apply_nac_credits(int c, int v, int32_t n);

  void on_nac_id(uint32_t mi);

  void on_nac_rec(uint32_t mi);

  void on_nac_timeout(uint32_t ri);

  // ---------------- deadlock report ----------------
  void build_deadlock_report();  // deadlock_report.cpp

  // ---------------- traffic (traffic.cpp; next_gap, pick_dest: endpoint.hpp) ----------------
  static bool pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

  void setup_traffic();  // traffic.cpp

  void load_trace();  // traffic.cpp

  int64_t next_gap(int s);  // cycles to source s's next packet (its own rate: hot sources)

  int pick_dest(int s);

  // ---------------- main loop (sim.cpp; settle_sources: endpoint.hpp) ----------------
  void process_events();

  // Empty = nothing in the network, nothing queued, and (flushing) no lazy source still owes a
  // packet generated before the flush started.
  bool network_empty() const { return res.in_network == 0 && res.in_source == 0 && owing == 0; }

  void settle_sources();

  Result run(const TrafficSpec& t);

  // ---------------- RouterModel::BookSim state (router.hpp; kept last: the ib model's hot members
  // keep their layout) ----------------
  // RouterModel::BookSim (docs/flitsim.md "Router models"): per-channel delays of a flit after
  // it wins switch allocation (bs_fd: until it is in the downstream buffer) and of a credit
  // after the downstream frees the slot (bs_cd: until the sender can use it); SA round-robin
  // pointers per channel (as input: VC and output-port pointers; as output: input-port pointer);
  // VC-allocation pointer per output channel. vc_blk: VCs per SL2VL class (1 in the Ib model).
  bool bsm = false;
  int vc_blk = 1;
  std::vector<int32_t> bs_fd, bs_cd;
  std::vector<uint16_t> sa_vc_rr, sa_in_rr, sa_out_rr, va_rr;
  struct SaReq {
    int32_t id, in_ch, out_ch;
    uint16_t in_port, out_port;
    uint8_t vc;
  };
  std::vector<SaReq> sa_req;
  std::vector<int64_t> sa_out_stamp, sa_in_stamp;  // cycle whose best slot the entry holds
  std::vector<int32_t> sa_out_best, sa_out_key, sa_in_best, sa_in_key, sa_outs, sa_ins;
};

}  // namespace ftroute::flitsim
