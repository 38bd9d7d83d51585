// `ftroute sim`: replay LFTs (from a file or from an engine) in the cycle-level flit simulator
// (flitsim/, docs/flitsim.md). One load point prints a summary; --sweep writes CSV + SVG.
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>

#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/engine_option_text.hpp"
#include "ftroute/sim_run.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"

namespace {

using namespace ftroute;
using namespace ftroute::flitsim;

const char* kHelp = R"(usage: ftroute sim [--fabric] F.net (--lfts FILE | --engine NAME) [options]
       ftroute sim --gen SPEC --engine NAME [options]
       ftroute sim --booksim-config FILE [options]

Cycle-level flit simulation of the LFTs, path SLs and SL2VL tables (docs/flitsim.md).
fabric: F.net (positional or -f/--fabric), or --gen SPEC, a generated fabric (fattree:4,3,
torus:4x4, ...; `ftroute gen --help`)

routing (one of):
  --lfts FILE            LFT dump (opensm-lfts.dump, dump_fts, minimal; --lft-format to force)
    --sl FILE            path-SL file (ibdmchk -c format); --sl2vl FILE SL2VL file (ibdmchk -d)
  --engine NAME          route with an ftroute engine (`ftroute engines`); --opt [ENGINE:]k=v (repeatable);
                         flitsim-minhop = the simulator's own min-hop helper
  --lmc N                renumber LIDs with LMC N (default: LIDs of the .net file, else LMC 0)
  --booksim-config FILE  a BookSim2 config file instead of --fabric/--engine: its topology (mesh,
                         torus, fattree with k, n), routing (dim_order, nca), router, traffic and
                         measurement keys; keys flitsim does not model are refused by name
                         (docs/flitsim.md "Validation against BookSim2"); later options override it
traffic:
  --pattern P            uniform (default), randperm (a random permutation drawn from --seed),
                         bitrev, transpose, shuffle, butterfly, complement, tornado, hotspot, trace
  --load X               offered flits/endpoint/cycle (default 0.1)
  --sweep A:B:S          run loads A, A+S, ..., B; needs --csv, --svg and/or --json
  --dims KxK..           tornado radix per dimension over endpoint order (default: one ring)
  --hotspots I,J         hot endpoints (default 0); --hotspot-fraction F (default 0.2)
  --hot-sources F        hotspot as in seed 002 Ch 9-11: this share of the endpoints sends only
                         to the hot ones (at --hot-load X, default --load), the others uniformly
                         to every endpoint but the hot ones; prints their "background" figures
  --trace FILE           lines "cycle src dst [flits]" (endpoint index or node id)
  --warmup N --measure N --max-drain N (cycles; 1000/10000/50000), --no-flush, --seed N
run:
  --threads N            simulate on N threads (default 1; 0 = hardware threads; at most 64):
                         switches split into N shards in step per cycle (docs/flitsim.md
                         "Threads"); results depend on seed and N only, N = 1 is the reference.
                         --nac and --lid-policy ftdrb need N = 1
router (defaults: --preset default):
  --preset NAME          default, penaranda-a, penaranda-b, penaranda-c, zarza-nac, booksim
  --model ib|booksim     router model (docs/flitsim.md "Router models"): ib (default,
                         InfiniBand: per-packet crossbar, no interleaving, VC = SL2VL) or
                         booksim (BookSim2's IQ router: VC alloc per packet, switch alloc per
                         flit, its delays and credit timing; sets wormhole, iSLIP 1 iteration,
                         delays 1, --credit-delay 0, --self-traffic; options after it override)
  --vc-alloc-delay C --wait-tail-credit   booksim model: VA stage; VC free only when the
                         tail's credit is back (BookSim2 wait_for_tail_credit = 1)
  --va-grants port|vc    booksim model: the VC allocator grants one VC per output and input
                         port per cycle (port, default) or matches input VCs to output VCs
                         (vc: several VCs of a port per cycle, as BookSim2's VC allocator)
  --booksim-routing random|lft  with --booksim-config: the random per-packet choices of
                         BookSim2's routing (torus: distance-k/2 ties; fattree nca: up ports)
                         as LMC LIDs picked at random per packet (random, default), or LFTs
                         alone (lft: ties go +, up ports D-mod-k)
  --eject-vcs class|any  booksim model: at the last switch a packet takes a VC of its SL2VL
                         class (class, default) or any VC of the CA link (any: BookSim2's
                         dim_order torus at the destination router)
  --self-traffic         uniform may pick the source itself, permutation fixed points send to
                         themselves (BookSim2's traffic; on with --model booksim)
  --vcs N --buffer FLITS --packet FLITS --link-latency C --routing-delay C --alloc-delay C
  --xbar-delay C --credit-delay C --wormhole --islip [--islip-iters N] --hop-limit N
  --allocator separable|islip   (--islip = --allocator islip; booksim model: the VC allocator,
                         switch allocation is always iSLIP). The two differ only when an input
                         port has heads waiting on several VCs: with one VL in use (mesh DOR)
                         they make the same grants (docs/flitsim.md "When --islip changes nothing")
  --lid-policy base|random|hash|rr|ftdrb   which LID of an LMC destination a source uses;
                         ftdrb = FT-DRB source (docs/ftdrb.md): latency-weighted MSPs, fault
                         notification, probes. Tuning: --ftdrb-ewma W (0.25) --ftdrb-thl C (64)
                         --ftdrb-tol C (16) --ftdrb-probe N (100, 0 = off) --ftdrb-permanent N (5)
                         --ftdrb-notify-hop C (0 = link latency) --ftdrb-notify-all
  --nac [--nac-tf C --nac-period C --nac-start C]  NAC deadlock recovery (Zarza); --deadlock-timeout C
faults and re-routing:
  --fail CYCLE:"NODE"[PORT]   link down, e.g. --fail '5000:"S1_1"[2]' (repeatable; the
                              port syntax of ibsim's console; the older 5000:S1_1[2] works too)
  --recover CYCLE:"NODE"[PORT]  link up again
  --hold                      hold packets at failed links (default: drop and count them)
  --fault-policy P            drop | hold | escape | escape-hold: escape re-addresses packets
                              meeting a dead port to another LMC LID of their destination
                              (FT-DRB escape path, docs/ftdrb.md); without one they fall back
                              to drop (escape) or hold (escape-hold)
  --reroute CYCLE[:LFTFILE]   switch to new LFTs at CYCLE: from LFTFILE, or by re-running
                              --engine on the fabric without the links failed so far
  --waypoints FILE            source routes through intermediate switches as the KNS thesis'
                              router does them (not InfiniBand): lines "SRC" "DST" "VIA1" ..;
                              each waypoint re-addresses the packet and raises its SL by one
                              (`ftroute kns-waypoints` writes them; docs/flitsim.md "Waypoints")
  --sl-spread N               each packet adds to its SL a random 0..N-1 minus its waypoints (an
                              experiment, not InfiniBand: traffic spread over N VCs; needs a
                              routing on SL 0 without SL2VL tables, e.g. --lfts without --sl)
output:
  --csv FILE  --svg FILE  --title TEXT  --strict (fail if the routing check finds problems)
  --json                 results (every load point) as JSON on stdout (docs/JSON.md)
)";

int run_sim(cli::Args& a) {
  cli::FabricArg fab = cli::fabric_options(a, true);
  const std::string& fabric_path = fab.file;
  const std::string lfts_path = a.value_or("lfts", "");
  const std::string engine = a.value_or("engine", "", "-e");
  const std::string lft_fmt = a.value_or("lft-format", "auto");
  const std::string sl_path = a.value_or("sl", ""), sl2vl_path = a.value_or("sl2vl", "");
  const std::vector<std::string> opts = a.values("opt");
  const long lmc = a.int_in("lmc", -1, 0, 7);  // -1: not given
  Config c = Config::preset(a.value_or("preset", "default"));
  TrafficSpec t;
  const std::string booksim_path = a.value_or("booksim-config", "");
  std::optional<BookSimConfig> bsc;
  bool random_choices = true;  // --booksim-config: BookSim2's per-packet random routing choices
  if (auto br = a.value("booksim-routing")) {
    if (booksim_path.empty()) throw cli::UsageError("--booksim-routing needs --booksim-config");
    if (*br == "lft") random_choices = false;
    else if (*br != "random") throw cli::UsageError("--booksim-routing must be random or lft");
  }
  if (!booksim_path.empty())
    for (const auto& n : cli::usage_errors<SimOptionError>(
             [&] { return apply_booksim_file(booksim_path, random_choices, bsc.emplace(), c, t); }))
      std::fprintf(stderr, "note: %s\n", n.c_str());
  // every router option through flitsim's one table (Config::set), the model first
  bool lid_policy_given = false;
  for (const ConfigKey& k : config_keys()) {
    std::optional<std::string> v = k.kind != ConfigKey::Flag ? a.value(k.name)
                                    : a.flag(k.name)         ? std::optional<std::string>("true")
                                                             : std::nullopt;
    if (!v) continue;
    lid_policy_given |= k.name == "lid-policy";
    cli::usage_errors([&] { c.set(k.name, *v); });
  }
  if (bsc) cli::usage_errors<SimOptionError>([&] { booksim_lid_policy(*bsc, random_choices, lid_policy_given, c); });

  t.pattern = a.value_or("pattern", t.pattern);
  t.load = a.double_or("load", t.load);
  cli::usage_errors<SimOptionError>([&] { check_sim_load(t.load); });
  const std::string sweep_spec = a.value_or("sweep", "");
  if (auto d = a.value("dims")) t.dims = cli::usage_errors([&] { return parse_int_list(*d, 'x', "--dims"); });
  if (auto h = a.value("hotspots")) t.hotspots = cli::usage_errors([&] { return parse_int_list(*h, ',', "--hotspots"); });
  t.hotspot_fraction = a.double_in("hotspot-fraction", t.hotspot_fraction, 0, 1);
  t.hot_sources = a.double_in("hot-sources", t.hot_sources, 0, 0.99);
  t.hot_load = a.double_or("hot-load", -2);  // not given: the hot sources send at --load (TrafficSpec: -1)
  if (t.hot_load == -2) t.hot_load = -1;
  else if (!(t.hot_load >= 0 && t.hot_load <= 1)) {
    char b[64];
    std::snprintf(b, sizeof b, "--hot-load %g out of range (0..1)", t.hot_load);
    throw cli::UsageError(b);
  }
  t.trace_file = a.value_or("trace", "");
  if (!t.trace_file.empty() && t.pattern == "uniform") t.pattern = "trace";
  t.warmup = a.int_in("warmup", t.warmup, 0, 1000000000000L);
  t.measure = a.int_in("measure", t.measure, 1, 1000000000000L);
  t.max_drain = a.int_in("max-drain", t.max_drain, 0, 1000000000000L);
  if (a.flag("no-flush")) t.flush = false;
  t.self_traffic = c.model == RouterModel::BookSim || a.flag("self-traffic");
  const std::vector<std::string> fails = a.values("fail"), recovers = a.values("recover"),
                                  reroutes = a.values("reroute");
  const std::string waypoints_path = a.value_or("waypoints", "");
  cli::usage_errors<SimOptionError>([&] { check_sim_threads(c); });
  const std::string csv = a.value_or("csv", ""), svg = a.value_or("svg", "");
  std::string title = a.value_or("title", "");
  const bool strict = a.flag("strict"), json = a.flag("json");
  auto pos = a.positionals();
  if (!bsc || !pos.empty() || !fab.file.empty() || !fab.gen.empty()) cli::fabric_positional(fab, pos, true);
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "'");
  if (bsc) {
    if (!fab.file.empty() || !fab.gen.empty() || !lfts_path.empty() || !engine.empty())
      throw cli::UsageError("--booksim-config gives the fabric and routing; do not combine it with a fabric, --gen, --lfts or --engine");
    if (!reroutes.empty()) throw cli::UsageError("--reroute needs a fabric and --engine/--lfts, not --booksim-config");
  } else {
    if (!fab.gen.empty() && engine.empty()) throw cli::UsageError("--gen SPEC needs --engine (LFT files need the fabric file)");
    if (lfts_path.empty() == engine.empty()) throw cli::UsageError("give exactly one of --lfts FILE or --engine NAME");
  }
  if (!sweep_spec.empty() && csv.empty() && svg.empty() && !json)
    throw cli::UsageError("--sweep needs --csv, --svg and/or --json");
  c.validate();
  cli::check_output_paths({csv, svg});  // before any work: all or none is written

  // [ENGINE:]k=v, as route, compare and the plugin take them; keys and ranges checked here, before any work
  const bool all_lmc_lids = c.lid_policy != LidPolicy::Base;
  SimEngine sim_engine = cli::usage_errors(
      [&] { return SimEngine(engine, engine_options_for(engine, opts, !engine.empty()), all_lmc_lids); });

  SimInput in;
  auto fmt = parse_lft_format(lft_fmt);
  if (!fmt) throw cli::UsageError("--lft-format: unknown format '" + lft_fmt + "'");
  auto load_lfts = [&](const std::string& file) {
    return load_routing(fabric_path, file, *fmt, sl_path, sl2vl_path, false, static_cast<uint8_t>(lmc < 0 ? 0 : lmc));
  };
  if (bsc) {
    in = booksim_input(*bsc, random_choices);
  } else if (!lfts_path.empty()) {
    LoadedRouting lr = load_lfts(lfts_path);
    for (auto& w : lr.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    in.fabric = std::move(lr.fabric);
    in.routing = std::move(lr.routing);
  } else {
    in = route_sim_fabric(cli::load_fabric(fab, [](const std::string& p) { return read_fabric_file(p); }),
                          static_cast<int>(lmc), sim_engine);
  }
  const Fabric& fabric = in.fabric;

  // Faults and re-routes (validated before anything runs).
  std::function<Routing(const std::string&)> reroute_file;
  if (!fabric_path.empty()) reroute_file = [&](const std::string& file) { return load_lfts(file).routing; };
  SimSchedule sched = cli::usage_errors<SimOptionError>([&] {
    return sim_schedule(fabric, fails, recovers, reroutes, reroute_file, engine.empty() ? nullptr : &sim_engine);
  });
  if (!waypoints_path.empty()) sched.waypoints = read_waypoints(fabric, waypoints_path);
  if (!waypoints_path.empty() || c.sl_spread > 1)  // refuses a bad table or SL spread before any run
    cli::usage_errors([&] { Simulator(fabric, in.routing, c).set_waypoints(sched.waypoints); });

  if (in.routing.deadlock_recovery && !c.nac)
    std::fprintf(stderr, "warning: %s routed without deadlock avoidance (deadlock=recovery) and --nac is off: a "
                         "deadlock stops the run\n", engine.c_str());
  // Consistency report before simulating.
  const Verdict chk = in.check(all_lmc_lids);
  if (!chk.ok()) {
    std::fprintf(stderr, "%s", chk.summary().c_str());
    if (strict) throw Error("routing check failed (--strict)");
  }
  if (title.empty())
    title = bsc ? booksim_title(booksim_path, t.pattern) : sim_title(fab.label(), engine, lfts_path, t.pattern, c.nac);
  auto run_one = [&](double load) { return run_sim_point(fabric, in.routing, c, sched, t, load); };

  // --json: one document with every load point (docs/JSON.md)
  auto sim_doc = [&](const std::vector<SweepPoint>& pts) {
    nlohmann::json j = cli::json_doc("sim");
    j["fabric"] = cli::fabric_json(fabric);
    if (bsc) j["fabric"]["file"] = booksim_path;
    else j["fabric"][fab.file.empty() ? "gen" : "file"] = fab.label();
    j["routing"] = bsc ? nlohmann::json{{"booksim_config", booksim_path}}
                   : engine.empty() ? nlohmann::json{{"lfts", lfts_path}} : nlohmann::json{{"engine", engine}};
    if (!waypoints_path.empty()) j["routing"]["waypoints"] = waypoints_path;
    if (c.sl_spread > 1) j["routing"]["sl_spread"] = c.sl_spread;
    j["pattern"] = t.pattern;
    j["title"] = title;
    j["points"] = cli::sim_points_json(pts);
    return cli::dump_json(j);
  };

  // one load point (a summary on stdout) or a sweep (a line per load on stderr)
  const bool sweep = !sweep_spec.empty();
  std::vector<SweepPoint> pts;
  for (double l : sweep ? parse_sweep(sweep_spec) : std::vector<double>{t.load}) {
    const Result& r = pts.emplace_back(SweepPoint{l, run_one(l)}).result;
    if (sweep)
      std::fprintf(stderr, "load %.3f: accepted %.4f, latency avg %.1f p99 %.0f%s\n", l, r.accepted, r.avg_latency,
                   r.p99_latency, r.deadlock.detected ? " DEADLOCK" : (r.drained ? "" : " (saturated)"));
  }
  const Result& r = pts.back().result;
  if (!sweep && json) std::fputs(sim_doc(pts).c_str(), stdout);
  else if (!sweep) std::printf("%s%s", format_result(r).c_str(), c.lid_policy == LidPolicy::FtDrb ? format_ftdrb_counters(r).c_str() : "");
  cli::OutputFiles files;
  if (!csv.empty()) files.add(csv, sweep_csv(pts));
  if (!svg.empty()) files.add(svg, sweep_svg(pts, title));
  files.commit();
  if (sweep && json) std::fputs(sim_doc(pts).c_str(), stdout);
  return !sweep && r.deadlock.detected ? 3 : 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(sim, "cycle-level flit simulation of LFTs (load sweeps, faults, NAC)", kHelp, run_sim);
