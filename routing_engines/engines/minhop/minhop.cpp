#include "minhop/minhop.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "ftroute/parallel.hpp"
#include "ftroute/switch_graph.hpp"

namespace ftroute {

std::vector<std::vector<int>> switch_distances(const Fabric& fabric) {
  SwitchGraph g(fabric);
  std::vector<std::vector<int>> d(static_cast<size_t>(g.size()));
  std::vector<int> queue;
  for (int i = 0; i < g.size(); i++) g.bfs(i, d[static_cast<size_t>(i)], queue);
  return d;
}

namespace {

// The engine as it was before the speed work (LID-major: every LID on every switch, the min-hop
// ports found by scanning all neighbours each time): the baseline of bench_scale
// (FTROUTE_SLOW_MINHOP=1) and the fallback for more than 65534 switches.
Routing route_reference(const Fabric& fabric, bool balance, bool spread, bool count_sw, Routing r,
                        const SwitchGraph& g) {
  const auto& sws = fabric.switches();
  const size_t S = sws.size();

  // Distances towards every switch (computed lazily per attach switch, cached).
  std::vector<std::vector<int>> dist_to(S);

  std::vector<std::vector<uint32_t>> counter(S);
  for (size_t i = 0; i < S; i++) counter[i].assign(static_cast<size_t>(fabric.node(sws[i]).num_ports) + 1, 0);

  // Per end port, per switch: ports / neighbours already used by its LMC LIDs.
  std::vector<std::vector<uint8_t>> used_ports(S);
  std::vector<std::vector<int>> used_nbrs(S);

  int unattached = 0;
  for (const EndPort& e : fabric.end_ports()) {
    Attach a = fabric.attach(e.base_lid);
    if (!a.valid()) {
      unattached++;
      continue;
    }
    const int dst = g.pos(a.sw);
    if (dist_to[static_cast<size_t>(dst)].empty()) dist_to[static_cast<size_t>(dst)] = g.bfs(dst);
    const std::vector<int>& dist = dist_to[static_cast<size_t>(dst)];
    const bool is_sw_lid = fabric.node(e.node).is_switch();
    for (size_t i = 0; i < S; i++) used_ports[i].clear(), used_nbrs[i].clear();

    for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) {
      for (size_t i = 0; i < S; i++) {
        uint8_t out;
        if (static_cast<int>(i) == dst) {
          out = a.port;
        } else {
          const int di = dist[i];
          if (di < 0)  // cannot happen after the connectivity check; keep the error explicit
            throw EngineError(MinHopEngine::kName, "switch " + fabric.node_name(sws[i]) + " has no path to LID " +
                                         std::to_string(lid));
          // best = lexicographic minimum of (neighbour used, port used, counter, port)
          std::tuple<int, int, uint32_t, int> best{1 << 30, 0, 0, 0};
          int best_nbr = -1;
          out = kNoPath;
          for (auto [port, v] : g.edges(static_cast<int>(i))) {
            if (dist[static_cast<size_t>(v)] != di - 1) continue;
            int nbr_used = 0, port_used = 0;
            if (spread && e.lmc > 0) {
              nbr_used = std::count(used_nbrs[i].begin(), used_nbrs[i].end(), v) ? 1 : 0;
              port_used = std::count(used_ports[i].begin(), used_ports[i].end(), port) ? 1 : 0;
            }
            std::tuple<int, int, uint32_t, int> key{nbr_used, port_used, balance ? counter[i][port] : 0u, port};
            if (key < best) best = key, out = port, best_nbr = v;
          }
          if (out == kNoPath)
            throw EngineError(MinHopEngine::kName, "switch " + fabric.node_name(sws[i]) + " has no min-hop port towards LID " +
                                         std::to_string(lid));
          if (e.lmc > 0) {
            used_ports[i].push_back(out);
            used_nbrs[i].push_back(best_nbr);
          }
        }
        r.lfts.set(sws[i], static_cast<Lid>(lid), out);
        if (out != 0 && (count_sw || !is_sw_lid)) counter[i][out]++;
      }
    }
  }
  if (unattached)
    r.notes.push_back(std::to_string(unattached) + " end port(s) not attached to a switch were not routed");
  return r;
}

// One end port to route, shared by all switches.
struct Dest {
  Lid first, last;
  int dst;        // attach switch (position)
  uint8_t port;   // output port on the attach switch
  bool count;     // counts in the port counters
  bool spread;    // LMC > 0 and lmc_spread
};

// Per-worker scratch, reused for every switch the worker routes.
struct Scratch {
  std::vector<uint32_t> off;      // per destination switch: candidates [off[d], off[d + 1])
  std::vector<uint8_t> cport;     // candidate ports
  std::vector<int32_t> cnbr;      // their neighbour switches
  std::vector<uint32_t> counter;  // per port
  std::vector<uint8_t> used_ports;
  std::vector<int> used_nbrs;
};

}  // namespace

std::vector<OptionSpec> MinHopEngine::option_specs() const {
  return {
      OptionSpec::boolean("balance", "true", "balance routes over equal-cost ports by route counters (false: lowest port)"),
      OptionSpec::boolean("lmc_spread", "true", "the LIDs of one LMC range leave by different ports / neighbour switches"),
      OptionSpec::boolean("count_switch_lids", "true", "switch LIDs count in the balance"),
      OptionSpec::integer("threads", 0, 64, "0",
                          "worker threads over switches (0: one per core from 4M LFT entries on, else 1; same LFTs for every count)"),
  };
}

// Switch-major: each switch's choices depend only on its own counters and on the LIDs before
// (in ascending order), so every switch is routed on its own, all LIDs in order, and switches are
// spread over threads (the result does not depend on which thread routes which switch). For a
// switch, the min-hop ports towards every destination switch are found once (from the all-pairs
// hop matrix, one streaming pass per neighbour) and shared by every LID attached there.
Routing MinHopEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  const bool balance = options.get_bool(option_spec("balance"));
  const bool spread = options.get_bool(option_spec("lmc_spread"));
  const bool count_sw = options.get_bool(option_spec("count_switch_lids"));
  const long threads = options.get_int(option_spec("threads"));

  Routing r;
  r.engine = kName;
  r.lfts = Lfts(fabric);
  const auto& sws = fabric.switches();
  if (sws.empty()) {
    r.notes.push_back("fabric has no switches: nothing to route");
    return r;
  }
  SwitchGraph g(fabric);
  const size_t S = sws.size();
  // Connectivity: every switch must reach every other one.
  {
    std::vector<int> d0 = g.bfs(0);
    for (size_t i = 0; i < S; i++)
      if (d0[i] < 0)
        throw EngineError(kName, "fabric is disconnected: switch " + fabric.node_name(sws[i]) +
                                     " cannot be reached from switch " + fabric.node_name(sws[0]));
  }
  if (std::getenv("FTROUTE_SLOW_MINHOP") || S >= std::numeric_limits<uint16_t>::max())
    return route_reference(fabric, balance, spread, count_sw, std::move(r), g);

  std::vector<Dest> dests;
  int unattached = 0;
  for (const EndPort& e : fabric.end_ports()) {
    const Attach a = fabric.attach(e.base_lid);
    if (!a.valid()) {
      unattached++;
      continue;
    }
    dests.push_back({e.base_lid, e.last_lid(), g.pos(a.sw), a.port,
                     count_sw || !fabric.node(e.node).is_switch(), spread && e.lmc > 0});
  }
  const double entries = static_cast<double>(S) * static_cast<double>(fabric.max_lid());
  const bool big = entries >= 4194304.0;  // as ftree-misroute: threads from 4M LFT entries on
  const int workers = resolve_threads(threads, threads > 0 || big ? static_cast<long>(S) : 1);

  // All-pairs hop counts (connected: every entry < S), row d = BFS from switch d.
  std::vector<uint16_t> hops(S * S);
  parallel_for(workers, static_cast<long>(S), 16, [&](int, long d) {
    uint16_t* row = &hops[static_cast<size_t>(d) * S];
    std::fill(row, row + S, std::numeric_limits<uint16_t>::max());
    std::vector<int> q;
    q.reserve(S);
    q.push_back(static_cast<int>(d));
    row[d] = 0;
    for (size_t h = 0; h < q.size(); h++) {
      const int u = q[h];
      for (auto [port, v] : g.edges(u))
        if (row[v] == std::numeric_limits<uint16_t>::max()) {
          row[v] = static_cast<uint16_t>(row[u] + 1);
          q.push_back(v);
        }
    }
  });

  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  parallel_for(workers, static_cast<long>(S), 4, [&](int w, long il) {
    const size_t i = static_cast<size_t>(il);
    Scratch& sc = scratch[static_cast<size_t>(w)];
    const uint16_t* hi = &hops[i * S];  // hops(i, d) = hops(d, i)
    // Min-hop candidates of switch i towards every destination switch d: neighbours v with
    // hops(v, d) = hops(i, d) - 1, in port order. Count, then fill (CSR).
    sc.off.assign(S + 1, 0);
    for (auto [port, v] : g.edges(static_cast<int>(i))) {
      const uint16_t* hv = &hops[static_cast<size_t>(v) * S];
      for (size_t d = 0; d < S; d++) sc.off[d + 1] += static_cast<uint32_t>(hv[d] + 1 == hi[d]);
    }
    for (size_t d = 0; d < S; d++) sc.off[d + 1] += sc.off[d];
    sc.cport.resize(sc.off[S]);
    sc.cnbr.resize(sc.off[S]);
    {
      std::vector<uint32_t>& at = sc.counter;  // borrowed as the fill cursor
      at.assign(sc.off.begin(), sc.off.end() - 1);
      for (auto [port, v] : g.edges(static_cast<int>(i))) {
        const uint16_t* hv = &hops[static_cast<size_t>(v) * S];
        for (size_t d = 0; d < S; d++)
          if (hv[d] + 1 == hi[d]) {
            sc.cport[at[d]] = port;
            sc.cnbr[at[d]++] = v;
          }
      }
    }
    const int sw = sws[i];
    sc.counter.assign(static_cast<size_t>(fabric.node(sw).num_ports) + 1, 0);
    std::vector<uint8_t>& table = r.lfts.table(sw);
    for (const Dest& e : dests) {
      if (e.spread) sc.used_ports.clear(), sc.used_nbrs.clear();
      const bool here = static_cast<size_t>(e.dst) == i;
      const uint32_t c0 = here ? 0 : sc.off[static_cast<size_t>(e.dst)];
      const uint32_t c1 = here ? 0 : sc.off[static_cast<size_t>(e.dst) + 1];
      for (uint32_t lid = e.first; lid <= e.last; lid++) {
        uint8_t out;
        if (here) {
          out = e.port;
        } else {
          if (c0 == c1)  // cannot happen in a connected fabric; keep the error explicit
            throw EngineError(kName, "switch " + fabric.node_name(sw) + " has no min-hop port towards LID " +
                                         std::to_string(lid));
          // lexicographic minimum of (neighbour used, port used, counter, port), as before
          out = kNoPath;
          if (!e.spread) {
            uint64_t best = std::numeric_limits<uint64_t>::max();
            for (uint32_t c = c0; c < c1; c++) {
              const uint8_t p = sc.cport[c];
              const uint64_t key = (static_cast<uint64_t>(balance ? sc.counter[p] : 0u) << 8) | p;
              if (key < best) best = key, out = p;
            }
          } else {
            std::tuple<int, int, uint32_t, int> best{1 << 30, 0, 0, 0};
            int best_nbr = -1;
            for (uint32_t c = c0; c < c1; c++) {
              const uint8_t p = sc.cport[c];
              const int v = sc.cnbr[c];
              const int nbr_used = std::count(sc.used_nbrs.begin(), sc.used_nbrs.end(), v) ? 1 : 0;
              const int port_used = std::count(sc.used_ports.begin(), sc.used_ports.end(), p) ? 1 : 0;
              std::tuple<int, int, uint32_t, int> key{nbr_used, port_used, balance ? sc.counter[p] : 0u, p};
              if (key < best) best = key, out = p, best_nbr = v;
            }
            sc.used_ports.push_back(out);
            sc.used_nbrs.push_back(best_nbr);
          }
        }
        table[lid] = out;
        if (out != 0 && e.count) sc.counter[out]++;
      }
    }
  });
  if (unattached)
    r.notes.push_back(std::to_string(unattached) + " end port(s) not attached to a switch were not routed");
  return r;
}

}  // namespace ftroute
