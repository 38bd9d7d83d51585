// Offline validation of a Routing on a Fabric: reachability, forwarding loops, broken LFT entries,
// deadlock freedom (CDG acyclic, VLs included), edge forwarding index and hop counts.
//
// Everything comes from one walk of the routing per destination LID (build_cdg, ftroute/cdg.hpp):
//  * pairs: every CA/router port (base LID; all LMC LIDs with all_source_lids) as source, and as
//    destination every LID of every end port (LMC ranges included) and every switch LID;
//    switch sources on request (switch_sources).
//  * unreachable: the route stops (LFT 255, port missing or without link, entry 0 for a LID the
//    switch does not own, delivered to the wrong node); loops are counted separately.
//  * LFT entries: every entry, for a LID some port owns, that names a port the switch lacks or a
//    port without link (even if no walked pair uses it).
//  * deadlock: the channel dependency graph over (link, VL) channels must be acyclic; one cycle is
//    reported with channel names. The whole graph is searched (dependencies that change VL, e.g. a
//    dateline, included), which implies every per-VL subgraph is acyclic.
//  * edge forwarding index: number of routes (delivered source/destination LID pairs) crossing
//    each directed switch-to-switch link; min/avg/max over all such links (unused ones count 0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftroute/cdg.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

namespace ftroute {

struct ValidateOptions {
  bool switch_sources = false;      // like `ibdmchk -a`: switches as sources too
  bool switch_destinations = true;  // switch LIDs as destinations (false: CA-to-CA only, ibdmchk's default)
  bool all_source_lids = false;
  bool check_deadlock = true;
  int max_examples = 5;
};

struct LinkLoad {
  int node = -1;
  int port = 0;
  uint64_t routes = 0;
};

struct ValidationReport {
  std::string engine;
  int switches = 0, cas = 0, links = 0, lids = 0;
  int sources = 0, destinations = 0;
  // reachability
  uint64_t pairs = 0, delivered = 0, unreachable = 0, looping = 0;
  uint64_t per_kind[6] = {};
  std::vector<std::string> unreachable_examples;
  std::vector<std::string> loop_examples;
  // LFT entries pointing at a missing / unlinked port
  uint64_t bad_entries = 0;
  std::vector<std::string> bad_entry_examples;
  // deadlock
  bool deadlock_checked = false;
  bool cdg_acyclic = true;
  std::vector<Channel> cycle;       // one dependency cycle (empty if acyclic)
  std::string cycle_text;           // "\"S1\"[3] vl0 -> \"S2\"[5] vl0 -> ... -> \"S1\"[3] vl0"
  std::vector<int> vls_used;
  size_t cdg_channels = 0, cdg_edges = 0, cdg_vl_changes = 0;
  // edge forwarding index over directed switch-to-switch links
  std::vector<LinkLoad> switch_link_loads;   // every directed switch-to-switch link
  uint64_t efi_min = 0, efi_max = 0;
  double efi_avg = 0;
  LinkLoad efi_max_link;
  // hops (links traversed, CA-to-CA = switch hops + 2)
  std::vector<uint64_t> hop_histogram;
  int hops_min = 0, hops_max = 0;
  double hops_avg = 0;
  std::vector<std::string> warnings;
  double seconds = 0;

  bool reachability_ok() const { return unreachable == 0; }
  bool loops_ok() const { return looping == 0; }
  bool entries_ok() const { return bad_entries == 0; }
  bool deadlock_ok() const { return !deadlock_checked || cdg_acyclic; }
  bool ok() const { return reachability_ok() && loops_ok() && entries_ok() && deadlock_ok(); }
};

ValidationReport validate(const Fabric& fabric, const Routing& routing, const ValidateOptions& options = {});

// The routes on every directed switch-to-switch link (the edge forwarding index) of a CDG build
// made with collect_loads, in switch and port order: ValidationReport::switch_link_loads, and what
// an engine weighs its candidates by (ftree-misroute's plane valleys).
std::vector<LinkLoad> switch_link_loads(const Fabric& fabric, const CdgBuild& build);

// Multi-line text summary (used by `ftroute check` and the demo); ends with
// "RESULT: PASS" or "RESULT: FAIL (<failed checks>)".
std::string format_report(const Fabric& fabric, const ValidationReport& report);

}  // namespace ftroute
