// ftree-misroute's valley leaves by plane (option plane_valleys, docs/ftree-misroute.md section 8,
// "Valley leaves by plane on one VL"): the planes above the leaves, their order, and the leaf of
// each position. The routing itself (which plane turns at which leaf, per destination) is the
// Router's (ftree_misroute.cpp).
#include "ftree_misroute/ftree_misroute_internal.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace ftroute {

PlaneValleys plane_valleys(const Fabric& fabric, const FatTree& t, const std::vector<std::vector<DestLid>>& dests,
                           const std::vector<long>& divisor, const std::vector<int>& valleys, bool forced,
                           int spread) {
  const int S = t.num_switches();
  const int H = t.height;
  PlaneValleys pv;
  if (valleys.empty()) return pv;
  pv.plane.assign(static_cast<size_t>(S), -1);
  std::vector<long> weight;  // per plane: its switches and the CAs on them (the turns' ends)
  for (int s0 = 0; s0 < S; s0++) {
    if (t.rank[static_cast<size_t>(s0)] == 0 || pv.plane[static_cast<size_t>(s0)] >= 0) continue;
    const int m = static_cast<int>(weight.size());
    weight.push_back(0);
    std::vector<int> todo{s0};
    pv.plane[static_cast<size_t>(s0)] = m;
    while (!todo.empty()) {
      const int x = todo.back();
      todo.pop_back();
      weight[static_cast<size_t>(m)] += 1;
      const Node& nd = fabric.node(t.sw_node[static_cast<size_t>(x)]);
      for (int q = 1; q <= nd.num_ports; q++)
        if (nd.port(q).connected() && !fabric.node(nd.port(q).peer_node).is_switch()) weight[static_cast<size_t>(m)]++;
      for (const auto* links : {&t.up[static_cast<size_t>(x)], &t.down[static_cast<size_t>(x)]})
        for (const auto& e : *links)
          if (t.rank[static_cast<size_t>(e.peer)] > 0 && pv.plane[static_cast<size_t>(e.peer)] < 0) {
            pv.plane[static_cast<size_t>(e.peer)] = m;
            todo.push_back(e.peer);
          }
    }
  }
  const int P = static_cast<int>(weight.size());
  auto cabled_to_every_plane = [&](int l) {
    std::set<int> reach;
    for (const auto& e : t.up[static_cast<size_t>(l)]) reach.insert(pv.plane[static_cast<size_t>(e.peer)]);
    return static_cast<int>(reach.size()) == P;
  };
  // CAs above the leaves: a plane weighs more than its switches
  long above = 0, weights = 0;
  for (int x = 0; x < S; x++) above += t.rank[static_cast<size_t>(x)] > 0;
  for (long w : weight) weights += w;
  const bool upper_cas = weights > above;
  if (P >= 3 && (upper_cas || forced)) {
    // order: the lightest plane first (its leaf takes every turn into and out of it)
    std::vector<int> order(static_cast<size_t>(P));
    for (int m = 0; m < P; m++) order[static_cast<size_t>(m)] = m;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return weight[static_cast<size_t>(a)] < weight[static_cast<size_t>(b)]; });
    pv.pos.assign(static_cast<size_t>(P), 0);
    for (int i = 0; i < P; i++) pv.pos[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
    // the leaves: of the best valley leaf's sub-tree below the top rank, cabled into every
    // plane, the best valley candidates first, then the most up-cables
    auto full_of = [&](int b) {  // the leaves of sub-tree b cabled into every plane
      std::vector<int> out;
      for (int l : t.leaves)
        if (t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(l)] == b && cabled_to_every_plane(l)) out.push_back(l);
      return out;
    };
    const int pod = t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(valleys.front())];
    std::vector<int> pod_leaves = full_of(pod);
    auto rank_of = [&](int l) {
      const auto it = std::find(valleys.begin(), valleys.end(), l);
      return std::make_pair(static_cast<long>(it - valleys.begin()), -static_cast<long>(t.up[static_cast<size_t>(l)].size()));
    };
    std::stable_sort(pod_leaves.begin(), pod_leaves.end(), [&](int a, int b) { return rank_of(a) < rank_of(b); });
    if (spread == 3 && H != 2) return PlaneValleys{};  // turn pods: three-level trees
    if (spread == 3) {
      // Turn pods by position. Every plane that turns in a pod (its position's and every later
      // one) descends into it from all its cores, and a plane's U-turns above the leaves (core to
      // core) take place in its own position's pod (the Router's U-turn points), so a pod takes a
      // position only where the switches of those planes in it have every core cable; the leaves
      // cabled to every plane take the turns. Pods in the valley candidates' order, then the
      // others; the last pod takes the positions no other pod can.
      size_t widest = 0;
      for (int x : t.by_rank[1]) widest = std::max(widest, t.up[static_cast<size_t>(x)].size());
      auto cabled = [&](int b, int m) {  // plane m's switches in pod b have every core cable
        bool any = false;
        for (int x : t.by_rank[1])
          if (t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(x)] == b && pv.plane[static_cast<size_t>(x)] == m) {
            if (t.up[static_cast<size_t>(x)].size() < widest) return false;
            any = true;
          }
        return any;
      };
      std::vector<int> cand_pods, pod_of;
      std::set<int> seen_pods;
      for (int v : valleys) cand_pods.push_back(t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(v)]);
      for (int l : t.leaves) cand_pods.push_back(t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(l)]);
      std::vector<std::vector<int>> fulls;
      std::vector<int> pods;
      for (int b : cand_pods)
        if (seen_pods.insert(b).second) {
          std::vector<int> f = full_of(b);
          if (!f.empty()) pods.push_back(b), fulls.push_back(std::move(f));
        }
      std::vector<char> used(pods.size(), 0);
      for (int i = 0; i < P; i++) {
        int pick = -1;
        for (size_t c = 0; c < pods.size() && pick < 0; c++) {
          bool ok = !used[c];  // every plane that turns there descends into it: planes from i on
          for (int k = i; k < P && ok; k++) ok = cabled(pods[c], order[static_cast<size_t>(k)]);
          if (ok) pick = static_cast<int>(c);
        }
        if (pick < 0) {  // the last pod takes this position and every later one
          if (pv.pod_leaf.empty()) return PlaneValleys{};
          for (int k = i; k < P; k++)
            if (!cabled(pod_of.back(), order[static_cast<size_t>(k)])) return PlaneValleys{};
          break;
        }
        used[static_cast<size_t>(pick)] = 1;
        pod_of.push_back(pods[static_cast<size_t>(pick)]);
        pv.pod_leaf.push_back(fulls[static_cast<size_t>(pick)]);
      }
      if (pv.pod_leaf.size() < 2) return PlaneValleys{};
      pv.pods = true;
      for (size_t i = 0; i < pv.pod_leaf.size(); i++) {
        pv.zpos.push_back(order[i == 0 ? 1 : 0]);
        pv.leaf.insert(pv.leaf.end(), pv.pod_leaf[i].begin(), pv.pod_leaf[i].end());
      }
    } else if (spread) {
      // Every turn at any leaf of the pod cabled to both planes; the leaves' traffic among
      // themselves through one plane z only (PlaneValleys::spread). spread 1: the leaves cabled to
      // every plane, z the first plane of the order; spread 2: of the planes, the one most of the
      // pod's leaves are cabled to (the earliest in the order on a tie), and the leaves cabled to
      // it (more leaves share the turns; those short of a plane take theirs through z).
      // The pod: the best valley candidate's, or where that has fewer than two such leaves, the
      // next candidate's pod that has (then any pod, in leaf order).
      std::vector<std::vector<char>> has;
      std::vector<int> all;
      int z = -1;
      size_t zn = 0;
      std::vector<int> pods{pod};
      for (int v : valleys) pods.push_back(t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(v)]);
      for (int l : t.leaves) pods.push_back(t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(l)]);
      std::set<int> tried;
      for (int b : pods) {
        if (!tried.insert(b).second) continue;
        has.clear(), all.clear(), z = -1, zn = 0;
        for (int l : t.leaves) {
          if (t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(l)] != b) continue;
          all.push_back(l);
          has.emplace_back(static_cast<size_t>(P), 0);
          for (const auto& e : t.up[static_cast<size_t>(l)]) has.back()[static_cast<size_t>(pv.plane[static_cast<size_t>(e.peer)])] = 1;
        }
        for (int m : order) {
          size_t n = 0;
          for (const auto& h : has) n += h[static_cast<size_t>(m)] != 0;
          if (n > zn) z = m, zn = n;
        }
        if (spread == 1) {  // the leaves cabled to every plane only
          z = order.front();
          zn = 0;
          for (size_t i = 0; i < all.size(); i++)
            if (std::count(has[i].begin(), has[i].end(), 1) != P) has[i].assign(static_cast<size_t>(P), 0);
            else zn++;
        }
        if (zn >= 2) break;
      }
      if (zn < 2) return PlaneValleys{};
      pv.spread = true;
      pv.z = z;
      for (size_t i = 0; i < all.size(); i++)
        if (has[i][static_cast<size_t>(z)]) pv.leaf.push_back(all[i]);
    } else if (pod_leaves.size() >= 2) {
      // Which leaf takes which position: the turns of the plane at position i come down its
      // bundle into leaf i, and so do the leaf's own LIDs that climb into that plane (every
      // source's route to a LID comes down the cable it leaves on, Mirror). Position by
      // position, the leaf with the most cables into the planes it takes (the last leaf: all
      // positions from its own on), then the fewest own LIDs there, ties in the order above.
      const int T = std::min(P, static_cast<int>(pod_leaves.size())) - 1;
      std::vector<std::vector<int>> own(static_cast<size_t>(S)), cables(static_cast<size_t>(S));
      for (int l : pod_leaves) {
        auto& o = own[static_cast<size_t>(l)];
        o.assign(static_cast<size_t>(P), 0);
        const auto& up = t.up[static_cast<size_t>(l)];
        cables[static_cast<size_t>(l)].assign(static_cast<size_t>(P), 0);
        for (const auto& e : up) cables[static_cast<size_t>(l)][static_cast<size_t>(pv.plane[static_cast<size_t>(e.peer)])]++;
        for (const DestLid& d : dests[static_cast<size_t>(l)]) {
          const uint64_t q0 = static_cast<uint64_t>(d.index / divisor[0] + d.offset);
          o[static_cast<size_t>(pv.plane[static_cast<size_t>(up[q0 % up.size()].peer)])]++;
        }
      }
      std::vector<char> taken(static_cast<size_t>(S), 0);
      for (int i = 0; i <= T; i++) {
        int best = -1;
        std::pair<long, long> best_cost;
        for (int l : pod_leaves) {
          if (taken[static_cast<size_t>(l)]) continue;
          std::pair<long, long> cost{0, 0};  // (-cables, own LIDs) into the planes it takes
          for (int m = 0; m < P; m++)
            if (i == T ? pv.pos[static_cast<size_t>(m)] >= T : pv.pos[static_cast<size_t>(m)] == i) {
              cost.first -= cables[static_cast<size_t>(l)][static_cast<size_t>(m)];
              cost.second += own[static_cast<size_t>(l)][static_cast<size_t>(m)];
            }
          if (best < 0 || cost < best_cost) best = l, best_cost = cost;
        }
        taken[static_cast<size_t>(best)] = 1;
        pv.leaf.push_back(best);
      }
    }
  }
  if (pv.leaf.empty()) return PlaneValleys{};
  pv.low.assign(static_cast<size_t>(pv.planes()), {});
  for (int x = 0; x < S; x++)
    if (t.rank[static_cast<size_t>(x)] == 1) pv.low[static_cast<size_t>(pv.plane[static_cast<size_t>(x)])].push_back(x);
  // which turn leaves are cabled into every plane (the Router's spread turns)
  for (int l : pv.leaf) pv.full.push_back(cabled_to_every_plane(l));
  return pv;
}

}  // namespace ftroute
