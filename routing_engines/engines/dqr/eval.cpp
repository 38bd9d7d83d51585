// The DQR evaluation, run by `ftroute dqr-eval`: reproduces the DQR evaluation (seed 004 §V, Figs. 3-4 and the rerouted
// fraction): successive random link faults on DOR-routed meshes (and optionally the 648-port
// fat tree routed by ft-minhop), DQR after each fault, probability of a connected and
// deadlock-free result per variant.
#include "ftroute/dqr/eval.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <queue>
#include <random>
#include <unordered_set>
#include <sstream>

#include "ftroute/cdg.hpp"
#include "ftroute/verdict.hpp"
#include "ftroute/dqr/channel_list.hpp"
#include "ftroute/grid.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/route_walk.hpp"
#include "ftroute/topology.hpp"

namespace ftroute {

namespace {

// The next fault of a run: a random switch link whose loss keeps the fabric connected (physical
// disconnection is not a routing failure; such draws are redrawn, 100 tries). evaluate() and
// evaluate_flows() draw through this one function, so both models see the same faults per seed.
std::optional<Fabric> draw_connected_fault(const Fabric& f, std::mt19937_64& rng) {
  auto links = f.switch_links();
  for (int tries = 0; tries < 100 && !links.empty(); tries++) {
    auto [s, p] = links[topo::uniform_index(rng, links.size())];
    Fabric g = f;
    g.disconnect(s, p);
    if (g.connected()) return g;
  }
  return std::nullopt;
}

struct Point {
  long ok = 0, tried = 0;
  double flows = 0, entries = 0, ms = 0;  // sums over successes
  uint64_t joint = 0;  // DqrResult::joint_refusals, summed over every reconfiguration tried
};

struct Row {
  std::string topo, variant;
  std::vector<Point> pts;
};

// Connected (every CA pair delivered), loop-free, deadlock-free. Returns the CDG edges.
// With switch_sources, switch-to-switch (and switch-to-CA) pairs count too.
bool validate(const Fabric& f, const Routing& r, std::vector<ChannelList::Dep>* edges, bool switch_sources) {
  CdgBuildOptions co;
  co.switch_sources = switch_sources;
  co.collect_loads = false;
  CdgBuild b = build_cdg(f, r, co);
  if (!verdict_of(b, "dqr-eval", true).ok()) return false;  // ftroute/verdict.hpp
  if (edges) *edges = b.cdg.edges();
  return true;
}

Row evaluate(const std::string& topo, const Fabric& f0, const Routing& r0, const ChannelList& list0,
             const DqrOptions& o, int faults, int runs, uint64_t seed) {
  Row row{topo, o.variant_name(), std::vector<Point>(static_cast<size_t>(faults))};
  for (int run = 0; run < runs; run++) {
    std::mt19937_64 rng(seed * 1000003u + static_cast<uint64_t>(run));
    Fabric f = f0;
    Routing r;
    r.engine = r0.engine;
    r.lfts = r0.lfts;
    r.path_sl = r0.path_sl;
    r.sl2vl = r0.sl2vl;
    ChannelList list = list0;
    for (int i = 0; i < faults; i++) {
      std::optional<Fabric> gf = draw_connected_fault(f, rng);
      if (!gf) break;
      Fabric& g = *gf;
      row.pts[static_cast<size_t>(i)].tried++;
      DqrResult res = dqr_reconfigure(list, f, g, r, o);
      row.pts[static_cast<size_t>(i)].joint += res.joint_refusals;
      if (!res.ok) break;
      Routing nr = dqr_routing(r, res);  // new LFTs and, after layer moves, new path SLs
      std::vector<ChannelList::Dep> edges;
      if (!validate(g, nr, &edges, o.switch_sources)) break;  // would be a DQR bug; counted as failure
      Point& pt = row.pts[static_cast<size_t>(i)];
      pt.ok++;
      pt.flows += res.flows_total ? static_cast<double>(res.flows_affected) / static_cast<double>(res.flows_total) : 0;
      pt.entries += res.entries_total ? static_cast<double>(res.entries_changed) / static_cast<double>(res.entries_total) : 0;
      pt.ms += res.seconds * 1e3;
      f = std::move(g);
      r = std::move(nr);
      list.replace_dependencies(edges);  // transition complete: old paths' dependencies go
    }
  }
  // runs that could not draw fault i (fabric about to disconnect) count as not tolerated
  for (auto& p : row.pts) p.tried = runs;
  return row;
}

// ---- the paper's per-flow model (--model flow) ----
// Every (source switch, destination switch) pair is a flow with its own path and virtual layer
// (the paper reroutes flows, seed 004 §IV; InfiniBand cannot: one LFT entry per DLID serves all
// sources). Start: the paths and layers of the base routing (LFT walk, path_sl). One channel list
// per layer over the switch-to-switch links. After a fault every flow over the failed link gets
// a new path, one flow at a time: local = from the near end of the failed link (its prefix
// kept), e2e = from the source; Dijkstra over links, cost 1 per hop + turn_cost per turn that
// goes down in the layer's list, every new turn of the path (and the turn from the kept prefix)
// checked jointly (can_enable with the path's other new turns: "all turns"), committed with
// enable_all. With layers=all a flow that fails in its own layer tries every other layer of the
// routing (the kept prefix's turns enabled there too). The fault is tolerated if every affected
// flow got a path; then old turns no longer used are dropped (replace_dependencies). Each
// layer's channel list stays a valid order, so every layer is deadlock-free by construction.
// A new upward turn costs 3 hops in the per-flow search (DQR's LFT search: 0.25): flows rerouted
// one at a time then follow the detours earlier flows made legal instead of each enabling its own
// turns (which closes cycles for later flows). On the 10x10 mesh (30 runs) e2e per flow tolerated
// 50 % of single faults with 0.25 or 1, 100 % with 3; local per flow 40 % with all three.
constexpr double kFlowNewTurnCost = 3.0;
struct FlowModel {
  struct Flow {
    int layer;
    std::vector<int> links;  // link ids along the path
  };
  const Fabric* f = nullptr;
  std::vector<int> base;  // node -> first link id
  std::vector<int> tail, head;  // link id -> node
  std::vector<Flow> flows;
  std::vector<int> flow_dst;  // flow -> destination switch
  std::vector<ChannelList> lists;
  int id(int n, int p) const { return base[static_cast<size_t>(n)] + p; }
};

}  // namespace

std::vector<std::pair<int, uint8_t>> dqr_flow_path(const Fabric& f, const Lfts& lfts, int s, int t, Lid dl) {
  std::vector<std::pair<int, uint8_t>> links;
  const PathWalk w = walk_path(f, lfts, s, dl, -1, 0, [&](int y, const RouteHop& h) {
    if (y == t) return false;  // arrived: t's own hop is not part of the switch path
    if (h.kind == RouteHop::Forward) links.emplace_back(y, h.port);
    return true;
  });
  if (w.end != PathWalk::Stopped)
    throw Error("dqr-eval --model flow: the base routing does not deliver " + f.node_label(s) + " -> " + f.node_label(t));
  return links;
}

namespace {

// The dependencies a flow's path makes (each link onto the next) over its first n links, appended.
void append_path_deps(const std::vector<int>& links, size_t n, std::vector<ChannelList::Dep>& out) {
  for (size_t i = 0; i + 1 < std::min(n, links.size()); i++)
    out.push_back({static_cast<ChannelList::Id>(links[i]), static_cast<ChannelList::Id>(links[i + 1])});
}

FlowModel flow_model(const Fabric& f, const Routing& r) {
  FlowModel m;
  m.f = &f;
  int next = 0;
  for (int n = 0; n < f.size(); n++) {
    m.base.push_back(next);
    next += f.node(n).num_ports + 1;
  }
  m.tail.assign(static_cast<size_t>(next), -1);
  m.head.assign(static_cast<size_t>(next), -1);
  std::vector<ChannelList::Id> chans;
  for (int s : f.switches())
    for (int p = 1; p <= f.node(s).num_ports; p++) {
      const Port& pt = f.node(s).port(p);
      if (!pt.connected() || !f.node(pt.peer_node).is_switch()) continue;
      m.tail[static_cast<size_t>(m.id(s, p))] = s;
      m.head[static_cast<size_t>(m.id(s, p))] = pt.peer_node;
      chans.push_back(static_cast<ChannelList::Id>(m.id(s, p)));
    }
  // one CA LID per switch stands for the switch's traffic
  std::vector<Lid> ca_lid(static_cast<size_t>(f.size()), 0);
  for (const EndPort& ep : f.end_ports()) {
    if (f.node(ep.node).is_switch()) continue;
    const Attach at = f.attach(ep.base_lid);
    if (at.valid() && !ca_lid[static_cast<size_t>(at.sw)]) ca_lid[static_cast<size_t>(at.sw)] = ep.base_lid;
  }
  const int layers = std::max(1, r.num_vls);
  std::vector<std::vector<ChannelList::Dep>> deps(static_cast<size_t>(layers));
  for (int s : f.switches())
    for (int t : f.switches()) {
      if (s == t || !ca_lid[static_cast<size_t>(s)] || !ca_lid[static_cast<size_t>(t)]) continue;
      const Lid sl = ca_lid[static_cast<size_t>(s)], dl = ca_lid[static_cast<size_t>(t)];
      FlowModel::Flow fl;
      fl.layer = std::min<int>(layers - 1, r.sl(sl, dl));
      for (auto [y, q] : dqr_flow_path(f, r.lfts, s, t, dl)) fl.links.push_back(m.id(y, q));
      append_path_deps(fl.links, fl.links.size(), deps[static_cast<size_t>(fl.layer)]);
      m.flows.push_back(std::move(fl));
      m.flow_dst.push_back(t);
    }
  for (int l = 0; l < layers; l++) m.lists.emplace_back(static_cast<ChannelList::Id>(next), chans, deps[static_cast<size_t>(l)]);
  return m;
}

// A new path for flow fi in layer l from switch `from` (arriving on link `in`, -1 at the source)
// to its destination over the links of g, with `keep` (the prefix's turns) enabled jointly.
// It may also end by joining the flow's old path behind the failed link (`suffix`, empty when
// the layer changes), as DQR's LFT repair joins a route that reaches the destination.
// (flow_reroute is flow_search for a flow: its destination, the switches its kept prefix visits.)
// commit = false: the path's new turns are checked together but not enabled.
bool flow_search(FlowModel& m, const Fabric& g, int l, int from, int in, int t, const std::vector<int>& prefix_nodes,
                 const std::vector<ChannelList::Dep>& keep, const std::vector<int>& suffix, std::vector<int>& out,
                 double turn_cost, bool commit = true) {
  ChannelList& L = m.lists[static_cast<size_t>(l)];
  struct St {
    int link, parent;
    double cost;
    std::vector<ChannelList::Dep> nd;  // new deps along the path (keep included)
  };
  std::vector<St> st;
  using QE = std::pair<double, int>;
  std::priority_queue<QE, std::vector<QE>, std::greater<QE>> pq;
  std::unordered_set<int> done;
  auto on_path = [&](int si, int node) {
    for (int i = si; i >= 0; i = st[static_cast<size_t>(i)].parent)
      if (m.head[static_cast<size_t>(st[static_cast<size_t>(i)].link)] == node) return true;
    return node == from || std::find(prefix_nodes.begin(), prefix_nodes.end(), node) != prefix_nodes.end();
  };
  auto push = [&](int parent, int y, int prev_link, double cost, const std::vector<ChannelList::Dep>& nd) {
    const Node& n = g.node(y);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& pt = n.port(p);
      if (!pt.connected() || !g.node(pt.peer_node).is_switch()) continue;
      const int lk = m.id(y, p);
      if (done.count(lk) || on_path(parent, pt.peer_node)) continue;
      St s{lk, parent, cost + 1, nd};
      if (prev_link >= 0) {
        const ChannelList::Dep d{static_cast<ChannelList::Id>(prev_link), static_cast<ChannelList::Id>(lk)};
        if (!L.has_dep(d.first, d.second)) {
          s.cost += L.pos(d.first) < L.pos(d.second) ? kFlowNewTurnCost : turn_cost;
          s.nd.push_back(d);
        }
      }
      st.push_back(std::move(s));
      pq.push({st.back().cost, static_cast<int>(st.size()) - 1});
    }
  };
  std::vector<ChannelList::Dep> nd0;
  for (const auto& d : keep)
    if (!L.has_dep(d.first, d.second)) nd0.push_back(d);
  push(-1, from, in, 0, nd0);
  while (!pq.empty()) {
    const int si = pq.top().second;
    pq.pop();
    const int lk = st[static_cast<size_t>(si)].link;
    if (done.count(lk)) continue;
    // joint check of the new turns (each against the others: "all turns")
    const std::vector<ChannelList::Dep> nd = st[static_cast<size_t>(si)].nd;  // copy: push() grows st
    bool ok = true;
    std::vector<ChannelList::Dep> pre;
    for (const auto& d : nd) {
      if (!L.can_enable(d.first, d.second, pre)) { ok = false; break; }
      pre.push_back(d);
    }
    if (!ok) continue;
    done.insert(lk);
    const int y = m.head[static_cast<size_t>(lk)];
    for (size_t j = 0; j < suffix.size() && y != t; j++) {
      if (m.tail[static_cast<size_t>(suffix[j])] != y) continue;
      bool loop = false;  // the rest of the old path must not cross the new segment or the prefix
      for (size_t k = j; k < suffix.size() && !loop; k++) loop = on_path(si, m.head[static_cast<size_t>(suffix[k])]);
      if (loop) break;
      std::vector<ChannelList::Dep> jd = nd;
      if (!L.has_dep(static_cast<ChannelList::Id>(lk), static_cast<ChannelList::Id>(suffix[j])))
        jd.push_back({static_cast<ChannelList::Id>(lk), static_cast<ChannelList::Id>(suffix[j])});
      if (commit ? !L.enable_all(jd) : !L.can_enable_all(jd)) break;
      out.clear();
      for (int i = si; i >= 0; i = st[static_cast<size_t>(i)].parent) out.push_back(st[static_cast<size_t>(i)].link);
      std::reverse(out.begin(), out.end());
      out.insert(out.end(), suffix.begin() + static_cast<std::ptrdiff_t>(j), suffix.end());
      return true;
    }
    if (y == t) {
      if (commit ? !L.enable_all(nd) : !L.can_enable_all(nd)) continue;
      out.clear();
      for (int i = si; i >= 0; i = st[static_cast<size_t>(i)].parent) out.push_back(st[static_cast<size_t>(i)].link);
      std::reverse(out.begin(), out.end());
      return true;
    }
    push(si, y, lk, st[static_cast<size_t>(si)].cost, nd);
  }
  return false;
}

bool flow_reroute(FlowModel& m, const Fabric& g, size_t fi, int l, int from, int in, const std::vector<ChannelList::Dep>& keep,
                  const std::vector<int>& suffix, std::vector<int>& out, double turn_cost) {
  std::vector<int> prefix_nodes;  // switches the kept prefix visits (no loops through them)
  for (int lk : m.flows[fi].links) {
    if (m.tail[static_cast<size_t>(lk)] == from) break;
    prefix_nodes.push_back(m.tail[static_cast<size_t>(lk)]);
  }
  return flow_search(m, g, l, from, in, m.flow_dst[fi], prefix_nodes, keep, suffix, out, turn_cost);
}

// One fault (g = f minus a link) in the flow model: true if every affected flow was rerouted.
bool flow_fault(FlowModel& m, const Fabric& g, const DqrOptions& o, double* rerouted, bool drop_failed) {
  std::vector<char> dead(m.tail.size(), 0);
  for (size_t lk = 0; lk < m.tail.size(); lk++) {
    const int s = m.tail[lk];
    if (s < 0) continue;
    const Port& pt = g.node(s).port(static_cast<int>(lk) - m.base[static_cast<size_t>(s)]);
    if (!pt.connected() || pt.peer_node != m.head[lk]) dead[lk] = 1;
  }
  // the second attempt, as in dqr_reconfigure(): the failed link's channels carry nothing, their
  // dependencies go first
  if (drop_failed)
    for (size_t lk = 0; lk < dead.size(); lk++)
      if (dead[lk])
        for (ChannelList& L : m.lists) L.drop_dependencies_of(static_cast<ChannelList::Id>(lk));
  size_t affected = 0;
  const bool local = o.paths == DqrOptions::Paths::Local;
  const int layers = static_cast<int>(m.lists.size());
  // The paper's local reroute (seed 004 §III: "create a topology agnostic local reroute around
  // the failed element and have all flows (if possible) use this reroute for connectivity"): one
  // detour per failed channel and layer, the cheapest path from its near to its far end (cost as
  // in flow_search); tlr enables the detour's turns together before any flow uses it, local
  // checks them together with each flow's own new turns. A flow takes prefix + detour + suffix
  // (a switch met twice: the cycle cut out) if its new turns fit; otherwise it searches its own
  // path, from the near end (local, tlr) or from its source (tlr-e2e). e2e: no detour.
  const bool shared_detour = local || o.tlr;
  std::map<std::pair<int, int>, std::optional<std::vector<int>>> detours;  // (failed link, layer) -> detour
  auto detour_of = [&](int lk, int l) -> const std::optional<std::vector<int>>& {
    auto [it, fresh] = detours.try_emplace({lk, l});
    if (fresh) {
      std::vector<int> d;
      if (flow_search(m, g, l, m.tail[static_cast<size_t>(lk)], -1, m.head[static_cast<size_t>(lk)], {}, {}, {}, d,
                      o.turn_cost, /*commit=*/o.tlr))
        it->second = std::move(d);
    }
    return it->second;
  };
  for (size_t fi = 0; fi < m.flows.size(); fi++) {
    auto& fl = m.flows[fi];
    size_t k = 0;
    while (k < fl.links.size() && !dead[static_cast<size_t>(fl.links[k])]) k++;
    if (k == fl.links.size()) continue;
    affected++;
    if (shared_detour) {
      const auto& det = detour_of(fl.links[k], fl.layer);
      if (det) {
        std::vector<int> path(fl.links.begin(), fl.links.begin() + static_cast<std::ptrdiff_t>(k));
        path.insert(path.end(), det->begin(), det->end());
        path.insert(path.end(), fl.links.begin() + static_cast<std::ptrdiff_t>(k) + 1, fl.links.end());
        {  // a switch visited twice (the detour meets the prefix or the suffix): cut the cycle out
          std::vector<int> erased, at_node;  // links kept; the switches they leave from
          for (int lk : path) {
            const int h = m.head[static_cast<size_t>(lk)];
            auto it = std::find(at_node.begin(), at_node.end(), h);
            if (it != at_node.end()) {
              const auto n = it - at_node.begin();
              erased.resize(static_cast<size_t>(n)), at_node.resize(static_cast<size_t>(n));
              continue;
            }
            erased.push_back(lk), at_node.push_back(m.tail[static_cast<size_t>(lk)]);
          }
          path = std::move(erased);
        }
        bool ok = !path.empty();
        for (int lk : path) ok = ok && !dead[static_cast<size_t>(lk)];
        ChannelList& L = m.lists[static_cast<size_t>(fl.layer)];
        std::vector<ChannelList::Dep> nd;  // the path's dependencies the list lacks
        if (ok) append_path_deps(path, path.size(), nd);
        nd.erase(std::remove_if(nd.begin(), nd.end(), [&](const ChannelList::Dep& dp) { return L.has_dep(dp.first, dp.second); }),
                 nd.end());
        if (ok && L.enable_all(nd)) {
          fl.links = std::move(path);
          continue;
        }
      }
    }
    const size_t cut = local ? k : 0;  // links kept
    const int from = local ? m.tail[static_cast<size_t>(fl.links[k])] : m.tail[static_cast<size_t>(fl.links[0])];
    const int in = cut > 0 ? fl.links[cut - 1] : -1;
    std::vector<int> seg;
    bool ok = false;
    for (int step = 0; step < layers && !ok; step++) {
      const int l = (fl.layer + step) % layers;
      if (step > 0 && o.layers != DqrOptions::Layers::All) break;
      std::vector<ChannelList::Dep> keep;
      if (l != fl.layer) append_path_deps(fl.links, cut, keep);
      std::vector<int> suffix;
      if (l == fl.layer) suffix.assign(fl.links.begin() + static_cast<std::ptrdiff_t>(k) + 1, fl.links.end());
      if (flow_reroute(m, g, fi, l, from, in, keep, suffix, seg, o.turn_cost)) {
        fl.links.resize(cut);
        fl.links.insert(fl.links.end(), seg.begin(), seg.end());
        fl.layer = l;
        ok = true;
      }
    }
    if (!ok) return false;
  }
  *rerouted = m.flows.empty() ? 0 : static_cast<double>(affected) / static_cast<double>(m.flows.size());
  // transition complete: only the turns of the current paths stay
  std::vector<std::vector<ChannelList::Dep>> deps(static_cast<size_t>(layers));
  for (const auto& fl : m.flows) append_path_deps(fl.links, fl.links.size(), deps[static_cast<size_t>(fl.layer)]);
  for (int l = 0; l < layers; l++) m.lists[static_cast<size_t>(l)].replace_dependencies(deps[static_cast<size_t>(l)]);
  return true;
}

Row evaluate_flows(const std::string& topo, const Fabric& f0, const Routing& r0, const DqrOptions& o, int faults, int runs,
                   uint64_t seed) {
  Row row{topo, o.variant_name() + " (per flow)", std::vector<Point>(static_cast<size_t>(faults))};
  const FlowModel m0 = flow_model(f0, r0);
  for (int run = 0; run < runs; run++) {
    std::mt19937_64 rng(seed * 1000003u + static_cast<uint64_t>(run));  // the same faults as evaluate()
    Fabric f = f0;
    FlowModel m = m0;
    for (int i = 0; i < faults; i++) {
      std::optional<Fabric> gf = draw_connected_fault(f, rng);
      if (!gf) break;
      Fabric& g = *gf;
      const auto t0 = std::chrono::steady_clock::now();
      double rer = 0;
      FlowModel before = m;  // a failed first attempt is undone: the second starts from here
      if (!flow_fault(m, g, o, &rer, false)) {
        m = std::move(before);
        if (!flow_fault(m, g, o, &rer, true)) break;
      }
      Point& pt = row.pts[static_cast<size_t>(i)];
      pt.ok++;
      pt.flows += rer;
      pt.ms += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
      f = std::move(g);
    }
  }
  for (auto& p : row.pts) p.tried = runs;
  return row;
}

std::string fmt(double v, int prec = 1) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

std::string table(const std::vector<Row>& rows, int faults, int runs, uint64_t seed, double secs) {
  std::ostringstream s;
  s << "Generated by `ftroute dqr-eval` (" << runs << " runs per point, seed " << seed << ", " << fmt(secs, 0)
    << " s). P(k) = probability (%) that DQR gave a connected, loop-free and deadlock-free routing after each of k "
       "successive random link faults (validated by a full CDG walk).\n\n";
  s << "| topology | variant |";
  for (int i = 1; i <= faults; i++) s << " P(" << i << ") |";
  s << "\n|---|---|";
  for (int i = 1; i <= faults; i++) s << "---:|";
  s << "\n";
  for (const auto& r : rows) {
    s << "| " << r.topo << " | " << r.variant << " |";
    for (const auto& p : r.pts) {
      if (!p.tried) { s << " - |"; continue; }
      s << " " << fmt(100.0 * static_cast<double>(p.ok) / static_cast<double>(p.tried), 1) << " |";
    }
    s << "\n";
  }
  s << "\nRerouted CA flows (% of all CA pairs whose route crossed the new fault) / LFT entries changed (%) / "
       "mean DQR time (ms), averaged over the successful reconfigurations at each fault count:\n\n";
  s << "| topology | variant |";
  for (int i = 1; i <= faults; i++) s << " k=" << i << " |";
  s << "\n|---|---|";
  for (int i = 1; i <= faults; i++) s << "---|";
  s << "\n";
  for (const auto& r : rows) {
    s << "| " << r.topo << " | " << r.variant << " |";
    for (const auto& p : r.pts) {
      if (!p.ok) { s << " - |"; continue; }
      double n = static_cast<double>(p.ok);
      s << " " << fmt(100 * p.flows / n, 2) << " / " << fmt(100 * p.entries / n, 2) << " / " << fmt(p.ms / n, 1) << " |";
    }
    s << "\n";
  }
  s << "\nturns=all: search states refused only because their new turns cannot be enabled together (each alone "
       "could), summed over all reconfigurations (`DqrResult::joint_refusals`). The only point where a variant's "
       "-all and -single runs decide differently: where it is 0 for an -all row, the -single row made exactly the "
       "same decisions.\n\n";
  s << "| topology | variant | joint refusals |\n|---|---|---:|\n";
  for (const auto& r : rows) {
    uint64_t j = 0;
    for (const auto& p : r.pts) j += p.joint;
    s << "| " << r.topo << " | " << r.variant << " | " << j << " |\n";
  }
  return s.str();
}

}  // namespace

std::string dqr_eval(const DqrEvalOptions& opt) {
  const std::vector<DqrOptions>& variants = opt.variants;
  const std::vector<std::pair<int, bool>>& sizes = opt.sizes;
  const bool layer_moves = opt.layer_moves;
  const int faults = opt.faults, runs = opt.runs;
  const uint64_t seed = opt.seed;
  const bool fattree = opt.fattree;
  const int ft_faults = opt.fattree_faults;
  const std::string& ft_engine = opt.fattree_engine;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Row> rows;
  for (auto [n, torus] : sizes) {
    topo::Grid g;
    g.dims = {n, n};
    g.torus = torus;
    Fabric f = topo::grid(g);
    f.assign_lids();
    // ft-dor: tori by E-cube, one virtual layer (SL = VL) per path; ft-lash: layered shortest paths
    Routing r = RoutingPipeline(opt.base, opt.base_options).run(f).routing;  // ftroute/pipeline.hpp
    ChannelList list = ChannelList::build(f, r);
    auto grid = recognise_mesh(f);  // precomputed once for the plug-in (fault-free mesh)
    const std::string base_opts = options_text(opt.base_options);  // ft-lash[fill=even]
    const std::string base_name = base_opts.empty() ? opt.base : opt.base + "[" + base_opts + "]";
    const std::string algo = opt.base == "ft-dor" && base_opts.empty() ? (torus ? "dor (E-cube, " : "dor") : base_name + " (";
    std::string name = std::to_string(n) + "x" + std::to_string(n) + (torus ? " torus, " : " mesh, ") + algo +
                       (algo != "dor" ? std::to_string(std::max(1, r.num_vls)) + " layers)" : "");
    for (auto o : variants) {
      if (o.mesh_plugin && torus) {  // the plug-in is the mesh's; the per-layer torus plug-in is not implemented
        std::fprintf(stderr, "dqr-eval: %s: variant %s skipped (mesh plug-in)\n", name.c_str(), o.variant_name().c_str());
        continue;
      }
      if (o.mesh_plugin && grid) o.mesh = std::make_shared<const MeshGrid>(*grid);
      for (bool moves : {false, true}) {  // with layer moves: the same variant, allowed to move flows to other layers
        if (moves && !(layer_moves && r.num_vls > 1)) break;
        if (moves) o.layers = DqrOptions::Layers::All;
        if (opt.model != DqrEvalOptions::Model::Flow) rows.push_back(evaluate(name, f, r, list, o, faults, runs, seed));
        if (opt.model != DqrEvalOptions::Model::Lft && !o.mesh_plugin && (o.tlr || o.turns == DqrOptions::Turns::All))
          rows.push_back(evaluate_flows(name, f, r, o, faults, runs, seed));
        std::fprintf(stderr, "dqr-eval: %s %s done\n", name.c_str(), o.variant_name().c_str());
      }
    }
  }
  if (fattree) {
    Fabric f = topo::fat_tree648();
    f.assign_lids();
    const int ft_runs = std::max(1, runs / 5);
    auto list_of = [&](const Routing& r, bool s2s, const std::string& what) -> std::optional<ChannelList> {
      ChannelListOptions clo;
      clo.switch_sources = s2s;
      try {
        return ChannelList::build(f, r, clo);
      } catch (const EngineError& e) {
        std::fprintf(stderr, "dqr-eval: fat tree (%s) skipped: %s\n", what.c_str(), e.what());
        return std::nullopt;
      }
    };
    auto add_rows = [&](const std::string& name, const Routing& r, const ChannelList& list, bool s2s) {
      for (auto p : {DqrOptions::Paths::EndToEnd, DqrOptions::Paths::Local}) {
        DqrOptions o;
        o.paths = p;
        o.switch_sources = s2s;
        Row row = evaluate(name, f, r, list, o, ft_faults, ft_runs, seed);
        row.pts.resize(static_cast<size_t>(faults));
        rows.push_back(row);
        std::fprintf(stderr, "dqr-eval: %s %s done\n", name.c_str(), o.variant_name().c_str());
      }
    };
    const std::string runs_text = " (" + std::to_string(ft_runs) + " runs)";
    // node-to-node traffic only, then (P4's fat-tree experiment) switch-to-switch paths as well
    for (bool s2s : {false, true}) {
      Routing r = RoutingPipeline(ft_engine, {}).run(f).routing;
      if (auto list = list_of(r, s2s, s2s ? "switch-to-switch" : "CA"))
        add_rows("648-port 2-level fat tree, " + ft_engine + (s2s ? ", switch-to-switch paths" : ", CA traffic") + runs_text,
                 r, *list, s2s);
    }
    // The paper's own set-up (§V-C): a fat-tree routing for node-to-node and node-to-switch
    // traffic only (the base's switch-to-switch entries removed), its switch-to-switch paths
    // built by DQR through the channel list (DqrOptions::connect), then the faults.
    Routing r = RoutingPipeline(ft_engine, {}).run(f).routing;
    const size_t removed = dqr_strip_switch_paths(f, r);
    if (auto list = list_of(r, true, "switch-to-switch paths built by DQR")) {
      DqrOptions co;
      co.connect = true;
      co.switch_sources = true;
      co.paths = DqrOptions::Paths::EndToEnd;
      const DqrResult res = dqr_reconfigure(*list, f, f, r, co);
      Routing nr = dqr_routing(r, res);
      std::vector<ChannelList::Dep> edges;
      if (!res.ok || !validate(f, nr, &edges, true)) {
        std::fprintf(stderr, "dqr-eval: fat tree, switch-to-switch paths by DQR: not built (%s)\n",
                     res.failures.empty() ? "check failed" : res.failures.front().c_str());
      } else {
        list->replace_dependencies(edges);
        add_rows("648-port 2-level fat tree, " + ft_engine + " node paths, switch-to-switch paths built by DQR (" +
                     std::to_string(removed) + " entries removed, " + std::to_string(res.entries_changed) + " set)" +
                     runs_text,
                 nr, *list, true);
      }
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return table(rows, faults, runs, seed, secs);
}

}  // namespace ftroute
