#include "ftroute/cdg.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>

#include "ftroute/error.hpp"
#include "ftroute/parallel.hpp"
#include "ftroute/route_walk.hpp"

namespace ftroute {

// ---------------------------------------------------------------- Cdg

Cdg::Cdg(const Fabric& f) : fabric_(&f) {
  port_base_.resize(static_cast<size_t>(f.size()));
  int next = 0;
  for (int i = 0; i < f.size(); i++) {
    port_base_[static_cast<size_t>(i)] = next;
    const int np = f.node(i).num_ports;
    for (int p = 0; p <= np; p++) {
      link_node_.push_back(i);
      link_port_.push_back(p);
    }
    next += np + 1;
  }
  used_.assign(num_ids(), 0);
}

Channel Cdg::channel(Id c) const {
  const int link = static_cast<int>(c / kNumVlSlots);
  return Channel{link_node(link), static_cast<uint8_t>(link_port(link)), static_cast<uint8_t>(c % kNumVlSlots)};
}

std::string Cdg::name(const Channel& c) const {
  return fabric_->port_name(c.node, c.port) + " vl" + std::to_string(c.vl);
}

std::string Cdg::format_cycle(const std::vector<Channel>& cycle) const {
  std::string s;
  for (const auto& c : cycle) s += name(c) + " -> ";
  if (!cycle.empty()) s += name(cycle.front());
  return s;
}

void Cdg::mark_used(Id c) {
  if (c >= used_.size()) throw Error("Cdg: channel id " + std::to_string(c) + " out of range");
  used_[c] = 1;
}

void Cdg::add_dependency(Id from, Id to) {
  mark_used(from);
  mark_used(to);
  edge_list_.push_back((static_cast<uint64_t>(from) << 32) | to);
}

void Cdg::add_dependencies(std::vector<uint32_t> off, std::vector<Id> adj) {
  const size_t n = static_cast<size_t>(num_ids());
  if (off.size() != n + 1 || off[0] != 0 || off[n] != adj.size())
    throw Error("Cdg::add_dependencies: the offsets do not fit the channels or the successor list");
  for (size_t c = 0; c < n; c++) {
    if (off[c] > off[c + 1]) throw Error("Cdg::add_dependencies: decreasing offsets");
    if (off[c] == off[c + 1]) continue;
    used_[c] = 1;
    for (uint32_t k = off[c]; k < off[c + 1]; k++) {
      if (adj[k] >= n) throw Error("Cdg: channel id " + std::to_string(adj[k]) + " out of range");
      if (k > off[c] && adj[k] <= adj[k - 1]) throw Error("Cdg::add_dependencies: a successor list is not increasing");
      used_[adj[k]] = 1;
    }
  }
  if (edge_list_.empty() && (off_.size() != n + 1 || adj_.empty())) {
    off_ = std::move(off);
    adj_ = std::move(adj);
    return;
  }
  append_csr(off, adj);
}

void Cdg::append_csr(const std::vector<uint32_t>& off, const std::vector<Id>& adj) const {
  for (size_t c = 0; c + 1 < off.size(); c++)
    for (uint32_t k = off[c]; k < off[c + 1]; k++) edge_list_.push_back((static_cast<uint64_t>(c) << 32) | adj[k]);
}

void Cdg::finalize() const {
  const size_t n = static_cast<size_t>(num_ids());
  if (edge_list_.empty() && off_.size() == n + 1) return;
  // The adjacency built so far joins the edges added since.
  if (off_.size() == n + 1) append_csr(off_, adj_);
  // Counting sort by source channel into the CSR, then sort + dedupe each (short) successor
  // list: O(edges + channels), no sort of the whole edge list.
  off_.assign(n + 1, 0);
  for (uint64_t e : edge_list_) off_[(e >> 32) + 1]++;
  for (size_t i = 1; i <= n; i++) off_[i] += off_[i - 1];
  adj_.resize(edge_list_.size());
  {
    std::vector<uint32_t> pos(off_.begin(), off_.end() - 1);
    for (uint64_t e : edge_list_) adj_[pos[e >> 32]++] = static_cast<Id>(e & 0xffffffffu);
  }
  size_t w = 0;
  uint32_t start = 0;
  for (size_t c = 0; c < n; c++) {
    const uint32_t end = off_[c + 1];
    std::sort(adj_.begin() + start, adj_.begin() + end);
    const size_t w0 = w;
    for (uint32_t k = start; k < end; k++)
      if (w == w0 || adj_[w - 1] != adj_[k]) adj_[w++] = adj_[k];
    start = end;
    off_[c + 1] = static_cast<uint32_t>(w);
  }
  adj_.resize(w);
  adj_.shrink_to_fit();
  edge_list_.clear();
  edge_list_.shrink_to_fit();
}

size_t Cdg::num_edges() const {
  finalize();
  return adj_.size();
}

std::vector<Cdg::Id> Cdg::used_channels(int vl) const {
  std::vector<Id> r;
  for (Id c = 0; c < used_.size(); c++)
    if (used_[c] && (vl < 0 || vl_of(c) == vl)) r.push_back(c);
  return r;
}

std::vector<int> Cdg::vls_used() const {
  uint32_t mask = 0;
  for (Id c = 0; c < used_.size(); c++)
    if (used_[c]) mask |= 1u << vl_of(c);
  std::vector<int> r;
  for (int v = 0; v < kNumVlSlots; v++)
    if (mask & (1u << v)) r.push_back(v);
  return r;
}

bool Cdg::has_edge(Id from, Id to) const {
  finalize();
  if (from >= num_ids()) return false;
  return std::binary_search(adj_.begin() + off_[from], adj_.begin() + off_[from + 1], to);
}

std::pair<const Cdg::Id*, const Cdg::Id*> Cdg::successors(Id c) const {
  finalize();
  if (c >= num_ids() || adj_.empty()) return {nullptr, nullptr};
  return {adj_.data() + off_[c], adj_.data() + off_[c + 1]};
}

std::vector<std::pair<Cdg::Id, Cdg::Id>> Cdg::edges(int vl) const {
  finalize();
  std::vector<std::pair<Id, Id>> r;
  for (Id a = 0; a + 1 < off_.size(); a++)
    for (uint32_t k = off_[a]; k < off_[a + 1]; k++)
      if (vl < 0 || (vl_of(a) == vl && vl_of(adj_[k]) == vl)) r.emplace_back(a, adj_[k]);
  return r;
}

size_t Cdg::num_vl_changing_edges() const {
  finalize();
  size_t n = 0;
  for (Id a = 0; a + 1 < off_.size(); a++)
    for (uint32_t k = off_[a]; k < off_[a + 1]; k++)
      if (vl_of(a) != vl_of(adj_[k])) n++;
  return n;
}

std::optional<std::vector<Channel>> Cdg::find_cycle(int vl) const {
  finalize();
  const Id n = num_ids();
  std::vector<uint8_t> color(n, 0);  // 0 white, 1 on stack, 2 done
  std::vector<std::pair<Id, uint32_t>> stack;  // (channel, next edge offset)
  auto ok = [&](Id c) { return vl < 0 || vl_of(c) == vl; };
  for (Id root = 0; root < n; root++) {
    if (color[root] || off_[root] == off_[root + 1] || !ok(root)) continue;
    stack.clear();
    stack.emplace_back(root, off_[root]);
    color[root] = 1;
    while (!stack.empty()) {
      auto& [c, k] = stack.back();
      if (k == off_[c + 1]) {
        color[c] = 2;
        stack.pop_back();
        continue;
      }
      const Id s = adj_[k++];
      if (!ok(s) || color[s] == 2) continue;
      if (color[s] == 1) {  // back edge: the cycle is the stack from s to the top
        std::vector<Channel> cyc;
        size_t i = stack.size();
        while (i > 0 && stack[i - 1].first != s) i--;
        for (size_t j = i - 1; j < stack.size(); j++) cyc.push_back(channel(stack[j].first));
        return cyc;
      }
      color[s] = 1;
      stack.emplace_back(s, off_[s]);
    }
  }
  return std::nullopt;
}

std::optional<std::vector<Cdg::Id>> Cdg::topological_order(int vl, bool include_unused) const {
  finalize();
  const Id n = num_ids();
  std::vector<uint8_t> in_set(n, 0);
  std::vector<int> vls;
  if (vl >= 0) vls.push_back(vl);
  else vls = vls_used();
  for (Id c = 0; c < n; c++)
    if (used_[c] && (vl < 0 || vl_of(c) == vl)) in_set[c] = 1;
  if (include_unused) {
    for (int link = 0; link < num_links(); link++) {
      const int nd = link_node(link), p = link_port(link);
      if (p == 0 || !fabric_->node(nd).port(p).connected()) continue;
      for (int v : vls) in_set[static_cast<Id>(link) * kNumVlSlots + static_cast<Id>(v)] = 1;
    }
  }
  std::vector<uint32_t> indeg(n, 0);
  size_t count = 0;
  for (Id c = 0; c < n; c++) {
    if (!in_set[c]) continue;
    count++;
    for (uint32_t k = off_[c]; k < off_[c + 1]; k++)
      if (in_set[adj_[k]]) indeg[adj_[k]]++;
  }
  // Kahn with a FIFO seeded in id order: deterministic.
  std::deque<Id> q;
  for (Id c = 0; c < n; c++)
    if (in_set[c] && indeg[c] == 0) q.push_back(c);
  std::vector<Id> order;
  order.reserve(count);
  while (!q.empty()) {
    Id c = q.front();
    q.pop_front();
    order.push_back(c);
    for (uint32_t k = off_[c]; k < off_[c + 1]; k++) {
      Id s = adj_[k];
      if (in_set[s] && --indeg[s] == 0) q.push_back(s);
    }
  }
  if (order.size() != count) return std::nullopt;
  return order;
}

// ---------------------------------------------------------------- build_cdg

namespace {

struct Source {
  Lid lid;
  int node;           // source node (CA or switch)
  int port;           // source end port (0 for a switch)
  int sw;             // first switch
  int in_port;        // input port on that switch (0 for a switch source)
  int inj_link;       // CA injection link id, -1 for a switch source
};

struct Drop {
  DropKind kind;
  int node;
  int port;
};

// ---- Switch-level pass (the common case: identity SL2VL, no path SLs, so every pair runs on VL0
// and a packet's route from a switch does not depend on where it came from). The LFT column of a
// destination is an in-tree over the switches: each switch reached from a source is resolved
// once (memoised, stamps instead of clearing), and the sources are counted per first switch
// instead of walked one by one, so a destination costs O(switches), not O(sources). Edges, used
// channels, counts, hop histogram and link loads are the same as the per-source walk's
// (tests/unit/cdg_fast_test.cpp compares both on many fabrics).
//
// Destinations run in parallel (CdgBuildOptions::threads), each worker with its own
// accumulators (sums, bit sets), merged at the end: the result does not depend on the thread
// count. A worker takes the destinations of one block of 64 LIDs at a time and holds that block
// of every switch's LFT transposed (LID-major: one destination's column is one contiguous row of
// bytes, a few KB); its hops are the same as RouteWalker's (route_walk.hpp), from a flat port
// table by switch position. Every array of the walk is indexed by switch position (no
// fabric-node-indexed lookups). Dependencies go into rows of bits, one row per (switch, output
// port) with a bit per input port; a per-switch cache of the last row written (and its bits)
// skips the write when the next destinations leave the switch through the same port from
// input ports already recorded, which in fat trees is most of the time.
// A destination with unreachable or looping pairs is deferred to a sequential pass in
// destination order, which hands it to the per-source walk while examples are still wanted, so
// the examples name the same pairs in the same order as a sequential build.
struct FastShared {
  const Fabric& f;
  const Cdg& cdg;
  bool collect_loads = true;
  int nlinks = 0;
  std::vector<int> swl;             // switch positions -> node
  std::vector<int> swpos;           // node -> switch position (-1)
  std::vector<int> nports;          // by node
  std::vector<uint8_t> is_sw;       // by node
  std::vector<int> peer_node, peer_port;  // by link id
  std::vector<uint32_t> ca_cnt;     // CA source entries whose first switch is this one
  std::vector<uint8_t> sw_src;      // the switch is a source itself
  std::vector<std::vector<std::pair<int, int>>> ca_at;  // (injection link, input port), one per link
  std::vector<uint32_t> link_entries;  // CA source entries per injection link
  uint64_t total_sources = 0;       // sum of ca_cnt and sw_src
  bool lean = false;                // run_lean() applies (no hop histogram, no loads)
  std::vector<int> link_base, np_pos;  // by switch position: Cdg link id of port 0, ports
  // Port codes by switch position: ptab[pt_base[u] + p] for p = 0..np_pos[u]:
  // >= 0 (peer switch position << 8 | peer port), -1 no link, <= -2: a CA/router peer whose port
  // has link id -2 - code.
  std::vector<int32_t> ptab;
  std::vector<uint32_t> pt_base;
  // Dependency rows: row (u, out) = row_base[u] + out, W words each, bit `in` = the link arriving
  // at (u, in) -> (u, out).
  std::vector<uint32_t> row_base;
  size_t nrows = 0;
  int W = 1;
  std::vector<uint64_t> camask;     // by position, W words: input ports with CA sources behind
  std::vector<const uint8_t*> tab;  // LFT by position (nullptr: none)
  std::vector<size_t> tab_len;
  FastShared(const Fabric& fab, const Cdg& c) : f(fab), cdg(c) {}
};

class FastWorker {
 public:
  static constexpr int kBlock = 64;
  explicit FastWorker(const FastShared& sh) : sh_(sh) {
    const size_t NS = sh.swl.size(), nl = static_cast<size_t>(sh.nlinks), W = static_cast<size_t>(sh.W);
    deliv_count.assign(NS, 0);
    rec_.assign(NS, Rec{});
    ftot_.assign(NS, 0);
    inj_done_.assign(nl, 0);
    used_out.assign(NS * W, 0);
    own_fast.assign(nl, 0);
    inj_corr.assign(nl, 0);
    edge_bits.assign(sh.nrows * W, 0);
    last_row_.assign(NS, UINT32_MAX);
    last_mask_.assign(NS * W, 0);
    blk_.assign(NS * kBlock, kNoPath);
    if (sh.lean) code_.assign(NS, 0), vis_.assign(NS, 0), stk_.assign(NS + 1, 0);
    if (sh.collect_loads) link_load.assign(nl, 0);
  }

  // Accumulators (merged by build_cdg).
  uint64_t pairs = 0, delivered = 0, dropped = 0, looping = 0, per_kind[6] = {};
  std::vector<uint64_t> hop_histogram, link_load, inj_corr;
  std::vector<uint32_t> deliv_count, own_fast;
  std::vector<uint64_t> used_out;    // by position, W words: output ports whose VL0 channel is used
  std::vector<uint64_t> edge_bits;   // dependency rows (FastShared::row_base)
  uint32_t fast_dests = 0;

  // Resolves destination LID d (owned by de); commits it and returns true unless it has
  // unreachable pairs and want_unreach, or looping pairs and want_loop (then nothing changed).
  bool run(const EndPort& de, Lid d, bool want_unreach, bool want_loop);
  // The same for a destination whose pairs all arrive, without the hop histogram and the
  // loads (FastShared::lean): three sequential passes over the switches (hops, in-tree check,
  // commit). Returns false, with nothing changed, for anything else (unreachable or looping
  // pairs, a switch that is no source): run() then takes the destination.
  bool run_lean(const EndPort& de, Lid d);

 private:
  static constexpr int8_t kInProgress = 100;
  struct Rec {
    uint32_t stamp = 0;   // == stamp_: resolved for the current destination
    int32_t next = -1;    // next switch position (Forward)
    uint16_t hops = 0;
    int8_t kind = -1;     // -1 delivered, else DropKind; kInProgress while on the current walk
    uint8_t out = 0;      // the LFT entry
    uint8_t in_next = 0;  // input port at `next`
    uint8_t linked = 0;   // the entry names a linked port: a channel
    uint8_t fwd = 0;      // `out` leads to switch `next` (kept for the next destination)
  };
  static constexpr int8_t kForward = 101;
  void load_block(long b);
  void hops(const uint8_t* col, int dst_pos);
  // Injection dependencies of the CA sources behind switch u leaving through out (once per
  // output port; for the destination's own leaf without its port, and not remembered).
  void inject(size_t u, uint8_t out, int self_leaf, int self_link) {
    const size_t W = static_cast<size_t>(sh_.W);
    const size_t ol = static_cast<size_t>(sh_.link_base[u]) + out;
    if (inj_done_[ol]) return;
    uint64_t* g = &edge_bits[(sh_.row_base[u] + out) * W];
    const uint64_t* m = &sh_.camask[u * W];
    const int sp = static_cast<int>(u) == self_leaf ? sh_.peer_port[static_cast<size_t>(self_link)] : -1;
    for (size_t k = 0; k < W; k++)
      g[k] |= sp >= 0 && static_cast<size_t>(sp >> 6) == k ? m[k] & ~(uint64_t{1} << (sp & 63)) : m[k];
    if (static_cast<int>(u) != self_leaf) inj_done_[ol] = 1;
  }
  void resolve(int i0);
  // dependency: the link arriving at (u, in) -> (u, out)
  void add_edge(size_t u, int in, int out) {
    const size_t W = static_cast<size_t>(sh_.W);
    const uint32_t row = sh_.row_base[u] + static_cast<uint32_t>(out);
    const size_t w = static_cast<size_t>(in) >> 6;
    const uint64_t bit = uint64_t{1} << (in & 63);
    uint64_t* lm = &last_mask_[u * W];
    if (last_row_[u] == row) {
      if (lm[w] & bit) return;
      lm[w] |= bit;
      edge_bits[row * W + w] |= bit;
      return;
    }
    uint64_t* g = &edge_bits[row * W];
    g[w] |= bit;
    last_row_[u] = row;
    for (size_t k = 0; k < W; k++) lm[k] = g[k];
  }

  const FastShared& sh_;
  std::vector<Rec> rec_;            // by switch position
  uint32_t stamp_ = 0;
  long dst_link_ = -1;
  std::vector<uint64_t> ftot_;
  std::vector<uint8_t> inj_done_;  // by link id of the first switch's output
  std::vector<int> resolved_, path_;
  std::vector<uint64_t> hist_;     // hop histogram of the current destination
  std::vector<std::vector<int>> fbuckets_;
  std::vector<uint32_t> last_row_;  // by position: the dependency row written last
  std::vector<uint64_t> last_mask_; // its bits (W words), a subset of edge_bits' row
  std::vector<uint8_t> blk_;        // LFT block, LID-major: (lid % kBlock) * NS + position
  std::vector<int32_t> code_;       // run_lean: the port code of each switch's entry (ptab)
  std::vector<uint8_t> vis_;        // run_lean: 0 unseen, 1 on the current walk, 2 arrives
  std::vector<uint32_t> stk_;       // run_lean: the current walk
  long blk_id_ = -1;
};

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

}  // namespace

CdgBuild build_cdg(const Fabric& f, const Routing& r, const CdgBuildOptions& opt) {
  CdgBuild out{Cdg(f), {}};
  Cdg& cdg = out.cdg;
  RouteWalkStats& st = out.stats;
  const int nlinks = cdg.num_links();
  const int nnodes = f.size();

  // Flat copies of the topology.
  std::vector<int> peer_node(static_cast<size_t>(nlinks), -1), peer_port(static_cast<size_t>(nlinks), 0);
  std::vector<int> nports(static_cast<size_t>(nnodes));
  std::vector<uint8_t> is_sw(static_cast<size_t>(nnodes));
  for (int i = 0; i < nnodes; i++) {
    const Node& n = f.node(i);
    nports[static_cast<size_t>(i)] = n.num_ports;
    is_sw[static_cast<size_t>(i)] = n.is_switch();
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      peer_node[static_cast<size_t>(cdg.link_id(i, p))] = x.peer_node;
      peer_port[static_cast<size_t>(cdg.link_id(i, p))] = x.peer_port;
    }
  }

  // Dense SL2VL tables: switch (s, in, out) -> 16 VLs; CA port -> 16 VLs. Empty => identity.
  const bool identity_vl = r.sl2vl.empty();
  std::vector<size_t> pair_base(static_cast<size_t>(nnodes), 0);  // (s, in, out) index base
  size_t npairs = 0;
  for (int i = 0; i < nnodes; i++) {
    pair_base[static_cast<size_t>(i)] = npairs;
    if (is_sw[static_cast<size_t>(i)]) npairs += static_cast<size_t>(nports[static_cast<size_t>(i)] + 1) * (nports[static_cast<size_t>(i)] + 1);
  }
  // (s, out, in) order: the sources behind one switch share `out` for a destination, so their
  // entries are adjacent.
  auto pair_index = [&](int s, int in, int o) {
    return pair_base[static_cast<size_t>(s)] + static_cast<size_t>(o) * (nports[static_cast<size_t>(s)] + 1) + static_cast<size_t>(in);
  };
  std::vector<uint8_t> sw_vl, ca_vl;
  if (!identity_vl) {
    sw_vl.assign(npairs * kNumVlSlots, 0);
    ca_vl.assign(static_cast<size_t>(nlinks) * kNumVlSlots, 0);
    for (int i = 0; i < nnodes; i++) {
      const int np = nports[static_cast<size_t>(i)];
      if (is_sw[static_cast<size_t>(i)]) {
        for (int in = 0; in <= np; in++)
          for (int o = 1; o <= np; o++)
            for (int sl = 0; sl < kNumVlSlots; sl++)
              sw_vl[pair_index(i, in, o) * kNumVlSlots + static_cast<size_t>(sl)] = r.sl2vl.vl(i, in, o, sl) & 15;
      } else {
        for (int p = 1; p <= np; p++)
          for (int sl = 0; sl < kNumVlSlots; sl++)
            ca_vl[static_cast<size_t>(cdg.link_id(i, p)) * kNumVlSlots + static_cast<size_t>(sl)] = r.sl2vl.vl(i, 0, p, sl) & 15;
      }
    }
  }

  // Sources.
  std::vector<Source> sources;
  for (const EndPort& e : f.end_ports()) {
    const Node& n = f.node(e.node);
    const Lid last = opt.all_source_lids ? e.last_lid() : e.base_lid;
    if (n.is_switch()) {
      if (!opt.switch_sources) continue;
      sources.push_back({e.base_lid, e.node, 0, e.node, 0, -1});
    } else {
      if (!opt.ca_sources) continue;
      const Port& p = n.port(e.port);
      if (!p.connected() || !f.node(p.peer_node).is_switch()) continue;  // cannot inject
      for (uint32_t l = e.base_lid; l <= last; l++)
        sources.push_back({static_cast<Lid>(l), e.node, e.port, p.peer_node, p.peer_port, cdg.link_id(e.node, e.port)});
    }
  }
  st.sources = static_cast<int>(sources.size());

  // Per-state arrays; a state is (node, in_port, sl), index (link_id(node, in_port)) * 16 + sl.
  // SL-major (index sl * nlinks + link) so the states of one SL are contiguous, and one record per
  // state so a visit touches one cache line.
  struct StateRec {
    uint32_t stamp = 0;
    int32_t next = -1, res = -1, outch = -1;
    uint32_t cnt = 0;
    uint16_t hops = 0;
  };
  const size_t nstates = static_cast<size_t>(nlinks) * kNumVlSlots;
  std::vector<StateRec> S;  // allocated by the first destination the per-source walk handles
  std::unique_ptr<RouteWalker> slow_walker;  // the per-source walk's hops (allocated with S)
  std::vector<uint16_t> edge_cache;  // (s,in,out) -> last (vin*16+vout)+1 inserted (per-source walk)
  if (opt.collect_loads) st.link_load.assign(static_cast<size_t>(nlinks), 0);
  std::vector<uint8_t> used_local(static_cast<size_t>(nlinks) * kNumVlSlots, 0);

  uint32_t walk_id = 0;
  std::vector<int32_t> walk;      // states of the current walk
  std::vector<int32_t> touched;   // states visited for the current destination
  std::vector<Drop> drops;        // per destination
  std::vector<std::vector<int32_t>> buckets;

  auto state_of = [&](int node, int in, int sl) {
    return static_cast<int32_t>(static_cast<size_t>(sl) * static_cast<size_t>(nlinks) + static_cast<size_t>(cdg.link_id(node, in)));
  };
  auto vl_at = [&](int s, int in, int o, int sl) -> int {
    if (identity_vl) return sl;
    return sw_vl[pair_index(s, in, o) * kNumVlSlots + static_cast<size_t>(sl)];
  };
  auto record_edge = [&](int s, int in, int o, Cdg::Id cin, Cdg::Id cout) {
    const uint16_t v = static_cast<uint16_t>(Cdg::vl_of(cin) * kNumVlSlots + Cdg::vl_of(cout) + 1);
    uint16_t& slot = edge_cache[pair_index(s, in, o)];
    if (slot == v) return;
    slot = v;
    cdg.add_dependency(cin, cout);
  };

  // ---- Switch-level pass (FastWorker above): set-up.
  const bool fast_ok = identity_vl && !r.path_sl && !opt.force_per_source;
  FastShared sh(f, cdg);
  if (fast_ok) {
    sh.collect_loads = opt.collect_loads;
    sh.nlinks = nlinks;
    sh.swl = f.switches();
    const size_t NS = sh.swl.size();
    sh.swpos.assign(static_cast<size_t>(nnodes), -1);
    for (size_t i = 0; i < NS; i++) sh.swpos[static_cast<size_t>(sh.swl[i])] = static_cast<int>(i);
    sh.nports = nports;
    sh.is_sw = is_sw;
    sh.peer_node = peer_node;
    sh.peer_port = peer_port;
    int maxnp = 0;
    for (size_t i = 0; i < NS; i++) {
      const int node = sh.swl[i];
      const int np = nports[static_cast<size_t>(node)];
      maxnp = std::max(maxnp, np);
      sh.link_base.push_back(cdg.link_id(node, 0));
      sh.np_pos.push_back(np);
      sh.pt_base.push_back(static_cast<uint32_t>(sh.ptab.size()));
      sh.row_base.push_back(static_cast<uint32_t>(sh.nrows));
      sh.nrows += static_cast<size_t>(np) + 1;
      for (int p = 0; p <= np; p++) {
        const int l = cdg.link_id(node, p), pn = p ? peer_node[static_cast<size_t>(l)] : -1;
        int32_t code = -1;
        if (pn >= 0 && is_sw[static_cast<size_t>(pn)])
          code = static_cast<int32_t>((sh.swpos[static_cast<size_t>(pn)] << 8) | peer_port[static_cast<size_t>(l)]);
        else if (pn >= 0)
          code = -2 - cdg.link_id(pn, peer_port[static_cast<size_t>(l)]);
        sh.ptab.push_back(code);
      }
      if (node < r.lfts.num_nodes()) {
        sh.tab.push_back(r.lfts.table(node).data());
        sh.tab_len.push_back(r.lfts.table(node).size());
      } else {
        sh.tab.push_back(nullptr);
        sh.tab_len.push_back(0);
      }
    }
    sh.W = (maxnp + 1 + 63) / 64;
    sh.ca_cnt.assign(NS, 0);
    sh.sw_src.assign(NS, 0);
    sh.ca_at.resize(NS);
    sh.link_entries.assign(static_cast<size_t>(nlinks), 0);
    for (const Source& src : sources) {
      const size_t i = static_cast<size_t>(sh.swpos[static_cast<size_t>(src.sw)]);
      if (src.inj_link >= 0) {
        sh.ca_cnt[i]++;
        if (sh.link_entries[static_cast<size_t>(src.inj_link)]++ == 0) sh.ca_at[i].emplace_back(src.inj_link, src.in_port);
      } else {
        sh.sw_src[i] = 1;
      }
    }
    bool all_sources = true;  // every switch is a source
    for (size_t i = 0; i < NS; i++) {
      sh.total_sources += sh.ca_cnt[i] + sh.sw_src[i];
      if (sh.ca_cnt[i] == 0 && !sh.sw_src[i]) all_sources = false;
    }
    sh.lean = all_sources && !opt.collect_loads && !opt.hop_histogram;
    sh.camask.assign(NS * static_cast<size_t>(sh.W), 0);
    for (size_t i = 0; i < NS; i++)
      for (const auto& [inj, inport] : sh.ca_at[i])
        sh.camask[i * static_cast<size_t>(sh.W) + static_cast<size_t>(inport >> 6)] |= uint64_t{1} << (inport & 63);
  }
  // Destinations in order.
  struct Dest {
    const EndPort* de;
    Lid d;
  };
  std::vector<Dest> dlist;
  const std::vector<EndPort>& end_ports = f.end_ports();
  for (const EndPort& de : end_ports) {
    if (f.node(de.node).is_switch() && !opt.switch_destinations) continue;
    for (uint32_t dl = de.base_lid; dl <= de.last_lid(); dl++) dlist.push_back({&de, static_cast<Lid>(dl)});
  }
  // Parallel phase: every destination whose pairs all arrive; the others are deferred.
  std::vector<FastWorker> fw;
  std::vector<uint8_t> deferred(dlist.size(), 1);
  if (fast_ok) {
    // default (threads 0): parallel from 4M (switch, destination) pairs on; below that (the
    // fabrics DQR, the campaigns and the plugin check by the thousand, ft648 inside OpenSM) the
    // pass takes milliseconds and spawning threads costs more than it saves
    const long n = static_cast<long>(dlist.size());
    const bool big = static_cast<double>(n) * static_cast<double>(sh.swl.size()) >= 4194304.0;
    const int workers = resolve_threads(opt.threads, opt.threads > 0 ? n : big ? n : 1);
    fw.reserve(static_cast<size_t>(workers));
    for (int w = 0; w < workers; w++) fw.emplace_back(sh);
    // by LFT block (64 LIDs): a worker transposes a block once for all its destinations
    std::vector<uint32_t> order(dlist.size());
    for (size_t k = 0; k < order.size(); k++) order[k] = static_cast<uint32_t>(k);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return dlist[a].d / FastWorker::kBlock < dlist[b].d / FastWorker::kBlock;
    });
    std::vector<size_t> group{0};
    for (size_t k = 1; k < order.size(); k++)
      if (dlist[order[k]].d / FastWorker::kBlock != dlist[order[k - 1]].d / FastWorker::kBlock) group.push_back(k);
    group.push_back(order.size());
    parallel_for(workers, static_cast<long>(group.size()) - 1, 1, [&](int w, long g) {
      for (size_t k = group[static_cast<size_t>(g)]; k < group[static_cast<size_t>(g) + 1]; k++) {
        const Dest& x = dlist[order[k]];
        FastWorker& wk = fw[static_cast<size_t>(w)];
        if ((sh.lean && wk.run_lean(*x.de, x.d)) || wk.run(*x.de, x.d, true, true)) deferred[order[k]] = 0;
      }
    });
  }

  for (const Dest& dst : dlist) {
    const EndPort& de = *dst.de;
    {
      const Lid d = dst.d;
      st.destinations++;
      if (fast_ok && !deferred[static_cast<size_t>(&dst - dlist.data())]) continue;
      if (fast_ok &&
          fw[0].run(de, d, static_cast<int>(st.unreachable_examples.size()) < opt.max_examples,
                    static_cast<int>(st.loop_examples.size()) < opt.max_examples))
        continue;
      if (S.empty()) {
        S.resize(nstates);
        edge_cache.assign(npairs, 0);
        slow_walker = std::make_unique<RouteWalker>(f, r.lfts);
      }
      slow_walker->begin(d, de.node, de.port);
      const uint32_t dest_base = walk_id + 1;
      touched.clear();
      drops.clear();
      int max_hops = 0;
      // Outcome bookkeeping of one pair whose first switch state has result rs / hops h0 and
      // leaves through channel outch towards state next.
      auto account = [&](const Source& src, int32_t rs, uint16_t h0, int32_t outch, int32_t nxt) {
        if (rs < 0) {
          st.delivered++;
          const int h = h0 + (src.inj_link >= 0 ? 1 : 0);
          if (static_cast<size_t>(h) >= st.hop_histogram.size()) st.hop_histogram.resize(static_cast<size_t>(h) + 1, 0);
          st.hop_histogram[static_cast<size_t>(h)]++;
          max_hops = std::max(max_hops, h);
          if (opt.collect_loads) {
            if (src.inj_link >= 0) st.link_load[static_cast<size_t>(src.inj_link)]++;
            if (outch >= 0) st.link_load[static_cast<size_t>(outch) / kNumVlSlots]++;
            if (nxt >= 0) S[static_cast<size_t>(nxt)].cnt++;
          }
          return;
        }
        const Drop& dr = drops[static_cast<size_t>(rs)];
        st.per_kind[static_cast<int>(dr.kind)]++;
        if (dr.kind == DropKind::Loop) {
          st.looping++;
          return;
        }
        st.dropped++;
        if (static_cast<int>(st.unreachable_examples.size()) < opt.max_examples)
          st.unreachable_examples.push_back(
              f.node_label(src.node) + "(" + std::to_string(src.lid) + ") -> " + f.node_label(de.node) + "(" +
              std::to_string(d) + ") stops at " +
              (dr.kind == DropKind::NoRoute || dr.kind == DropKind::NotLocal ? f.node_name(dr.node)
                                                                               : f.port_name(dr.node, dr.port)) +
              ": " + drop_kind_text(dr.kind));
      };
      int fast_sw = -1, fast_sl = -1, fast_out = 0;
      int32_t fast_res = -1, fast_next = -1;
      uint16_t fast_hops = 0;
      for (const Source& src : sources) {
        if (src.node == de.node && src.port == de.port) continue;  // same end port
        const int sl = r.path_sl ? (r.path_sl(src.lid, d) & 15) : 0;
        st.pairs++;
        if (src.sw == fast_sw && sl == fast_sl && src.inj_link >= 0) {
          const int vi = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          const Cdg::Id ci = static_cast<Cdg::Id>(src.inj_link) * kNumVlSlots + static_cast<Cdg::Id>(vi);
          const int vo = vl_at(fast_sw, src.in_port, fast_out, sl);
          const Cdg::Id oc = static_cast<Cdg::Id>(cdg.link_id(fast_sw, fast_out)) * kNumVlSlots + static_cast<Cdg::Id>(vo);
          used_local[ci] = 1;
          used_local[oc] = 1;
          record_edge(fast_sw, src.in_port, fast_out, ci, oc);
          if (fast_next >= 0) {
            const StateRec& nx = S[static_cast<size_t>(fast_next)];
            if (nx.outch >= 0) {
              const int nl = static_cast<int>(static_cast<size_t>(fast_next) % static_cast<size_t>(nlinks));
              record_edge(cdg.link_node(nl), cdg.link_port(nl), cdg.link_port(static_cast<int>(nx.outch / kNumVlSlots)), oc,
                          static_cast<Cdg::Id>(nx.outch));
            }
          }
          account(src, fast_res, fast_hops, static_cast<int32_t>(oc), fast_next);
          continue;
        }
        ++walk_id;
        walk.clear();
        int s = src.sw, in = src.in_port;
        int32_t cin = -1;
        if (src.inj_link >= 0) {
          const int v = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          cin = static_cast<int32_t>(static_cast<Cdg::Id>(src.inj_link) * kNumVlSlots + static_cast<Cdg::Id>(v));
        }
        const int32_t start = state_of(s, in, sl);
        int32_t result = -1;
        int32_t cur = start;
        for (;;) {
          const size_t cu = static_cast<size_t>(cur);
          if (S[cu].stamp >= dest_base) {
            if (S[cu].stamp == walk_id) {  // revisited within this walk: loop
              if (cin >= 0 && S[cu].outch >= 0)  // the dependency that closes the loop
                record_edge(s, in, cdg.link_port(static_cast<int>(S[cu].outch / kNumVlSlots)),
                            static_cast<Cdg::Id>(cin), static_cast<Cdg::Id>(S[cu].outch));
              drops.push_back({DropKind::Loop, s, in});
              result = static_cast<int32_t>(drops.size() - 1);
              if (static_cast<int>(st.loop_examples.size()) < opt.max_examples) {
                std::string txt;
                size_t i = walk.size();
                while (i > 0 && walk[i - 1] != cur) i--;
                for (size_t j = i - 1; j < walk.size(); j++) {
                  const int link = static_cast<int>(static_cast<size_t>(walk[j]) % static_cast<size_t>(nlinks));
                  const int sw = cdg.link_node(link);
                  const int32_t oc = S[static_cast<size_t>(walk[j])].outch;
                  txt += f.port_name(sw, oc >= 0 ? cdg.link_port(static_cast<int>(oc / kNumVlSlots)) : 0) + " -> ";
                }
                txt += "" + f.node_name(s) + " (DLID " + std::to_string(d) + ")";
                st.loop_examples.push_back(txt);
              }
            } else {
              if (cin >= 0 && S[cu].outch >= 0)
                record_edge(s, in, cdg.link_port(static_cast<int>(S[cu].outch / kNumVlSlots)),
                            static_cast<Cdg::Id>(cin), static_cast<Cdg::Id>(S[cu].outch));
              result = S[cu].res;
            }
            break;
          }
          S[cu].stamp = walk_id;
          walk.push_back(cur);
          // A start state (CA-facing input port, or port 0) has no predecessors: its count is
          // settled right after the walk, so it stays out of the per-destination propagation.
          if (cur != start) touched.push_back(cur);
          S[cu].next = -1;
          S[cu].outch = -1;
          // the hop itself is the check library's one (RouteWalker::hop = follow())
          const RouteHop hp = slow_walker->hop(s);
          const int o = hp.port;
          DropKind dk{};
          bool drop = false, done = false;
          if (hp.kind == RouteHop::Dropped && hp.drop != DropKind::WrongEndpoint) {
            dk = hp.drop, drop = true;
          } else if (hp.kind == RouteHop::Delivered && o == 0) {
            S[cu].hops = 0;
            done = true;
          } else {  // a linked port: to the next switch, the owner, or another CA
            const int link = cdg.link_id(s, o);
            const int v = vl_at(s, in, o, sl);
            const Cdg::Id oc = static_cast<Cdg::Id>(link) * kNumVlSlots + static_cast<Cdg::Id>(v);
            S[cu].outch = static_cast<int32_t>(oc);
            used_local[oc] = 1;
            if (cin >= 0) record_edge(s, in, o, static_cast<Cdg::Id>(cin), oc);
            if (hp.kind == RouteHop::Forward) {
              cin = static_cast<int32_t>(oc);
              s = hp.next;
              in = hp.next_port;
              const int32_t nx = state_of(s, in, sl);
              S[cu].next = nx;
              cur = nx;
              continue;
            }
            if (hp.kind == RouteHop::Delivered) {
              S[cu].hops = 1;
              done = true;
            } else {
              dk = DropKind::WrongEndpoint, drop = true;
              s = hp.next, in = hp.next_port;  // name the endpoint in the message
            }
          }
          if (drop) {
            drops.push_back({dk, s, dk == DropKind::WrongEndpoint ? in : o});
            result = static_cast<int32_t>(drops.size() - 1);
          } else if (done) {
            result = -1;
          }
          break;
        }
        // Propagate the outcome (and hop counts) back along the walk.
        if (result < 0) {
          for (size_t j = walk.size(); j-- > 0;) {
            const size_t w = static_cast<size_t>(walk[j]);
            S[w].res = -1;
            if (S[w].next >= 0) S[w].hops = static_cast<uint16_t>(S[static_cast<size_t>(S[w].next)].hops + 1);
          }
        } else {
          for (int32_t w : walk) S[static_cast<size_t>(w)].res = result;
        }
        if (src.inj_link >= 0) {
          const int v = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          used_local[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(v)] = 1;
        }
        const StateRec& sr = S[static_cast<size_t>(start)];
        account(src, sr.res, sr.hops, sr.outch, sr.next);
        // Remember the continuation: the next CA sources behind the same switch with the same SL
        // leave through the same LFT entry, so they only add their injection edge and counts.
        if (src.inj_link >= 0 && sr.outch >= 0) {
          fast_sw = src.sw;
          fast_sl = sl;
          fast_out = cdg.link_port(static_cast<int>(sr.outch / kNumVlSlots));
          fast_res = sr.res;
          fast_hops = sr.hops;
          fast_next = sr.next;
        } else {
          fast_sw = -1;
        }
      }
      // Routes per link: push the per-state counts down the in-tree (decreasing hops).
      if (opt.collect_loads) {
        if (buckets.size() < static_cast<size_t>(max_hops) + 2) buckets.resize(static_cast<size_t>(max_hops) + 2);
        for (auto& b : buckets) b.clear();
        for (int32_t t : touched) {
          const size_t w = static_cast<size_t>(t);
          if (S[w].res >= 0) continue;
          buckets[std::min<size_t>(S[w].hops, buckets.size() - 1)].push_back(t);
        }
        for (size_t h = buckets.size(); h-- > 0;) {
          for (int32_t t : buckets[h]) {
            const size_t w = static_cast<size_t>(t);
            const uint32_t c = S[w].cnt;
            if (c == 0) continue;
            if (S[w].outch >= 0) st.link_load[static_cast<size_t>(S[w].outch) / kNumVlSlots] += c;
            if (S[w].next >= 0) S[static_cast<size_t>(S[w].next)].cnt += c;
            S[w].cnt = 0;
          }
        }
      }
      // stamps are only compared against dest_base; guard against wrap-around
      if (walk_id > 0xF0000000u) {
        for (auto& x : S) x.stamp = 0;
        walk_id = 0;
      }
    }
  }
  // Merge the switch-level pass's workers (sums and unions: independent of the thread count).
  uint32_t fast_dests = 0;
  for (const FastWorker& w : fw) fast_dests += w.fast_dests;
  if (fast_ok && fast_dests > 0) {
    std::vector<uint32_t> deliv_count(sh.swl.size(), 0), own_fast(static_cast<size_t>(nlinks), 0);
    std::vector<uint64_t> inj_corr(static_cast<size_t>(nlinks), 0), bits(fw[0].edge_bits.size(), 0);
    for (const FastWorker& w : fw) {
      st.pairs += w.pairs;
      st.delivered += w.delivered;
      st.dropped += w.dropped;
      st.looping += w.looping;
      for (int k = 0; k < 6; k++) st.per_kind[k] += w.per_kind[k];
      if (w.hop_histogram.size() > st.hop_histogram.size()) st.hop_histogram.resize(w.hop_histogram.size(), 0);
      for (size_t h = 0; h < w.hop_histogram.size(); h++) st.hop_histogram[h] += w.hop_histogram[h];
      for (size_t l = 0; l < w.link_load.size(); l++) st.link_load[l] += w.link_load[l];
      for (size_t u = 0; u < sh.swl.size(); u++)
        for (int o = 0; o <= sh.np_pos[u]; o++)
          if (w.used_out[u * static_cast<size_t>(sh.W) + static_cast<size_t>(o >> 6)] >> (o & 63) & 1)
            used_local[static_cast<size_t>(sh.link_base[u] + o) * kNumVlSlots] = 1;
      for (size_t i = 0; i < deliv_count.size(); i++) deliv_count[i] += w.deliv_count[i];
      for (size_t l = 0; l < own_fast.size(); l++) own_fast[l] += w.own_fast[l], inj_corr[l] += w.inj_corr[l];
      for (size_t b = 0; b < bits.size(); b++) bits[b] |= w.edge_bits[b];
    }
    // Dependencies on VL0: row (u, out), bit in = the link arriving at (u, in) -> (u, out).
    // Transposed (row (u, in), bit out: the successors of the channel arriving at (u, in), in
    // increasing order), they are the CDG's adjacency lists, handed over without a sort.
    const size_t W = static_cast<size_t>(sh.W);
    std::vector<uint64_t> tr(bits.size(), 0);
    for (size_t u = 0; u < sh.swl.size(); u++)
      for (int o = 0; o <= sh.np_pos[u]; o++)
        for (size_t k = 0; k < W; k++)
          for (uint64_t m = bits[(sh.row_base[u] + static_cast<size_t>(o)) * W + k]; m; m &= m - 1) {
            const size_t in = k * 64 + static_cast<size_t>(__builtin_ctzll(m));
            tr[(sh.row_base[u] + in) * W + static_cast<size_t>(o >> 6)] |= uint64_t{1} << (o & 63);
          }
    auto arriving = [&](size_t u, int in) {  // the VL0 channel arriving at (u, in)
      const size_t l = static_cast<size_t>(sh.link_base[u] + in);
      return static_cast<size_t>(cdg.link_id(peer_node[l], peer_port[l])) * kNumVlSlots;
    };
    std::vector<uint32_t> off(static_cast<size_t>(cdg.num_ids()) + 1, 0);
    for (size_t u = 0; u < sh.swl.size(); u++)
      for (int in = 1; in <= sh.np_pos[u]; in++) {
        uint32_t cnt = 0;
        for (size_t k = 0; k < W; k++) cnt += static_cast<uint32_t>(__builtin_popcountll(tr[(sh.row_base[u] + static_cast<size_t>(in)) * W + k]));
        if (cnt) off[arriving(u, in) + 1] = cnt;
      }
    for (size_t c = 1; c < off.size(); c++) off[c] += off[c - 1];
    std::vector<Cdg::Id> adj(off.back());
    for (size_t u = 0; u < sh.swl.size(); u++)
      for (int in = 1; in <= sh.np_pos[u]; in++) {
        const uint64_t* t = &tr[(sh.row_base[u] + static_cast<size_t>(in)) * W];
        if (std::all_of(t, t + W, [](uint64_t x) { return x == 0; })) continue;  // also: no link at (u, in)
        size_t pos = off[arriving(u, in)];
        for (size_t k = 0; k < W; k++)
          for (uint64_t m = t[k]; m; m &= m - 1)
            adj[pos++] = static_cast<Cdg::Id>(sh.link_base[u] + static_cast<int>(k * 64) + __builtin_ctzll(m)) * kNumVlSlots;
      }
    cdg.add_dependencies(std::move(off), std::move(adj));
    for (size_t i = 0; i < sh.swl.size(); i++)
      for (const auto& [inj, inport] : sh.ca_at[i]) {
        const size_t l = static_cast<size_t>(inj);
        if (fast_dests > own_fast[l]) used_local[l * kNumVlSlots] = 1;  // paired with some destination
        if (opt.collect_loads) st.link_load[l] += static_cast<uint64_t>(deliv_count[i]) * sh.link_entries[l] - inj_corr[l];
      }
  }
  if (!opt.hop_histogram) st.hop_histogram.clear();
  for (size_t c = 0; c < used_local.size(); c++)
    if (used_local[c]) {
      cdg.mark_used(static_cast<Cdg::Id>(c));
      st.vl_mask = static_cast<uint16_t>(st.vl_mask | (1u << (c % kNumVlSlots)));
    }
  cdg.finalize();
  return out;
}

}  // namespace ftroute
