// ftroute flitsim: a cycle-level flit simulator that replays the LFTs, path SLs and SL2VL tables
// of an ftroute::Routing on an ftroute::Fabric. See docs/flitsim.md for the router model, the
// pipeline, the fault and deadlock (NAC) semantics and the exact zero-load latency formula.
//
// Model in one paragraph: every connected physical port is a unidirectional channel with an
// input-queued buffer per VC at its receiving end (buffer_flits per VC) and a credit counter per
// VC at its sending end. Switches route a packet when its head reaches the front of its VC
// (LFT[dlid] -> output port, SL2VL(in, out, SL) -> output VC), allocate the crossbar with a
// separable (input-first round-robin) or iSLIP allocator, and then stream the packet one flit
// per cycle (the crossbar connection is held for the whole packet, as InfiniBand links never
// interleave packets). Virtual cut-through needs credits for the whole packet before the head
// leaves; wormhole needs one credit per flit. CAs are the endpoints: an unbounded source queue
// per CA port and a sink that ejects one flit per cycle. Work per cycle is proportional to the
// flits in motion and to switches whose state changed, never to all ports.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

namespace ftroute::flitsim {

enum class Switching { VirtualCutThrough, Wormhole };
enum class Allocator { Separable, ISlip };
// Router model (docs/flitsim.md "Router models"). Ib (default): InfiniBand-faithful - a packet's
// switch allocation holds the crossbar for the packet (no interleaving on a link), VC = SL2VL.
// BookSim: BookSim2's input-queued router - VC allocation per packet (any free VC of the packet's
// SL2VL class), switch allocation per flit (iSLIP, flits of packets on different VCs interleave on
// a link), routing / VC-alloc / switch-alloc / crossbar stages, credits over the credit channel
// (credit_delay may be 0), an output VC freed when the tail leaves (wait_tail_credit = false).
enum class RouterModel { Ib, BookSim };
// What happens to packets that meet a failed link (docs/flitsim.md "Faults"):
//  Drop: a packet routed to a dead port is dropped at that switch; a packet being streamed over
//        a link when it fails is truncated there (flits already sent travel on and are discarded
//        at the sink, the rest is discarded upstream). Every drop is counted with its reason.
//  Hold: packets wait (head of their VC) until the link recovers or new LFTs route them away;
//        only a packet already half across the link when it fails is truncated and dropped.
//  Escape: FT-DRB escape paths (docs/ftdrb.md "Escape paths"): the switch that meets the dead
//        port (at routing time, or for heads waiting for that port when it dies) re-addresses
//        the packet to the first other LMC LID of the same destination whose LFT walk from that
//        switch reaches it over live links, without a loop and within the VLs; the packet is
//        marked escaped (no latency ACK) and its source is notified (FT-DRB). A packet whose
//        head already crossed the link when it fails finishes crossing (the link fails at a
//        packet boundary). Without such a LID the packet falls back to `escape_fallback`.
enum class FaultPolicy { Drop, Hold, Escape };
// Which LID of a destination with LMC > 0 a source uses. FtDrb: the FT-DRB source (seed 000
// ch. 3): the LIDs are the MSPs of a metapath, chosen per message weighted by 1/latency, with
// fault notification, fault list and probing (docs/ftdrb.md "Simulator side"). FtDrb picks
// the LID when the message reaches the head of its source queue (the others at generation).
enum class LidPolicy { Base, Random, Hash, RoundRobin, FtDrb };

struct Config {
  int num_vcs = 0;           // VCs (= VLs) per channel; 0 = max(1, routing.num_vls)
  int buffer_flits = 64;     // input buffer per VC, in flits
  int packet_flits = 16;     // packet size (synthetic traffic; traces may override per packet)
  int link_latency = 1;      // cycles a flit spends on a link (>= 1)
  int routing_delay = 1;     // RC: head at front of VC -> eligible for allocation
  int alloc_delay = 1;       // VA/SA: grant -> crossbar
  int xbar_delay = 1;        // ST: crossbar -> link
  int credit_delay = 1;      // flit leaves an input buffer -> credit seen upstream (>= 1)
                             // (BookSim model: extra cycles after the credit channel, >= 0)
  RouterModel model = RouterModel::Ib;
  int vc_alloc_delay = 1;    // BookSim model: VA stage (VC grant -> first switch allocation)
  bool wait_tail_credit = false;  // BookSim model: an output VC is free again only when the
                                  // tail's credit is back (false: when the tail leaves)
  // BookSim model, VC allocation (docs/flitsim.md "Remaining differences"; set_model(BookSim)
  // turns both on, as BookSim2 does): va_per_vc = the allocator matches input VCs to output VCs
  // (BookSim2's iSLIP over VCs: several VCs of one output or input port may be granted in a
  // cycle); false = one grant per output port and per input port per cycle. eject_any_vc = at
  // the last switch a packet may take any VC of the link to its CA (BookSim2's dim_order torus
  // drops the dateline class there); false = its SL2VL class.
  bool va_per_vc = false;
  bool eject_any_vc = false;
  Switching switching = Switching::VirtualCutThrough;
  Allocator allocator = Allocator::Separable;
  int islip_iterations = 2;
  FaultPolicy fault_policy = FaultPolicy::Drop;
  FaultPolicy escape_fallback = FaultPolicy::Drop;  // Escape without a usable LID: Drop or Hold
  LidPolicy lid_policy = LidPolicy::Base;
  // SL spread (--sl-spread N, an experiment model, not InfiniBand: a source's SL is fixed per
  // path): each packet adds to its path SL a number drawn uniformly from 0..N-1-w, w = the
  // waypoints of its pair (Simulator::set_waypoints), so with an identity SL2VL its traffic uses
  // every VC the legs leave free, as a router that picks any free VC at injection. Needs a
  // routing without path SLs or SL2VL tables (the simulator refuses others). 1 = off.
  int sl_spread = 1;
  int hop_limit = 64;                 // switches a packet may cross before it is dropped (loops)
  int64_t deadlock_timeout = 2000;    // cycles without any flit moving while packets are in flight (at least 2 x link_latency + 100)
  // NAC (Zarza thesis ch. 4): one packet-sized deadlock-avoidance buffer (DAB) per input VC,
  // trigger (eqs 4.1-4.3), identification packets, gradual recovery (eqs 4.4-4.7).
  bool nac = false;
  int nac_tf = 6;            // cycles per control-packet hop (side band, never blocked)
  int nac_period = 1;        // evaluate the trigger every nac_period cycles (a "routing turn")
  int64_t nac_start = 0;     // no trigger before this cycle (NAC switched on in a network that may already be deadlocked)
  uint64_t seed = 1;
  // Threads (docs/flitsim.md "Threads"): the switches are split into this many shards, one thread
  // each, in step with a barrier per cycle. 1 = one thread (the reference results); 0 = the
  // hardware threads; at most 64 and at most one per switch. The result depends only on the seed
  // and the thread count. Link faults / re-routing during the run, NAC and FT-DRB sources need 1.
  int threads = 1;
  // FT-DRB source (lid_policy == FtDrb; docs/ftdrb.md "Simulator side").
  double ftdrb_ewma = 0.25;       // weight of a new latency ACK in the per-MSP EWMA
  int ftdrb_thl = 64;             // Thl, cycles: metapath latency target
  int ftdrb_tol = 16;             // Tol: grow above Thl+Tol, shrink below Thl-Tol
  int ftdrb_probe_every = 100;    // 1 probe per this many messages of a (src, dst) pair
  int ftdrb_permanent_after = 5;  // notifications after which a link fault is permanent
  int ftdrb_notify_hop_cycles = 0;  // notification delay per hop; 0 = link_latency
  // false (thesis, Alg 3.1): only the source of each dropped packet is notified. true (thesis
  // §3.6.1 alternative (b), 'additional notifications'): the first drop on a dead link notifies
  // every source, each after (its hop distance to the detecting switch) x hop cycles.
  bool ftdrb_notify_all = false;

  // Named presets (docs/flitsim.md): "default", "penaranda-a", "penaranda-b", "penaranda-c",
  // "zarza-nac", "booksim". Throws OptionError for an unknown name.
  static Config preset(const std::string& name);
  void validate() const;     // throws OptionError naming the bad field
  // Router model with BookSim2's defaults for what it sets: BookSim = wormhole, iSLIP (1
  // iteration), routing/VC-alloc/switch-alloc(alloc_delay)/crossbar delays 1, credit_delay 0,
  // link latency 1, wait_tail_credit false, va_per_vc and eject_any_vc true. Ib = this struct's
  // defaults for the same fields.
  // VCs, buffer and packet size are left as they are.
  void set_model(RouterModel m);
  // Sets the field of one option from its text, as `ftroute sim --KEY VALUE` spells it (a flag
  // takes "true"); the table is config_keys(). Throws OptionError naming the option and what it
  // takes ("--vcs 99 out of range (0..16)", "--allocator must be separable or islip").
  void set(const std::string& key, const std::string& value);
};

// One option of the simulator's Config: its name, what it takes, and how it sets the fields
// (config_keys.cpp). Flags set their field when given; `apply` checks the value first.
struct ConfigKey {
  enum Kind { Int, Real, Choice, Flag };
  std::string name;
  Kind kind = Int;
  long lo = 0, hi = 0;              // Int
  double dlo = 0, dhi = 0;          // Real
  std::vector<std::string> values;  // Choice: the accepted spellings
  std::string values_text;          // Choice: "A, B or C" for the error
  std::function<void(Config&, const ConfigKey&, const std::string&)> apply;
};
// Every option, in the order the CLI applies them (the router model first).
const std::vector<ConfigKey>& config_keys();

// The traffic patterns the simulator knows (TrafficSpec::pattern), as listed in its errors:
// "uniform, randperm, bitrev, ..., trace" (aliases bit-reversal, perfect-shuffle not listed).
const std::string& known_patterns_text();
bool known_pattern(const std::string& p);

struct TrafficSpec {
  // known_pattern(): uniform, randperm, bitrev, transpose, shuffle, butterfly, complement, tornado, hotspot, trace
  std::string pattern = "uniform";
  double load = 0.1;                 // offered flits/endpoint/cycle (Bernoulli packet injection)
  std::vector<int> dims;             // tornado: radix per dimension over endpoint index (default {N})
  std::vector<int> hotspots;         // hotspot: hot endpoint indices (default {0})
  double hotspot_fraction = 0.2;     // hotspot: share of packets sent to a hot endpoint
  // hotspot, the thesis' set-up instead (seed 002 Ch 9-11): this share of the endpoints (drawn
  // with the seed, never a hot one) sends only to the hot endpoints, at hot_load (< 0: load); the
  // others send uniformly to every endpoint but the hot ones (hotspot_fraction unused). Result's
  // background_* figures are those of the others' packets.
  double hot_sources = 0;
  double hot_load = -1;
  std::string trace_file;            // trace: lines "cycle src dst [flits]" (index or node id)
  std::vector<int> active_sources;   // empty = every endpoint injects; else only these
  int64_t warmup = 1000;
  int64_t measure = 10000;
  int64_t max_drain = 50000;         // cycles after measurement to finish measured packets
  bool flush = true;                 // after drain stop injecting and run until empty
  int64_t max_flush = 200000;
  // Sources create each packet at its generation cycle (eager) instead of when their queue
  // empties (lazy, default; docs/flitsim.md "Traffic"). Both give the same packets, latencies and
  // throughput; eager holds every backlogged packet in memory past saturation and is slower.
  bool eager_sources = false;
  // Synthetic patterns may send to the source itself (BookSim2): uniform draws the destination
  // from all N endpoints, fixed points of permutations send to themselves (CA -> switch -> CA).
  // false (default): uniform draws from the N - 1 others, fixed points generate nothing.
  bool self_traffic = false;
};

// An endpoint: a connected CA/router port with a LID. Endpoints are numbered in node order,
// then port order (the order traffic patterns use).
struct Endpoint {
  int node = -1;
  int port = 0;
  Lid base_lid = 0;
  uint8_t lmc = 0;
};
std::vector<Endpoint> endpoints_of(const Fabric& f);

// The routing check before a run is the routing pipeline's verdict (ftroute/verdict.hpp,
// verify_routing with the attach switches as start switches; sim_check() in ftroute/sim_run.hpp).

// A link event of a run (`sim --fail` / `--recover`): link (node, port) and its peer go down
// (up = false) or come back at `cycle`.
struct LinkEvent {
  int64_t cycle = 0;
  int node = -1, port = 0;
  bool up = false;
};
// CYCLE:"NODE"[PORT] (the port syntax of ftroute/port_ref.hpp; the older CYCLE:NODE[PORT] too):
// OptionError naming the bad cycle, node or port (a port must have a link).
LinkEvent parse_link_event(const Fabric& f, const std::string& arg, bool up);
// The fabric as it is at `cycle`: every link whose last event at or before `cycle` (events of one
// cycle in the given order) took it down is disconnected. What `sim --reroute CYCLE` routes.
Fabric fabric_at(const Fabric& f, const std::vector<LinkEvent>& events, int64_t cycle);

// Source routes through intermediate switches: seed 002's intermediate routers as the thesis'
// router implements them (§5.4), not as an InfiniBand switch can (docs/flitsim.md "Waypoints"). A
// packet from endpoint `src` to endpoint `dst` (endpoints_of() indices) is addressed to the switch
// LID via[0] first; that switch re-addresses it to via[1], ..., the last one to the destination
// LID the packet was generated with, and each raises the packet's SL by one: the thesis' next
// virtual channel per leg (with an identity SL2VL, leg i runs on VL SL + i).
struct Waypoints {
  int src = -1, dst = -1;
  std::vector<Lid> via;
};
// A waypoint file: one line per (source, destination) pair, "SRC" "DST" "VIA1" ["VIA2" ...]
// (quoted node names as .net files and ftroute's messages write them; '#' starts a comment): SRC
// and DST a CA or router with one port with a LID, each VIA a switch with a LID. ParseError naming
// the file and line for anything else, and for a pair given twice.
std::vector<Waypoints> read_waypoints(const Fabric& f, const std::string& path);
// One line of a waypoint file: the nodes' names quoted (quote_name), ending in '\n'.
std::string format_waypoints(const Fabric& f, int src_node, int dst_node, const std::vector<int>& via_nodes);
std::vector<Waypoints> parse_waypoints(const Fabric& f, std::string_view text, const std::string& filename);

struct DeadlockReport {
  bool detected = false;
  int64_t cycle = 0;          // cycle at which the watchdog fired
  int64_t last_progress = 0;  // last cycle a flit moved
  std::vector<std::string> cycle_channels;  // wait-for cycle: "A"[1] -> "B"[3] VL0, ...
  std::string text;           // human-readable report
};

struct Result {
  int64_t cycles = 0;
  int endpoints = 0;
  // packet accounting (all packets, whole run): generated == delivered + dropped + in_network + in_source
  // (in_source includes the packets a lazy source owes: generated by its Bernoulli process before
  // the run ended but not yet taken from its queue)
  uint64_t generated = 0, injected = 0, delivered = 0, dropped = 0, in_network = 0, in_source = 0;
  std::map<std::string, uint64_t> drops;  // reason -> packets
  // measurement window
  uint64_t measured_packets = 0, measured_delivered = 0, measured_dropped = 0;
  double offered = 0;         // flits/endpoint/cycle generated in the window
  double accepted = 0;        // flits/endpoint/cycle ejected in the window
  // Per endpoint (endpoints() order): flits/cycle ejected there in the window, its consumption
  // bandwidth (seed 003's Fig. 4 statistic: the quartiles over the endpoints); mean = accepted.
  std::vector<double> accepted_per_endpoint;
  double avg_latency = 0;     // generation -> tail ejected, cycles (measured packets)
  double p99_latency = 0;
  double max_latency = 0;
  double avg_network_latency = 0;  // head injected -> tail ejected
  double avg_hops = 0;             // switches crossed
  // TrafficSpec::hot_sources > 0: the background sources' packets (to endpoints not hot): flits
  // ejected at the endpoints that are not hot per background source and cycle (= the load when
  // the hot-spot leaves them alone) and their average latency; -1 otherwise
  double background_accepted = -1, background_latency = -1;
  bool drained = true;        // every measured packet finished within max_drain
  bool flushed = false;       // network and source queues empty at the end
  uint64_t flits_moved = 0;   // flit transfers over links (work measure)
  int min_credits = 0;        // smallest credit counter ever observed (must stay >= 0)
  // NAC
  uint64_t nac_triggers = 0, nac_id_packets = 0, nac_confirmed = 0, nac_recovery_moves = 0,
           nac_timeouts = 0;
  // NAC timing: cycles from trigger to confirmation summed over the confirmed runs (the
  // identification run, n t_f for a cycle of n routers), and over the runs whose recovery signal
  // came back round the cycle to the origin (both runs, eq. 4.8: 2 n t_f) with their number; the
  // earliest trigger cycle of a confirmed run, -1 if none
  uint64_t nac_confirm_cycles = 0, nac_recovered = 0, nac_time_cycles = 0;
  int64_t nac_first_confirmed = -1;
  // FT-DRB source (lid_policy == FtDrb)
  uint64_t ftdrb_notifications = 0, ftdrb_probes = 0, ftdrb_probes_delivered = 0, ftdrb_permanent = 0,
           ftdrb_grows = 0, ftdrb_shrinks = 0;
  uint64_t ftdrb_late_drops = 0;  // non-probe drops on a link the source already knew was faulty
  // FaultPolicy::Escape: packets re-addressed to an escape LID; packets that met a dead port
  // without a usable escape LID (handled by escape_fallback; each counted once per switch visit)
  uint64_t escaped = 0, escape_fallbacks = 0;
  DeadlockReport deadlock;
  std::vector<std::string> notes;
};

class Simulator {
 public:
  // The fabric and routing must outlive the simulator.
  Simulator(const Fabric& fabric, const Routing& routing, const Config& cfg);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const std::vector<Endpoint>& endpoints() const;
  // Link (node, port) and its peer go down (up=false) or come back (up=true) at `cycle`.
  void schedule_link(int64_t cycle, int node, int port, bool up);
  // Source routes (Waypoints) for the next run. OptionError for an endpoint out of range, a pair
  // given twice, no or more than 15 waypoints, a waypoint LID that is not a switch's, or a path
  // whose last leg's SL (the routing's SL + waypoints) needs more VCs than the run has.
  void set_waypoints(std::vector<Waypoints> w);
  // From `cycle` on, switches forward with these LFTs/SLs/SL2VL (e.g. a re-route or DQR output).
  // The routing must outlive the simulator. Heads not yet granted are re-routed at that cycle.
  void schedule_routing(int64_t cycle, const Routing* routing);
  // Test hooks: called for every delivered / dropped packet id.
  std::function<void(uint64_t id, int src, int dst, int64_t latency)> on_deliver;
  std::function<void(uint64_t id, const std::string& reason)> on_drop;
  // Current simulated cycle (for use inside the hooks).
  int64_t cycle() const;
  // After a run on threads = T > 1: 2T values, the CPU seconds each thread spent in the cycle
  // loop, then the part of it spent waiting at the barrier (the difference is its shard's work:
  // the balance of the partition). Empty after a one-thread run.
  const std::vector<double>& thread_cpu_seconds() const;

  Result run(const TrafficSpec& traffic);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Result run_threads(const TrafficSpec& traffic, int threads);
};

// The thread count a run uses: Config::threads (0 = hardware threads), at most 64 and at most
// one per switch, at least 1.
int resolve_threads(int threads, int switches);

// Load sweep helper: runs a fresh simulator per load.
struct SweepPoint {
  double load;
  Result result;
};
std::vector<SweepPoint> sweep(const Fabric& f, const Routing& r, const Config& cfg, TrafficSpec t,
                              const std::vector<double>& loads);
std::string sweep_csv(const std::vector<SweepPoint>& pts);
// Plain-SVG plot: latency vs offered load (left) and accepted vs offered load (right).
std::string sweep_svg(const std::vector<SweepPoint>& pts, const std::string& title);
// Parses "a:b:step" (inclusive end) into loads; throws OptionError.
std::vector<double> parse_sweep(const std::string& spec);

std::string format_result(const Result& r);

}  // namespace ftroute::flitsim
