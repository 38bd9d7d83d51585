// The `dqr` engine: DQR patch of the previous routing, full routing with the base engine
// otherwise. See ftroute/dqr/dqr.hpp.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include "ftroute/cdg.hpp"
#include "ftroute/verdict.hpp"
#include "ftroute/ftree_misroute/fattree.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/input_file.hpp"

namespace ftroute {

namespace {

std::string pct(uint64_t a, uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0);
  return buf;
}

// Maps every node of `now` to its index in `prev` (by GUID, else by node id); empty if the node
// sets differ.
std::vector<int> map_nodes(const Fabric& prev, const Fabric& now) {
  if (prev.size() != now.size()) return {};
  std::vector<int> m(static_cast<size_t>(now.size()), -1);
  std::vector<bool> taken(static_cast<size_t>(prev.size()), false);
  for (int i = 0; i < now.size(); i++) {
    const Node& n = now.node(i);
    std::optional<int> j;
    if (i < prev.size() && prev.node(i).guid == n.guid && prev.node(i).id == n.id) j = i;
    else if (n.guid) j = prev.find_guid(n.guid);
    if (!j) j = prev.find(n.id);
    if (!j || taken[static_cast<size_t>(*j)] || prev.node(*j).num_ports != n.num_ports || prev.node(*j).type != n.type)
      return {};
    taken[static_cast<size_t>(*j)] = true;
    m[static_cast<size_t>(i)] = *j;
  }
  return m;
}

}  // namespace

LftTransition dqr_transition(const DqrResult& res, bool by_hops) {
  LftTransition t;
  t.sl_changes = res.sl_changes.size();
  // res.changes is sorted by (idle, stage, LID, switch). by_hops: one stage per (idle, stage)
  // group. Packed: the order only matters among the entries of one LID (a packet meets the
  // entries of its own DLID only), so each LID's k-th group goes into stage k.
  struct Last {
    bool idle = false;
    int stage = -1;
    size_t rank = 0;
  };
  std::unordered_map<Lid, Last> last;
  bool g_idle = false;
  int g_stage = -1;
  for (const LftChange& c : res.changes) {
    size_t k;
    if (by_hops) {
      if (t.stages.empty() || g_idle != c.idle || g_stage != c.stage) t.stages.emplace_back();
      g_idle = c.idle;
      g_stage = c.stage;
      k = t.stages.size() - 1;
    } else {
      Last& l = last[c.lid];
      if (l.stage < 0 || l.idle != c.idle || l.stage != c.stage) l.rank++;
      l.idle = c.idle;
      l.stage = c.stage;
      k = l.rank - 1;
      if (t.stages.size() <= k) t.stages.resize(k + 1);
    }
    t.stages[k].entries.push_back({c.sw, c.lid, c.old_port, c.new_port});
    t.stages[k].idle += c.idle;
  }
  return t;
}

DqrEngine::~DqrEngine() {
  if (next_.valid()) next_.wait();
}

Routing DqrEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) {
  if (const std::string st = options.get(option_spec("stages")); st != "packed" && st != "hops")
    throw OptionError("option stages=" + escape_name(st) + " for engine 'dqr': expected packed or hops");
  const bool precompute = options.get_bool(option_spec("precompute"));
  const bool switch_sources = options.get_bool(option_spec("switch_sources"));
  std::shared_ptr<Prepared> prepared;
  if (next_.valid()) {
    try {
      prepared = next_.get();  // waits if the background build is still running
    } catch (const std::exception&) {
      prepared.reset();  // e.g. the routing had a dependency cycle: route_impl reports it
    }
  }
  Routing r = route_impl(fabric, options, previous, precompute ? prepared.get() : nullptr);
  if (precompute) {
    auto p = std::make_shared<Prepared>();
    p->fabric = fabric;
    p->routing = r;
    p->switch_sources = switch_sources;
    next_ = std::async(std::launch::async, [p] {
      ChannelListOptions clo;
      clo.switch_sources = p->switch_sources;
      p->list = ChannelList::build(p->fabric, p->routing, clo);  // refers to p->fabric (kept alive by p)
      p->tables = dqr_tables(p->fabric, p->routing);
      return p;
    });
  }
  return r;
}

Routing DqrEngine::route_impl(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous,
                              Prepared* prepared) {
  const Fabric& shape = previous.fabric ? *previous.fabric : fabric;
  const bool mesh = recognise_mesh(shape).has_value();
  // ft-dor on a full torus too: E-cube, one virtual layer per path, which DQR can patch.
  const bool grid = mesh || recognise_torus(shape).has_value();
  // Default base: ft-dor on a mesh or torus, ftree-misroute on a recognised fat tree (real
  // clusters: ANs, bundles, directors; one VL, deadlock free), else ft-minhop.
  auto default_base = [&]() -> std::string {
    if (grid) return "ft-dor";
    try {
      recognize_fat_tree(shape, kName);
      return "ftree-misroute";
    } catch (const EngineError&) {
      return "ft-minhop";
    }
  };
  const std::string base =
      options.has("base") ? options.get("base", "") : previous.routing && !base_.empty() ? base_ : default_base();
  const DqrOptions dopt = dqr_options_from(options, mesh);
  const bool fallback = options.get_bool(option_spec("fallback"));
  if (base == kName) throw OptionError("option base=dqr for engine 'dqr': the base engine must be another engine");

  auto full = [&](const std::string& reason) {
    auto eng = factory_(base);
    auto t0 = std::chrono::steady_clock::now();
    Routing r = eng->route(fabric, options.with_prefix("base"), previous);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // DQR exists to keep routings deadlock free: never hand OpenSM a full routing that is not.
    CdgBuildOptions co;
    co.switch_sources = dopt.switch_sources;
    co.collect_loads = false;
    const Verdict v = verdict_of(build_cdg(fabric, r, co), kName, true);  // ftroute/verdict.hpp
    const std::string refused = reason + "; the full routing by base engine '" + base + "' ";
    if (v.looping() > 0) throw EngineError(kName, refused + "has forwarding loops: " + v.first_of(DropKind::Loop));
    if (!v.cdg_acyclic) throw EngineError(kName, refused + "is not deadlock free: dependency cycle " + v.cycle);
    base_ = base;
    r.notes.push_back("dqr: " + reason + "; full routing with base engine '" + base + "' (" +
                      std::to_string(static_cast<long>(s * 1e3)) + " ms)");
    r.engine = std::string(kName) + "(" + r.engine + ")";
    return r;
  };
  if (!previous.fabric || !previous.routing) return full("no previous routing");
  const Fabric& pf = *previous.fabric;
  const Routing& pr = *previous.routing;
  std::vector<int> m = map_nodes(pf, fabric);
  if (m.empty()) return full("the node set changed since the previous routing (DQR handles removed links only)");
  for (int i = 0; i < fabric.size(); i++)
    for (int p = 0; p <= fabric.node(i).num_ports; p++) {
      if (p == 0 && !fabric.node(i).is_switch()) continue;
      const Port& a = fabric.node(i).port(p);
      const Port& b = pf.node(m[static_cast<size_t>(i)]).port(p);
      if (a.base_lid != b.base_lid || a.lmc != b.lmc)
        return full("LIDs changed at " + fabric.port_name(i, p) + " (DQR keeps LIDs)");
    }
  // `before`: the new fabric with the links that disappeared put back
  std::vector<int> inv(static_cast<size_t>(fabric.size()));
  for (int i = 0; i < fabric.size(); i++) inv[static_cast<size_t>(m[static_cast<size_t>(i)])] = i;
  Fabric before = fabric;
  for (int j = 0; j < pf.size(); j++)
    for (int p = 1; p <= pf.node(j).num_ports; p++) {
      const Port& b = pf.node(j).port(p);
      if (!b.connected()) continue;
      int i = inv[static_cast<size_t>(j)], pi = inv[static_cast<size_t>(b.peer_node)];
      const Port& now = before.node(i).port(p);
      if (now.connected()) {
        if (now.peer_node != pi || now.peer_port != b.peer_port)
          return full("link at " + fabric.port_name(i, p) + " was re-cabled (DQR handles removed links only)");
        continue;
      }
      if (before.node(pi).port(b.peer_port).connected())
        return full("link at " + fabric.port_name(pi, b.peer_port) + " was re-cabled");
      before.connect(i, p, pi, b.peer_port);
    }
  // previous routing in the new node numbering
  Routing old;
  old.engine = pr.engine;
  old.lfts = Lfts(fabric);
  for (int i = 0; i < fabric.size(); i++)
    if (fabric.node(i).is_switch()) {  // the table up to max_lid, as set() per entry would leave it
      const auto& t = pr.lfts.table(m[static_cast<size_t>(i)]);
      const size_t n = std::min(t.size(), static_cast<size_t>(fabric.max_lid()) + 1);
      std::vector<uint8_t>& dst = old.lfts.table(i);
      if (dst.size() < n) dst.resize(n, kNoPath);
      std::copy(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(n), dst.begin());
    }
  old.path_sl = pr.path_sl;
  old.num_vls = pr.num_vls;
  for (const auto& [k, tab] : pr.sl2vl.raw()) {
    int node = static_cast<int>(k >> 16);
    if (node >= 0 && node < fabric.size())
      old.sl2vl.set(inv[static_cast<size_t>(node)], static_cast<int>((k >> 8) & 0xff), static_cast<int>(k & 0xff), tab);
  }
  std::string failure;  // why DQR could not patch the previous routing (then: full routing)
  Routing patched;
  try {
    auto t0 = std::chrono::steady_clock::now();
    // The list precomputed after the previous sweep fits if it was built for this very routing
    // on the same node numbering and links as `before` (channel ids depend on both).
    bool reuse = prepared && prepared->switch_sources == dopt.switch_sources &&
                 prepared->fabric.size() == before.size() && prepared->routing.lfts == old.lfts &&
                 prepared->routing.sl2vl.raw() == old.sl2vl.raw();
    for (int i = 0; reuse && i < fabric.size(); i++) {
      if (m[static_cast<size_t>(i)] != i) reuse = false;
      const Node& a = before.node(i);
      const Node& b = prepared->fabric.node(i);
      if (a.num_ports != b.num_ports || a.type != b.type) reuse = false;
      for (int p = 1; reuse && p <= a.num_ports; p++)
        if (a.port(p).connected() != b.port(p).connected() ||
            (a.port(p).connected() && (a.port(p).peer_node != b.port(p).peer_node || a.port(p).peer_port != b.port(p).peer_port)))
          reuse = false;
    }
    ChannelListOptions clo;
    clo.switch_sources = dopt.switch_sources;
    ChannelList list = reuse ? std::move(prepared->list) : ChannelList::build(before, old, clo);
    double tb = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string list_note = reuse ? "channel list precomputed in the background after the previous sweep (" +
                                              std::to_string(static_cast<long>(tb * 1e3)) + " ms to take over)"
                                        : "channel list " + std::to_string(static_cast<long>(tb * 1e3)) + " ms";
    DqrOptions with_tables = dopt;
    if (reuse) with_tables.tables = prepared->tables;  // precomputed with the list
    DqrResult res = dqr_reconfigure(list, before, fabric, old, with_tables);
    if (!res.ok) {
      std::string why = res.failures.empty() ? "unknown" : res.failures.front();
      if (!fallback) throw EngineError(kName, "reconfiguration failed: " + why);
      failure = "DQR (" + dopt.variant_name() + ") failed after " + std::to_string(res.failed_channels / 2) +
                " link fault(s): " + why;
    } else {
      const std::vector<std::string> old_notes = std::move(patched.notes);
      patched = dqr_routing(old, res);
      patched.engine = kName;
      patched.notes = old_notes;
      if (!res.changes.empty() || !res.sl_changes.empty()) {
        // The checked order, for an SM that applies it stage by stage (the plugin, dqr:staged).
        patched.transition = std::make_shared<LftTransition>(dqr_transition(res, options.get(option_spec("stages")) == "hops"));
      }
      if (res.failed_channels == 0) {
        patched.notes.push_back(
            "dqr: no link of the previous routing disappeared; previous routing kept (0 entries changed)");
      } else {
        patched.notes.push_back("dqr: patched the previous routing (" + old.engine + ") with " + dopt.variant_name() +
                                " after " + std::to_string(res.failed_channels / 2) + " failed link(s): " +
                                std::to_string(res.entries_changed) + " of " + std::to_string(res.entries_total) +
                                " LFT entries changed (" + pct(res.entries_changed, res.entries_total) + "), " +
                                std::to_string(res.dlids_affected) + " DLIDs affected, " +
                                pct(res.flows_affected, res.flows_total) + " of CA flows rerouted, " +
                                std::to_string(res.turns_enabled) + " turns enabled, " +
                                std::to_string(res.sl_changes.size()) + " path SLs changed (" +
                                std::to_string(res.dlids_layer_moved) + " DLIDs moved to another layer); " + list_note +
                                ", reconfiguration " + std::to_string(static_cast<long>(res.seconds * 1e3)) + " ms");
      }
      for (auto& n : res.notes) patched.notes.push_back("dqr: " + n);
    }
  } catch (const EngineError& e) {
    if (!fallback) throw;
    failure = std::string("DQR not applicable: ") + e.what();
  }
  // Outside the try: a full routing that is refused (EngineError) goes to the caller as it is.
  if (!failure.empty()) return full(failure);
  return patched;
}

}  // namespace ftroute
