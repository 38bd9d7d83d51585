// Router-level model of a k-ary n-direct 1-indirect KNS (crossbar subnets) and the routing
// algorithms of seed 002 on it: Hybrid-DOR, the thesis' intermediate-node (IN) fault tolerance
// (Ch 5-6), and the destination-based IN trees the kns engine programs into LFTs.
//
// Numbering (spec §1.2): router R = sum_i r_i k^i (dimension 0 least significant); crossbar
// [d, line] with line = mixed-radix index of the router coordinates without d; model node ids:
// routers 0..K-1 (K = k^n), crossbar [d, line] = K + d * lines + line (lines = k^(n-1)).
// Faults: the link of router R in dimension d is bad[R * n + d]; a dead crossbar is a crossbar
// flag (equivalent to all its k links failing, the thesis' correlated switch fault).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <random>
#include <vector>

namespace ftroute::kns {

struct Model {
  int k = 0, n = 0;
  long K = 0;       // routers
  long lines = 0;   // crossbars per dimension
  std::vector<char> link_bad;   // [R * n + d]
  std::vector<char> xbar_dead;  // [d * lines + line]

  Model() = default;
  Model(int k, int n);
  int coord(long R, int d) const;
  long with_coord(long R, int d, int v) const;   // R with coordinate d set to v
  long line(long R, int d) const;
  long xbar_id(int d, long line) const { return K + d * lines + line; }
  long num_nodes() const { return K + n * lines; }
  // Router R can use its dimension-d link (link and crossbar working).
  bool up(long R, int d) const {
    return !link_bad[static_cast<size_t>(R * n + d)] && !xbar_dead[static_cast<size_t>(d * lines + line(R, d))];
  }
  // The Hybrid-DOR path X -> Y crosses no failed link or crossbar (thesis "Y reachable from X").
  bool dor_ok(long X, long Y) const;
  int diff(long X, long Y) const;   // number of differing coordinates
};

// Destination-based routing tree toward one destination (a router or a crossbar) of the model.
// succ[node]: for a router the dimension it forwards on (n = deliver here / destination),
// for a crossbar the coordinate of the router it forwards to (k = destination); -1 = no route.
// restarts[node] = number of dimension-order restarts (= intermediate routers) on the path from
// node (arriving from its host for routers), hops = router-crossbar links on it.
struct Tree {
  std::vector<int16_t> succ;
  std::vector<uint8_t> restarts;
  std::vector<uint16_t> hops;
};

// Builds the tree by a Dijkstra over (restarts, hops) (docs/kns.md "IN trees"): pairs whose
// Hybrid-DOR path is fault-free keep it exactly; every other router gets a path made of DOR legs
// (its restarts are the intermediate routers) with the fewest legs, then fewest hops, such that
// every crossbar forwards the destination to one router (destination-based, loop-free because
// the label strictly decreases along every path).
// last_dim >= 0 counts restarts with that dimension moved to the end of the order (used for
// crossbar destinations: their paths correct the other dimensions first, then enter the crossbar).
Tree build_tree(const Model& m, long dest, int last_dim = -1);

// Per-source alternative paths on LMC LIDs (docs/kns.md "LMC"). A destination-based tree gives
// every router ONE next hop per destination, so when two sources need paths that disagree at a
// shared router or crossbar, the tree (trees[0], the base LID) serves one of them with more
// intermediate routers than the thesis' per-pair choice. build_lid_trees adds up to
// num_trees - 1 alternative trees for the destination's extra LMC LIDs: each source router the
// base tree serves with more than max_in restarts (or not at all) gets, in the first alternative
// tree that can still hold it, its own best path (a Dijkstra over (router, arrival dimension)
// states in which the routers/crossbars already pinned in that tree keep their next hop); every
// node not pinned keeps the base tree's next hop, so each alternative tree is loop-free (pinned
// chains end at the destination, the others follow the base tree until they meet one).
// choice[R] = the tree (LID offset) the hosts of router R use to reach dest (fewest restarts,
// lowest index on ties); best[R] = its restarts (255 = unreachable). Tree restarts/hops of the
// alternative trees are recounted by walking them (a router as source, arriving from its host).
struct LidTrees {
  std::vector<Tree> trees;
  std::vector<uint8_t> choice, best;
};
LidTrees build_lid_trees(const Model& m, long dest, int max_in, int num_trees);

// Statistics for one fault set, thesis criterion (per pair free choice of INs, spec §3.2/§7.3)
// and destination-tree criterion (what the engine programs with LMC 0).
struct Tolerance {
  long pairs = 0;        // ordered router pairs S != D
  long dor = 0;          // pairs whose DOR path is fault-free
  long in1 = 0, in2 = 0; // pairs needing 1 / 2 INs
  long failed = 0;       // pairs not served within max_in INs
  bool tolerated() const { return failed == 0; }
};
Tolerance thesis_tolerance(const Model& m, int max_in, bool stop_at_first_failure = false);
// num_trees = LIDs per destination the trees may use (2^LMC; 1 = one tree per destination).
Tolerance tree_tolerance(const Model& m, int max_in, bool stop_at_first_failure = false, int num_trees = 1);

// The thesis' per-pair intermediate routers (§5.4, spec §3.2), one source-destination pair at a
// time as its source table holds them: a pair whose Hybrid-DOR path works needs none (empty
// list); any other gets the INs I_1 [, I_2] of a path of Hybrid-DOR legs S -> I_1 [-> I_2] -> D,
// each leg fault-free, with the fewest hops (a minimal path when there is one: the thesis
// prefers a minimal path with more INs to a non-minimal one with fewer), then the fewest INs.
// Among equal paths the thesis names no rule: First takes the lowest router numbers, Random one
// of them uniformly (rng). std::nullopt: no such path within max_in (1 or 2) INs.
// The thesis orders paths by length only as far as "minimal or not": with no minimal path it says
// nothing of the lengths. Shortest (the default) takes the fewest hops, then the fewest INs;
// MinimalFirst takes a minimal path when there is one (as Shortest), and otherwise any path with
// the fewest INs, whatever its length (the same tie rule among them).
enum class InTies { First, Random };
enum class InLength { Shortest, MinimalFirst };
std::optional<std::vector<long>> thesis_ins(const Model& m, long S, long D, int max_in, InTies ties,
                                            std::mt19937_64& rng, InLength length = InLength::Shortest);
// The ordered router pairs whose Hybrid-DOR path crosses a failed link or crossbar, sorted.
std::vector<std::pair<long, long>> faulty_dor_pairs(const Model& m);

// Marks `faults` distinct random router-crossbar links as failed (population K * n, as in
// thesis §5.5.2). Clears previous faults.
void random_link_faults(Model& m, int faults, std::mt19937_64& rng);

// XORDET class (spec §4.3): interleaved XOR fold of the node id's nbits into log2(classes) bits.
int xordet_class(uint64_t id, int nbits, int classes);

}  // namespace ftroute::kns
