// KNS tools (seed 002):
//   ftroute kns-size   kns:K,N[,P[,KI]]                cost/size table: thesis formulas vs the
//                                                      generated fabric (when it can be built)
//   ftroute kns-faults kns:K,N --faults F [...]        fraction of random link-fault sets
//                                                      tolerated with 1 or 2 intermediate routers
//   ftroute kns-waypoints F.net -o W.txt               the thesis' per-pair intermediate routers
//                                                      of a faulty KNS, for `sim --waypoints`
#include <algorithm>
#include <optional>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "cli.hpp"
#include "ftroute/error.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/kns/fault_stats.hpp"
#include "ftroute/kns/kns_model.hpp"
#include "ftroute/kns/waypoints.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/lft_io.hpp"

namespace ftroute::cli {
namespace {

// The KNS of the positional fabric spec (kns:K,N[,P[,KI]], fabric_spec.hpp), or of the legacy
// --k/--n/--p/--ki options (not both). `keys` are the spec parameters this command uses.
std::optional<KnsParams> kns_from_spec(Args& a, const std::vector<std::string>& keys) {
  auto pos = a.positionals();
  if (pos.empty()) return std::nullopt;
  if (pos.size() > 1) throw UsageError("unexpected argument '" + pos[1] + "'");
  topo::SpecArgs sa = topo::parse_fabric_spec(pos[0]);
  if (sa.kind != "kns") throw UsageError("'" + pos[0] + "' is not a KNS (expected kns:K,N[,P[,KI]])");
  for (const auto& [key, v] : sa.values)
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      throw UsageError("'" + key + "' in '" + pos[0] + "' is not used here");
  KnsParams q;
  q.k = sa.integer("k", topo::SpecArgs::kRequired, 2, kMaxPorts);
  q.n = sa.integer("n", topo::SpecArgs::kRequired, 1, 16);
  if (sa.get("p")) q.p = sa.integer("p", 1, 1, kMaxPorts);
  if (sa.get("ki")) q.ki = sa.integer("ki", 0, 0, kMaxPorts / 2);
  return q;
}

// True if any of the legacy --k/--n/... options is given (looked up on a copy of the Args).
bool has_any(const Args& a, std::initializer_list<const char*> names) {
  Args probe = a;
  for (const char* n : names)
    if (probe.value(n)) return true;
  return false;
}

int run_kns_size(Args& a) {
  const bool legacy = has_any(a, {"k", "n", "p", "ki"});
  KnsParams q;
  q.k = static_cast<int>(a.int_or("k", 0));
  q.n = static_cast<int>(a.int_or("n", 0));
  q.p = static_cast<int>(a.int_or("p", 1));
  q.ki = static_cast<int>(a.int_or("ki", 0));
  if (auto sq = kns_from_spec(a, {"k", "n", "p", "ki"})) {
    if (legacy) throw UsageError("give the KNS as SPEC or as --k/--n/--p/--ki, not both");
    q = *sq;
  }
  if (q.ki) q.subnet = KnsSubnet::FatTree;
  if (q.k == 0 || q.n == 0) throw UsageError("give the KNS: kns:K,N[,P[,KI]] (or --k K --n N)");
  KnsSize z = kns_formula_size(q);
  std::printf("%s\n", q.name().c_str());
  std::printf("%-34s %14s %14s\n", "quantity", "formula", "fabric");
  KnsSize c;
  bool built = false;
  try {
    KnsGenLimits lim;
    lim.max_switches = 20000;
    lim.max_nodes = 100000;
    Fabric f = make_kns(q, 0, lim);
    c = kns_count_size(q, f);
    built = true;
  } catch (const FabricError& e) {
    std::printf("(fabric not built: %s)\n", e.what());
  }
  auto row = [&](const char* name, long a1, long b1) {
    if (built) std::printf("%-34s %14ld %14ld%s\n", name, a1, b1, a1 == b1 ? "" : "  MISMATCH");
    else std::printf("%-34s %14ld %14s\n", name, a1, "-");
  };
  row("processing nodes N (CAs)", z.nodes, c.nodes);
  row("routers k^n (IB switches)", z.routers, c.routers);
  row("subnet switches", z.subnet_switches, c.subnet_switches);
  row("IB switches total", z.ib_switches, c.ib_switches);
  row("links incl. node links (T4.3)", z.links, c.links);
  row("router-subnet links (fault pop.)", z.router_links, c.router_links);
  row("unidirectional links (T3.2)", z.unidir_links, c.unidir_links);
  row("connected ports", z.ports, c.ports);
  row("switching elements (T3.2)", z.switching_elements, c.switching_elements);
  row("router ports n+p", z.router_ports, c.router_ports);
  row("subnet switch ports", z.subnet_switch_ports, c.subnet_switch_ports);
  row("diameter (router-router links)", z.diameter, c.diameter);
  row("diameter (switches on a path)", z.switch_hops_diameter, c.switch_hops_diameter);
  if (built && (z.links != c.links || z.ib_switches != c.ib_switches || z.diameter != c.diameter))
    throw Error("generated fabric does not match the thesis formulas");
  return 0;
}

int run_kns_faults(Args& a) {
  const bool legacy = has_any(a, {"k", "n"});
  int k = static_cast<int>(a.int_or("k", 10));
  int n = static_cast<int>(a.int_or("n", 3));
  const std::vector<std::string> fl = a.values("faults");
  const int max_in = static_cast<int>(a.int_or("max-in", 2));
  const long samples = a.int_or("samples", 16600);
  const long tree_samples = a.int_or("tree-samples", 0);
  const uint64_t seed = static_cast<uint64_t>(a.int_or("seed", 1));
  const int lmc = static_cast<int>(a.int_or("lmc", 0));
  kns::Draw draw = kns::Draw::distinct;
  if (const auto dv = a.value("draw")) {
    try {
      draw = kns::parse_draw(*dv);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (auto sq = kns_from_spec(a, {"k", "n"})) {  // the thesis' model: crossbar subnets, any p
    if (legacy) throw UsageError("give the KNS as SPEC or as --k/--n, not both");
    k = sq->k, n = sq->n;
  }
  if (k < 2 || n < 1 || max_in < 0 || max_in > 2 || samples < 1 || tree_samples < 0 || lmc < 0 || lmc > 7)
    throw UsageError("need k >= 2, n >= 1, max-in 0..2, samples >= 1, lmc 0..7");
  if (fl.empty()) throw UsageError("--faults F is required (repeatable)");
  kns::Model m(k, n);
  std::printf("%d-ary %d-direct 1-indirect: %ld routers, %ld router-crossbar links (fault population), draw %s\n", k,
              n, m.K, m.K * n, kns::draw_name(draw));
  std::printf("faults max_in  samples  tolerated%%  paths_1IN%%  paths_2IN%%  | trees: samples  LMC0 tol%%");
  if (lmc) std::printf("  LMC%d tol%%", lmc);
  std::printf("\n");
  for (const auto& fs : fl) {
    int faults = std::stoi(fs);
    if (faults < 0 || faults > m.K * n) throw UsageError("--faults out of range: " + fs);
    if (draw == kns::Draw::no_double && faults > m.K) throw UsageError("--draw no-double needs faults <= routers");
    const kns::FaultStats st = kns::fault_stats(m, faults, max_in, samples, tree_samples, lmc, seed, draw);
    const long ok = st.ok, tok = st.tree_ok, lok = st.lmc_ok, tree_only_fail = st.tree_only_fail,
               fail_two_bad = st.fail_two_bad;
    const double p1 = st.p1, p2 = st.p2;
    std::printf("%6d %6d %8ld %10.3f %11.4f %11.6f", faults, max_in, samples, 100.0 * ok / samples,
                100.0 * p1 / samples, 100.0 * p2 / samples);
    if (tree_samples) {
      const long ts = std::min(tree_samples, samples);
      std::printf("  | %8ld %10.3f", ts, 100.0 * tok / ts);
      if (lmc) std::printf(" %12.3f", 100.0 * lok / ts);
      std::printf("  (%ld sets tolerated by the thesis criterion but not by the trees%s)", tree_only_fail,
                  lmc ? " with LMC" : "");
    }
    std::printf("\n");
    if (ok + st.count_isolated < samples)
      std::printf("       %ld of the %ld sets not tolerated contain a router with >= 2 failed links\n", fail_two_bad,
                  samples - ok - st.count_isolated);
    if (st.count_isolated)
      std::printf("       %ld more sets counted as not tolerated (router-count): a router drawn %d times, the routing "
                  "criterion met\n", st.count_isolated, n);
    if (st.redrawn)
      std::printf("       %ld candidate sets redrawn (%s): %.3f%% of uniform draws\n", st.redrawn, kns::draw_name(draw),
                  100.0 * st.redrawn / (st.redrawn + samples));
    std::fflush(stdout);
  }
  return 0;
}

int run_kns_waypoints(Args& a) {
  FabricArg fab = fabric_options(a, false);
  const std::string out = a.value_or("output", "", "-o");
  const int max_in = static_cast<int>(a.int_in("max-in", 2, 1, 2));
  const std::string ties_s = a.value_or("ties", "first");
  const std::string length_s = a.value_or("length", "shortest");
  const uint64_t seed = static_cast<uint64_t>(a.int_in("seed", 1, 0, 1L << 62));
  auto pos = a.positionals();
  fabric_positional(fab, pos, false);
  if (!pos.empty()) throw UsageError("unexpected argument '" + pos[0] + "'");
  if (out.empty()) throw UsageError("-o FILE is required ('-' for stdout)");
  if (ties_s != "first" && ties_s != "random") throw UsageError("--ties must be first or random");
  const kns::InTies ties = ties_s == "first" ? kns::InTies::First : kns::InTies::Random;
  if (length_s != "shortest" && length_s != "minimal-first")
    throw UsageError("--length must be shortest or minimal-first");
  const kns::InLength length = length_s == "shortest" ? kns::InLength::Shortest : kns::InLength::MinimalFirst;
  check_output_paths({out});
  const Fabric f = load_fabric(fab, [](const std::string& p) { return read_fabric_file(p); });
  const KnsWaypointTable t = kns_thesis_waypoints(f, max_in, ties, seed, length);
  std::string body;
  for (const KnsWaypoints& w : t.pairs) body += flitsim::format_waypoints(f, w.src, w.dst, w.via);
  char head[512];
  std::snprintf(head, sizeof head,
                "# ftroute kns-waypoints: %d-ary %d-direct KNS, %ld failed link(s), max-in %d, ties %s, length %s (seed %llu)\n"
                "# %ld router pairs need intermediate routers (%ld with one, %ld with two); %zu host pairs below\n"
                "# \"SRC\" \"DST\" \"VIA1\" [\"VIA2\"]: the thesis' per-pair choice (seed 002 §5.4), for `ftroute sim --waypoints`\n",
                t.k, t.n, t.failed_links, max_in, ties_s.c_str(), length_s.c_str(), static_cast<unsigned long long>(seed),
                t.router_pairs, t.with_one, t.with_two, t.pairs.size());
  OutputFiles files;
  files.add(out, std::string("# fabric: ") + escape_name(fab.label()) + "\n" + head + body);
  files.commit();
  std::fprintf(stderr, "kns-waypoints: %ld router pairs need intermediate routers (%ld with one, %ld with two), %zu host pairs\n",
               t.router_pairs, t.with_one, t.with_two, t.pairs.size());
  return 0;
}

const char* kWaypointsHelp =
    "usage: ftroute kns-waypoints F.net -o FILE [--max-in 2] [--ties first|random] [--seed 1]\n"
    "                            [--length shortest|minimal-first]\n"
    "Writes the intermediate routers the KNS thesis' source tables hold (seed 002 §5.4) for every\n"
    "pair of hosts whose Hybrid-DOR path crosses a failed link or crossbar of F.net: the path of\n"
    "fault-free DOR legs S -> I1 [-> I2] -> D with the fewest hops (a minimal one when it exists),\n"
    "then the fewest intermediate routers; --ties picks among equal ones (lowest router numbers, or\n"
    "at random with --seed). --length minimal-first: a minimal path when there is one, otherwise any\n"
    "path with the fewest intermediate routers, whatever its length (the thesis says no more).\n"
    "`ftroute sim --fabric F.net --lfts DOR --waypoints FILE --vcs 3` replays\n"
    "them with the fault-free Hybrid-DOR LFTs (`ftroute route -e kns` of the fabric without faults),\n"
    "each leg one VC higher, as the thesis' router does (docs/kns.md \"Per-pair intermediate routers\").\n"
    "A fault set some pair cannot pass within --max-in intermediate routers is an error.";

const char* kSizeHelp =
    "usage: ftroute kns-size kns:K,N[,P[,KI]]      (legacy: --k K --n N [--p P] [--ki KI])\n"
    "Prints the KNS cost/size table from the thesis' formulas (Tables 3.2/4.3) next to the counts on\n"
    "the generated fabric (built without ibsim limits when it has at most 20000 switches).\n"
    "--ki KI selects fat-tree subnets of KI-ary switches (K = KI^s); default crossbars.";
const char* kFaultsHelp =
    "usage: ftroute kns-faults [kns:K,N] --faults F [--faults F2 ..] [--max-in 2]   (default kns:10,3;\n"
    "                          legacy: --k K --n N)\n"
    "                          [--samples 16600] [--tree-samples 0] [--lmc 0] [--seed 1]\n"
    "                          [--draw distinct|replace|no-isolated|no-double|router-count]\n"
    "Draws random sets of F failed router-crossbar links (population k^n * n, thesis §5.5.2) and\n"
    "reports the percentage of sets in which every router pair is served by Hybrid-DOR or by at\n"
    "most max-in intermediate routers with fault-free DOR legs (thesis criterion, per-pair choice),\n"
    "and the average percentage of pairs needing 1 / 2 intermediate routers (Table 6.1).\n"
    "--tree-samples S also checks the first S sets with the destination-based IN trees the kns engine\n"
    "programs (stricter: one next hop per crossbar and destination and LID); --lmc L lets them use\n"
    "2^L LIDs per destination: the extra LIDs carry alternative paths for the sources the base tree\n"
    "serves with more than max-in intermediate routers (docs/kns.md \"LMC\"); both columns are printed.\n"
    "--draw: distinct (default; F distinct links, sets that disconnect a node count as not tolerated,\n"
    "as the thesis says), replace (F draws with replacement), no-isolated (sets that fail every link\n"
    "of a router are drawn again), no-double (sets with a router with >= 2 failed links drawn again),\n"
    "router-count (the draws of replace; a set that hits some router n times, a repeated link\n"
    "counted again, is not tolerated).\n"
    "Thesis (Ch 6): 10-ary 3-D, 10 faults, 1 IN: > 99.5%; 15 faults, 2 INs: > 99.98%; 90 faults,\n"
    "2 INs: about 97%. 32-ary 2-D, 2 INs: 23 faults < 80%, 61 faults 16%.";

::ftroute::cli::Registrar reg_size("kns-size", "KNS cost/size table: thesis formulas vs generated fabric", kSizeHelp,
                                   run_kns_size);
::ftroute::cli::Registrar reg_waypoints("kns-waypoints",
                                        "the KNS thesis' per-pair intermediate routers of a faulty KNS (for sim --waypoints)",
                                        kWaypointsHelp, run_kns_waypoints);
::ftroute::cli::Registrar reg_faults("kns-faults", "KNS fault tolerance statistics (random link faults, 1/2 INs)",
                                     kFaultsHelp, run_kns_faults);

}  // namespace
}  // namespace ftroute::cli
