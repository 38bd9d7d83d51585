// The fabric spec parser and the table of generator kinds (fabric_spec.hpp).
#include "ftroute/fabric_spec.hpp"

#include <algorithm>
#include <map>
#include <regex>

#include "ftroute/cluster_tree.hpp"
#include "ftroute/fip_topologies.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::topo {

std::optional<std::string> SpecArgs::get(const std::string& name) const {
  for (const auto& [k, v] : values)
    if (k == name) {
      read_.insert(k);
      return v;
    }
  return std::nullopt;
}

void SpecArgs::fail(const std::string& what) const { throw SpecError(what + " in '" + text + "'"); }

std::vector<std::string> SpecArgs::unread() const {
  std::vector<std::string> r;
  for (const auto& kv : values)
    if (!read_.count(kv.first)) r.push_back(kv.first);
  return r;
}

namespace {

// Strict decimal integer ("4", "-1"); nullopt for anything else ("4x", "0x10", "", "1e3").
std::optional<long> to_long(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size() || s.size() > 18 || s.find_first_not_of("0123456789", i) != std::string::npos) return std::nullopt;
  return std::stol(s);
}

}  // namespace

int SpecArgs::integer(const std::string& name, long def, long lo, long hi) {
  long v = def;
  if (auto t = get(name)) {
    auto x = to_long(*t);
    if (!x) fail("bad number '" + *t + "' for " + name);
    v = *x;
  } else if (def == kRequired) {
    const FabricKind* k = find_fabric_kind(kind);
    fail("missing " + name + (k ? std::string(" (") + k->name + ":" + k->grammar + ")" : std::string()));
  }
  if (v < lo || v > hi)
    fail(name + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + " (got " + std::to_string(v) + ")");
  used += " --" + name + " " + std::to_string(v);
  return static_cast<int>(v);
}

namespace {

// "radix": 0 (the default) = the smallest that fits; shown in `used` only when not 0.
int optional_radix(SpecArgs& a) {
  if (!a.get("radix")) return 0;
  const std::string before = a.used;
  const int r = a.integer("radix", 0, 0, kMaxPorts);
  if (!r) a.used = before;
  return r;
}

Fabric build_grid(SpecArgs& a, bool torus) {
  auto dims = a.get("dims");
  if (!dims) a.fail("missing dims (e.g. " + a.kind + ":4x4 or " + a.kind + ":4x4x4)");
  Grid g;
  try {
    g.dims = parse_dims(*dims);
  } catch (const OptionError& e) {
    a.fail(std::string(e.what()));
  }
  g.torus = torus;
  a.used += " --dims " + *dims;
  g.hosts_per_switch = a.integer("hosts", 1, 0, kMaxPorts);
  g.links = a.integer("links", 1, 1, kMaxPorts);
  if (g.links == 1) a.used = a.used.substr(0, a.used.rfind(" --links"));  // default: as before
  g.radix = optional_radix(a);
  return grid(g);
}

Fabric build_ctree(SpecArgs& a) {
  std::map<std::string, std::string> kv;
  for (const auto& [k, v] : a.values) kv[k] = *a.get(k);
  ClusterTree t;
  try {
    t = parse_cluster_tree(kv);
  } catch (const OptionError& e) {
    a.fail(e.what());
  }
  a.used += " --spec '" + t.spec + "'";
  return cluster_tree(t);
}

}  // namespace

// ======================= KIND TABLE: add new generator kinds here =======================
// One entry per kind: {name, positional grammar, summary, parameter help lines, {parameter
// names, positional ones first}, number of positional parameters, builder}. The builder is a
// capture-less lambda `[](SpecArgs& a) -> Fabric` that reads every parameter (a.integer("k",
// SpecArgs::kRequired, 2, 127) etc.; a.get("name") for text) and calls the generator, which
// lives in its own file of ibsim_topologies/ with its header included above. Nothing else is
// needed: `ftroute gen`, `campaign --gen`, `route/compare/sim --gen`, `ftdrb-eval --topos` and
// the help texts all read this table. Fault options (--fail-links ...) and -o are handled by
// `gen` for every kind.
const std::vector<FabricKind>& fabric_kinds() {
  static const std::vector<FabricKind> k = {
      {"fattree", "K,N", "k-ary n-tree (Petrini/Vanneschi): k^n hosts, n stages of k^(n-1) radix-2k switches",
       "  --k K            arity (switch radix 2K), K >= 2\n"
       "  --n N            number of switch stages, N >= 1\n"
       "  names: switches S<stage>_<digits> (stage 0 = leaves), hosts H<digits>",
       {"k", "n"}, 2,
       [](SpecArgs& a) {
         int k = a.integer("k", SpecArgs::kRequired, 2, kMaxPorts / 2);
         int n = a.integer("n", SpecArgs::kRequired, 1, 16);
         return kary_ntree(k, n);
       }},
      {"fattree2", "LEAVES,SPINES,HOSTS_PER_LEAF[,LINKS_PER_PAIR[,RADIX]]", "two-level fat tree (leaves, spines)",
       "  --leaves L          leaf switches (default 36)\n"
       "  --spines S          spine switches (default 18)\n"
       "  --hosts-per-leaf H  hosts on every leaf (default 18)\n"
       "  --links-per-pair M  parallel links between each leaf and each spine (default 1)\n"
       "  --radix R           switch radix (default: smallest that fits)\n"
       "  names: leaves L<i>, spines S<j>, hosts H<i>_<h>; defaults give the 648-host tree",
       {"leaves", "spines", "hosts-per-leaf", "links-per-pair", "radix"}, 5,
       [](SpecArgs& a) {
         FatTree2 p;
         p.leaves = a.integer("leaves", 36, 1, 100000);
         p.spines = a.integer("spines", 18, 1, 100000);
         p.hosts_per_leaf = a.integer("hosts-per-leaf", 18, 0, kMaxPorts);
         p.links_per_pair = a.integer("links-per-pair", 1, 1, kMaxPorts);
         p.radix = optional_radix(a);
         return fat_tree2(p);
       }},
      {"fattree3", "RADIX[,PODS]", "three-level fat tree (folded Clos) of radix-R switches",
       "  --radix R        switch radix, even (default 36)\n"
       "  --pods P         pods, 1..R (default R: R^3/4 hosts, 11664 for R = 36)\n"
       "  names: leaves L<pod>_<i>, aggregation A<pod>_<a>, core C<a>_<c>, hosts H<pod>_<i>_<x>\n"
       "  note: the full 36-port tree (1620 switches) exceeds ibsim's default of 256 switches",
       {"radix", "pods"}, 2,
       [](SpecArgs& a) {
         int r = a.integer("radix", 36, 2, kMaxPorts);
         int p = a.integer("pods", r, 1, kMaxPorts);
         return fat_tree3(r, p);
       }},
      {"mesh", "AxB[xC..][,HOSTS[,RADIX]][,links=L]", "n-dimensional mesh",
       "  --dims AxB[xC..]  switches per dimension, each >= 2 (e.g. 4x4, 4x4x4)\n"
       "  --hosts N         hosts per switch (default 1)\n"
       "  --radix R         switch radix (default hosts + 2 x dimensions x links)\n"
       "  --links L         parallel cables between neighbour switches, on consecutive ports (default 1);\n"
       "                    in a spec as a keyword: mesh:4x4,1,links=2\n"
       "  names: switches S<x>_<y>[_<z>], hosts H<x>_<y>[_<z>]_<j>",
       {"dims", "hosts", "radix", "links"}, 3, [](SpecArgs& a) { return build_grid(a, false); }},
      {"torus", "AxB[xC..][,HOSTS[,RADIX]][,links=L]", "n-dimensional torus (a 1-D torus is a ring)",
       "  --dims AxB[xC..]  switches per dimension, each >= 2 (e.g. 8, 4x4, 4x4x4)\n"
       "  --hosts N         hosts per switch (default 1)\n"
       "  --radix R         switch radix (default hosts + 2 x dimensions x links)\n"
       "  --links L         parallel cables between neighbour switches, on consecutive ports (default 1;\n"
       "                    seed 003's grids: torus:5x5,11,links=6, torus:3x3x3,10,links=4)\n"
       "  names: switches S<x>_<y>[_<z>], hosts H<x>_<y>[_<z>]_<j>",
       {"dims", "hosts", "radix", "links"}, 3, [](SpecArgs& a) { return build_grid(a, true); }},
      {"kns", "K,N[,P[,KI[,LMC]]]",
       "KNS k-ary n-direct s-indirect hybrid (Penaranda, seed 002): k^n router switches + subnets",
       "  --k K    routers per dimension, K >= 2\n"
       "  --n N    dimensions, N >= 1\n"
       "  --p P    hosts per router (default 1)\n"
       "  --ki KI  fat-tree subnets of KI-ary switches, K = KI^s (default 0 = one crossbar per subnet)\n"
       "  --lmc L  LMC of the host ports (default 0)\n"
       "  names: routers R_<r_n-1>_.._<r_0> (port 1+d = dimension d, hosts above), crossbars X_<d>_<line>\n"
       "  (port 1+j = router with coordinate j), fat-tree switches F_<d>_<line>_<stage>_<order>, hosts H_<coords>_<c>\n"
       "  (docs/kns.md)",
       {"k", "n", "p", "ki", "lmc"}, 5,
       [](SpecArgs& a) {
         KnsParams q;
         q.k = a.integer("k", SpecArgs::kRequired, 2, kMaxPorts);
         q.n = a.integer("n", SpecArgs::kRequired, 1, 16);
         q.p = a.integer("p", 1, 1, kMaxPorts);
         q.ki = a.integer("ki", 0, 0, kMaxPorts / 2);
         if (q.ki) q.subnet = KnsSubnet::FatTree;
         int lmc = a.integer("lmc", 0, 0, 7);
         // no ibsim limit here, as for the other kinds (scripts/ftsim.sh starts ibsim with room
         // for the fabric it loads); the LID space still bounds it
         KnsGenLimits lim;
         lim.max_switches = kMaxUnicastLid;
         lim.max_nodes = kMaxUnicastLid;
         return make_kns(q, static_cast<uint8_t>(lmc), lim);
       }},
      {"ctree", "KEY=V,..",
       "fat tree cabled like a real cluster: host counts per leaf, parallel cables, blocking, uneven pods, "
       "storage pods, dual-rail HCAs, hosts on upper levels, mixed radices, SHARP aggregation nodes, director "
       "chassis, missing cables, presets of production clusters (docs/ftree-misroute.md)",
       "  --spec 'KEY=V,..'   the whole shape, the same text as `ftroute gen ctree:KEY=V,..`; or one --KEY V each:\n"
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
       "  --corelinks K       3-level: parallel cables per aggregation-core pair (default 1)\n"
       "  --storage P         3-level: P storage pods after the pods, joined through the same cores (default 0)\n"
       "  --storageleaves N   leaves per storage pod (default: most leaves of a pod)\n"
       "  --storagehosts PAT  storage servers per storage leaf, cycled (default: most hosts of a leaf)\n"
       "  --an 1              a SHARP aggregation node (1-port CA, \"Mellanox Technologies Aggregation Node\")\n"
       "                      on every switch, on an internal port radix+1 (port 41 of a 40-port switch)\n"
       "  --director 1        3-level: aggregation + core levels are director chassis, one per aggregation\n"
       "                      index: line ASICs A<pod>_<a> (\"MF0;dirA:MCS8500/L01/U1\"), spine ASICs C<a>_<c>\n"
       "                      (\".../S01/U1\"); CS7500 for line ASICs of up to 36 ports\n"
       "  --chassisguid shared  with --director 1: every ASIC of a chassis reports the chassis GUID as its node\n"
       "                      GUID, written switchguid=0xCHASSIS(GUID) as ibnetdiscover does (ibsim refuses\n"
       "                      such a file; `ftroute export --to ibsim` makes it loadable)\n"
       "  --missing N         N random switch-to-switch cables missing (never disconnecting); their seed is\n"
       "                      seed=S in SPEC (default 1; `gen --seed` is the seed of the fault options)\n"
       "  --preset NAME       a production cluster's shape (other keys override it): hdr-3tier, edr-director,\n"
       "                      hdr-mcs8500 (`ftroute gen --help`: \"ctree presets\")\n"
       "  names: leaves L<i> (L<pod>_<i>), spines S<j>, aggregation A<pod>_<a>, cores C<a>_<c>, hosts H<leaf>_<x>,\n"
       "  storage servers F<leaf>_<x>, dual-rail HCAs D<even leaf>_<x>, hosts on spines/cores T.., on aggregation\n"
       "  switches I.., aggregation nodes AN-<switch>",
       cluster_tree_keys(), 0, build_ctree},
      // seed 003's other Table III topologies (fip_topologies.hpp; the paper's: kautz:2,4,11,6
      // xgft:1,22,11,12 dragonfly:10,5,5,4,7 random:32,16,8,1)
      {"kautz", "D,K[,HOSTS[,R]]", "undirected Kautz graph Kautz(d,k) (seed 003 Table III: kautz:2,4,11,6)",
       "  --d D            digraph degree (D+1 symbols), D >= 1; switch degree 2 D R\n"
       "  --k K            string length, K >= 1: (D+1) D^(K-1) switches\n"
       "  --hosts N        hosts per switch (default 1)\n"
       "  --redundancy R   parallel links per arc (default 1)\n"
       "  names: switches K<string>, hosts H<string>_<j> (docs/campaign.md, fip_topologies.hpp)",
       {"d", "k", "hosts", "redundancy"}, 4,
       [](SpecArgs& a) {
         Kautz p;
         p.d = a.integer("d", SpecArgs::kRequired, 1, kMaxPorts);
         p.k = a.integer("k", SpecArgs::kRequired, 1, 32);
         p.hosts_per_switch = a.integer("hosts", 1, 0, kMaxPorts);
         p.redundancy = a.integer("redundancy", 1, 1, kMaxPorts);
         return kautz(p);
       }},
      {"xgft", "H,M1..MH,W1..WH[,HOSTS]",
       "extended generalized fat tree XGFT(h; m..; w..) (seed 003 Table III: xgft:1,22,11,12)",
       "  --spec H,M1..MH,W1..WH  levels, children per switch per level, parents per switch per level\n"
       "  --hosts N        hosts per leaf (level-0) switch (default 1)\n"
       "  names: switches X<level>_<digits>, hosts H<digits>_<j>",
       {"spec", "hosts"}, 1,
       [](SpecArgs& a) {
         auto spec = a.get("spec");
         if (!spec) a.fail("missing H,M1..MH,W1..WH (xgft:1,22,11)");
         Xgft p;
         try {
           p = parse_xgft(*spec, "xgft");
         } catch (const OptionError& e) {
           a.fail(e.what());
         }
         const bool listed_hosts =  // the optional last item of the list
             static_cast<size_t>(std::count(spec->begin(), spec->end(), ',')) + 1 == 2 * p.m.size() + 2;
         a.used += " --spec " + (listed_hosts ? spec->substr(0, spec->rfind(',')) : *spec);
         if (a.get("hosts")) {
           if (listed_hosts) a.fail("hosts given twice (in the list and as hosts=)");
           p.hosts_per_leaf = a.integer("hosts", 1, 0, kMaxPorts);
         } else {
           a.used += " --hosts " + std::to_string(p.hosts_per_leaf);
         }
         return xgft(p);
       },
       true},
      {"dragonfly", "A,P,H,G[,HOSTS][,arrangement=NAME]",
       "Dragonfly(a,p,h,g), 1-D flattened butterfly in and between groups (seed 003: dragonfly:10,5,5,4,7)",
       "  --a A  routers per group   --p P  terminals per router   --h H  global links per router   --g G  groups\n"
       "  --hosts N        hosts per router (default P)\n"
       "  --arrangement NAME  which global port goes to which group (fip_topologies.hpp): round-robin (default;\n"
       "                   each group pair's links dealt over all routers), consecutive (Kim et al.'s absolute\n"
       "                   arrangement), palmtree (relative); in a spec as a keyword: dragonfly:10,5,5,4,7,arrangement=palmtree\n"
       "  names: routers D<group>_<i>, hosts H<group>_<i>_<j>",
       {"a", "p", "h", "g", "hosts", "arrangement"}, 5,
       [](SpecArgs& a) {
         Dragonfly q;
         q.a = a.integer("a", SpecArgs::kRequired, 1, kMaxPorts);
         q.p = a.integer("p", SpecArgs::kRequired, 0, kMaxPorts);
         q.h = a.integer("h", SpecArgs::kRequired, 0, kMaxPorts);
         q.g = a.integer("g", SpecArgs::kRequired, 1, 100000);
         q.hosts_per_switch = a.integer("hosts", q.p, 0, kMaxPorts);
         if (auto arr = a.get("arrangement")) {
           try {
             q.arrangement = parse_dragonfly_arrangement(*arr);
           } catch (const OptionError&) {
             a.fail("unknown arrangement '" + *arr + "' (round-robin, consecutive or palmtree)");
           }
           a.used += " --arrangement " + *arr;
         }
         return dragonfly(q);
       }},
      {"random", "SWITCHES,DEGREE[,HOSTS[,GRAPH-SEED]]",
       "random regular switch graph (seed 003 Table III: random:32,16,8,1)",
       "  --switches N     switches   --degree D   switch-to-switch links per switch\n"
       "  --hosts N        hosts per switch (default 1)\n"
       "  --graph-seed S   seed of the random graph (default 1; --seed is the fault seed)\n"
       "  names: switches R<i>, hosts H<i>_<j>",
       {"switches", "degree", "hosts", "graph-seed"}, 4,
       [](SpecArgs& a) {
         RandomTopo q;
         q.switches = a.integer("switches", SpecArgs::kRequired, 2, 100000);
         q.degree = a.integer("degree", SpecArgs::kRequired, 1, kMaxPorts);
         q.hosts_per_switch = a.integer("hosts", 1, 0, kMaxPorts);
         q.seed = static_cast<uint64_t>(a.integer("graph-seed", 1, 0, 999999));
         return random_topology(q);
       }},
      // New kinds go here, one entry each.
  };
  return k;
}
// ========================================================================================

const FabricKind* find_fabric_kind(const std::string& name) {
  for (const auto& k : fabric_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

namespace {

std::string kind_list() {
  std::string s;
  for (const auto& k : fabric_kinds()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

std::string param_list(const FabricKind& k) {
  std::string s;
  for (const auto& p : k.params) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace

std::string legacy_fabric_spec(const std::string& text) {
  static const std::regex tree("([0-9]+)ary([0-9]+)tree"), grid("(torus|mesh)([0-9]+(x[0-9]+)*)");
  std::smatch m;
  if (std::regex_match(text, m, tree)) return "fattree:" + m[1].str() + "," + m[2].str();
  if (std::regex_match(text, m, grid)) return m[1].str() + ":" + m[2].str();
  return "";
}

SpecArgs parse_fabric_spec(const std::string& text) {
  SpecArgs a;
  a.text = text;
  std::string spec = text;
  if (spec.find(':') == std::string::npos) {
    std::string legacy = legacy_fabric_spec(spec);
    if (legacy.empty()) {
      if (const FabricKind* k = find_fabric_kind(spec))
        throw SpecError("'" + text + "': expected " + k->name + ":" + k->grammar);
      throw SpecError("'" + text + "': expected KIND:ARGS, KIND one of " + kind_list() +
                      " (e.g. fattree:4,3, torus:4x4x4, kns:4,2)");
    }
    spec = legacy;
  }
  const size_t colon = spec.find(':');
  a.kind = spec.substr(0, colon);
  const FabricKind* k = find_fabric_kind(a.kind);
  if (!k) throw SpecError("unknown fabric kind '" + a.kind + "' in '" + text + "' (" + kind_list() + ")");
  const std::string args = spec.substr(colon + 1);
  if (args.empty()) return a;
  size_t pos = 0, npos = 0;
  bool keywords = false;
  for (;;) {
    size_t comma = args.find(',', pos);
    std::string item = args.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.empty()) a.fail("empty item");
    auto eq = item.find('=');
    std::string key, value;
    if (eq == std::string::npos) {
      if (keywords) a.fail("value '" + item + "' after KEY=VALUE items (positional values come first)");
      if (k->variadic && npos == 1) {  // one more value of the list in params[0]
        a.values.front().second += "," + item;
        if (comma == std::string::npos) break;
        pos = comma + 1;
        continue;
      }
      if (npos >= k->positional)
        a.fail(k->positional ? "unexpected value '" + item + "' (" + k->name + ":" + k->grammar + ")"
                             : "'" + item + "' is not KEY=VALUE (" + k->name + " takes " + param_list(*k) + ")");
      key = k->params[npos++];
      value = item;
    } else {
      keywords = true;
      key = item.substr(0, eq);
      value = item.substr(eq + 1);
      if (std::find(k->params.begin(), k->params.end(), key) == k->params.end())
        a.fail("unknown keyword '" + key + "'" + " (" + k->name + " takes " + param_list(*k) + ")");
      if (value.empty()) a.fail("no value for '" + key + "'");
    }
    for (const auto& kv : a.values)
      if (kv.first == key) a.fail("'" + key + "' given twice");
    a.values.emplace_back(key, value);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return a;
}

Fabric build_fabric(SpecArgs& a) {
  const FabricKind* k = find_fabric_kind(a.kind);
  if (!k) throw SpecError("unknown fabric kind '" + a.kind + "' in '" + a.text + "' (" + kind_list() + ")");
  Fabric f = k->build(a);
  auto left = a.unread();
  if (!left.empty()) a.fail("'" + left.front() + "' is not used by " + a.kind);
  return f;
}

Fabric build_fabric_spec(const std::string& text) {
  SpecArgs a = parse_fabric_spec(text);
  return build_fabric(a);
}

std::vector<std::string> split_spec_list(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(pos, comma - pos);
    if (!item.empty()) {
      const bool starts = out.empty() || item.find(':') != std::string::npos || !legacy_fabric_spec(item).empty();
      if (starts) out.push_back(item);
      else out.back() += "," + item;
    }
    pos = comma + 1;
  }
  return out;
}

std::string fabric_spec_summary() {
  std::string s;
  for (const auto& k : fabric_kinds()) {
    std::string head = std::string("  ") + k.name + ":" + k.grammar;
    if (head.size() < 30) head.resize(30, ' ');
    else head += "\n" + std::string(30, ' ');
    std::string sum = k.summary;
    if (sum.size() > 70) sum = sum.substr(0, sum.find(':') == std::string::npos ? 70 : sum.find(':'));
    s += head + sum + "\n";
  }
  return s;
}

}  // namespace ftroute::topo
