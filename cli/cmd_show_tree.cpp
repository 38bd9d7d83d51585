// `ftroute show-tree`: what ftree-misroute recognises in a fabric (ranks, leaves, sub-trees,
// upper-level hosts, aggregation nodes, missing cables) and, when it refuses the fabric, the rule
// that failed. The recognition and its description live with the engine (fattree.hpp).
#include <cstdio>

#include "cli.hpp"
#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/ftree_misroute/fattree.hpp"

namespace {

using namespace ftroute;

int run_show_tree(cli::Args& a) {
  const std::string root_file = a.value_or("root-guid-file", "");
  const std::string io_file = a.value_or("io-guid-file", "");
  const bool route = !a.flag("no-route");
  cli::FabricArg fab = cli::fabric_options(a, true);
  auto pos = a.positionals();
  cli::fabric_positional(fab, pos, true);
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "' (one fabric)");
  RankHints hints;
  if (!root_file.empty()) hints.root_guids = read_guid_file(root_file);
  if (!io_file.empty()) hints.io_guids = read_guid_file(io_file);
  Fabric f = cli::load_fabric(fab, [](const std::string& p) { return read_net_file(p); });
  if (f.max_lid() == 0) f.assign_lids();
  FatTree t;
  std::string refused;
  try {
    t = recognize_fat_tree(f, "ftree-misroute", hints, &t);
  } catch (const EngineError& e) {
    refused = e.what();
  }
  std::printf("fabric: %s: %zu switches, %zu CAs/routers\n", escape_name(fab.label()).c_str(), f.switches().size(), f.cas().size());
  std::fputs(explain_fat_tree(f, t).c_str(), stdout);
  if (refused.empty() && route) {
    // The recognition passed: does the routing (U-turn placement, deadlock check) pass too?
    EngineOptions o;
    if (!root_file.empty()) o.set("root_guid_file", root_file);
    if (!io_file.empty()) o.set("io_guid_file", io_file);
    try {
      Routing r = make_engine("ftree-misroute")->route(f, o, {});
      std::printf("verdict: ftree-misroute routes this fabric on %d VL\n", r.num_vls);
      for (const auto& n : r.notes) std::printf("  %s\n", n.c_str());
    } catch (const Error& e) {
      refused = e.what();
    }
  }
  if (!refused.empty()) {
    std::printf("verdict: refused: %s\n", refused.c_str());
    std::printf("  (try `ftroute compare FABRIC` for an engine that routes it)\n");
    return 1;
  }
  return 0;
}

}  // namespace

// (FTROUTE_SUBCOMMAND cannot take a dash in the name)
static ::ftroute::cli::Registrar ftroute_subcommand_show_tree("show-tree", "show what ftree-misroute recognises in a fabric, and why it refuses one",
                   R"(usage: ftroute show-tree FABRIC [--root-guid-file F] [--io-guid-file F] [--no-route]

Prints the fat tree ftree-misroute recognises in FABRIC (a .net or ibnetdiscover file, or
--gen SPEC): per rank the switches, those with CA ports and their cable counts, the sub-trees
(pods), hosts on upper levels (storage, management), SHARP aggregation nodes, and switches with
fewer up-cables than their rank's widest (missing cables). Then it routes the fabric with
ftree-misroute (unless --no-route) and prints the verdict; on a refusal it names the rule that
failed, with the switch and port. Exit 0 when ftree-misroute routes the fabric, 1 when it refuses.

  --root-guid-file F   node GUIDs of the top switches (as OpenSM's root_guid_file)
  --io-guid-file F     CA GUIDs of I/O nodes that do not make their switch a leaf (io_guid_file)
  --no-route           recognition only

Example: ftroute show-tree fabric.txt)",
                   run_show_tree);
