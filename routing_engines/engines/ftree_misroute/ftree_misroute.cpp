// ftree-misroute engine (see ftree_misroute.hpp and docs/ftree-misroute.md).
#include "ftree_misroute/ftree_misroute.hpp"
#include "ftree_misroute/ftree_misroute_internal.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "ftroute/cdg.hpp"
#include "ftroute/error.hpp"
#include "ftroute/parallel.hpp"
#include "ftroute/verdict.hpp"

namespace ftroute {

namespace {

constexpr int kInf = INT_MAX / 4;
constexpr int kPlaneValleys = -2;  // the candidate "valley leaves by plane" in the list of valley leaves

// Per-destination classification of every switch (see compute()).
struct Classes {
  std::vector<int8_t> cls;   // class, -1 = cannot reach the destination
  std::vector<int> dist;     // hops inside the class to the next (lower) class
};

class Router {
 public:
  // `vc[s]` = switch s may be a U-turn point: it lies in the sub-tree of its own rank that
  // contains the valley leaf (block_rank(s)(valley)). Restricting every U-turn to that chain of
  // sub-trees is what keeps the CDG acyclic (docs/ftree-misroute.md, "Deadlock freedom").
  Router(const FatTree& t, const std::vector<char>& vc, const PlaneValleys* pv = nullptr) : t_(t), vc_(vc), pv_(pv) {
    int S = t.num_switches();
    c_.cls.assign(static_cast<size_t>(S), -1);
    c_.dist.assign(static_cast<size_t>(S), kInf);
    if (pv_) {
      exit_.assign(static_cast<size_t>(pv_->planes()), -1);
      climb_min_.assign(static_cast<size_t>(S), -1);
      in_r_.assign(static_cast<size_t>(pv_->planes()), 0);
    }
    max_class_ = 2 * (t.height + 2) + 1;
    for (uint32_t n = 1; n < 256; n++) magic_[n] = UINT64_MAX / n + 1;
  }

  // Classifies every switch for the destinations attached at switch `target`:
  //   class 0        down*: the target and its ancestors (working down-path); dist = down hops
  //   class 1        climb to a class 0/1 switch (the normal up/down route); dist = up hops
  //   class 2j (j>0) descend to a class-2j switch or to a U-turn point (vc) of class 2j-1
  //   class 2j+1     climb to a class 2j / 2j+1 switch
  // Every hop goes to the same class with dist-1 or to the class below, so tables are loop
  // free; a U-turn (down-hop followed by an up-hop) only happens at a vc switch.
  void compute(int target) {
    target_ = target;
    auto& cls = c_.cls;
    auto& dist = c_.dist;
    std::fill(cls.begin(), cls.end(), -1);
    std::fill(dist.begin(), dist.end(), kInf);
    cls[static_cast<size_t>(target)] = 0;
    dist[static_cast<size_t>(target)] = 0;
    int done = 1;
    // Class 0: the switches reached from the target by up-links only (each link of a fat tree
    // joins adjacent ranks, so this is "has a class-0 child", rank by rank); dist = up hops.
    bfs_.clear();
    bfs_.push_back(target);
    for (size_t h = 0; h < bfs_.size(); h++) {
      const int s = bfs_[h];
      for (const auto& e : t_.up[static_cast<size_t>(s)])
        if (cls[static_cast<size_t>(e.peer)] != 0) {
          cls[static_cast<size_t>(e.peer)] = 0;
          dist[static_cast<size_t>(e.peer)] = dist[static_cast<size_t>(s)] + 1;
          done++;
          bfs_.push_back(e.peer);
        }
    }
    const int S = t_.num_switches();
    if (pv_) plane_exits();
    done += climb(1);
    for (int k = 2; done < S && k + 1 <= max_class_; k += 2) {
      int got = descend(k);
      got += climb(k + 1);
      done += got;
      if (got == 0) break;
    }
  }

  const Classes& classes() const { return c_; }

  // Output ports for the destinations attached at `target` (classes computed), memoised per
  // attach switch: every switch's candidate ports go into one flat array, so that a destination
  // LID only picks cands[off + idx % len] per switch (planned_port), with idx its d-mod-k index
  // divided by the rank's digit weight plus its LMC offset. Candidates: a climbing switch takes
  // the up-ports to the class below (dist 1) or along its class; a U-turn point (even class,
  // dist 1) the down-ports to the nearest exits; a descending switch the down-ports one hop
  // closer. Parallel cables from s down to one child (Mirror): take the cable the child itself
  // picks going up for this destination (its d-mod-k choice over all its up-cables), so a
  // destination comes down the cable it would leave on; if the child's pick leads to another
  // parent, d-mod-k over the bundle with the child's digit.
  void plan(int target) {
    const int S = t_.num_switches();
    const size_t NS = static_cast<size_t>(S);
    if (!planned_) {  // first target of this router: every switch, and its candidate slots
      plan_.assign(NS, Plan{});
      slot_.assign(NS + 1, 0);
      for (size_t s = 0; s < NS; s++)
        slot_[s + 1] = slot_[s] + static_cast<uint32_t>(std::max(t_.up[s].size(), t_.down[s].size()));
      flat_.assign(slot_[NS], 0);
      flat_peer_.assign(slot_[NS], -1);
      upmap_.assign(slot_[NS], kNotCand);
      dirty_.assign(NS, 0);
      seen_.assign(NS, 0);
      for (int s = 0; s < S; s++) plan_switch(s, target);
      planned_ = true;
    } else {
      // A switch's plan depends on its own and its neighbours' class and distance (and on
      // whether it is the target): re-plan only around what changed since the last target.
      todo_.clear();
      auto mark = [&](int s) {
        if (!dirty_[static_cast<size_t>(s)]) dirty_[static_cast<size_t>(s)] = 1, todo_.push_back(s);
      };
      mark(target);
      mark(last_target_);
      if (pv_) {  // the plane exits and the leaves' climbs they restrict, where they changed
        for (size_t m = 0; m < exit_.size(); m++)
          if (exit_[m] != pexit_[m])
            for (int x : pv_->low[m]) mark(x);
        for (size_t x = 0; x < NS; x++)
          if (climb_min_[x] != pclimb_min_[x]) mark(static_cast<int>(x));
      }
      for (size_t s = 0; s < NS; s++) {
        if (c_.cls[s] == pcls_[s] && c_.dist[s] == pdist_[s]) continue;
        mark(static_cast<int>(s));
        for (const auto& e : t_.up[s]) mark(e.peer);
        for (const auto& e : t_.down[s]) mark(e.peer);
      }
      for (int s : todo_) {
        plan_switch(s, target);
        dirty_[static_cast<size_t>(s)] = 0;
      }
    }
    pcls_ = c_.cls;
    pdist_ = c_.dist;
    if (pv_) pexit_ = exit_, pclimb_min_ = climb_min_;
    last_target_ = target;
  }

  // Port of switch s (s != target) for the destination whose d-mod-k index per rank is q[rank]
  // (q[r] = index / divisor[r] + offset), from the plan of its attach switch.
  uint8_t planned_port(int s, const uint64_t* q) const {
    const Plan& p = plan_[static_cast<size_t>(s)];
    if (p.mode == Plan::None) return kNoPath;
    const uint64_t idx = q[p.rank];
    if (p.mode == Plan::UpMirror) {
      // the destination's ancestor one rank below s, on its own way up from the target
      int a = target_;
      const int below = t_.rank[static_cast<size_t>(s)] - 1;
      for (int r = t_.rank[static_cast<size_t>(a)]; r < below; r++) {
        const auto& up = t_.up[static_cast<size_t>(a)];
        if (up.empty()) break;
        a = up[static_cast<size_t>(mod(q[r], static_cast<uint32_t>(up.size())))].peer;
      }
      if (t_.rank[static_cast<size_t>(a)] == below) {
        uint32_t n = 0, first = 0;
        for (uint32_t i = 0; i < p.len; i++)
          if (flat_peer_[p.off + i] == a) {
            if (n++ == 0) first = i;
          }
        if (n == 1) return flat_[p.off + first];
        if (n > 1) {  // parallel cables to it: the d-mod-k digit of its own rank over them
          uint64_t pick = mod(q[below], n);
          for (uint32_t i = 0; i < p.len; i++)
            if (flat_peer_[p.off + i] == a && pick-- == 0) return flat_[p.off + i];
        }
      }
    }
    if (p.mode == Plan::Local) return flat_[p.off + static_cast<uint32_t>(mod(q[t_.height + 1], p.len))];
    if (p.mode == Plan::UpToMirror && t_.height >= 2) {
      // the destination's own ancestor one rank above s, on its way up from the target
      const int above = t_.rank[static_cast<size_t>(s)] + 1;
      int a = target_, prev = -1;
      uint32_t c = 0, tn = 0;
      for (int r = t_.rank[static_cast<size_t>(a)]; r < above; r++) {
        const auto& up = t_.up[static_cast<size_t>(a)];
        if (up.empty()) break;
        tn = static_cast<uint32_t>(up.size());
        c = static_cast<uint32_t>(mod(q[r], tn));
        prev = a;
        a = up[c].peer;
      }
      if (prev >= 0 && t_.rank[static_cast<size_t>(a)] == above) {
        // the cable's place in the ancestor's bundle from prev, turned by the cycle over them
        const auto& pup = t_.up[static_cast<size_t>(prev)];
        uint64_t j = q[t_.rank[static_cast<size_t>(prev)]] / tn;
        for (uint32_t i = 0; i < c; i++) j += pup[i].peer == a;
        if (const int port = cable_to(p.off, p.len, a, j); port >= 0) return static_cast<uint8_t>(port);
      }
      return flat_[p.off + static_cast<uint32_t>(mod(idx, p.len))];
    }
    if (p.mode == Plan::UpToMirror) {
      // the parent the destination's leaf climbs to for it, over a cable of this leaf's bundle
      // to that parent (the digit above the leaf's own, so the bundle is spread too)
      const auto& tup = t_.up[static_cast<size_t>(target_)];
      if (!tup.empty()) {
        const uint32_t tn = static_cast<uint32_t>(tup.size());
        const uint64_t local = q[t_.height + 1];
        const uint32_t c = static_cast<uint32_t>(mod(local, tn));
        const int a = tup[c].peer;
        uint64_t j = local / tn;  // the cable's place in its bundle, turned by the cycle over the cables
        for (uint32_t i = 0; i < c; i++) j += tup[i].peer == a;
        if (const int port = cable_to(p.off, p.len, a, j); port >= 0) return static_cast<uint8_t>(port);
        // that spine is out of reach (a missing cable): by the position over all the cables
        return flat_[p.off + static_cast<uint32_t>(mod(local, p.len))];
      }
    }
    if (p.mode == Plan::Mirror) {
      const auto& up = t_.up[static_cast<size_t>(p.child)];
      if (!up.empty()) {
        // in a two-level tree the destination's leaf spreads its own LIDs over its up-cables by
        // their position on it (UpToMirror: the other leaves climb to the spine of that cable)
        const uint64_t own = t_.height == 1 && p.child == target_ ? q[t_.height + 1] : idx;
        const FatTreeLink& pick = up[static_cast<size_t>(mod(own, static_cast<uint32_t>(up.size())))];
        if (pick.peer == s) return pick.peer_port;
      }
    }
    if (p.mode == Plan::Spread) {
      // d-mod-k over all the switch's up-cables, as without faults, where that parent still
      // leads to the destination; the destinations whose parent does not are spread over the
      // remaining ones by this switch's own number, so the sources share them out instead of
      // all taking the same one.
      const auto& up = t_.up[static_cast<size_t>(s)];
      const uint32_t full = static_cast<uint32_t>(up.size());
      const uint8_t at = upmap_[p.off + static_cast<uint32_t>(mod(idx, full))];
      if (at != kNotCand) return flat_[p.off + at];
      return flat_[p.off + static_cast<uint32_t>(mod(idx / full + static_cast<uint64_t>(s), p.len))];
    }
    return flat_[p.off + static_cast<uint32_t>(mod(idx, p.len))];
  }

 private:
  // Of the `len` candidate ports from slot `off`, the (j mod n)-th of the n that lead to switch
  // a, in candidate order; -1 if none does.
  int cable_to(uint32_t off, uint32_t len, int a, uint64_t j) const {
    uint32_t n = 0;
    for (uint32_t i = 0; i < len; i++) n += flat_peer_[off + i] == a;
    if (n == 0) return -1;
    uint64_t pick = mod(j, n);
    for (uint32_t i = 0; i < len; i++)
      if (flat_peer_[off + i] == a && pick-- == 0) return flat_[off + i];
    return -1;
  }

  void plan_switch(int s, int target) {
    Plan& p = plan_[static_cast<size_t>(s)];
    p = Plan{};
    if (s == target) return;
    cand_.clear();
    const size_t si = static_cast<size_t>(s);
    const int k = c_.cls[si];
    p.rank = static_cast<uint8_t>(t_.rank[si]);
    if (k < 0) {
      p.mode = Plan::None;
      return;
    }
    const auto& cls = c_.cls;
    const auto& dist = c_.dist;
    if (k % 2 == 1) {
      Peers parents = peers();
      for (const auto& e : t_.up[si]) {
        int c = cls[static_cast<size_t>(e.peer)];
        if (!may_climb(s, e.peer)) continue;
        if ((c == k - 1 && dist[si] == 1) || (c == k && dist[static_cast<size_t>(e.peer)] == dist[si] - 1)) {
          cand_.push_back(e.port);
          add_peer(parents, e.peer);
        }
      }
      const bool bundled = parents.bundle;
      // Only the cables of one bundle lead on (a U-turn's way out of the valley leaf to the one
      // spine of the destination's plane, or what faults left): the destinations that come here
      // share their d-mod-k digits in patterns (they were picked for this parent by them), so
      // they take the cables by their position on their own switch: a switch's LID and its
      // aggregation node, a leaf's consecutive hosts, alternate over the bundle.
      if (bundled && parents.distinct == 1) p.mode = Plan::Local;
      // A leaf of a two-level tree with cable bundles, climbing to a destination on another
      // leaf: it climbs to the spine the destination's leaf itself climbs to for it (Mirror
      // there then takes the very cable the destination leaves on), so the destination leaf's
      // down-cables carry its LIDs as evenly as its up-cables do; with bundles of unequal size
      // (a missing cable) the leaves' own d-mod-k digits pick spines that Mirror cannot follow.
      // (A plan depends only on classes and distances, which re-planning tracks: whether the
      // destination sits on a leaf is decided per query, a spine's own hosts have no up-cables.)
      else if (bundled && t_.height == 1 && p.rank == 0 && k == 1 && dist[si] == 1) p.mode = Plan::UpToMirror;
      // A switch of a deeper tree one hop below the destination's ancestors (class 1, dist 1)
      // with several parents to choose from: it climbs to the ancestor the destination itself
      // climbs to (its own d-mod-k choice over its real up-cables, counted from where it sits),
      // so the ancestor's Mirror descends the very cable the destination leaves on. With every
      // bundle complete this is the parent d-mod-k picks anyway; with a cable missing (a spine
      // with 13 of 14 up-cables) the sources' digit, taken over full bundles, sent a fixed share
      // of the destinations down the ancestor's one remaining cable of that bundle.
      else if (bundled && t_.height >= 2 && k == 1 && dist[si] == 1 && parents.distinct > 1) p.mode = Plan::UpToMirror;
      // The normal up phase with some parents cut off from the destination by faults: the
      // fault-free choice where it still leads on, the rest spread by source (Plan::Spread).
      else if (k == 1 && !cand_.empty() && cand_.size() < t_.up[si].size()) p.mode = Plan::Spread;
    } else if (k > 0 && dist[si] == 1) {
      int best = kInf;
      for (const auto& e : t_.down[si])
        if (is_exit(k, e.peer, s)) best = std::min(best, dist[static_cast<size_t>(e.peer)]);
      Peers exits = peers();
      for (const auto& e : t_.down[si])
        if (is_exit(k, e.peer, s) && dist[static_cast<size_t>(e.peer)] == best) {
          cand_.push_back(e.port);
          add_peer(exits, e.peer);
        }
      // a U-turn into the valley leaf over a bundle: by position, as a climb over one bundle
      if (exits.bundle && exits.distinct == 1) p.mode = Plan::Local;
    } else {
      Peers children = peers();
      for (const auto& e : t_.down[si])
        if (cls[static_cast<size_t>(e.peer)] == k && dist[static_cast<size_t>(e.peer)] == dist[si] - 1) {
          cand_.push_back(e.port);
          add_peer(children, e.peer);
        }
      if (children.bundle && children.distinct == 1) {
        p.mode = Plan::Mirror;
        p.child = children.last;
        p.rank = static_cast<uint8_t>(t_.rank[static_cast<size_t>(children.last)]);
      } else if (cand_.size() > 1 && k == 0 && p.rank >= 2 && t_.rank[static_cast<size_t>(target)] < p.rank) {
        // A core of a generalised fat tree going down into a pod through one of several
        // spines: it takes the spine the destination itself climbs to (its up-path from its leaf
        // by its own d-mod-k digits), so a leaf's hosts come down over all its spines as they
        // leave over them; the own digit would send them all down one spine. If that spine is not
        // below this core, d-mod-k with the digit of the rank two below.
        p.mode = Plan::UpMirror;
        p.rank = static_cast<uint8_t>(p.rank - 2);
      }
    }
    if (cand_.empty()) {
      p.mode = Plan::None;
      return;
    }
    p.off = slot_[si];
    p.len = static_cast<uint8_t>(cand_.size());
    std::copy(cand_.begin(), cand_.end(), flat_.begin() + p.off);
    if (p.mode == Plan::Spread) {
      std::fill(upmap_.begin() + p.off, upmap_.begin() + p.off + static_cast<uint32_t>(t_.up[si].size()), kNotCand);
      for (size_t i = 0, j = 0; i < t_.up[si].size() && j < cand_.size(); i++)
        if (t_.up[si][i].port == cand_[j]) upmap_[p.off + i] = static_cast<uint8_t>(j++);
    }
    if (p.mode == Plan::UpMirror || p.mode == Plan::UpToMirror)
      for (size_t i = 0; i < cand_.size(); i++)
        for (const auto& e : p.mode == Plan::UpMirror ? t_.down[si] : t_.up[si])
          if (e.port == cand_[i]) flat_peer_[p.off + i] = e.peer;
  }

  // In a generalised fat tree (FatTree::multi_child) a switch of the valley chain does not
  // climb out of its sub-tree towards a destination inside that sub-tree: a core reaches the
  // sub-tree through several switches, so a route up and back down into it, followed by a U-turn
  // in it, closes a channel dependency cycle through the valley leaf. Such destinations are
  // reached inside the sub-tree, through its U-turn points. A k-ary n-tree never needs this
  // (each core reaches a sub-tree through one switch: climbing out never leads back in).
  bool stays_inside(int s) const {
    if (!t_.multi_child || !vc_[static_cast<size_t>(s)]) return false;
    const int r = t_.rank[static_cast<size_t>(s)];
    return t_.rank[static_cast<size_t>(target_)] <= r &&
           t_.block[static_cast<size_t>(r)][static_cast<size_t>(target_)] == t_.block[static_cast<size_t>(r)][static_cast<size_t>(s)];
  }

  // The neighbours a switch's candidate ports lead to: how many distinct ones, whether some is
  // reached over several cables (a bundle, wherever its cables sit in port order), the last one.
  struct Peers {
    int distinct = 0;
    bool bundle = false;
    int last = -1;
  };
  Peers peers() {
    if (++stamp_ == 0) std::fill(seen_.begin(), seen_.end(), 0), stamp_ = 1;
    return {};
  }
  void add_peer(Peers& c, int peer) {
    uint32_t& mark = seen_[static_cast<size_t>(peer)];
    if (mark == stamp_) c.bundle = true;
    else mark = stamp_, c.distinct++;
    c.last = peer;
  }

  // Whether switch s, descending towards class k, may take its U-turn at c. With plane valleys a
  // leaf is the exit of one plane's turns only (plane_exits).
  bool is_exit(int k, int c, int s) const {
    if (!vc_[static_cast<size_t>(c)] || c_.cls[static_cast<size_t>(c)] != k - 1) return false;
    if (!pv_ || t_.rank[static_cast<size_t>(c)] != 0) return true;
    const int m = pv_->plane[static_cast<size_t>(s)];
    return m >= 0 && exit_[static_cast<size_t>(m)] == c;
  }

  // Whether switch s may climb to its parent `up` (plane valleys: a valley leaf in use climbs
  // only into the planes its colour allows).
  bool may_climb(int s, int up) const {
    if (!pv_) return true;
    const int lim = climb_min_[static_cast<size_t>(s)];
    if (lim < 0) return true;
    const int m = pv_->plane[static_cast<size_t>(up)];
    return m >= 0 && pv_->index(pv_->pos[static_cast<size_t>(m)]) >= lim;
  }

  // Plane valleys, for the destination of the current target (its class 0 known): R = the planes
  // with a class-0 switch (those that reach it downwards). A plane outside R turns at the leaf of
  // its own position if some plane of R lies later in the order, else at the leaf of R's last
  // plane; that leaf climbs only into planes of R at or after its index (the colour of every turn
  // it makes is then its own).
  void plane_exits() {
    std::fill(in_r_.begin(), in_r_.end(), 0);
    std::fill(exit_.begin(), exit_.end(), -1);
    std::fill(climb_min_.begin(), climb_min_.end(), -1);
    int last = -1;
    for (size_t s = 0; s < c_.cls.size(); s++)
      if (c_.cls[s] == 0 && pv_->plane[s] >= 0) {
        in_r_[static_cast<size_t>(pv_->plane[s])] = 1;
        last = std::max(last, pv_->pos[static_cast<size_t>(pv_->plane[s])]);
      }
    if (last < 0) return;
    for (int m = 0; m < pv_->planes(); m++) {
      if (in_r_[static_cast<size_t>(m)]) continue;
      const int p = pv_->pos[static_cast<size_t>(m)];
      const int i = pv_->index(p < last ? p : last);
      const int leaf = pv_->leaf[static_cast<size_t>(i)];
      exit_[static_cast<size_t>(m)] = leaf;
      climb_min_[static_cast<size_t>(leaf)] = i;
    }
  }

  int descend(int k) {
    auto& cls = c_.cls;
    auto& dist = c_.dist;
    int got = 0;
    for (int r = 1; r <= t_.height; r++)
      for (int s : t_.by_rank[static_cast<size_t>(r)]) {
        if (cls[static_cast<size_t>(s)] >= 0) continue;
        int best = kInf;
        for (const auto& e : t_.down[static_cast<size_t>(s)]) {
          if (is_exit(k, e.peer, s)) {
            best = 1;  // the least possible
            break;
          } else if (cls[static_cast<size_t>(e.peer)] == k) best = std::min(best, dist[static_cast<size_t>(e.peer)] + 1);
        }
        if (best < kInf) {
          cls[static_cast<size_t>(s)] = static_cast<int8_t>(k);
          dist[static_cast<size_t>(s)] = best;
          got++;
        }
      }
    return got;
  }

  int climb(int k) {
    auto& cls = c_.cls;
    auto& dist = c_.dist;
    int got = 0;
    const bool planes = pv_ != nullptr;  // a local: the hot loop below tests it without a load
    for (int r = t_.height - 1; r >= 0; r--)
      for (int s : t_.by_rank[static_cast<size_t>(r)]) {
        if (cls[static_cast<size_t>(s)] >= 0 || stays_inside(s)) continue;
        int best = kInf;
        for (const auto& e : t_.up[static_cast<size_t>(s)]) {
          int c = cls[static_cast<size_t>(e.peer)];
          if (planes && !may_climb(s, e.peer)) continue;
          if (c == k - 1) {
            best = 1;  // the least possible
            break;
          } else if (c == k) best = std::min(best, dist[static_cast<size_t>(e.peer)] + 1);
        }
        if (best < kInf) {
          cls[static_cast<size_t>(s)] = static_cast<int8_t>(k);
          dist[static_cast<size_t>(s)] = best;
          got++;
        }
      }
    return got;
  }

  struct Plan {
    enum Mode : uint8_t { Normal, Mirror, UpMirror, UpToMirror, Local, Spread, None };
    uint32_t off = 0;
    uint8_t len = 0;
    uint8_t mode = Normal;
    uint8_t rank = 0;  // rank whose d-mod-k digit picks (the child's for Mirror)
    int child = -1;
  };
  // x % n without a division for x < 2^32 (Lemire's fastmod; n <= 255 here).
  uint64_t mod(uint64_t x, uint32_t n) const {
    if ((x >> 32) || n > 255) return x % n;
    return static_cast<uint64_t>((static_cast<unsigned __int128>(magic_[n] * x) * n) >> 64);
  }

  const FatTree& t_;
  const std::vector<char>& vc_;
  const PlaneValleys* pv_;
  std::vector<int> exit_, pexit_;            // per plane: its valley leaf for this target, -1 none
  std::vector<int> climb_min_, pclimb_min_;  // per switch: least leaf index it may climb into
  std::vector<char> in_r_;
  int target_ = -1;
  Classes c_;
  int max_class_;
  std::vector<uint8_t> cand_;
  std::vector<Plan> plan_;
  std::vector<uint8_t> flat_;   // candidate ports, slot_[s].. for switch s
  std::vector<uint32_t> seen_;  // add_peer's marks, by switch; stamp_ tells this call's apart
  uint32_t stamp_ = 0;
  std::vector<int> flat_peer_;  // their peer switches (for UpMirror and UpToMirror)
  static constexpr uint8_t kNotCand = 0xff;
  std::vector<uint8_t> upmap_;  // Spread: per up-cable of the switch, its place among the candidates
  std::vector<uint32_t> slot_;
  // incremental plan(): the classes and target it was made for, switches to re-plan
  bool planned_ = false;
  int last_target_ = -1;
  std::vector<int8_t> pcls_;
  std::vector<int> pdist_, todo_, bfs_;
  std::vector<uint8_t> dirty_;
  uint64_t magic_[256] = {};
};

}  // namespace

std::vector<OptionSpec> FtreeMisrouteEngine::option_specs() const {
  return {
      OptionSpec::text("valley_leaf", "", "leaf switch whose sub-trees hold the U-turns (default: chosen automatically)"),
      OptionSpec::text("check", "auto", "check the result (reachability, loops, CDG on VL0): auto (every fabric size), true, false"),
      OptionSpec::integer("max_valleys", 1, 4096, "8", "automatic valley-leaf candidates to try"),
      OptionSpec::integer("vls", 1, 8, "1",
                          "valley chains, one VL each: each destination's routes take the VL (SL) of its chain, "
                          "so the U-turn load is split over that many valley leaves, or pods of valley leaves by plane "
                          "(1: every route on VL0, the paper's construction; more needs QoS on in OpenSM)"),
      OptionSpec::text("plane_valleys", "auto",
                       "U-turns between the planes above the leaves at one valley leaf per plane (its turns into later "
                       "planes), on 1 VL, CDG verified: auto (3+ levels, 3+ planes, CAs above the leaves), true, false"),
      OptionSpec::boolean("free_uturns", "true", "last resort: U-turns anywhere, kept only if the CDG check finds no cycle"),
      OptionSpec::boolean("updn_fallback", "true",
                          "last resort of all: Up*/Down* from one root on 1 VL (any connected fabric), CDG verified"),
      OptionSpec::text("root_guid_file", "", "file of the top switches' node GUIDs (as OpenSM ftree's): ranks counted from them"),
      OptionSpec::text("io_guid_file", "", "file of I/O CA GUIDs (storage, gateways): their switches are not leaves"),
      OptionSpec::integer("threads", 0, 64, "0",
                          "worker threads for the routing and the self-check (0: one per hardware thread; same LFTs for every count)"),
  };
}

Routing FtreeMisrouteEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  // check=auto: verify every fabric (build_cdg's switch-level pass costs O(switches) per
  // destination LID, docs/scale.md); check=false trusts the construction's proof.
  const std::string check_opt = options.get(option_spec("check"));
  bool check = check_opt == "auto" ? true : options.get_bool("check", true);
  const long max_valleys = options.get_int(option_spec("max_valleys"));
  const long chains_wanted = options.get_int(option_spec("vls"));
  const long threads = options.get_int(option_spec("threads"));
  RankHints hints;
  if (options.has("root_guid_file")) hints.root_guids = read_guid_file(options.get("root_guid_file", ""));
  if (options.has("io_guid_file")) hints.io_guids = read_guid_file(options.get("io_guid_file", ""));
  FatTree t = recognize_fat_tree(fabric, kName, hints);
  const int S = t.num_switches();
  const int H = t.height;
  // Parallel cables (bundles): the up-cables are ordered parent by parent within the bundle
  // position (the first cable to each parent, then the second, ...), and a rank's d-mod-k digit
  // weight counts distinct parents, not cables (the D-mod-K of parallel-port generalised fat
  // trees, PGFT). Consecutive destinations of a leaf then climb to different parents and, one
  // rank up, to different spines; with the weight counted in cables the hosts of a leaf with
  // fewer hosts than up-cables (director line cards, 2:1 blocking leaves) all came down one
  // spine. Without bundles the order and the weights are unchanged, and so they are below the
  // top two ranks (a 2-level tree's leaves: no rank above their parents to spread over, and
  // d-mod-k over the cables in port order keeps twin cables evenly used there).
  std::vector<size_t> parents(static_cast<size_t>(S), 0);  // distinct up-peers (cables if unchanged)
  for (int s = 0; s < S; s++) {
    auto& up = t.up[static_cast<size_t>(s)];
    parents[static_cast<size_t>(s)] = up.size();
    if (t.rank[static_cast<size_t>(s)] + 1 >= H) continue;
    std::vector<std::pair<int, int>> key;  // (position in its bundle, first appearance of its parent)
    std::map<int, std::pair<int, int>> seen;  // parent -> (cables so far, appearance)
    for (const auto& e : up) {
      auto it = seen.find(e.peer);
      if (it == seen.end()) it = seen.emplace(e.peer, std::make_pair(0, static_cast<int>(seen.size()))).first;
      key.push_back({it->second.first++, it->second.second});
    }
    parents[static_cast<size_t>(s)] = seen.size();
    if (seen.size() == up.size()) continue;
    std::vector<size_t> order(up.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
    std::vector<FatTreeLink> sorted;
    for (size_t i : order) sorted.push_back(up[i]);
    up.swap(sorted);
  }

  // Sub-tree order, from the top down (the leaf order of the d-mod-k indices, dest_index.cpp).
  auto by_subtree = [&](int a, int b) {
    for (int r = H; r >= 1; r--) {
      int ba = t.block[static_cast<size_t>(r)][static_cast<size_t>(a)];
      int bb = t.block[static_cast<size_t>(r)][static_cast<size_t>(b)];
      if (ba != bb) return ba < bb;
    }
    return a < b;
  };
  // Every destination LID with its d-mod-k index, grouped by attach switch (dest_index.cpp).
  std::vector<long> divisor;
  std::vector<std::vector<DestLid>> dests = number_destinations(fabric, t, parents, by_subtree, divisor);

  Lid max_dest_lid = 0;
  for (const auto& dl : dests)
    for (const DestLid& d : dl) max_dest_lid = std::max(max_dest_lid, d.lid);
  // default (threads=0): threads from 4M LFT entries on (switches x LIDs); smaller fabrics route
  // in milliseconds, by the thousand in campaigns, where spawning costs more than it saves
  const bool big = static_cast<double>(S) * static_cast<double>(max_dest_lid) >= 4194304.0;
  const int workers = resolve_threads(threads, threads > 0 || big ? S : 1);
  // Targets in the order of their lowest destination LID: a worker fills the tables for runs of
  // neighbouring LIDs, so the cache line of each switch's table it writes stays in the cache for
  // the next targets (one miss per line, not per target and switch), and two workers rarely
  // write the same line. The LFTs do not depend on the order.
  std::vector<int> by_lid(static_cast<size_t>(S));
  {
    std::vector<std::pair<uint32_t, int>> key(static_cast<size_t>(S));
    for (int s = 0; s < S; s++) {
      uint32_t lo = UINT32_MAX;
      for (const DestLid& d : dests[static_cast<size_t>(s)]) lo = std::min<uint32_t>(lo, d.lid);
      key[static_cast<size_t>(s)] = {lo, s};
    }
    std::sort(key.begin(), key.end());
    for (int s = 0; s < S; s++) by_lid[static_cast<size_t>(s)] = key[static_cast<size_t>(s)].second;
  }

  // Valley leaf candidates: reachable downwards from the most switches (ideally every top
  // switch), then the most up-links, then the first in leaf order. An explicit valley_leaf is
  // the only candidate.
  std::vector<int> valleys;
  if (options.has("valley_leaf")) {
    std::string id = options.get("valley_leaf", "");
    auto n = fabric.find(id);
    if (!n || t.sw_index[static_cast<size_t>(*n)] < 0 || t.rank[static_cast<size_t>(t.sw_index[static_cast<size_t>(*n)])] != 0)
      throw OptionError("valley_leaf '" + id + "' is not a leaf switch of this fabric");
    valleys.push_back(t.sw_index[static_cast<size_t>(*n)]);
    if (chains_wanted > 1)
      throw OptionError("valley_leaf names one valley leaf, vls=" + std::to_string(chains_wanted) + " needs " +
                        std::to_string(chains_wanted) + ": leave valley_leaf unset");
  } else {
    std::vector<std::pair<long, int>> scored;
    std::vector<int> seen(static_cast<size_t>(S), -1), frontier, next_frontier;
    std::vector<int> cands = t.leaves;  // rank-0 switches, empty leaves included, in sub-tree order
    std::sort(cands.begin(), cands.end(), by_subtree);
    for (size_t i = 0; i < cands.size(); i++) {
      int l = cands[i];
      // the switches that reach l downwards: its ancestors, by a BFS over up-links (R3: every
      // switch link joins ranks r and r+1, so up- and down-links are the same links)
      long count = 0;
      seen[static_cast<size_t>(l)] = static_cast<int>(i);
      frontier.assign(1, l);
      while (!frontier.empty()) {
        next_frontier.clear();
        for (int s : frontier)
          for (const auto& e : t.up[static_cast<size_t>(s)])
            if (seen[static_cast<size_t>(e.peer)] != static_cast<int>(i)) {
              seen[static_cast<size_t>(e.peer)] = static_cast<int>(i);
              count++;
              next_frontier.push_back(e.peer);
            }
        frontier.swap(next_frontier);
      }
      scored.push_back({-(count * 1024 + static_cast<long>(t.up[static_cast<size_t>(l)].size())), static_cast<int>(i)});
    }
    std::stable_sort(scored.begin(), scored.end());
    // With several valley chains (vls > 1) the candidates alternate between the sub-trees below
    // the top rank (pods), best first in each: the chains' U-turn traffic then also comes down
    // different spines and cables into them.
    if (chains_wanted > 1 && H >= 2) {
      // ties go to the leaf whose parents have the most up-cables (a chain's U-turn traffic
      // climbs them: a spine short of a cable would carry it on fewer)
      std::vector<long> above(scored.size(), 0);
      for (size_t i = 0; i < scored.size(); i++)
        for (const auto& e : t.up[static_cast<size_t>(cands[static_cast<size_t>(scored[i].second)])])
          above[static_cast<size_t>(scored[i].second)] -= static_cast<long>(t.up[static_cast<size_t>(e.peer)].size());
      std::stable_sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
        return std::make_pair(x.first, above[static_cast<size_t>(x.second)]) <
               std::make_pair(y.first, above[static_cast<size_t>(y.second)]);
      });
      std::map<int, int> taken;  // pod -> candidates from it so far
      std::vector<std::pair<std::pair<int, size_t>, int>> turn;
      for (size_t i = 0; i < scored.size(); i++) {
        const int l = cands[static_cast<size_t>(scored[i].second)];
        turn.push_back({{taken[t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(l)]]++, i}, scored[i].second});
      }
      std::sort(turn.begin(), turn.end());
      for (size_t i = 0; i < turn.size(); i++) scored[i].second = turn[i].second;
    }
    const long tries = std::max(max_valleys, chains_wanted);
    for (size_t i = 0; i < scored.size() && static_cast<long>(i) < tries; i++)
      valleys.push_back(cands[static_cast<size_t>(scored[i].second)]);
  }

  // Valley leaves by plane (PlaneValleys above), tried first where it is on: `auto` on trees of 3+
  // levels with 3+ planes and CAs above the leaves (hosts, aggregation nodes: their traffic
  // between planes is what takes U-turns), one VL and no valley_leaf given.
  const std::string pv_opt = options.get(option_spec("plane_valleys"));
  if (pv_opt != "auto" && pv_opt != "true" && pv_opt != "false")
    throw OptionError("plane_valleys must be auto, true or false, not '" + pv_opt + "'");
  // With valley chains (vls > 1) each chain is valley leaves by plane in a pod of its own (the
  // candidates alternate between the pods), tried before the single valley leaves: each chain's
  // routing is checked on its own, so its VL holds a subset of an acyclic routing's routes.
  std::vector<PlaneValleys> pvs;  // candidate kPlaneValleys - i is pvs[i]
  if (pv_opt != "false" && H >= 2 && !options.has("valley_leaf") && !valleys.empty()) {
    std::vector<int> codes;
    std::set<int> pods;
    for (size_t k = 0; k < valleys.size() && static_cast<long>(pvs.size()) < chains_wanted; k++) {
      if (!pods.insert(t.block[static_cast<size_t>(H - 1)][static_cast<size_t>(valleys[k])]).second) continue;
      std::vector<int> from = valleys;  // this candidate first: plane_valleys takes its pod
      std::rotate(from.begin(), from.begin() + static_cast<long>(k), from.end());
      PlaneValleys pv = plane_valleys(fabric, t, dests, divisor, from, pv_opt == "true");
      if (pv.leaf.empty()) break;  // not a tree for them (the same in every pod)
      codes.push_back(kPlaneValleys - static_cast<int>(pvs.size()));
      pvs.push_back(std::move(pv));
    }
    valleys.insert(valleys.begin(), codes.begin(), codes.end());
  }

  // Last resort (beyond the guarantee): U-turns allowed at every switch, accepted only if the
  // CDG check finds no cycle (forced on, whatever `check` says).
  const bool free_uturns = options.get_bool(option_spec("free_uturns"));
  if (free_uturns) valleys.push_back(-1);

  std::string first_failure;
  // vls > 1: the routings of the first valley leaves that route every destination, one per chain
  struct Chain {
    Routing out;
    int valley;  // its valley leaf (valley leaves by plane: the first)
    std::vector<long> uturns;  // LFT entries through a U-turn, per attach switch
    bool planes;               // valley leaves by plane
  };
  std::vector<Chain> chains;
  std::string last_cycle;
  // An empty single-VL routing, and each switch's table sized to every destination LID (`tab`).
  auto new_routing = [&](std::vector<uint8_t*>& tab) {
    Routing out;
    out.engine = kName;
    out.lfts = Lfts(fabric);
    out.num_vls = 1;
    tab.assign(static_cast<size_t>(S), nullptr);
    for (int s = 0; s < S; s++) {
      const int node = t.sw_node[static_cast<size_t>(s)];
      if (max_dest_lid >= out.lfts.table(node).size()) out.lfts.set(node, static_cast<Lid>(max_dest_lid), kNoPath);
      tab[static_cast<size_t>(s)] = out.lfts.table(node).data();
    }
    return out;
  };
  // The self-check: every switch and CA source to every LID, on VL0.
  CdgBuildOptions self_check_options;
  self_check_options.switch_sources = true;
  self_check_options.switch_destinations = true;
  self_check_options.collect_loads = false;
  self_check_options.hop_histogram = false;
  self_check_options.threads = workers;
  auto self_check = [&](const Routing& out) { return build_cdg(fabric, out, self_check_options); };
  // A passed self-check walked every switch to every LID of these final tables: the routing
  // pipeline takes it as its verdict instead of walking them again (ftroute/verdict.hpp).
  auto keep_self_check = [&](Routing& out, const CdgBuild& b) {
    record_self_check(fabric, out, b, self_check_options, std::string(kName) + " self-check", true, true, workers);
  };
  for (int valley : valleys) {
    const bool planes = valley <= kPlaneValleys;
    const PlaneValleys* pvp = planes ? &pvs[static_cast<size_t>(kPlaneValleys - valley)] : nullptr;
    const bool restricted = valley >= 0 || planes;
    const int vleaf = planes ? pvp->leaf.front() : valley;
    // U-turn points: switches in the sub-tree of their own rank that holds the valley leaf (with
    // plane valleys: their leaves, all in one sub-tree above).
    std::vector<char> vc(static_cast<size_t>(S), restricted ? 0 : 1);
    for (int s = 0; restricted && s < S; s++) {
      int r = t.rank[static_cast<size_t>(s)];
      vc[static_cast<size_t>(s)] = t.block[static_cast<size_t>(r)][static_cast<size_t>(s)] ==
                                   t.block[static_cast<size_t>(r)][static_cast<size_t>(vleaf)];
    }
    for (int l : planes ? pvp->leaf : std::vector<int>{}) vc[static_cast<size_t>(l)] = 1;
    std::string where;  // the U-turn points, for the notes
    if (planes) {
      where = "valley leaves by plane (" + std::to_string(pvp->planes()) + " planes):";
      for (int l : pvp->leaf) where += " " + fabric.node_name(t.sw_node[static_cast<size_t>(l)]);
    } else if (restricted) {
      where = "valley leaf " + fabric.node_name(t.sw_node[static_cast<size_t>(valley)]);
    }
    // Per attach switch ("target", in parallel over targets): classes, then the memoised plan,
    // then every destination LID of the target gets its column. Each entry depends on its
    // destination alone, so the LFTs are the same for every thread count; the failure reported is
    // the one of the lowest target, as in a sequential pass.
    std::vector<uint8_t*> tab;
    Routing out = new_routing(tab);
    std::vector<int> fail_switch(static_cast<size_t>(S), -1);
    std::vector<long> uturns(static_cast<size_t>(S), 0);
    std::atomic<int> first_fail{S};
    std::vector<Router> routers;
    routers.reserve(static_cast<size_t>(workers));
    for (int w = 0; w < workers; w++) routers.emplace_back(t, vc, pvp);
    std::vector<std::vector<uint64_t>> qbuf(static_cast<size_t>(workers));
    // Groups of up to 64 targets (in LID order) with at most kGroupLids LIDs: a worker fills a
    // group's columns into its own buffer (switch-major, one column per LID of the group), then
    // writes each switch's entries into its table at once: one visit of a switch's table (its
    // pages) per group instead of per target (the tables are thousands of pages; a write per
    // target and switch missed the TLB).
    constexpr size_t kGroupLids = 256;
    std::vector<std::pair<long, long>> groups;  // [begin, end) in by_lid
    std::vector<size_t> gcols;                  // columns (LIDs) per group
    std::vector<size_t> col0(static_cast<size_t>(S), 0);  // a target's first column in its group
    for (long i = 0; i < S;) {
      size_t n = dests[static_cast<size_t>(by_lid[static_cast<size_t>(i)])].size();
      long j = i + 1;
      for (; j < S && j - i < 64; j++) {
        const size_t m = dests[static_cast<size_t>(by_lid[static_cast<size_t>(j)])].size();
        if (m == 0 || n + m > kGroupLids) break;
        col0[static_cast<size_t>(by_lid[static_cast<size_t>(j)])] = n;
        n += m;
      }
      groups.emplace_back(i, j);
      gcols.push_back(n);
      i = j;
    }
    std::vector<std::vector<uint8_t>> gbuf(static_cast<size_t>(workers)), gown(static_cast<size_t>(workers));
    std::vector<std::vector<Lid>> glid(static_cast<size_t>(workers));
    parallel_for(workers, static_cast<long>(groups.size()), 4, [&](int w, long g) {
      const size_t width = gcols[static_cast<size_t>(g)];
      auto& buf = gbuf[static_cast<size_t>(w)];
      auto& own = gown[static_cast<size_t>(w)];
      buf.resize(static_cast<size_t>(S) * width);
      own.assign(width, 0);  // the column is filled (its target did not fail)
      size_t owned = 0;
      for (long gi = groups[static_cast<size_t>(g)].first; gi < groups[static_cast<size_t>(g)].second; gi++) {
        const int target = by_lid[static_cast<size_t>(gi)];
        const auto& dl = dests[static_cast<size_t>(target)];
        if (dl.empty() || target > first_fail.load(std::memory_order_relaxed)) continue;
        Router& router = routers[static_cast<size_t>(w)];
        router.compute(target);
        const auto& cls = router.classes().cls;
        long ut = 0;
        bool failed = false;
        for (int s = 0; s < S; s++)
          if (cls[static_cast<size_t>(s)] < 0) {
            fail_switch[static_cast<size_t>(target)] = s;
            int cur = first_fail.load();
            while (target < cur && !first_fail.compare_exchange_weak(cur, target)) {
            }
            failed = true;
            break;
          } else if (cls[static_cast<size_t>(s)] >= 2) {
            ut += static_cast<long>(dl.size());
          }
        if (failed) continue;
        uturns[static_cast<size_t>(target)] = ut;
        router.plan(target);
        // q[j * R + r]: destination j's d-mod-k digit source at rank r; q[j * R + H + 1] its
        // position among its attach switch's LIDs (Router::planned_port)
        const size_t R = static_cast<size_t>(H + 2), nd = dl.size();
        auto& q = qbuf[static_cast<size_t>(w)];
        q.resize(nd * R);
        for (size_t j = 0; j < nd; j++) {
          for (size_t r = 0; r + 1 < R; r++)
            q[j * R + r] = static_cast<uint64_t>(dl[j].index / divisor[r] + dl[j].offset);
          q[j * R + R - 1] = static_cast<uint64_t>(dl[j].local);
        }
        const size_t c0 = col0[static_cast<size_t>(target)];
        std::fill(own.begin() + static_cast<long>(c0), own.begin() + static_cast<long>(c0 + nd), 1);
        owned += nd;
        for (int s = 0; s < S; s++) {
          uint8_t* bs = buf.data() + static_cast<size_t>(s) * width + c0;  // column of dl[j]: bs[j]
          if (s == target) {
            for (size_t j = 0; j < nd; j++) bs[j] = dl[j].attach_port;
            continue;
          }
          for (size_t j = 0; j < nd; j++) bs[j] = router.planned_port(s, &q[j * R]);
        }
      }
      if (owned == 0) return;
      // the group's LIDs, column by column
      auto& lids = glid[static_cast<size_t>(w)];
      lids.clear();
      for (long gi = groups[static_cast<size_t>(g)].first; gi < groups[static_cast<size_t>(g)].second; gi++)
        for (const DestLid& d : dests[static_cast<size_t>(by_lid[static_cast<size_t>(gi)])]) lids.push_back(d.lid);
      for (int s = 0; s < S; s++) {
        uint8_t* ts = tab[static_cast<size_t>(s)];
        const uint8_t* bs = buf.data() + static_cast<size_t>(s) * width;
        for (size_t x = 0; x < width; x++)
          if (own[x]) ts[lids[x]] = bs[x];
      }
    });
    long uturn_entries = 0;
    std::string failure;
    for (int target = 0; target < S; target++) {
      const int s = fail_switch[static_cast<size_t>(target)];
      if (s >= 0 && target == first_fail.load()) {
        const auto& dl = dests[static_cast<size_t>(target)];
        failure = "switch " + fabric.node_name(t.sw_node[static_cast<size_t>(s)]) + " cannot reach LID " +
                  std::to_string(dl.front().lid) + " (attached at switch " +
                  fabric.node_name(t.sw_node[static_cast<size_t>(target)]) + ") by up/down routes with U-turns " +
                  (restricted ? "in the sub-trees of " + where : std::string("anywhere"));
        break;
      }
      uturn_entries += uturns[static_cast<size_t>(target)];
    }
    if (!failure.empty()) {
      if (first_failure.empty()) first_failure = failure;
      continue;
    }
    out.notes.push_back(t.shape + ", " +
                        (restricted ? where + (planes ? " (beyond the proof, CDG verified)" : "")
                                    : std::string("unrestricted U-turns (beyond the guarantee, CDG verified)")) +
                        ", " + std::to_string(uturn_entries) + " LFT entries lead through a U-turn");
    if (chains_wanted > 1 && !restricted) break;  // chains are valley chains: U-turns anywhere make none
    if (restricted && !planes && !check && chains_wanted == 1) return out;

    // Safety net (the construction is acyclic by design; this catches bugs, never repairs). With
    // vls > 1 every chain is checked so (the merged tables are not checked again, see below).
    std::optional<CdgBuild> b;
    if (check || !restricted || planes) {
      b = self_check(out);
      const Verdict v = verdict_of(*b, std::string(kName) + " self-check", true, 0);  // ftroute/verdict.hpp
      if (v.dropped() != 0 || v.looping() != 0)
        throw EngineError(kName, "internal check failed: " + std::to_string(v.dropped()) + " unreachable and " +
                                     std::to_string(v.looping()) + " looping pairs, e.g. " + v.first_problem());
      if (!v.cdg_acyclic) {
        if (restricted && !planes && !t.multi_child)
          throw EngineError(kName, "internal check failed: channel dependency cycle on VL0: " + v.cycle);
        last_cycle = v.cycle;
        continue;
      }
    }
    if (chains_wanted > 1) {
      chains.push_back({std::move(out), vleaf, uturns, planes});
      if (static_cast<long>(chains.size()) == chains_wanted) break;
      continue;
    }
    keep_self_check(out, *b);
    return out;
  }
  // vls > 1: one routing per valley chain, merged destination by destination. Each destination
  // LID takes every switch's entry from one chain, and its SL (= VL) is that chain's number, so
  // VL k carries a subset of chain k's routes: its channel dependencies are a subset of a
  // single-valley routing's, acyclic by the argument of docs/ftree-misroute.md section 4. The
  // LIDs whose routes take U-turns are dealt to the chains by their U-turn entries, largest
  // first, each to the chain with the least so far; the others stay on chain 0 (VL0).
  if (!chains.empty()) {
    Routing out = std::move(chains[0].out);
    std::vector<std::string> names;
    for (const Chain& c : chains)
      names.push_back((c.planes ? "by plane from " : "") + fabric.node_name(t.sw_node[static_cast<size_t>(c.valley)]));
    if (chains.size() == 1) {
      out.notes.push_back("vls=" + std::to_string(chains_wanted) + " asked, but only valley leaf " + names[0] +
                          " routes every destination (of " + std::to_string(valleys.size()) +
                          " candidates): every route is on VL0");
      if (check) keep_self_check(out, self_check(out));
      return out;
    }
    const size_t N = chains.size();
    std::vector<std::pair<long, Lid>> weighted;  // (-U-turn entries per LID, LID)
    for (int target = 0; target < S; target++) {
      const auto& dl = dests[static_cast<size_t>(target)];
      if (dl.empty()) continue;
      const long per = chains[0].uturns[static_cast<size_t>(target)] / static_cast<long>(dl.size());
      if (per > 0)
        for (const DestLid& d : dl) weighted.push_back({-per, d.lid});
    }
    std::sort(weighted.begin(), weighted.end());
    auto sl = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(max_dest_lid) + 1, 0);
    std::vector<long> load(N, 0);
    std::vector<std::vector<Lid>> moved(N);
    for (const auto& [w, lid] : weighted) {
      const size_t k = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      load[k] -= w;
      (*sl)[lid] = static_cast<uint8_t>(k);
      if (k > 0) moved[k].push_back(lid);
    }
    if (weighted.empty()) {  // no destination needs a U-turn: one chain serves every route
      out.notes.push_back("vls=" + std::to_string(chains_wanted) + " asked, but no route needs a U-turn: every route is on VL0");
      return out;
    }
    for (size_t k = 1; k < N; k++)
      for (int s = 0; s < S; s++) {
        const int node = t.sw_node[static_cast<size_t>(s)];
        auto& to = out.lfts.table(node);
        const auto& from = chains[k].out.lfts.table(node);
        for (Lid lid : moved[k]) to[lid] = from[lid];
      }
    out.num_vls = static_cast<int>(N);
    out.path_sl = [sl](Lid, Lid dlid) -> uint8_t { return dlid < sl->size() ? (*sl)[dlid] : 0; };
    std::string list;
    for (size_t k = 0; k < N; k++)
      list += (k ? ", " : "") + names[k] + " (VL" + std::to_string(k) + ", " + std::to_string(load[k]) + ")";
    out.notes.clear();
    out.notes.push_back(t.shape + ", " + std::to_string(N) + " valley chains, one VL each; valley leaves (VL, LFT " +
                        "entries through a U-turn): " + list);
    if (static_cast<long>(N) < chains_wanted)
      out.notes.push_back("vls=" + std::to_string(chains_wanted) + " asked, but only " + std::to_string(N) + " of " +
                          std::to_string(valleys.size()) + " valley leaf candidates route every destination");
    // Not checked again as a whole: every chain passed its own check (with check on), and each
    // destination's routes here are its chain's, column for column. The routing pipeline walks
    // the merged tables for its verdict; `ftroute check` / `compare` build its CDG per VL.
    return out;
  }
  std::string why = !last_cycle.empty()
                        ? first_failure + "; with U-turns anywhere every switch is reachable but the single-VL " +
                              "channel dependency graph has a cycle: " + last_cycle + " (too many faults)"
                        : first_failure + " (tried " + std::to_string(valleys.size()) +
                              " U-turn placements; disconnected or too many faults)";
  if (options.get_bool(option_spec("updn_fallback"))) {
    std::vector<uint8_t*> tab;
    Routing out = new_routing(tab);
    const int root = route_updn(fabric, t, dests, tab);
    if (root < 0) throw EngineError(kName, why + "; Up*/Down* from one root does not reach every switch either (disconnected)");
    CdgBuild b = self_check(out);
    if (!verdict_of(b, std::string(kName) + " self-check", true, 0).ok())
      throw EngineError(kName, "internal check failed: the Up*/Down* last resort from root " +
                                   fabric.node_name(t.sw_node[static_cast<size_t>(root)]) + " is not loop and deadlock free");
    keep_self_check(out, b);
    out.notes.push_back(t.shape + ", Up*/Down* from root " + fabric.node_name(t.sw_node[static_cast<size_t>(root)]) +
                        " (last resort beyond the guarantee, CDG verified; the misrouting failed: " + why + ")");
    return out;
  }
  throw EngineError(kName, why);
}

}  // namespace ftroute
