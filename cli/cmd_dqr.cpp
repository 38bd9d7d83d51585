// ftroute dqr-eval: reproduces the DQR evaluation (seed 004 §V, Figs. 3-4 and the rerouted
// fraction): successive random link faults on DOR-routed meshes (and optionally the 648-port
// fat tree routed by ft-minhop), DQR after each fault, probability of a connected and
// deadlock-free result per variant.
// The experiment itself is dqr_eval() (routing_engines/engines/dqr/eval.cpp); this file parses
// the options and writes (or splices) the tables.
#include <fstream>
#include <sstream>

#include "cli.hpp"
#include "ftroute/campaign.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/dqr/eval.hpp"
#include "ftroute/registry.hpp"

using namespace ftroute;

namespace {

int run_dqr_eval(cli::Args& a) {
  const int runs = static_cast<int>(a.int_or("runs", 50));
  const int faults = static_cast<int>(a.int_or("faults", 10));
  const uint64_t seed = static_cast<uint64_t>(a.int_or("seed", 1));
  const std::string sizes_text = a.value_or("sizes", "10,20");
  const std::string tori_text = a.value_or("tori", "");
  const bool layer_moves = a.flag("layer-moves");
  const std::string base = a.value_or("base", "ft-dor");
  const std::string model = a.value_or("model", "lft");
  const std::string variants_text = a.value_or("variants", "e2e-all,e2e-single,local-all,local-single,mesh-all,mesh-single");
  const bool fattree = a.flag("fattree");
  const int ft_faults = static_cast<int>(a.int_or("fattree-faults", 3));
  const std::string ft_engine = a.value_or("fattree-engine", "ftree-misroute");
  const std::string out = a.value_or("out", "-", "-o");
  const std::string update = a.value_or("update", "");
  a.positionals();
  if (runs < 1 || faults < 1) throw cli::UsageError("--runs and --faults must be >= 1");
  cli::check_output_paths({update.empty() ? out : update});

  std::vector<DqrOptions> variants;
  std::stringstream vs(variants_text);
  for (std::string v; std::getline(vs, v, ',');) {
    try {
      variants.push_back(dqr_variant(v));  // the engine's option parser (ftroute/dqr/dqr.hpp)
    } catch (const OptionError& e) {
      throw cli::UsageError(e.what());
    }
  }
  auto parse_sides = [](const std::string& text, const char* opt) {
    std::vector<int> v;
    std::stringstream ss(text);
    for (std::string x; std::getline(ss, x, ',');) {
      int n = std::atoi(x.c_str());
      if (n < 3 || n > 64) throw cli::UsageError(std::string(opt) + ": sides must be 3..64, got '" + x + "'");
      v.push_back(n);
    }
    return v;
  };
  // (mesh side, torus?) in the order given: meshes, then tori
  std::vector<std::pair<int, bool>> sizes;
  for (int n : parse_sides(sizes_text, "--sizes")) sizes.push_back({n, false});
  for (int n : parse_sides(tori_text, "--tori")) sizes.push_back({n, true});
  DqrEvalOptions eo;
  eo.variants = variants, eo.sizes = sizes, eo.layer_moves = layer_moves;
  try {  // NAME or NAME[k=v,..]: an ftroute engine and its options, checked before any run
    const campaign::EngineVariant bv = campaign::engine_variant(base);
    if (bv.name.rfind("opensm:", 0) == 0) throw OptionError("an ftroute engine, not '" + base + "'");
    eo.base = bv.name, eo.base_options = bv.options;
  } catch (const OptionError& e) {
    throw cli::UsageError(std::string("--base: ") + e.what());
  }
  if (model == "lft") eo.model = DqrEvalOptions::Model::Lft;
  else if (model == "flow") eo.model = DqrEvalOptions::Model::Flow;
  else if (model == "both") eo.model = DqrEvalOptions::Model::Both;
  else throw cli::UsageError("--model: expected lft, flow or both, got '" + model + "'");
  eo.faults = faults, eo.runs = runs, eo.seed = seed;
  eo.fattree = fattree, eo.fattree_faults = ft_faults, eo.fattree_engine = ft_engine;
  std::string md = dqr_eval(eo);
  if (!update.empty()) {
    std::ifstream in(update);
    if (!in) throw Error("cannot read " + update);
    std::stringstream buf;
    buf << in.rdbuf();
    std::string doc = buf.str();
    const std::string b = "<!-- dqr-eval:begin -->", e = "<!-- dqr-eval:end -->";
    auto i = doc.find(b), j = doc.find(e);
    if (i == std::string::npos || j == std::string::npos || j < i)
      throw Error(update + ": no '" + b + "' ... '" + e + "' section to replace");
    doc = doc.substr(0, i + b.size()) + "\n" + md + doc.substr(j);
    cli::write_file_atomic(update, doc);
  } else {
    cli::write_file_atomic(out, md);
  }
  return 0;
}

}  // namespace

// (FTROUTE_SUBCOMMAND cannot take a dash in the name)
static ::ftroute::cli::Registrar ftroute_subcommand_dqr_eval("dqr-eval", "reproduce the DQR evaluation (successive link faults on meshes)",
                   R"(usage: ftroute dqr-eval [options]

Successive random link faults on DOR-routed n x n meshes (one CA per switch); after each
fault DQR reconfigures the previous routing and the result is validated (every CA pair
delivered, no loop, acyclic CDG). Prints the probability of success after k faults per
variant and the fraction of flows rerouted (paper: seed 004 Figs. 3-4, 1.7-2.2 % on 20x20).

  --sizes 10,20        mesh sides (default 10,20)
  --tori 10            also n x n tori routed by ft-dor with E-cube virtual layers (4 SLs/VLs,
                       one per path); the mesh-plug-in variants are skipped there (default none)
  --base ENGINE        routing of the meshes and tori (default ft-dor; ft-lash: LASH layered
                       shortest paths, the paper's torus base); ENGINE[k=v,..] gives it options,
                       e.g. 'ft-lash[fill=even]' (layers about equally full)
  --model M            lft (default): DQR on InfiniBand's destination-based LFTs; flow: the
                       paper's per-flow model (each switch pair its own path and layer, rows
                       <variant> (per flow); local and tlr variants: one detour per failed link
                       shared by the flows that fit it; not for -single and mesh variants);
                       both: side by side
  --layer-moves        on multi-layer fabrics (tori) also run every variant with layer moves
                       (dqr layers=all: flows of a destination that cannot be repaired in its
                       own layers move to another layer; rows named <variant>-layers)
  --faults N           successive faults per run (default 10)
  --runs N             runs per point (default 50; the paper used 500)
  --seed N             random seed (default 1)
  --variants LIST      comma list of e2e|local|mesh + -all|-single, or tlr, mesh-tlr (turn local
                       reroute: a detour around each failed link with all its turns checked
                       together, flows' paths turn by turn; mesh-tlr: the mesh plug-in, tlr
                       where it cannot detour; tlr-e2e: paths that cannot use the detour are
                       searched from their source)
                       (default e2e-all,e2e-single,local-all,local-single,mesh-all,mesh-single)
  --fattree            also the 648-port 2-level fat tree (runs/5 runs)
  --fattree-faults N   faults for the fat tree (default 3)
  --fattree-engine E   base routing of the fat tree (default ftree-misroute, d-mod-k up/down;
                       ft-minhop has a dependency cycle once switch-to-switch paths count); rows for CA traffic
                       and for switch-to-switch paths (skipped with a message when the
                       engine's switch-to-switch routing is not deadlock-free), and the paper's
                       start: the engine's node paths only, the switch-to-switch ones built by DQR
  -o, --out FILE       write the markdown tables to FILE (default - = stdout)
  --update FILE        replace the section between <!-- dqr-eval:begin --> and
                       <!-- dqr-eval:end --> in FILE (e.g. docs/dqr.md) instead)",
                   run_dqr_eval);
