// OpenSM-independent half of libftroute.so: option syntax, per-engine state kept across sweeps,
// validation of an engine's result before it touches OpenSM, hop counts, event counters.
// Everything here is plain C++ on ftroute types, so tests/unit/plugin/plugin_adapter_test.cpp can test it
// without OpenSM; plugin/osm_plugin.cpp (and osm_stage.cpp, DQR's staged transition on the wire)
// only convert osm_subn_t <-> ftroute types around it and talk to OpenSM.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <cstdio>
#include <string>
#include <vector>

#include "ftroute/engine.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/route_walk.hpp"

namespace ftroute::plugin {

// event_plugin_options syntax (one string, whitespace-separated tokens):
//   ENGINE:key=value[,key=value...]   option for one engine, e.g. "ft-minhop:balance=0,lmc_spread=1"
//   key=value                         plugin-wide option; known keys: log=/path (trace file)
// A token is an engine option when it has a ':' before its first '='. Errors (token without '=',
// unknown engine, unknown plugin-wide key) are collected in `errors` (the plugin logs each one);
// unknown keys of a known engine are reported when that engine runs (it then fails cleanly so
// OpenSM falls back), and also listed in `errors` at load time.
struct PluginOptions {
  std::map<std::string, EngineOptions> engine;  // engine name -> its options
  std::string log_path;                         // "" = no trace file
  // lid_matrices=opensm: build_lid_matrices runs OpenSM's osm_ucast_mgr_build_lid_matrices()
  // instead of the plugin's own BFS (own, the default).
  bool opensm_lid_matrices = false;
  // path_sl_dump=FILE: after every sweep that brings the subnet up, the SL OpenSM's SA answers
  // for every (CA port, other end-port LID) pair, in the path-SL file format (osm_pathsl.cpp).
  std::string path_sl_dump;
  std::vector<std::string> errors;

  static PluginOptions parse(const std::string& text, const std::vector<EngineInfo>& known_engines);
  EngineOptions for_engine(const std::string& name) const;
};

// What OpenSM does after `engine` failed a pass, given its routing_engine list
// ("ftree-misroute,updn", "ftree-misroute,no_fallback", "" = default): for the ERR FT01 line.
// "OpenSM tries the next engine 'updn'", "OpenSM falls back to its built-in minhop", or
// "no fallback ('no_fallback' in routing_engine): this pass routes nothing, OpenSM retries next sweep".
std::string fallback_text(const std::string& routing_engine_names, const std::string& engine);

// The fabric and routing of one successful pass.
// The routing pipeline's step (routing, verdict, counts, engine_ms and check_ms; ftroute/pipeline.hpp)
// on the fabric it routed; millis also covers the plugin's accept check.
struct Snapshot : RoutedStep {
  Fabric fabric;
};

// Switch-to-switch links a packet for `lid` crosses from switch `sw` following `lfts` (0 when
// sw delivers it itself); -1 on kNoPath, a loop or a dead end. This is what OpenSM's hop matrix
// holds for switch LIDs; the plugin writes it with osm_switch_set_hops when an engine's route is
// longer than minimal, so the SA/multicast code sees the hops actually used.
int route_hops(const Fabric& fabric, const Lfts& lfts, int sw, Lid lid);

// route_hops(fabric, lfts, sw, lid) for every switch sw at once, into hops[sw] (resized to
// fabric.size(); entries of non-switch nodes are -1): each switch's walk is followed only until
// it meets a switch already resolved, so a LID costs O(switches) instead of O(switches x path).
void switch_hops_to(const Fabric& fabric, const Lfts& lfts, Lid lid, std::vector<int>& hops);
// The same with a RouteWalker of (fabric, lfts) made once for many LIDs (the plugin's hop pass):
// its flat port tables are built once and its LFT blocks of 64 LIDs make consecutive LIDs cheap.
void switch_hops_to(RouteWalker& walker, const Fabric& fabric, Lid lid, std::vector<int>& hops);

// BFS distances between switches for OpenSM's hop matrices: adj[i] = the neighbour indices of
// switch i (parallel links may repeat a neighbour), result d[y * n + s] = hops from switch s to
// switch y, kFarSwitch where y cannot be reached. 64 sources per pass as the bits of one word
// (every level of the 64 BFS at once: one OR over each switch's neighbours), the passes spread
// over `threads` (<= 0: the hardware's); the same numbers as one plain BFS per source.
constexpr uint16_t kFarSwitch = 0xffff;
std::vector<uint16_t> switch_distance_matrix(const std::vector<std::vector<int>>& adj, int threads);

// One registered engine: its instance, options, the last successful Fabric+Routing (handed to
// the next run as PreviousRouting) and counters. run() and the readers may be called from
// different OpenSM threads; the snapshot is swapped under a mutex.
class EngineSlot {
 public:
  EngineSlot(std::string name, std::unique_ptr<Engine> engine, EngineOptions options);
  const std::string& name() const { return name_; }
  const EngineOptions& options() const { return options_; }

  // Runs the engine through the routing pipeline (ftroute/pipeline.hpp: options checked once, on
  // the first run -> OptionError; route; one verdict, EngineError naming the first problem: a
  // missing table, an entry naming a missing or unlinked port, port 0 on a switch that does not
  // own the LID, a LID some switch of its component cannot reach, a loop), and on success makes
  // it the new snapshot. On any exception the previous
  // snapshot stays and the exception propagates (the caller logs it and returns < 0).
  // `accept` (optional) runs on the finished snapshot before it is committed; it may throw to
  // reject it (the plugin checks VL capabilities and OpenSM's LFT bounds there).
  std::shared_ptr<const Snapshot> run(Fabric fabric,
                                      const std::function<void(const Snapshot&)>& accept = {});
  std::shared_ptr<const Snapshot> last() const;
  // The next run() gets no PreviousRouting (routes from scratch), once; last() stays for the
  // readers (path_sl). The plugin calls it when a staged transition stopped half way, so the
  // switches hold neither the previous nor the last routing.
  void route_next_from_scratch() { from_scratch_ = true; }

  // SL for a path (OpenSM path_sl). Returns the hint when no routing is known or the engine
  // sets no SLs, so QoS-assigned SLs pass through single-VL engines unchanged.
  uint8_t path_sl(uint8_t hint, Lid slid, Lid dlid) const;

  uint64_t runs() const { return runs_; }
  uint64_t failures() const { return failures_; }

 private:
  std::string name_;
  std::unique_ptr<Engine> engine_;  // moved into pipeline_ by the first run
  EngineOptions options_;
  std::optional<RoutingPipeline> pipeline_;
  mutable std::mutex mu_;
  std::shared_ptr<const Snapshot> last_;
  std::atomic<uint64_t> runs_{0}, failures_{0};
  std::atomic<bool> from_scratch_{false};
};

// Counters fed by the event plugin's report() callback (any thread).
struct EventCounters {
  std::atomic<uint64_t> heavy_sweeps{0}, traps{0}, subnet_up{0}, lft_changes{0}, routing_done{0};
};

// One-line summary for the per-sweep log line.
std::string describe(const std::string& engine, const Snapshot& s, const EventCounters& c);

// ---- struct layout check of create() (docs/PLUGIN.md, "Which OpenSM") ----
// A plugin reads OpenSM's structs at the offsets of the headers it was compiled with. OpenSM
// 3.3.24 added a field to osm_subn_opt_t, so osm_subn_t is 8 bytes longer than in 3.3.23 and
// every field of osm_opensm_t after `subn` sits 8 bytes further: one binary cannot serve both.
// create() measures the running OpenSM's layout without trusting ours: osm_opensm_t starts with
// `osm_version` and `subn` (offsets that never moved), and osm_sm_init() stored &osm->subn in
// osm->sm.p_subn and &osm->log in osm->sm.p_log. Where sm.p_subn really is tells how much longer
// or shorter the running osm_subn_t is.
//
// Offset (from `base + want_off`) of the first aligned pointer-sized word within +-window bytes
// equal to `value`, searched outward from 0 (0 first); nullopt when there is none. Reads only
// base[want_off - window, want_off + window + 8), which the caller guarantees is inside the object.
std::optional<long> find_pointer_word(const void* base, size_t want_off, size_t window, const void* value);

struct LayoutFacts {
  std::string built_for;          // OSM_VERSION of the headers, e.g. "OpenSM 3.3.24"
  std::string running;            // osm->osm_version of the running OpenSM
  size_t subn_bytes = 0;          // sizeof(osm_subn_t) in the headers
  std::optional<long> subn_shift; // running sizeof(osm_subn_t) - ours (nullopt: sm.p_subn not found)
  bool log_found = false;         // sm.p_log == &osm->log at our offsets
  bool plugin_name_found = false; // opt.event_plugin_name (our offset) names ftroute
};
// "" when the plugin may register its engines; otherwise the one log line (after "ERR FT00: ")
// naming the version the plugin was built for, the running one and what differs.
std::string layout_refusal(const LayoutFacts& f);
// The line create() logs when the check passed.
std::string layout_ok_text(const LayoutFacts& f);

// ---- staged transitions (Routing::transition, engine dqr; docs/PLUGIN.md "Staged DQR transition")

// IB lifetime encoding (PortInfo:HOQLife, SwitchInfo:LifeTimeValue, OpenSM's packet_life_time,
// head_of_queue_lifetime, leaf_head_of_queue_lifetime): 4.096 us * 2^v; v >= 20 means infinite,
// returned as a negative value.
double ib_lifetime_ms(unsigned v);

// The wait between two stages so that packets forwarded by the old entries have left every
// switch: the longest finite lifetime among the switch lifetime (packet_life_time) and the two
// head-of-queue lifetimes (a packet is discarded once it has waited that long in one switch).
// override_ms >= 0 (dqr:drain_ms) wins. When all three are infinite, kDrainWhenInfiniteMs.
struct DrainTime {
  double ms = 0;
  std::string why;  // "drain_ms=N" or "packet_life_time 18 = 1073.7 ms, ..."
};
constexpr double kDrainWhenInfiniteMs = 1000;
DrainTime drain_time(unsigned packet_life_time, unsigned hoq_lifetime, unsigned leaf_hoq_lifetime, long override_ms);

// The tables of a transition, stage after stage, and which 64-entry LFT blocks each stage changes
// (an LFT Set carries one block: LIDs 64*b .. 64*b+63).
class TransitionPlan {
 public:
  static constexpr unsigned kBlock = 64;
  // Starts from the tables before the transition: `final_lfts` with every entry's old_port put
  // back. Throws EngineError (engine `engine`) if an entry disagrees with final_lfts (its new_port
  // is not the final entry) or names a switch without a table.
  TransitionPlan(const Lfts& final_lfts, const LftTransition& t, const std::string& engine);
  size_t stages() const { return t_.stages.size(); }
  // Tables after the stages applied so far (before any: the previous tables).
  const Lfts& state() const { return state_; }
  // Applies the next stage; returns its changed (switch, block) pairs, sorted, each once.
  std::vector<std::pair<int, unsigned>> apply_next();
  size_t applied() const { return next_; }

 private:
  LftTransition t_;
  Lfts state_;
  size_t next_ = 0;
};

// dqr:stage_dump=DIR: "" if DIR is a directory this process can create files in, else why not
// (the plugin logs it once and the transition goes on without dumps). Probes by creating and
// removing a file.
std::string stage_dump_dir_problem(const std::string& dir);

// log=PATH: the trace file opened for appending without ever blocking OpenSM. A FIFO without a
// reader fails at once (O_NONBLOCK), a FIFO or socket with one is refused too (a slow reader
// would stall the SM); regular files and character devices (/dev/null, a terminal) are taken.
// nullptr with the reason in *why.
FILE* open_trace_file(const std::string& path, std::string* why);
// DIR/stage-K.dump
std::string stage_dump_path(const std::string& dir, size_t k);
// Removes DIR/stage-<digits>.dump files of an earlier transition; returns how many.
int remove_stage_dumps(const std::string& dir);
// Writes `lfts` (the tables as the switches acknowledged them) to `path` in opensm-lfts.dump
// format, atomically (temp file + rename; nothing is left on failure). Throws Error.
void write_stage_dump(const std::string& path, const Fabric& fabric, const Lfts& lfts);

}  // namespace ftroute::plugin
