// Engine comparison on top of campaign results (issue 4, docs/ftree-misroute.md "Comparison"):
//  * the duration of OpenSM's routing step, read from the microsecond timestamps of its log;
//  * a markdown table per fabric and fault level: tolerated fraction, VLs, edge forwarding
//    index, routing time and OpenSM fallbacks (`ftroute campaign-table`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ftroute/campaign.hpp"

namespace ftroute::campaign {

// One routing pass of OpenSM as its log shows it (needs log_flags with VERBOSE, 0x04, for the
// "building routing with 'X' routing algorithm..." lines; "X tables configured on all switches"
// is INFO). The step runs from the first "building routing" line after the previous pass to the
// "tables configured" line: OpenSM's lid matrices + forwarding tables of every engine it tried
// (failed ones included, so a fallback's cost is counted) + queuing the LFT blocks.
struct OsmRoutingStep {
  std::string engine;               // engine of "tables configured"
  std::vector<std::string> tried;   // engines in "building routing with" order (fallbacks appear)
  double seconds = 0;               // wall time between the two log lines
};
// The LAST complete pass in the log; nullopt when none (e.g. VERBOSE off, or routing failed).
// Throws ParseError "<filename>:<line>: ..." when a bracketing line has no parsable
// "Mon DD HH:MM:SS USEC" timestamp.
std::optional<OsmRoutingStep> opensm_routing_step(const std::string& log_text, const std::string& filename = "osm.log");

// Markdown comparison table: one row per (fabric, switch failures, link failures, engine), in the
// order of `engines` (empty = order of first appearance), columns
//   fabric | faults | engine | tolerated | VLs | EFI max | EFI avg | routing ms | OpenSM fell back
// "tolerated" = runs with status ok, every pair reachable, no loop, no bad LFT entry and a CDG
// checked acyclic on the VLs used; runs whose CDG could not be checked (deadlock_checked = 0,
// e.g. dfsssp's per-path SLs) are counted separately and marked. Followed by the notes that say
// how each column is measured.
std::string comparison_table(const std::vector<RunResult>& rows, const std::vector<std::string>& engines = {});

// The table's rows as data (what comparison_table renders; `campaign-table --json`).
struct ComparisonRow {
  std::string fabric, switch_failures, link_failures, engine;
  bool opensm = false;                 // engine is opensm:<x>
  int runs = 0, tolerated = 0, unchecked_ok = 0, refused = 0, failed = 0, fallback = 0, measured = 0;
  std::vector<std::string> fallback_engines;  // engines OpenSM used instead
  int vls = 0;                         // max over measured runs
  double efi_max_mean = 0, efi_avg_mean = 0;
  uint64_t efi_max_worst = 0;
  double routing_seconds_mean = 0;
};
std::vector<ComparisonRow> comparison_rows(const std::vector<RunResult>& rows, const std::vector<std::string>& engines = {});

}  // namespace ftroute::campaign
