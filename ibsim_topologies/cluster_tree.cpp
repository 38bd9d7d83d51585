// Cluster-shaped fat trees (spec and layout in include/ftroute/cluster_tree.hpp).
#include "ftroute/cluster_tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ftroute/error.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::topo {
namespace {

constexpr long kMaxClusterNodes = 200000;  // same sanity bound as the other generators

void need(bool ok, const std::string& msg) {
  if (!ok) throw OptionError("ctree: " + msg);
}

long to_long(const std::string& s, const std::string& what) {
  need(!s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos,
       what + ": '" + s + "' is not a non-negative integer");
  return std::stol(s);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t x = s.find(sep, pos);
    out.push_back(s.substr(pos, x == std::string::npos ? std::string::npos : x - pos));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return out;
}

// pattern cycled over n entries
std::vector<int> cycle(const std::vector<int>& p, long n) {
  std::vector<int> out;
  for (long i = 0; i < n; i++) out.push_back(p.empty() ? 0 : p[static_cast<size_t>(i) % p.size()]);
  return out;
}

}  // namespace

std::vector<int> parse_count_pattern(const std::string& text, const std::string& what) {
  std::vector<int> out;
  for (const std::string& item : split(text, '/')) {
    auto star = item.find('*');
    long n = to_long(item.substr(0, star), what);
    long r = star == std::string::npos ? 1 : to_long(item.substr(star + 1), what);
    need(n <= kMaxPorts, what + ": " + std::to_string(n) + " exceeds " + std::to_string(kMaxPorts) + " ports");
    need(r >= 1 && r <= 100000 && static_cast<long>(out.size()) + r <= 100000, what + ": bad repeat count in '" + item + "'");
    for (long i = 0; i < r; i++) out.push_back(static_cast<int>(n));
  }
  return out;
}

const std::vector<std::string>& cluster_tree_keys() {
  static const std::vector<std::string> k = {
      "leaves",   "spines",  "pods",          "aggs",         "cores",    "hosts",    "links",       "blocking",
      "dual",     "tophosts", "agghosts",     "radix",        "corelinks", "storage", "storageleaves",
      "storagehosts", "an",  "director",      "chassisguid",  "missing",  "seed",     "preset"};
  return k;
}

const std::vector<ClusterTreePreset>& cluster_tree_presets() {
  static const std::vector<ClusterTreePreset> p = {
      {"hdr-3tier",
       "pods=7*7,storage=1,storageleaves=7,storagehosts=20,aggs=10,cores=7,hosts=20,links=2,corelinks=2,"
       "agghosts=3/2/0*78,radix=40,an=1,missing=6,seed=3",
       "HDR 3-tier tree: 8 pods (7 compute, 1 storage) of 7 leaves x 20 hosts and 10 spines, 70 super-spines; "
       "206 switches of 40 ports + an aggregation node on port 41, 1,125 HCAs (1,120 on leaves, 5 on 2 spines) "
       "+ 206 ANs; 2-cable leaf-spine and spine-super-spine bundles; 6 cables missing (3 leaves with 19 of 20 "
       "up-links, spines with 26 (1) and 27 (4) of 28, 3 super-spines with 15 of 16)"},
      {"edr-director",
       "pods=6*13/4,aggs=3,cores=18,hosts=18,links=3,radix=36,an=1,director=1",
       "EDR tree with director chassis: 82 SwitchIB leaves (36 ports) x 18 hosts, 9 up-links (3 cables to "
       "one line ASIC of each of 3 CS7500 chassis: 14 line + 18 spine ASICs each); 178 switches, 1,476 HCAs + "
       "178 ANs on port 37"},
      {"hdr-mcs8500",
       "pods=2*32/1*8,aggs=2,cores=20,hosts=14*54/13*18,links=10,radix=40,an=1,director=1,chassisguid=shared",
       "HDR director fabric: 72 Quantum leaves (40 ports), 13-14 hosts each, 10 cables to one line ASIC of "
       "each of 2 MCS8500 chassis (40 line + 20 spine ASICs each, every ASIC reporting the chassis GUID); "
       "192 switches, 990 HCAs + 192 ANs on port 41"},
  };
  return p;
}

namespace {

std::string key_list() {
  std::string s;
  for (const auto& k : cluster_tree_keys()) s += (s.empty() ? "" : ", ") + k;
  return s;
}

std::map<std::string, std::string> parse_kv(const std::string& spec) {
  std::map<std::string, std::string> kv;
  if (!spec.empty())
    for (const std::string& item : split(spec, ',')) {
      auto eq = item.find('=');
      need(eq != std::string::npos && eq > 0, "'" + item + "' is not KEY=VALUE (keys: " + key_list() + ")");
      need(kv.emplace(item.substr(0, eq), item.substr(eq + 1)).second, "key '" + item.substr(0, eq) + "' given twice");
    }
  return kv;
}

bool flag(const std::string* v, const std::string& key) {
  if (!v) return false;
  need(*v == "0" || *v == "1", key + " must be 0 or 1, got '" + *v + "'");
  return *v == "1";
}

}  // namespace

ClusterTree parse_cluster_tree(const std::string& spec) { return parse_cluster_tree(parse_kv(spec)); }

ClusterTree parse_cluster_tree(const std::map<std::string, std::string>& given) {
  const auto& keys = cluster_tree_keys();
  for (const auto& [k, v] : given)
    need(std::find(keys.begin(), keys.end(), k) != keys.end(), "unknown key '" + k + "' (" + key_list() + ")");
  // a preset's keys first, the keys given beside it override them
  std::map<std::string, std::string> kv = given;
  if (auto it = given.find("preset"); it != given.end()) {
    const ClusterTreePreset* pr = nullptr;
    std::string names;
    for (const auto& x : cluster_tree_presets()) {
      names += (names.empty() ? "" : ", ") + std::string(x.name);
      if (it->second == x.name) pr = &x;
    }
    need(pr != nullptr, "unknown preset '" + it->second + "' (" + names + ")");
    kv = parse_kv(pr->spec);
    for (const auto& [k, v] : given)
      if (k != "preset") kv[k] = v;
  }
  auto get = [&](const std::string& k) -> const std::string* {
    auto it = kv.find(k);
    return it == kv.end() ? nullptr : &it->second;
  };
  ClusterTree t;
  t.three_level = get("pods") != nullptr;
  need(!(t.three_level && get("leaves")), "give leaves= (2-level) or pods= (3-level), not both");
  need(!(t.three_level && get("spines")), "a 3-level tree (pods=) has aggs= per pod, not spines=");
  need(t.three_level || (!get("aggs") && !get("cores") && !get("agghosts") && !get("corelinks") && !get("storage") &&
                         !get("storageleaves") && !get("storagehosts") && !get("director") && !get("chassisguid")),
       "aggs=, cores=, agghosts=, corelinks=, storage*=, director= and chassisguid= need a 3-level tree (pods=)");
  if (t.three_level) {
    t.pod_leaves = parse_count_pattern(*get("pods"), "pods");
    for (int n : t.pod_leaves) need(n >= 1, "pods: every pod needs at least one leaf");
    need(t.pod_leaves.size() <= static_cast<size_t>(kMaxPorts), "pods: more pods than a core switch has ports");
  } else {
    long l = get("leaves") ? to_long(*get("leaves"), "leaves") : 8;
    need(l >= 1 && l <= 100000, "leaves must be 1..100000");
    t.pod_leaves = {static_cast<int>(l)};
  }
  long num_leaves = 0;
  for (int n : t.pod_leaves) num_leaves += n;
  t.links = get("links") ? static_cast<int>(to_long(*get("links"), "links")) : 1;
  need(t.links >= 1 && t.links <= kMaxPorts, "links must be 1.." + std::to_string(kMaxPorts));
  double blocking = 0;
  if (const std::string* b = get("blocking")) {
    try {
      size_t pos = 0;
      blocking = std::stod(*b, &pos);
      need(pos == b->size(), "blocking: '" + *b + "' is not a number");
    } catch (const std::logic_error&) {
      need(false, "blocking: '" + *b + "' is not a number");
    }
    need(blocking >= 0.1 && blocking <= 64, "blocking must be in 0.1..64 (hosts per up-link of a leaf)");
  }
  const char* up_key = t.three_level ? "aggs" : "spines";
  if (const std::string* h = get("hosts")) t.hosts = cycle(parse_count_pattern(*h, "hosts"), num_leaves);
  if (get(up_key)) {
    t.uplinks_sw = static_cast<int>(to_long(*get(up_key), up_key));
  } else if (blocking > 0 && !t.hosts.empty()) {
    int most = *std::max_element(t.hosts.begin(), t.hosts.end());
    t.uplinks_sw = std::max(1, static_cast<int>(std::ceil(most / (blocking * t.links) - 1e-9)));
  } else {
    t.uplinks_sw = 4;
  }
  need(t.uplinks_sw >= 1 && t.uplinks_sw <= kMaxPorts, std::string(up_key) + " must be 1.." + std::to_string(kMaxPorts));
  if (t.hosts.empty()) {
    double b = blocking > 0 ? blocking : 1.0;
    t.hosts = cycle({static_cast<int>(std::lround(b * t.uplinks_sw * t.links))}, num_leaves);
  }
  const size_t compute_pods = t.pod_leaves.size();
  const size_t compute_leaves = t.hosts.size();
  need(get("storage") || (!get("storageleaves") && !get("storagehosts")), "storageleaves= and storagehosts= go with storage=P");
  if (const std::string* sp = get("storage")) {
    t.storage_pods = static_cast<int>(to_long(*sp, "storage"));
    need(t.storage_pods <= kMaxPorts, "storage must be 0.." + std::to_string(kMaxPorts));
    const int most_pod = *std::max_element(t.pod_leaves.begin(), t.pod_leaves.end());
    const long sl = get("storageleaves") ? to_long(*get("storageleaves"), "storageleaves") : most_pod;
    need(sl >= 1 && sl <= 100000, "storageleaves must be 1..100000");
    const int most_hosts = *std::max_element(t.hosts.begin(), t.hosts.end());
    const std::vector<int> sh =
        cycle(get("storagehosts") ? parse_count_pattern(*get("storagehosts"), "storagehosts") : std::vector<int>{most_hosts},
              t.storage_pods * sl);
    for (int p = 0; p < t.storage_pods; p++) t.pod_leaves.push_back(static_cast<int>(sl));
    t.hosts.insert(t.hosts.end(), sh.begin(), sh.end());
    need(t.pod_leaves.size() <= static_cast<size_t>(kMaxPorts), "pods: more pods than a core switch has ports");
  }
  if (t.three_level) {
    int most = *std::max_element(t.pod_leaves.begin(), t.pod_leaves.end());
    t.cores = get("cores") ? static_cast<int>(to_long(*get("cores"), "cores")) : most;
    need(t.cores >= 0 && t.cores <= kMaxPorts, "cores must be 0.." + std::to_string(kMaxPorts));
    long aggs = static_cast<long>(t.pod_leaves.size()) * t.uplinks_sw;
    t.agg_hosts = get("agghosts") ? cycle(parse_count_pattern(*get("agghosts"), "agghosts"), aggs) : cycle({0}, aggs);
  }
  t.dual = get("dual") ? static_cast<int>(to_long(*get("dual"), "dual")) : 0;
  need(t.dual <= kMaxPorts, "dual must be 0.." + std::to_string(kMaxPorts));
  long tops = t.three_level ? static_cast<long>(t.uplinks_sw) * t.cores : t.uplinks_sw;
  t.top_hosts = get("tophosts") ? cycle(parse_count_pattern(*get("tophosts"), "tophosts"), tops) : cycle({0}, tops);
  if (const std::string* r = get("radix")) {
    auto v = split(*r, '/');
    need(v.size() <= 3, "radix: at most three values (leaves/spines-or-aggregation/cores)");
    int* dst[3] = {&t.radix_leaf, &t.radix_mid, &t.radix_core};
    for (size_t i = 0; i < v.size(); i++) {
      long x = to_long(v[i], "radix");
      need(x <= kMaxPorts, "radix " + std::to_string(x) + " exceeds " + std::to_string(kMaxPorts));
      *dst[i] = static_cast<int>(x);
    }
    if (v.size() == 1) t.radix_mid = t.radix_core = t.radix_leaf;
  }
  if (const std::string* k = get("corelinks")) t.core_links = static_cast<int>(to_long(*k, "corelinks"));
  need(t.core_links >= 1 && t.core_links <= kMaxPorts, "corelinks must be 1.." + std::to_string(kMaxPorts));
  t.an = flag(get("an"), "an");
  t.director = flag(get("director"), "director");
  if (const std::string* g = get("chassisguid")) {
    need(*g == "shared" || *g == "unique", "chassisguid must be shared or unique, got '" + *g + "'");
    t.shared_chassis_guid = *g == "shared";
  }
  need(!t.shared_chassis_guid || t.director, "chassisguid=shared needs director=1 (chassis to share a GUID)");
  need(!t.shared_chassis_guid || static_cast<long>(t.pod_leaves.size()) + t.cores >= 2,
       "chassisguid=shared needs chassis of at least 2 ASICs (pods + cores >= 2)");
  if (const std::string* m = get("missing")) t.missing = static_cast<int>(to_long(*m, "missing"));
  need(get("missing") || !get("seed"), "seed= is the seed of missing=N");
  if (const std::string* sd = get("seed")) t.seed = static_cast<uint64_t>(to_long(*sd, "seed"));
  // normalised spec (every key that shapes the fabric)
  auto join = [](const std::vector<int>& v) {
    std::string s;
    for (size_t i = 0; i < v.size();) {
      size_t j = i;
      while (j < v.size() && v[j] == v[i]) j++;
      s += (s.empty() ? "" : "/") + std::to_string(v[i]) + (j - i > 1 ? "*" + std::to_string(j - i) : "");
      i = j;
    }
    return s;
  };
  const std::vector<int> pods(t.pod_leaves.begin(), t.pod_leaves.begin() + static_cast<long>(compute_pods));
  const std::vector<int> hosts(t.hosts.begin(), t.hosts.begin() + static_cast<long>(compute_leaves));
  t.spec = t.three_level ? "pods=" + join(pods) + ",aggs=" + std::to_string(t.uplinks_sw) + ",cores=" +
                               std::to_string(t.cores)
                         : "leaves=" + std::to_string(num_leaves) + ",spines=" + std::to_string(t.uplinks_sw);
  t.spec += ",hosts=" + join(hosts) + ",links=" + std::to_string(t.links);
  if (t.core_links > 1) t.spec += ",corelinks=" + std::to_string(t.core_links);
  if (t.storage_pods)
    t.spec += ",storage=" + std::to_string(t.storage_pods) + ",storageleaves=" + std::to_string(t.pod_leaves.back()) +
              ",storagehosts=" + join(std::vector<int>(t.hosts.begin() + static_cast<long>(compute_leaves), t.hosts.end()));
  if (t.dual) t.spec += ",dual=" + std::to_string(t.dual);
  if (std::any_of(t.top_hosts.begin(), t.top_hosts.end(), [](int x) { return x; })) t.spec += ",tophosts=" + join(t.top_hosts);
  if (std::any_of(t.agg_hosts.begin(), t.agg_hosts.end(), [](int x) { return x; })) t.spec += ",agghosts=" + join(t.agg_hosts);
  if (t.radix_leaf || t.radix_mid || t.radix_core)
    t.spec += ",radix=" + std::to_string(t.radix_leaf) + "/" + std::to_string(t.radix_mid) +
              (t.three_level ? "/" + std::to_string(t.radix_core) : "");
  if (t.an) t.spec += ",an=1";
  if (t.director) t.spec += ",director=1";
  if (t.shared_chassis_guid) t.spec += ",chassisguid=shared";
  if (t.missing) t.spec += ",missing=" + std::to_string(t.missing) + ",seed=" + std::to_string(t.seed);
  return t;
}

Fabric cluster_tree(const ClusterTree& t) {
  const int P = static_cast<int>(t.pod_leaves.size());
  const int U = t.uplinks_sw, M = t.links, K = t.core_links;
  const int AN = t.an ? 1 : 0;  // the aggregation node's port beyond the radix
  need(!t.three_level || P >= 1, "no pods");
  std::vector<int> pod_first;  // first global leaf index per pod
  long L = 0;
  for (int n : t.pod_leaves) {
    pod_first.push_back(static_cast<int>(L));
    L += n;
  }
  need(static_cast<long>(t.hosts.size()) == L, "hosts: one count per leaf expected");
  // which leaves carry dual-rail ports: pairs (0,1), (2,3), .. inside each pod
  std::vector<int> dual_on(static_cast<size_t>(L), 0);
  for (int p = 0; p < P; p++)
    for (int i = 0; i + 1 < t.pod_leaves[static_cast<size_t>(p)]; i += 2) {
      dual_on[static_cast<size_t>(pod_first[static_cast<size_t>(p)] + i)] = t.dual;
      dual_on[static_cast<size_t>(pod_first[static_cast<size_t>(p)] + i + 1)] = t.dual;
    }
  // port counts per level
  long leaf_need = 0;
  for (long i = 0; i < L; i++)
    leaf_need = std::max(leaf_need, static_cast<long>(t.hosts[static_cast<size_t>(i)]) + dual_on[static_cast<size_t>(i)] +
                                        static_cast<long>(U) * M);
  const int max_pod = *std::max_element(t.pod_leaves.begin(), t.pod_leaves.end());
  long mid_need = 0, core_need = 0;
  const long tops = t.three_level ? static_cast<long>(U) * t.cores : U;
  if (t.three_level) {
    for (size_t a = 0; a < t.agg_hosts.size(); a++)
      mid_need = std::max(mid_need, static_cast<long>(max_pod) * M + static_cast<long>(t.cores) * K + t.agg_hosts[a]);
    for (long c = 0; c < tops; c++)
      core_need = std::max(core_need, static_cast<long>(P) * K + t.top_hosts[static_cast<size_t>(c)]);
  } else {
    for (long j = 0; j < tops; j++) mid_need = std::max(mid_need, L * M + t.top_hosts[static_cast<size_t>(j)]);
  }
  auto radix = [&](int given, long needed, const char* level) {
    long r = given ? given : needed;
    need(needed <= r, std::string(level) + " switches need " + std::to_string(needed) + " ports but the radix is " +
                          std::to_string(r));
    need(r >= 1 && r + AN <= kMaxPorts, std::string(level) + " switches need " + std::to_string(r + AN) +
                                            " ports, more than " + std::to_string(kMaxPorts));
    return static_cast<int>(r);
  };
  const int r_leaf = radix(t.radix_leaf, leaf_need, "leaf");
  const int r_mid = radix(t.radix_mid, mid_need, t.three_level ? "aggregation" : "spine");
  const int r_core = t.three_level && tops ? radix(t.radix_core, core_need, "core") : 0;
  long nodes = L + static_cast<long>(P) * (t.three_level ? U : 0) + tops;
  for (int h : t.hosts) nodes += h;
  for (int h : t.top_hosts) nodes += h;
  for (int h : t.agg_hosts) nodes += h;
  nodes += static_cast<long>(t.dual) * (L / 2);
  nodes += AN * (L + static_cast<long>(P) * (t.three_level ? U : 0) + tops);
  need(nodes <= kMaxClusterNodes, "too many nodes (" + std::to_string(nodes) + ", at most " + std::to_string(kMaxClusterNodes) + ")");

  Fabric f;
  auto leaf_name = [&](int p, int i) {
    return t.three_level ? "L" + std::to_string(p) + "_" + std::to_string(i) : "L" + std::to_string(i);
  };
  std::vector<int> leaf, mid, core;  // leaf[global], mid[pod*U+a] (2-level: spines), core[a*cores+c]
  for (int p = 0; p < P; p++)
    for (int i = 0; i < t.pod_leaves[static_cast<size_t>(p)]; i++)
      leaf.push_back(f.add_node(NodeType::Switch, leaf_name(p, i), r_leaf + AN));
  if (t.three_level) {
    for (int p = 0; p < P; p++)
      for (int a = 0; a < U; a++)
        mid.push_back(f.add_node(NodeType::Switch, "A" + std::to_string(p) + "_" + std::to_string(a), r_mid + AN));
    for (int a = 0; a < U; a++)
      for (int c = 0; c < t.cores; c++)
        core.push_back(f.add_node(NodeType::Switch, "C" + std::to_string(a) + "_" + std::to_string(c), r_core + AN));
  } else {
    for (int j = 0; j < U; j++) mid.push_back(f.add_node(NodeType::Switch, "S" + std::to_string(j), r_mid + AN));
  }
  if (t.director) {  // chassis a: line ASICs A<p>_<a> (one per pod), spine ASICs C<a>_<c>
    const std::string model = r_mid <= 36 ? "CS7500" : "MCS8500";
    auto two = [](int x) { return (x < 10 ? "0" : "") + std::to_string(x); };
    for (int a = 0; a < U; a++) {
      const std::string dir = "MF0;dir" + (a < 26 ? std::string(1, static_cast<char>('A' + a)) : std::to_string(a + 1)) +
                              ":" + model + "/";
      for (int p = 0; p < P; p++)
        f.node(mid[static_cast<size_t>(p * U + a)]).desc = dir + "L" + two(p / 2 + 1) + "/U" + std::to_string(p % 2 + 1);
      for (int c = 0; c < t.cores; c++)
        f.node(core[static_cast<size_t>(a * t.cores + c)]).desc = dir + "S" + two(c + 1) + "/U1";
    }
  }
  // hosts on leaves, dual-rail HCAs, hosts on upper switches
  const long first_storage_leaf = L - (t.storage_pods ? static_cast<long>(t.storage_pods) * t.pod_leaves.back() : 0);
  for (long i = 0; i < L; i++) {
    const std::string ln = f.node(leaf[static_cast<size_t>(i)]).id.substr(1);
    const char* prefix = i >= first_storage_leaf ? "F" : "H";
    for (int x = 0; x < t.hosts[static_cast<size_t>(i)]; x++) {
      int c = f.add_node(NodeType::Ca, prefix + ln + "_" + std::to_string(x), 1);
      f.connect(c, 1, leaf[static_cast<size_t>(i)], x + 1);
    }
  }
  for (long i = 0; i < L; i++) {
    if (!dual_on[static_cast<size_t>(i)]) continue;
    // even member of its pair: pod-local index even
    int p = t.three_level ? static_cast<int>(std::upper_bound(pod_first.begin(), pod_first.end(), i) - pod_first.begin()) - 1 : 0;
    if ((i - pod_first[static_cast<size_t>(p)]) % 2) continue;
    const std::string ln = f.node(leaf[static_cast<size_t>(i)]).id.substr(1);
    for (int x = 0; x < t.dual; x++) {
      int c = f.add_node(NodeType::Ca, "D" + ln + "_" + std::to_string(x), 2);
      f.connect(c, 1, leaf[static_cast<size_t>(i)], t.hosts[static_cast<size_t>(i)] + x + 1);
      f.connect(c, 2, leaf[static_cast<size_t>(i + 1)], t.hosts[static_cast<size_t>(i + 1)] + x + 1);
    }
  }
  // leaf up-links
  for (int p = 0; p < P; p++)
    for (int i = 0; i < t.pod_leaves[static_cast<size_t>(p)]; i++) {
      const size_t g = static_cast<size_t>(pod_first[static_cast<size_t>(p)] + i);
      const int base = t.hosts[g] + dual_on[g] + 1;
      for (int a = 0; a < U; a++)
        for (int c = 0; c < M; c++)
          f.connect(leaf[g], base + a * M + c, mid[static_cast<size_t>((t.three_level ? p * U : 0) + a)],
                    (t.three_level ? i : static_cast<int>(g)) * M + c + 1);
    }
  const int mid_down = t.three_level ? max_pod * M : static_cast<int>(L) * M;
  if (t.three_level)
    for (int p = 0; p < P; p++)
      for (int a = 0; a < U; a++)
        for (int c = 0; c < t.cores; c++)
          for (int k = 0; k < K; k++)
            f.connect(mid[static_cast<size_t>(p * U + a)], mid_down + c * K + k + 1,
                      core[static_cast<size_t>(a * t.cores + c)], p * K + k + 1);
  auto add_hosts = [&](int sw, int first_port, int count, const std::string& prefix) {
    for (int x = 0; x < count; x++) {
      int c = f.add_node(NodeType::Ca, prefix + "_" + std::to_string(x), 1);
      f.connect(c, 1, sw, first_port + x);
    }
  };
  if (t.three_level) {
    for (int p = 0; p < P; p++)
      for (int a = 0; a < U; a++)
        add_hosts(mid[static_cast<size_t>(p * U + a)], mid_down + t.cores * K + 1, t.agg_hosts[static_cast<size_t>(p * U + a)],
                  "I" + std::to_string(p) + "_" + std::to_string(a));
    for (int a = 0; a < U; a++)
      for (int c = 0; c < t.cores; c++)
        add_hosts(core[static_cast<size_t>(a * t.cores + c)], P * K + 1, t.top_hosts[static_cast<size_t>(a * t.cores + c)],
                  "T" + std::to_string(a) + "_" + std::to_string(c));
  } else {
    for (int j = 0; j < U; j++) add_hosts(mid[static_cast<size_t>(j)], mid_down + 1, t.top_hosts[static_cast<size_t>(j)], "T" + std::to_string(j));
  }
  if (AN) {  // a SHARP aggregation node on the internal port beyond the radix of every switch
    const std::vector<int> sw = f.switches();
    for (int s : sw) {
      const std::string id = f.node(s).id;
      const int c = f.add_node(NodeType::Ca, "AN-" + id, 1);
      f.node(c).desc = kAggregationNodeDesc;
      f.connect(c, 1, s, f.node(s).num_ports);
    }
  }
  f.assign_default_guids();
  if (t.shared_chassis_guid)  // every ASIC of chassis a reports the chassis GUID
    for (int a = 0; a < U; a++) {
      const uint64_t chassis = kChassisGuidBase + static_cast<uint64_t>(a);
      for (int p = 0; p < P; p++) f.node(mid[static_cast<size_t>(p * U + a)]).reported_guid = chassis;
      for (int c = 0; c < t.cores; c++) f.node(core[static_cast<size_t>(a * t.cores + c)]).reported_guid = chassis;
    }
  if (t.missing) {  // missing cables: the fault code of `gen --fail-links N --keep-connected`
    FaultSpec fs;
    fs.random_links = t.missing;
    fs.seed = t.seed;
    fs.keep_connected = true;
    inject_faults(f, fs);
  }
  return f;
}

}  // namespace ftroute::topo
