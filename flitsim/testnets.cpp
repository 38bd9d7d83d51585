#include "ftroute/flitsim_testnets.hpp"

#include <string>

#include "ftroute/error.hpp"
#include "ftroute/switch_graph.hpp"

namespace ftroute::flitsim {

static std::string xy(int x, int y) { return std::to_string(x) + "_" + std::to_string(y); }

Fabric make_mesh(int kx, int ky, bool torus) {
  if (kx < 2 || ky < 1) throw FabricError("make_mesh: need kx >= 2, ky >= 1");
  Fabric f;
  std::vector<int> sw(static_cast<size_t>(kx * ky));
  for (int y = 0; y < ky; y++)
    for (int x = 0; x < kx; x++) sw[static_cast<size_t>(y * kx + x)] = f.add_node(NodeType::Switch, "S" + xy(x, y), ky > 1 ? 5 : 3);
  for (int y = 0; y < ky; y++)
    for (int x = 0; x < kx; x++) {
      int h = f.add_node(NodeType::Ca, "H" + xy(x, y), 1);
      f.connect(h, 1, sw[static_cast<size_t>(y * kx + x)], 1);
    }
  for (int y = 0; y < ky; y++)
    for (int x = 0; x < kx; x++) {
      int s = sw[static_cast<size_t>(y * kx + x)];
      if (x + 1 < kx || (torus && kx > 2) || (torus && kx == 2 && x == 0))
        f.connect(s, 2, sw[static_cast<size_t>(y * kx + (x + 1) % kx)], 3);
      if (ky > 1 && (y + 1 < ky || (torus && ky > 2) || (torus && ky == 2 && y == 0)))
        f.connect(s, 4, sw[static_cast<size_t>(((y + 1) % ky) * kx + x)], 5);
    }
  f.assign_default_guids();
  f.assign_lids();
  return f;
}

// Lfts(f) clears the tables of CAs but keeps their capacity; release it (10k-CA fabrics).
static Lfts compact_lfts(const Fabric& f) {
  Lfts l(f);
  for (int i = 0; i < f.size(); i++)
    if (!f.node(i).is_switch()) l.table(i).shrink_to_fit();
  return l;
}

Routing route_dor(const Fabric& f, int kx, int ky, bool torus, bool clockwise_only, bool ties_by_lmc) {
  Routing r;
  r.engine = clockwise_only ? "test-ring-cw" : (torus ? "test-dor-torus" : "test-dor-mesh");
  r.lfts = compact_lfts(f);
  // dateline bits per (src, dst) CA LID
  std::vector<int> lid_x(static_cast<size_t>(f.max_lid()) + 1, -1), lid_y(lid_x.size(), -1), lid_off(lid_x.size(), 0);
  for (int y = 0; y < ky; y++)
    for (int x = 0; x < kx; x++) {
      auto s = f.find("S" + xy(x, y));
      auto h = f.find("H" + xy(x, y));
      if (!s || !h) throw FabricError("route_dor: fabric is not a make_mesh fabric");
      lid_x[f.node(*s).port(0).base_lid] = x, lid_y[f.node(*s).port(0).base_lid] = y;
      const Port& hp = f.node(*h).port(1);
      for (Lid l = hp.base_lid; l < hp.base_lid + (1 << hp.lmc); l++)
        lid_x[l] = x, lid_y[l] = y, lid_off[l] = ties_by_lmc ? static_cast<int>(l - hp.base_lid) : 0;
    }
  // +1, -1 or 0; minus_on_tie: a tie (distance k/2 on a torus) goes -
  auto dir = [clockwise_only, torus](int from, int to, int k, bool minus_on_tie) {
    if (from == to) return 0;
    if (clockwise_only) return 1;
    if (!torus) return to > from ? 1 : -1;
    int fwd = ((to - from) % k + k) % k;
    if (fwd == k - fwd) return minus_on_tie ? -1 : 1;
    return fwd < k - fwd ? 1 : -1;
  };
  for (int y = 0; y < ky; y++)
    for (int x = 0; x < kx; x++) {
      int s = *f.find("S" + xy(x, y));
      for (Lid l = 1; l <= f.max_lid(); l++) {
        if (lid_x[l] < 0) continue;
        int dx = dir(x, lid_x[l], kx, lid_off[l] & 1), dy = dir(y, lid_y[l], ky, lid_off[l] & 2);
        uint8_t port;
        if (dx > 0) port = 2;
        else if (dx < 0) port = 3;
        else if (dy > 0) port = 4;
        else if (dy < 0) port = 5;
        else port = f.owner(l)->node == s ? 0 : 1;
        r.lfts.set(s, l, port);
      }
    }
  if (torus && !clockwise_only) {
    r.num_vls = 2;
    std::vector<int> lx = lid_x, ly = lid_y, lo = lid_off;
    r.path_sl = [lx, ly, lo, kx, ky, dir](Lid s, Lid d) -> uint8_t {
      if (s >= lx.size() || d >= lx.size() || lx[s] < 0 || lx[d] < 0) return 0;
      uint8_t sl = 0;
      int ddx = dir(lx[s], lx[d], kx, lo[d] & 1), ddy = dir(ly[s], ly[d], ky, lo[d] & 2);
      if ((ddx > 0 && lx[d] < lx[s]) || (ddx < 0 && lx[d] > lx[s])) sl |= 1;
      if ((ddy > 0 && ly[d] < ly[s]) || (ddy < 0 && ly[d] > ly[s])) sl |= 2;
      return sl;
    };
    Sl2Vl::Table tx{}, ty{}, z{};
    for (int i = 0; i < 16; i++) tx[i] = i & 1, ty[i] = (i >> 1) & 1, z[i] = 0;
    for (int sw : f.switches()) {
      const Node& n = f.node(sw);
      for (int in = 0; in <= n.num_ports; in++)
        for (int out = 1; out <= n.num_ports; out++)
          r.sl2vl.set(sw, in, out, out == 2 || out == 3 ? tx : (out == 4 || out == 5 ? ty : z));
    }
    for (int c : f.cas()) r.sl2vl.set(c, 0, 1, z);
  }
  return r;
}

// Switch <w, l>: w has n-1 base-k digits.
static std::string tree_id(int w, int l) { return "S" + std::to_string(l) + "_" + std::to_string(w); }

Fabric make_kary_ntree(int k, int n) {
  if (k < 2 || n < 1 || 2 * k > kMaxPorts) throw FabricError("make_kary_ntree: bad k/n");
  int per = 1;
  for (int i = 0; i < n - 1; i++) per *= k;
  Fabric f;
  std::vector<std::vector<int>> sw(static_cast<size_t>(n), std::vector<int>(static_cast<size_t>(per)));
  for (int l = 0; l < n; l++)
    for (int w = 0; w < per; w++) sw[l][w] = f.add_node(NodeType::Switch, tree_id(w, l), 2 * k);
  for (int h = 0; h < per * k; h++) {
    int c = f.add_node(NodeType::Ca, "H" + std::to_string(h), 1);
    f.connect(c, 1, sw[0][h / k], h % k + 1);
  }
  int pw = 1;  // k^l
  for (int l = 0; l + 1 < n; l++, pw *= k)
    for (int w = 0; w < per; w++)
      for (int j = 0; j < k; j++) {
        int digit = (w / pw) % k;
        int w2 = w - digit * pw + j * pw;  // same word, digit l replaced by j
        f.connect(sw[l][w], k + 1 + j, sw[l + 1][w2], digit + 1);
      }
  f.assign_default_guids();
  f.assign_lids();
  return f;
}

Routing route_ntree(const Fabric& f, int k, int n, bool ups_by_lmc) {
  Routing r;
  r.engine = "test-ntree-dmodk";
  r.lfts = compact_lfts(f);
  int per = 1;
  for (int i = 0; i < n - 1; i++) per *= k;
  // host index of every CA LID (-1 otherwise)
  std::vector<int> host(static_cast<size_t>(f.max_lid()) + 1, -1), off(host.size(), 0);
  for (const EndPort& e : f.end_ports()) {
    const std::string& id = f.node(e.node).id;
    if (f.node(e.node).is_switch() || id.empty() || id[0] != 'H') continue;
    int h = std::stoi(id.substr(1));
    for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) host[l] = h, off[l] = static_cast<int>(l - e.base_lid);
  }
  for (int l = 0; l < n; l++) {
    int pw = 1;
    for (int i = 0; i < l; i++) pw *= k;
    for (int w = 0; w < per; w++) {
      int s = *f.find(tree_id(w, l));
      for (Lid lid = 1; lid <= f.max_lid(); lid++) {
        int h = host[lid];
        if (h < 0) {
          if (lid == f.node(s).port(0).base_lid) r.lfts.set(s, lid, 0);
          continue;  // other switches' LIDs are not routed (CA traffic only)
        }
        int leaf = h / k;
        // in subtree iff leaf word agrees with w on digits >= l
        bool below = true;
        for (int i = l, p = pw; i < n - 1; i++, p *= k)
          if ((leaf / p) % k != (w / p) % k) below = false;
        uint8_t port;
        if (below) port = static_cast<uint8_t>(l == 0 ? h % k + 1 : (leaf / (pw / k)) % k + 1);
        else port = static_cast<uint8_t>(k + 1 + ((ups_by_lmc ? off[lid] : h) / pw) % k);
        r.lfts.set(s, lid, port);
      }
    }
  }
  return r;
}

Routing route_minhop(const Fabric& f) {
  Routing r;
  r.engine = "flitsim-minhop";
  r.lfts = compact_lfts(f);
  const SwitchGraph g(f);
  std::vector<int> dist, queue;
  for (const EndPort& e : f.end_ports()) {
    Attach a = f.attach(e.base_lid);
    if (!a.valid()) continue;
    g.bfs(g.pos(a.sw), dist, queue);
    for (int i = 0; i < g.size(); i++) {
      const int di = dist[static_cast<size_t>(i)];
      if (di < 0) continue;
      const int s = g.node(i);
      uint8_t port = kNoPath;
      if (s == a.sw) {
        port = a.port;
      } else {
        for (const SwitchGraph::Edge& x : g.edges(i))  // the lowest port one hop nearer
          if (dist[static_cast<size_t>(x.nbr)] == di - 1) {
            port = x.port;
            break;
          }
      }
      for (Lid l = e.base_lid; l <= e.last_lid(); l++) r.lfts.set(s, l, port);
    }
  }
  return r;
}

}  // namespace ftroute::flitsim
