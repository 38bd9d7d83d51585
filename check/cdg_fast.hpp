// Internal to ftroute_check (not installed): build_cdg()'s switch-level pass, shared by
// cdg_build.cpp (set-up, destinations, merge) and cdg_fast.cpp (the per-destination work).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "ftroute/cdg.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/route_walk.hpp"

namespace ftroute::cdg_fast {

// ---- Switch-level pass (the common case: identity SL2VL, no path SLs, so every pair runs on VL0
// and a packet's route from a switch does not depend on where it came from). The LFT column of a
// destination is an in-tree over the switches: each switch reached from a source is resolved
// once (memoised, stamps instead of clearing), and the sources are counted per first switch
// instead of walked one by one, so a destination costs O(switches), not O(sources). Edges, used
// channels, counts, hop histogram and link loads are the same as the per-source walk's
// (tests/unit/check/cdg_fast_test.cpp compares both on many fabrics).
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

}  // namespace ftroute::cdg_fast
