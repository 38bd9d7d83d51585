// ftroute compare: run several routing engines (ftroute's in-process, OpenSM's own under ibsim
// with --opensm) and/or load LFT dumps on one fabric, tabulate the validators' verdicts and
// recommend an engine and a checked routing_engine chain. The running and the recommendation live
// in campaign/engine_choice.cpp; this file parses options and prints.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/campaign.hpp"
#include "ftroute/engine_choice.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/opensm_run.hpp"
#include "ftroute/registry.hpp"

using namespace ftroute;
using campaign::EngineRow;

namespace {

// The name column, `width` wide (16, or the longest name: a variant NAME[k=v]), for every row.
std::string pad(const std::string& name, int width) {
  return name + std::string(static_cast<size_t>(width) - std::min<size_t>(static_cast<size_t>(width), name.size()), ' ');
}

// One row of the table.
std::string row_text(const std::string& name, const ValidationReport& r, double secs, int width) {
  char buf[256];
  std::snprintf(buf, sizeof buf, " %-6s %11llu %6llu %-8s %3zu %6.2f %4d %8llu %9.3f", r.ok() ? "PASS" : "FAIL",
                static_cast<unsigned long long>(r.unreachable), static_cast<unsigned long long>(r.looping),
                !r.deadlock_checked ? "-" : (r.cdg_acyclic ? "acyclic" : "CYCLE"), r.vls_used.size(), r.hops_avg,
                r.hops_max, static_cast<unsigned long long>(r.efi_max), secs);
  return pad(name, width) + buf;
}

int run_compare(cli::Args& a) {
  auto engines_opt = a.value("engines");
  auto opensm_opt = a.value("opensm");
  if (auto one = a.value("engine", "-e"))  // route's spelling: compare takes a list
    throw cli::UsageError("unknown option '--engine': compare runs a list of engines, use --engines " + *one +
                          "[,NAME...]");
  std::vector<std::string> lfts = a.values("lfts");
  std::vector<std::string> opts = a.values("opt");
  const long lmc = a.int_in("lmc", -1, 0, 7);  // -1: not given
  const bool switch_pairs = a.flag("switch-pairs");
  const std::string out = a.value_or("out", "-", "-o");
  const bool json = a.flag("json");
  const bool quiet = a.flag("quiet", "-q");
  const auto osm_timeout_text = a.value("opensm-timeout");
  const std::string ftsim = a.value_or("ftsim", "");
  const std::string keep_scratch = a.value_or("keep-scratch", "");
  cli::FabricArg fab = cli::fabric_options(a, true);
  auto pos = a.positionals();
  cli::fabric_positional(fab, pos, true);
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "' (one fabric)");
  if (!fab.gen.empty() && !lfts.empty()) throw cli::UsageError("--lfts needs the fabric as a file, not --gen");
  std::vector<std::string> opensm;
  if (opensm_opt) opensm = cli::usage_errors([&] { return campaign::opensm_compare_names(cli::split_list(*opensm_opt, ',')); });
  else if (!ftsim.empty() || !keep_scratch.empty() || osm_timeout_text)
    throw cli::UsageError("--ftsim, --keep-scratch and --opensm-timeout need --opensm");
  long osm_timeout = 120;
  if (osm_timeout_text) {
    char* end = nullptr;
    osm_timeout = std::strtol(osm_timeout_text->c_str(), &end, 10);
    if (osm_timeout_text->empty() || *end || osm_timeout < 5 || osm_timeout > 86400)
      throw cli::UsageError("--opensm-timeout " + *osm_timeout_text + " out of range (5..86400 seconds)");
  }
  campaign::CompareOptions co;
  for (const auto& spec : lfts) {  // NAME=FILE, LFTs dumped by OpenSM (opensm-lfts.dump) or ibroute
    auto eq = spec.find('=');
    if (eq == std::string::npos) throw cli::UsageError("--lfts expects NAME=FILE, got '" + spec + "'");
    co.lfts.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
  }
  cli::check_output_paths({out});
  if (!opensm.empty()) {
    if (std::string missing = campaign::opensm_sim_missing(ftsim); !missing.empty())
      throw Error("--opensm needs ibsim and OpenSM: " + missing);
  }

  if (engines_opt) {
    co.engines = campaign::split_engines(*engines_opt);  // NAME[k=v,..] entries keep their commas
  } else {
    for (const auto& e : engines())
      if (e.name != "lft-file") co.engines.push_back(e.name);  // it needs a file: that is --lfts
  }
  co.opts = opts;
  co.opensm = opensm;
  cli::usage_errors([&] { campaign::check_compare_options(co); });  // exit 2 before any work

  Fabric fabric = cli::load_fabric(
      fab, [&](const std::string& p) { return read_fabric_file(p, lmc >= 0 ? static_cast<uint8_t>(lmc) : 0); });
  if (lmc >= 0 || fabric.max_lid() == 0) fabric.assign_lids(lmc >= 0 ? static_cast<uint8_t>(lmc) : 0);
  co.fabric_path = fab.file;
  co.validate.switch_sources = switch_pairs;
  co.osm.timeout = static_cast<int>(osm_timeout);
  co.osm.ftsim_script = ftsim;
  co.osm.gen_spec = fab.gen;
  co.osm.comment = "ftroute compare " + fab.label();
  const campaign::CompareScratch scratch(keep_scratch, !opensm.empty());  // kept under --keep-scratch DIR
  scratch.apply(co.osm);
  if (!quiet)
    co.progress = [&](const std::string& e) {
      std::cerr << "compare: OpenSM engine " << e << " under ibsim (timeout " << osm_timeout << " s)" << std::endl;
    };

  const std::vector<EngineRow> rows = campaign::compare_engines(fabric, co);
  const campaign::Recommendation rec = campaign::recommend(rows, campaign::fabric_lmc(fabric));

  std::string text = "fabric " + fab.label() + ": " + std::to_string(fabric.switches().size()) + " switches, " +
                     std::to_string(fabric.cas().size()) + " CAs/routers, " + std::to_string(fabric.num_links()) +
                     " links, max LID " + std::to_string(fabric.max_lid()) +
                     (switch_pairs ? ", switches are sources too" : "") + "\n";
  int width = 16;  // the name column: the longest name, at least 16 (one table, aligned)
  for (const EngineRow& r : rows) width = std::max(width, static_cast<int>(std::min<size_t>(r.name.size(), 200)));
  text += pad("name", width) + " result unreachable  loops CDG      VLs  hops  max  EFI max  route CPU s\n";
  std::string notes;
  bool any_opensm = false;
  nlohmann::json jrows = nlohmann::json::array(), jrefused = nlohmann::json::array(), jfailed = nlohmann::json::array();
  for (const EngineRow& r : rows) {
    const bool osm = r.source == EngineRow::Source::Opensm;
    any_opensm = any_opensm || osm;
    if (r.status == "refused") {
      text += pad(r.name, width) + " REFUSED (OpenSM would fall back)\n";
      notes += "  refused " + r.name + ": " + escape_name(r.message) + "\n";
      jrefused.push_back({{"engine", r.name}, {"reason", r.message}});
      continue;
    }
    if (r.status != "ok") {
      text += pad(r.name, width) + " FAILED (OpenSM brought no subnet up)\n";
      notes += "  failed " + r.name + ": " + campaign::rejection_reasons(r)[0] + "\n";
      jfailed.push_back({{"engine", r.name}, {"reason", r.message}});
      continue;
    }
    text += row_text(r.name, r.report, r.seconds, width);
    if (r.source == EngineRow::Source::File) text += "   (from file)";
    if (osm) text += r.fallback ? "   (OpenSM fell back: " + r.conf_name() + " -> " + r.engine_used + ")" : "   (OpenSM)";
    text += "\n";
    nlohmann::json j = {{"name", r.name}};
    if (osm) {
      j["source"] = "opensm";
      j["route_cpu_seconds"] = nullptr;
      j["routing_step_seconds"] = r.seconds;
      j["engine_used"] = r.engine_used;
      j["fallback"] = r.fallback;
      j["note"] = r.message;
    } else {
      j["source"] = r.source == EngineRow::Source::File ? "file" : "engine";
      j["route_cpu_seconds"] = r.seconds;
    }
    j.update(cli::report_json(*r.fabric, r.report));
    if (r.source == EngineRow::Source::File) j["file"] = r.file;
    jrows.push_back(std::move(j));
  }
  text += notes;
  if (any_opensm)
    text += "  opensm:X rows: a real OpenSM under ibsim, its own LIDs (matched by port GUID), LFTs and SL2VL\n"
            "  from its dump, per-path SLs from its SA; time = wall s of its routing step\n";
  text += campaign::recommendation_text(rec, !opensm.empty());
  if (json) {
    nlohmann::json j = cli::json_doc("compare");
    j["fabric"] = cli::fabric_json(fabric);
    j["fabric"][fab.file.empty() ? "gen" : "file"] = fab.label();
    j["switch_sources"] = switch_pairs;
    j["rows"] = jrows;
    j["refused"] = jrefused;
    j["failed"] = jfailed;
    nlohmann::json passed = nlohmann::json::array(), rejected = nlohmann::json::array();
    for (const auto& p : rec.passed)
      passed.push_back({{"name", p.name}, {"routing_engine", p.conf_name}, {"ftroute", p.ftroute}, {"vls", p.vls},
                        {"efi_max", p.efi_max}, {"needs_qos", p.needs_qos}});
    for (const auto& [name, why] : rec.rejected) rejected.push_back({{"name", name}, {"reasons", why}});
    j["recommendation"] = {{"rule", campaign::kRankingRule},
                           {"best", rec.best.empty() ? nlohmann::json(nullptr) : nlohmann::json(rec.best)},
                           {"passed", passed},
                           {"rejected", rejected},
                           {"chain", rec.chain},
                           {"event_plugin_options", rec.plugin_options},
                           {"qos", !rec.qos_for.empty()},
                           {"lmc", rec.lmc},
                           {"builtin_minhop", rec.builtin_minhop},
                           {"opensm_conf", rec.conf},
                           {"opensm_checked", !opensm.empty()}};
    text = cli::dump_json(j);
  }
  cli::write_file_atomic(out, text);
  return 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(compare, "run ftroute's and OpenSM's engines on one fabric, check them, recommend one",
                   R"(usage: ftroute compare FABRIC.net [options]
       ftroute compare --gen SPEC [options]

Routes FABRIC (ibsim/ibnetdiscover .net or opensm-subnet.lst) with each engine and validates the
result like `ftroute check` (reachability, loops, CDG over (link, VL) with the routing's SLs, hops,
edge forwarding index). An engine that refuses the fabric is listed as REFUSED with its reason
(OpenSM would fall back to its next engine). With --opensm, OpenSM's own engines run on the same
fabric in a real OpenSM under ibsim (as `ftroute campaign` runs opensm:<engine>) and are checked
the same way; a row notes when OpenSM fell back to another engine (ftree -> minhop). LFT dumps of
other routings can be added with --lfts and are checked the same way.

After the table comes a recommendation: the best engine that passes every check (fewest VLs,
then lowest EFI max, then ftroute's engines before OpenSM's), the engines that do not pass and
why, and a checked fallback chain as opensm.conf lines to paste (`routing_engine`, and
`event_plugin_name`, `event_plugin_options`, `qos TRUE`, `lmc` where needed); docs/compare.md.

  FABRIC, -f, --fabric FILE   the fabric (positional or --fabric)
  --gen SPEC             a generated fabric instead (fattree:4,3, torus:4x4, ...; `ftroute gen --help`)
  --engines A,B,...      ftroute engines to run (default: every engine that computes a routing, see
                         `ftroute engines`; lft-file reads one: use --lfts); NAME[k=v,k=v] runs an
                         engine with options as a row of its own ('ftree-misroute,ftree-misroute[vls=2]')
  --opensm A,B,...       also run OpenSM's engines under ibsim (minhop, updn, dnup, ftree, lash, dor,
                         torus-2QoS, nue, dfsssp, sssp; an ftroute engine runs inside OpenSM through
                         libftroute.so). Needs ibsim, OpenSM and libumad2sim (exit 1 naming what is
                         missing); the SLs of dfsssp, lash, nue, torus-2QoS come from libftroute.so's
                         path-SL dump (else from the SA with ftroute-pathsl, one PathRecord per pair)
  --opensm-timeout S     seconds per OpenSM run (default 120)
  --ftsim PATH           scripts/ftsim.sh to use (default: $FTROUTE_FTSIM, else libexec/ftroute/ftsim.sh)
  --keep-scratch DIR     keep the ibsim/OpenSM work directories (logs, dumps) in DIR
  --lfts NAME=FILE       also check an LFT dump (repeatable); LIDs are matched by port GUID
  --opt [ENGINE:]K=V,..  engine options (repeatable); without ENGINE: for every engine
  --lmc N                (re)assign LIDs like OpenSM (switches first, CA ports LMC-aligned)
  --switch-pairs         switches are traffic sources too (SM/management traffic)
  -o, --out FILE         write the table to FILE (default stdout), atomically
  --json                 write JSON instead of the table (docs/JSON.md)
  -q, --quiet            no progress lines on stderr

examples:
  ftroute gen fattree --k 4 --n 3 --fail-links 3 --seed 1 --keep-connected -o f.net
  ftroute compare f.net --engines ftree-misroute,ft-minhop --switch-pairs
  ibnetdiscover > fabric.net
  ftroute compare fabric.net --opensm updn,ftree,minhop,dfsssp)",
                   run_compare);
