#include "ftdrb/ftdrb.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "ftroute/incremental_dag.hpp"
#include "ftroute/route_walk.hpp"
#include "ftroute/switch_graph.hpp"

namespace ftroute {

namespace {

struct Dest {
  EndPort ep;
  int dsw = -1;          // sid of the delivering switch
  uint8_t dport = 0;     // port on dsw towards the end port (0 = dsw itself)
};

class Router {
 public:
  Router(const Fabric& f, const SwitchGraph& g, Lfts& lfts)
      : f_(f), g_(g), lfts_(lfts), load_(static_cast<size_t>(g.size())) {
    for (int s = 0; s < g.size(); s++) load_[static_cast<size_t>(s)].assign(static_cast<size_t>(f.node(g.node(s)).num_ports) + 1, 0);
  }

  const std::vector<int>& dist(int target) {
    auto it = dist_.find(target);
    if (it == dist_.end()) it = dist_.emplace(target, g_.bfs(target)).first;
    return it->second;
  }

  // Among the minimal-hop ports of `s` towards `target`, the least loaded (ties: lowest port).
  uint8_t pick(int s, const std::vector<int>& d) {
    int best = -1;
    uint32_t best_load = 0;
    for (const auto& e : g_.edges(s)) {
      if (d[static_cast<size_t>(e.nbr)] != d[static_cast<size_t>(s)] - 1) continue;
      uint32_t l = load_[static_cast<size_t>(s)][e.port];
      if (best < 0 || l < best_load) best = e.port, best_load = l;
    }
    return best < 0 ? kNoPath : static_cast<uint8_t>(best);
  }

  void set(int s, Lid lid, uint8_t port) {
    lfts_.set(g_.node(s), lid, port);
    if (port != kNoPath && port != 0) load_[static_cast<size_t>(s)][port]++;
  }
  uint8_t get(int s, Lid lid) const { return lfts_.get(g_.node(s), lid); }
  int next(int s, uint8_t port) const {
    int peer = f_.node(g_.node(s)).port(port).peer_node;
    return peer < 0 ? -1 : g_.pos(peer);
  }
  void count(int s, uint8_t port) {
    if (port != kNoPath && port != 0) load_[static_cast<size_t>(s)][port]++;
  }

  // Base in-tree for `lid`: minimal, balanced.
  void route_base(const Dest& d, Lid lid) {
    const auto& dd = dist(d.dsw);
    for (int s = 0; s < g_.size(); s++) {
      if (s == d.dsw) set(s, lid, d.dport);
      else if (dd[static_cast<size_t>(s)] > 0) set(s, lid, pick(s, dd));
      else set(s, lid, kNoPath);
    }
  }

  // In-tree for `lid` through intermediate switch `in`: the I->Dsw leg follows the base tree of
  // `base`, every other switch goes minimally towards `in`.
  void route_via(const Dest& d, Lid base, Lid lid, int in) {
    std::vector<char> on_leg(static_cast<size_t>(g_.size()), 0);
    for (int s = in; s != d.dsw && s >= 0 && !on_leg[static_cast<size_t>(s)];) {
      on_leg[static_cast<size_t>(s)] = 1;
      uint8_t p = get(s, base);
      if (p == kNoPath || p == 0) break;
      set(s, lid, p);
      s = next(s, p);
    }
    const auto& di = dist(in);
    for (int s = 0; s < g_.size(); s++) {
      if (s == d.dsw) set(s, lid, d.dport);
      else if (on_leg[static_cast<size_t>(s)]) continue;
      else if (di[static_cast<size_t>(s)] > 0) set(s, lid, pick(s, di));
      else set(s, lid, kNoPath);
    }
  }

  // Intermediates for a destination: rings around Dsw, distinct entry ports at Dsw first.
  std::vector<int> intermediates(const Dest& d, Lid base, size_t want, size_t rotate, size_t min_ring) {
    std::vector<int> chosen;
    if (want == 0) return chosen;
    const auto& dd = dist(d.dsw);
    int maxd = 0;
    for (int x : dd) maxd = std::max(maxd, x);
    std::vector<std::vector<int>> rings(static_cast<size_t>(maxd) + 1);
    for (int s = 0; s < g_.size(); s++)
      if (dd[static_cast<size_t>(s)] > 0) rings[static_cast<size_t>(dd[static_cast<size_t>(s)])].push_back(s);
    auto entry_port = [&](int s) -> int {  // port of Dsw where the leg from s arrives
      if (s == d.dsw) return f_.node(g_.node(s)).port(get(s, base)).peer_port;
      int entry = -1;
      const PathWalk w = walk_path(f_, lfts_, g_.node(s), base, -1, 0, [&](int n, const RouteHop& h) {
        if (g_.pos(n) == d.dsw) return false;  // arrived: entry is the port the last hop entered by
        if (h.kind != RouteHop::Forward) return true;  // the walk ends here (no route, port 0, a CA)
        entry = h.next_port;
        return true;
      });
      return w.end == PathWalk::Stopped ? entry : -1;
    };
    std::vector<char> used_entry(256, 0), taken(static_cast<size_t>(g_.size()), 0);
    // rings from min_ring on (the nearest first), then the nearer ones if those run out
    std::vector<size_t> order;
    for (size_t r = std::max<size_t>(1, min_ring); r < rings.size(); r++) order.push_back(r);
    for (size_t r = 1; r < std::min(min_ring, rings.size()); r++) order.push_back(r);
    for (int pass = 0; pass < 2 && chosen.size() < want; pass++) {
      for (size_t r : order) {
        if (chosen.size() >= want) break;
        const auto& ring = rings[r];
        for (size_t k = 0; k < ring.size() && chosen.size() < want; k++) {
          int s = ring[(k + rotate) % ring.size()];
          if (taken[static_cast<size_t>(s)]) continue;
          int ep = entry_port(s);
          if (ep < 0) continue;
          if (pass == 0 && used_entry[static_cast<size_t>(ep)]) continue;
          used_entry[static_cast<size_t>(ep)] = 1;
          taken[static_cast<size_t>(s)] = 1;
          chosen.push_back(s);
        }
      }
    }
    return chosen;
  }

 private:
  const Fabric& f_;
  const SwitchGraph& g_;
  Lfts& lfts_;
  std::vector<std::vector<uint32_t>> load_;
  std::unordered_map<int, std::vector<int>> dist_;
};

// Is the previous routing's in-tree for `lid` still intact in the new fabric?
bool tree_intact(const Fabric& now, const SwitchGraph& g, const Fabric& before, const Routing& prev,
                 const std::vector<int>& prev_node_of_sid, Lid lid, Lfts& out) {
  for (int s = 0; s < g.size(); s++) {
    int pn = prev_node_of_sid[static_cast<size_t>(s)];
    uint8_t p = prev.lfts.get(pn, lid);
    if (p == kNoPath) return false;
    if (p == 0) continue;
    const Node& nd = now.node(g.node(s));
    if (p > nd.num_ports) return false;
    const Port& x = nd.port(p);
    const Port& y = before.node(pn).port(p);
    if (!x.connected() || !y.connected()) return false;
    if (now.node(x.peer_node).guid != before.node(y.peer_node).guid || x.peer_port != y.peer_port) return false;
  }
  for (int s = 0; s < g.size(); s++)
    out.set(g.node(s), lid, prev.lfts.get(prev_node_of_sid[static_cast<size_t>(s)], lid));
  return true;
}

}  // namespace

std::vector<OptionSpec> FtDrbEngine::option_specs() const {
  return {
      OptionSpec::integer("max_alternatives", 0, 127, "4",
                          "alternative paths (intermediate switches) per destination; extra LMC LIDs reuse them round-robin"),
      OptionSpec::integer("min_ring", 1, 64, "1",
                          "intermediates from this hop distance to the destination switch on (1: its neighbours; "
                          "2+: non-minimal alternatives, as the thesis' multistep paths on a fat tree)"),
      OptionSpec::integer("max_vls", 1, 15, "8", "layers (VLs) the engine may use; more needed => refused"),
      OptionSpec::boolean("switch_sources", "false", "also layer paths that start at switches (switch-to-switch traffic)"),
      OptionSpec::integer("spread_vls", 0, 15, "0",
                          "0 = first fit onto the lowest layers; N > 0 = spread paths evenly over N VLs (at most max_vls)"),
      OptionSpec::choice("deadlock", {"layers", "recovery"}, "layers",
                         "layers (paths on VL layers whose CDGs stay acyclic) or recovery (every path on VL 0, deadlock "
                         "left to the network's recovery: flitsim's NAC; refused by the plugin and `route`)"),
  };
}

Routing FtDrbEngine::compute(const Fabric& f, const EngineOptions& opt, const PreviousRouting& previous) {
  const long max_alt = opt.get_int(option_spec("max_alternatives"));
  const long min_ring = opt.get_int(option_spec("min_ring"));
  const long max_vls = opt.get_int(option_spec("max_vls"));
  const bool switch_sources = opt.get_bool(option_spec("switch_sources"));
  const long spread_vls = opt.get_int(option_spec("spread_vls"));
  if (spread_vls > max_vls) throw OptionError("ftdrb: spread_vls must be 0..max_vls");
  const bool recovery = opt.get(option_spec("deadlock")) == "recovery";  // or layers (a choice)

  // Switches ordered by GUID (then id) so that the routing does not depend on the order in which
  // a fabric was discovered: the plugin (OpenSM's tables) and offline tools (.net files,
  // ibnetdiscover) then compute identical LFTs and SLs.
  SwitchGraph g(f, SwitchGraph::Order::Guid);
  if (g.size() == 0) throw EngineError(name(), "fabric has no switches");
  Routing r;
  r.engine = name();
  r.lfts = Lfts(f);
  Router router(f, g, r.lfts);

  std::vector<Dest> dests;
  for (const EndPort& e : f.end_ports()) {
    Attach a = f.attach(e.base_lid);
    if (!a.valid()) continue;  // CA port attached to nothing: nothing to route
    dests.push_back({e, g.pos(a.sw), a.port});
  }

  // ---- keep intact trees of the previous routing (after a fault) ----
  std::vector<char> kept(static_cast<size_t>(f.max_lid()) + 1, 0);
  size_t kept_count = 0, lid_count = 0;
  const bool can_keep = previous.fabric && previous.routing && previous.routing->engine == name();
  std::vector<int> prev_node_of_sid;
  if (can_keep) {
    const Fabric& pf = *previous.fabric;
    bool same = static_cast<int>(pf.switches().size()) == g.size();
    for (int s = 0; same && s < g.size(); s++) {
      auto pn = pf.find_guid(f.node(g.node(s)).guid);
      if (!pn || !pf.node(*pn).is_switch()) same = false;
      else prev_node_of_sid.push_back(*pn);
    }
    for (const Dest& d : dests) {
      if (!same) break;
      auto o = pf.owner(d.ep.base_lid);
      const Node& nn = f.node(d.ep.node);
      if (!o || pf.node(o->node).guid != nn.guid || o->port != d.ep.port || o->lmc != d.ep.lmc) same = false;
    }
    if (same) {
      for (const Dest& d : dests)
        for (uint32_t l = d.ep.base_lid; l <= d.ep.last_lid(); l++)
          if (tree_intact(f, g, pf, *previous.routing, prev_node_of_sid, static_cast<Lid>(l), r.lfts)) {
            kept[l] = 1;
            kept_count++;
            for (int s = 0; s < g.size(); s++) router.count(s, router.get(s, static_cast<Lid>(l)));
          }
    }
  }

  // ---- route: base paths first (balanced), then the alternatives ----
  std::vector<std::vector<int>> inter(dests.size());
  for (const Dest& d : dests)
    if (!kept[d.ep.base_lid]) router.route_base(d, d.ep.base_lid);
  size_t alt_paths = 0;
  for (size_t k = 0; k < dests.size(); k++) {
    const Dest& d = dests[k];
    const size_t extra = (1u << d.ep.lmc) - 1;
    lid_count += extra + 1;
    if (extra == 0) continue;
    inter[k] = router.intermediates(d, d.ep.base_lid, std::min<size_t>(extra, static_cast<size_t>(max_alt)), k,
                                   static_cast<size_t>(min_ring));
    for (size_t i = 1; i <= extra; i++) {
      Lid lid = static_cast<Lid>(d.ep.base_lid + i);
      if (kept[lid]) continue;
      if (inter[k].empty()) router.route_base(d, lid);  // no intermediate exists: replicate base
      else router.route_via(d, d.ep.base_lid, lid, inter[k][(i - 1) % inter[k].size()]);
    }
    alt_paths += std::min(extra, inter[k].size());
  }

  // ---- place every (source switch, DLID) path on a layer ----
  std::vector<char> is_source(static_cast<size_t>(g.size()), static_cast<char>(switch_sources));
  for (int c : f.cas()) {
    const Node& n = f.node(c);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (x.connected() && g.pos(x.peer_node) >= 0)
        is_source[static_cast<size_t>(g.pos(x.peer_node))] = 1;
    }
  }
  const size_t stride = static_cast<size_t>(f.max_lid()) + 1;
  auto layer = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(g.size()) * stride, 0);
  auto src_sid = std::make_shared<std::vector<int>>(stride, -1);
  for (const EndPort& e : f.end_ports()) {
    Attach a = f.attach(e.base_lid);
    if (!a.valid()) continue;
    for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) (*src_sid)[l] = g.pos(a.sw);
  }

  struct Unit {
    int src;
    Lid lid;
    int offset;
    int preferred;  // previous layer or -1
  };
  std::vector<Unit> units;
  for (const Dest& d : dests)
    for (uint32_t l = d.ep.base_lid; l <= d.ep.last_lid(); l++)
      for (int s = 0; s < g.size(); s++)
        if (is_source[static_cast<size_t>(s)] && s != d.dsw) units.push_back({s, static_cast<Lid>(l), static_cast<int>(l - d.ep.base_lid), -1});
  if (can_keep && previous.routing->path_sl) {
    // previous SL of a path from this source switch: ask with a LID attached to that switch
    std::vector<int> some_lid(static_cast<size_t>(g.size()), 0);
    for (size_t l = 1; l < stride; l++)
      if ((*src_sid)[l] >= 0 && !some_lid[static_cast<size_t>((*src_sid)[l])]) some_lid[static_cast<size_t>((*src_sid)[l])] = static_cast<int>(l);
    for (Unit& u : units)
      if (kept[u.lid] && some_lid[static_cast<size_t>(u.src)])
        u.preferred = previous.routing->path_sl(static_cast<Lid>(some_lid[static_cast<size_t>(u.src)]), u.lid);
  }
  std::stable_sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) {
    if ((a.preferred >= 0) != (b.preferred >= 0)) return a.preferred >= 0;  // keep stable SLs first
    return a.offset < b.offset;                                             // base paths next
  });

  std::vector<std::unique_ptr<IncrementalDag>> layers;
  std::vector<int> chans;
  int layers_used = 1;
  for (const Unit& u : units) {
    chans.clear();
    // the channels of the route from u.src (walk_path: the owner is not checked; port 0, a CA or
    // a port without link end it)
    const PathWalk w = walk_path(f, r.lfts, g.node(u.src), u.lid, -1, 0, [&](int n, const RouteHop& h) {
      if (h.kind == RouteHop::Forward) chans.push_back(g.port_base(g.pos(n)) + h.port);
    });
    if (w.end == PathWalk::Dropped && w.hop.drop == DropKind::NoRoute)
      throw EngineError(name(), "LID " + std::to_string(u.lid) + " is unreachable from switch " +
                                    f.node_name(w.sw) + " (fabric is disconnected)");
    if (w.end == PathWalk::Loop)
      throw EngineError(name(), "internal error: forwarding loop for LID " + std::to_string(u.lid));
    int placed = recovery ? 0 : -1;  // recovery: every path on VL 0, no CDG kept
    auto try_layer = [&](int L) {
      while (static_cast<int>(layers.size()) <= L) layers.push_back(std::make_unique<IncrementalDag>(g.num_port_slots()));
      return layers[static_cast<size_t>(L)]->add_path(chans);
    };
    if (placed < 0 && u.preferred >= 0 && u.preferred < max_vls && try_layer(u.preferred)) placed = u.preferred;
    if (placed < 0 && spread_vls > 0) {
      // spread paths evenly over the first spread_vls layers (start at a per-path hash, then
      // rotate), so every VL carries traffic; the first-fit search below is the fallback
      int start = static_cast<int>((static_cast<uint32_t>(u.src) * 2654435761u + u.lid * 40503u) %
                                   static_cast<uint32_t>(spread_vls));
      for (int k = 0; placed < 0 && k < spread_vls; k++)
        if (try_layer((start + k) % static_cast<int>(spread_vls))) placed = (start + k) % static_cast<int>(spread_vls);
    }
    for (int L = 0; placed < 0 && L < max_vls; L++)
      if (try_layer(L)) placed = L;
    if (placed < 0)
      throw EngineError(name(), "needs more than " + std::to_string(max_vls) +
                                    " virtual layers to stay deadlock free (raise max_vls or lower LMC)");
    (*layer)[static_cast<size_t>(u.src) * stride + u.lid] = static_cast<uint8_t>(placed);
    layers_used = std::max(layers_used, placed + 1);
  }

  r.num_vls = layers_used;
  r.deadlock_recovery = recovery;
  r.path_sl = [layer, src_sid, stride](Lid slid, Lid dlid) -> uint8_t {
    if (slid >= stride || dlid >= stride) return 0;
    int s = (*src_sid)[slid];
    if (s < 0) return 0;
    return (*layer)[static_cast<size_t>(s) * stride + dlid];
  };
  r.notes.push_back("ftdrb: " + std::to_string(dests.size()) + " destinations, " + std::to_string(lid_count) +
                    " LIDs, " + std::to_string(alt_paths) + " alternative paths, " + std::to_string(layers_used) +
                    " layer(s)/VL(s)" + (recovery ? " (deadlock=recovery: the CDG is not kept acyclic)" : ""));
  if (can_keep)
    r.notes.push_back("ftdrb: kept " + std::to_string(kept_count) + " of " + std::to_string(lid_count) +
                      " LID trees from the previous routing, recomputed " + std::to_string(lid_count - kept_count));
  return r;
}

}  // namespace ftroute
