// KNS hybrid topology generator (seed 002, spec §1). See include/ftroute/kns_topology.hpp for
// the IB mapping and naming, docs/kns.md for the tables.
#include "ftroute/kns_topology.hpp"

#include <algorithm>

#include "ftroute/error.hpp"
#include "ftroute/switch_graph.hpp"

namespace ftroute {

namespace {

long ipow(long b, int e) {
  long r = 1;
  for (int i = 0; i < e; i++) {
    r *= b;
    if (r > (1L << 40)) throw FabricError("KNS too large: " + std::to_string(b) + "^" + std::to_string(e));
  }
  return r;
}

std::vector<int> coords_of(long r, int k, int n) {
  std::vector<int> c(static_cast<size_t>(n));
  for (int i = 0; i < n; i++) {
    c[static_cast<size_t>(i)] = static_cast<int>(r % k);
    r /= k;
  }
  return c;
}

// Line index of router r in dimension d: mixed radix of the other coordinates, dim 0 lowest.
long line_of(const std::vector<int>& c, int k, int d) {
  long p = 0, w = 1;
  for (size_t j = 0; j < c.size(); j++) {
    if (static_cast<int>(j) == d) continue;
    p += c[j] * w;
    w *= k;
  }
  return p;
}

}  // namespace

void KnsParams::validate(bool ib_ports) const {
  auto bad = [&](const std::string& why) { throw FabricError("invalid KNS " + name() + ": " + why); };
  if (k < 2) bad("k must be >= 2");
  if (n < 1) bad("n must be >= 1");
  if (p < 1) bad("p (nodes per router) must be >= 1");
  if (ib_ports && n + p > kMaxPorts) bad("router needs n + p = " + std::to_string(n + p) + " ports (max 254)");
  if (subnet == KnsSubnet::Crossbar) {
    if (ib_ports && k > kMaxPorts) bad("crossbar needs k = " + std::to_string(k) + " ports (max 254)");
  } else {
    if (ki < 2) bad("fat-tree subnets need ki >= 2");
    if (ib_ports && 2 * ki > kMaxPorts) bad("fat-tree switch needs 2ki ports (max 254)");
    long t = 1;
    int s = 0;
    while (t < k) t *= ki, s++;
    if (t != k || s < 2) bad("k = " + std::to_string(k) + " must be ki^s with s >= 2 (ki = " + std::to_string(ki) + ")");
  }
  ipow(k, n);
}

int KnsParams::stages() const {
  if (subnet == KnsSubnet::Crossbar) return 1;
  int s = 0;
  for (long t = 1; t < k; t *= ki) s++;
  return s;
}

std::string KnsParams::name() const {
  std::string s = std::to_string(k) + "-ary " + std::to_string(n) + "-direct ";
  if (subnet == KnsSubnet::Crossbar) return s + "1-indirect (crossbar), p=" + std::to_string(p);
  int st = 0;
  if (ki >= 2)
    for (long t = 1; t < k; t *= ki) st++;
  return s + std::to_string(st) + "-indirect (" + std::to_string(ki) + "-ary fat-tree), p=" + std::to_string(p);
}

std::string kns_router_name(const KnsParams& prm, const std::vector<int>& c) {
  std::string s = "R";
  for (int i = prm.n - 1; i >= 0; i--) s += "_" + std::to_string(c[static_cast<size_t>(i)]);
  return s;
}

std::string kns_host_name(const KnsParams& prm, const std::vector<int>& c, int lc) {
  std::string s = "H";
  for (int i = prm.n - 1; i >= 0; i--) s += "_" + std::to_string(c[static_cast<size_t>(i)]);
  return s + "_" + std::to_string(lc);
}

KnsSize kns_formula_size(const KnsParams& prm) {
  prm.validate(false);
  KnsSize z;
  const long kn = ipow(prm.k, prm.n);
  const long N = kn * prm.p;
  const long s = prm.stages(), ki = prm.arity(), n = prm.n;
  z.nodes = N;
  z.routers = kn;
  z.subnet_switches = kn * s * n / ki;                       // Table 4.3 "Switches"
  z.ib_switches = z.routers + z.subnet_switches;
  z.links = kn * n + (s - 1) * N * n / prm.p + N;             // Table 4.3 "Links"
  z.router_links = kn * n;
  if (prm.subnet == KnsSubnet::FatTree) {
    z.unidir_links = 2 * (kn * n + (s - 1) * N * n / prm.p);  // Table 3.2, FT subnets
    z.switching_elements = N / prm.p * (4 * s * n * ki + (n + prm.p) * (n + prm.p));
  } else {
    z.unidir_links = 2 * kn * n;                              // Table 3.2, crossbar subnets
    z.switching_elements = N / prm.p * (s * n * ki + (n + prm.p) * (n + prm.p));
  }
  z.ports = 2 * z.links;
  z.router_ports = prm.n + prm.p;
  z.subnet_switch_ports = prm.subnet == KnsSubnet::Crossbar ? prm.k : 2 * prm.ki;
  z.diameter = static_cast<int>(2 * s * n);                   // §4.3.1: 2n crossbar, 2sn FT
  z.switch_hops_diameter = static_cast<int>(1 + n * (2 * s));  // router + per dim (2s-1 switches + router)
  return z;
}

KnsSize kns_count_size(const KnsParams& prm, const Fabric& f) {
  KnsSize z;
  std::vector<char> is_router(static_cast<size_t>(f.size()), 0);
  for (int sw : f.switches())
    for (int q = 1; q <= f.node(sw).num_ports; q++) {
      const Port& pt = f.node(sw).port(q);
      if (pt.connected() && !f.node(pt.peer_node).is_switch()) is_router[static_cast<size_t>(sw)] = 1;
    }
  for (int i = 0; i < f.size(); i++) {
    const Node& nd = f.node(i);
    if (!nd.is_switch()) {
      z.nodes++;
      continue;
    }
    z.ib_switches++;
    if (is_router[static_cast<size_t>(i)]) {
      z.routers++;
      z.router_ports = std::max(z.router_ports, nd.num_ports);
    } else {
      z.subnet_switches++;
      z.subnet_switch_ports = std::max(z.subnet_switch_ports, nd.num_ports);
    }
    for (int q = 1; q <= nd.num_ports; q++) {
      const Port& pt = nd.port(q);
      if (!pt.connected()) continue;
      z.ports++;
      bool peer_router = is_router[static_cast<size_t>(pt.peer_node)];
      bool me_router = is_router[static_cast<size_t>(i)];
      if (f.node(pt.peer_node).is_switch() && me_router != peer_router && me_router) z.router_links++;
    }
  }
  for (int i = 0; i < f.size(); i++)
    if (!f.node(i).is_switch())
      for (int q = 1; q <= f.node(i).num_ports; q++) z.ports += f.node(i).port(q).connected();
  z.links = f.num_links();
  const long s = prm.stages();
  z.unidir_links = prm.subnet == KnsSubnet::FatTree ? 2 * (z.links - z.nodes) : 2 * (z.links - z.nodes);
  // Switching elements as in Table 3.2: a d-port switch is d x d elements; the thesis counts a
  // fat-tree switch as 2k_i ports (4 k_i^2) and a crossbar as k ports.
  for (int sw : f.switches()) {
    long d = f.node(sw).num_ports;
    z.switching_elements += d * d;
  }
  // Diameter: longest router-to-router Hybrid-DOR path, counted on the fabric by BFS between
  // routers (equals the DOR length because Hybrid-DOR is minimal).
  int best = 0, best_sw = 0;
  const SwitchGraph g(f);
  std::vector<int> dist, queue;
  for (int src : f.switches()) {
    if (!is_router[static_cast<size_t>(src)]) continue;
    g.bfs(g.pos(src), dist, queue);
    for (int t : f.switches())
      if (is_router[static_cast<size_t>(t)]) {
        const int d = dist[static_cast<size_t>(g.pos(t))];
        best = std::max(best, d);
        best_sw = std::max(best_sw, d + 1);
      }
  }
  z.diameter = best;
  z.switch_hops_diameter = best_sw;
  (void)s;
  return z;
}

Fabric make_kns(const KnsParams& prm, uint8_t lmc, const KnsGenLimits& lim) {
  prm.validate(true);
  KnsSize z = kns_formula_size(prm);
  if (z.ib_switches > lim.max_switches)
    throw FabricError(prm.name() + " needs " + std::to_string(z.ib_switches) + " switches, limit is " +
                      std::to_string(lim.max_switches) + " (ibsim -S default 256; raise the limit to build it offline)");
  if (z.ib_switches + z.nodes > lim.max_nodes)
    throw FabricError(prm.name() + " needs " + std::to_string(z.ib_switches + z.nodes) + " nodes, limit is " +
                      std::to_string(lim.max_nodes) + " (ibsim -N default 2048)");
  long lids = z.ib_switches + z.nodes * (1L << lmc);
  if (lids > kMaxUnicastLid)
    throw FabricError(prm.name() + " with LMC " + std::to_string(lmc) + " needs " + std::to_string(lids) +
                      " unicast LIDs (max 49151)");
  Fabric f;
  const int k = prm.k, n = prm.n;
  const long kn = z.routers;
  const long lines = kn / k;
  uint64_t sw_guid = 0x200000;
  std::vector<int> router(static_cast<size_t>(kn));
  for (long r = 0; r < kn; r++) {
    auto c = coords_of(r, k, n);
    router[static_cast<size_t>(r)] = f.add_node(NodeType::Switch, kns_router_name(prm, c), n + prm.p, sw_guid++);
  }
  // Subnets, dimension by dimension, line by line.
  const int ki = prm.arity(), s = prm.stages();
  const long per_stage = k / ki;  // fat tree: ki^(s-1) switches per stage
  // subnet_port(d, line, t) = (switch, port) the router with line coordinate t attaches to
  std::vector<std::vector<std::pair<int, int>>> attach(static_cast<size_t>(n * lines));
  for (int d = 0; d < n; d++)
    for (long ln = 0; ln < lines; ln++) {
      auto& at = attach[static_cast<size_t>(d * lines + ln)];
      at.resize(static_cast<size_t>(k));
      if (prm.subnet == KnsSubnet::Crossbar) {
        int x = f.add_node(NodeType::Switch, "X_" + std::to_string(d) + "_" + std::to_string(ln), k, sw_guid++);
        for (int t = 0; t < k; t++) at[static_cast<size_t>(t)] = {x, 1 + t};
        continue;
      }
      std::vector<std::vector<int>> st(static_cast<size_t>(s), std::vector<int>(static_cast<size_t>(per_stage)));
      for (int e = 0; e < s; e++)
        for (long o = 0; o < per_stage; o++)
          st[static_cast<size_t>(e)][static_cast<size_t>(o)] =
              f.add_node(NodeType::Switch,
                         "F_" + std::to_string(d) + "_" + std::to_string(ln) + "_" + std::to_string(e) + "_" +
                             std::to_string(o),
                         2 * ki, sw_guid++);
      for (int t = 0; t < k; t++) at[static_cast<size_t>(t)] = {st[0][static_cast<size_t>(t / ki)], 1 + t % ki};
      long wpow = 1;  // ki^e
      for (int e = 0; e + 1 < s; e++, wpow *= ki)
        for (long w = 0; w < per_stage; w++) {
          long we = (w / wpow) % ki;
          for (int j = 0; j < ki; j++) {
            long w2 = w - we * wpow + j * wpow;
            f.connect(st[static_cast<size_t>(e)][static_cast<size_t>(w)], ki + 1 + j,
                      st[static_cast<size_t>(e + 1)][static_cast<size_t>(w2)], 1 + static_cast<int>(we));
          }
        }
    }
  for (long r = 0; r < kn; r++) {
    auto c = coords_of(r, k, n);
    for (int d = 0; d < n; d++) {
      auto [sw, port] = attach[static_cast<size_t>(d * lines + line_of(c, k, d))][static_cast<size_t>(c[static_cast<size_t>(d)])];
      f.connect(router[static_cast<size_t>(r)], 1 + d, sw, port);
    }
  }
  for (long r = 0; r < kn; r++) {
    auto c = coords_of(r, k, n);
    for (int lc = 0; lc < prm.p; lc++) {
      int h = f.add_node(NodeType::Ca, kns_host_name(prm, c, lc), 1);
      f.connect(h, 1, router[static_cast<size_t>(r)], n + 1 + lc);
    }
  }
  f.assign_default_guids();  // CA GUIDs the ibsim way (node 0x100000.., port = node + port)
  f.assign_lids(lmc, true);
  f.validate();
  return f;
}

}  // namespace ftroute
