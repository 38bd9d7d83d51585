// `ftroute route`: run a routing engine offline on a .net fabric and write the LFTs in a format
// OpenSM's file engine loads (`routing_engine file` + `lfts_file`), plus optional path-SL and
// SL2VL files. `ftroute engines`: list the engines and their options.
//
// The engine code, the option handling and the result validation are exactly what the OpenSM
// plugin runs (the routing pipeline, ftroute/pipeline.hpp), so offline and online results agree
// for the same fabric and LIDs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "ftroute/atomic_file.hpp"
#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/engine_option_text.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/opensm_run.hpp"

namespace {

using namespace ftroute;

// An engine name that is not ftroute's is a usage error (exit 2), with the way to run OpenSM's.
void check_engine_name(const std::string& name) {
  if (find_engine(name)) return;
  std::string known;
  for (const auto& e : engines()) known += (known.empty() ? "" : ", ") + e.name;
  const auto& osm = campaign::opensm_engine_names();  // OpenSM's own (`routing_engine` names)
  if (name == "file" || std::find(osm.begin(), osm.end(), name) != osm.end())
    throw cli::UsageError("'" + name + "' is an OpenSM engine, not an ftroute one: run it inside OpenSM with `ftroute " +
                          "compare --opensm " + name + " FABRIC` or `ftroute campaign --engines opensm:" + name +
                          " ...` (ftroute's engines: " + known + ")");
  throw cli::UsageError("unknown engine '" + name + "' (ftroute's engines: " + known + "; `ftroute engines` lists them)");
}

int run_route(cli::Args& a) {
  const std::string engine_name = a.value_or("engine", "", "-e");
  const std::string out = a.value_or("out", "", "-o");
  const long lmc = a.int_in("lmc", -1, 0, 7);  // -1: not given
  const std::vector<std::string> opts = a.values("opt");
  const std::string sl_out = a.value_or("sl-out", "");
  const std::string sl2vl_out = a.value_or("sl2vl-out", "");
  const std::string fmt_name = a.value_or("format", "opensm");
  const bool sl_sparse = a.flag("sl-sparse");
  const bool json = a.flag("json");
  const bool quiet = a.flag("quiet", "-q");
  cli::FabricArg fab = cli::fabric_options(a, true);
  auto pos = a.positionals();
  if (engine_name.empty()) throw cli::UsageError("--engine NAME is required (see `ftroute engines`)");
  check_engine_name(engine_name);
  if (out.empty()) throw cli::UsageError("-o FILE is required ('-' for stdout)");
  if (json && (out == "-" || sl_out == "-" || sl2vl_out == "-"))
    throw cli::UsageError("--json writes the summary to stdout: give -o/--sl-out/--sl2vl-out a file");
  cli::fabric_positional(fab, pos, true);
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "' (one fabric)");
  auto fmt = parse_lft_format(fmt_name);
  if (!fmt || *fmt == LftFormat::Auto)
    throw cli::UsageError("--format must be opensm, dump_fts or minimal, got '" + fmt_name + "'");
  cli::check_output_paths({out, sl_out, sl2vl_out});  // before any work: all or none is written

  std::string opt_text;  // as given (the JSON summary's "options")
  for (const auto& o : opts) opt_text += (opt_text.empty() ? "" : ",") + o;
  // [ENGINE:]k=v, as compare, campaign and the plugin take them; another engine's option, an
  // unknown key or a value out of range is a usage error (exit 2), found before any work
  RoutingPipeline pipeline =
      cli::usage_errors([&] { return RoutingPipeline(engine_name, engine_options_for(engine_name, opts, true)); });

  Fabric fabric = cli::load_fabric(fab, [](const std::string& p) { return read_net_file(p); });
  if (lmc >= 0) {
    fabric.assign_lids(static_cast<uint8_t>(lmc));  // OpenSM-like numbering, replaces file LIDs
  } else if (fabric.max_lid() == 0) {
    fabric.assign_lids(0);
  } else {
    fabric.require_file_lids(fab.label());  // the file's LIDs (ibnetdiscover output carries OpenSM's)
  }
  fabric.validate();

  const RoutedStep step = pipeline.run(fabric);
  const RoutedStep* snap = &step;
  const Fabric& f = fabric;
  const Routing& r = step.routing;

  // Stream every file into its temp file first, publish them only when all are complete: a
  // failure leaves no output at all, and no file exists in memory as a whole.
  std::optional<AtomicFile> lft_file, sl_file, sl2vl_file;
  lft_file.emplace(out);
  if (std::getenv("FTROUTE_SLOW_LFT_WRITER")) {
    // bench_scale's baseline: the whole-file string writer this command used before streaming
    lft_file->write(write_lft_file(make_lft_file(f, r.lfts, *fmt)));
  } else {
    TextOut o(lft_file->sink());
    write_lfts(f, r.lfts, *fmt, o);
    o.flush();
  }
  if (!sl_out.empty()) {
    sl_file.emplace(sl_out);
    TextOut o(sl_file->sink());
    PathSlWriteOptions po;  // every pair ibdmchk (-a) traces, SL 0 included, unless --sl-sparse
    po.all_pairs = !sl_sparse;
    po.switch_sources = !sl_sparse;
    write_path_sl(f, r, o, po);
    o.flush();
  }
  if (!sl2vl_out.empty()) {
    sl2vl_file.emplace(sl2vl_out);
    TextOut o(sl2vl_file->sink());
    write_sl2vl(f, r.sl2vl, o);
    o.flush();
  }
  lft_file->commit();
  if (sl_file) sl_file->commit();
  if (sl2vl_file) sl2vl_file->commit();

  if (json) {
    nlohmann::json j = cli::json_doc("route");
    j["engine"] = engine_name;
    j["fabric"] = cli::fabric_json(f);
    j["fabric"][fab.file.empty() ? "gen" : "file"] = fab.label();
    j["options"] = opt_text;
    j["switches"] = snap->switches;
    j["lids"] = snap->lids;
    j["lft_entries"] = snap->entries;
    j["vls"] = r.num_vls;
    j["route_ms"] = snap->millis;
    j["notes"] = r.notes;
    j["outputs"] = {{"lfts", out}, {"format", fmt_name},
                    {"sl", sl_out.empty() ? nlohmann::json() : nlohmann::json(sl_out)},
                    {"sl2vl", sl2vl_out.empty() ? nlohmann::json() : nlohmann::json(sl2vl_out)}};
    j["needs_qos"] = r.num_vls > 1;
    std::fputs(cli::dump_json(j).c_str(), stdout);
  }
  if (!sl_out.empty() && !quiet)  // docs/PLUGIN.md "Deploying a routing computed offline"
    std::fprintf(stderr,
                 "%s: note: OpenSM's file engine loads only LFTs; path SLs need the ftroute plugin "
                 "(routing_engine lft-file, event_plugin_options lft-file:file=LFTS,sl=SLS,sl2vl=SL2VL; "
                 "docs/PLUGIN.md)\n",
                 engine_name.c_str());
  if (!json && !quiet) {
    std::fprintf(stderr, "%s: %d switches, %d LIDs, %ld LFT entries, %d VL(s), %.2f ms\n", engine_name.c_str(),
                 snap->switches, snap->lids, snap->entries, r.num_vls, snap->millis);
    for (const auto& n : r.notes)  // (a note may name its engine already: "ftdrb: 18 destinations, ...")
      std::fprintf(stderr, "%s%s\n", n.rfind(engine_name + ": ", 0) == 0 ? "" : (engine_name + ": ").c_str(), n.c_str());
    if (r.num_vls > 1)
      std::fprintf(stderr,
                   "%s: note: this routing needs %d VLs: it is deadlock-free only with its path SLs and SL2VL "
                   "tables, i.e. through the ftroute plugin with `qos TRUE` (docs/PLUGIN.md)\n",
                   engine_name.c_str(), r.num_vls);
  }
  return 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(route, "route a .net fabric offline with an engine, write LFTs for OpenSM",
                   R"(usage: ftroute route --engine NAME FABRIC.net -o LFTS [options]
       ftroute route --engine NAME --gen SPEC -o LFTS [options]

Runs the routing engine NAME (see `ftroute engines`) on FABRIC.net (ibsim or ibnetdiscover
format) with the same code and checks the OpenSM plugin uses, and writes the LFTs.

  FABRIC, -f, --fabric FILE   the fabric (.net file; positional or --fabric)
  --gen SPEC             a generated fabric instead (fattree:4,3, torus:4x4, ...; `ftroute gen --help`)
  -e, --engine NAME      routing engine (required)
  -o, --out FILE         LFT output ('-' = stdout), written atomically
  --format F             opensm (default: opensm-lfts.dump, loadable by OpenSM's file engine:
                         `routing_engine file` + `lfts_file FILE`), dump_fts, minimal
  --lmc N                (re)assign LIDs like OpenSM: switches first, CA ports LMC-aligned.
                         Without it the LIDs in the file are used (ibnetdiscover output carries
                         OpenSM's), or 1.. with LMC 0 when the file has none.
  --opt [ENGINE:]K=V[,K=V...]  engine options (repeatable; `ftroute engines` lists them); unknown
                         keys are an error, and so is an ENGINE: other than --engine
  --sl-out FILE          path SLs (ibdmchk -c format: src node GUID, DLID, SL), one line per
                         source node (CAs and switches) and DLID, SL 0 included: every pair
                         `ibdmchk -a` traces (docs/ibdmchk.md). OpenSM's file engine cannot load
                         them: deploy them with the plugin's lft-file engine (docs/PLUGIN.md)
  --sl-sparse            write only the pairs with SL != 0 (smaller; ftroute reads missing
                         pairs as SL 0, ibdmchk does not)
  --sl2vl-out FILE       SL-to-VL tables (ibdmchk -d format)
  -q, --quiet            no summary on stderr
  --json                 the summary as JSON on stdout (docs/JSON.md)

Example:
  ftroute route --engine ft-minhop fabric.net -o opensm-lfts.dump --lmc 1
  opensm -R file -U opensm-lfts.dump ...)",
                   run_route);

