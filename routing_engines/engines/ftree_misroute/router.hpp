// ftree-misroute's per-destination router: the switch classes towards one attach switch, and the
// memoised candidate ports every destination LID picks from (d-mod-k, Mirror, Spread, ...).
// Engine-private: included by ftree_misroute.cpp only (docs/ftree-misroute.md sections 2-4).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <vector>

#include "ftree_misroute/ftree_misroute_internal.hpp"

namespace ftroute::ftree_router {

constexpr int kInf = INT_MAX / 4;
// Router's `spare`: a valley leaf's own sources leave its planes to the turns; the leaves climb
// to a valley leaf's LIDs outside its planes.
constexpr int kSpareSources = 1, kSpareDestinations = 2;

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
  // `spare` (plane valleys only): which traffic leaves the valley leaves' own planes to their
  // turns, kSpareSources | kSpareDestinations (spare_turns()).
  Router(const FatTree& t, const std::vector<char>& vc, const PlaneValleys* pv = nullptr, int spare = 0)
      : t_(t), vc_(vc), pv_(pv), spare_(pv && pv->by_plane() ? spare : 0) {
    int S = t.num_switches();
    c_.cls.assign(static_cast<size_t>(S), -1);
    c_.dist.assign(static_cast<size_t>(S), kInf);
    if (pv_) {
      exit_.assign(static_cast<size_t>(pv_->planes()), -1);
      climb_min_.assign(static_cast<size_t>(S), -1);
      in_r_.assign(static_cast<size_t>(pv_->planes()), 0);
      own_.assign(static_cast<size_t>(S), -1);
      for (size_t i = 0; i < pv_->leaf.size(); i++) own_[static_cast<size_t>(pv_->leaf[i])] = static_cast<int>(i);
      // turn pods: a turn leaf's slot is its pod's position index
      for (size_t i = 0; i < pv_->pod_leaf.size(); i++)
        for (int l : pv_->pod_leaf[i]) own_[static_cast<size_t>(l)] = static_cast<int>(i);
      sexit_.assign(static_cast<size_t>(S), -1);
      exit_here_.assign(static_cast<size_t>(S), 0);
      if (pv_->spread && !pv_->leaf.empty() && t.height >= 2) {
        const int pod = t.block[static_cast<size_t>(t.height - 1)][static_cast<size_t>(pv_->leaf.front())];
        for (int x : t.by_rank[1])
          if (t.block[static_cast<size_t>(t.height - 1)][static_cast<size_t>(x)] == pod) vspines_.push_back(x);
      }
      if (pv_->pods && t.height >= 2) {  // the switches above each turn pod, with the pod's index
        spine_pod_.assign(static_cast<size_t>(S), -1);
        exit_pod_.assign(static_cast<size_t>(pv_->planes()), -1);
        for (size_t i = 0; i < pv_->pod_leaf.size(); i++) {
          const int pod = t.block[static_cast<size_t>(t.height - 1)][static_cast<size_t>(pv_->pod_leaf[i].front())];
          for (int x : t.by_rank[1])
            if (t.block[static_cast<size_t>(t.height - 1)][static_cast<size_t>(x)] == pod)
              vspines_.push_back(x), spine_pod_[static_cast<size_t>(x)] = static_cast<int>(i);
        }
      }
    }
    max_class_ = 2 * (t.height + 2) + 1;
    for (uint32_t n = 1; n < 256; n++) magic_[n] = UINT64_MAX / n + 1;
    // Plan::Spread's weights read the classes two ranks up: re-planning then follows changes two hops
    // down. Only where some switch above the leaves misses an up-cable (a fault, or a cable the
    // fabric lacks), the only case in which the widths it weighs can differ.
    for (int r = 1; r < t.height && !two_hop_; r++) {
      size_t widest = 0;
      for (int x : t.by_rank[static_cast<size_t>(r)]) widest = std::max(widest, t.up[static_cast<size_t>(x)].size());
      for (int x : t.by_rank[static_cast<size_t>(r)]) two_hop_ |= t.up[static_cast<size_t>(x)].size() < widest;
    }
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
    if (pv_ && !pv_->spread) plane_exits();  // turn pods: the pod of each plane's turns
    done += climb(1);
    if (pv_ && pv_->spread) spread_exits();
    if (pv_ && pv_->pods) pod_exits();
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
      width_.assign(slot_[NS], 0);
      widest_.assign(slot_[NS], 0);
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
      // the leaves spare a valley leaf's planes when it is the target (spare_turns)
      if (((spare_ & kSpareDestinations) || (pv_ && (pv_->spread || pv_->pods))) && (own_[static_cast<size_t>(target)] >= 0 || own_[static_cast<size_t>(last_target_)] >= 0))
        for (int x : t_.leaves) mark(x);
      if (pv_) {  // the plane exits and the leaves' climbs they restrict, where they changed
        for (size_t m = 0; m < exit_.size(); m++)
          if (exit_[m] != pexit_[m])
            for (int x : pv_->low[m]) mark(x);
        for (size_t x = 0; x < NS; x++)
          if (climb_min_[x] != pclimb_min_[x]) mark(static_cast<int>(x));
        for (int x : vspines_)
          if (sexit_[static_cast<size_t>(x)] != psexit_[static_cast<size_t>(x)]) {
            mark(x);  // and the turn leaves it dealt to (a short one climbs into z where it turns)
            if (sexit_[static_cast<size_t>(x)] >= 0) mark(sexit_[static_cast<size_t>(x)]);
            if (psexit_[static_cast<size_t>(x)] >= 0) mark(psexit_[static_cast<size_t>(x)]);
          }
      }
      for (size_t s = 0; s < NS; s++) {
        if (c_.cls[s] == pcls_[s] && c_.dist[s] == pdist_[s]) continue;
        mark(static_cast<int>(s));
        for (const auto& e : t_.up[s]) mark(e.peer);
        for (const auto& e : t_.down[s]) {
          mark(e.peer);
          if (two_hop_)
            for (const auto& f : t_.down[static_cast<size_t>(e.peer)]) mark(f.peer);
        }
      }
      for (int s : todo_) {
        plan_switch(s, target);
        dirty_[static_cast<size_t>(s)] = 0;
      }
    }
    pcls_ = c_.cls;
    pdist_ = c_.dist;
    if (pv_) pexit_ = exit_, pclimb_min_ = climb_min_, psexit_ = sexit_;
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
      // leads to the destination: all of its destinations if it is one of the widest (most ways
      // on towards the destination), else that share of them, by this switch's number (a spine
      // that lost a core cable). The rest, and the destinations whose parent is cut off, are
      // spread over the widest parents by this switch's number, so the sources share them out
      // instead of all taking the same one.
      const uint32_t full = static_cast<uint32_t>(t_.up[static_cast<size_t>(s)].size());
      const uint64_t salt = idx / full + static_cast<uint64_t>(s);
      const uint8_t at = upmap_[p.off + static_cast<uint32_t>(mod(idx, full))];
      if (at != kNotCand && (width_[p.off + at] >= p.wmax || mod(salt, p.wmax) < width_[p.off + at])) return flat_[p.off + at];
      return flat_[p.off + widest_[p.off + static_cast<uint32_t>(mod(salt, p.nwide))]];
    }
    if (p.mode == Plan::Salted) return flat_[p.off + static_cast<uint32_t>(mod(idx + static_cast<uint64_t>(target_), p.len))];
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
      Peers parents;
      // A valley leaf's own planes carry its turns: where a leaf climbing to a destination has
      // parents outside them, it leaves them to the turns (spare_turns()).
      for (int spare = spare_turns(s, k); spare >= 0; spare--) {
        parents = peers();
        cand_.clear();
        cand_peer_.clear();
        for (const auto& e : t_.up[si]) {
          if (!may_climb(s, e.peer)) continue;
          if (spare && turn_plane(s, e.peer)) continue;
          if (climbs_to(s, e.peer, k)) {
            cand_.push_back(e.port);
            cand_peer_.push_back(e.peer);
            add_peer(parents, e.peer);
          }
        }
        if (!cand_.empty()) break;
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
      // The normal up phase with some parents cut off from the destination by faults, or with
      // parents of unequal ways on towards it: the fault-free choice where it still leads on,
      // weighed, the rest spread by source (Plan::Spread).
      else if (k == 1 && !cand_.empty() && (weigh(k) || cand_.size() < t_.up[si].size())) p.mode = Plan::Spread;
      else if (k >= 3 && pv_ && (pv_->spread || pv_->pods)) p.mode = Plan::Salted;
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
      p.wmax = 0, p.nwide = 0;
      for (size_t i = 0; i < cand_.size(); i++) p.wmax = std::max(p.wmax, wcand_[i]);
      for (size_t i = 0; i < cand_.size(); i++) {
        width_[p.off + i] = wcand_[i];
        if (wcand_[i] == p.wmax) widest_[p.off + p.nwide++] = static_cast<uint8_t>(i);
      }
    }
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
    // spread turns: the turn leaf dealt to s (spread_exits)
    if (pv_->spread || pv_->pods) return sexit_[static_cast<size_t>(s)] == c;
    const int m = pv_->plane[static_cast<size_t>(s)];
    return m >= 0 && exit_[static_cast<size_t>(m)] == c;
  }

  // Plane valleys: whether leaf s, climbing (class k) towards the current target, should leave
  // the planes of the valley leaves' turns alone where it has other parents. The valley leaf of
  // a position takes every turn into and out of its planes on its cables to them; its own LIDs and
  // its own sources' routes to the other leaves' LIDs would come on top of those turns if they
  // used these cables too (on a 4-ary 3-tree with an aggregation node per switch a quarter of the
  // leaf's traffic). So the valley leaf climbs into its own planes only where it must (destinations
  // in them), and no leaf climbs into a valley leaf's planes to reach that leaf's own LIDs
  // (each as `spare_` says: the balance it buys depends on the fabric, docs/ftree-misroute.md).
  int spare_turns(int s, int k) const {
    // spread turns: from a valley leaf to another one through plane z only (to its LIDs, and up
    // to the turn another valley leaf makes for a destination this one cannot climb towards)
    // A turn leaf short of a plane turns only into z (where it is a turn leaf for this target), so
    // its other routes between turn leaves are free: no turn into their plane precedes them there.
    // turn pods: from a turn leaf to another of its pod through that pod's z only
    if (pv_ && pv_->pods && own_[static_cast<size_t>(s)] >= 0)
      return (k == 1 ? own_[static_cast<size_t>(target_)] == own_[static_cast<size_t>(s)] : k >= 3) ? 1 : 0;
    if (pv_ && pv_->spread && own_[static_cast<size_t>(s)] >= 0) {
      if (!pv_->full[static_cast<size_t>(own_[static_cast<size_t>(s)])]) return k == 1 && exit_here_[static_cast<size_t>(s)] ? 1 : 0;
      if (k == 1 ? own_[static_cast<size_t>(target_)] >= 0 : k >= 3) return 1;
    }
    if (!spare_ || k != 1 || t_.rank[static_cast<size_t>(s)] != 0) return 0;
    return ((spare_ & kSpareSources) && own_[static_cast<size_t>(s)] >= 0) ||
                   ((spare_ & kSpareDestinations) && own_[static_cast<size_t>(target_)] >= 0)
               ? 1
               : 0;
  }
  bool turn_plane(int s, int up) const {
    const int m = pv_->plane[static_cast<size_t>(up)];
    if (m < 0) return false;
    if (pv_->spread) return m != pv_->z;
    if (pv_->pods) return m != pv_->zpos[static_cast<size_t>(own_[static_cast<size_t>(s)])];
    const int i = pv_->index(pv_->pos[static_cast<size_t>(m)]);
    return ((spare_ & kSpareSources) && own_[static_cast<size_t>(s)] == i) ||
           ((spare_ & kSpareDestinations) && own_[static_cast<size_t>(target_)] == i);
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
    std::fill(exit_pod_.begin(), exit_pod_.end(), -1);
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
      if (pv_->pods) {  // the pod's leaves climb only into planes at or after its index
        exit_pod_[static_cast<size_t>(m)] = i;
        exit_[static_cast<size_t>(m)] = i;
        for (int l : pv_->pod_leaf[static_cast<size_t>(i)]) climb_min_[static_cast<size_t>(l)] = i;
        continue;
      }
      const int leaf = pv_->leaf[static_cast<size_t>(i)];
      exit_[static_cast<size_t>(m)] = leaf;
      climb_min_[static_cast<size_t>(leaf)] = i;
    }
  }

  // Spread turns (PlaneValleys::spread), classes 0 and 1 known: each switch right above the turn
  // leaves whose plane is outside R (the planes with a class-0 switch) descends for this target to
  // one of its turn leaves that climbs on (class 1; a leaf short of a plane only where it climbs
  // into z), dealt by the plane and the target, so that the turns into and out of a plane spread
  // over the pod's leaves (sexit_, exit_here_).
  void spread_exits() {
    std::fill(in_r_.begin(), in_r_.end(), 0);
    std::fill(exit_.begin(), exit_.end(), -1);
    for (size_t s = 0; s < c_.cls.size(); s++)
      if (c_.cls[s] == 0 && pv_->plane[s] >= 0) in_r_[static_cast<size_t>(pv_->plane[s])] = 1;
    // per switch above the turn leaves (a plane may have several in the pod): of its ready turn
    // leaves, the one dealt by its plane and the target
    for (int x : vspines_)
      if (sexit_[static_cast<size_t>(x)] >= 0) exit_here_[static_cast<size_t>(sexit_[static_cast<size_t>(x)])] = 0;
    for (int x : vspines_) {
      int& e = sexit_[static_cast<size_t>(x)];
      e = -1;
      if (in_r_[static_cast<size_t>(pv_->plane[static_cast<size_t>(x)])]) continue;
      e = deal(x, [&](int l) {
        const int i = own_[static_cast<size_t>(l)];
        return i >= 0 && c_.cls[static_cast<size_t>(l)] == 1 && (pv_->full[static_cast<size_t>(i)] || climbs_into_z(l));
      });
      if (e >= 0) exit_here_[static_cast<size_t>(e)] = 1;
    }
  }
  // Turn pods (PlaneValleys::pods), classes 0 and 1 known: each switch above the turn pod of its
  // plane's turns (exit_pod_, plane_exits()) descends to one of its turn leaves there that climbs
  // on, dealt by its plane and the target.
  void pod_exits() {
    for (int x : vspines_) {
      const int pod = spine_pod_[static_cast<size_t>(x)];
      sexit_[static_cast<size_t>(x)] =
          exit_pod_[static_cast<size_t>(pv_->plane[static_cast<size_t>(x)])] != pod
              ? -1
              : deal(x, [&](int l) { return own_[static_cast<size_t>(l)] == pod && c_.cls[static_cast<size_t>(l)] == 1; });
    }
  }
  // Whether leaf l (class 1) climbs on towards the target through a parent in plane z.
  bool climbs_into_z(int l) const {
    for (const auto& e : t_.up[static_cast<size_t>(l)])
      if (pv_->plane[static_cast<size_t>(e.peer)] == pv_->z && climbs_to(l, e.peer, 1)) return true;
    return false;
  }
  // Whether switch s (class k, odd: climbing) climbs on through its parent `up`: to the class
  // below at the last climbing hop, or one hop closer inside its class.
  bool climbs_to(int s, int up, int k) const {
    const size_t si = static_cast<size_t>(s), ui = static_cast<size_t>(up);
    return (c_.cls[ui] == k - 1 && c_.dist[si] == 1) || (c_.cls[ui] == k && c_.dist[ui] == c_.dist[si] - 1);
  }
  // Of switch x's children that `ready` accepts (each once, however many cables), the one dealt
  // to x's plane for the current target; -1 if none (spread_exits(), pod_exits()).
  template <typename Ready>
  int deal(int x, Ready ready) {
    ready_.clear();
    for (const auto& d : t_.down[static_cast<size_t>(x)])
      if (ready(d.peer) && std::find(ready_.begin(), ready_.end(), d.peer) == ready_.end()) ready_.push_back(d.peer);
    if (ready_.empty()) return -1;
    const size_t m = static_cast<size_t>(pv_->plane[static_cast<size_t>(x)]);
    return ready_[(static_cast<size_t>(target_) + m) % ready_.size()];
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
    enum Mode : uint8_t { Normal, Mirror, UpMirror, UpToMirror, Local, Spread, Salted, None };
    uint32_t off = 0;
    uint8_t len = 0;
    uint8_t mode = Normal;
    uint8_t rank = 0;  // rank whose d-mod-k digit picks (the child's for Mirror)
    uint8_t wmax = 0, nwide = 0;  // Spread: the widest candidate's ways on, how many are that wide
    int child = -1;
  };
  // Plan::Spread's weights for a climbing switch (class k, candidates in cand_, their parents in
  // cand_peer_): each candidate's ways on towards the destination (its own candidate parents,
  // counted as plan_switch picks them) into wcand_; true if they differ. Where they cannot differ
  // (no switch above the leaves misses a cable) or are not defined (a candidate is an ancestor of
  // the destination and goes down), every weight is 1 and the answer false.
  bool weigh(int k) {
    wcand_.assign(cand_.size(), 1);
    if (!two_hop_) return false;
    for (size_t i = 0; i < cand_peer_.size(); i++) {
      const int q = cand_peer_[i];
      const size_t qi = static_cast<size_t>(q);
      if (c_.cls[qi] != k) {  // an ancestor (class 0) goes down: nothing to weigh
        wcand_.assign(cand_.size(), 1);
        return false;
      }
      int n = 0;
      for (const auto& e : t_.up[qi]) n += may_climb(q, e.peer) && climbs_to(q, e.peer, k);
      wcand_[i] = static_cast<uint8_t>(std::min(n, 255));
    }
    return std::adjacent_find(wcand_.begin(), wcand_.end(), std::not_equal_to<>()) != wcand_.end();
  }
  // x % n without a division for x < 2^32 (Lemire's fastmod; n <= 255 here).
  uint64_t mod(uint64_t x, uint32_t n) const {
    if ((x >> 32) || n > 255) return x % n;
    return static_cast<uint64_t>((static_cast<unsigned __int128>(magic_[n] * x) * n) >> 64);
  }

  const FatTree& t_;
  const std::vector<char>& vc_;
  const PlaneValleys* pv_;
  int spare_;
  std::vector<int> exit_, pexit_;            // per plane: its valley leaf for this target, -1 none
  std::vector<int> climb_min_, pclimb_min_;  // per switch: least leaf index it may climb into
  std::vector<char> in_r_;
  std::vector<int> ready_;                   // spread_exits(): a switch's turn leaves that climb on
  std::vector<int> vspines_;                 // spread turns: the switches right above the turn leaves' pod
  std::vector<int> sexit_, psexit_;          // spread turns: per such switch its turn leaf, -1 none
  std::vector<char> exit_here_;              // spread turns: per switch, a turn leaf for this target
  std::vector<int> spine_pod_, exit_pod_;    // turn pods: per switch its pod index; per plane the pod of its turns
  std::vector<int> own_;                     // per switch: its valley leaf index (plane valleys), -1 none
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
  std::vector<uint8_t> width_, widest_, wcand_;  // Spread: per candidate its ways on; the widest ones
  std::vector<int> cand_peer_;  // a climbing switch's candidates' parents, as cand_ (weigh())
  bool two_hop_ = false;
  std::vector<uint32_t> slot_;
  // incremental plan(): the classes and target it was made for, switches to re-plan
  bool planned_ = false;
  int last_target_ = -1;
  std::vector<int8_t> pcls_;
  std::vector<int> pdist_, todo_, bfs_;
  std::vector<uint8_t> dirty_;
  uint64_t magic_[256] = {};
};

}  // namespace ftroute::ftree_router
