// `ftroute gen <kind> [options] -o file.net`: topology generators + fault injection -> ibsim .net.
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/fip_topologies.hpp"

namespace ftroute::cli {
namespace {

// One generator kind. `build` reads its options from Args (value options via a.value/int_or,
// flags via a.flag), returns the fabric, and appends the options it used to `used` (text such
// as "--k 4 --n 3") for the file's header comment. Unknown options are rejected afterwards.
struct GenKind {
  const char* name;
  const char* summary;
  const char* help;                        // option lines, indented by two blanks
  std::vector<std::string> value_options;  // every --option VALUE the kind reads (without "--")
  std::vector<std::string> flag_options;   // every --flag the kind reads
  Fabric (*build)(Args& a, std::string& used);
};

int need_int(Args& a, const std::string& name, long def, long lo, long hi, std::string& used) {
  long v = a.int_or(name, def);
  if (v == std::numeric_limits<long>::min()) throw UsageError("--" + name + " is required");
  if (v < lo || v > hi)
    throw UsageError("--" + name + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + " (got " +
                     std::to_string(v) + ")");
  used += " --" + name + " " + std::to_string(v);
  return static_cast<int>(v);
}
constexpr long kRequired = std::numeric_limits<long>::min();

Fabric build_grid(Args& a, std::string& used, bool torus) {
  auto dims = a.value("dims");
  if (!dims) throw UsageError("--dims is required (e.g. --dims 4x4 or --dims 4x4x4)");
  topo::Grid g;
  g.dims = topo::parse_dims(*dims);
  g.torus = torus;
  used += " --dims " + *dims;
  g.hosts_per_switch = need_int(a, "hosts", 1, 0, kMaxPorts, used);
  g.radix = static_cast<int>(a.int_or("radix", 0));
  if (g.radix) used += " --radix " + std::to_string(g.radix);
  return topo::grid(g);
}

// ctree: --spec 'KEY=V,..' and/or one --KEY V per spec key (not both for one key).
Fabric build_ctree(Args& a, std::string& used) {
  std::map<std::string, std::string> kv;
  if (auto spec = a.value("spec")) {
    topo::ClusterTree parsed = topo::parse_cluster_tree(*spec);  // validates the text
    (void)parsed;
    size_t pos = 0;
    while (pos <= spec->size() && !spec->empty()) {
      size_t x = spec->find(',', pos);
      std::string item = spec->substr(pos, x == std::string::npos ? std::string::npos : x - pos);
      auto eq = item.find('=');
      kv[item.substr(0, eq)] = item.substr(eq + 1);
      if (x == std::string::npos) break;
      pos = x + 1;
    }
  }
  for (const std::string& k : topo::cluster_tree_keys())
    if (auto v = a.value(k)) {
      if (kv.count(k)) throw UsageError("--" + k + " and --spec both set '" + k + "'");
      kv[k] = *v;
    }
  topo::ClusterTree t = topo::parse_cluster_tree(kv);
  used += " --spec '" + t.spec + "'";
  return topo::cluster_tree(t);
}

std::vector<std::string> ctree_options() {
  std::vector<std::string> v = topo::cluster_tree_keys();
  v.push_back("spec");
  return v;
}

// ======================= KIND TABLE: add new generator kinds here =======================
// To add a kind (e.g. "kns"): implement `Fabric topo::<your_generator>(params)` in
// ibsim_topologies/ (declare it in a header there), include that header above, and add ONE
// entry below: {name, summary, option help, {value options}, {flag options}, builder}, where
// the builder is a capture-less lambda `[](Args& a, std::string& used) -> Fabric` that reads
// its options (a.int_or("name", default) etc.), appends them to `used`, and calls your
// generator. Fault options (--fail-links ...) and -o are handled for every kind.
const std::vector<GenKind>& kinds() {
  static const std::vector<GenKind> k = {
      {"fattree", "k-ary n-tree (Petrini/Vanneschi): k^n hosts, n stages of k^(n-1) radix-2k switches",
       "  --k K            arity (switch radix 2K), K >= 2\n"
       "  --n N            number of switch stages, N >= 1\n"
       "  names: switches S<stage>_<digits> (stage 0 = leaves), hosts H<digits>",
       {"k", "n"}, {},
       [](Args& a, std::string& used) {
         int k = need_int(a, "k", kRequired, 2, kMaxPorts / 2, used);
         int n = need_int(a, "n", kRequired, 1, 16, used);
         return topo::kary_ntree(k, n);
       }},
      {"fattree2", "two-level fat tree (leaves, spines)",
       "  --leaves L          leaf switches (default 36)\n"
       "  --spines S          spine switches (default 18)\n"
       "  --hosts-per-leaf H  hosts on every leaf (default 18)\n"
       "  --links-per-pair M  parallel links between each leaf and each spine (default 1)\n"
       "  --radix R           switch radix (default: smallest that fits)\n"
       "  names: leaves L<i>, spines S<j>, hosts H<i>_<h>; defaults give the 648-host tree",
       {"leaves", "spines", "hosts-per-leaf", "links-per-pair", "radix"}, {},
       [](Args& a, std::string& used) {
         topo::FatTree2 p;
         p.leaves = need_int(a, "leaves", 36, 1, 100000, used);
         p.spines = need_int(a, "spines", 18, 1, 100000, used);
         p.hosts_per_leaf = need_int(a, "hosts-per-leaf", 18, 0, kMaxPorts, used);
         p.links_per_pair = need_int(a, "links-per-pair", 1, 1, kMaxPorts, used);
         p.radix = static_cast<int>(a.int_or("radix", 0));
         if (p.radix) used += " --radix " + std::to_string(p.radix);
         return topo::fat_tree2(p);
       }},
      {"fattree3", "three-level fat tree (folded Clos) of radix-R switches",
       "  --radix R        switch radix, even (default 36)\n"
       "  --pods P         pods, 1..R (default R: R^3/4 hosts, 11664 for R = 36)\n"
       "  names: leaves L<pod>_<i>, aggregation A<pod>_<a>, core C<a>_<c>, hosts H<pod>_<i>_<x>\n"
       "  note: the full 36-port tree (1620 switches) exceeds ibsim's default of 256 switches",
       {"radix", "pods"}, {},
       [](Args& a, std::string& used) {
         int r = need_int(a, "radix", 36, 2, kMaxPorts, used);
         int p = need_int(a, "pods", r, 1, kMaxPorts, used);
         return topo::fat_tree3(r, p);
       }},
      {"mesh", "n-dimensional mesh",
       "  --dims AxB[xC..]  switches per dimension, each >= 2 (e.g. 4x4, 4x4x4)\n"
       "  --hosts N         hosts per switch (default 1)\n"
       "  --radix R         switch radix (default hosts + 2 x dimensions)\n"
       "  names: switches S<x>_<y>[_<z>], hosts H<x>_<y>[_<z>]_<j>",
       {"dims", "hosts", "radix"}, {},
       [](Args& a, std::string& used) { return build_grid(a, used, false); }},
      {"torus", "n-dimensional torus (a 1-D torus is a ring)",
       "  --dims AxB[xC..]  switches per dimension, each >= 2 (e.g. 8, 4x4, 4x4x4)\n"
       "  --hosts N         hosts per switch (default 1)\n"
       "  --radix R         switch radix (default hosts + 2 x dimensions)\n"
       "  names: switches S<x>_<y>[_<z>], hosts H<x>_<y>[_<z>]_<j>",
       {"dims", "hosts", "radix"}, {},
       [](Args& a, std::string& used) { return build_grid(a, used, true); }},
      {"kns", "KNS k-ary n-direct s-indirect hybrid (Penaranda, seed 002): k^n router switches + subnets",
       "  --k K    routers per dimension, K >= 2\n"
       "  --n N    dimensions, N >= 1\n"
       "  --p P    hosts per router (default 1)\n"
       "  --ki KI  fat-tree subnets of KI-ary switches, K = KI^s (default 0 = one crossbar per subnet)\n"
       "  --lmc L  LMC of the host ports (default 0)\n"
       "  names: routers R_<r_n-1>_.._<r_0> (port 1+d = dimension d, hosts above), crossbars X_<d>_<line>\n"
       "  (port 1+j = router with coordinate j), fat-tree switches F_<d>_<line>_<stage>_<order>, hosts H_<coords>_<c>\n"
       "  (docs/kns.md); at most 256 switches (ibsim default)",
       {"k", "n", "p", "ki", "lmc"}, {},
       [](Args& a, std::string& used) {
         KnsParams q;
         q.k = need_int(a, "k", kRequired, 2, kMaxPorts, used);
         q.n = need_int(a, "n", kRequired, 1, 16, used);
         q.p = need_int(a, "p", 1, 1, kMaxPorts, used);
         q.ki = need_int(a, "ki", 0, 0, kMaxPorts / 2, used);
         if (q.ki) q.subnet = KnsSubnet::FatTree;
         int lmc = need_int(a, "lmc", 0, 0, 7, used);
         return make_kns(q, static_cast<uint8_t>(lmc));
       }},
      {"ctree", "fat tree cabled like a real cluster: host counts per leaf, parallel cables, blocking, uneven pods, "
                "dual-rail HCAs, hosts on upper levels, mixed radices (docs/ftree-misroute.md)",
       "  --spec 'KEY=V,..'   the whole shape, the same text as `campaign --gen ctree:KEY=V,..`; or one --KEY V each:\n"
       "  --leaves L          2-level tree: leaf switches (default 8)\n"
       "  --spines S          2-level: spine switches (default from --blocking, else 4)\n"
       "  --pods A/B/..       3-level tree: leaves per pod ('4*3/2' = 4,4,4,2)\n"
       "  --aggs A            3-level: aggregation switches per pod (default 4)\n"
       "  --cores C           3-level: core switches per aggregation index (default: most leaves of a pod)\n"
       "  --hosts PATTERN     hosts per leaf, cycled over the leaves ('4/4/0/2', '8*3/0'; default non-blocking)\n"
       "  --links M           parallel cables per leaf-spine (leaf-aggregation) pair (default 1)\n"
       "  --blocking B        hosts : up-links of a leaf (sets --spines/--aggs, or --hosts, when not given)\n"
       "  --dual N            N dual-rail 2-port HCAs per pair of neighbouring leaves (0-1, 2-3, ..)\n"
       "  --tophosts PATTERN  hosts on the spines (2-level) / cores (3-level), cycled\n"
       "  --agghosts PATTERN  3-level: hosts on the aggregation switches, cycled\n"
       "  --radix R[/R2[/R3]] radix of leaves / spines or aggregation / cores (default: smallest that fits)\n"
       "  names: leaves L<i> (L<pod>_<i>), spines S<j>, aggregation A<pod>_<a>, cores C<a>_<c>, hosts H<leaf>_<x>,\n"
       "  dual-rail HCAs D<even leaf>_<x>, hosts on spines/cores T.., on aggregation switches I..",
       ctree_options(), {}, build_ctree},
      {"kautz", "undirected Kautz graph Kautz(d,k) (seed 003 Table III: --d 2 --k 4 --hosts 11 --redundancy 6)",
       "  --d D            digraph degree (D+1 symbols), D >= 1; switch degree 2 D R\n"
       "  --k K            string length, K >= 1: (D+1) D^(K-1) switches\n"
       "  --hosts N        hosts per switch (default 1)\n"
       "  --redundancy R   parallel links per arc (default 1)\n"
       "  names: switches K<string>, hosts H<string>_<j> (docs/campaign.md, fip_topologies.hpp)",
       {"d", "k", "hosts", "redundancy"}, {},
       [](Args& a, std::string& used) {
         topo::Kautz p;
         p.d = need_int(a, "d", kRequired, 1, kMaxPorts, used);
         p.k = need_int(a, "k", kRequired, 1, 32, used);
         p.hosts_per_switch = need_int(a, "hosts", 1, 0, kMaxPorts, used);
         p.redundancy = need_int(a, "redundancy", 1, 1, kMaxPorts, used);
         return topo::kautz(p);
       }},
      {"xgft", "extended generalized fat tree XGFT(h; m..; w..) (seed 003 Table III: --spec 1,22,11 --hosts 12)",
       "  --spec H,M1..MH,W1..WH  levels, children per switch per level, parents per switch per level\n"
       "  --hosts N        hosts per leaf (level-0) switch (default 1)\n"
       "  names: switches X<level>_<digits>, hosts H<digits>_<j>",
       {"spec", "hosts"}, {},
       [](Args& a, std::string& used) {
         auto spec = a.value("spec");
         if (!spec) throw UsageError("--spec is required (e.g. --spec 1,22,11)");
         topo::Xgft p = topo::parse_xgft(*spec, "--spec");
         used += " --spec " + *spec;
         p.hosts_per_leaf = need_int(a, "hosts", 1, 0, kMaxPorts, used);
         return topo::xgft(p);
       }},
      {"dragonfly", "Dragonfly(a,p,h,g), 1-D flattened butterfly in and between groups (seed 003: --a 10 --p 5 --h 5 --g 4 --hosts 7)",
       "  --a A  routers per group   --p P  terminals per router   --h H  global links per router   --g G  groups\n"
       "  --hosts N        hosts per router (default P)\n"
       "  names: routers D<group>_<i>, hosts H<group>_<i>_<j>",
       {"a", "p", "h", "g", "hosts"}, {},
       [](Args& a, std::string& used) {
         topo::Dragonfly q;
         q.a = need_int(a, "a", kRequired, 1, kMaxPorts, used);
         q.p = need_int(a, "p", kRequired, 0, kMaxPorts, used);
         q.h = need_int(a, "h", kRequired, 0, kMaxPorts, used);
         q.g = need_int(a, "g", kRequired, 1, 100000, used);
         q.hosts_per_switch = need_int(a, "hosts", q.p, 0, kMaxPorts, used);
         return topo::dragonfly(q);
       }},
      {"random", "random regular switch graph (seed 003 Table III: --switches 32 --degree 16 --hosts 8)",
       "  --switches N     switches   --degree D   switch-to-switch links per switch\n"
       "  --hosts N        hosts per switch (default 1)\n"
       "  --graph-seed S   seed of the random graph (default 1; --seed is the fault seed)\n"
       "  names: switches R<i>, hosts H<i>_<j>",
       {"switches", "degree", "hosts", "graph-seed"}, {},
       [](Args& a, std::string& used) {
         topo::RandomTopo q;
         q.switches = need_int(a, "switches", kRequired, 2, 100000, used);
         q.degree = need_int(a, "degree", kRequired, 1, kMaxPorts, used);
         q.hosts_per_switch = need_int(a, "hosts", 1, 0, kMaxPorts, used);
         q.seed = static_cast<uint64_t>(need_int(a, "graph-seed", 1, 0, 999999, used));
         return topo::random_topology(q);
       }},
      // {"kns", "...", "  --...\n", {"..."}, {}, [](Args& a, std::string& used) { return topo::kns(...); }},
  };
  return k;
}
// ========================================================================================

const char* kFaultHelp =
    "fault options (every kind):\n"
    "  --remove-link '\"NODE\"[P]'  remove the link at that port (repeatable)\n"
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
        "usage: ftroute gen <kind> [options] -o FILE.net\n"
        "       ftroute gen shipped -o DIR     (re)write every shipped file of ibsim_topologies/nets\n\n"
        "Writes an ibsim-loadable .net file (load with: ibsim -s FILE.net). GUIDs are ibsim's defaults.\n\nkinds:\n";
    for (const auto& k : kinds()) s += std::string(k.name) + ": " + k.summary + "\n" + k.help + "\n";
    s += kFaultHelp;
    s += "\nexamples:\n"
         "  ftroute gen fattree --k 4 --n 3 -o 4ary3tree.net\n"
         "  ftroute gen fattree --k 4 --n 3 --fail-links 3 --seed 7 --keep-connected -o f3.net\n"
         "  ftroute gen torus --dims 4x4x4 --hosts 1 -o t.net\n"
         "  ftroute gen fattree2 --remove-link '\"L0\"[19]' -o ft648_f1.net\n"
         "  ftroute gen ctree --spec 'leaves=8,spines=4,hosts=4/4/0/2,links=2,dual=1' -o cluster.net";
    return s;
  }();
  return h;
}

int run_gen(Args& a) {
  // find the kind: consume every known option on a copy, the first positional is the kind
  std::string kind;
  {
    Args probe = a;
    for (const auto& k : kinds()) {
      for (const auto& o : k.value_options) probe.values(o);
      for (const auto& o : k.flag_options) probe.flag(o);
    }
    for (const char* o : {"remove-link", "fail-switches", "fail-links", "seed", "o"}) probe.values(o, std::string(o) == "o" ? "-o" : "");
    probe.flag("host-links");
    probe.flag("keep-connected");
    auto pos = probe.positionals();
    if (pos.empty()) throw UsageError("missing the topology kind");
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

  const GenKind* k = nullptr;
  for (const auto& x : kinds())
    if (kind == x.name) k = &x;
  if (!k) throw UsageError("unknown kind '" + kind + "'");
  std::string used;
  topo::FaultSpec fs;
  fs.remove_links = a.values("remove-link");
  fs.random_switches = static_cast<int>(a.int_or("fail-switches", 0));
  fs.random_links = static_cast<int>(a.int_or("fail-links", 0));
  fs.seed = static_cast<uint64_t>(a.int_or("seed", 1));
  fs.keep_connected = a.flag("keep-connected");
  fs.host_links = a.flag("host-links");
  if (fs.random_switches < 0 || fs.random_links < 0) throw UsageError("fault counts must be >= 0");
  Fabric f = k->build(a, used);
  auto pos = a.positionals();  // rejects options this kind does not know
  if (pos.size() != 1) throw UsageError("unexpected arguments");

  std::string faults;
  for (const auto& r : fs.remove_links) faults += " --remove-link '" + r + "'";
  if (fs.random_switches) faults += " --fail-switches " + std::to_string(fs.random_switches);
  if (fs.random_links) faults += " --fail-links " + std::to_string(fs.random_links);
  if (fs.host_links) faults += " --host-links";
  if (fs.random_switches || fs.random_links) faults += " --seed " + std::to_string(fs.seed);
  if (fs.keep_connected) faults += " --keep-connected";
  topo::FaultReport rep;
  if (!faults.empty()) rep = topo::inject_faults(f, fs);

  NetWriteOptions o;
  o.comment = std::string(k->summary) + "\nftroute gen " + kind + used + faults + "\n" + rep.summary();
  if (!f.connected()) o.comment += "WARNING: the fabric is not connected\n";
  write_file_atomic(*out, write_net(f, o));
  if (*out != "-")
    std::fprintf(stderr, "wrote %s: %zu switches, %zu CAs, %d links%s\n", out->c_str(), f.switches().size(),
                 f.cas().size(), f.num_links(), f.connected() ? "" : " (NOT connected)");
  return 0;
}

}  // namespace
}  // namespace ftroute::cli

FTROUTE_SUBCOMMAND(gen, "generate .net topologies (fat trees, mesh, torus) with optional faults",
                   ftroute::cli::help_text().c_str(), ftroute::cli::run_gen);
