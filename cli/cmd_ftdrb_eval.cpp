// `ftroute ftdrb-eval`: the FT-DRB evaluation of issue 8 (docs/ftdrb.md "Evaluation").
// The experiment itself (routings, fault sets, load sweeps, tables) is flitsim's
// ftdrb_eval() (flitsim/ftdrb_eval.cpp); this file parses the options and writes the tables.
#include <algorithm>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/ftdrb_eval.hpp"

namespace {

using namespace ftroute;
using namespace ftroute::flitsim;

const char* kHelp = R"(usage: ftroute ftdrb-eval [options]

FT-DRB evaluation (docs/ftdrb.md "Evaluation"): saturation throughput and light-load latency
of FT-DRB vs single path + re-route, relative to the fault-free fabric, with static link faults.

  --topos LIST      fabric specs (`ftroute gen --help`: torus:8x8, mesh:4x4, fattree:4,3, ...),
                    comma separated, repeatable; legacy names torusAxB[xC..], meshAxB.., KaryNtree
                    (4ary3tree) too (default torus8x8,torus16x16,4ary3tree; --quick: torus8x8,4ary3tree)
  --patterns LIST   flitsim patterns (default uniform,bitrev,shuffle,transpose)
  --faults LIST     failed switch-to-switch links in % (default 0,2.5,5,10; --quick 0,10);
                    count = round(pct x switch links), random, fabric kept connected
  --methods LIST    single, ftdrb, ftdrb-static, single-static, ftree (default: all but
                    single-static; ftree = ftree-misroute re-run on the faulty fabric, k-ary n-trees only)
  --loads LIST      offered loads (flits/endpoint/cycle) swept in order until the first
                    saturated point (default 0.02,0.05,0.1,0.15,0.2,0.3,0.4,0.5,0.6,0.8,1.0);
                    the first load is the "light load" of the latency column
  --lmc N           LIDs per CA = 2^N (default 2); a topology whose ftdrb routing needs more than
                    15 VLs is routed with the next lower LMC (printed in the table)
  --no-spread       keep the engine's first-fit VL layers (default: every routing of a topology
                    spreads its paths evenly over the same number of VLs, see docs/ftdrb.md)
  --warmup N --measure N  cycles per point (default 1000/4000; --quick 500/1500)
  --seed N          fault and traffic seed (default 1)
  --jobs N          parallel simulations (default 1); output is identical for any N
  --quick           small, fast variant (the defaults marked --quick above)
  --out FILE        markdown tables (default stdout); --csv FILE one line per (run, method)
)";

int run_eval(cli::Args& a) {
  const bool quick = a.flag("quick");
  std::vector<std::string> topos;  // "torus:8x8,2,fattree:4,3" = two specs (topo::split_spec_list)
  for (const auto& t : a.values("topos"))
    for (auto& s : topo::split_spec_list(t)) topos.push_back(s);
  if (topos.empty())
    topos = topo::split_spec_list(quick ? "torus8x8,4ary3tree" : "torus8x8,torus16x16,4ary3tree");
  std::vector<std::string> patterns = cli::split_list(a.value_or("patterns", "uniform,bitrev,shuffle,transpose"));
  std::vector<std::string> fault_text = cli::split_list(a.value_or("faults", quick ? "0,10" : "0,2.5,5,10"));
  std::vector<std::string> methods = cli::split_list(a.value_or("methods", "single,ftdrb,ftdrb-static,ftree"));
  std::vector<std::string> load_text =
      cli::split_list(a.value_or("loads", "0.02,0.05,0.1,0.15,0.2,0.3,0.4,0.5,0.6,0.8,1.0"));
  const long lmc_req = a.int_or("lmc", 2);
  const bool spread = !a.flag("no-spread");
  FtdrbEvalOptions prm;  // loads, warmup, measure, seed here; the rest below
  prm.warmup = a.int_or("warmup", quick ? 500 : 1000);
  prm.measure = a.int_or("measure", quick ? 1500 : 4000);
  prm.seed = static_cast<uint64_t>(a.int_or("seed", 1));
  const long jobs_n = a.int_or("jobs", 1, "-j");
  const std::string out = a.value_or("out", "-", "-o"), csv = a.value_or("csv", "");
  auto pos = a.positionals();
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "'");
  if (lmc_req < 1 || lmc_req > 3) throw cli::UsageError("--lmc must be 1..3");
  cli::check_output_paths({out, csv});
  if (jobs_n < 1 || jobs_n > 64) throw cli::UsageError("--jobs must be 1..64");
  if (prm.warmup < 0 || prm.measure < 100) throw cli::UsageError("--warmup >= 0, --measure >= 100");
  for (auto& m : methods)
    if (std::find(ftdrb_eval_methods().begin(), ftdrb_eval_methods().end(), m) == ftdrb_eval_methods().end())
      throw cli::UsageError("--methods: unknown method '" + m + "'");
  auto num = [](const std::string& s, const char* what) {
    try {
      size_t used = 0;
      double v = std::stod(s, &used);
      if (used != s.size()) throw 1;
      return v;
    } catch (...) {
      throw cli::UsageError(std::string(what) + ": bad number '" + s + "'");
    }
  };
  std::vector<double> faults;
  for (auto& s : fault_text) {
    double v = num(s, "--faults");
    if (v < 0 || v > 50) throw cli::UsageError("--faults: " + s + " is not in 0..50 %");
    faults.push_back(v);
  }
  if (faults.empty() || faults.front() != 0) faults.insert(faults.begin(), 0.0);  // the reference
  for (auto& s : load_text) {
    double v = num(s, "--loads");
    if (v <= 0 || v > 1) throw cli::UsageError("--loads: " + s + " is not in (0, 1]");
    prm.loads.push_back(v);
  }
  if (prm.loads.empty() || patterns.empty() || topos.empty() || methods.empty())
    throw cli::UsageError("empty --loads/--patterns/--topos/--methods");
  for (auto& pt : patterns) {  // validate names before any work
    TrafficSpec t;
    t.pattern = pt;
    static const std::vector<std::string> ok = {"uniform", "randperm", "bitrev", "transpose", "shuffle", "butterfly",
                                                "complement", "tornado", "hotspot"};
    if (std::find(ok.begin(), ok.end(), pt) == ok.end()) throw cli::UsageError("--patterns: unknown pattern '" + pt + "'");
  }

  FtdrbEvalOptions eo = prm;
  eo.topos = topos, eo.patterns = patterns, eo.methods = methods, eo.faults = faults;
  eo.lmc = static_cast<int>(lmc_req), eo.spread = spread, eo.jobs = jobs_n;
  FtdrbEvalTables t;
  try {
    t = ftdrb_eval(eo);
  } catch (const FtdrbEvalInputError& e) {
    throw cli::UsageError(e.what());
  }
  cli::OutputFiles files;
  if (!csv.empty()) files.add(csv, t.csv);
  files.add(out, t.markdown);
  files.commit();
  return 0;
}

}  // namespace

// (FTROUTE_SUBCOMMAND needs an identifier; the command name has a dash)
static ::ftroute::cli::Registrar ftroute_subcommand_ftdrb_eval(
    "ftdrb-eval", "FT-DRB evaluation: throughput/latency vs fault-free, FT-DRB vs single path + re-route", kHelp,
    run_eval);
