// ftree-misroute's destination numbering: every destination LID's d-mod-k index (see
// ftree_misroute_internal.hpp and docs/ftree-misroute.md, "Balance on bundles, ANs and
// upper-level hosts").
#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <tuple>
#include <utility>

#include "ftree_misroute/ftree_misroute_internal.hpp"

namespace ftroute {

std::vector<std::vector<DestLid>> number_destinations(const Fabric& fabric, const FatTree& t,
                                                      const std::vector<size_t>& parents,
                                                      const std::function<bool(int, int)>& by_subtree,
                                                      std::vector<long>& divisor) {
  const int S = t.num_switches();
  const int H = t.height;
  std::vector<int> leaf_order = t.hosted;
  std::sort(leaf_order.begin(), leaf_order.end(), by_subtree);
  // divisor[r] = product of the up-degrees (distinct parents) of the ranks below r (D-mod-K
  // digit weights).
  divisor.assign(static_cast<size_t>(H + 1), 1);
  for (int r = 1; r <= H; r++) {
    size_t widest = 1;
    for (int s : t.by_rank[static_cast<size_t>(r - 1)]) widest = std::max(widest, parents[static_cast<size_t>(s)]);
    divisor[static_cast<size_t>(r)] = std::min<long>(divisor[static_cast<size_t>(r - 1)] * static_cast<long>(widest), 1L << 40);
  }
  long top_up = 1;  // widest down-degree of the top rank (the last digit's range)
  for (int s : t.by_rank[static_cast<size_t>(H)]) top_up = std::max<long>(top_up, static_cast<long>(t.down[static_cast<size_t>(s)].size()));

  std::vector<std::vector<DestLid>> dests(static_cast<size_t>(S));
  {
    // The host ports (CA/router ports, aggregation nodes aside) on switch l, as (node, port).
    auto for_each_host = [&](int l, auto&& fn) {
      const Node& nd = fabric.node(t.sw_node[static_cast<size_t>(l)]);
      for (int p = 1; p <= nd.num_ports; p++) {
        const Port& pt = nd.port(p);
        if (pt.connected() && !fabric.node(pt.peer_node).is_switch() && !is_aggregation_node(fabric, pt.peer_node))
          fn(std::make_pair(pt.peer_node, pt.peer_port));
      }
    };
    // index of CA end ports in leaf order
    std::vector<std::pair<int, int>> order;  // (node, port)
    for (int l : leaf_order)  // leaves; the upper levels' hosts below
      if (t.rank[static_cast<size_t>(l)] == 0) for_each_host(l, [&](std::pair<int, int> h) { order.push_back(h); });
    std::map<std::pair<int, int>, long> idx;
    for (size_t i = 0; i < order.size(); i++) idx[order[i]] = static_cast<long>(i);
    // Switch LIDs, after every CA index (shifted by a multiple of the digit period, so the digits
    // are what counts): each takes the first-rank digit (leaf up-cable) that the fewest switch
    // LIDs have so far, among those none of its own CA ports use. Its LID then comes down a cable
    // its CAs do not (a leaf with fewer CA ports than up-cables), and switch LIDs still spread
    // evenly over the cables.
    const long c0 = H >= 1 ? divisor[1] : 1;
    const long period = std::max<long>(1, std::min<long>(divisor[static_cast<size_t>(H)] * top_up, 1L << 30));
    const long shift = period * ((static_cast<long>(order.size()) + period) / period);
    // An aggregation node (SHARP) takes an index of its own, placed like its switch's LID right
    // after it: it then climbs and comes down other cables than its switch's LID (sharing the
    // switch's index put both on the same cables).
    std::vector<long> switch_index(static_cast<size_t>(S), -1), an_index(static_cast<size_t>(S), -1);
    std::vector<char> has_an(static_cast<size_t>(S), 0);
    for (const EndPort& ep : fabric.end_ports())
      if (!fabric.node(ep.node).is_switch() && is_aggregation_node(fabric, ep.node)) {
        const Attach a = fabric.attach(ep.base_lid);
        if (a.valid()) has_an[static_cast<size_t>(t.sw_index[static_cast<size_t>(a.sw)])] = 1;
      }
    {
      std::vector<long> taken(static_cast<size_t>(c0), 0);  // switch LIDs per digit
      auto place = [&](std::vector<long>& into, int sw, long first, long count) {
        std::vector<char> own(static_cast<size_t>(c0), 0);
        for (long x = 0; x < count && x < c0; x++) own[static_cast<size_t>((first + x) % c0)] = 1;
        const bool all = std::find(own.begin(), own.end(), 0) == own.end();
        long best = -1;
        for (long i = 0; i < c0; i++) {
          const long d = (first + count + i) % c0;
          if (!all && own[static_cast<size_t>(d)]) continue;
          if (best < 0 || taken[static_cast<size_t>(d)] < taken[static_cast<size_t>(best)]) best = d;
        }
        into[static_cast<size_t>(sw)] = shift + best + c0 * taken[static_cast<size_t>(best)]++;
      };
      auto place_both = [&](int sw, long first, long count) {
        place(switch_index, sw, first, count);
        if (has_an[static_cast<size_t>(sw)]) place(an_index, sw, first, count);
      };
      long next = 0;
      for (int l : leaf_order) {
        if (t.rank[static_cast<size_t>(l)] > 0) continue;
        place_both(l, next, t.hosts_per_switch[static_cast<size_t>(l)]);
        next += t.hosts_per_switch[static_cast<size_t>(l)];
      }
      for (int s = 0; s < S; s++)
        if (switch_index[static_cast<size_t>(s)] < 0) place_both(s, 0, 0);
    }
    // Hosts and aggregation nodes on upper levels (rank r > 0): what spreads their routes is the
    // digit of their own rank (the switches of rank r elsewhere pick the rank-(r+1) switch above
    // them by it), so the m-th such destination of rank r takes index m * divisor[r], plus
    // m mod divisor[r] so that the lower digits vary too (the leaves' parent choice). In leaf
    // order they would share that digit and all come down one cable.
    const long up_base = shift + period * ((c0 * (S + 1) + period) / period);
    std::vector<long> upper_count(static_cast<size_t>(H + 1), 0);
    auto upper_index = [&](int s) {
      const int r = t.rank[static_cast<size_t>(s)];
      const long m = upper_count[static_cast<size_t>(r)]++;
      return up_base + m * divisor[static_cast<size_t>(r)] + m % divisor[static_cast<size_t>(r)];
    };
    for (int l : leaf_order)
      if (t.rank[static_cast<size_t>(l)] > 0) for_each_host(l, [&](std::pair<int, int> h) { idx[h] = upper_index(l); });
    for (int s = 0; s < S; s++)
      if (t.rank[static_cast<size_t>(s)] > 0 && has_an[static_cast<size_t>(s)]) an_index[static_cast<size_t>(s)] = upper_index(s);
    // Trees of three or more levels with bundles, aggregation nodes or upper-level hosts: the
    // destinations beyond a leaf's hosts (switch LIDs, ANs, hosts on spines) take, one by one,
    // the index whose own climb (its attach switch's up-cable by its digit, and so on up: the
    // cables it comes down, by the Mirror rule) crosses the least used cables so far, counting
    // every leaf host's climb first. Placed by their digits alone they piled up on some spine's
    // cable from a core (4 destinations on one of 14 on hdr-3tier).
    bool extras_balanced = false;
    for (int s = 0; H >= 2 && s < S; s++)
      extras_balanced |= has_an[static_cast<size_t>(s)] || parents[static_cast<size_t>(s)] != t.up[static_cast<size_t>(s)].size() ||
                         (t.rank[static_cast<size_t>(s)] > 0 && t.hosts_per_switch[static_cast<size_t>(s)] > 0);
    if (extras_balanced) {
      std::vector<std::vector<int>> use(static_cast<size_t>(S));
      for (int s = 0; s < S; s++) use[static_cast<size_t>(s)].assign(t.up[static_cast<size_t>(s)].size(), 0);
      // The plane a destination comes down in is picked by the sources' leaves (d-mod-k over
      // their up-cables), not by its own leaf: on a leaf short of a cable (19 of 20) its own
      // digit names another parent than the full leaves' digit does. The climb from a leaf is
      // therefore counted as the full leaves pick: the parent at that position of the first
      // appearance order, over one of the leaf's cables to it.
      size_t full0 = 0;  // up-cables of the widest leaf
      for (int l : t.by_rank[0]) full0 = std::max(full0, t.up[static_cast<size_t>(l)].size());
      const long parents0 = divisor[1];
      auto leaf_cable = [&](int a, long x) -> size_t {
        const auto& up = t.up[static_cast<size_t>(a)];
        const size_t own = static_cast<size_t>(x % static_cast<long>(up.size()));
        if (up.size() == full0 || static_cast<long>(parents[static_cast<size_t>(a)]) != parents0) return own;
        const long pos = x % static_cast<long>(full0);
        const int parent = up[static_cast<size_t>(pos % parents0)].peer;  // first appearances lead the order
        if (up[own].peer == parent) return own;
        long n = 0;  // the leaf's cables to that parent; take the (pos / parents0 mod n)-th
        for (const auto& e : up) n += e.peer == parent;
        long k = (pos / parents0) % n;
        for (size_t i = 0; i < up.size(); i++)
          if (up[i].peer == parent && k-- == 0) return i;
        return own;  // not reached: the parent is one of the leaf's own
      };
      auto climb = [&](int a, long x, auto&& fn) {
        for (int r = t.rank[static_cast<size_t>(a)]; r < H; r++) {
          const auto& up = t.up[static_cast<size_t>(a)];
          if (up.empty()) break;
          const size_t c = r == 0 ? leaf_cable(a, x)
                                  : static_cast<size_t>((x / divisor[static_cast<size_t>(r)]) % static_cast<long>(up.size()));
          fn(a, c);
          a = up[c].peer;
        }
      };
      // A leaf with fewer parents than its rank's widest (a management leaf on one spine) gets
      // no spread from its low digits: its consecutive hosts share the digits above and would
      // climb, and come down, one cable. Its hosts are placed like the extras.
      size_t widest0 = 1;
      for (int l : t.by_rank[0]) widest0 = std::max(widest0, parents[static_cast<size_t>(l)]);
      auto deficient = [&](int l) { return t.rank[static_cast<size_t>(l)] == 0 && parents[static_cast<size_t>(l)] < widest0; };
      // Above the leaves, the switches of a plane in every pod climb to a destination over the
      // cable at the same place (the one it comes down: UpToMirror), so the destinations that
      // share a core and a place in its bundle share that cable in every pod, the valley pod's
      // included, where the U-turns of the upper levels' sources climb back up. Counted per
      // (core, place in the bundle) as well as per cable.
      std::vector<std::vector<int>> into_key(static_cast<size_t>(S));
      int keys = 0;
      {
        std::map<std::pair<int, int>, int> key_of;
        for (int s = 0; s < S; s++) {
          if (t.rank[static_cast<size_t>(s)] == 0) continue;
          std::map<int, int> nth;
          for (const auto& e : t.up[static_cast<size_t>(s)]) {
            auto [it, fresh] = key_of.try_emplace({e.peer, nth[e.peer]++}, keys);
            keys += fresh;
            into_key[static_cast<size_t>(s)].push_back(it->second);
          }
        }
      }
      std::vector<int> into(static_cast<size_t>(keys), 0);
      auto count = [&](int a, size_t c) {
        use[static_cast<size_t>(a)][c]++;
        if (t.rank[static_cast<size_t>(a)] > 0) into[static_cast<size_t>(into_key[static_cast<size_t>(a)][c])]++;
      };
      for (int l : leaf_order)
        if (t.rank[static_cast<size_t>(l)] == 0 && !deficient(l))
          for_each_host(l, [&](std::pair<int, int> h) { climb(l, idx[h], count); });
      const long cands = std::min<long>(period, 2048);
      std::vector<long> first(static_cast<size_t>(c0), 0);  // extras per first digit
      auto place_extra = [&](int sw) {
        long best = 0;
        std::tuple<int, int, long, long> best_score{INT_MAX, 0, 0, 0};
        for (long v = 0; v < cands; v++) {
          int mx = 0, shared = 0;
          long sum = 0;
          climb(sw, shift + v, [&](int a, size_t c) {
            mx = std::max(mx, use[static_cast<size_t>(a)][c]);
            sum += use[static_cast<size_t>(a)][c];
            if (t.rank[static_cast<size_t>(a)] > 0)
              shared = std::max(shared, into[static_cast<size_t>(into_key[static_cast<size_t>(a)][c])]);
          });
          std::tuple<int, int, long, long> score{mx, shared, sum, first[static_cast<size_t>((shift + v) % c0)]};
          if (score < best_score) best_score = score, best = v;
        }
        climb(sw, shift + best, count);
        first[static_cast<size_t>((shift + best) % c0)]++;
        return shift + best;
      };
      std::vector<int> extra_order;
      for (int l : leaf_order)
        if (t.rank[static_cast<size_t>(l)] == 0) extra_order.push_back(l);
      for (int s = 0; s < S; s++)
        if (t.rank[static_cast<size_t>(s)] > 0) extra_order.push_back(s);
      for (int s : extra_order) {
        switch_index[static_cast<size_t>(s)] = place_extra(s);
        if (has_an[static_cast<size_t>(s)]) an_index[static_cast<size_t>(s)] = place_extra(s);
        if (t.rank[static_cast<size_t>(s)] > 0 || deficient(s)) for_each_host(s, [&](std::pair<int, int> h) { idx[h] = place_extra(s); });
      }
    }
    for (const EndPort& ep : fabric.end_ports()) {
      Attach a = fabric.attach(ep.base_lid);
      if (!a.valid()) continue;  // CA port with no link: nothing can reach it
      int s = t.sw_index[static_cast<size_t>(a.sw)];
      long index;
      if (fabric.node(ep.node).is_switch()) {
        index = switch_index[static_cast<size_t>(s)];
      } else if (is_aggregation_node(fabric, ep.node)) {
        index = an_index[static_cast<size_t>(s)];
      } else {
        auto it = idx.find({ep.node, ep.port});
        index = it == idx.end() ? 0 : it->second;
      }
      for (long o = 0; o < (1L << ep.lmc); o++)
        dests[static_cast<size_t>(s)].push_back({static_cast<Lid>(ep.base_lid + o), a.port, index, o});
    }
    std::vector<size_t> by_index;
    for (auto& dl : dests) {
      by_index.resize(dl.size());
      for (size_t i = 0; i < dl.size(); i++) by_index[i] = i;
      std::sort(by_index.begin(), by_index.end(), [&](size_t a, size_t b) {
        return std::pair(dl[a].index, dl[a].offset) < std::pair(dl[b].index, dl[b].offset);
      });
      // counted from the switch's first index (its first host's), so that the leaves' LIDs
      // follow each other as their hosts' indices do
      for (size_t i = 0; i < dl.size(); i++) dl[by_index[i]].local = dl[by_index[0]].index + static_cast<long>(i);
    }
  }

  return dests;
}

}  // namespace ftroute
