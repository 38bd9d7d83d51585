// Dynamic Quick Reconfiguration (DQR) after link faults (seed 004, Sem-Jacobsen & Lysne;
// spec docs/specs/fattree_fip_dqr.md C.3, C.4, D.4). docs/dqr.md explains the choices made here.
//
// InfiniBand LFTs are per destination LID, so DQR works per DLID d (spec C.4 caveat 1): the
// entries of d form an in-tree, a "disconnected flow" is a switch whose route to d crosses a
// failed link, and a new path from a switch w must end where it joins a switch whose route
// already reaches d (its entry is then followed, not replaced). Every entry set on the path
// replaces the forwarding of *all* traffic for d through that switch, so the dependencies
// checked against the channel list for a switch y whose entry becomes port q are:
//   (every channel on which traffic for d arrives at y, old or new) -> (y, q)  on d's VLs,
// plus the turn of the path itself and, at the junction, the turn onto the joined route (and
// the joined route's own hops if it carried no traffic before). Old dependencies are kept in
// the list (spec C.4 mitigation 1), which makes every junction a packet can meet during the
// transition a dependency that was checked.
//
// Options mirror the paper's variants (§IV-A, §V):
//   paths = local      reroute only the switch just before each failed link (the "near end");
//                      everything upstream keeps its entry and follows the repaired switch.
//                      This is the per-destination form of the paper's local reroute.
//           e2e        end to end: every affected switch, farthest from d first, gets a fresh
//                      shortest path (which fixes the affected switches it passes through).
//   turns = single     every new turn is checked alone against the committed list;
//                      the path's turns are committed jointly at the end (may then fail).
//           all        a candidate's turns are checked together ("local copy" of the list).
//   mesh_plugin        topology plug-in (§IV-C): on a recognised mesh, for every failed link
//                      enable the detour one hop towards the centre of the mesh (Lysne et al.)
//                      with its entry and exit turns before any path search.
// Cost of a path (Dijkstra over channels; long searches as A*, DqrOptions::search_bound): 1 per
// hop + turn_cost per dependency that goes down in the list (needs a reorder) + new_dep_cost per
// new dependency that goes up + override_cost per switch whose still-working entry is changed.
// Dependencies already present (including turns enabled earlier in the same reconfiguration)
// are free, which prefers enabled turns.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "ftroute/dqr/channel_list.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/grid.hpp"

namespace ftroute {

// The old routing by destination (one column of switch entries per LID, so that repairing a LID
// reads contiguous memory) and its routed-entry count: a per-routing precomputation like the
// channel list (dqr_tables), passed in DqrOptions::tables.
struct DqrTables {
  int nodes = 0;
  Lid max_lid = 0;
  // A column holds the switches only (a CA has no LFT; at 47,824 LIDs a column over every node
  // would take 2.3 GB, over the switches 187 MB): slot[node] = the node's index in a column,
  // switches 0..stride-2 in node order, every other node stride-1, a byte that is always kNoPath.
  std::vector<int> slot;
  int stride = 1;
  std::vector<uint8_t> by_lid;  // [lid * stride + slot[node]]; kNoPath where unrouted
  uint64_t entries_total = 0;   // routed (switch, LID) entries, LID >= 1
  const uint8_t* column(Lid d) const { return by_lid.data() + static_cast<size_t>(d) * static_cast<size_t>(stride); }
  uint8_t get(int node, Lid d) const { return column(d)[slot[static_cast<size_t>(node)]]; }
  // The fault-free fabric as the reconfiguration looks it up, derived once with the tables
  // (link ids are Cdg's: the channel list's ids are link_id * kNumVlSlots + vl):
  std::vector<int> port_base;  // node -> link id of its port 0
  std::vector<int> link_node;  // link id -> node
  std::vector<int> nports;     // node -> ports
  std::vector<NodeType> type;  // node -> type
  std::vector<int> next_sw;    // link id -> the switch it leads to, -1 if none (CA, unconnected, port 0)
  std::vector<int> sw_in_off;  // node -> first index in sw_in; size nodes + 1
  std::vector<std::pair<int, uint8_t>> sw_in;  // (switch u, port of u): the switch links entering a node
  std::vector<int> peer;           // link id -> the node it leads to, -1 if none
  std::vector<uint8_t> peer_port;  // link id -> the port it enters
  // The end ports in end_ports() order that can send: every switch (port 0; a source with
  // DqrOptions::switch_sources) and every CA port linked to a switch (sw, in_port).
  struct EndSource {
    Lid lid = 0;
    int node = -1;
    uint8_t port = 0;
    int sw = -1;
    uint8_t in_port = 0;
  };
  std::vector<EndSource> end_sources;
  std::vector<int> lid_sw;         // LID -> before.attach(LID).sw (-1: none)
  std::vector<uint8_t> lid_port;   // LID -> before.attach(LID).port
  // Which switches the old routing's CA traffic leaves, per destination LID (before the fault;
  // sources = every CA port connected to a switch, ca_sources of them; a LID's own switch counts
  // when traffic is routed into it): bit slot[node] of traffic[lid * traffic_words ..]. DQR's
  // mask() reads it instead of walking the in-tree backwards, wherever a fault cannot have
  // changed it (docs/dqr.md "Traffic of the old routing").
  std::vector<uint64_t> traffic;
  size_t traffic_words = 0;
  uint64_t ca_sources = 0;
  bool carries(int node, Lid d) const {
    const size_t s = static_cast<size_t>(slot[static_cast<size_t>(node)]);
    return (traffic[static_cast<size_t>(d) * traffic_words + (s >> 6)] >> (s & 63)) & 1;
  }
  // Hop distances between switches over the fault-free links, [slot(t) * (stride - 1) + slot(v)],
  // 255 where unknown (no path, 255 hops or more); empty on fabrics with more than
  // kMaxDistSwitches switches. DQR orders the switches it repairs by their distance to the
  // destination; it takes them from here wherever no failed link lies on a shortest path.
  static constexpr int kMaxDistSwitches = 8192;
  std::vector<uint8_t> sw_dist;
  uint8_t dist(int t, int v) const {
    return sw_dist[static_cast<size_t>(slot[static_cast<size_t>(t)]) * static_cast<size_t>(stride - 1) +
                   static_cast<size_t>(slot[static_cast<size_t>(v)])];
  }
  int num_links() const { return static_cast<int>(link_node.size()); }
  int link_id(int node, int port) const { return port_base[static_cast<size_t>(node)] + port; }
};
std::shared_ptr<const DqrTables> dqr_tables(const Fabric& before, const Routing& routing);

struct DqrOptions {
  enum class Paths { Local, EndToEnd };
  enum class Turns { Single, All };
  // Virtual layers (paper §IV: "keep the flow in its original layer, or search every layer"):
  // Same = a repaired path keeps the VLs of the traffic it carries; All = when a destination
  // cannot be repaired that way, move the flows through its broken entries to another layer
  // (a new SL for those source/destination pairs, among the VLs the routing already uses).
  enum class Layers { Same, All };
  Paths paths = Paths::Local;
  Turns turns = Turns::All;
  Layers layers = Layers::Same;
  bool mesh_plugin = false;
  // Turn local reroute (paper's "tlr"): before the per-destination repairs, a detour around each
  // failed link is made legal with all its turns checked together (local_reroute.cpp); with
  // mesh_plugin only for the failed links the plug-in cannot detour (variant mesh-tlr).
  bool tlr = false;
  bool switch_sources = false;   // must match the channel list's ChannelListOptions
  // Connect instead of repair (the paper's fat-tree start, seed 004 §V-C: "we have first treated
  // the switch to switch paths as disconnected and used DQR to reconnect them"): with no fault
  // (before = after), every destination whose route from some source switch is missing (an entry
  // without a port, e.g. dqr_strip_switch_paths) gets new entries, searched and checked against
  // the channel list like a repair. With switch_sources the switches are those sources.
  bool connect = false;
  // Count DqrResult::entries_affected / flows_affected (the paper's "flows rerouted" metric):
  // local repair then walks every switch upstream of a failed link, which it does not need
  // for the repair itself. false: both stay 0 (bench_dqr times DQR so).
  bool count_affected = true;
  // DqrResult::lfts = the old tables with the changes written in (a copy of every LFT: 187 MB at
  // 47,824 LIDs). false: DqrResult::lfts stays empty and the caller writes DqrResult::changes into
  // its own tables (dqr_apply), O(changes); the changes are the same either way.
  bool patched_tables = true;
  // Mesh recognition of the fault-free fabric, if already done (precomputation like the
  // channel list; must describe `before`); null = recognised during the reconfiguration.
  std::shared_ptr<const MeshGrid> mesh;
  // dqr_tables(before, old routing), if already done; null = built during the reconfiguration.
  std::shared_ptr<const DqrTables> tables;
  double turn_cost = 4.0;
  double new_dep_cost = 0.25;
  double override_cost = 1.0;
  // Long searches (more than a few dozen states) are redone as A* with a lower bound that counts
  // the hop and the reorder any completion still needs (docs/dqr.md "Path search"); same path
  // cost, far fewer states on a fat tree. false = plain Dijkstra throughout (for comparison).
  bool search_bound = true;
  // Tests: every answer of the search bound and of the traffic masks is also computed the way
  // DQR did before its speed-up for large fabrics (a DFS over the list per search, a recursion
  // over the old routing's in-tree per destination; docs/dqr.md "At scale") and a difference
  // throws Error. Slow; the repairs are the same either way.
  bool cross_check = false;
  std::string variant_name() const;  // "local-all", "mesh-single", "tlr", "mesh-tlr", ...
};

struct LftChange {
  int sw = -1;
  Lid lid = 0;
  uint8_t old_port = kNoPath, new_port = kNoPath;
  int stage = 0;  // transition stage: hops from sw to the LID along the new routes
  // The entry carries no traffic in the new routing (no source at sw, nothing routed into sw):
  // only its old traffic, which stops once the switches that sent it are updated. Such entries
  // go in a last stage, after every other change has been applied and drained, and their new
  // path adds no dependency (end-to-end repair: the switch just before a failed link whose
  // upstream switches all found their own way).
  bool idle = false;
};

// A flow moved to another virtual layer: its SL changes (DqrOptions::Layers::All).
struct SlChange {
  Lid slid = 0, dlid = 0;
  uint8_t old_sl = 0, new_sl = 0;
};

struct DqrResult {
  bool ok = false;
  Lfts lfts;                        // the patched tables (the old ones where !ok); empty
                                    // with DqrOptions::patched_tables = false
  // In transition order: every intermediate state is loop-free and deadlock-free. Stage k =
  // entries k hops from their LID along the new routes, stages in increasing order, so a packet
  // that met one updated entry only meets updated entries afterwards (old prefix + new suffix);
  // idle entries (LftChange::idle) form one stage after all others; ties by LID, then switch.
  // Between two stages the SM should let the packet lifetime expire (IB switch lifetime / HOQ
  // limit) so old packets on a channel whose sender was just updated have drained: the search
  // relies on that for the one junction it does not add to the list (a packet that arrived at y
  // from the switch y now forwards to, which is always updated a stage earlier).
  std::vector<LftChange> changes;
  // Flows moved to another layer (SL changes, one per source LID and DLID). They take effect
  // before any LFT change: the SA answers the new SLs, sources re-query their PathRecords, and
  // only once the moved pairs' old-SL packets have drained are the LFT stages pushed.
  std::vector<SlChange> sl_changes;
  std::vector<std::string> failures;  // why a DLID could not be repaired (first few)
  std::vector<std::string> notes;
  int failed_channels = 0;          // directed switch-switch channels that disappeared
  uint64_t entries_total = 0;       // routed (switch, LID) entries before the fault
  uint64_t entries_affected = 0;    // entries whose route crossed a failed link (count_affected)
  uint64_t entries_changed = 0;     // = changes.size()
  uint64_t dlids_affected = 0;
  uint64_t flows_total = 0;         // CA->CA pairs (base LIDs)
  uint64_t flows_affected = 0;      // of those, routed over a failed link (count_affected)
  uint64_t turns_enabled = 0;       // downward deps made legal by reordering
  uint64_t dlids_layer_moved = 0;   // destinations repaired only after a layer move
  uint64_t search_states = 0;       // states popped by the constrained path searches
  // turns=all: search states refused because their new turns cannot be enabled together
  // although each one alone could. This is the only point where turns=all and turns=single
  // decide differently: a turns=all run with joint_refusals == 0 makes exactly the decisions
  // turns=single makes on the same input (docs/dqr.md "Why the -all and -single rows are equal").
  // Why: the costs and the search order do not depend on the mode; an upward turn alone can
  // always be enabled, and a joint check that passes implies every check alone passes; a joint
  // check that fails at a turn that also fails alone makes turns=single fail at that same turn
  // (remembering the same refused turn); both commit through enable_all on the same list.
  uint64_t joint_refusals = 0;
  uint64_t commit_refusals = 0;     // candidate paths whose turns enable_all refused at commit
  uint64_t channels_moved = 0;
  bool plugin_applied = false;      // mesh plug-in enabled all its detours
  // The first attempt (the failed links' dependencies in the list) failed, and this is the
  // second one, without them (dqr_reconfigure()).
  bool dropped_failed_deps = false;
  double seconds = 0;
};

// Repairs `old_routing` (computed for `before`) for `after`, a fabric with the same nodes and
// ports and some links removed (links added are usable but not required). `list` must be the
// channel list of old_routing on `before`; it is updated in place (turns enabled, new deps
// added, old deps kept; when the first attempt fails, its deps are taken back and the second
// one drops the failed links' deps first, see DqrResult::dropped_failed_deps). Throws EngineError("dqr", ...) when DQR does not apply (node/port
// layout differs, VLs change along paths); returns ok = false with failures when some
// destination cannot be repaired without a deadlock or loop.
DqrResult dqr_reconfigure(ChannelList& list, const Fabric& before, const Fabric& after, const Routing& old_routing,
                          const DqrOptions& options);

// Writes res.changes into `lfts` (the old routing's tables, or a copy): the tables res.lfts holds
// with DqrOptions::patched_tables. Nothing when !res.ok.
void dqr_apply(Lfts& lfts, const DqrResult& res);

// The routing after a successful reconfiguration: res.lfts, and old.path_sl with res.sl_changes.
Routing dqr_routing(const Routing& old, const DqrResult& res);

// `routing` without its switch-to-switch paths: every entry of a switch LID at a switch that no
// CA's route to that LID passes through set to no port, as a fat-tree routing that serves node
// to node and node to switch only (OpenSM's ftree, seed 004 §V-C). DqrOptions::connect with
// switch_sources builds them back through the channel list. Returns the entries removed.
size_t dqr_strip_switch_paths(const Fabric& fabric, Routing& routing);

// Engine "dqr": with a PreviousRouting it patches the previous routing for the new fabric;
// otherwise (or if DQR fails) it routes with the base engine. Options:
//   base=<engine>         first/fallback routing (default: ft-dor on a mesh, else ft-minhop)
//   paths=local|e2e, turns=single|all, plugin=auto|mesh|none (auto = mesh when recognised)
//   layers=same|all       all: move flows to another virtual layer (new path SL) when their
//                         destination cannot be repaired in its own layers (default same)
//   switch_sources=bool   count switch-generated traffic in the channel list (default false)
//   fallback=bool         full re-route with the base engine when DQR fails (default true;
//                         false = throw EngineError so OpenSM falls back). Every full routing
//                         is CDG-checked first: one with a dependency cycle or a forwarding loop
//                         is refused with EngineError (naming the cycle), never returned.
//   precompute=bool       after returning a routing, build its channel list in a background
//                         thread (the paper's "background" step), so that the next sweep's
//                         DQR does not wait for it (default true). It is used only if the
//                         next previous routing is that very routing on the same fabric
//                         layout (same node order, same LFTs); otherwise it is rebuilt.
//   staged=bool, drain_ms=0..60000, ack_timeout_ms=100..600000, stage_dump=DIR
//                         how the plugin applies Routing::transition inside OpenSM (stage by
//                         stage, docs/PLUGIN.md "Staged DQR transition"); offline they are
//                         accepted and change nothing.
//   stages=packed|hops    how Routing::transition groups the changes: packed (default): stage k
//                         holds the k-th group of every LID (the order only matters within one
//                         LID); hops: one stage per hop count, as DqrResult::changes is sorted.
// Routing::notes records what happened ("dqr: patched ...: N of M entries changed"), and
// Routing::transition the changed entries in their checked order (stages) after a patch.
// The dqr engine's options, declared once (options.cpp): DqrEngine::option_specs, and read by
// dqr_options_from, the engine and the plugin's staging.
std::vector<OptionSpec> dqr_option_specs();

class DqrEngine : public Engine {
 public:
  using Factory = std::function<std::unique_ptr<Engine>(const std::string&)>;
  explicit DqrEngine(Factory factory) : factory_(std::move(factory)) {}
  ~DqrEngine() override;
  static constexpr const char* kName = "dqr";
  std::string name() const override { return kName; }
  std::vector<OptionSpec> option_specs() const override { return dqr_option_specs(); }
  using Engine::route;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:

  // The channel list of the last routing returned, built in the background (owns copies of
  // the fabric and routing it refers to).
  struct Prepared {
    Fabric fabric;
    Routing routing;
    bool switch_sources = false;
    ChannelList list;
    std::shared_ptr<const DqrTables> tables;  // dqr_tables(fabric, routing)
  };

 private:
  Routing route_impl(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous,
                     Prepared* prepared);
  Factory factory_;
  std::future<std::shared_ptr<Prepared>> next_;
  // Base engine of the last full routing. Kept while sweeps bring a previous routing, so that a
  // mesh that has lost links (no longer recognised as a mesh) keeps ft-dor instead of drifting to
  // ft-minhop, whose routes on a mesh have dependency cycles.
  std::string base_;
};

// DqrResult::changes as stages for the SM (Routing::transition): by_hops = one stage per
// (idle, stage) group of the sorted changes; otherwise packed per LID (stage k = every LID's k-th
// group), which keeps the order of each LID's entries and needs as many stages as the LID with
// the most groups.
LftTransition dqr_transition(const DqrResult& res, bool by_hops);

// Options parsed from EngineOptions (shared by the engine and the CLI).
DqrOptions dqr_options_from(const EngineOptions& o, bool mesh_recognised);
// A variant of the paper's evaluation by name (`ftroute dqr-eval --variants`): e2e|local|mesh,
// a dash, all|single ("mesh-all" = plugin=mesh,paths=local,turns=all), parsed by
// dqr_options_from. Throws OptionError("unknown variant 'x' (use e2e|local|mesh - all|single)").
DqrOptions dqr_variant(const std::string& variant);

}  // namespace ftroute
