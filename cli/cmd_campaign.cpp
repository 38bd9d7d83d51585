// ftroute campaign / campaign-merge: fail-in-place campaigns (Domke et al., seed 003).
// The work is in campaign/ (ftroute_campaign); this file parses options and prints progress.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli.hpp"
#include "ftroute/campaign.hpp"
#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/registry.hpp"

using namespace ftroute;

namespace {

std::string hms(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  long t = std::lround(s);
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(b, sizeof b, "%02ld:%02ld", t / 60, t % 60);
  return b;
}

// The engines of the case study (issue 27 item 7): ftroute's tree engines and OpenSM's.
const char* const kCaseStudyEngines = "ftree-misroute,dqr,ftdrb,opensm:updn,opensm:ftree,opensm:dfsssp";

int run_campaign_cmd(cli::Args& a) {
  campaign::Config cfg;
  for (const auto& f : a.values("fabric")) cfg.fabrics.push_back(campaign::parse_fabric_source(f, true));
  for (const auto& g : a.values("gen")) cfg.fabrics.push_back(campaign::parse_fabric_source(g, false));
  const bool case_study = a.flag("case-study");
  const auto link_failures = a.value("link-failures"), switch_failures = a.value("switch-failures");
  // --years / --case-study (docs/campaign.md "Case study"); Args::value() consumes an option, so each is read once
  const campaign::LifetimeArgs life{a.value("years"), a.value("link-rate"), a.value("switch-rate"), a.value("link-ratio"),
                                    a.flag("expected-counts")};
  cli::usage_errors([&] { campaign::set_lifetime(cfg, life, case_study, link_failures || switch_failures); });
  auto engines = a.value("engines");
  if (!engines && case_study) engines = kCaseStudyEngines;
  cfg.link_failures = cli::split_list(link_failures.value_or("0"), ',');
  cfg.switch_failures = cli::split_list(switch_failures.value_or("0"), ',');
  cfg.seeds = static_cast<int>(a.int_or("seeds", case_study ? 3 : 10));
  unsigned hw = std::thread::hardware_concurrency();
  cfg.jobs = static_cast<int>(a.int_or("jobs", hw ? hw : 1, "-j"));
  std::string shard = a.value_or("shard", "0/1");
  cfg.keep_connected = !a.flag("allow-disconnect");
  cfg.host_links = a.flag("host-links");
  const std::string lids = a.value_or("lids", "file");
  if (lids != "file" && lids != "assign") throw cli::UsageError("--lids expects file or assign, got '" + lids + "'");
  cfg.file_lids = lids == "file";
  cfg.pattern = a.value_or("pattern", case_study ? "shift-exchange" : "");
  if (cfg.pattern == "none") cfg.pattern.clear();
  cfg.path_sl_max_pairs = a.int_in("path-sl-limit", case_study ? 200000 : 0, 0, 1L << 40);
  cfg.sim_load = a.double_or("sim-load", 0.9);
  cfg.sim_measure = a.int_or("sim-cycles", 3000);
  cfg.sim_msg_packets = static_cast<int>(a.int_or("sim-msg-packets", 1));
  // ranges as flitsim's own --packet / --buffer / --link-latency
  cfg.sim_packet_flits = static_cast<int>(a.int_in("sim-packet", cfg.sim_packet_flits, 1, 65535));
  cfg.sim_buffer_flits = static_cast<int>(a.int_in("sim-buffer", cfg.sim_buffer_flits, 1, 1048576));
  cfg.sim_link_latency = static_cast<int>(a.int_in("sim-link-latency", cfg.sim_link_latency, 1, 100000));
  const std::string shift_order = a.value_or("shift-order", "index");
  {
    using O = campaign::Config::ShiftOrder;
    bool known = false;
    for (O o : {O::Index, O::Random, O::Distance})
      if (shift_order == campaign::shift_order_name(o)) cfg.shift_order = o, known = true;
    if (!known) throw cli::UsageError("--shift-order expects index, random or distance, got '" + shift_order + "'");
  }
  cfg.sim_warmup = cfg.sim_measure / 6;
  cfg.opensm_timeout = static_cast<int>(a.int_or("opensm-timeout", 120));
  cfg.ftsim_script = a.value_or("ftsim", "");
  cfg.keep_scratch = a.flag("keep-scratch");
  cfg.out_dir = a.value_or("out", "", "-o");
  const bool quiet = a.flag("quiet", "-q");
  auto pos = a.positionals();
  for (const auto& p : pos) cfg.fabrics.push_back(campaign::parse_fabric_source(p, true));

  if (cfg.fabrics.empty()) throw cli::UsageError("give at least one --fabric FILE or --gen SPEC");
  if (!engines) throw cli::UsageError("--engines is required");
  if (cfg.out_dir.empty()) throw cli::UsageError("--out DIR is required");
  cli::check_output_dir(cfg.out_dir);
  cfg.engines = campaign::split_engines(*engines);
  for (const auto& e : cfg.engines)
    if (e == "opensm:") throw cli::UsageError("'opensm:' needs an engine name (opensm:minhop, opensm:updn, ...)");
    else cli::usage_errors([&] { campaign::engine_variant(e); });  // unknown engine or option: exit 2, before any run
  if (cfg.seeds < 1) throw cli::UsageError("--seeds must be >= 1");
  if (cfg.jobs < 1) throw cli::UsageError("--jobs must be >= 1");
  if (cfg.link_failures.empty() || cfg.switch_failures.empty()) throw cli::UsageError("empty failure list");
  for (const auto* levels : {&cfg.link_failures, &cfg.switch_failures})
    for (size_t i = 0; i < levels->size(); i++) {
      campaign::failures_count((*levels)[i], 100);  // syntax check
      if (std::find(levels->begin(), levels->begin() + static_cast<long>(i), (*levels)[i]) != levels->begin() + static_cast<long>(i))
        throw cli::UsageError("failure level '" + (*levels)[i] + "' given twice (each level is one set of runs)");
    }
  cli::usage_errors([&] { campaign::parse_shard(shard, cfg); });
  if (cfg.sim_msg_packets < 1) throw cli::UsageError("--sim-msg-packets must be >= 1");
  if (cfg.sim_buffer_flits < cfg.sim_packet_flits)
    throw cli::UsageError("--sim-buffer " + std::to_string(cfg.sim_buffer_flits) + " cannot hold a packet of --sim-packet " +
                          std::to_string(cfg.sim_packet_flits) + " flits (flitsim forwards whole packets: virtual cut-through)");
  if (!cfg.pattern.empty() && !(cfg.sim_load > 0 && cfg.sim_load <= 1))
    throw cli::UsageError("--sim-load must be in (0, 1]");
  // the pattern and the window before any output: a bad one used to fail in the first run, after
  // campaign.conf and results.csv were written
  if (!cfg.pattern.empty() && cfg.pattern != "shift-exchange" && cfg.pattern != "shift" && cfg.pattern != "exchange") {
    if (cfg.pattern == "trace") throw cli::UsageError("--pattern trace needs a trace file, which campaign does not take (use `ftroute sim --trace`)");
    if (!flitsim::known_pattern(cfg.pattern))
      throw cli::UsageError("unknown --pattern '" + cfg.pattern + "' (shift-exchange, shift, exchange, none, or a flitsim pattern: " +
                            flitsim::known_patterns_text().substr(0, flitsim::known_patterns_text().rfind(", trace")) + ")");
  }
  if (cfg.sim_measure < 1) throw cli::UsageError("--sim-cycles must be >= 1");

  const bool tty = isatty(2);
  auto rows = campaign::run_campaign(cfg, [&](const campaign::Progress& p) {
    if (quiet) return;
    // Not a terminal (log file, batch job): one line per 10 % instead of a redrawn bar.
    if (!tty && p.done != p.total && p.done * 10 / p.total == (p.done - 1) * 10 / p.total) return;
    const int width = 30;
    double frac = p.total ? double(p.done) / double(p.total) : 1.0;
    int fill = static_cast<int>(frac * width);
    double eta = p.done ? p.elapsed / double(p.done) * double(p.total - p.done) : NAN;
    std::fprintf(stderr, "%s[%s%s] %zu/%zu runs, %zu errors, elapsed %s, ETA %s%s", tty ? "\r" : "",
                 std::string(fill, '#').c_str(), std::string(width - fill, '.').c_str(), p.done, p.total, p.failed,
                 hms(p.elapsed).c_str(), hms(eta).c_str(), tty ? "   " : "\n");
    std::fflush(stderr);
  });
  if (!quiet) {
    if (tty) std::fprintf(stderr, "\n");
    std::fprintf(stderr, "%zu rows in %s/results.csv; plots in %s/plots, table in %s/summary.txt%s\n", rows.size(),
                 cfg.out_dir.c_str(), cfg.out_dir.c_str(), cfg.out_dir.c_str(),
                 cfg.lifetime.years > 0 ? (", case study in " + cfg.out_dir + "/case_study.md").c_str() : "");
  }
  if (case_study) {  // the report on stdout too (written by run_campaign's reports)
    std::ifstream in(cfg.out_dir + "/case_study.md");
    std::stringstream ss;
    ss << in.rdbuf();
    std::fputs(ss.str().c_str(), stdout);
  }
  return 0;
}

int run_merge_cmd(cli::Args& a) {
  std::string out = a.value_or("out", "", "-o");
  auto pos = a.positionals();
  if (out.empty()) throw cli::UsageError("--out DIR is required");
  if (pos.empty()) throw cli::UsageError("give the campaign directories (or results.csv files) to merge");
  cli::check_output_dir(out);
  std::vector<std::vector<campaign::RunResult>> parts = campaign::read_result_parts(pos);
  std::string ref_from;  // the parts must have run with the same settings (campaign.conf)
  const campaign::Settings ref = campaign::merge_settings(pos, &ref_from);
  int dup = 0;
  auto rows = campaign::merge(parts, &dup);
  std::filesystem::create_directories(out);
  std::string text = campaign::csv_header() + "\n";
  for (const auto& r : rows) text += campaign::csv_row(r) + "\n";
  if (!ref_from.empty()) cli::write_file_atomic(out + "/campaign.conf", campaign::campaign_settings_text(ref));
  cli::write_file_atomic(out + "/results.csv", text);
  campaign::write_reports(rows, out);
  std::fprintf(stderr, "%zu rows (%d duplicate keys dropped) -> %s/results.csv, plots, summary.txt\n", rows.size(), dup,
               out.c_str());
  return 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(campaign, "fail-in-place campaign: faults x engines x seeds -> results.csv + SVG plots",
                   R"(usage: ftroute campaign (--fabric F.net | --gen SPEC)... --engines A,B,... --out DIR [options]

For every fabric x engine x switch failures x link failures x seed: copy the intact fabric, inject
seeded random faults (never disconnecting the fabric unless --allow-disconnect), route, validate
(unreachable pairs, loops, CDG cycle over (link, VL), VLs, edge forwarding index, hops), time the
routing, and optionally simulate throughput with flitsim. Columns lost_routes / lost_eq6: the
routes of the engine's routing of the intact fabric (computed once per fabric and engine) that the
faults cut before any re-route, and the paper's Eq. 6 estimate (`campaign-table --lost`). One CSV row per run is appended to
DIR/results.csv as soon as it finishes; runs already there are skipped (resume after Ctrl-C).
DIR/plots/<fabric>_<metric>.svg and DIR/summary.txt are rewritten at the end. DIR/campaign.conf
records the settings outside the run key (--pattern, --shift-order, --sim-*, --allow-disconnect,
--host-links, --lids); resuming or extending DIR with other values is refused (exit 1, nothing written).

  --fabric FILE          .net / opensm-subnet.lst fabric (repeatable; also as positional)
  --gen SPEC             generated fabric (repeatable), the fabric spec of `ftroute gen --help`:
                         fattree:K,N | fattree2:LEAVES,SPINES,HOSTS | fattree3:RADIX[,PODS] |
                         mesh:4x4[,HOSTS] | torus:4x4x4[,HOSTS] | kns:K,N[,P[,KI]] | ctree:KEY=V,.. |
                         kautz:D,K[,HOSTS[,R]] | xgft:H,M1..MH,W1..WH[,HOSTS] | random:SWITCHES,DEGREE,HOSTS[,SEED] |
                         dragonfly:A,P,H,G[,HOSTS][,arrangement=round-robin|consecutive|palmtree]
                         (seed 003 Table III, docs/campaign.md)
                         (e.g. ctree:leaves=8,hosts=4/0,links=2); KEY=V items too (torus:4x4,hosts=2)
  --engines A,B,...      ftroute engines (ftree-misroute, ft-minhop, ft-dor, dqr, kns, ftdrb) and/or
                         opensm:<engine> (opensm:minhop, opensm:updn, opensm:ftree, opensm:dfsssp,
                         opensm:lash, opensm:dor, opensm:torus-2QoS, ...): real OpenSM under ibsim;
                         the engine OpenSM really used is recorded (fallback to minhop shows);
                         NAME[k=v,k=v] = an ftroute engine with options, a variant of its own in
                         the results (--engines 'ftree-misroute,ftree-misroute[vls=2]')
  --link-failures L,..   failed links per run: counts or percentages of the switch-to-switch links
                         (e.g. 0,1,2,4 or 0,1%,3%,5%); default 0
  --switch-failures S,.. failed switches per run (counts or % of switches); default 0
  --seeds N              seeds 1..N per point (default 10; --case-study: 3)

Lifetime (seed 003 section V-D: faults kept in place over the years, nothing repaired):
  --years N              route every engine on the fabric of years 0..N of every seed instead of
                         the failure levels: each year, every surviving switch fails with
                         probability --switch-rate and then every surviving switch-to-switch link
                         with --link-rate (cumulative; a failed switch takes its links, and the CAs
                         hanging off it alone leave the fabric)
  --link-rate R          annual link failure rate, 1% or 0.01 (default 1%)
  --switch-rate R        annual switch failure rate (default 1%)
  --link-ratio K         K link failures per switch failure in expectation instead of --link-rate
                         (the paper's TSUBAME2.0 ratio 1:13: --link-ratio 13)
  --expected-counts      fail round(year x rate x count) components instead of binomial draws
  --case-study           the whole case study in one go: --years 8 (unless given), engines
                         ftree-misroute,dqr,ftdrb,opensm:updn,opensm:ftree,opensm:dfsssp (unless
                         --engines), --seeds 3, --pattern shift-exchange (none: --pattern none),
                         --path-sl-limit 200000; prints DIR/case_study.md (the year table, the
                         regression of campaign-table --regression, the recommendation)
  --path-sl-limit N      do not read the path SLs of dfsssp/lash/nue/torus-2QoS above N pairs
                         (their CDG is then not checked); default 0 = no limit
  -j, --jobs N           parallel runs (default: number of CPUs)
  --shard I/N            run only every N-th run starting at I (0-based) - for job arrays;
                         merge the directories with `ftroute campaign-merge`
  --host-links           random link failures may also hit switch-CA links
  --allow-disconnect     accept fault sets that disconnect the fabric
  --lids file|assign     LIDs of the in-process runs on --fabric files: file (default) keeps the
                         file's (ibnetdiscover output carries OpenSM's), as `route` and `compare`
                         do; assign renumbers every run like OpenSM (1.., switches first). Files
                         without LIDs and --gen fabrics are numbered 1.. either way; opensm:<engine>
                         runs use the LIDs OpenSM assigns. Recorded in DIR/campaign.conf
  --pattern P            simulate with flitsim: shift-exchange (the paper's all-to-all: shifts
                         +-1..+-N/2, run to completion; throughput = Eq. 7 per endpoint) |
                         shift | exchange (one permutation each) | uniform | any flitsim pattern
  --sim-load X           offered load for the simulation, 0 < X <= 1 (default 0.9; not for shift-exchange)
  --sim-cycles N         measured cycles (default 3000; warm-up N/6)
  --sim-msg-packets N    shift-exchange: packets per message (default 1)
  --sim-packet FLITS     flits per packet (default 16; one flit per cycle is a link's rate)
  --sim-buffer FLITS     input buffer per VL and port, in flits (default 64; >= --sim-packet)
  --sim-link-latency C   cycles a flit spends on a link (default 1). The seed 003 paper's OMNeT++
                         model is about --sim-packet 32 --sim-buffer 206 --sim-link-latency 3
                         (docs/REPRODUCTION.md "Simulator model and HCA order"); recorded in
                         DIR/campaign.conf
  --shift-order O        shift-exchange: order of the endpoints the shifts run over: index (default,
                         flitsim's node order = the generator's) | random (a permutation drawn from
                         the run's seed; docs/REPRODUCTION.md, Dragonfly) | distance (the paper's
                         "distance matrix": from the first endpoint always the nearest one left,
                         by switch hops on the run's fabric); recorded in DIR/campaign.conf (a
                         directory without it counts as index)
  --opensm-timeout S     seconds per OpenSM run (default 120)
  --ftsim PATH           scripts/ftsim.sh to use (default: $FTROUTE_FTSIM, else libexec/ftroute/ftsim.sh
                         next to the binary: <prefix>/libexec/ftroute or <build>/libexec/ftroute)
  --keep-scratch         keep the ibsim/OpenSM work directories in DIR/scratch
  -q, --quiet            no progress bar
  -o, --out DIR          output directory (required)

examples (see docs/campaign.md):
  ftroute campaign --gen fattree:4,3 --engines ftree-misroute,ft-minhop,opensm:ftree,opensm:updn \
      --link-failures 0,1,2,4 --seeds 5 --pattern uniform --out camp1
  ftroute campaign --case-study --gen ctree:preset=hdr-3tier --out life    # or --fabric my-ibnetdiscover.txt)",
                   run_campaign_cmd);

// The macro would name it "campaign_merge"; register the dashed name directly.
static ::ftroute::cli::Registrar ftroute_subcommand_campaign_merge("campaign-merge", "merge campaign directories (shards) into one results.csv + plots",
                   R"(usage: ftroute campaign-merge DIR|results.csv ... --out DIR

Concatenates the results of several campaign directories (e.g. the shards of a job array), drops
duplicate keys (fabric, engine, link failures, switch failures, seed; the first one wins), and
writes OUT/results.csv, OUT/campaign.conf, OUT/plots/*.svg and OUT/summary.txt. Parts run with
different settings (their campaign.conf: --shift-order, --pattern, ...) are refused.)",
                   run_merge_cmd);
