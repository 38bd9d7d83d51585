// DQR tables: the old routing by destination LID and the fault-free fabric's look-ups,
// precomputed with the channel list (dqr_tables()).
#include <algorithm>
#include <cstring>

#include "ftroute/dqr/dqr.hpp"

namespace ftroute {

namespace {
// Entries != kNoPath (0xff) among n bytes, eight at a time (a per-byte loop over all
// switches x LIDs was the largest single cost of a mesh reconfiguration).
uint64_t count_routed(const uint8_t* p, size_t n) {
  static_assert(kNoPath == 0xff);
  uint64_t no_path = 0;
  size_t i = 0;
  constexpr uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL, hi = 0x8080808080808080ULL;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    const uint64_t x = ~w;  // 0xff bytes of w are zero bytes of x
    const uint64_t t = ((x & lo7) + lo7) | x;  // high bit set in every non-zero byte
    no_path += 8 - ((((t & hi) >> 7) * 0x0101010101010101ULL) >> 56);  // 8 - non-zero bytes
  }
  for (; i < n; i++) no_path += p[i] == kNoPath;
  return n - no_path;
}

// All-pairs hop distances between switches (DqrTables::sw_dist): breadth-first from 64
// switches at once, a bit per source in every switch's frontier and visited words.
void switch_distances(const Fabric& f, DqrTables& t) {
  const std::vector<int>& sws = f.switches();
  const size_t n = sws.size();
  if (n == 0 || n > static_cast<size_t>(DqrTables::kMaxDistSwitches)) return;
  std::vector<uint32_t> off(n + 1, 0), adj;  // distinct switch neighbours by slot
  for (size_t i = 0; i < n; i++) {
    const Node& node = f.node(sws[i]);
    const size_t b = adj.size();
    for (int p = 1; p <= node.num_ports; p++) {
      const Port& pt = node.port(p);
      if (!pt.connected() || !f.node(pt.peer_node).is_switch()) continue;
      const uint32_t j = static_cast<uint32_t>(t.slot[static_cast<size_t>(pt.peer_node)]);
      if (std::find(adj.begin() + static_cast<std::ptrdiff_t>(b), adj.end(), j) == adj.end()) adj.push_back(j);
    }
    off[i + 1] = static_cast<uint32_t>(adj.size());
  }
  t.sw_dist.assign(n * n, 255);
  std::vector<uint64_t> seen(n), front(n), next(n);
  for (size_t s0 = 0; s0 < n; s0 += 64) {
    const size_t cnt = std::min<size_t>(64, n - s0);
    std::fill(seen.begin(), seen.end(), 0);
    std::fill(front.begin(), front.end(), 0);
    for (size_t i = 0; i < cnt; i++) {
      seen[s0 + i] = front[s0 + i] = 1ULL << i;
      t.sw_dist[(s0 + i) * n + s0 + i] = 0;
    }
    for (int level = 1; level < 255; level++) {
      bool any = false;
      for (size_t v = 0; v < n; v++) {
        uint64_t x = 0;
        for (uint32_t k = off[v]; k < off[v + 1]; k++) x |= front[adj[k]];
        x &= ~seen[v];
        next[v] = x;
        if (!x) continue;
        any = true;
        for (uint64_t m = x; m; m &= m - 1) t.sw_dist[(s0 + static_cast<size_t>(__builtin_ctzll(m))) * n + v] = static_cast<uint8_t>(level);
      }
      if (!any) break;
      for (size_t v = 0; v < n; v++) seen[v] |= next[v];
      front.swap(next);
    }
  }
}

}  // namespace

std::shared_ptr<const DqrTables> dqr_tables(const Fabric& before, const Routing& routing) {
  auto t = std::make_shared<DqrTables>();
  t->nodes = before.size();
  const size_t nn = static_cast<size_t>(before.size());
  t->port_base.resize(nn);
  t->nports.resize(nn);
  t->type.resize(nn);
  for (int i = 0; i < before.size(); i++) t->type[static_cast<size_t>(i)] = before.node(i).type;
  for (int i = 0, next = 0; i < before.size(); i++) {  // Cdg's numbering: ports 0..num_ports
    const int np = before.node(i).num_ports;
    t->port_base[static_cast<size_t>(i)] = next;
    t->nports[static_cast<size_t>(i)] = np;
    for (int p = 0; p <= np; p++) t->link_node.push_back(i);
    next += np + 1;
  }
  t->next_sw.assign(t->link_node.size(), -1);
  t->peer.assign(t->link_node.size(), -1);
  t->peer_port.assign(t->link_node.size(), 0);
  for (int i = 0; i < before.size(); i++)
    for (int p = 1; p <= before.node(i).num_ports; p++) {
      const Port& pt = before.node(i).port(p);
      if (!pt.connected()) continue;
      t->peer[static_cast<size_t>(t->link_id(i, p))] = pt.peer_node;
      t->peer_port[static_cast<size_t>(t->link_id(i, p))] = pt.peer_port;
    }
  for (const EndPort& ep : before.end_ports()) {
    const Node& node = before.node(ep.node);
    if (node.is_switch()) {
      t->end_sources.push_back({ep.base_lid, ep.node, 0, ep.node, 0});
      continue;
    }
    const Port& pt = node.port(ep.port);
    if (pt.connected() && before.node(pt.peer_node).is_switch())
      t->end_sources.push_back({ep.base_lid, ep.node, ep.port, pt.peer_node, pt.peer_port});
  }
  t->lid_sw.assign(static_cast<size_t>(before.max_lid()) + 1, -1);
  t->lid_port.assign(static_cast<size_t>(before.max_lid()) + 1, 0);
  for (Lid d = 1; d <= before.max_lid(); d++) {
    const Attach at = before.attach(d);
    if (at.valid()) t->lid_sw[d] = at.sw, t->lid_port[d] = at.port;
  }
  t->sw_in_off.assign(nn + 1, 0);
  for (int u : before.switches())
    for (int p = 1; p <= before.node(u).num_ports; p++) {
      const Port& pt = before.node(u).port(p);
      if (!pt.connected() || !before.node(pt.peer_node).is_switch()) continue;
      t->next_sw[static_cast<size_t>(t->link_id(u, p))] = pt.peer_node;
      t->sw_in_off[static_cast<size_t>(pt.peer_node) + 1]++;
    }
  for (size_t i = 0; i < nn; i++) t->sw_in_off[i + 1] += t->sw_in_off[i];
  t->sw_in.resize(static_cast<size_t>(t->sw_in_off[nn]));
  std::vector<int> fill(t->sw_in_off.begin(), t->sw_in_off.end() - 1);
  for (int u : before.switches())  // by u, then port: the order the old per-switch lists had
    for (int p = 1; p <= before.node(u).num_ports; p++) {
      const Port& pt = before.node(u).port(p);
      if (pt.connected() && before.node(pt.peer_node).is_switch())
        t->sw_in[static_cast<size_t>(fill[static_cast<size_t>(pt.peer_node)]++)] = {u, static_cast<uint8_t>(p)};
    }
  t->max_lid = before.max_lid();
  const std::vector<int>& sws = before.switches();
  t->stride = static_cast<int>(sws.size()) + 1;
  t->slot.assign(nn, t->stride - 1);
  for (size_t i = 0; i < sws.size(); i++) t->slot[static_cast<size_t>(sws[i])] = static_cast<int>(i);
  const size_t n = static_cast<size_t>(t->stride), lids = static_cast<size_t>(t->max_lid) + 1;
  t->by_lid.assign(n * lids, kNoPath);
  // Transposed in blocks of 64 switches x 256 LIDs (the rows read and the columns written stay
  // in the cache); each LID's 64 entries are written side by side.
  constexpr size_t kSw = 64, kLids = 256;
  std::vector<const uint8_t*> row(kSw);
  std::vector<size_t> len(kSw);
  for (size_t s0 = 0; s0 < sws.size(); s0 += kSw) {
    const size_t s1 = std::min(sws.size(), s0 + kSw);
    for (size_t i = s0; i < s1; i++) {
      const std::vector<uint8_t>& tab = routing.lfts.table(sws[i]);
      row[i - s0] = tab.data(), len[i - s0] = tab.size();
    }
    for (size_t d0 = 1; d0 < lids; d0 += kLids) {
      const size_t d1 = std::min(lids, d0 + kLids);
      const size_t k = s1 - s0;
      if (*std::min_element(len.begin(), len.begin() + static_cast<std::ptrdiff_t>(k)) >= d1) {  // the usual case
        for (size_t d = d0; d < d1; d++) {
          uint8_t* out = t->by_lid.data() + d * n + s0;
          for (size_t i = 0; i < k; i++) out[i] = row[i][d];
        }
      } else {
        for (size_t d = d0; d < d1; d++) {
          uint8_t* out = t->by_lid.data() + d * n + s0;
          for (size_t i = 0; i < k; i++) out[i] = d < len[i] ? row[i][d] : kNoPath;
        }
      }
    }
  }
  for (int s : sws) {
    const std::vector<uint8_t>& tab = routing.lfts.table(s);
    const size_t end = std::min(tab.size(), lids);
    if (end > 1) t->entries_total += count_routed(tab.data() + 1, end - 1);
  }
  // Traffic of the old routing per LID: from every switch with a CA (not the LID's own switch),
  // along the old entries until a switch already marked (the in-tree of the LID).
  std::vector<int> src_sw;  // slots of the switches with a CA source, as Reconfigurer counts them
  {
    std::vector<uint8_t> has(n, 0);
    for (const EndPort& ep : before.end_ports()) {
      const Node& node = before.node(ep.node);
      if (node.is_switch()) continue;
      const Port& pt = node.port(ep.port);
      if (!pt.connected() || !before.node(pt.peer_node).is_switch()) continue;
      t->ca_sources++;
      has[static_cast<size_t>(t->slot[static_cast<size_t>(pt.peer_node)])] = 1;
    }
    for (size_t i = 0; i < sws.size(); i++)
      if (has[i]) src_sw.push_back(static_cast<int>(i));
  }
  t->traffic_words = (n + 63) / 64;
  t->traffic.assign(lids * t->traffic_words, 0);
  for (size_t d = 1; d < lids; d++) {
    const Attach at = before.attach(static_cast<Lid>(d));
    if (!at.valid()) continue;
    const int ts = t->slot[static_cast<size_t>(at.sw)];
    const uint8_t* col = t->column(static_cast<Lid>(d));
    uint64_t* bits = t->traffic.data() + d * t->traffic_words;
    for (int s0 : src_sw) {
      if (s0 == ts) continue;
      for (int s = s0; !((bits[static_cast<size_t>(s) >> 6] >> (s & 63)) & 1);) {
        bits[static_cast<size_t>(s) >> 6] |= 1ULL << (s & 63);
        const int sw = sws[static_cast<size_t>(s)];
        const uint8_t q = col[s];
        if (q == 0 || q == kNoPath || q > t->nports[static_cast<size_t>(sw)]) break;
        const int nx = t->next_sw[static_cast<size_t>(t->link_id(sw, q))];
        if (nx < 0) break;
        s = t->slot[static_cast<size_t>(nx)];
      }
    }
  }
  switch_distances(before, *t);
  return t;
}

}  // namespace ftroute
