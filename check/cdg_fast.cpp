// build_cdg()'s switch-level pass, one destination at a time (FastWorker, cdg_fast.hpp): the LFT
// block transpose, the hops of every switch, the in-tree walk, the commit of channels,
// dependencies and counts. Set-up, the parallel loop and the merge are in cdg_build.cpp.
#include "cdg_fast.hpp"

#include <algorithm>
#include <cstring>

namespace ftroute::cdg_fast {

void FastWorker::load_block(long b) {
  blk_id_ = b;
  const size_t NS = sh_.swl.size(), lo = static_cast<size_t>(b) * kBlock;
  uint8_t tile[kBlock][kBlock];
  for (size_t u0 = 0; u0 < NS; u0 += kBlock) {
    const size_t nu = std::min<size_t>(kBlock, NS - u0);
    for (size_t x = 0; x < nu; x++) {
      const size_t len = sh_.tab_len[u0 + x];
      const size_t n = len > lo ? std::min<size_t>(kBlock, len - lo) : 0;
      if (n) std::memcpy(tile[x], sh_.tab[u0 + x] + lo, n);
      if (n < kBlock) std::memset(tile[x] + n, kNoPath, kBlock - n);
    }
    for (size_t k = 0; k < kBlock; k++) {
      uint8_t* dst = &blk_[k * NS + u0];
      for (size_t x = 0; x < nu; x++) dst[x] = tile[x][k];
    }
  }
}

// The hop of every switch for the current destination, in switch order (one sequential pass
// over the column and the port table): the same hops as RouteWalker::hop(). A switch that
// forwards to another switch gets kind kForward; the others their final outcome and hop count.
void FastWorker::hops(const uint8_t* col, int dst_pos) {
  const size_t NS = sh_.swl.size();
  for (size_t u = 0; u < NS; u++) {
    Rec& r = rec_[u];
    const uint8_t p = col[u];
    if (p == r.out && r.fwd) {  // the same switch-to-switch hop as for the previous destination
      r.kind = kForward;
      continue;
    }
    r.out = p;
    r.fwd = 0;
    r.next = -1;
    r.linked = 0;
    r.hops = 0;
    if (p == kNoPath) {
      r.kind = static_cast<int8_t>(DropKind::NoRoute);
    } else if (p == 0) {
      r.kind = static_cast<int>(u) == dst_pos ? -1 : static_cast<int8_t>(DropKind::NotLocal);
    } else if (p > sh_.np_pos[u]) {
      r.kind = static_cast<int8_t>(DropKind::BadPort);
    } else {
      const int32_t c = sh_.ptab[sh_.pt_base[u] + p];
      if (c >= 0) {  // to the next switch
        r.kind = kForward;
        r.fwd = 1;
        r.linked = 1;
        r.next = c >> 8;
        r.in_next = static_cast<uint8_t>(c & 255);
      } else if (c == -1) {
        r.kind = static_cast<int8_t>(DropKind::DownPort);
      } else {  // a CA/router: the owner's port, or another one
        r.linked = 1;
        r.hops = 1;
        r.kind = -2L - c == dst_link_ ? -1 : static_cast<int8_t>(DropKind::WrongEndpoint);
      }
    }
  }
}

// One walk from switch position i0 along the hops (every switch it passes is reached: stamp);
// then the outcome and hop counts back along the walk.
void FastWorker::resolve(int i0) {
  path_.clear();
  int u = i0;
  int8_t kind = -1;
  int h = 0;
  for (;;) {
    Rec& r = rec_[static_cast<size_t>(u)];
    if (r.stamp == stamp_) {
      if (r.kind == kInProgress) kind = static_cast<int8_t>(DropKind::Loop), h = 0;  // back on this walk
      else kind = r.kind, h = r.hops + 1;                                            // joined an earlier walk
      break;
    }
    r.stamp = stamp_;
    path_.push_back(u);
    if (r.kind != kForward) {  // the walk ends here
      kind = r.kind;
      h = r.hops;
      break;
    }
    r.kind = kInProgress;
    u = r.next;
  }
  for (size_t k = path_.size(); k-- > 0;) {
    const int i = path_[k];
    Rec& r = rec_[static_cast<size_t>(i)];
    r.kind = kind;
    r.hops = static_cast<uint16_t>(h);
    resolved_.push_back(i);
    h++;
  }
}

bool FastWorker::run(const EndPort& de, Lid d, bool want_unreach, bool want_loop) {
  if (static_cast<long>(d / kBlock) != blk_id_) load_block(d / kBlock);
  const size_t NS = sh_.swl.size();
  const uint8_t* col = &blk_[static_cast<size_t>(d % kBlock) * NS];
  if (++stamp_ == 0) {  // wrap-around: restart the stamps
    for (Rec& r : rec_) r.stamp = 0;
    stamp_ = 1;
  }
  const Cdg& cdg = sh_.cdg;
  dst_link_ = -1;
  int self_sw = -1, self_leaf = -1, self_link = -1;
  uint32_t self_entries = 0;
  if (sh_.is_sw[static_cast<size_t>(de.node)]) {
    const int i = sh_.swpos[static_cast<size_t>(de.node)];
    if (sh_.sw_src[static_cast<size_t>(i)]) self_sw = i;
  } else if (de.port >= 1 && de.port <= sh_.nports[static_cast<size_t>(de.node)]) {
    const int l = cdg.link_id(de.node, de.port);
    dst_link_ = l;
    if (sh_.link_entries[static_cast<size_t>(l)] > 0) {
      self_link = l;
      self_entries = sh_.link_entries[static_cast<size_t>(l)];
      self_leaf = sh_.swpos[static_cast<size_t>(sh_.peer_node[static_cast<size_t>(l)])];
    }
  }
  auto c_ca = [&](int i) -> uint32_t {
    return sh_.ca_cnt[static_cast<size_t>(i)] - (i == self_leaf ? self_entries : 0u);
  };
  auto c_sw = [&](int i) -> uint32_t { return sh_.sw_src[static_cast<size_t>(i)] && i != self_sw ? 1u : 0u; };
  resolved_.clear();
  hops(col, sh_.is_sw[static_cast<size_t>(de.node)] ? sh_.swpos[static_cast<size_t>(de.node)] : -1);
  // Outcomes and counts of the source switches (committed below, or dropped with the destination).
  uint64_t bad = 0, loops = 0, npairs = 0, kinds[6] = {};
  size_t top = 0;  // hist_[0..top) may be non-zero
  int max_h = 0;
  for (size_t i = 0; i < NS; i++) {
    const uint64_t cc = c_ca(static_cast<int>(i)), cs = c_sw(static_cast<int>(i)), c = cc + cs;
    if (c == 0) continue;
    if (rec_[i].stamp != stamp_) resolve(static_cast<int>(i));
    const Rec& r = rec_[i];
    npairs += c;
    if (r.kind < 0) {
      // four interleaved copies (by switch position): consecutive switches with the same hop
      // count do not wait for each other's add
      const size_t h = r.hops, x = i & 3;
      if (4 * (h + 2) > hist_.size()) hist_.resize(4 * (h + 2), 0);
      hist_[4 * h + x] += cs;
      hist_[4 * (h + 1) + x] += cc;
      top = std::max(top, h + 2);
      max_h = std::max(max_h, static_cast<int>(h) + (cc ? 1 : 0));
    } else {
      kinds[static_cast<int>(r.kind)] += c;
      if (r.kind == static_cast<int8_t>(DropKind::Loop)) loops += c;
      else bad += c;
    }
  }
  if ((bad && want_unreach) || (loops && want_loop)) {
    std::fill(hist_.begin(), hist_.begin() + static_cast<long>(4 * top), 0);
    return false;
  }
  pairs += npairs;
  delivered += npairs - bad - loops;
  dropped += bad;
  looping += loops;
  for (int k = 0; k < 6; k++) per_kind[k] += kinds[k];
  // sized as the per-source walk sizes it: up to the longest delivered route
  if (npairs > bad + loops && static_cast<size_t>(max_h) + 1 > hop_histogram.size())
    hop_histogram.resize(static_cast<size_t>(max_h) + 1, 0);
  for (size_t h = 0; h < top; h++) {
    const uint64_t n = hist_[4 * h] + hist_[4 * h + 1] + hist_[4 * h + 2] + hist_[4 * h + 3];
    if (h < hop_histogram.size()) hop_histogram[h] += n;  // beyond: zeros
    for (size_t x = 0; x < 4; x++) hist_[4 * h + x] = 0;
  }
  // Commit: channels, dependencies, counts.
  fast_dests++;
  if (self_link >= 0) own_fast[static_cast<size_t>(self_link)]++;
  const size_t W = static_cast<size_t>(sh_.W);
  for (int i : resolved_) {
    const size_t u = static_cast<size_t>(i);
    const Rec& r = rec_[u];
    if (!r.linked) continue;
    used_out[u * W + (r.out >> 6)] |= uint64_t{1} << (r.out & 63);
    if (r.next >= 0) {
      const Rec& rj = rec_[static_cast<size_t>(r.next)];
      if (rj.linked) add_edge(static_cast<size_t>(r.next), r.in_next, rj.out);
    }
    // Injection dependencies of the CA sources behind this switch (once per output port); the
    // destination's own port is no source for it: its bit stays out for this one.
    if (c_ca(i) > 0) inject(u, r.out, self_leaf, self_link);
  }
  if (sh_.collect_loads) {
    if (fbuckets_.size() < static_cast<size_t>(max_h) + 2) fbuckets_.resize(static_cast<size_t>(max_h) + 2);
    for (auto& b : fbuckets_) b.clear();
    for (int i : resolved_) {
      const size_t u = static_cast<size_t>(i);
      if (rec_[u].kind >= 0) continue;
      ftot_[u] = c_ca(i) + c_sw(i);
      if (sh_.ca_cnt[u]) deliv_count[u]++;
      fbuckets_[std::min<size_t>(rec_[u].hops, fbuckets_.size() - 1)].push_back(i);
    }
    // deliv_count counts this destination for every CA source behind a delivering switch; the
    // destination's own port is no source for it
    if (self_link >= 0 && rec_[static_cast<size_t>(self_leaf)].stamp == stamp_ && rec_[static_cast<size_t>(self_leaf)].kind < 0)
      inj_corr[static_cast<size_t>(self_link)] += self_entries;
    for (size_t h = fbuckets_.size(); h-- > 0;)
      for (int i : fbuckets_[h]) {
        const size_t u = static_cast<size_t>(i);
        const uint64_t c = ftot_[u];
        if (c == 0) continue;
        const Rec& r = rec_[u];
        if (r.linked) link_load[static_cast<size_t>(sh_.link_base[u]) + r.out] += c;
        if (r.next >= 0) ftot_[static_cast<size_t>(r.next)] += c;
        ftot_[u] = 0;
      }
  }
  return true;
}

bool FastWorker::run_lean(const EndPort& de, Lid d) {
  if (static_cast<long>(d / kBlock) != blk_id_) load_block(d / kBlock);
  const size_t NS = sh_.swl.size();
  const uint8_t* col = &blk_[static_cast<size_t>(d % kBlock) * NS];
  int dst_pos = -1, self_leaf = -1, self_link = -1;
  long dlink = -1;
  uint32_t self_entries = 0;
  uint64_t self_sources = 0;  // sources that are the destination itself
  if (sh_.is_sw[static_cast<size_t>(de.node)]) {
    dst_pos = sh_.swpos[static_cast<size_t>(de.node)];
    self_sources = sh_.sw_src[static_cast<size_t>(dst_pos)];
  } else if (de.port >= 1 && de.port <= sh_.nports[static_cast<size_t>(de.node)]) {
    dlink = sh_.cdg.link_id(de.node, de.port);
    if (sh_.link_entries[static_cast<size_t>(dlink)] > 0) {
      self_link = static_cast<int>(dlink);
      self_entries = sh_.link_entries[static_cast<size_t>(dlink)];
      self_sources = self_entries;
      self_leaf = sh_.swpos[static_cast<size_t>(sh_.peer_node[static_cast<size_t>(dlink)])];
      // the leaf must stay a source without the destination's own port
      if (!sh_.sw_src[static_cast<size_t>(self_leaf)] && sh_.ca_cnt[static_cast<size_t>(self_leaf)] == self_entries)
        return false;
    }
  } else {
    return false;
  }
  // Pass 1, the hops: code_ = the port code of the entry (>= 0 to a switch, <= -2 to the
  // destination's own CA port), -1 for entry 0 at the destination switch; anything else is a
  // drop (RouteWalker::hop()'s outcomes), and run() names it.
  bool ok = true;
  for (size_t u = 0; u < NS; u++) {
    const uint8_t p = col[u];
    int32_t c = -1;
    if (p == 0) {
      ok &= static_cast<int>(u) == dst_pos;  // else NotLocal
    } else if (p > sh_.np_pos[u]) {
      ok = false;  // BadPort, or NoRoute (kNoPath is above every port number)
    } else {
      c = sh_.ptab[sh_.pt_base[u] + p];
      ok &= c >= 0 || (c <= -2 && -2L - c == dlink);  // else DownPort or WrongEndpoint
    }
    code_[u] = c;
  }
  if (!ok) return false;
  // Pass 2, the in-tree: every switch arrives (a walk ends at a delivering entry or at a switch
  // already known to arrive); a walk that meets itself is a loop.
  std::memset(vis_.data(), 0, NS);
  uint32_t* stk = stk_.data();
  for (size_t u = 0; u < NS; u++) {
    if (vis_[u]) continue;
    size_t n = 0, x = u;
    for (int32_t c; vis_[x] == 0 && (c = code_[x]) >= 0; x = static_cast<size_t>(c >> 8)) {
      vis_[x] = 1;
      stk[n++] = static_cast<uint32_t>(x);
    }
    if (vis_[x] == 1) return false;  // Loop
    vis_[x] = 2;
    while (n) vis_[stk[--n]] = 2;
  }
  // Pass 3, commit: every switch is a source, so every hop is on a route: its channel, the
  // dependency into the next switch's channel, the injection dependencies.
  const size_t W = static_cast<size_t>(sh_.W);
  for (size_t u = 0; u < NS; u++) {
    const int32_t c = code_[u];
    if (c == -1) continue;  // delivered here: no channel
    const uint8_t p = col[u];
    used_out[u * W + (p >> 6)] |= uint64_t{1} << (p & 63);
    if (c >= 0) {
      const size_t v = static_cast<size_t>(c >> 8);
      if (code_[v] != -1) add_edge(v, c & 255, col[v]);
    }
    if (sh_.ca_cnt[u] - (static_cast<int>(u) == self_leaf ? self_entries : 0u) > 0) inject(u, p, self_leaf, self_link);
  }
  const uint64_t n = sh_.total_sources - self_sources;
  pairs += n;
  delivered += n;
  fast_dests++;
  if (self_link >= 0) own_fast[static_cast<size_t>(self_link)]++;
  return true;
}

}  // namespace ftroute::cdg_fast
