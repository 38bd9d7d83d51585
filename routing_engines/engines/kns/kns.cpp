#include "kns/kns.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace ftroute {

namespace {

[[noreturn]] void fail(const std::string& why) { throw EngineError(KnsEngine::kName, why); }

std::string coords_text(const kns::Model& m, long R) {
  std::string s = "<";
  for (int i = m.n - 1; i >= 0; i--) s += std::to_string(m.coord(R, i)) + (i ? "," : ">");
  return s;
}

}  // namespace

KnsShape recognize_kns(const Fabric& f, int expect_k, int expect_n) {
  KnsShape sh;
  const int N = f.size();
  std::vector<char> is_router(static_cast<size_t>(N), 0);
  for (int sw : f.switches())
    for (int q = 1; q <= f.node(sw).num_ports; q++) {
      const Port& pt = f.node(sw).port(q);
      if (pt.connected() && !f.node(pt.peer_node).is_switch()) is_router[static_cast<size_t>(sw)] = 1;
    }
  std::vector<int> routers, xbars;
  for (int sw : f.switches()) {
    if (is_router[static_cast<size_t>(sw)]) {
      routers.push_back(sw);
      continue;
    }
    bool any = false;
    for (int q = 1; q <= f.node(sw).num_ports; q++) any |= f.node(sw).port(q).connected();
    if (any) xbars.push_back(sw);  // an unlinked switch is a dead crossbar, ignored
  }
  if (routers.empty()) fail("no switch has a CA attached: not a KNS (routers are the switches with hosts)");
  for (int r : routers)
    for (int q = 1; q <= f.node(r).num_ports; q++) {
      const Port& pt = f.node(r).port(q);
      if (pt.connected() && is_router[static_cast<size_t>(pt.peer_node)])
        fail("router " + f.port_name(r, q) + " is linked directly to router " + f.port_name(pt.peer_node, pt.peer_port) +
             ": routers must only meet through crossbar subnets");
    }
  // n: highest router port cabled to a switch.
  int n = 0;
  for (int r : routers)
    for (int q = 1; q <= f.node(r).num_ports; q++) {
      const Port& pt = f.node(r).port(q);
      if (pt.connected() && f.node(pt.peer_node).is_switch()) n = std::max(n, q);
    }
  if (expect_n > 0) {
    if (n > expect_n)
      fail("a router has a switch link on port " + std::to_string(n) + " but n=" + std::to_string(expect_n) +
           " (router ports 1..n are the dimension links)");
    n = expect_n;
  }
  if (n == 0) fail("no router is linked to a crossbar");
  int p = 0;
  for (int r : routers) {
    const Node& nd = f.node(r);
    p = std::max(p, nd.num_ports - n);
    for (int q = 1; q <= nd.num_ports; q++) {
      const Port& pt = nd.port(q);
      if (!pt.connected()) continue;
      bool peer_sw = f.node(pt.peer_node).is_switch();
      if (!peer_sw && q <= n)
        fail("router " + f.port_name(r, q) + " has host " + f.node(pt.peer_node).id + " on a dimension port (ports 1.." +
             std::to_string(n) + " must be crossbar links, hosts above)");
    }
  }
  // Crossbars: only routers behind them, all on the same router port (= dimension).
  int k = 0;
  std::vector<int> xdim(static_cast<size_t>(N), -1);
  for (int x : xbars) {
    const Node& nd = f.node(x);
    for (int q = 1; q <= nd.num_ports; q++) {
      const Port& pt = nd.port(q);
      if (!pt.connected()) continue;
      if (!is_router[static_cast<size_t>(pt.peer_node)])
        fail("switch " + f.port_name(x, q) + " links to " + f.port_name(pt.peer_node, pt.peer_port) +
             ", which has no host: only crossbar subnets (1-indirect) are supported by this engine");
      int d = pt.peer_port - 1;
      if (xdim[static_cast<size_t>(x)] < 0) xdim[static_cast<size_t>(x)] = d;
      else if (xdim[static_cast<size_t>(x)] != d)
        fail("crossbar " + f.port_name(x, q) + " reaches router port " + std::to_string(pt.peer_port) +
             " but its other links arrive on router port " + std::to_string(xdim[static_cast<size_t>(x)] + 1) +
             ": a crossbar must serve one dimension");
      k = std::max(k, q);
    }
  }
  if (expect_k > 0) {
    if (k > expect_k)
      fail("a crossbar uses port " + std::to_string(k) + " but k=" + std::to_string(expect_k));
    k = expect_k;
  }
  if (k < 2) fail("crossbars have fewer than 2 router links: not a KNS");
  long K = 1;
  for (int i = 0; i < n; i++) {
    K *= k;
    if (K > 1000000) fail("k^n too large");
  }
  if (static_cast<long>(routers.size()) != K)
    fail("found " + std::to_string(routers.size()) + " routers (switches with hosts) but a " + std::to_string(k) +
         "-ary " + std::to_string(n) + "-direct KNS has " + std::to_string(K) +
         " (router faults are not supported; k = highest crossbar port, n = highest router dimension port)");
  sh.k = k;
  sh.n = n;
  sh.p = p;
  sh.model = kns::Model(k, n);
  kns::Model& m = sh.model;
  // Coordinates from the crossbar port each router is cabled to.
  std::vector<int> rpos(static_cast<size_t>(N), -1);
  for (size_t i = 0; i < routers.size(); i++) rpos[static_cast<size_t>(routers[i])] = static_cast<int>(i);
  std::vector<std::vector<int>> co(routers.size(), std::vector<int>(static_cast<size_t>(n), -1));
  for (size_t i = 0; i < routers.size(); i++)
    for (int d = 0; d < n; d++) {
      const Port& pt = f.node(routers[i]).port(d + 1);
      if (!pt.connected()) continue;
      if (pt.peer_port > k)
        fail("router " + f.port_name(routers[i], d + 1) + " is cabled to crossbar port " +
             f.port_name(pt.peer_node, pt.peer_port) + " beyond k=" + std::to_string(k));
      co[i][static_cast<size_t>(d)] = pt.peer_port - 1;
    }
  // Members of each crossbar; propagate coordinates shared along lines (fills coordinates of
  // routers whose own link in that dimension is down) and check they agree.
  std::vector<std::vector<std::pair<int, int>>> members(static_cast<size_t>(N));  // (router pos, xbar port)
  for (int x : xbars)
    for (int q = 1; q <= f.node(x).num_ports; q++) {
      const Port& pt = f.node(x).port(q);
      if (pt.connected()) members[static_cast<size_t>(x)].push_back({rpos[static_cast<size_t>(pt.peer_node)], q});
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (int x : xbars) {
      int d = xdim[static_cast<size_t>(x)];
      for (int e = 0; e < n; e++) {
        if (e == d) continue;
        int val = -1, from = -1;
        for (auto [ri, q] : members[static_cast<size_t>(x)]) {
          int c = co[static_cast<size_t>(ri)][static_cast<size_t>(e)];
          if (c < 0) continue;
          if (val < 0) val = c, from = q;
          else if (c != val)
            fail("crossbar \"" + f.node(x).id + "\" (dimension " + std::to_string(d) + ") joins routers that differ in dimension " +
                 std::to_string(e) + ": " + f.port_name(x, from) + " has coordinate " + std::to_string(val) + ", " +
                 f.port_name(x, q) + " has " + std::to_string(c));
        }
        if (val < 0) continue;
        for (auto [ri, q] : members[static_cast<size_t>(x)])
          if (co[static_cast<size_t>(ri)][static_cast<size_t>(e)] < 0) co[static_cast<size_t>(ri)][static_cast<size_t>(e)] = val, changed = true;
      }
    }
  }
  sh.router_node.assign(static_cast<size_t>(K), -1);
  sh.node_model.assign(static_cast<size_t>(N), -1);
  for (size_t i = 0; i < routers.size(); i++) {
    long R = 0, w = 1;
    for (int d = 0; d < n; d++, w *= k) {
      int c = co[i][static_cast<size_t>(d)];
      if (c < 0)
        fail("cannot determine coordinate " + std::to_string(d) + " of router \"" + f.node(routers[i]).id +
             "\": its dimension-" + std::to_string(d) + " link " + f.port_name(routers[i], d + 1) +
             " is down and no line-mate tells it");
      R += c * w;
    }
    if (sh.router_node[static_cast<size_t>(R)] >= 0)
      fail("routers \"" + f.node(sh.router_node[static_cast<size_t>(R)]).id + "\" and \"" + f.node(routers[i]).id +
           "\" both get coordinates " + coords_text(m, R) + " from their crossbar ports");
    sh.router_node[static_cast<size_t>(R)] = routers[i];
    sh.node_model[static_cast<size_t>(routers[i])] = R;
  }
  sh.xbar_node.assign(static_cast<size_t>(n * m.lines), -1);
  for (int x : xbars) {
    int d = xdim[static_cast<size_t>(x)];
    auto [ri, q] = members[static_cast<size_t>(x)].front();
    long R = sh.node_model[static_cast<size_t>(routers[static_cast<size_t>(ri)])];
    long id = d * m.lines + m.line(R, d);
    if (sh.xbar_node[static_cast<size_t>(id)] >= 0)
      fail("crossbars \"" + f.node(sh.xbar_node[static_cast<size_t>(id)]).id + "\" and \"" + f.node(x).id +
           "\" both serve the dimension-" + std::to_string(d) + " line of router " + coords_text(m, R));
    sh.xbar_node[static_cast<size_t>(id)] = x;
    sh.node_model[static_cast<size_t>(x)] = m.K + id;
  }
  // Faults: dead crossbars and router links that are not cabled as expected.
  for (long id = 0; id < n * m.lines; id++)
    if (sh.xbar_node[static_cast<size_t>(id)] < 0) {
      m.xbar_dead[static_cast<size_t>(id)] = 1;
      sh.faults.push_back("crossbar [" + std::to_string(id / m.lines) + "," + std::to_string(id % m.lines) + "] missing");
    }
  for (long R = 0; R < K; R++)
    for (int d = 0; d < n; d++) {
      int rn = sh.router_node[static_cast<size_t>(R)];
      const Port& pt = f.node(rn).port(d + 1);
      int x = sh.xbar_node[static_cast<size_t>(d * m.lines + m.line(R, d))];
      bool ok = pt.connected() && x >= 0 && pt.peer_node == x && pt.peer_port == m.coord(R, d) + 1;
      if (!ok) {
        m.link_bad[static_cast<size_t>(R * n + d)] = 1;
        if (x >= 0) sh.faults.push_back("link " + f.port_name(rn, d + 1) + " down");
      }
    }
  return sh;
}

Routing KnsEngine::route(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  options.check_known(kName, option_keys());
  const int max_in = static_cast<int>(options.get_int("max_in", 2));
  if (max_in < 0 || max_in > 2) throw OptionError("kns: max_in must be 0, 1 or 2");
  const bool xordet = options.get_bool("xordet", false);
  const int classes = static_cast<int>(options.get_int("vls", xordet ? 2 : 1));
  if (classes < 1 || classes > 8 || (classes & (classes - 1)))
    throw OptionError("kns: vls must be 1, 2, 4 or 8 (XORDET classes, a power of two)");
  if (!xordet && classes != 1) throw OptionError("kns: vls=" + std::to_string(classes) + " needs xordet=1");
  const int max_vls = static_cast<int>(options.get_int("max_vls", 8));
  const bool lmc_alt = options.get_bool("lmc_alt", true);
  if (max_vls < 1 || max_vls > 15) throw OptionError("kns: max_vls must be 1..15");
  if (classes > max_vls) throw OptionError("kns: vls=" + std::to_string(classes) + " exceeds max_vls=" + std::to_string(max_vls));

  KnsShape sh = recognize_kns(fabric, static_cast<int>(options.get_int("k", 0)), static_cast<int>(options.get_int("n", 0)));
  const kns::Model& m = sh.model;
  Routing r;
  r.engine = kName;
  r.lfts = Lfts(fabric);
  const auto eps = fabric.end_ports();
  const auto& sws = fabric.switches();
  // Destination model node and XORDET id of every end port.
  int nbits = 0;
  while ((1L << nbits) < m.K * std::max(sh.p, 1)) nbits++;
  struct Dest {
    long model = -1;
    uint8_t deliver = 0;  // port on the destination switch (0 = the switch itself)
    int cls = 0;
    bool ca = false;
    int xdim = -1;   // crossbar destination: its dimension
  };
  std::vector<Dest> dests(eps.size());
  for (size_t i = 0; i < eps.size(); i++) {
    const EndPort& ep = eps[i];
    Dest& d = dests[i];
    if (fabric.node(ep.node).is_switch()) {
      d.model = sh.node_model[static_cast<size_t>(ep.node)];
      if (d.model >= m.K) d.xdim = static_cast<int>((d.model - m.K) / m.lines);
      if (d.model >= 0 && d.model < m.K) d.cls = kns::xordet_class(static_cast<uint64_t>(d.model * sh.p), nbits, classes);
      continue;
    }
    Attach at = fabric.attach(ep.base_lid);
    if (!at.valid()) continue;
    d.model = sh.node_model[static_cast<size_t>(at.sw)];
    d.deliver = at.port;
    d.ca = true;
    int c = at.port - sh.n - 1;
    d.cls = kns::xordet_class(static_cast<uint64_t>(d.model * sh.p + c), nbits, classes);
  }
  // Trees, one per destination model node.
  // Crossbar destinations count restarts with the crossbar's dimension last: their paths correct
  // the other dimensions in order and then enter the crossbar (one final "restart" at most).
  // CA destinations with LMC > 0 (lmc_alt=1) get alternative trees on their extra LIDs for the
  // routers the base tree serves with more than max_in intermediate routers (kns::build_lid_trees);
  // LID offset j uses tree j when it exists, else the base tree.
  std::unordered_map<long, kns::LidTrees> trees;
  auto lid_trees = [&](long dm, int num_lids) -> const kns::LidTrees& {
    const long key = dm * 256 + num_lids;  // router LIDs (LMC 0) and CA LIDs of one router differ
    auto it = trees.find(key);
    if (it == trees.end()) {
      kns::LidTrees lt;
      if (dm < m.K) {
        lt = kns::build_lid_trees(m, dm, max_in, lmc_alt ? num_lids : 1);
      } else {
        lt.trees.push_back(kns::build_tree(m, dm, static_cast<int>((dm - m.K) / m.lines)));
      }
      it = trees.emplace(key, std::move(lt)).first;
    }
    return it->second;
  };
  auto tree_of = [&](size_t i, Lid lid) -> const kns::Tree& {
    const kns::LidTrees& lt = lid_trees(dests[i].model, static_cast<int>(eps[i].last_lid() - eps[i].base_lid + 1));
    const size_t j = dests[i].ca ? static_cast<size_t>(lid - eps[i].base_lid) : 0;
    return lt.trees[j < lt.trees.size() ? j : 0];
  };
  // Number of distinct trees the LIDs of end port i use (their offsets are 0..count-1).
  auto trees_used = [&](size_t i) -> Lid {
    if (!dests[i].ca) return 1;
    const Lid nl = static_cast<Lid>(eps[i].last_lid() - eps[i].base_lid + 1);
    return std::min<Lid>(nl, static_cast<Lid>(lid_trees(dests[i].model, nl).trees.size()));
  };
  long alt_pairs = 0;
  int max_restarts = 0;
  long rerouted_pairs = 0, unreachable_switch_pairs = 0;
  for (size_t i = 0; i < eps.size(); i++) {
    const Dest& d = dests[i];
    if (d.model < 0) continue;
    for (Lid lid = eps[i].base_lid; lid <= eps[i].last_lid(); lid++) {
      const kns::Tree& t = tree_of(i, lid);
      for (int sw : sws) {
        long mu = sh.node_model[static_cast<size_t>(sw)];
        if (mu < 0) continue;
        if (mu == d.model) {
          r.lfts.set(sw, lid, d.deliver);
          continue;
        }
        int s = t.succ[static_cast<size_t>(mu)];
        if (s < 0) {
          if (d.ca && mu < m.K)
            fail("router \"" + fabric.node(sw).id + "\" " + coords_text(m, mu) + " cannot reach " +
                 fabric.node(eps[i].node).id + " (LID " + std::to_string(lid) +
                 "): the faults disconnect it (not tolerated)");
          unreachable_switch_pairs++;
          continue;
        }
        r.lfts.set(sw, lid, static_cast<uint8_t>(s + 1));  // router: port 1+dim; crossbar: port 1+coord
      }
    }
    if (d.ca) {
      const int nl = static_cast<int>(eps[i].last_lid() - eps[i].base_lid + 1);
      const kns::LidTrees& lt = lid_trees(d.model, nl);
      for (long R = 0; R < m.K; R++) {
        if (R == d.model) continue;
        int rs = lt.best[static_cast<size_t>(R)];
        if (rs > max_in)
          fail("router \"" + fabric.node(sh.router_node[static_cast<size_t>(R)]).id + "\" needs " + std::to_string(rs) +
               " intermediate routers to reach " + fabric.node(eps[i].node).id + " (max_in=" + std::to_string(max_in) +
               (nl > 1 ? ", on the best of its " + std::to_string(lt.trees.size()) + " LID tree(s)" : std::string()) +
               "): fault set not tolerated");
        max_restarts = std::max(max_restarts, rs);
        alt_pairs += lt.choice[static_cast<size_t>(R)] != 0;
      }
    }
  }
  // VL layers: per (source switch, end port) a layer; layer 0 = no restarts.
  const size_t S = sws.size();
  std::vector<int> swpos(static_cast<size_t>(fabric.size()), -1);
  for (size_t i = 0; i < S; i++) swpos[static_cast<size_t>(sws[i])] = static_cast<int>(i);
  const size_t LIDS = static_cast<size_t>(fabric.max_lid()) + 1;
  auto layer_tab = std::make_shared<std::vector<uint8_t>>(S * LIDS, 0);  // [switch pos * LIDS + dlid]
  struct LayerGraph {
    std::unordered_map<uint32_t, std::vector<uint32_t>> adj;
    std::unordered_set<uint64_t> edges;
  };
  std::vector<std::vector<LayerGraph>> graphs(static_cast<size_t>(classes));  // [class][layer]
  const int max_layers = max_vls / classes;
  int layers_used = 1;
  int max_sl = classes - 1;
  auto reaches = [](const LayerGraph& g, uint32_t from, uint32_t to) {
    std::vector<uint32_t> st{from};
    std::unordered_set<uint32_t> seen{from};
    while (!st.empty()) {
      uint32_t u = st.back();
      st.pop_back();
      if (u == to) return true;
      auto it = g.adj.find(u);
      if (it == g.adj.end()) continue;
      for (uint32_t v : it->second)
        if (seen.insert(v).second) st.push_back(v);
    }
    return false;
  };
  // Channel sequence of the path from switch `sw` to `lid` (channel = node * 256 + out port).
  auto path_channels = [&](int sw, Lid lid) {
    std::vector<uint32_t> ch;
    int cur = sw;
    for (int guard = 0; guard < 4 * fabric.size(); guard++) {
      uint8_t port = r.lfts.get(cur, lid);
      if (port == kNoPath || port == 0) break;
      ch.push_back(static_cast<uint32_t>(cur) * 256u + port);
      int nx = fabric.node(cur).port(port).peer_node;
      if (nx < 0 || !fabric.node(nx).is_switch()) break;
      cur = nx;
    }
    return ch;
  };
  // Pass 1: paths without restarts (pure Hybrid-DOR legs) into layer 0 of their class. Their
  // channel ranks (dimension, stage) strictly increase, so layer 0 is acyclic by construction;
  // the edges are recorded so that pass 2 can test other paths against them.
  for (int c = 0; c < classes; c++) graphs[static_cast<size_t>(c)].emplace_back();
  for (size_t i = 0; i < eps.size(); i++) {
    const Dest& d = dests[i];
    if (d.model < 0) continue;
    if (d.xdim >= 0 && d.xdim != m.n - 1) continue;  // not rank-increasing: pass 2 checks them
    LayerGraph& g0 = graphs[static_cast<size_t>(d.cls)][0];
    for (Lid lid = eps[i].base_lid; lid < eps[i].base_lid + trees_used(i); lid++) {
      const kns::Tree& t = tree_of(i, lid);
      for (size_t si = 0; si < S; si++) {
        long mu = sh.node_model[static_cast<size_t>(sws[si])];
        if (mu < 0 || mu == d.model || t.succ[static_cast<size_t>(mu)] < 0 || t.restarts[static_cast<size_t>(mu)] != 0) continue;
        auto ch = path_channels(sws[si], lid);
        for (size_t j = 0; j + 1 < ch.size(); j++)
          if (g0.edges.insert((static_cast<uint64_t>(ch[j]) << 32) | ch[j + 1]).second) g0.adj[ch[j]].push_back(ch[j + 1]);
      }
    }
  }
  // Pass 2: paths through intermediate routers. Data paths (to CA LIDs) start at layer 1 (the
  // thesis' "next virtual network"); management paths to switch LIDs may stay on layer 0.
  for (size_t i = 0; i < eps.size(); i++) {
    const Dest& d = dests[i];
    if (d.model < 0) continue;
    for (Lid lid = eps[i].base_lid; lid < eps[i].base_lid + trees_used(i); lid++) {
    const kns::Tree& t = tree_of(i, lid);
    for (size_t si = 0; si < S; si++) {
      int sw = sws[si];
      long mu = sh.node_model[static_cast<size_t>(sw)];
      const bool safe = d.xdim < 0 || d.xdim == m.n - 1;
      if (mu < 0 || mu == d.model || t.succ[static_cast<size_t>(mu)] < 0 || (safe && t.restarts[static_cast<size_t>(mu)] == 0))
        continue;
      if (mu >= m.K) continue;  // crossbar sources: see docs/kns.md (management only, SL 0)
      if (d.ca && mu < m.K && lid == eps[i].base_lid) rerouted_pairs++;
      auto ch = path_channels(sw, lid);
      std::vector<std::pair<uint32_t, uint32_t>> path_edges;
      for (size_t j = 0; j + 1 < ch.size(); j++) path_edges.push_back({ch[j], ch[j + 1]});
      auto& gl = graphs[static_cast<size_t>(d.cls)];
      int placed = -1;
      for (int L = d.ca ? 1 : 0; L < max_layers && placed < 0; L++) {
        if (static_cast<int>(gl.size()) <= L) gl.emplace_back();
        LayerGraph& g = gl[static_cast<size_t>(L)];
        std::vector<std::pair<uint32_t, uint32_t>> added;
        for (auto e : path_edges)
          if (g.edges.insert((static_cast<uint64_t>(e.first) << 32) | e.second).second) {
            g.adj[e.first].push_back(e.second);
            added.push_back(e);
          }
        bool cyc = false;
        for (auto e : added)
          if (reaches(g, e.second, e.first)) {
            cyc = true;
            break;
          }
        if (!cyc) {
          placed = L;
          break;
        }
        for (auto e : added) {
          g.edges.erase((static_cast<uint64_t>(e.first) << 32) | e.second);
          auto& v = g.adj[e.first];
          v.erase(std::find(v.begin(), v.end(), e.second));
        }
      }
      if (placed < 0)
        fail("the rerouted paths need more than " + std::to_string(max_layers) + " VL layers x " + std::to_string(classes) +
             " classes (max_vls=" + std::to_string(max_vls) + "): path from \"" + fabric.node(sw).id + "\" to " +
             fabric.node(eps[i].node).id + " does not fit");
      (*layer_tab)[si * LIDS + lid] = static_cast<uint8_t>(placed);
      layers_used = std::max(layers_used, placed + 1);
      max_sl = std::max(max_sl, placed * classes + d.cls);
    }
    }
    // LIDs beyond the trees in use share the base LID's paths, hence its layers.
    for (Lid lid = eps[i].base_lid + trees_used(i); lid <= eps[i].last_lid(); lid++)
      for (size_t si = 0; si < S; si++) (*layer_tab)[si * LIDS + lid] = (*layer_tab)[si * LIDS + eps[i].base_lid];
  }
  // path_sl: SL = layer * classes + class; identity SL2VL (VL = SL).
  auto lid_ep = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(fabric.max_lid()) + 1, -1);
  for (size_t i = 0; i < eps.size(); i++)
    for (Lid l = eps[i].base_lid; l <= eps[i].last_lid(); l++) (*lid_ep)[l] = static_cast<int32_t>(i);
  auto src_sw = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(fabric.max_lid()) + 1, -1);
  for (size_t i = 0; i < eps.size(); i++) {
    int sw = fabric.node(eps[i].node).is_switch() ? eps[i].node : fabric.attach(eps[i].base_lid).sw;
    int sp = sw >= 0 ? swpos[static_cast<size_t>(sw)] : -1;
    for (Lid l = eps[i].base_lid; l <= eps[i].last_lid(); l++) (*src_sw)[l] = sp;
  }
  auto cls = std::make_shared<std::vector<uint8_t>>(eps.size());
  for (size_t i = 0; i < eps.size(); i++) (*cls)[i] = static_cast<uint8_t>(dests[i].cls);
  const size_t E = eps.size();
  r.path_sl = [layer_tab, lid_ep, src_sw, cls, classes, LIDS](Lid slid, Lid dlid) -> uint8_t {
    if (dlid >= lid_ep->size() || (*lid_ep)[dlid] < 0) return 0;
    size_t di = static_cast<size_t>((*lid_ep)[dlid]);
    int layer = 0;
    if (slid < src_sw->size() && (*src_sw)[slid] >= 0) layer = (*layer_tab)[static_cast<size_t>((*src_sw)[slid]) * LIDS + dlid];
    return static_cast<uint8_t>(layer * classes + (*cls)[di]);
  };
  // DLID each source should use (the thesis keeps the IN choice at the source, §6.4; here it is
  // the LMC offset of the tree that serves the source's router best).
  {
    auto choice = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(m.K) * E, 0);
    for (size_t i = 0; i < E; i++)
      if (dests[i].ca) {
        const kns::LidTrees& lt = lid_trees(dests[i].model, static_cast<int>(eps[i].last_lid() - eps[i].base_lid + 1));
        for (long R = 0; R < m.K; R++) (*choice)[static_cast<size_t>(R) * E + i] = lt.choice[static_cast<size_t>(R)];
      }
    auto src_router = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(fabric.max_lid()) + 1, -1);
    for (size_t i = 0; i < E; i++) {
      if (fabric.node(eps[i].node).is_switch()) continue;
      Attach at = fabric.attach(eps[i].base_lid);
      long R = at.valid() ? sh.node_model[static_cast<size_t>(at.sw)] : -1;
      for (Lid l = eps[i].base_lid; l <= eps[i].last_lid(); l++) (*src_router)[l] = static_cast<int32_t>(R);
    }
    std::vector<Lid> base(E);
    for (size_t i = 0; i < E; i++) base[i] = eps[i].base_lid;
    auto bases = std::make_shared<std::vector<Lid>>(std::move(base));
    dlid_choice_ = [choice, src_router, lid_ep, bases, E](Lid slid, Lid dlid) -> Lid {
      if (dlid >= lid_ep->size() || (*lid_ep)[dlid] < 0) return dlid;
      const size_t di = static_cast<size_t>((*lid_ep)[dlid]);
      const long R = slid < src_router->size() ? (*src_router)[slid] : -1;
      if (R < 0) return dlid;
      return static_cast<Lid>((*bases)[di] + (*choice)[static_cast<size_t>(R) * E + di]);
    };
  }
  r.num_vls = max_sl + 1;
  r.notes.push_back("KNS " + std::to_string(sh.k) + "-ary " + std::to_string(sh.n) + "-direct 1-indirect, p=" +
                    std::to_string(sh.p) + ", " + std::to_string(sh.faults.size()) + " faults detected");
  for (size_t i = 0; i < sh.faults.size() && i < 20; i++) r.notes.push_back("fault: " + sh.faults[i]);
  r.notes.push_back(std::to_string(rerouted_pairs) + " router->CA-LID routes use intermediate routers (max " +
                    std::to_string(max_restarts) + " per path); " + std::to_string(layers_used) + " VL layer(s) x " +
                    std::to_string(classes) + " XORDET class(es) = " + std::to_string(r.num_vls) + " VL(s)");
  if (alt_pairs)
    r.notes.push_back(std::to_string(alt_pairs) + " (router, CA) pairs need an alternative LMC LID (DLID = base + offset) to stay within max_in=" +
                      std::to_string(max_in) + " intermediate routers");
  if (unreachable_switch_pairs)
    r.notes.push_back(std::to_string(unreachable_switch_pairs) + " switch -> switch-LID entries have no route");
  return r;
}

}  // namespace ftroute
