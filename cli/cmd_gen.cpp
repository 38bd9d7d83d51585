// `ftroute gen <kind> [options] -o file.net`: topology generators + fault injection -> ibsim .net.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/port_ref.hpp"

namespace ftroute::cli {
namespace {

// The kinds, their parameters and generators are the one table of ibsim_topologies/fabric_spec.cpp
// (topo::fabric_kinds()); `gen` takes SPEC (fattree:4,3) or the legacy KIND --PARAM V .. spelling,
// which becomes KIND:PARAM=V,.. (the same parser, so both give the same bytes).

const char* kFaultHelp =
    "fault options (every kind):\n"
    "  --remove-link '\"NODE\"[P]'  remove the link at that port (repeatable; ibsim's console syntax,\n"
    "                             the older NODE[P] works too)\n"
    "  --fail-switches N          fail N random switches (their hosts go with them)\n"
    "  --fail-links N             fail N random switch-to-switch links\n"
    "  --host-links               random link faults may also hit host links\n"
    "  --seed S                   random seed (default 1); same seed -> same faults\n"
    "  --keep-connected           redraw faults that would disconnect the fabric\n"
    "output:\n"
    "  -o FILE                    output .net file ('-' = stdout), written atomically\n";

const std::string& help_text() {
  static const std::string h = [] {
    std::string s =
        "usage: ftroute gen SPEC [fault options] -o FILE.net\n"
        "       ftroute gen KIND --PARAM V .. [fault options] -o FILE.net   (legacy spelling of the same)\n"
        "       ftroute gen shipped -o DIR     (re)write every shipped file of ibsim_topologies/nets\n\n"
        "Writes an ibsim-loadable .net file (load with: ibsim -s FILE.net). GUIDs are ibsim's defaults; a ctree with\n"
        "chassisguid=shared is written as ibnetdiscover shows such chassis (switchguid=0xCHASSIS(GUID)), which\n"
        "ibsim refuses: `ftroute export FILE --to ibsim -o FILE2` writes one it loads.\n\n"
        "SPEC is KIND:ARGS, the fabric spec every command takes (campaign --gen, route/compare/sim --gen,\n"
        "ftdrb-eval --topos): positional values, then KEY=V items, KEY = a parameter below without '--'\n"
        "(fattree:4,3  torus:4x4x4,2  mesh:8x8,hosts=2  kns:4,2,p=2  ctree:leaves=8,hosts=4/4/0/2):\n";
    s += topo::fabric_spec_summary();
    s += "\nkinds and their parameters (KEY=V in SPEC, or --KEY V):\n";
    for (const auto& k : topo::fabric_kinds()) s += std::string(k.name) + ": " + k.summary + "\n" + k.help + "\n";
    s += "\nctree presets (ctree:preset=NAME; keys given beside it override the preset's, e.g. preset=hdr-3tier,an=0):\n";
    for (const auto& p : topo::cluster_tree_presets()) {
      s += "  " + std::string(p.name) + " = " + p.spec + "\n";
      std::string line = "     ";  // the summary, wrapped at 100 characters
      for (const std::string& w : split_list(p.summary, ' ')) {
        if (line.size() + 1 + w.size() > 100) {
          s += line + "\n";
          line = "     ";
        }
        line += " " + w;
      }
      s += line + "\n";
    }
    s += kFaultHelp;
    s += "\nexamples:\n"
         "  ftroute gen fattree:4,3 -o 4ary3tree.net        (= ftroute gen fattree --k 4 --n 3 -o ..)\n"
         "  ftroute gen fattree:4,3 --fail-links 3 --seed 7 --keep-connected -o f3.net\n"
         "  ftroute gen torus:4x4x4 -o t.net\n"
         "  ftroute gen fattree2 --remove-link '\"L0\"[19]' -o ft648_f1.net\n"
         "  ftroute gen ctree:leaves=8,spines=4,hosts=4/4/0/2,links=2,dual=1 -o cluster.net\n"
         "  ftroute gen ctree:pods=4*3,aggs=4,links=2,corelinks=2,storage=1,an=1,missing=3,seed=7 -o real.net\n"
         "  ftroute gen ctree:preset=hdr-mcs8500 -o mcs.net && ftroute export mcs.net --to ibsim -o mcs-ibsim.net\n"
         "ctree's seed= (the seed of missing=) is given in SPEC; --seed is the seed of the fault options.";
    return s;
  }();
  return h;
}

int run_gen(Args& a) {
  // find the kind: consume every known option on a copy, the first positional is the kind
  std::string kind;
  {
    Args probe = a;
    for (const auto& k : topo::fabric_kinds())
      for (const auto& o : k.params) probe.values(o);
    probe.values("spec");
    for (const char* o : {"remove-link", "fail-switches", "fail-links", "seed", "o"}) probe.values(o, std::string(o) == "o" ? "-o" : "");
    probe.flag("host-links");
    probe.flag("keep-connected");
    auto pos = probe.positionals();
    if (pos.empty()) throw UsageError("missing the fabric SPEC (e.g. fattree:4,3)");
    if (pos.size() > 1) throw UsageError("unexpected argument '" + pos[1] + "'");
    kind = pos[0];
  }
  auto out = a.value("o", "-o");
  if (!out) throw UsageError("missing -o FILE");
  if (kind == "shipped") check_output_dir(*out);
  else check_output_paths({*out});  // before building anything

  if (kind == "shipped") {
    if (a.positionals().size() != 1) throw UsageError("unexpected arguments");
    std::filesystem::create_directories(*out);
    for (const auto& n : topo::shipped_nets()) {
      write_file_atomic((std::filesystem::path(*out) / n.file).string(), topo::shipped_net_text(n));
      std::printf("wrote %s\n", (std::filesystem::path(*out) / n.file).string().c_str());
    }
    return 0;
  }

  // SPEC, or legacy KIND with --PARAM V options: one spec text "KIND:ARGS,PARAM=V,.."
  std::string spec = kind;
  if (kind.find(':') == std::string::npos) {
    if (!topo::find_fabric_kind(kind)) topo::parse_fabric_spec(kind);  // throws: unknown kind (or legacy name)
    spec = topo::legacy_fabric_spec(kind).empty() ? kind + ":" : topo::legacy_fabric_spec(kind);
  }
  topo::SpecArgs sa = topo::parse_fabric_spec(spec);
  kind = sa.kind;
  const topo::FabricKind& k = *topo::find_fabric_kind(kind);
  std::string legacy;
  if (auto v = a.value("spec")) {  // ctree's KEY=V,.. text, xgft's list
    if (kind != "ctree" && kind != "xgft")
      throw UsageError("--spec is for ctree and xgft (" + kind + " takes " + kind + ":" + k.grammar + ")");
    legacy += "," + *v;
  }
  for (const auto& p : k.params)
    if (p != "spec" && p != "seed")  // --seed is the fault option; ctree's seed= (of missing=) goes in SPEC
      if (auto v = a.value(p)) legacy += "," + p + "=" + *v;
  if (!legacy.empty()) {
    spec += (spec.back() == ':' ? legacy.substr(1) : legacy);
    sa = topo::parse_fabric_spec(spec);
  }
  topo::FaultSpec fs;
  fs.remove_links = a.values("remove-link");
  for (const auto& r : fs.remove_links) {  // the port syntax, before any work (port_ref.hpp)
    try {
      parse_port_ref(r);
    } catch (const OptionError& e) {
      throw UsageError(std::string("--remove-link: ") + e.what());
    }
  }
  fs.random_switches = static_cast<int>(a.int_or("fail-switches", 0));
  fs.random_links = static_cast<int>(a.int_or("fail-links", 0));
  fs.seed = static_cast<uint64_t>(a.int_or("seed", 1));
  fs.keep_connected = a.flag("keep-connected");
  fs.host_links = a.flag("host-links");
  if (fs.random_switches < 0 || fs.random_links < 0) throw UsageError("fault counts must be >= 0");
  auto pos = a.positionals();  // rejects options this kind does not know
  if (pos.size() != 1) throw UsageError("unexpected arguments");

  std::string faults;
  for (const auto& r : fs.remove_links) faults += " --remove-link '" + r + "'";
  if (fs.random_switches) faults += " --fail-switches " + std::to_string(fs.random_switches);
  if (fs.random_links) faults += " --fail-links " + std::to_string(fs.random_links);
  if (fs.host_links) faults += " --host-links";
  if (fs.random_switches || fs.random_links) faults += " --seed " + std::to_string(fs.seed);
  if (fs.keep_connected) faults += " --keep-connected";
  Fabric f = topo::build_fabric(sa);
  topo::FaultReport rep;
  if (!faults.empty()) rep = topo::inject_faults(f, fs);

  NetWriteOptions o;
  o.reported_guids = true;  // ctree chassisguid=shared: switchguid=0xCHASSIS(GUID), as ibnetdiscover writes it
  o.comment = std::string(k.summary) + "\nftroute gen " + kind + sa.used + faults + "\n" + rep.summary();
  if (std::any_of(f.nodes().begin(), f.nodes().end(), [](const Node& n) { return n.reported_guid != 0; }))
    o.comment += "switches share node GUIDs (switchguid=0xSHARED(GUID)): ibsim refuses this file; load the output of\n"
                 "`ftroute export FILE --to ibsim -o FILE2` instead\n";
  if (!f.connected()) o.comment += "WARNING: the fabric is not connected\n";
  write_file_atomic(*out, write_net(f, o));
  if (*out != "-")
    std::fprintf(stderr, "wrote %s: %zu switches, %zu CAs, %d links%s\n", out->c_str(), f.switches().size(),
                 f.cas().size(), f.num_links(), f.connected() ? "" : " (NOT connected)");
  return 0;
}

}  // namespace
}  // namespace ftroute::cli

FTROUTE_SUBCOMMAND(gen, "generate .net topologies (fat trees, mesh, torus, kns, ctree) with optional faults",
                   ftroute::cli::help_text().c_str(), ftroute::cli::run_gen);
