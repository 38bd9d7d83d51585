// `ftroute check`: validate LFTs (OpenSM dump or dump_fts/ibroute output) against a fabric.
#include <cstdio>

#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/fabric_svg.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/validate.hpp"

namespace {

using namespace ftroute;

int run_check(cli::Args& a) {
  cli::FabricArg fab = cli::fabric_options(a, false);
  const std::string lfts = a.value_or("lfts", "", "-l");
  const std::string fmt_name = a.value_or("format", "auto");
  const std::string sl = a.value_or("sl", "");
  const std::string sl2vl = a.value_or("sl2vl", "");
  const long lmc = a.int_in("lmc", 0, 0, 7);
  const long examples = a.int_or("examples", 5);
  const std::string pairs = a.value_or("pairs", "");
  bool switch_pairs = a.flag("switch-pairs");
  bool ca_only = a.flag("ca-only");
  bool all_lids = a.flag("all-source-lids");
  const bool lids_from_file = a.flag("lids-from-file");
  const bool no_deadlock = a.flag("no-deadlock");
  const bool efi_links = a.flag("efi-links");
  const bool quiet = a.flag("quiet", "-q");
  const bool json = a.flag("json");
  const std::string svg = a.value_or("svg", "");
  const std::string engine = a.value_or("engine", "");
  auto pos = a.positionals();
  cli::fabric_positional(fab, pos, false);
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "'");
  const std::string& fabric = fab.file;
  if (lfts.empty()) throw cli::UsageError("--lfts FILE is required");
  if (svg == "-" && (json || !quiet)) throw cli::UsageError("--svg - (stdout) needs --quiet and no --json");
  if (!engine.empty() && svg.empty()) throw cli::UsageError("--engine names the engine in the --svg caption: give --svg FILE");
  auto fmt = parse_lft_format(fmt_name);
  if (!fmt || *fmt == LftFormat::Minimal)
    throw cli::UsageError("--format must be auto, opensm or dump_fts, got '" + fmt_name + "'");
  if (examples < 0) throw cli::UsageError("--examples must be >= 0");
  if (switch_pairs && ca_only) throw cli::UsageError("--switch-pairs and --ca-only exclude each other");
  if (!pairs.empty()) {
    // ibdmchk's credit-loop pair sets (ibdm CrdLoopConnectUcastDepend, docs/ibdmchk.md):
    //   ibdmchk    every LID of every CA port to every LID of every other CA port
    //   ibdmchk-a  the same over CA and switch ports (ibdmchk -a)
    if (switch_pairs || ca_only || all_lids)
      throw cli::UsageError("--pairs replaces --switch-pairs, --ca-only and --all-source-lids");
    if (pairs == "ibdmchk") {
      ca_only = true;
      all_lids = true;
    } else if (pairs == "ibdmchk-a") {
      switch_pairs = true;
      all_lids = true;
    } else if (pairs != "default") {
      throw cli::UsageError("--pairs must be default, ibdmchk or ibdmchk-a, got '" + pairs + "'");
    }
  }
  cli::check_output_paths({svg});  // before any work: no partial output

  LoadedRouting lr = load_routing(fabric, lfts, *fmt, sl, sl2vl, lids_from_file, static_cast<uint8_t>(lmc));
  ValidateOptions o;
  o.switch_sources = switch_pairs;
  o.switch_destinations = !ca_only;
  o.all_source_lids = all_lids;
  o.check_deadlock = !no_deadlock;
  o.max_examples = static_cast<int>(examples);
  ValidationReport rep = validate(lr.fabric, lr.routing, o);
  rep.warnings.insert(rep.warnings.begin(), lr.warnings.begin(), lr.warnings.end());
  if (lr.lids_from_file) rep.warnings.insert(rep.warnings.begin(), "LIDs taken from the portguid comments of " + lfts);
  if (!svg.empty()) {
    FabricSvgOptions so;
    so.fabric_name = fabric;
    so.lfts_name = lfts;
    so.engine = engine;
    cli::write_file_atomic(svg, fabric_svg(lr.fabric, rep, tree_levels(lr.fabric), so));
  }
  if (json) {
    nlohmann::json j = cli::json_doc("check");
    j["fabric"] = cli::fabric_json(lr.fabric);
    j["fabric"]["file"] = fabric;
    j["lfts"] = lfts;
    j["pairs_set"] = pairs.empty() ? "default" : pairs;
    j.update(cli::report_json(lr.fabric, rep));
    if (efi_links) {
      nlohmann::json links = nlohmann::json::array();
      for (const auto& l : rep.switch_link_loads) {
        const Port& p = lr.fabric.node(l.node).port(l.port);
        links.push_back({{"from", lr.fabric.port_name(l.node, l.port)},
                         {"to", lr.fabric.port_name(p.peer_node, p.peer_port)}, {"routes", l.routes}});
      }
      j["efi"]["links"] = links;
    }
    std::fputs(cli::dump_json(j).c_str(), stdout);
  } else if (!quiet) {
    std::fputs(format_report(lr.fabric, rep).c_str(), stdout);
    if (efi_links) {
      std::printf("routes per directed switch link:\n");
      for (const auto& l : rep.switch_link_loads) {
        const Port& p = lr.fabric.node(l.node).port(l.port);
        std::printf("  %s -> %s  %llu\n", lr.fabric.port_name(l.node, l.port).c_str(),
                    lr.fabric.port_name(p.peer_node, p.peer_port).c_str(), static_cast<unsigned long long>(l.routes));
      }
    }
    std::printf("checked in %.3f s\n", rep.seconds);
  }
  return rep.ok() ? 0 : 1;
}

}  // namespace

FTROUTE_SUBCOMMAND(check, "validate LFTs: reachability, loops, bad entries, deadlock (CDG), EFI",
                   R"(usage: ftroute check [--fabric] FABRIC --lfts FILE [options]

Reads the LFTs in FILE (OpenSM's opensm-lfts.dump, or dump_fts / ibroute output), maps them onto
FABRIC by switch GUID (falling back to the node description) and checks them:
  reachability   every source reaches every destination LID (LMC ranges included)
  loops          no route revisits a switch/port state
  LFT entries    no entry names a missing port or a port without link
  deadlock       the channel dependency graph over (link, VL) is acyclic (one cycle is shown)
and reports hop counts and the edge forwarding index (routes per directed switch link).
Exit status: 0 if every check passes, 1 if one fails (or on errors), 2 on usage errors.

  -f, --fabric FILE      ibsim/ibnetdiscover .net file, or OpenSM's opensm-subnet.lst (or positional)
  -l, --lfts FILE        LFTs to check
  --format F             auto (default), opensm, dump_fts (ibroute output is dump_fts format)
  --sl FILE              path SLs (ibdmchk -c format: src_node_guid dlid sl); default SL 0
  --sl2vl FILE           SL-to-VL tables (ibdmchk -d format or OpenSM's opensm-sl2vl.dump);
                         default identity
  --pairs SET            which source/destination pairs to walk:
                           default    CA base LIDs -> every LID (CA and switch)
                           ibdmchk    every CA LID -> every LID of the other CA ports: the
                                      pairs `ibdmchk` checks for credit loops
                           ibdmchk-a  the same over CA and switch LIDs (`ibdmchk -a`)
                         (side by side with ibdmchk: docs/ibdmchk.md)
  --switch-pairs         switches are sources too (like ibdmchk -a)
  --ca-only              only CA-to-CA pairs (no switch LIDs as destinations; ibdmchk's default)
  --all-source-lids      every LID of an LMC range as a source (matters with --sl)
  --lids-from-file       take LIDs from the LFT file's portguid comments even if FABRIC has LIDs
                         (done automatically when FABRIC has none)
  --lmc N                LMC of the CA ports when FABRIC is an opensm-subnet.lst
  --no-deadlock          skip the CDG check
  --efi-links            also list the routes on every directed switch link
  --examples N           named examples per failed check (default 5)
  -q, --quiet            no report, exit status only
  --json                 the report as JSON on stdout (docs/JSON.md), same exit status
  --svg FILE             also draw the fabric (docs/check.md): switches by tree level (the fat tree
                         ftree-misroute recognises, else BFS levels from the CA-attached switches),
                         every switch cable coloured and thickened by its routes (EFI), missing
                         cables, cables without routes and the hottest link marked, CAs counted
                         per switch; written also when a check fails (render: rsvg-convert)
  --engine NAME          the engine that computed the LFTs, for the --svg caption

Pairs: sources are CA/router ports (base LID), destinations every LID of every end port
including switch LIDs (a credit loop through traffic to a switch LID is still a credit loop).

Example:
  ftroute check --fabric fabric.net --lfts opensm-lfts.dump
  dump_fts > fts.txt && ftroute check -f fabric.net -l fts.txt --format dump_fts
  ftroute check -f fabric.net -l lfts.dump --svg fabric.svg && rsvg-convert fabric.svg -o fabric.png)",
                   run_check);
