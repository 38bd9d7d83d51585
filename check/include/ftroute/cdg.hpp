// Channel dependency graph (CDG) of a routing, cycle search and topological order.
//
// A *channel* is a directed link with a virtual lane: the link leaving (node, port) on VL vl.
// A packet that arrives on channel a and leaves on channel b makes b a dependency of a (a -> b):
// a waits for buffer space in b. A routing is deadlock-free (for deterministic, non-adaptive
// routing) iff its CDG has no cycle (Dally & Seitz). With VLs, a cycle must stay on a set of
// channels whose VLs the SL2VL tables chain together; we search the full graph (VL changes
// included), and per VL on request.
//
// Ids: every port of every node gets a dense *link id* (port_base(node) + port; port 0 of a
// switch has one too but never carries traffic). A channel id is link_id * 16 + vl.
// Ids are stable for a given Fabric, so other code (DQR's channel list) can index arrays by them.
//
// build_cdg() walks the routing per destination LID: the LFTs form an in-tree per DLID, so the
// walk memoises (switch, input port, SL) states and every source only adds work until it joins
// a state already seen for that destination. With identity SL2VL and no path SLs (one VL, routes
// independent of the input port) it resolves each switch once per destination and counts the
// sources per first switch: O(switches) per destination instead of O(sources). Sources are CA ports (+ switches on request); the
// VL of each hop is Sl2Vl::vl(node, in_port, out_port, sl), CA injection uses in_port 0.
// The same walk yields what the validators need: unreachable pairs, forwarding loops, hop counts
// and the number of routes per link (edge forwarding index), collected in RouteWalkStats
// (ftroute/route_walk.hpp, which also owns DropKind).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/route_walk.hpp"
#include "ftroute/routing.hpp"

namespace ftroute {

constexpr int kNumVlSlots = 16;  // VL 0..15 (VL15 is management; never used by data)

struct Channel {
  int node = -1;
  uint8_t port = 0;
  uint8_t vl = 0;
  bool operator==(const Channel&) const = default;
};

class Cdg {
 public:
  using Id = uint32_t;
  Cdg() = default;
  // The fabric must outlive the Cdg (names and link ids refer to it).
  explicit Cdg(const Fabric& f);

  const Fabric& fabric() const { return *fabric_; }

  // ---- ids ----
  int num_links() const { return static_cast<int>(link_node_.size()); }
  int link_id(int node, int port) const { return port_base_[static_cast<size_t>(node)] + port; }
  int link_node(int link) const { return link_node_[static_cast<size_t>(link)]; }
  int link_port(int link) const { return link_port_[static_cast<size_t>(link)]; }
  Id id(int node, int port, int vl) const {
    return static_cast<Id>(link_id(node, port)) * kNumVlSlots + static_cast<Id>(vl);
  }
  Id id(const Channel& c) const { return id(c.node, c.port, c.vl); }
  Id num_ids() const { return static_cast<Id>(num_links()) * kNumVlSlots; }
  Channel channel(Id id) const;
  static int vl_of(Id id) { return static_cast<int>(id % kNumVlSlots); }

  // "\"S1\"[3] vl0"
  std::string name(const Channel& c) const;
  std::string name(Id id) const { return name(channel(id)); }
  // "\"S1\"[3] vl0 -> \"S2\"[5] vl0 -> ... -> \"S1\"[3] vl0" (first channel repeated at the end)
  std::string format_cycle(const std::vector<Channel>& cycle) const;

  // ---- building ----
  // Marks a channel as carrying traffic (also done by add_dependency for both ends).
  void mark_used(Id c);
  void add_dependency(Id from, Id to);
  void add_dependency(const Channel& from, const Channel& to) { add_dependency(id(from), id(to)); }
  // Many dependencies at once, as a CSR by source channel: channel c -> adj[off[c]..off[c+1]),
  // each list strictly increasing; off has num_ids() + 1 entries. Same result as
  // add_dependency() for every edge (channels marked used); a CDG without edges so far takes
  // the arrays over as its adjacency, without sorting.
  void add_dependencies(std::vector<uint32_t> off, std::vector<Id> adj);
  // Merges duplicate edges and builds the adjacency (done lazily by the queries below as well).
  void finalize() const;

  // ---- queries ----
  size_t num_edges() const;
  bool used(Id c) const { return c < used_.size() && used_[c]; }
  std::vector<Id> used_channels(int vl = -1) const;   // vl -1 = all VLs
  std::vector<int> vls_used() const;                   // sorted
  bool has_edge(Id from, Id to) const;
  // Successors of a channel (sorted ids).
  std::pair<const Id*, const Id*> successors(Id c) const;
  // Dependency edges (from, to). vl >= 0: only edges with both ends on that VL.
  // vl -1: every edge, including those that change VL.
  std::vector<std::pair<Id, Id>> edges(int vl = -1) const;
  // Number of edges that change VL (dateline / escape-VL transitions).
  size_t num_vl_changing_edges() const;

  // One dependency cycle as a channel list (first channel not repeated), or nullopt if acyclic.
  // vl -1: whole graph; vl >= 0: only edges within that VL. Iterative DFS, no recursion.
  std::optional<std::vector<Channel>> find_cycle(int vl = -1) const;
  // Channels in an order where every dependency points forward (Kahn's algorithm, ties by id),
  // or nullopt if the graph is cyclic. vl >= 0 restricts to that VL (edges leaving the VL are
  // ignored). include_unused adds every connected directed link on the VL(s) even if no route
  // uses it (what DQR's channel list needs); vl -1 with include_unused uses vls_used().
  std::optional<std::vector<Id>> topological_order(int vl = -1, bool include_unused = false) const;

 private:
  // Appends a CSR's edges to edge_list_ (to be merged by finalize()).
  void append_csr(const std::vector<uint32_t>& off, const std::vector<Id>& adj) const;

  const Fabric* fabric_ = nullptr;
  std::vector<int> port_base_;   // node -> first link id
  std::vector<int> link_node_, link_port_;
  std::vector<uint8_t> used_;    // by channel id
  mutable std::vector<uint64_t> edge_list_;  // (from << 32) | to, added since the last finalize
  mutable std::vector<uint32_t> off_;   // CSR offsets by channel id (size num_ids()+1 once built)
  mutable std::vector<Id> adj_;         // successors, sorted and unique per channel
};

struct CdgBuildOptions {
  bool ca_sources = true;        // every CA/router port LID as a source
  bool switch_sources = false;   // also every switch LID (traffic generated by switches)
  bool all_source_lids = false;  // all 2^lmc LIDs of a source port (default: base LID only;
                                 // only matters when path_sl depends on the source LID)
  bool switch_destinations = true;  // switch LIDs as destinations (CA LIDs, incl. LMC, always)
  bool collect_loads = true;     // routes per link (edge forwarding index)
  // The hop histogram of the delivered pairs. Without it and without collect_loads (what the
  // engines' self-checks need: the verdict and the CDG), the switch-level pass takes a leaner
  // path for every destination whose pairs all arrive and whose switches are all sources; the
  // CDG, the used channels and every count are the same, hop_histogram is left empty.
  bool hop_histogram = true;
  int max_examples = 5;          // named examples of unreachable pairs / loops kept
  // Walk every source separately even where the switch-level pass applies (identity SL2VL, no
  // path SLs): the reference the tests compare the fast pass with. Same result, slower.
  bool force_per_source = false;
  // Worker threads of the switch-level pass (0 = one per hardware thread). The result is the
  // same for every count.
  int threads = 0;
};

struct CdgBuild {
  Cdg cdg;
  RouteWalkStats stats;
};

// Builds the CDG of `routing` over the pairs selected by `options` (see the file comment).
// The fabric must outlive the result.
CdgBuild build_cdg(const Fabric& fabric, const Routing& routing, const CdgBuildOptions& options = {});

}  // namespace ftroute
