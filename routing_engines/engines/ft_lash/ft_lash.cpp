// ft-lash: layered shortest paths (see ft_lash.hpp).
#include "ft_lash/ft_lash.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "ftroute/cdg.hpp"
#include "ftroute/verdict.hpp"
#include "ftroute/dqr/channel_list.hpp"

namespace ftroute {

std::vector<OptionSpec> FtLashEngine::option_specs() const {
  return {
      OptionSpec::integer("max_vls", 1, 15, "8", "virtual layers (VLs) the engine may use; more needed => refused"),
      OptionSpec::boolean("check", "true", "check every layer's CDG of the finished routing"),
      OptionSpec::choice("fill", {"first", "even"}, "first",
                         "first: every path to the first layer that takes it (LASH); even: then paths move to "
                         "emptier layers that take them until the layers hold as many (OpenSM's lash balances)"),
      OptionSpec::integer("layers", 0, 15, "0",
                          "fill=even: spread the paths over at least this many layers (0: as many as first-fit "
                          "needs; OpenSM's lash needs more on tori); at most max_vls"),
  };
}

namespace {

struct Layer {
  ChannelList list;
  std::unordered_set<uint64_t> refused;  // deps that close a cycle alone in this layer
};

uint64_t dep_key(const ChannelList::Dep& d) { return (static_cast<uint64_t>(d.first) << 32) | d.second; }

}  // namespace

Routing FtLashEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  const long max_vls = options.get_int(option_spec("max_vls"));
  const bool check = options.get_bool(option_spec("check"));
  const bool even = options.get(option_spec("fill")) == "even";  // (first or even: a Choice)
  const long min_layers = options.get_int(option_spec("layers"));
  if (min_layers > 0 && !even) throw OptionError("layers=" + std::to_string(min_layers) + " needs fill=even");
  if (min_layers > max_vls)
    throw OptionError("layers=" + std::to_string(min_layers) + " is more than max_vls=" + std::to_string(max_vls));

  // dense switch numbering and the directed switch links (channels): one per neighbour, a bundle
  // of parallel cables being one channel for the layering (its cables carry the same paths)
  const std::vector<int>& sws = fabric.switches();
  const int n = static_cast<int>(sws.size());
  if (n == 0) throw EngineError(kName, "no switches");
  std::vector<int> dense(static_cast<size_t>(fabric.size()), -1);
  for (int i = 0; i < n; i++) dense[static_cast<size_t>(sws[static_cast<size_t>(i)])] = i;
  struct Arc {
    int to;                      // dense switch
    std::vector<uint8_t> ports;  // the cables to it, in port order
    uint32_t id;                 // channel id
  };
  std::vector<std::vector<Arc>> adj(static_cast<size_t>(n));
  uint32_t nch = 0;
  for (int i = 0; i < n; i++) {
    const Node& nd = fabric.node(sws[static_cast<size_t>(i)]);
    for (int q = 1; q <= nd.num_ports; q++) {
      const Port& p = nd.port(q);
      if (!p.connected() || !fabric.node(p.peer_node).is_switch() || p.peer_node == sws[static_cast<size_t>(i)]) continue;
      const int j = dense[static_cast<size_t>(p.peer_node)];
      Arc* bundle = nullptr;
      for (Arc& a : adj[static_cast<size_t>(i)])
        if (a.to == j) bundle = &a;
      if (bundle) bundle->ports.push_back(static_cast<uint8_t>(q));
      else adj[static_cast<size_t>(i)].push_back({j, {static_cast<uint8_t>(q)}, nch++});
    }
  }

  // the index of switch pair (a, b) in the n x n tables below
  auto pair_at = [n](int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b); };
  // next hop towards every destination switch (BFS tree, balanced ties): nxt[pair_at(t, s)] = arc index
  std::vector<int> nxt(static_cast<size_t>(n) * static_cast<size_t>(n), -1);
  std::vector<uint32_t> load(nch, 0);
  std::vector<int> dist(static_cast<size_t>(n)), order;
  order.reserve(static_cast<size_t>(n));
  for (int t = 0; t < n; t++) {
    std::fill(dist.begin(), dist.end(), -1);
    order.clear();
    dist[static_cast<size_t>(t)] = 0;
    order.push_back(t);
    for (size_t k = 0; k < order.size(); k++) {
      const int u = order[k];
      for (const Arc& a : adj[static_cast<size_t>(u)])
        if (dist[static_cast<size_t>(a.to)] < 0) dist[static_cast<size_t>(a.to)] = dist[static_cast<size_t>(u)] + 1, order.push_back(a.to);
    }
    for (size_t k = 1; k < order.size(); k++) {
      const int s = order[k];
      int best = -1;
      const auto& as = adj[static_cast<size_t>(s)];
      for (size_t ai = 0; ai < as.size(); ai++) {
        if (dist[static_cast<size_t>(as[ai].to)] != dist[static_cast<size_t>(s)] - 1) continue;
        if (best < 0 || load[as[ai].id] < load[as[static_cast<size_t>(best)].id]) best = static_cast<int>(ai);
      }
      nxt[pair_at(t, s)] = best;
      load[as[static_cast<size_t>(best)].id]++;
    }
  }

  // layers: every ordered pair (s, t) in switch order, first layer that stays acyclic
  std::vector<Layer> layers;
  std::vector<uint8_t> layer_of(static_cast<size_t>(n) * static_cast<size_t>(n), 0);
  std::vector<uint32_t> all_ch(nch);
  for (uint32_t c = 0; c < nch; c++) all_ch[c] = c;
  std::vector<ChannelList::Dep> deps;
  auto path_deps = [&](int s, int t) {  // the turns of the path s -> t into deps
    deps.clear();
    int u = s;
    uint32_t prev = UINT32_MAX;
    while (u != t) {
      const Arc& a = adj[static_cast<size_t>(u)][static_cast<size_t>(nxt[pair_at(t, u)])];
      if (prev != UINT32_MAX) deps.push_back({prev, a.id});
      prev = a.id;
      u = a.to;
    }
  };
  auto routed = [&](int s, int t) { return s != t && nxt[pair_at(t, s)] >= 0; };
  std::vector<size_t> filled;  // paths per layer
  for (int s = 0; s < n; s++)
    for (int t = 0; t < n; t++) {
      if (!routed(s, t)) continue;
      path_deps(s, t);
      size_t l = 0;
      for (;; l++) {
        if (l == layers.size()) {
          if (static_cast<long>(layers.size()) >= max_vls)
            throw EngineError(kName, "needs more than max_vls=" + std::to_string(max_vls) + " virtual layers (path " +
                                         fabric.node_name(sws[static_cast<size_t>(s)]) + " -> " +
                                         fabric.node_name(sws[static_cast<size_t>(t)]) + " fits in none of them)");
          layers.push_back({ChannelList(nch, all_ch, {}), {}});
          filled.push_back(0);
        }
        Layer& L = layers[l];
        bool known_bad = false, all_in = true;
        for (const auto& d : deps) {
          if (L.list.has_dep(d.first, d.second)) continue;
          all_in = false;
          if (L.refused.count(dep_key(d))) { known_bad = true; break; }
        }
        if (known_bad) continue;
        if (all_in || L.list.enable_all(deps)) break;
        for (const auto& d : deps)
          if (!L.list.has_dep(d.first, d.second) && !L.list.can_enable(d.first, d.second)) L.refused.insert(dep_key(d));
      }
      filled[l]++;
      layer_of[pair_at(s, t)] = static_cast<uint8_t>(l);
    }

  // fill=even: paths move from fuller layers to emptier ones that take them (each layer stays
  // acyclic; a dependency leaves a layer with its last path), in switch order, until a sweep
  // moves none. The layer count stays what the first pass gave, or `layers` if that is more.
  size_t moved = 0;
  while (even && static_cast<long>(layers.size()) < min_layers) {  // empty layers to spread into
    layers.push_back({ChannelList(nch, all_ch, {}), {}});
    filled.push_back(0);
  }
  if (even && layers.size() > 1) {
    std::vector<std::unordered_map<uint64_t, uint32_t>> uses(layers.size());  // paths per dependency
    for (int s = 0; s < n; s++)
      for (int t = 0; t < n; t++)
        if (routed(s, t)) {
          path_deps(s, t);
          for (const auto& d : deps) uses[layer_of[pair_at(s, t)]][dep_key(d)]++;
        }
    std::vector<size_t> by_fill(layers.size());
    std::vector<ChannelList::Dep> gone;
    for (bool again = true; again;) {
      again = false;
      for (int s = 0; s < n; s++)
        for (int t = 0; t < n; t++) {
          if (!routed(s, t)) continue;
          uint8_t& from = layer_of[pair_at(s, t)];
          for (size_t l = 0; l < by_fill.size(); l++) by_fill[l] = l;
          std::stable_sort(by_fill.begin(), by_fill.end(), [&](size_t x, size_t y) { return filled[x] < filled[y]; });
          path_deps(s, t);
          for (size_t to : by_fill) {
            if (filled[to] + 1 >= filled[from]) break;  // no emptier layer left
            if (!layers[to].list.enable_all(deps)) continue;
            gone.clear();
            for (const auto& d : deps) {
              uses[to][dep_key(d)]++;
              if (--uses[from][dep_key(d)] == 0) uses[from].erase(dep_key(d)), gone.push_back(d);
            }
            layers[from].list.drop_dependencies(gone);
            filled[from]--, filled[to]++;
            from = static_cast<uint8_t>(to);
            moved++, again = true;
            break;
          }
        }
    }
  }

  Routing r;
  r.engine = kName;
  r.lfts = Lfts(fabric);
  r.num_vls = std::max<int>(1, static_cast<int>(layers.size()));
  auto lid_sw = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(fabric.max_lid()) + 1, -1);
  // The LIDs a switch sends over a bundle are dealt round its cables in LID order, so every cable
  // carries routes. Deadlock freedom holds per cable: a cycle of cable dependencies would be a
  // cycle of the bundles' dependencies, which the layering excludes.
  std::vector<uint32_t> dealt(nch, 0);
  for (const EndPort& ep : fabric.end_ports()) {
    const Attach at = fabric.attach(ep.base_lid);
    if (!at.valid()) continue;
    const int t = dense[static_cast<size_t>(at.sw)];
    for (Lid l = ep.base_lid; l <= ep.last_lid(); l++) (*lid_sw)[l] = t;
    for (int s = 0; s < n; s++) {
      if (s == t) {
        for (Lid l = ep.base_lid; l <= ep.last_lid(); l++) r.lfts.set(sws[static_cast<size_t>(s)], l, at.port);
        continue;
      }
      const int ai = nxt[pair_at(t, s)];
      if (ai < 0) continue;  // unreachable
      const Arc& a = adj[static_cast<size_t>(s)][static_cast<size_t>(ai)];
      for (Lid l = ep.base_lid; l <= ep.last_lid(); l++)
        r.lfts.set(sws[static_cast<size_t>(s)], l, a.ports[dealt[a.id]++ % a.ports.size()]);
    }
  }
  if (layers.size() > 1) {
    auto lay = std::make_shared<std::vector<uint8_t>>(std::move(layer_of));
    r.path_sl = [lid_sw, lay, pair_at](Lid slid, Lid dlid) -> uint8_t {
      if (slid >= lid_sw->size() || dlid >= lid_sw->size()) return 0;
      const int s = (*lid_sw)[slid], t = (*lid_sw)[dlid];
      if (s < 0 || t < 0) return 0;
      return (*lay)[pair_at(s, t)];
    };
  }
  r.notes.push_back("shortest paths of " + std::to_string(n) + " switches packed into " +
                    std::to_string(layers.size()) + " virtual layer(s) (SL = VL = layer)" +
                    (even ? ", fill=even: " + std::to_string(moved) + " paths moved to emptier layers" : "") +
                    (filled.empty() ? "" : "; paths per layer " + std::to_string(*std::min_element(filled.begin(), filled.end())) +
                                               "-" + std::to_string(*std::max_element(filled.begin(), filled.end()))));
  if (check) {
    CdgBuildOptions co;
    co.switch_sources = true;
    co.collect_loads = false;
    CdgBuild b = build_cdg(fabric, r, co);
    const Verdict v = verdict_of(b, std::string(kName) + " self-check", true);  // ftroute/verdict.hpp
    if (v.looping()) throw EngineError(kName, "internal error: forwarding loop: " + v.first_of(DropKind::Loop));
    if (v.dropped() && fabric.connected())
      throw EngineError(kName, "internal error: " + std::to_string(v.dropped()) + " pairs not delivered, e.g. " + v.first_problem());
    if (!v.cdg_acyclic) throw EngineError(kName, "internal error: dependency cycle " + v.cycle);
    // every switch walked to every LID: the routing pipeline's verdict (ftroute/verdict.hpp)
    record_self_check(fabric, r, b, co, std::string(kName) + " self-check", true, true);
  }
  return r;
}

}  // namespace ftroute
