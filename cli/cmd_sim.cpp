// `ftroute sim`: replay LFTs (from a file or from an engine) in the cycle-level flit simulator
// (flitsim/, docs/flitsim.md). One load point prints a summary; --sweep writes CSV + SVG.
#include <cstdio>
#include <deque>
#include <optional>
#include <sstream>

#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/engine_option_text.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/booksim_config.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/flitsim_testnets.hpp"
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
  --pattern P            uniform (default), bitrev, transpose, shuffle, butterfly, complement,
                         tornado, hotspot, trace
  --load X               offered flits/endpoint/cycle (default 0.1)
  --sweep A:B:S          run loads A, A+S, ..., B; needs --csv, --svg and/or --json
  --dims KxK..           tornado radix per dimension over endpoint order (default: one ring)
  --hotspots I,J         hot endpoints (default 0); --hotspot-fraction F (default 0.2)
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
  --nac [--nac-tf C --nac-period C]  NAC deadlock recovery (Zarza); --deadlock-timeout C
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
output:
  --csv FILE  --svg FILE  --title TEXT  --strict (fail if the routing check finds problems)
  --json                 results (every load point) as JSON on stdout (docs/JSON.md)
)";

// --fail/--recover: flitsim's parser; its errors are usage errors here
LinkEvent parse_link(const Fabric& f, const std::string& arg, bool up) {
  try {
    return parse_link_event(f, arg, up);
  } catch (const OptionError& e) {
    throw cli::UsageError(e.what());
  }
}

std::vector<int> parse_ints(const std::string& s, char sep, const std::string& what) {
  std::vector<int> r;
  std::stringstream in(s);
  std::string tok;
  while (std::getline(in, tok, sep)) {
    try {
      size_t used = 0;
      r.push_back(std::stoi(tok, &used));
      if (used != tok.size()) throw 1;
    } catch (...) {
      throw cli::UsageError(what + ": bad number '" + tok + "' in '" + s + "'");
    }
  }
  return r;
}

// The simulator's routing check: every LID (LMC ranges by the LID policy) from the switches end
// ports attach to, where traffic enters; not every unused entry (ftroute/verdict.hpp).
PipelineOptions sim_check(bool all_lmc_lids) {
  PipelineOptions po;
  po.require_ok = false;  // reported; --strict refuses
  po.reuse_self_check = false;
  po.verify.all_switches = false;
  po.verify.scan_entries = false;
  po.verify.all_lmc_lids = all_lmc_lids;
  return po;
}

// engine: an ftroute engine through the routing pipeline (options checked when it is made), or
// the simulator's own min-hop helper (flitsim-minhop).
std::optional<RoutingPipeline> sim_pipeline(const std::string& name, const EngineOptions& opts, bool all_lmc_lids) {
  if (name.empty() || name == "flitsim-minhop") return std::nullopt;
  try {
    return std::optional<RoutingPipeline>(std::in_place, name, opts, sim_check(all_lmc_lids));
  } catch (const OptionError& x) {
    if (find_engine(name)) throw;
    throw OptionError(std::string(x.what()) + "; also: flitsim-minhop (simulator's min-hop helper)");
  }
}

Routing run_engine(std::optional<RoutingPipeline>& pipeline, const Fabric& f) {
  if (!pipeline) return route_minhop(f);
  return pipeline->run(f).routing;
}

int run_sim(cli::Args& a) {
  cli::FabricArg fab = cli::fabric_options(a, true);
  const std::string& fabric_path = fab.file;
  const std::string lfts_path = a.value_or("lfts", "");
  const std::string engine = a.value_or("engine", "", "-e");
  const std::string lft_fmt = a.value_or("lft-format", "auto");
  const std::string sl_path = a.value_or("sl", ""), sl2vl_path = a.value_or("sl2vl", "");
  const std::vector<std::string> opts = a.values("opt");
  const long lmc = a.int_or("lmc", -1);
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
  if (!booksim_path.empty()) {
    try {
      bsc = read_booksim_config(booksim_path);
    } catch (const ParseError& e) {
      throw cli::UsageError(e.what());
    }
    try {
      apply_booksim_config(*bsc, c, t, random_choices);
    } catch (const OptionError& e) {
      throw cli::UsageError(booksim_path + ": " + e.what());
    }
    for (const auto& k : bsc->ignored)
      std::fprintf(stderr, "note: %s:%d: %s only steers BookSim2's run control or output; ignored\n",
                   booksim_path.c_str(), bsc->line_of.at(k), k.c_str());
    if (bsc->topology == "fattree" && !random_choices)
      std::fprintf(stderr, "note: %s: fattree nca picks the up port at random per packet in BookSim2; "
                   "flitsim routes up by destination (D-mod-k, --booksim-routing lft)\n", booksim_path.c_str());
  }
  // every router option through flitsim's one table (Config::set), the model first
  bool lid_policy_given = false;
  for (const ConfigKey& k : config_keys()) {
    std::optional<std::string> v;
    if (k.kind == ConfigKey::Flag) {
      if (a.flag(k.name)) v = "true";
    } else {
      v = a.value(k.name);
    }
    if (!v) continue;
    lid_policy_given |= k.name == "lid-policy";
    try {
      c.set(k.name, *v);
    } catch (const OptionError& e) {
      throw cli::UsageError(e.what());
    }
  }
  const bool bs = c.model == RouterModel::BookSim;
  if (random_choices && bsc && booksim_lmc(*bsc) > 0) {  // a LID (= a combination of choices) at random per packet
    if (lid_policy_given && c.lid_policy != LidPolicy::Random)
      throw cli::UsageError("--booksim-routing random needs --lid-policy random (the default with it)");
    c.lid_policy = LidPolicy::Random;
  }

  t.pattern = a.value_or("pattern", t.pattern);
  t.load = a.double_or("load", t.load);
  if (!(t.load >= 0 && t.load <= 1)) {
    char v[32];
    std::snprintf(v, sizeof v, "%g", t.load);
    throw cli::UsageError(std::string("--load ") + v + " out of range: offered flits/endpoint/cycle must be 0..1");
  }
  const std::string sweep_spec = a.value_or("sweep", "");
  if (auto d = a.value("dims")) t.dims = parse_ints(*d, 'x', "--dims");
  if (auto h = a.value("hotspots")) t.hotspots = parse_ints(*h, ',', "--hotspots");
  t.hotspot_fraction = a.double_in("hotspot-fraction", t.hotspot_fraction, 0, 1);
  t.trace_file = a.value_or("trace", "");
  if (!t.trace_file.empty() && t.pattern == "uniform") t.pattern = "trace";
  t.warmup = a.int_in("warmup", t.warmup, 0, 1000000000000L);
  t.measure = a.int_in("measure", t.measure, 1, 1000000000000L);
  t.max_drain = a.int_in("max-drain", t.max_drain, 0, 1000000000000L);
  if (a.flag("no-flush")) t.flush = false;
  t.self_traffic = bs || a.flag("self-traffic");
  const std::vector<std::string> fails = a.values("fail"), recovers = a.values("recover"),
                                  reroutes = a.values("reroute");
  if (resolve_threads(c.threads, 1 << 30) > 1) {  // (the library refuses these too; here: exit 2)
    const char* what = c.nac                                                ? "NAC"
                       : c.lid_policy == LidPolicy::FtDrb                     ? "FT-DRB sources (--lid-policy ftdrb)"
                                                                              : nullptr;
    if (what) throw cli::UsageError(std::string("--threads > 1 does not support ") + what + "; use --threads 1");
  }
  const std::string csv = a.value_or("csv", ""), svg = a.value_or("svg", "");
  std::string title = a.value_or("title", "");
  const bool strict = a.flag("strict");
  const bool json = a.flag("json");
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
  if (lmc < -1 || lmc > 7) throw cli::UsageError("--lmc must be 0..7");
  c.validate();
  cli::check_output_paths({csv, svg});  // before any work: all or none is written

  // [ENGINE:]k=v, as route, compare and the plugin take them
  EngineOptions eopts = engine_options_for(engine, opts, !engine.empty());
  const bool all_lmc_lids = c.lid_policy != LidPolicy::Base;
  // keys and ranges checked here, before any work
  std::optional<RoutingPipeline> pipeline = sim_pipeline(engine, eopts, all_lmc_lids);

  Fabric fabric;
  Routing routing;
  std::optional<Verdict> verdict;  // the routing pipeline's, for an engine's routing
  auto fmt = parse_lft_format(lft_fmt);
  if (!fmt) throw cli::UsageError("--lft-format: unknown format '" + lft_fmt + "'");
  if (bsc) {
    fabric = booksim_fabric(*bsc, random_choices);
    routing = booksim_routing(fabric, *bsc, random_choices);
  } else if (!lfts_path.empty()) {
    LoadedRouting lr = load_routing(fabric_path, lfts_path, *fmt, sl_path, sl2vl_path, false,
                                    static_cast<uint8_t>(lmc < 0 ? 0 : lmc));
    for (auto& w : lr.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    fabric = std::move(lr.fabric);
    routing = std::move(lr.routing);
  } else {
    fabric = cli::load_fabric(fab, [](const std::string& p) { return read_fabric_file(p); });
    if (lmc >= 0) fabric.assign_lids(static_cast<uint8_t>(lmc));
    else if (fabric.max_lid() == 0) fabric.assign_lids(0);
    fabric.validate();
    if (pipeline) {
      RoutedStep step = pipeline->run(fabric);
      routing = std::move(step.routing);
      verdict = std::move(step.verdict);
    } else {
      routing = route_minhop(fabric);
    }
  }

  // Faults and re-routes (validated before anything runs).
  std::vector<LinkEvent> links;
  for (auto& s : fails) links.push_back(parse_link(fabric, s, false));
  for (auto& s : recovers) links.push_back(parse_link(fabric, s, true));
  std::deque<Routing> reroute_tables;
  std::vector<std::pair<int64_t, const Routing*>> reroute_at;
  for (auto& s : reroutes) {
    auto colon = s.find(':');
    int64_t cyc;
    try {
      cyc = std::stoll(s.substr(0, colon));
    } catch (...) {
      throw cli::UsageError("--reroute expects CYCLE[:LFTFILE], got '" + s + "'");
    }
    if (cyc < 0) throw cli::UsageError("--reroute cycle " + std::to_string(cyc) + " is negative");
    if (colon != std::string::npos) {
      if (fabric_path.empty()) throw cli::UsageError("--reroute CYCLE:LFTFILE needs the fabric as a file, not --gen");
      LoadedRouting lr = load_routing(fabric_path, s.substr(colon + 1), *fmt, sl_path, sl2vl_path, false,
                                      static_cast<uint8_t>(lmc < 0 ? 0 : lmc));
      reroute_tables.push_back(std::move(lr.routing));
    } else {
      if (engine.empty()) throw cli::UsageError("--reroute CYCLE without a file needs --engine");
      reroute_tables.push_back(run_engine(pipeline, fabric_at(fabric, links, cyc)));  // links failed by then
    }
    reroute_at.push_back({cyc, &reroute_tables.back()});
  }

  // Consistency report before simulating.
  const Verdict chk = verdict ? *verdict : verdict_for(fabric, routing, sim_check(all_lmc_lids));
  if (!chk.ok()) {
    std::fprintf(stderr, "%s", chk.summary().c_str());
    if (strict) throw Error("routing check failed (--strict)");
  }
  if (title.empty() && bsc) {
    title = booksim_path.substr(booksim_path.find_last_of('/') + 1) + " (BookSim2 config), " + t.pattern;
  } else if (title.empty()) {
    std::string base = fab.label().substr(fab.label().find_last_of('/') + 1);
    title = base + ", " + (engine.empty() ? std::string("LFTs ") + lfts_path.substr(lfts_path.find_last_of('/') + 1)
                                           : "engine " + engine) +
            ", " + t.pattern + (c.nac ? ", NAC" : "");
  }

  auto run_one = [&](double load) {
    TrafficSpec tt = t;
    tt.load = load;
    Simulator sim(fabric, routing, c);
    for (auto& l : links) sim.schedule_link(l.cycle, l.node, l.port, l.up);
    for (auto& [cyc, r] : reroute_at) sim.schedule_routing(cyc, r);
    return sim.run(tt);
  };

  // --json: one document with every load point (docs/JSON.md)
  auto result_json = [](double load, const Result& r) {
    return nlohmann::json{{"load", load},
                          {"cycles", r.cycles},
                          {"endpoints", r.endpoints},
                          {"packets", {{"generated", r.generated}, {"injected", r.injected}, {"delivered", r.delivered},
                                       {"dropped", r.dropped}, {"in_network", r.in_network}, {"in_source", r.in_source}}},
                          {"drops", r.drops},
                          {"measured", {{"packets", r.measured_packets}, {"delivered", r.measured_delivered},
                                        {"dropped", r.measured_dropped}}},
                          {"offered", r.offered},
                          {"accepted", r.accepted},
                          {"latency", {{"avg", r.avg_latency}, {"p99", r.p99_latency}, {"max", r.max_latency},
                                       {"avg_network", r.avg_network_latency}}},
                          {"avg_hops", r.avg_hops},
                          {"drained", r.drained},
                          {"flushed", r.flushed},
                          {"deadlock", {{"detected", r.deadlock.detected}, {"cycle", r.deadlock.cycle},
                                        {"wait_for_cycle", r.deadlock.cycle_channels}}},
                          {"notes", r.notes}};
  };
  auto sim_doc = [&](const std::vector<SweepPoint>& pts) {
    nlohmann::json j = cli::json_doc("sim");
    j["fabric"] = cli::fabric_json(fabric);
    if (bsc) j["fabric"]["file"] = booksim_path;
    else j["fabric"][fab.file.empty() ? "gen" : "file"] = fab.label();
    j["routing"] = bsc ? nlohmann::json{{"booksim_config", booksim_path}}
                   : engine.empty() ? nlohmann::json{{"lfts", lfts_path}} : nlohmann::json{{"engine", engine}};
    j["pattern"] = t.pattern;
    j["title"] = title;
    nlohmann::json p = nlohmann::json::array();
    for (const auto& sp : pts) p.push_back(result_json(sp.load, sp.result));
    j["points"] = p;
    return cli::dump_json(j);
  };

  if (sweep_spec.empty()) {
    Result r = run_one(t.load);
    if (json) {
      std::fputs(sim_doc({{t.load, r}}).c_str(), stdout);
      if (!csv.empty()) cli::write_file_atomic(csv, sweep_csv({{t.load, r}}));
      if (!svg.empty()) cli::write_file_atomic(svg, sweep_svg({{t.load, r}}, title));
      return r.deadlock.detected ? 3 : 0;
    }
    std::printf("%s", format_result(r).c_str());
    if (c.lid_policy == LidPolicy::FtDrb)
      std::printf("FT-DRB: %llu notifications, %llu probes (%llu delivered), %llu permanent faults, "
                  "metapath +%llu/-%llu, %llu late drops\n",
                  static_cast<unsigned long long>(r.ftdrb_notifications), static_cast<unsigned long long>(r.ftdrb_probes),
                  static_cast<unsigned long long>(r.ftdrb_probes_delivered),
                  static_cast<unsigned long long>(r.ftdrb_permanent), static_cast<unsigned long long>(r.ftdrb_grows),
                  static_cast<unsigned long long>(r.ftdrb_shrinks), static_cast<unsigned long long>(r.ftdrb_late_drops));
    cli::OutputFiles files;
    if (!csv.empty()) files.add(csv, sweep_csv({{t.load, r}}));
    if (!svg.empty()) files.add(svg, sweep_svg({{t.load, r}}, title));
    files.commit();
    return r.deadlock.detected ? 3 : 0;
  }
  std::vector<SweepPoint> pts;
  for (double l : parse_sweep(sweep_spec)) {
    pts.push_back({l, run_one(l)});
    const Result& r = pts.back().result;
    std::fprintf(stderr, "load %.3f: accepted %.4f, latency avg %.1f p99 %.0f%s\n", l, r.accepted, r.avg_latency,
                 r.p99_latency, r.deadlock.detected ? " DEADLOCK" : (r.drained ? "" : " (saturated)"));
  }
  std::string csv_text = sweep_csv(pts), svg_text = sweep_svg(pts, title);
  cli::OutputFiles files;
  files.add(csv, csv_text);
  files.add(svg, svg_text);
  files.commit();
  if (json) std::fputs(sim_doc(pts).c_str(), stdout);
  return 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(sim, "cycle-level flit simulation of LFTs (load sweeps, faults, NAC)", kHelp, run_sim);
