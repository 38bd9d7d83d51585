// ftroute compare: run several routing engines (and/or load LFT dumps, e.g. from OpenSM's ftree,
// updn, dfsssp or minhop under ibsim) on one fabric and tabulate the validators' verdicts.
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

namespace {

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}


std::string row(const std::string& name, const ValidationReport& r, double secs) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-16s %-6s %11llu %6llu %-8s %3zu %6.2f %4d %8llu %9.3f", name.c_str(),
                r.ok() ? "PASS" : "FAIL", static_cast<unsigned long long>(r.unreachable),
                static_cast<unsigned long long>(r.looping),
                !r.deadlock_checked ? "-" : (r.cdg_acyclic ? "acyclic" : "CYCLE"), r.vls_used.size(), r.hops_avg,
                r.hops_max, static_cast<unsigned long long>(r.efi_max), secs);
  return buf;
}

int run_compare(cli::Args& a) {
  auto engines_opt = a.value("engines");
  if (auto one = a.value("engine", "-e"))  // route's spelling: compare takes a list
    throw cli::UsageError("unknown option '--engine': compare runs a list of engines, use --engines " + *one +
                          "[,NAME...]");
  std::vector<std::string> lfts = a.values("lfts");
  std::vector<std::string> opts = a.values("opt");
  const long lmc = a.int_or("lmc", -1);
  const bool switch_pairs = a.flag("switch-pairs");
  const std::string out = a.value_or("out", "-", "-o");
  const bool json = a.flag("json");
  cli::FabricArg fab = cli::fabric_options(a, true);
  auto pos = a.positionals();
  cli::fabric_positional(fab, pos, true);
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "' (one fabric)");
  if (!fab.gen.empty() && !lfts.empty()) throw cli::UsageError("--lfts needs the fabric as a file, not --gen");
  if (lmc < -1 || lmc > 7) throw cli::UsageError("--lmc must be 0..7");
  cli::check_output_paths({out});

  Fabric fabric = cli::load_fabric(
      fab, [&](const std::string& p) { return read_fabric_file(p, lmc >= 0 ? static_cast<uint8_t>(lmc) : 0); });
  if (lmc >= 0 || fabric.max_lid() == 0) fabric.assign_lids(lmc >= 0 ? static_cast<uint8_t>(lmc) : 0);

  std::vector<std::string> names;
  if (engines_opt) {
    names = cli::split_list(*engines_opt, ',');
  } else {
    for (const auto& e : engines())
      if (e.name != "lft-file") names.push_back(e.name);  // it needs a file: that is --lfts
  }
  ValidateOptions vo;
  vo.switch_sources = switch_pairs;

  std::string text = "fabric " + fab.label() + ": " + std::to_string(fabric.switches().size()) + " switches, " +
                     std::to_string(fabric.cas().size()) + " CAs/routers, " + std::to_string(fabric.num_links()) +
                     " links, max LID " + std::to_string(fabric.max_lid()) +
                     (switch_pairs ? ", switches are sources too" : "") + "\n";
  text += "name             result unreachable  loops CDG      VLs  hops  max  EFI max  route CPU s\n";
  std::vector<std::string> refused;
  nlohmann::json jrows = nlohmann::json::array(), jrefused = nlohmann::json::array();
  auto jrow = [&](const std::string& name, const char* source, const Fabric& f, const ValidationReport& r, double secs) {
    nlohmann::json j = {{"name", name}, {"source", source}, {"route_cpu_seconds", secs}};
    j.update(cli::report_json(f, r));
    jrows.push_back(std::move(j));
  };
  for (const auto& name : names) {
    EngineOptions eo;
    for (const auto& o : opts) {  // --opt engine:k=v[,k=v] or k=v for every engine
      auto colon = o.find(':');
      if (colon != std::string::npos && o.find('=') > colon) {
        if (o.substr(0, colon) != name) continue;
        EngineOptions parsed = EngineOptions::parse(o.substr(colon + 1));
        for (const auto& [k, v] : parsed.all()) eo.set(k, v);
      } else {
        EngineOptions parsed = EngineOptions::parse(o);
        for (const auto& [k, v] : parsed.all()) eo.set(k, v);
      }
    }
    auto engine = make_engine(name);  // unknown name: OptionError
    double t0 = cpu_now();
    try {
      Routing r = engine->route(fabric, eo);
      double secs = cpu_now() - t0;
      ValidationReport rep = validate(fabric, r, vo);
      text += row(name, rep, secs) + "\n";
      jrow(name, "engine", fabric, rep, secs);
    } catch (const EngineError& e) {
      text += name + std::string(16 - std::min<size_t>(16, name.size()), ' ') + " REFUSED (OpenSM would fall back)\n";
      refused.push_back(name + ": " + e.reason());
      jrefused.push_back({{"engine", name}, {"reason", e.reason()}});
    }
  }
  for (const auto& spec : lfts) {  // NAME=FILE, LFTs dumped by OpenSM (opensm-lfts.dump) or ibroute
    auto eq = spec.find('=');
    if (eq == std::string::npos) throw cli::UsageError("--lfts expects NAME=FILE, got '" + spec + "'");
    LoadedRouting lr = load_routing(fab.file, spec.substr(eq + 1));
    ValidationReport rep = validate(lr.fabric, lr.routing, vo);
    text += row(spec.substr(0, eq), rep, 0.0) + "   (from file)\n";
    jrow(spec.substr(0, eq), "file", lr.fabric, rep, 0.0);
    jrows.back()["file"] = spec.substr(eq + 1);
  }
  for (const auto& r : refused) text += "  refused " + r + "\n";
  if (json) {
    nlohmann::json j = cli::json_doc("compare");
    j["fabric"] = cli::fabric_json(fabric);
    j["fabric"][fab.file.empty() ? "gen" : "file"] = fab.label();
    j["switch_sources"] = switch_pairs;
    j["rows"] = jrows;
    j["refused"] = jrefused;
    text = cli::dump_json(j);
  }
  cli::write_file_atomic(out, text);
  return 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(compare, "run several engines / LFT dumps on one fabric and compare the checks",
                   R"(usage: ftroute compare FABRIC.net [options]
       ftroute compare --gen SPEC [options]

Routes FABRIC (ibsim/ibnetdiscover .net or opensm-subnet.lst) with each engine and validates the
result like `ftroute check` (reachability, loops, CDG over (link, VL), hops, edge forwarding
index). An engine that refuses the fabric is listed as REFUSED with its reason (OpenSM would fall
back to its next engine). LFT dumps of other routings (e.g. OpenSM's ftree, updn, dfsssp, minhop
run under ibsim: opensm-lfts.dump) can be added with --lfts and are checked the same way.

  FABRIC, -f, --fabric FILE   the fabric (positional or --fabric)
  --gen SPEC             a generated fabric instead (fattree:4,3, torus:4x4, ...; `ftroute gen --help`)
  --engines A,B,...      engines to run (default: every engine that computes a routing, see
                         `ftroute engines`; lft-file reads one: use --lfts)
  --lfts NAME=FILE       also check an LFT dump (repeatable); LIDs are matched by port GUID
  --opt [ENGINE:]K=V,..  engine options (repeatable); without ENGINE: for every engine
  --lmc N                (re)assign LIDs like OpenSM (switches first, CA ports LMC-aligned)
  --switch-pairs         switches are traffic sources too (SM/management traffic)
  -o, --out FILE         write the table to FILE (default stdout), atomically
  --json                 write JSON instead of the table (docs/JSON.md)

example:
  ftroute gen fattree --k 4 --n 3 --fail-links 3 --seed 1 --keep-connected -o f.net
  ftroute compare f.net --engines ftree-misroute,ft-minhop --switch-pairs)",
                   run_compare);
