// Fat-tree recognition (rules in fattree.hpp and docs/ftree-misroute.md).
#include "ftroute/ftree_misroute/fattree.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <numeric>
#include <unordered_set>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"

namespace ftroute {

namespace {

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(int n) : p(static_cast<size_t>(n)) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) {
    while (p[static_cast<size_t>(x)] != x) {
      p[static_cast<size_t>(x)] = p[static_cast<size_t>(p[static_cast<size_t>(x)])];
      x = p[static_cast<size_t>(x)];
    }
    return x;
  }
  void unite(int a, int b) { p[static_cast<size_t>(find(a))] = find(b); }
};

std::string guid_text(uint64_t g) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(g));
  return b;
}

long ipow(long b, int e) {
  long r = 1;
  for (int i = 0; i < e; i++) {
    r *= b;
    if (r > (1L << 40)) return -1;
  }
  return r;
}

}  // namespace

std::vector<uint64_t> read_guid_file(const std::string& path) {
  // the checked reader: a directory, binary data (/dev/zero), lines over 4096 characters or a
  // file over 64 MB fail naming the file; a FIFO or device too (the plugin reads this inside OpenSM)
  InputLimits lim;
  lim.max_bytes = 64ull << 20;
  lim.max_line = 4096;
  lim.allow_empty = true;
  lim.regular_only = true;
  const std::string text = read_input_file(path, lim);
  std::vector<uint64_t> out;
  int ln = 0;
  for (const std::string_view l : split_lines(text)) {
    std::string line(l);
    ln++;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    size_t a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos) continue;
    size_t b = line.find_last_not_of(" \t\r");
    std::string w = line.substr(a, b - a + 1);
    std::string hex = w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') ? w.substr(2) : w;
    if (hex.empty() || hex.size() > 16 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw ParseError(path, ln, "'" + escape_name(w) + "' is not a GUID (one hex GUID per line, 0x optional)");
    out.push_back(std::stoull(hex, nullptr, 16));
  }
  return out;
}

FatTree recognize_fat_tree(const Fabric& f, const std::string& engine, const RankHints& hints, FatTree* partial) {
  FatTree t;
  auto fail = [&](const std::string& why) -> void {
    if (partial) {
      *partial = t;
      partial->shape = "not recognised: " + why;
    }
    throw EngineError(engine, why);
  };
  t.sw_index.assign(static_cast<size_t>(f.size()), -1);
  // Switches in GUID (then id) order, so the routing does not depend on the order in which the
  // fabric was discovered: OpenSM's tables (plugin) and ibnetdiscover/.net files (offline) give
  // identical LFTs.
  t.sw_node = f.switches();
  std::sort(t.sw_node.begin(), t.sw_node.end(), [&](int a, int b) {
    const Node &x = f.node(a), &y = f.node(b);
    return x.guid != y.guid ? x.guid < y.guid : x.id < y.id;
  });
  for (size_t s = 0; s < t.sw_node.size(); s++) t.sw_index[static_cast<size_t>(t.sw_node[s])] = static_cast<int>(s);
  const int S = t.num_switches();
  if (S == 0) fail("the fabric has no switches");

  // Adjacency (all switch-switch links) and attached hosts.
  std::vector<std::vector<FatTreeLink>> adj(static_cast<size_t>(S));
  t.hosts_per_switch.assign(static_cast<size_t>(S), 0);
  for (int s = 0; s < S; s++) {
    const Node& nd = f.node(t.sw_node[static_cast<size_t>(s)]);
    for (int p = 1; p <= nd.num_ports; p++) {
      const Port& pt = nd.port(p);
      if (!pt.connected()) continue;
      const Node& peer = f.node(pt.peer_node);
      if (peer.is_switch()) {
        if (pt.peer_node == t.sw_node[static_cast<size_t>(s)])
          fail("port " + f.port_name(t.sw_node[static_cast<size_t>(s)], p) + " loops back to its own switch");
        adj[static_cast<size_t>(s)].push_back(
            {static_cast<uint8_t>(p), t.sw_index[static_cast<size_t>(pt.peer_node)], pt.peer_port});
      } else if (is_aggregation_node(f, pt.peer_node)) {
        t.num_aggregation_nodes++;  // routed like the switch's own LID, never makes a leaf
      } else {
        t.hosts_per_switch[static_cast<size_t>(s)]++;
        t.num_hosts++;
      }
    }
  }
  // One piece: a switch no path of cables reaches from the first is refused before any ranking
  // (else the valley search would try every placement and end in "too many faults").
  {
    std::vector<char> seen(static_cast<size_t>(S), 0);
    std::vector<int> q{0};
    seen[0] = 1;
    for (size_t h = 0; h < q.size(); h++)
      for (const auto& e : adj[static_cast<size_t>(q[h])])
        if (!seen[static_cast<size_t>(e.peer)]) seen[static_cast<size_t>(e.peer)] = 1, q.push_back(e.peer);
    for (int s = 0; s < S; s++)
      if (!seen[static_cast<size_t>(s)])
        fail("fabric is disconnected: switch " + f.node_name(t.sw_node[static_cast<size_t>(s)]) +
             " cannot be reached from switch " + f.node_name(t.sw_node[0]));
  }
  // R1/R2: ranks (from the leaves, or from the roots when root GUIDs are given).
  std::vector<int> compute_hosts(static_cast<size_t>(S), 0);
  const std::unordered_set<uint64_t> io_guids(hints.io_guids.begin(), hints.io_guids.end());
  for (int s = 0; s < S; s++) {
    const Node& nd = f.node(t.sw_node[static_cast<size_t>(s)]);
    for (int p = 1; p <= nd.num_ports; p++) {
      const Port& pt = nd.port(p);
      if (!pt.connected() || f.node(pt.peer_node).is_switch() || is_aggregation_node(f, pt.peer_node)) continue;
      const Node& ca = f.node(pt.peer_node);
      const uint64_t pg = ca.port(pt.peer_port).guid;
      const bool io = io_guids.count(ca.guid) || (pg && io_guids.count(pg));
      if (!io) compute_hosts[static_cast<size_t>(s)]++;
    }
  }
  for (int s = 0; s < S; s++)
    if (t.hosts_per_switch[static_cast<size_t>(s)] > 0) t.hosted.push_back(s);
  if (t.hosted.empty())
    fail("no channel adapter is attached to any switch, so there are no leaf switches to rank the tree from");

  std::vector<char> seed(static_cast<size_t>(S), 0);
  bool from_roots = false;
  if (!hints.root_guids.empty()) {
    for (uint64_t g : hints.root_guids) {
      auto n = f.find_guid(g);
      if (!n) continue;  // a dead root switch
      if (!f.node(*n).is_switch())
        fail("root GUID " + guid_text(g) + " is node " + f.node_name(*n) + ", not a switch");
      seed[static_cast<size_t>(t.sw_index[static_cast<size_t>(*n)])] = 1;
    }
    if (std::find(seed.begin(), seed.end(), 1) == seed.end()) fail("none of the root GUIDs is a switch of this fabric");
    from_roots = true;
  } else {
    for (int s = 0; s < S; s++) seed[static_cast<size_t>(s)] = compute_hosts[static_cast<size_t>(s)] > 0;
    if (std::find(seed.begin(), seed.end(), 1) == seed.end())
      fail("every channel adapter is an I/O node (io_guid_file), so there are no leaf switches to rank the tree from");
    // Hosts on an upper level: drop seeds that see strictly more seed neighbours than each of
    // their seed neighbours (a spine with storage next to its leaves), or as many but have fewer
    // hosts. Full ties stay (rings, tori with the same hosts everywhere, two leaves cabled together).
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<int> deg(static_cast<size_t>(S), 0);
      for (int s = 0; s < S; s++) {
        if (!seed[static_cast<size_t>(s)]) continue;
        std::vector<int> nb;
        for (const auto& e : adj[static_cast<size_t>(s)])
          if (seed[static_cast<size_t>(e.peer)]) nb.push_back(e.peer);
        std::sort(nb.begin(), nb.end());
        deg[static_cast<size_t>(s)] = static_cast<int>(std::unique(nb.begin(), nb.end()) - nb.begin());
      }
      // key: more CA-attached neighbours first, then fewer hosts of its own (I/O nodes are few)
      auto key = [&](int s) { return std::make_pair(deg[static_cast<size_t>(s)], -compute_hosts[static_cast<size_t>(s)]); };
      std::vector<int> drop;
      for (int s = 0; s < S; s++) {
        if (!seed[static_cast<size_t>(s)] || deg[static_cast<size_t>(s)] == 0) continue;
        bool dominates = true;
        for (const auto& e : adj[static_cast<size_t>(s)])
          if (seed[static_cast<size_t>(e.peer)] && key(e.peer) >= key(s)) dominates = false;
        if (dominates) drop.push_back(s);
      }
      for (int s : drop) seed[static_cast<size_t>(s)] = 0;
      changed = !drop.empty();
    }
    // Hosts on a top switch (storage or a UFM server on one core of a 3-level tree): a seed
    // without seed neighbours that reaches strictly more seeds in two hops than each seed it so
    // reaches (a core reaches the leaves of every pod, a leaf those of its own pod and that core)
    // does not start the BFS either. Ties stay: the leaves of a 2-level tree all reach each
    // other, and hosts on every core look like a leaf level (R1': root_guid_file).
    // two[s]: the seeds s reaches through one switch without hosts; only a seed with no seed
    // neighbours may yield here.
    std::vector<int> two(static_cast<size_t>(S), 0), stamp(static_cast<size_t>(S), 0);
    int mark = 0;
    const auto two_hop_seeds = [&](int s, const auto& visit) {
      mark++;
      for (const auto& e : adj[static_cast<size_t>(s)]) {
        if (seed[static_cast<size_t>(e.peer)]) continue;
        for (const auto& g : adj[static_cast<size_t>(e.peer)])
          if (g.peer != s && seed[static_cast<size_t>(g.peer)] && stamp[static_cast<size_t>(g.peer)] != mark) {
            stamp[static_cast<size_t>(g.peer)] = mark;
            visit(g.peer);
          }
      }
    };
    for (bool changed = true; changed;) {
      for (int s = 0; s < S; s++) {
        two[static_cast<size_t>(s)] = 0;
        if (seed[static_cast<size_t>(s)]) two_hop_seeds(s, [&](int) { two[static_cast<size_t>(s)]++; });
      }
      std::vector<int> drop;
      for (int s = 0; s < S; s++) {
        if (!seed[static_cast<size_t>(s)] || two[static_cast<size_t>(s)] == 0) continue;
        bool dominates = true;
        for (const auto& e : adj[static_cast<size_t>(s)]) dominates = dominates && !seed[static_cast<size_t>(e.peer)];
        if (dominates) two_hop_seeds(s, [&](int x) { dominates = dominates && two[static_cast<size_t>(x)] < two[static_cast<size_t>(s)]; });
        if (dominates) drop.push_back(s);
      }
      for (int s : drop) seed[static_cast<size_t>(s)] = 0;
      changed = !drop.empty();
    }
  }

  // Dead ends: a switch without CAs whose links all go to one other switch (after taking the
  // dead ends off, repeatedly), e.g. a core left with one link, or an empty leaf with one. It
  // cannot be on a cycle and says nothing about the ranks of the others: it is left out of the
  // BFS and ranked right above its neighbour, or right below it when the neighbour has nothing
  // else below it (an empty leaf hanging off a spine: its own traffic climbs, no U-turn needed).
  std::vector<int> tail_parent(static_cast<size_t>(S), -2);  // -2: not a dead end, -1: isolated
  std::vector<int> tails;                                    // in the order they were taken off
  if (!from_roots) {
    std::vector<char> gone(static_cast<size_t>(S), 0);
    for (bool changed = true; changed;) {
      changed = false;
      for (int s = 0; s < S; s++) {
        if (gone[static_cast<size_t>(s)] || t.hosts_per_switch[static_cast<size_t>(s)] > 0) continue;
        int peer = -1;
        bool several = false;
        for (const auto& e : adj[static_cast<size_t>(s)]) {
          if (gone[static_cast<size_t>(e.peer)]) continue;
          if (peer >= 0 && peer != e.peer) several = true;
          peer = e.peer;
        }
        if (several) continue;
        gone[static_cast<size_t>(s)] = 1;
        tail_parent[static_cast<size_t>(s)] = peer;
        tails.push_back(s);
        changed = true;
      }
    }
  }

  // Switches ranked 2 below their BFS distance (see the R4 check below): hanging below their
  // neighbours, like an empty leaf or an aggregation switch that lost all its leaves.
  std::vector<int> lowered(static_cast<size_t>(S), 0);
  for (int attempt = 0;; attempt++) {
    // BFS distance from the seeds, over the switches that are no dead ends
    std::vector<int> dist(static_cast<size_t>(S), -1);
    std::deque<int> q;
    for (int s = 0; s < S; s++)
      if (seed[static_cast<size_t>(s)]) {
        dist[static_cast<size_t>(s)] = 0;
        q.push_back(s);
      }
    while (!q.empty()) {
      int s = q.front();
      q.pop_front();
      for (const auto& e : adj[static_cast<size_t>(s)])
        if (dist[static_cast<size_t>(e.peer)] < 0 && tail_parent[static_cast<size_t>(e.peer)] == -2) {
          dist[static_cast<size_t>(e.peer)] = dist[static_cast<size_t>(s)] + 1;
          q.push_back(e.peer);
        }
    }
    for (int s = 0; s < S; s++)
      if (dist[static_cast<size_t>(s)] < 0 && tail_parent[static_cast<size_t>(s)] == -2)
        fail("switch " + f.node_name(t.sw_node[static_cast<size_t>(s)]) + " is not connected to any " +
             (from_roots ? "root switch" : "CA-attached leaf switch") + " (fabric disconnected)");
    t.rank.assign(static_cast<size_t>(S), 0);
    const int maxd = *std::max_element(dist.begin(), dist.end());
    for (int s = 0; s < S; s++)
      t.rank[static_cast<size_t>(s)] = from_roots ? maxd - dist[static_cast<size_t>(s)] : dist[static_cast<size_t>(s)] - lowered[static_cast<size_t>(s)];
    std::vector<char> placed(static_cast<size_t>(S), 0);
    for (int s = 0; s < S; s++) placed[static_cast<size_t>(s)] = tail_parent[static_cast<size_t>(s)] == -2;
    for (auto it = tails.rbegin(); it != tails.rend(); ++it) {
      const int p = tail_parent[static_cast<size_t>(*it)];
      if (p < 0)
        fail("switch " + f.node_name(t.sw_node[static_cast<size_t>(*it)]) +
             " is not connected to any CA-attached leaf switch (fabric disconnected)");
      const int rp = t.rank[static_cast<size_t>(p)];
      // Right above its neighbour (a core left with one cable), unless the neighbour would then
      // have nothing below it: the dead end is an empty leaf under it (a management leaf whose
      // hosts are all down, cabled to one spine), whose traffic then climbs without a U-turn.
      bool below_p = false;
      for (const auto& e : adj[static_cast<size_t>(p)])
        if (e.peer != *it && placed[static_cast<size_t>(e.peer)] && t.rank[static_cast<size_t>(e.peer)] < rp) below_p = true;
      t.rank[static_cast<size_t>(*it)] = rp >= 1 && !below_p && t.hosts_per_switch[static_cast<size_t>(p)] == 0 ? rp - 1 : rp + 1;
      placed[static_cast<size_t>(*it)] = 1;
    }
    t.height = *std::max_element(t.rank.begin(), t.rank.end());
    t.by_rank.assign(static_cast<size_t>(t.height + 1), {});
    for (int s = 0; s < S; s++) t.by_rank[static_cast<size_t>(t.rank[static_cast<size_t>(s)])].push_back(s);
    t.leaves = t.by_rank[0];

    // R3: every link joins adjacent ranks.
    t.up.assign(static_cast<size_t>(S), {});
    t.down.assign(static_cast<size_t>(S), {});
    for (int s = 0; s < S; s++) {
      int rs = t.rank[static_cast<size_t>(s)];
      for (const auto& e : adj[static_cast<size_t>(s)]) {
        int rp = t.rank[static_cast<size_t>(e.peer)];
        if (rp == rs) {
          std::string a = f.port_name(t.sw_node[static_cast<size_t>(s)], e.port);
          std::string b = f.port_name(t.sw_node[static_cast<size_t>(e.peer)], e.peer_port);
          if (rs == 0 && !from_roots)
            fail("link " + a + " - " + b +
                 " joins two switches that both have channel adapters attached (rank 0): hosts on a "
                 "non-leaf switch, or a mesh/torus/ring, not a fat tree (for hosts on upper levels name their "
                 "CAs in io_guid_file, or the top switches in root_guid_file)");
          fail("link " + a + " - " + b + " joins two switches of the same rank " + std::to_string(rs) +
               (from_roots ? " (counted down from the root switches)" : " (distance from the nearest CA-attached switch)") +
               ": not a fat tree (mesh/torus/ring or inconsistent ranks)");
        }
        (rp > rs ? t.up : t.down)[static_cast<size_t>(s)].push_back(e);
      }
    }

    // R4: blocks per rank and one child switch per sub-tree.
    t.block.assign(static_cast<size_t>(t.height + 1), std::vector<int>(static_cast<size_t>(S), -1));
    t.num_blocks.assign(static_cast<size_t>(t.height + 1), 0);
    {
      UnionFind uf(S);
      for (int r = 0; r <= t.height; r++) {
        for (int s : t.by_rank[static_cast<size_t>(r)])
          for (const auto& e : t.down[static_cast<size_t>(s)]) uf.unite(s, e.peer);
        std::map<int, int> ids;
        for (int s = 0; s < S; s++) {
          if (t.rank[static_cast<size_t>(s)] > r) continue;
          int root = uf.find(s);
          auto it = ids.emplace(root, static_cast<int>(ids.size())).first;
          t.block[static_cast<size_t>(r)][static_cast<size_t>(s)] = it->second;
        }
        t.num_blocks[static_cast<size_t>(r)] = static_cast<int>(ids.size());
      }
    }
    std::vector<int> hanging;  // R4 violators that hang below their neighbours
    std::string violation;
    for (int s = 0; s < S; s++) {
      int r = t.rank[static_cast<size_t>(s)];
      if (r == 0) continue;
      std::map<int, const FatTreeLink*> child_of_block;
      // A switch that joins two or more sub-trees is a top of them (a core of a generalised fat
      // tree, XGFT/PGFT): it may reach each through several of its switches, as the cores of
      // production 3-level trees do (each cabled to every second spine of every pod). Only a
      // switch inside one sub-tree must reach it through one child (R4).
      {
        std::vector<std::pair<int, int>> bl;  // (sub-tree, child); dead ends say nothing about the shape
        for (const auto& e : t.down[static_cast<size_t>(s)])
          if (tail_parent[static_cast<size_t>(e.peer)] == -2)
            bl.push_back({t.block[static_cast<size_t>(r - 1)][static_cast<size_t>(e.peer)], e.peer});
        std::sort(bl.begin(), bl.end());
        bl.erase(std::unique(bl.begin(), bl.end()), bl.end());
        int subtrees = 0;
        bool several = false;
        for (size_t i = 0; i < bl.size(); i++) {
          if (i == 0 || bl[i].first != bl[i - 1].first) subtrees++;
          else several = true;
        }
        if (subtrees >= 2) {
          t.multi_child = t.multi_child || several;
          continue;
        }
      }
      for (const auto& e : t.down[static_cast<size_t>(s)]) {
        int b = t.block[static_cast<size_t>(r - 1)][static_cast<size_t>(e.peer)];
        auto [it, fresh] = child_of_block.emplace(b, &e);
        if (fresh || it->second->peer == e.peer) continue;
        // No up-links (but to dead ends), every other neighbour one rank below, no compute hosts, and a
        // sub-tree reached twice: the switch hangs below those neighbours (an empty leaf at rank
        // 2 -> 0, or an aggregation switch whose leaves are all cut off, under the cores).
        // One round only: in a mesh the lowering would cascade into a checkerboard.
        const bool hangs = !from_roots && r >= 2 && !seed[static_cast<size_t>(s)] &&
                           std::all_of(t.up[static_cast<size_t>(s)].begin(), t.up[static_cast<size_t>(s)].end(),
                                       [&](const FatTreeLink& u) { return tail_parent[static_cast<size_t>(u.peer)] != -2; }) &&
                           attempt == 0;
        if (hangs) {
          hanging.push_back(s);
        } else if (violation.empty()) {
          violation = "switch " + f.node_name(t.sw_node[static_cast<size_t>(s)]) + " (rank " + std::to_string(r) +
                      ") reaches the same sub-tree through two different switches, " +
                      f.port_name(t.sw_node[static_cast<size_t>(s)], it->second->port) + " and " +
                      f.port_name(t.sw_node[static_cast<size_t>(s)], e.port) +
                      ": not a fat tree (mesh/torus/irregular graph" +
                      (from_roots ? std::string(", or wrong root switches)") : std::string(")"));
        }
        break;
      }
    }
    if (hanging.empty()) {
      if (!violation.empty()) fail(violation);
      break;
    }
    for (int s : hanging) lowered[static_cast<size_t>(s)] += 2;
  }

  // Missing links (faults): per block of rank r >= 1, every rank-r switch should reach every
  // sub-tree (block of rank r-1) of its block; per rank, every switch below the top should have
  // as many distinct up-neighbours as the widest switch of its rank (the latter catches the
  // top-level faults of trees whose top rank switches reach every sub-tree anyway).
  {
    int missing_down = 0;
    for (int r = 1; r <= t.height; r++) {
      std::map<int, std::vector<int>> subblocks;  // block id -> distinct sub-block ids
      std::map<int, int> subcount;
      for (int s = 0; s < S; s++) {
        if (t.rank[static_cast<size_t>(s)] > r - 1) continue;
        int b = t.block[static_cast<size_t>(r)][static_cast<size_t>(s)];
        subblocks[b].push_back(t.block[static_cast<size_t>(r - 1)][static_cast<size_t>(s)]);
      }
      for (auto& [b, v] : subblocks) {
        std::sort(v.begin(), v.end());
        subcount[b] = static_cast<int>(std::unique(v.begin(), v.end()) - v.begin());
      }
      for (int s : t.by_rank[static_cast<size_t>(r)]) {
        std::vector<int> seen;
        for (const auto& e : t.down[static_cast<size_t>(s)])
          seen.push_back(t.block[static_cast<size_t>(r - 1)][static_cast<size_t>(e.peer)]);
        std::sort(seen.begin(), seen.end());
        int got = static_cast<int>(std::unique(seen.begin(), seen.end()) - seen.begin());
        missing_down += std::max(0, subcount[t.block[static_cast<size_t>(r)][static_cast<size_t>(s)]] - got);
      }
    }
    int missing_up = 0;
    for (int r = 0; r < t.height; r++) {
      size_t widest = 0;
      for (int s : t.by_rank[static_cast<size_t>(r)]) widest = std::max(widest, t.up[static_cast<size_t>(s)].size());
      for (int s : t.by_rank[static_cast<size_t>(r)])
        missing_up += static_cast<int>(widest - t.up[static_cast<size_t>(s)].size());
    }
    // Each missing link shows up on both of its ends; count it once (the larger estimate).
    t.missing_links = std::max(missing_down, missing_up);
  }

  // k-ary n-tree parameters.
  {
    int n = t.height + 1;
    int k = 0;
    for (int s = 0; s < S; s++)
      k = std::max({k, static_cast<int>(t.up[static_cast<size_t>(s)].size()),
                    static_cast<int>(t.down[static_cast<size_t>(s)].size()), t.hosts_per_switch[static_cast<size_t>(s)]});
    bool fits = k >= 2 && n >= 1;
    long per_rank = ipow(k, n - 1);
    for (int r = 0; fits && r <= t.height; r++)
      if (static_cast<long>(t.by_rank[static_cast<size_t>(r)].size()) != per_rank) fits = false;
    if (fits && t.num_hosts > ipow(k, n)) fits = false;
    if (fits) {
      t.k = k;
      t.n = n;
    }
    std::string counts;
    for (int r = 0; r <= t.height; r++)
      counts += (r ? "/" : "") + std::to_string(t.by_rank[static_cast<size_t>(r)].size());
    if (fits)
      t.shape = std::to_string(k) + "-ary " + std::to_string(n) + "-tree";
    else
      t.shape = std::to_string(n) + "-level fat tree";
    t.shape += " (" + counts + " switches per rank from the leaves up, " + std::to_string(t.num_hosts) +
               " CA ports" +
               (t.num_aggregation_nodes ? ", " + std::to_string(t.num_aggregation_nodes) + " aggregation nodes" : std::string()) +
               ", " + std::to_string(t.missing_links) + " missing switch links)";
  }
  return t;
}

std::string explain_fat_tree(const Fabric& f, const FatTree& t, int max_names) {
  auto name = [&](int s) { return f.node_name(t.sw_node[static_cast<size_t>(s)]); };
  std::string o;
  o += "shape: " + t.shape + "\n";
  const int S = t.num_switches();
  if (t.rank.size() != static_cast<size_t>(S)) {
    o += "ranks: not assigned (the rule above failed before the switches were ranked)\n";
    return o;
  }
  int hmax = 0;
  for (int s = 0; s < S; s++) hmax = std::max(hmax, t.rank[static_cast<size_t>(s)]);
  std::vector<std::vector<int>> by_rank(static_cast<size_t>(hmax + 1));
  for (int s = 0; s < S; s++)
    if (t.rank[static_cast<size_t>(s)] >= 0) by_rank[static_cast<size_t>(t.rank[static_cast<size_t>(s)])].push_back(s);
  const bool have_hosts = t.hosts_per_switch.size() == static_cast<size_t>(S);
  const bool have_links = t.up.size() == static_cast<size_t>(S) && t.down.size() == static_cast<size_t>(S);
  for (int r = 0; r <= hmax; r++) {
    const auto& v = by_rank[static_cast<size_t>(r)];
    long hosted = 0, hosts = 0;
    for (int s : v)
      if (have_hosts && t.hosts_per_switch[static_cast<size_t>(s)] > 0) hosted++, hosts += t.hosts_per_switch[static_cast<size_t>(s)];
    o += "rank " + std::to_string(r) + (r == 0 ? " (leaves)" : r == hmax ? " (top)" : "") + ": " +
         std::to_string(v.size()) + " switches, " + std::to_string(hosted) + " with CA ports (" + std::to_string(hosts) +
         " CA ports)";
    if (t.num_blocks.size() > static_cast<size_t>(r) && r >= 1)
      o += ", " + std::to_string(t.num_blocks[static_cast<size_t>(r)]) + " sub-tree" +
           (t.num_blocks[static_cast<size_t>(r)] == 1 ? "" : "s") + " up to this rank";
    if (have_links && !v.empty()) {
      size_t lo_up = SIZE_MAX, hi_up = 0, lo_dn = SIZE_MAX, hi_dn = 0;
      for (int s : v) {
        lo_up = std::min(lo_up, t.up[static_cast<size_t>(s)].size());
        hi_up = std::max(hi_up, t.up[static_cast<size_t>(s)].size());
        lo_dn = std::min(lo_dn, t.down[static_cast<size_t>(s)].size());
        hi_dn = std::max(hi_dn, t.down[static_cast<size_t>(s)].size());
      }
      auto range = [](size_t a, size_t b) { return a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b); };
      o += "; cables up " + range(lo_up, hi_up) + ", down " + range(lo_dn, hi_dn);
    }
    o += "\n  e.g.";
    for (int i = 0; i < static_cast<int>(v.size()) && i < max_names; i++) o += " " + name(v[static_cast<size_t>(i)]);
    if (static_cast<int>(v.size()) > max_names) o += " ...";
    o += "\n";
  }
  if (have_hosts) {
    std::string upper;
    int n = 0;
    for (int s = 0; s < S; s++)
      if (t.rank[static_cast<size_t>(s)] > 0 && t.hosts_per_switch[static_cast<size_t>(s)] > 0) {
        if (n++ < max_names)
          upper += "\n  " + name(s) + " (rank " + std::to_string(t.rank[static_cast<size_t>(s)]) + "): " +
                   std::to_string(t.hosts_per_switch[static_cast<size_t>(s)]) + " CA ports";
      }
    o += "upper-level hosts (storage, management): " + std::to_string(n) + " switches" + upper + (n > max_names ? "\n  ..." : "") + "\n";
  }
  o += "aggregation nodes (SHARP, destinations of their switch, no leaf): " + std::to_string(t.num_aggregation_nodes) + "\n";
  o += std::string("cores reaching a sub-tree through several switches (generalised fat tree): ") +
       (t.multi_child ? "yes" : "no") + "\n";
  if (have_links) {
    std::string miss;
    int n = 0;
    for (int r = 0; r < hmax; r++) {
      size_t widest = 0;
      for (int s : by_rank[static_cast<size_t>(r)]) widest = std::max(widest, t.up[static_cast<size_t>(s)].size());
      for (int s : by_rank[static_cast<size_t>(r)])
        if (t.up[static_cast<size_t>(s)].size() < widest && n++ < max_names)
          miss += "\n  " + name(s) + " (rank " + std::to_string(r) + "): " + std::to_string(t.up[static_cast<size_t>(s)].size()) +
                  " of " + std::to_string(widest) + " up-cables";
    }
    o += "missing switch links: " + std::to_string(t.missing_links) + " (estimate); switches with fewer up-cables than their rank's widest: " +
         std::to_string(n) + miss + (n > max_names ? "\n  ..." : "") + "\n";
  }
  return o;
}

}  // namespace ftroute
