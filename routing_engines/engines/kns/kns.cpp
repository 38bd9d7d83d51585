#include "kns/kns.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "ftroute/incremental_dag.hpp"
#include "ftroute/route_walk.hpp"
#include "ftroute/switch_graph.hpp"

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
        fail("router " + f.port_name(r, q) + " has host " + f.node_name(pt.peer_node) + " on a dimension port (ports 1.." +
             std::to_string(n) + " must be crossbar links, hosts above)");
    }
  }
  // Subnets = connected components of the switches without hosts. A component of one switch is
  // a crossbar; a larger one must be a complete k_i-ary s-tree of 2k_i-port switches wired as the
  // generator does (spec §1.3, docs/kns.md). Each subnet serves one dimension (the router port
  // its links arrive on) and gives every router attached to it its coordinate in that dimension.
  struct Sub {
    std::vector<int> sws;
    int d = -1;
    int kk = 0;                                       // routers per line this subnet serves
    std::vector<std::tuple<int, int, int>> att;      // (router fabric node, coordinate, subnet port node*256+port)
    std::vector<std::pair<int, int>> at_coord;        // coordinate -> (switch, port) routers attach to
  };
  std::vector<Sub> subs;
  std::vector<int> sub_of(static_cast<size_t>(N), -1);
  for (int x : xbars) {
    if (sub_of[static_cast<size_t>(x)] >= 0) continue;
    Sub sb;
    std::vector<int> st{x};
    sub_of[static_cast<size_t>(x)] = static_cast<int>(subs.size());
    while (!st.empty()) {
      int u = st.back();
      st.pop_back();
      sb.sws.push_back(u);
      for (int q = 1; q <= f.node(u).num_ports; q++) {
        const Port& pt = f.node(u).port(q);
        if (!pt.connected() || !f.node(pt.peer_node).is_switch() || is_router[static_cast<size_t>(pt.peer_node)]) continue;
        if (sub_of[static_cast<size_t>(pt.peer_node)] < 0) {
          sub_of[static_cast<size_t>(pt.peer_node)] = static_cast<int>(subs.size());
          st.push_back(pt.peer_node);
        }
      }
    }
    std::sort(sb.sws.begin(), sb.sws.end());
    subs.push_back(std::move(sb));
  }
  std::vector<int> ft_stage(static_cast<size_t>(N), -1), ft_label(static_cast<size_t>(N), -1);
  int ki = 0, stages = 1;
  bool any_xbar = false, any_ft = false;
  auto set_dim = [&](Sub& sb, int sw, int q, const Port& pt) {
    int d = pt.peer_port - 1;
    if (sb.d < 0) sb.d = d;
    else if (sb.d != d)
      fail("crossbar " + f.port_name(sw, q) + " reaches router port " + std::to_string(pt.peer_port) +
           " but its other links arrive on router port " + std::to_string(sb.d + 1) + ": a crossbar must serve one dimension");
  };
  for (Sub& sb : subs) {
    if (sb.sws.size() == 1) {  // crossbar
      any_xbar = true;
      int x = sb.sws[0];
      for (int q = 1; q <= f.node(x).num_ports; q++) {
        const Port& pt = f.node(x).port(q);
        if (!pt.connected()) continue;
        set_dim(sb, x, q, pt);
        sb.att.emplace_back(pt.peer_node, q - 1, x * 256 + q);
        sb.kk = std::max(sb.kk, q);
      }
      sb.at_coord.assign(static_cast<size_t>(std::max(sb.kk, 1)), {x, 0});
      for (int c = 0; c < sb.kk; c++) sb.at_coord[static_cast<size_t>(c)] = {x, c + 1};
      continue;
    }
    // fat-tree subnet
    any_ft = true;
    const int first = sb.sws[0];
    for (int u : sb.sws) {
      const int np = f.node(u).num_ports;
      if (np % 2 || (ki && np != 2 * ki))
        fail("switch " + f.node_name(u) + " of a fat-tree subnet has " + std::to_string(np) +
             " ports: fat-tree subnets must be built of 2k_i-port switches (ports 1..k_i down, k_i+1..2k_i up), all of one size");
      ki = np / 2;
    }
    auto peer_in_sub = [&](int u, int q) {
      const Port& pt = f.node(u).port(q);
      return pt.connected() && sub_of[static_cast<size_t>(pt.peer_node)] == sub_of[static_cast<size_t>(first)];
    };
    // stage = number of down steps to the routers (leaves: no switch on a down port)
    for (int u : sb.sws) {
      for (int q = ki + 1; q <= 2 * ki; q++)
        if (f.node(u).port(q).connected() && !peer_in_sub(u, q))
          fail("fat-tree subnet switch " + f.port_name(u, q) + " (an up port) links to router " +
               f.port_name(f.node(u).port(q).peer_node, f.node(u).port(q).peer_port) + ": routers must hang on down ports 1.." +
               std::to_string(ki));
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (int u : sb.sws) {
        int stg = 0;
        bool known = true;
        for (int q = 1; q <= ki; q++)
          if (peer_in_sub(u, q)) {
            int c = ft_stage[static_cast<size_t>(f.node(u).port(q).peer_node)];
            if (c < 0) known = false;
            else stg = std::max(stg, c + 1);
          }
        if (known && stg != ft_stage[static_cast<size_t>(u)]) {
          if (stg > static_cast<int>(sb.sws.size()))
            fail("fat-tree subnet containing " + f.node_name(first) + " has a cycle through down ports");
          ft_stage[static_cast<size_t>(u)] = stg, changed = true;
        }
      }
    }
    int s = 0;
    for (int u : sb.sws) {
      if (ft_stage[static_cast<size_t>(u)] < 0)
        fail("fat-tree subnet containing " + f.node_name(first) + " has a cycle through down ports");
      s = std::max(s, ft_stage[static_cast<size_t>(u)] + 1);
    }
    if (any_ft && stages > 1 && s != stages)
      fail("fat-tree subnets of different depths (" + std::to_string(stages) + " and " + std::to_string(s) + ")");
    stages = s;
    long kk = 1;
    for (int i = 0; i < s; i++) kk *= ki;
    // complete k_i-ary s-tree: s * k/k_i switches, every up port of a non-top switch and every
    // down port of a non-leaf switch linked inside the subnet (faults inside the subnet are not
    // supported: docs/kns.md)
    if (static_cast<long>(sb.sws.size()) != s * kk / ki)
      fail("fat-tree subnet containing " + f.node_name(first) + " has " + std::to_string(sb.sws.size()) +
           " switches but a complete " + std::to_string(ki) + "-ary " + std::to_string(s) + "-tree has " +
           std::to_string(s * kk / ki) + " (switch or link faults inside fat-tree subnets are not supported)");
    for (int u : sb.sws) {
      const int e = ft_stage[static_cast<size_t>(u)];
      for (int q = 1; q <= 2 * ki; q++) {
        bool need = q > ki ? e < s - 1 : e > 0;
        if (need && !peer_in_sub(u, q))
          fail("fat-tree subnet link " + f.port_name(u, q) + " is missing (switch or link faults inside fat-tree subnets are "
               "not supported; only router-subnet links may fail)");
      }
    }
    // labels: a leaf's digit i = (down port its first up path arrives on at stage i+1) - 1; a
    // stage-e switch = label of a child with digit e-1 := (child's up port) - k_i - 1.
    auto digit = [&](int w, int i) {
      for (int j = 0; j < i; j++) w /= ki;
      return w % ki;
    };
    auto with_digit = [&](int w, int i, int v) {
      int p = 1;
      for (int j = 0; j < i; j++) p *= ki;
      return w + (v - (w / p) % ki) * p;
    };
    for (int e = 0; e < s; e++)
      for (int u : sb.sws) {
        if (ft_stage[static_cast<size_t>(u)] != e) continue;
        int w = 0;
        if (e == 0) {
          int cur = u, pw = 1;
          for (int i = 0; i + 1 < s; i++, pw *= ki) {
            const Port& pt = f.node(cur).port(ki + 1);
            w += (pt.peer_port - 1) * pw;
            cur = pt.peer_node;
          }
        } else {
          const Port& pt = f.node(u).port(1);
          w = with_digit(ft_label[static_cast<size_t>(pt.peer_node)], e - 1, pt.peer_port - ki - 1);
        }
        ft_label[static_cast<size_t>(u)] = w;
      }
    // every link must follow the wiring: up port k_i+1+j of (e, w) -> (e+1, w with digit e := j)
    // at down port 1 + digit e of w; labels unique per stage
    std::map<std::pair<int, int>, int> by_label;
    for (int u : sb.sws) {
      const int e = ft_stage[static_cast<size_t>(u)], w = ft_label[static_cast<size_t>(u)];
      auto [it, fresh] = by_label.emplace(std::pair<int, int>{e, w}, u);
      if (!fresh)
        fail("fat-tree subnet switches " + f.node_name(it->second) + " and " + f.node_name(u) +
             " get the same position (stage " + std::to_string(e) + "): not wired as a k-ary s-tree (docs/kns.md)");
      if (e == s - 1) continue;
      for (int j = 0; j < ki; j++) {
        const Port& pt = f.node(u).port(ki + 1 + j);
        if (ft_stage[static_cast<size_t>(pt.peer_node)] != e + 1 || ft_label[static_cast<size_t>(pt.peer_node)] != with_digit(w, e, j) ||
            pt.peer_port != 1 + digit(w, e))
          fail("fat-tree subnet link " + f.port_name(u, ki + 1 + j) + " -> " + f.port_name(pt.peer_node, pt.peer_port) +
               " does not follow the k-ary s-tree wiring (up port k_i+1+j of a stage-e switch must reach the stage-(e+1) "
               "switch with digit e replaced by j, at down port 1 + the old digit; docs/kns.md)");
      }
    }
    sb.kk = static_cast<int>(kk);
    sb.at_coord.assign(static_cast<size_t>(kk), {-1, 0});
    for (int u : sb.sws) {
      if (ft_stage[static_cast<size_t>(u)] != 0) continue;
      for (int q = 1; q <= ki; q++) {
        const int c = (q - 1) + ki * ft_label[static_cast<size_t>(u)];
        sb.at_coord[static_cast<size_t>(c)] = {u, q};
        const Port& pt = f.node(u).port(q);
        if (!pt.connected()) continue;
        set_dim(sb, u, q, pt);
        sb.att.emplace_back(pt.peer_node, c, u * 256 + q);
      }
    }
  }
  if (any_xbar && any_ft) fail("the fabric mixes crossbar and fat-tree subnets: use one kind");
  int k = 0;
  for (const Sub& sb : subs) k = std::max(k, sb.kk);
  if (any_ft)
    for (const Sub& sb : subs)
      if (sb.kk != k) fail("fat-tree subnets of different sizes");
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
  sh.ki = any_ft ? ki : 0;
  sh.s = any_ft ? stages : 1;
  sh.model = kns::Model(k, n);
  kns::Model& m = sh.model;
  // Coordinates from the subnet position each router is cabled to.
  std::vector<int> rpos(static_cast<size_t>(N), -1);
  for (size_t i = 0; i < routers.size(); i++) rpos[static_cast<size_t>(routers[i])] = static_cast<int>(i);
  std::vector<std::vector<int>> co(routers.size(), std::vector<int>(static_cast<size_t>(n), -1));
  for (Sub& sb : subs)
    for (auto [rn, c, at] : sb.att) {
      if (c >= k)
        fail("router " + f.port_name(rn, sb.d + 1) + " is cabled to subnet port " + f.port_name(at / 256, at % 256) +
             " beyond k=" + std::to_string(k));
      co[static_cast<size_t>(rpos[static_cast<size_t>(rn)])][static_cast<size_t>(sb.d)] = c;
    }
  // Propagate coordinates shared along lines (fills coordinates of routers whose own link in
  // that dimension is down) and check they agree.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Sub& sb : subs) {
      for (int e = 0; e < n; e++) {
        if (e == sb.d) continue;
        int val = -1, from = -1;
        for (auto [rn, c0, at] : sb.att) {
          int c = co[static_cast<size_t>(rpos[static_cast<size_t>(rn)])][static_cast<size_t>(e)];
          if (c < 0) continue;
          if (val < 0) val = c, from = at;
          else if (c != val)
            fail("crossbar " + f.node_name(sb.sws[0]) + " (dimension " + std::to_string(sb.d) + ") joins routers that differ in dimension " +
                 std::to_string(e) + ": " + f.port_name(from / 256, from % 256) + " has coordinate " + std::to_string(val) + ", " +
                 f.port_name(at / 256, at % 256) + " has " + std::to_string(c));
        }
        if (val < 0) continue;
        for (auto [rn, c0, at] : sb.att) {
          int& c = co[static_cast<size_t>(rpos[static_cast<size_t>(rn)])][static_cast<size_t>(e)];
          if (c < 0) c = val, changed = true;
        }
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
        fail("cannot determine coordinate " + std::to_string(d) + " of router " + f.node_name(routers[i]) +
             ": its dimension-" + std::to_string(d) + " link " + f.port_name(routers[i], d + 1) +
             " is down and no line-mate tells it");
      R += c * w;
    }
    if (sh.router_node[static_cast<size_t>(R)] >= 0)
      fail("routers " + f.node_name(sh.router_node[static_cast<size_t>(R)]) + " and " + f.node_name(routers[i]) +
           " both get coordinates " + coords_text(m, R) + " from their crossbar ports");
    sh.router_node[static_cast<size_t>(R)] = routers[i];
    sh.node_model[static_cast<size_t>(routers[i])] = R;
  }
  sh.xbar_node.assign(static_cast<size_t>(n * m.lines), -1);
  std::vector<int> sub_at(static_cast<size_t>(n * m.lines), -1);
  for (size_t si = 0; si < subs.size(); si++) {
    const Sub& sb = subs[si];
    if (sb.att.empty()) fail("subnet switch " + f.node_name(sb.sws[0]) + " has no router link");
    const int d = sb.d;
    long R = sh.node_model[static_cast<size_t>(std::get<0>(sb.att.front()))];
    long id = d * m.lines + m.line(R, d);
    if (sh.xbar_node[static_cast<size_t>(id)] >= 0)
      fail("crossbars " + f.node_name(sh.xbar_node[static_cast<size_t>(id)]) + " and " + f.node_name(sb.sws[0]) +
           " both serve the dimension-" + std::to_string(d) + " line of router " + coords_text(m, R));
    sh.xbar_node[static_cast<size_t>(id)] = sb.sws[0];
    sub_at[static_cast<size_t>(id)] = static_cast<int>(si);
    for (int u : sb.sws) sh.node_model[static_cast<size_t>(u)] = m.K + id;
  }
  if (any_ft) {
    sh.ft_stage = std::move(ft_stage);
    sh.ft_label = std::move(ft_label);
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
      int si = sub_at[static_cast<size_t>(d * m.lines + m.line(R, d))];
      bool ok = false;
      if (si >= 0 && pt.connected()) {
        const auto& ac = subs[static_cast<size_t>(si)].at_coord;
        const int c = m.coord(R, d);
        ok = c < static_cast<int>(ac.size()) && pt.peer_node == ac[static_cast<size_t>(c)].first &&
             pt.peer_port == ac[static_cast<size_t>(c)].second;
      }
      if (!ok) {
        m.link_bad[static_cast<size_t>(R * n + d)] = 1;
        if (si >= 0) sh.faults.push_back("link " + f.port_name(rn, d + 1) + " down");
      }
    }
  return sh;
}

std::vector<OptionSpec> KnsEngine::option_specs() const {
  return {
      OptionSpec::integer("max_in", 0, 2, "2", "most intermediate routers a path around faults may use"),
      OptionSpec::boolean("xordet", "false", "XORDET destination classes (Penaranda): more VLs, less head-of-line blocking"),
      OptionSpec::integer("vls", 1, 8, "1", "XORDET classes: 1, 2, 4 or 8 (default 2 with xordet)"),
      OptionSpec::integer("max_vls", 1, 15, "8", "VLs the engine may use; more needed => refused"),
      OptionSpec::integer("k", 0, 65535, "0", "expected routers per dimension (0: recognise); refused if the fabric differs"),
      OptionSpec::integer("n", 0, 16, "0", "expected dimensions (0: recognise); refused if the fabric differs"),
      OptionSpec::boolean("lmc_alt", "true", "with LMC: per-source alternative trees on the extra LIDs"),
      OptionSpec::boolean("switch_sources", "false", "also give switch-sourced paths deadlock-free SLs (needed for ibdmchk -a)"),
  };
}

Routing KnsEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  const int max_in = static_cast<int>(options.get_int(option_spec("max_in")));
  const bool xordet = options.get_bool(option_spec("xordet"));
  const int classes = static_cast<int>(options.has("vls") || !xordet ? options.get_int(option_spec("vls")) : 2);
  if (classes & (classes - 1))
    throw OptionError("kns: vls must be 1, 2, 4 or 8 (XORDET classes, a power of two)");
  if (!xordet && classes != 1) throw OptionError("kns: vls=" + std::to_string(classes) + " needs xordet=1");
  const int max_vls = static_cast<int>(options.get_int(option_spec("max_vls")));
  const bool lmc_alt = options.get_bool(option_spec("lmc_alt"));
  const bool switch_sources = options.get_bool(option_spec("switch_sources"));
  if (classes > max_vls) throw OptionError("kns: vls=" + std::to_string(classes) + " exceeds max_vls=" + std::to_string(max_vls));

  KnsShape sh = recognize_kns(fabric, static_cast<int>(options.get_int(option_spec("k"))), static_cast<int>(options.get_int(option_spec("n"))));
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
  // Fat-tree subnet switch (stage e, label w; spec §1.3/§7.1): toward the router with line
  // coordinate c = t_0 + k_i (t_1 + k_i (...)) DESTRO: down port 1 + t_e when the switch is above
  // c (its digits e..s-2 equal t_{e+1..s-1}), else up port k_i + 1 + t_e. Toward a switch F =
  // (e_F, w_F) of the same subnet (management LIDs): with lo = the lowest digit where the label
  // differs from w_F, go down keeping the label while e > lo, then up setting digit e := w_F's
  // (which keeps e <= lo) until the label is w_F, then down along w_F to stage e_F (or up, below
  // it). Loop-free: lo only grows and the stage moves monotonically within each phase. -1 = no
  // route.
  auto ft_port = [&](int sw, int target_sw, int c) -> int {
    const int ki = sh.ki, e = sh.ft_stage[static_cast<size_t>(sw)], w = sh.ft_label[static_cast<size_t>(sw)];
    auto digit = [ki](int v, int i) {
      for (int j = 0; j < i; j++) v /= ki;
      return v % ki;
    };
    auto high = [ki](int v, int i) {  // v without its digits below i
      for (int j = 0; j < i; j++) v /= ki;
      return v;
    };
    if (target_sw >= 0) {
      const int ef = sh.ft_stage[static_cast<size_t>(target_sw)], wf = sh.ft_label[static_cast<size_t>(target_sw)];
      if (sw == target_sw) return 0;
      int lo = -1;  // lowest differing digit
      for (int i = 0; i + 1 < sh.s && lo < 0; i++)
        if (digit(w, i) != digit(wf, i)) lo = i;
      if (lo < 0) return e > ef ? 1 + digit(wf, e - 1) : ki + 1 + digit(wf, e);
      if (e > lo) return 1 + digit(w, e - 1);  // down, keeping the label, to the stage of digit lo
      return ki + 1 + digit(wf, e);            // up, fixing digit e
    }
    if (c < 0 || c >= sh.k) return -1;
    const int te = digit(c, e);
    if (high(w, e) == high(c / ki, e)) return 1 + te;
    return ki + 1 + te;
  };
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
        if (sh.s > 1 && mu >= m.K) {  // fat-tree subnet switch
          int port = ft_port(sw, mu == d.model ? eps[i].node : -1, t.succ[static_cast<size_t>(mu)]);
          if (port < 0) unreachable_switch_pairs++;
          else r.lfts.set(sw, lid, static_cast<uint8_t>(port));
          continue;
        }
        if (mu == d.model) {
          r.lfts.set(sw, lid, d.deliver);
          continue;
        }
        int s = t.succ[static_cast<size_t>(mu)];
        if (s < 0) {
          if (d.ca && mu < m.K)
            fail("router " + fabric.node_name(sw) + " " + coords_text(m, mu) + " cannot reach " +
                 fabric.node_name(eps[i].node) + " (LID " + std::to_string(lid) +
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
          fail("router " + fabric.node_name(sh.router_node[static_cast<size_t>(R)]) + " needs " + std::to_string(rs) +
               " intermediate routers to reach " + fabric.node_name(eps[i].node) + " (max_in=" + std::to_string(max_in) +
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
  // Layer graphs: channel dependencies per (class, layer), kept acyclic incrementally with a
  // topological order (IncrementalDag, Pearce & Kelly): an edge that keeps the order costs O(1),
  // only one against it searches the region between its ends. (A full reachability search per
  // new edge took 53 s on the 10-ary 3-direct KNS with 30 faults.) Channels are switch ports,
  // numbered by the switch graph's flat port table.
  const SwitchGraph sg(fabric);
  struct Layer {
    explicit Layer(int channels) : dag(channels) {}
    IncrementalDag dag;
    std::unordered_set<uint64_t> refused;  // edges that close a cycle here for good (pass 2)
  };
  std::vector<std::vector<std::unique_ptr<Layer>>> graphs(static_cast<size_t>(classes));  // [class][layer]
  auto layer = [&](int c, int L) -> Layer& {
    auto& gl = graphs[static_cast<size_t>(c)];
    while (static_cast<int>(gl.size()) <= L) {
      gl.push_back(std::make_unique<Layer>(sg.num_port_slots()));
      if (gl.size() > 1) gl.back()->dag.seed_order(gl.front()->dag);  // layer 0's order: its paths are Hybrid-DOR legs too
    }
    return *gl[static_cast<size_t>(L)];
  };
  int layers_used = 1;
  int max_sl = classes - 1;
  // Channel sequence of the path from switch `sw` to `lid` (a channel = a switch's out port).
  auto path_channels = [&](int sw, Lid lid) {
    std::vector<int> ch;
    walk_path(fabric, r.lfts, sw, lid, -1, 0, [&](int cur, const RouteHop& h) {
      // every hop out of a port of the switch, the last one (to a CA, or a port without link) included
      const bool out = h.kind != RouteHop::Dropped ? h.port != 0 : h.drop == DropKind::DownPort;
      if (out) ch.push_back(sg.port_base(sg.pos(cur)) + h.port);
    });
    return ch;
  };
  // Pass 1: paths without restarts (pure Hybrid-DOR legs) into layer 0 of their class. Their
  // channel ranks (dimension, stage) strictly increase, so layer 0 is acyclic by construction;
  // the edges are recorded so that pass 2 can test other paths against them.
  for (int c = 0; c < classes; c++) layer(c, 0);
  for (size_t i = 0; i < eps.size(); i++) {
    const Dest& d = dests[i];
    if (d.model < 0) continue;
    if (d.xdim >= 0 && d.xdim != m.n - 1) continue;  // not rank-increasing: pass 2 checks them
    IncrementalDag& g0 = layer(d.cls, 0).dag;
    for (Lid lid = eps[i].base_lid; lid < eps[i].base_lid + trees_used(i); lid++) {
      const kns::Tree& t = tree_of(i, lid);
      for (size_t si = 0; si < S; si++) {
        long mu = sh.node_model[static_cast<size_t>(sws[si])];
        if (mu < 0 || mu == d.model || t.succ[static_cast<size_t>(mu)] < 0 || t.restarts[static_cast<size_t>(mu)] != 0) continue;
        auto ch = path_channels(sws[si], lid);
        for (size_t j = 0; j + 1 < ch.size(); j++)
          if (!g0.has_edge(ch[j], ch[j + 1]) && !g0.add_edge(ch[j], ch[j + 1]))
            fail("internal error: the Hybrid-DOR paths of layer 0 close a channel dependency cycle at " +
                 fabric.node_name(sws[si]) + " to LID " + std::to_string(lid));
      }
    }
  }
  // Pass 2: paths through intermediate routers. Data paths (to CA LIDs) start at layer 1 (the
  // thesis' "next virtual network"); management paths to switch LIDs may stay on layer 0.
  // Round 0 places the paths from routers (hence from CAs); round 1 those from subnet switches
  // (their own SMA/PMA traffic): by default best effort, only into layers round 0 already uses,
  // so they never raise the VL count (a path that fits nowhere keeps SL 0 and is reported in the
  // notes); with switch_sources=1 they may open layers up to max_vls and must all fit.
  long xbar_uncovered = 0;
  for (int round = 0; round < 2; round++)
  for (size_t i = 0; i < eps.size(); i++) {
    const Dest& d = dests[i];
    if (d.model < 0) continue;
    for (Lid lid = eps[i].base_lid; lid < eps[i].base_lid + trees_used(i); lid++) {
    const kns::Tree& t = tree_of(i, lid);
    for (size_t si = 0; si < S; si++) {
      int sw = sws[si];
      long mu = sh.node_model[static_cast<size_t>(sw)];
      const bool safe = d.xdim < 0 || d.xdim == m.n - 1;
      // inside one fat-tree subnet toward one of its switches: a real path (possibly down then up)
      const bool same_ft = mu == d.model && sh.s > 1 && mu >= m.K && sw != eps[i].node;
      if (mu < 0 || (mu == d.model && !same_ft) || t.succ[static_cast<size_t>(mu)] < 0 ||
          (!same_ft && safe && t.restarts[static_cast<size_t>(mu)] == 0))
        continue;
      if ((mu >= m.K) != (round == 1)) continue;
      if (d.ca && mu < m.K && lid == eps[i].base_lid) rerouted_pairs++;
      auto ch = path_channels(sw, lid);
      int placed = -1;
      // SL = layer * classes + class must stay below max_vls: a class below the last may use one
      // layer more than max_vls / classes (8 classes on 15 VLs: layer 1 for classes 0-6)
      const int class_cap = (max_vls - 1 - d.cls) / classes + 1;
      const int layer_cap = round == 0 || switch_sources ? class_cap : std::min(layers_used, class_cap);
      // the first layer whose graph stays acyclic with every dependency of the path (an edge the
      // graph has already is no new dependency; the ones added are taken back on a cycle)
      // A layer only gains edges here, so an edge that closed a cycle with the layer's own edges
      // alone (none of the path's added yet) will close one in that layer ever after: it is
      // remembered, and a path with such an edge skips the layer without a search (most of the
      // searches were these refusals: 1.3 M, 97 % of the steps, on the 10-ary 3-direct KNS with
      // 30 faults).
      for (int L = d.ca ? 1 : 0; L < layer_cap && placed < 0; L++) {
        Layer& ly = layer(d.cls, L);
        bool cyc = false;
        for (size_t j = 0; j + 1 < ch.size() && !cyc; j++) cyc = ly.refused.count(IncrementalDag::key(ch[j], ch[j + 1])) != 0;
        if (cyc) continue;
        uint64_t closing = 0;
        bool alone = false;
        if (ly.dag.add_path(ch, &closing, &alone)) placed = L;
        else if (alone) ly.refused.insert(closing);
      }
      if (placed < 0 && round == 1 && !switch_sources) {
        xbar_uncovered++;
        continue;
      }
      if (placed < 0)
        fail("the rerouted paths need more than " + std::to_string(class_cap) + " VL layers x " + std::to_string(classes) +
             " classes (max_vls=" + std::to_string(max_vls) + "): path from " + fabric.node_name(sw) + " to " +
             fabric.node_name(eps[i].node) + " does not fit");
      (*layer_tab)[si * LIDS + lid] = static_cast<uint8_t>(placed);
      layers_used = std::max(layers_used, placed + 1);
      max_sl = std::max(max_sl, placed * classes + d.cls);
    }
    }
  }
  // LIDs beyond the trees in use share the base LID's paths, hence its layers.
  for (size_t i = 0; i < eps.size(); i++)
    if (dests[i].model >= 0)
      for (Lid lid = eps[i].base_lid + trees_used(i); lid <= eps[i].last_lid(); lid++)
        for (size_t si = 0; si < S; si++) (*layer_tab)[si * LIDS + lid] = (*layer_tab)[si * LIDS + eps[i].base_lid];
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
  r.notes.push_back("KNS " + std::to_string(sh.k) + "-ary " + std::to_string(sh.n) + "-direct " + std::to_string(sh.s) +
                    "-indirect" + (sh.s > 1 ? " (" + std::to_string(sh.ki) + "-ary fat-tree subnets)" : std::string()) + ", p=" +
                    std::to_string(sh.p) + ", " + std::to_string(sh.faults.size()) + " faults detected");
  for (size_t i = 0; i < sh.faults.size() && i < 20; i++) r.notes.push_back("fault: " + sh.faults[i]);
  r.notes.push_back(std::to_string(rerouted_pairs) + " router->CA-LID routes use intermediate routers (max " +
                    std::to_string(max_restarts) + " per path); " + std::to_string(layers_used) + " VL layer(s) x " +
                    std::to_string(classes) + " XORDET class(es) = " + std::to_string(r.num_vls) + " VL(s)");
  if (alt_pairs)
    r.notes.push_back(std::to_string(alt_pairs) + " (router, CA) pairs need an alternative LMC LID (DLID = base + offset) to stay within max_in=" +
                      std::to_string(max_in) + " intermediate routers");
  if (xbar_uncovered)
    r.notes.push_back(std::to_string(xbar_uncovered) + " paths from subnet switches (their own management traffic) fit no "
                      "existing VL layer and keep SL 0: outside the deadlock guarantee (docs/kns.md)");
  if (unreachable_switch_pairs)
    r.notes.push_back(std::to_string(unreachable_switch_pairs) + " switch -> switch-LID entries have no route");
  return r;
}

}  // namespace ftroute
