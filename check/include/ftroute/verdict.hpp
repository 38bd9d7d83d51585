// The one verdict on a routing's tables, in the route walk's vocabulary (DropKind): what the
// routing pipeline (routing_engines/: ftroute/pipeline.hpp) hands the plugin, `ftroute route`,
// `compare`, `sim`, `campaign`, `ftdrb-eval` and `dqr-eval`, what the simulator prints before a
// run, and how the engines' self-checks (build_cdg) report.
//
// verify_routing() is the result walk: every LFT entry is decoded (a port the switch lacks, a
// port without link, port 0 on a switch that does not own the LID), then every LID of every end
// port (LMC ranges included) is followed from every start switch with the memoised RouteWalker.
// verdict_of() reads an engine's self-check (a CdgBuild) in the same terms. record_self_check()
// keeps a self-check that walked every switch to every LID on the Routing, stamped with the
// tables' digest, so the pipeline does not walk them again (the second walk of issue #28).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ftroute/cdg.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/route_walk.hpp"
#include "ftroute/routing.hpp"
#include "ftroute/validate.hpp"

namespace ftroute {

// Short name of a DropKind in counts ("no-route=3"): no-route, bad-port, unlinked-port,
// not-local, misdelivery, loop.
const char* drop_kind_name(DropKind k);

struct Verdict {
  // Which walk gave it: "result walk" (verify_routing) or the engine's self-check, e.g.
  // "ftree-misroute self-check" (verdict_of / the pipeline's reuse of RoutingSelfCheck).
  std::string source;
  uint64_t walks = 0;         // (start switch or source, LID) pairs followed
  uint64_t per_kind[6] = {};  // pairs stopped, by DropKind (Loop: pairs caught in a loop)
  uint64_t bad_entries = 0;   // LFT entries (any LID, walked or not) naming a missing or unlinked
                              // port, or port 0 on a switch that does not own the LID
  uint64_t unattached = 0;    // end ports not attached to a switch: their LIDs cannot be walked
                              // (counted by the simulator's check, all_switches = false)
  uint64_t missing_tables = 0;  // switches without an LFT
  // The problems found, at most max_examples per kind, in the order found (entries switch by
  // switch, then walks LID by LID): the first is the one a caller that stops at the first problem
  // reports. Unattached end ports and missing tables are listed under NoRoute.
  struct Problem {
    DropKind kind;
    std::string text;  // switch "S1"[3] has no route to LID 7 ("H2"[1])
  };
  std::vector<Problem> examples;
  // deadlock: set where a CDG was built (an engine's self-check)
  bool cdg_checked = false, cdg_acyclic = true;
  std::string cycle;          // one dependency cycle, channel names

  uint64_t dropped() const;   // per_kind without Loop
  uint64_t looping() const { return per_kind[static_cast<int>(DropKind::Loop)]; }
  bool ok() const {
    return dropped() == 0 && looping() == 0 && bad_entries == 0 && unattached == 0 && missing_tables == 0 &&
           cdg_acyclic;
  }
  // The first problem's text ("" when there is none).
  std::string first_problem() const;
  // The first example of kind k (first_problem() when there is none of that kind).
  std::string first_of(DropKind k) const;
  // "routing check: ok" or "routing check found problems: no-route=1 unlinked-port=2\n" followed
  // by one indented line per example.
  std::string summary() const;
};

struct VerifyOptions {
  // Start switches: every switch of the LID's component (true: every entry a packet can meet, the
  // plugin's and `route`'s check) or only the switches end ports attach to (false: where traffic
  // enters, the simulator's check).
  bool all_switches = true;
  bool all_lmc_lids = true;   // every LID of an LMC range (false: base LIDs only)
  bool scan_entries = true;   // decode every LFT entry, walked or not
  // Stop at the first problem (the plugin and `route` refuse on it; a fabric whose tables are
  // all wrong is then not walked to the end).
  bool stop_at_first = false;
  size_t max_examples = 20;   // per kind
  int threads = 0;            // of the entry scan (0 = one per hardware thread); same result for every count
  // Set: the walk follows only the LIDs marked non-zero (a LID at or past its end is walked);
  // the entry scan still decodes every entry. The pipeline's incremental verdict (pipeline.hpp):
  // the unmarked LIDs' tables and links are those of a routing it approved before.
  const std::vector<uint8_t>* walk_lids = nullptr;
};

Verdict verify_routing(const Fabric& fabric, const Routing& routing, const VerifyOptions& options = {});

// The entry scan of verify_routing() alone (missing tables and bad entries; walks stay 0).
Verdict scan_entries(const Fabric& fabric, const Lfts& lfts, const VerifyOptions& options = {});

// A digest of the switches' tables (table sizes and every entry), parallel over switches; the
// same for every thread count. What RoutingSelfCheck::digest holds.
uint64_t lfts_digest(const Fabric& fabric, const Lfts& lfts, int threads = 0);

// An engine's self-check in the verdict's terms: the walk's counts and examples, and, when
// check_cdg, whether the dependency graph has a cycle (vl -1: the whole graph, else that VL only).
Verdict verdict_of(const CdgBuild& build, const std::string& source, bool check_cdg, int vl = -1);

// A full validation (validate(): reachability from its sources, loops, broken entries, deadlock,
// EFI) in the verdict's terms, for callers that need the report's figures anyway (`compare`,
// `campaign`): its walk is then the verdict's, not a second one.
Verdict verdict_of(const ValidationReport& report);

// Keeps the self-check `build` (made with `options` on `routing`'s current tables) on the routing
// as a RoutingSelfCheck, stamped with lfts_digest(). Call it last, after the tables are final.
void record_self_check(const Fabric& fabric, Routing& routing, const CdgBuild& build, const CdgBuildOptions& options,
                       const std::string& by, bool cdg_checked, bool cdg_acyclic, int threads = 0);

// The recorded self-check as a verdict, when it covers the result check: it walked every switch
// to every LID (switch destinations included) on this fabric and the tables still hash to its
// digest. nullopt otherwise (no record, another fabric, or tables changed since).
std::optional<Verdict> reuse_self_check(const Fabric& fabric, const Routing& routing, int threads = 0);

}  // namespace ftroute
