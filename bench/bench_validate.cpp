// bench_validate: the validators (build_cdg + cycle search + EFI + hops) on a 3-level fat tree of
// radix-36 switches (11664 hosts, 1620 switches), routed by a balanced up/down (d-mod-k style)
// routing written here. Baseline, measured in the same run: the naive approach — walk every
// source/destination path hop by hop, insert each channel dependency into a std::set and check
// loops with a per-path visited set — timed on a random sample of pairs and extrapolated to all
// pairs (the baseline's cycle search is not even counted).
//
// Usage: bench_validate [radix (default 36)] [sample pairs (default 200000)]
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <unordered_set>

#include "bench_clock.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;
using bench::Clock;
using bench::cpu_now;
using bench::secs;

namespace {

// Balanced up/down for topo::fat_tree3 (node layout: leaves, aggregation, core, hosts; see
// topology.hpp). Host H(pod, i, x) is reached through aggregation x and core (x, i): every leaf
// spreads its destinations over its h up-links, every aggregation switch over its h cores.
Routing route_fat_tree3(const Fabric& f, int radix, int pods) {
  const int h = radix / 2;
  const int nleaf = pods * h, nagg = pods * h;
  auto leaf = [&](int pod, int i) { return pod * h + i; };
  auto agg = [&](int pod, int a) { return nleaf + pod * h + a; };
  auto core = [&](int a, int c) { return nleaf + nagg + a * h + c; };
  Routing r;
  r.engine = "updown-dmodk";
  r.lfts = Lfts(f);
  for (int pod = 0; pod < pods; pod++)
    for (int i = 0; i < h; i++)
      for (int x = 0; x < h; x++) {
        const int hostnode = nleaf + nagg + h * h + (pod * h + i) * h + x;
        const EndPort e = *f.owner(f.node(hostnode).port(1).base_lid);
        for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) {
          const Lid lid = static_cast<Lid>(l);
          for (int p2 = 0; p2 < pods; p2++)
            for (int j = 0; j < h; j++)
              r.lfts.set(leaf(p2, j), lid, (p2 == pod && j == i) ? static_cast<uint8_t>(x + 1) : static_cast<uint8_t>(h + 1 + x));
          for (int p2 = 0; p2 < pods; p2++)
            for (int a = 0; a < h; a++)
              r.lfts.set(agg(p2, a), lid, p2 == pod ? static_cast<uint8_t>(i + 1) : static_cast<uint8_t>(h + 1 + i));
          for (int a = 0; a < h; a++)
            for (int c = 0; c < h; c++) r.lfts.set(core(a, c), lid, static_cast<uint8_t>(pod + 1));
        }
      }
  return r;
}

// The naive per-pair walk the memoised one replaces.
struct NaiveResult {
  uint64_t delivered = 0, hops = 0;
  size_t edges = 0;
};
NaiveResult naive_walk(const Fabric& f, const Routing& r, const std::vector<std::pair<Lid, Lid>>& pairs) {
  NaiveResult res;
  std::set<std::pair<uint64_t, uint64_t>> edges;
  std::unordered_set<uint64_t> visited;
  auto chan = [](int node, int port, int vl) { return (static_cast<uint64_t>(node) << 16) | (static_cast<uint64_t>(port) << 4) | static_cast<uint64_t>(vl); };
  for (auto [s, d] : pairs) {
    auto src = f.owner(s);
    auto dst = f.owner(d);
    const Port& sp = f.node(src->node).port(src->port);
    const int sl = r.sl(s, d);
    uint64_t cin = chan(src->node, src->port, r.sl2vl.vl(src->node, 0, src->port, sl));
    int sw = sp.peer_node, in = sp.peer_port;
    visited.clear();
    for (;;) {
      if (!visited.insert((static_cast<uint64_t>(sw) << 8) | static_cast<uint64_t>(in)).second) break;  // loop
      const uint8_t o = r.lfts.get(sw, d);
      if (o == kNoPath || o == 0 || o > f.node(sw).num_ports) break;
      const Port& op = f.node(sw).port(o);
      if (!op.connected()) break;
      const uint64_t c = chan(sw, o, r.sl2vl.vl(sw, in, o, sl));
      edges.emplace(cin, c);
      res.hops++;
      if (op.peer_node == dst->node && op.peer_port == dst->port) {
        res.delivered++;
        break;
      }
      if (!f.node(op.peer_node).is_switch()) break;
      cin = c;
      in = op.peer_port;
      sw = op.peer_node;
    }
  }
  res.edges = edges.size();
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  const int radix = argc > 1 ? std::atoi(argv[1]) : 36;
  const size_t sample = argc > 2 ? static_cast<size_t>(std::atoll(argv[2])) : 200000;
  auto t0 = Clock::now();
  Fabric f = topo::fat_tree3(radix);
  f.assign_lids();
  Routing r = route_fat_tree3(f, radix, radix);
  auto t1 = Clock::now();
  std::printf("fabric: 3-level fat tree radix %d: %zu switches, %zu hosts, %d links, max LID %u (built+routed in %.2f s)\n",
              radix, f.switches().size(), f.cas().size(), f.num_links(), f.max_lid(), secs(t0, t1));

  // ---- ours: the full validation (CA-to-CA pairs: switch LIDs are not routed by this bench routing)
  ValidateOptions vo;
  vo.switch_destinations = false;
  auto v0 = Clock::now();
  const double c0 = cpu_now();
  ValidationReport rep = validate(f, r, vo);
  const double ours = cpu_now() - c0;
  const double ours_wall = secs(v0, Clock::now());
  std::fputs(format_report(f, rep).c_str(), stdout);
  if (!rep.ok()) {
    std::fprintf(stderr, "bench routing failed validation\n");
    return 1;
  }

  // ---- baseline: naive per-pair walk on a random sample, extrapolated
  std::vector<Lid> hosts;
  for (int c : f.cas()) hosts.push_back(f.node(c).port(1).base_lid);
  std::mt19937_64 rng(42);
  std::vector<std::pair<Lid, Lid>> pairs;
  pairs.reserve(sample);
  while (pairs.size() < sample) {
    Lid a = hosts[topo::uniform_index(rng, hosts.size())], b = hosts[topo::uniform_index(rng, hosts.size())];
    if (a != b) pairs.emplace_back(a, b);
  }
  const double c1 = cpu_now();
  NaiveResult nr = naive_walk(f, r, pairs);
  const double per_pair = (cpu_now() - c1) / static_cast<double>(pairs.size());
  const double baseline = per_pair * static_cast<double>(rep.pairs);
  if (nr.delivered != pairs.size()) {
    std::fprintf(stderr, "baseline walk lost pairs\n");
    return 1;
  }
  std::printf("\nours (validate: memoised per-destination walk + CDG cycle search + EFI): %.2f s CPU (%.2f s wall) for %llu pairs\n",
              ours, ours_wall, static_cast<unsigned long long>(rep.pairs));
  std::printf("baseline (naive per-pair walk, std::set CDG, no cycle search): %.3f us CPU/pair on %zu sampled pairs "
              "(%zu distinct dependencies seen) -> %.1f s extrapolated to %llu pairs\n",
              per_pair * 1e6, pairs.size(), nr.edges, baseline, static_cast<unsigned long long>(rep.pairs));
  std::printf("ratio baseline/ours: %.1fx\n", baseline / ours);
  return 0;
}
