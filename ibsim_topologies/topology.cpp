// Topology generators, fault injection and the table of shipped .net files.
// Naming and port layout are documented in include/ftroute/topology.hpp.
#include "ftroute/topology.hpp"
#include "ftroute/port_ref.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <unordered_set>

#include "ftroute/error.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/netfile.hpp"

namespace ftroute::topo {
namespace {

// n digits of v in base b, most significant first; '.'-separated decimals when b > 10.
std::string digits(uint64_t v, int b, int n) {
  std::vector<int> d(static_cast<size_t>(n));
  for (int i = n - 1; i >= 0; i--) {
    d[static_cast<size_t>(i)] = static_cast<int>(v % static_cast<uint64_t>(b));
    v /= static_cast<uint64_t>(b);
  }
  std::string s;
  for (int i = 0; i < n; i++) {
    if (b > 10 && i) s += '.';
    s += std::to_string(d[static_cast<size_t>(i)]);
  }
  return s;
}

uint64_t ipow(uint64_t b, int e) {
  uint64_t r = 1;
  for (int i = 0; i < e; i++) {
    if (r > std::numeric_limits<uint64_t>::max() / b) throw OptionError("topology too large");
    r *= b;
  }
  return r;
}

void need(bool ok, const std::string& msg) {
  if (!ok) throw OptionError(msg);
}

constexpr uint64_t kMaxNodes = 200000;  // sanity bound for generators

}  // namespace

void check_generated_size(const std::string& what, uint64_t switches, uint64_t cas, int ca_ports, int lmc) {
  const uint64_t nodes = switches + cas;
  need(nodes <= kMaxNodes, what + ": too large: " + std::to_string(nodes) + " nodes, limit " + std::to_string(kMaxNodes));
  const uint64_t lids = switches + cas * static_cast<uint64_t>(ca_ports) * (uint64_t{1} << lmc);
  need(lids <= kMaxUnicastLid, what + ": too large: " + std::to_string(lids) + " LIDs needed (" + std::to_string(switches) +
                                   " switches + " + std::to_string(cas * static_cast<uint64_t>(ca_ports)) + " CA ports" +
                                   (lmc ? " x 2^" + std::to_string(lmc) : std::string()) + "), limit " +
                                   std::to_string(kMaxUnicastLid) + " unicast LIDs");
  const uint64_t ca_guids = cas * static_cast<uint64_t>(ca_ports + 1);
  need(ca_guids <= 0x100000, what + ": too large: " + std::to_string(cas) + " CAs need " + std::to_string(ca_guids) +
                                 " GUIDs from 0x100000, limit 1048576 (ibsim's switch GUIDs start at 0x200000)");
}

uint64_t uniform_index(std::mt19937_64& g, uint64_t n) {
  // reject the low values that would bias r % n
  const uint64_t threshold = (0 - n) % n;
  uint64_t r;
  do r = g();
  while (r < threshold);
  return r % n;
}

Fabric kary_ntree(int k, int n) {
  need(k >= 2, "k-ary n-tree: k must be >= 2 (got " + std::to_string(k) + ")");
  need(n >= 1, "k-ary n-tree: n must be >= 1 (got " + std::to_string(n) + ")");
  need(2 * k <= kMaxPorts, "k-ary n-tree: switch radix 2k = " + std::to_string(2 * k) + " exceeds " +
                               std::to_string(kMaxPorts) + " ports");
  need(n <= 64 && std::pow(static_cast<double>(k), n) <= 1e9, "k-ary n-tree: too large: more than 10^9 hosts");
  const uint64_t hosts = ipow(static_cast<uint64_t>(k), n);
  const uint64_t per_stage = hosts / static_cast<uint64_t>(k);
  check_generated_size("k-ary n-tree", per_stage * static_cast<uint64_t>(n), hosts);
  Fabric f;
  const int radix = 2 * k;
  auto sw_id = [&](int l, uint64_t w) { return "S" + std::to_string(l) + "_" + digits(w, k, n - 1); };
  std::vector<std::vector<int>> sw(static_cast<size_t>(n));
  for (int l = 0; l < n; l++)
    for (uint64_t w = 0; w < per_stage; w++) sw[static_cast<size_t>(l)].push_back(f.add_node(NodeType::Switch, sw_id(l, w), radix));
  for (uint64_t p = 0; p < hosts; p++) {
    int h = f.add_node(NodeType::Ca, "H" + digits(p, k, n), 1);
    f.connect(h, 1, sw[0][p / static_cast<uint64_t>(k)], static_cast<int>(p % static_cast<uint64_t>(k)) + 1);
  }
  for (int l = 0; l + 1 < n; l++) {
    const uint64_t place = ipow(static_cast<uint64_t>(k), l);  // weight of digit l
    for (uint64_t w = 0; w < per_stage; w++) {
      const uint64_t wl = (w / place) % static_cast<uint64_t>(k);
      for (int u = 0; u < k; u++) {
        const uint64_t w2 = w - wl * place + static_cast<uint64_t>(u) * place;
        f.connect(sw[static_cast<size_t>(l)][w], k + 1 + u, sw[static_cast<size_t>(l) + 1][w2], static_cast<int>(wl) + 1);
      }
    }
  }
  f.assign_default_guids();
  return f;
}

Fabric fat_tree2(const FatTree2& p) {
  need(p.leaves >= 1 && p.spines >= 1 && p.hosts_per_leaf >= 0 && p.links_per_pair >= 1,
       "two-level fat tree: leaves, spines and links per pair must be >= 1, hosts per leaf >= 0");
  const long leaf_ports = static_cast<long>(p.hosts_per_leaf) + static_cast<long>(p.spines) * p.links_per_pair;
  const long spine_ports = static_cast<long>(p.leaves) * p.links_per_pair;
  const long radix = p.radix ? p.radix : std::max(leaf_ports, spine_ports);
  need(radix >= 1 && radix <= kMaxPorts, "two-level fat tree: radix " + std::to_string(radix) + " not in 1.." +
                                             std::to_string(kMaxPorts));
  need(leaf_ports <= radix, "two-level fat tree: a leaf needs " + std::to_string(leaf_ports) + " ports (hosts + spines x links) but the radix is " + std::to_string(radix));
  need(spine_ports <= radix, "two-level fat tree: a spine needs " + std::to_string(spine_ports) + " ports (leaves x links) but the radix is " + std::to_string(radix));
  check_generated_size("two-level fat tree", static_cast<uint64_t>(p.leaves) + static_cast<uint64_t>(p.spines),
                       static_cast<uint64_t>(p.leaves) * static_cast<uint64_t>(p.hosts_per_leaf));
  Fabric f;
  std::vector<int> leaf, spine;
  for (int i = 0; i < p.leaves; i++) leaf.push_back(f.add_node(NodeType::Switch, "L" + std::to_string(i), static_cast<int>(radix)));
  for (int j = 0; j < p.spines; j++) spine.push_back(f.add_node(NodeType::Switch, "S" + std::to_string(j), static_cast<int>(radix)));
  for (int i = 0; i < p.leaves; i++)
    for (int h = 0; h < p.hosts_per_leaf; h++) {
      int c = f.add_node(NodeType::Ca, "H" + std::to_string(i) + "_" + std::to_string(h), 1);
      f.connect(c, 1, leaf[static_cast<size_t>(i)], h + 1);
    }
  for (int i = 0; i < p.leaves; i++)
    for (int j = 0; j < p.spines; j++)
      for (int c = 0; c < p.links_per_pair; c++)
        f.connect(leaf[static_cast<size_t>(i)], p.hosts_per_leaf + 1 + j * p.links_per_pair + c,
                  spine[static_cast<size_t>(j)], i * p.links_per_pair + c + 1);
  f.assign_default_guids();
  return f;
}

Fabric fat_tree3(int radix, int pods) {
  need(radix >= 2 && radix % 2 == 0 && radix <= kMaxPorts, "three-level fat tree: radix must be even, 2.." + std::to_string(kMaxPorts));
  if (pods == 0) pods = radix;
  need(pods >= 1 && pods <= radix, "three-level fat tree: pods must be 1..radix (" + std::to_string(radix) + ")");
  const int h = radix / 2;
  {
    const uint64_t uh = static_cast<uint64_t>(h), up = static_cast<uint64_t>(pods);
    check_generated_size("three-level fat tree", 2 * up * uh + uh * uh, up * uh * uh);
  }
  Fabric f;
  std::vector<int> leaf, agg, core;  // leaf[pod*h+i], agg[pod*h+a], core[a*h+c]
  for (int pod = 0; pod < pods; pod++)
    for (int i = 0; i < h; i++)
      leaf.push_back(f.add_node(NodeType::Switch, "L" + std::to_string(pod) + "_" + std::to_string(i), radix));
  for (int pod = 0; pod < pods; pod++)
    for (int a = 0; a < h; a++)
      agg.push_back(f.add_node(NodeType::Switch, "A" + std::to_string(pod) + "_" + std::to_string(a), radix));
  for (int a = 0; a < h; a++)
    for (int c = 0; c < h; c++)
      core.push_back(f.add_node(NodeType::Switch, "C" + std::to_string(a) + "_" + std::to_string(c), radix));
  for (int pod = 0; pod < pods; pod++)
    for (int i = 0; i < h; i++)
      for (int x = 0; x < h; x++) {
        int c = f.add_node(NodeType::Ca, "H" + std::to_string(pod) + "_" + std::to_string(i) + "_" + std::to_string(x), 1);
        f.connect(c, 1, leaf[static_cast<size_t>(pod * h + i)], x + 1);
      }
  for (int pod = 0; pod < pods; pod++)
    for (int i = 0; i < h; i++)
      for (int a = 0; a < h; a++) f.connect(leaf[static_cast<size_t>(pod * h + i)], h + 1 + a, agg[static_cast<size_t>(pod * h + a)], i + 1);
  for (int pod = 0; pod < pods; pod++)
    for (int a = 0; a < h; a++)
      for (int c = 0; c < h; c++) f.connect(agg[static_cast<size_t>(pod * h + a)], h + 1 + c, core[static_cast<size_t>(a * h + c)], pod + 1);
  f.assign_default_guids();
  return f;
}

std::vector<int> parse_dims(const std::string& text) {
  std::vector<int> d;
  size_t pos = 0;
  while (true) {
    size_t x = text.find_first_of("xX", pos);
    std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6)
      throw OptionError("bad dimensions '" + text + "' (expected e.g. 4x4 or 4x4x4)");
    d.push_back(std::stoi(part));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return d;
}

Fabric grid(const Grid& g) {
  const char* what = g.torus ? "torus" : "mesh";
  need(!g.dims.empty(), std::string(what) + ": no dimensions");
  uint64_t nsw = 1;
  for (int s : g.dims) {
    need(s >= 2, std::string(what) + ": every dimension needs size >= 2 (got " + std::to_string(s) + ")");
    nsw *= static_cast<uint64_t>(s);
    need(nsw <= kMaxNodes, std::string(what) + ": too large: more than " + std::to_string(nsw) + " switches, limit " +
                               std::to_string(kMaxNodes) + " nodes");
  }
  need(g.hosts_per_switch >= 0, std::string(what) + ": hosts per switch must be >= 0");
  check_generated_size(what, nsw, nsw * static_cast<uint64_t>(g.hosts_per_switch));
  const int nd = static_cast<int>(g.dims.size());
  need(g.links >= 1, std::string(what) + ": links (parallel cables per neighbour pair) must be >= 1 (got " +
                         std::to_string(g.links) + ")");
  const int L = g.links;
  const long need_ports = static_cast<long>(g.hosts_per_switch) + 2L * nd * L;
  need(need_ports <= kMaxPorts, std::string(what) + ": " + std::to_string(need_ports) + " ports per switch needed (hosts " +
                                    std::to_string(g.hosts_per_switch) + " + 2 x " + std::to_string(nd) + " dimensions x " +
                                    std::to_string(L) + " links), more than the maximum radix " + std::to_string(kMaxPorts));
  const int radix = g.radix ? g.radix : static_cast<int>(need_ports);
  need(radix >= need_ports && radix <= kMaxPorts,
       std::string(what) + ": radix " + std::to_string(radix) + " too small (needs " + std::to_string(need_ports) +
           (L == 1 ? " = hosts + 2 x dimensions" : " = hosts + 2 x dimensions x links") + ", at most " +
           std::to_string(kMaxPorts) + ")");
  auto coords = [&](uint64_t idx) {
    std::vector<int> c(static_cast<size_t>(nd));
    for (int d = 0; d < nd; d++) {  // first dimension varies fastest
      c[static_cast<size_t>(d)] = static_cast<int>(idx % static_cast<uint64_t>(g.dims[static_cast<size_t>(d)]));
      idx /= static_cast<uint64_t>(g.dims[static_cast<size_t>(d)]);
    }
    return c;
  };
  auto index = [&](const std::vector<int>& c) {
    uint64_t idx = 0;
    for (int d = nd - 1; d >= 0; d--) idx = idx * static_cast<uint64_t>(g.dims[static_cast<size_t>(d)]) + static_cast<uint64_t>(c[static_cast<size_t>(d)]);
    return idx;
  };
  auto name = [&](const std::vector<int>& c) {
    std::string s;
    for (int d = 0; d < nd; d++) s += (d ? "_" : "") + std::to_string(c[static_cast<size_t>(d)]);
    return s;
  };
  Fabric f;
  std::vector<int> sw;
  for (uint64_t i = 0; i < nsw; i++) sw.push_back(f.add_node(NodeType::Switch, "S" + name(coords(i)), radix));
  for (uint64_t i = 0; i < nsw; i++)
    for (int j = 0; j < g.hosts_per_switch; j++) {
      int c = f.add_node(NodeType::Ca, "H" + name(coords(i)) + "_" + std::to_string(j), 1);
      f.connect(c, 1, sw[i], j + 1);
    }
  for (uint64_t i = 0; i < nsw; i++) {
    auto c = coords(i);
    for (int d = 0; d < nd; d++) {
      auto n = c;
      const int size = g.dims[static_cast<size_t>(d)];
      if (c[static_cast<size_t>(d)] + 1 < size) n[static_cast<size_t>(d)]++;
      else if (g.torus) n[static_cast<size_t>(d)] = 0;
      else continue;
      const int base = g.hosts_per_switch + 1 + 2 * d * L;  // +d cables base..base+L-1, -d ones above
      for (int j = 0; j < L; j++) f.connect(sw[i], base + j, sw[index(n)], base + L + j);
    }
  }
  f.assign_default_guids();
  return f;
}

// ------------------------------------------------------------------------------------------
// faults

std::string FaultReport::summary() const {
  std::string s;
  if (!switches.empty()) {
    s += "failed switches (" + std::to_string(switches.size()) + "):";
    for (auto& x : switches) s += " \"" + x + "\"";
    s += "\n";
  }
  if (!hosts.empty()) s += "CAs removed with them: " + std::to_string(hosts.size()) + "\n";
  if (!links.empty()) {
    s += "failed links (" + std::to_string(links.size()) + "):\n";
    for (auto& x : links) s += "  " + x + "\n";
  }
  return s;
}

namespace {

struct Work {
  Fabric& f;
  std::vector<char> alive;

  // every alive node reaches every other alive node (CAs do not forward)
  bool connected() const {
    int start = -1;
    size_t total = 0;
    for (int i = 0; i < f.size(); i++)
      if (alive[static_cast<size_t>(i)]) {
        total++;
        if (start < 0 || (!f.node(start).is_switch() && f.node(i).is_switch())) start = i;
      }
    if (total == 0) return true;
    std::vector<char> vis(static_cast<size_t>(f.size()), 0);
    std::deque<int> q{start};
    vis[static_cast<size_t>(start)] = 1;
    size_t count = 1;
    while (!q.empty()) {
      int u = q.front();
      q.pop_front();
      const Node& n = f.node(u);
      if (!n.is_switch() && u != start) continue;
      for (int p = 1; p <= n.num_ports; p++) {
        int v = n.port(p).peer_node;
        if (v >= 0 && alive[static_cast<size_t>(v)] && !vis[static_cast<size_t>(v)]) {
          vis[static_cast<size_t>(v)] = 1;
          count++;
          q.push_back(v);
        }
      }
    }
    return count == total;
  }
  std::string link_name(int n, int p) const {
    const Port& x = f.node(n).port(p);
    return f.port_name(n, p) + " - " + f.port_name(x.peer_node, x.peer_port);
  }
};

}  // namespace

FaultReport inject_faults(Fabric& f, const FaultSpec& spec) {
  if (spec.random_links < 0 || spec.random_switches < 0) throw OptionError("fault counts must be >= 0");
  FaultReport rep;
  Fabric work = f;  // f is only replaced when everything succeeded
  Work w{work, std::vector<char>(static_cast<size_t>(work.size()), 1)};
  std::mt19937_64 rng(spec.seed);

  for (const auto& ref : spec.remove_links) {
    PortRef pr;
    try {
      pr = parse_port_ref(ref);  // "NODE"[PORT], or the older NODE[PORT] (port_ref.hpp)
    } catch (const OptionError& e) {
      throw FabricError(std::string("cannot remove link: ") + e.what());
    }
    const std::string& name = pr.node;
    const int port = pr.port;
    auto n = work.find(name);
    if (!n) throw FabricError("cannot remove link " + ref + ": no node \"" + name + "\"");
    if (port < 1 || port > work.node(*n).num_ports)
      throw FabricError("cannot remove link " + work.port_name(*n, port) + ": port out of range (node has " +
                        std::to_string(work.node(*n).num_ports) + " ports)");
    if (!work.node(*n).port(port).connected())
      throw FabricError("cannot remove link " + work.port_name(*n, port) + ": port is not linked");
    rep.links.push_back(w.link_name(*n, port));
    work.disconnect(*n, port);
  }

  if (spec.random_switches > 0) {
    std::vector<int> cand = work.switches();
    int done = 0;
    while (done < spec.random_switches) {
      if (cand.empty())
        throw FabricError("cannot fail " + std::to_string(spec.random_switches) + " switches" +
                          (spec.keep_connected ? " and keep the fabric connected" : "") + ": only " +
                          std::to_string(done) + " possible");
      size_t k = static_cast<size_t>(uniform_index(rng, cand.size()));
      int s = cand[k];
      cand[k] = cand.back();
      cand.pop_back();
      // the switch and the CAs that only hang off it (or off already failed switches)
      std::vector<int> dead{s};
      const Node& sn = work.node(s);
      for (int p = 1; p <= sn.num_ports; p++) {
        int v = sn.port(p).peer_node;
        if (v < 0 || work.node(v).is_switch() || !w.alive[static_cast<size_t>(v)]) continue;
        bool other = false;
        for (int q = 1; q <= work.node(v).num_ports; q++) {
          int u = work.node(v).port(q).peer_node;
          if (u >= 0 && u != s && w.alive[static_cast<size_t>(u)]) other = true;
        }
        if (!other && std::find(dead.begin(), dead.end(), v) == dead.end()) dead.push_back(v);
      }
      for (int d : dead) w.alive[static_cast<size_t>(d)] = 0;
      if (spec.keep_connected && !w.connected()) {
        for (int d : dead) w.alive[static_cast<size_t>(d)] = 1;
        continue;
      }
      rep.switches.push_back(sn.id);
      for (size_t i = 1; i < dead.size(); i++) rep.hosts.push_back(work.node(dead[i]).id);
      done++;
    }
  }

  if (spec.random_links > 0) {
    std::vector<std::pair<int, int>> cand;  // (node, port) of the lower end
    for (int n = 0; n < work.size(); n++) {
      if (!w.alive[static_cast<size_t>(n)]) continue;
      const Node& nd = work.node(n);
      for (int p = 1; p <= nd.num_ports; p++) {
        const Port& x = nd.port(p);
        if (!x.connected() || !w.alive[static_cast<size_t>(x.peer_node)]) continue;
        if (x.peer_node < n || (x.peer_node == n && x.peer_port < p)) continue;
        const bool sw_sw = nd.is_switch() && work.node(x.peer_node).is_switch();
        if (sw_sw || spec.host_links) cand.emplace_back(n, p);
      }
    }
    int done = 0;
    while (done < spec.random_links) {
      if (cand.empty())
        throw FabricError("cannot fail " + std::to_string(spec.random_links) + " links" +
                          (spec.keep_connected ? " and keep the fabric connected" : "") + ": only " +
                          std::to_string(done) + " possible");
      size_t k = static_cast<size_t>(uniform_index(rng, cand.size()));
      auto [n, p] = cand[k];
      cand[k] = cand.back();
      cand.pop_back();
      const Port x = work.node(n).port(p);
      std::string name = w.link_name(n, p);
      work.disconnect(n, p);
      if (spec.keep_connected && !w.connected()) {
        work.connect(n, p, x.peer_node, x.peer_port);
        continue;
      }
      rep.links.push_back(name);
      done++;
    }
  }

  // rebuild without the dead nodes (same order, GUIDs, descs, port attributes)
  bool any_dead = std::find(w.alive.begin(), w.alive.end(), 0) != w.alive.end();
  if (any_dead) {
    Fabric out;
    std::vector<int> map(static_cast<size_t>(work.size()), -1);
    for (int n = 0; n < work.size(); n++) {
      if (!w.alive[static_cast<size_t>(n)]) continue;
      const Node& nd = work.node(n);
      int m = out.add_node(nd.type, nd.id, nd.num_ports, nd.guid);
      map[static_cast<size_t>(n)] = m;
      Node& o = out.node(m);
      o.desc = nd.desc;
      for (int p = 0; p <= nd.num_ports; p++) {
        Port& op = o.port(p);
        const Port& ip = nd.port(p);
        op.guid = ip.guid;
        op.width = ip.width;
        op.speed = ip.speed;
        op.base_lid = ip.base_lid;
        op.lmc = ip.lmc;
      }
    }
    for (int n = 0; n < work.size(); n++) {
      if (map[static_cast<size_t>(n)] < 0) continue;
      const Node& nd = work.node(n);
      for (int p = 1; p <= nd.num_ports; p++) {
        const Port& x = nd.port(p);
        if (x.connected() && map[static_cast<size_t>(x.peer_node)] >= 0)
          out.connect(map[static_cast<size_t>(n)], p, map[static_cast<size_t>(x.peer_node)], x.peer_port);
      }
    }
    for (const EndPort& e : work.end_ports())  // rebuild the LID index
      if (map[static_cast<size_t>(e.node)] >= 0) {
        out.set_lid(map[static_cast<size_t>(e.node)], e.port, e.base_lid, e.lmc);
        break;
      }
    work = std::move(out);
  }
  f = std::move(work);
  return rep;
}

// ------------------------------------------------------------------------------------------
// shipped files

namespace {

Fabric with_faults(Fabric f, const FaultSpec& s, std::string* notes) {
  FaultReport r = inject_faults(f, s);
  if (notes) *notes = r.summary();
  return f;
}

// KNS (seed 002, docs/kns.md): crossbar subnets (ki = 0) or ki-ary fat-tree subnets.
Fabric kns_net(int k, int n, int p, int ki) {
  KnsParams q;
  q.k = k;
  q.n = n;
  q.p = p;
  q.ki = ki;
  if (ki) q.subnet = KnsSubnet::FatTree;
  return make_kns(q);
}

}  // namespace

const std::vector<ShippedNet>& shipped_nets() {
  // Regenerate with: cmake --build <build> --target gen-nets   (= ftroute gen shipped -o ibsim_topologies/nets)
  // tests/unit/ibsim_topologies/topology_test.cpp checks the files equal this table's output.
  static const std::vector<ShippedNet> nets = {
      {"4ary3tree.net", "4-ary 3-tree (Petrini/Vanneschi): 48 switches of radix 8, 64 hosts\nftroute gen fattree --k 4 --n 3",
       [](std::string*) { return kary_ntree(4, 3); }},
      {"4ary3tree_f3.net",
       "4-ary 3-tree with 3 failed switch-to-switch links (still connected)\n"
       "ftroute gen fattree --k 4 --n 3 --fail-links 3 --seed 1 --keep-connected",
       [](std::string* notes) {
         FaultSpec s;
         s.random_links = 3;
         s.seed = 1;
         s.keep_connected = true;
         return with_faults(kary_ntree(4, 3), s, notes);
       }},
      {"ft648.net",
       "648-host two-level fat tree of 36-port switches: 36 leaves x 18 hosts, 18 spines\n"
       "ftroute gen fattree2 --leaves 36 --spines 18 --hosts-per-leaf 18 --radix 36",
       [](std::string*) { return fat_tree648(); }},
      {"ft648_f1.net",
       "ft648 with the leaf-spine link \"L0\"[19] - \"S0\"[1] removed\n"
       "ftroute gen fattree2 --leaves 36 --spines 18 --hosts-per-leaf 18 --radix 36 --remove-link '\"L0\"[19]'",
       [](std::string* notes) {
         FaultSpec s;
         s.remove_links = {"\"L0\"[19]"};
         return with_faults(fat_tree648(), s, notes);
       }},
      {"mesh4x4.net", "4x4 mesh, one host per switch\nftroute gen mesh --dims 4x4 --hosts 1",
       [](std::string*) { return grid({{4, 4}, false, 1, 0}); }},
      {"mesh4x4_f1.net",
       "4x4 mesh with one failed switch-to-switch link (still connected)\n"
       "ftroute gen mesh --dims 4x4 --hosts 1 --fail-links 1 --seed 1 --keep-connected",
       [](std::string* notes) {
         FaultSpec s;
         s.random_links = 1;
         s.seed = 1;
         s.keep_connected = true;
         return with_faults(grid({{4, 4}, false, 1, 0}), s, notes);
       }},
      {"torus4x4.net", "4x4 torus, one host per switch\nftroute gen torus --dims 4x4 --hosts 1",
       [](std::string*) { return grid({{4, 4}, true, 1, 0}); }},
      {"torus4x4_f1.net",
       "4x4 torus with one failed switch-to-switch link\n"
       "ftroute gen torus --dims 4x4 --hosts 1 --fail-links 1 --seed 1 --keep-connected",
       [](std::string* notes) {
         FaultSpec s;
         s.random_links = 1;
         s.seed = 1;
         s.keep_connected = true;
         return with_faults(grid({{4, 4}, true, 1, 0}), s, notes);
       }},
      {"ring8.net", "1-D torus (ring) of 8 switches, one host each: cyclic channel dependencies for deadlock demos\n"
                    "ftroute gen torus --dims 8 --hosts 1",
       [](std::string*) { return grid({{8}, true, 1, 0}); }},
      {"torus3d_4x4x4.net", "4x4x4 3-D torus, one host per switch\nftroute gen torus --dims 4x4x4 --hosts 1",
       [](std::string*) { return grid({{4, 4, 4}, true, 1, 0}); }},
      {"kns_4x2.net", "KNS 4-ary 2-direct 1-indirect (thesis Fig 4.1): 16 routers, 8 crossbars, 16 hosts\n"
                      "ftroute gen kns --k 4 --n 2",
       [](std::string*) { return kns_net(4, 2, 1, 0); }},
      {"kns_4x2_p2.net", "KNS 4-ary 2-direct 1-indirect, 2 hosts per router (thesis Fig 4.2)\nftroute gen kns --k 4 --n 2 --p 2",
       [](std::string*) { return kns_net(4, 2, 2, 0); }},
      {"kns_8x2.net", "KNS 8-ary 2-direct 1-indirect: 64 routers, 16 crossbars, 64 hosts\nftroute gen kns --k 8 --n 2",
       [](std::string*) { return kns_net(8, 2, 1, 0); }},
      {"kns_4x3.net", "KNS 4-ary 3-direct 1-indirect: 64 routers, 48 crossbars, 64 hosts\nftroute gen kns --k 4 --n 3",
       [](std::string*) { return kns_net(4, 3, 1, 0); }},
      {"kns_4x3_f3.net",
       "KNS 4-ary 3-direct 1-indirect with 3 failed router-crossbar links\n"
       "ftroute gen kns --k 4 --n 3 --fail-links 3 --seed 2 --keep-connected",
       [](std::string* notes) {
         FaultSpec s;
         s.random_links = 3;
         s.seed = 2;
         s.keep_connected = true;
         return with_faults(kns_net(4, 3, 1, 0), s, notes);
       }},
      {"kns_4x2_ft2.net", "KNS 4-ary 2-direct 2-indirect: fat-tree subnets of 2-ary switches\nftroute gen kns --k 4 --n 2 --ki 2",
       [](std::string*) { return kns_net(4, 2, 1, 2); }},
      {"kns_8x2_ft3.net",
       "KNS 8-ary 2-direct 3-indirect: fat-tree subnets (2-ary 3-trees of 4-port switches), 256 switches\n"
       "ftroute gen kns --k 8 --n 2 --ki 2",
       [](std::string*) { return kns_net(8, 2, 1, 2); }},
  };
  return nets;
}

std::string shipped_net_text(const ShippedNet& n) {
  std::string notes;
  Fabric f = n.make(&notes);
  NetWriteOptions o;
  o.comment = n.comment + "\n" + notes + "(shipped file: regenerate with `cmake --build <build> --target gen-nets`)";
  return write_net(f, o);
}

}  // namespace ftroute::topo
