// The routing pipeline: make the engine -> check its options (once) -> route -> one verdict.
// Every caller that routes with an ftroute engine goes through it: the OpenSM plugin
// (plugin/adapter.cpp's EngineSlot), `ftroute route`, `compare`, `sim`, `campaign`, `ftdrb-eval`
// and `dqr-eval`. Like OpenSM's osm_ucast_mgr.c runs every engine through one driver, this is
// the one place that decides whether an engine's tables may be used.
//
// The verdict (ftroute/verdict.hpp) comes from one walk of the tables: the engine's own
// self-check when it walked every switch to every LID on these very tables (ftree-misroute,
// ft-lash: RoutingSelfCheck, stamped with the tables' digest), else the result walk
// (verify_routing). The entry scan (every LFT entry decoded, walked or not) runs in both cases.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/verdict.hpp"

namespace ftroute {

// One routing step's result.
struct RoutedStep {
  Routing routing;
  Verdict verdict;
  std::optional<ValidationReport> report;  // with PipelineOptions::validate
  int switches = 0;      // switches in the fabric
  int lids = 0;          // end-port LIDs with a route on at least one switch
  long entries = 0;      // LFT entries for end-port LIDs that are not kNoPath
  double engine_ms = 0;  // the engine's route() (its self-check included), wall clock
  double engine_cpu_ms = 0;         // the same, CPU time of the process (the engine's workers included)
  double engine_thread_cpu_ms = 0;  // and of the calling thread alone (campaign runs go in parallel)
  double check_ms = 0;   // the verdict (digest + entry scan, or the result walk)
  double millis = 0;     // both
};

struct PipelineOptions {
  // Throw EngineError(engine, first problem) when the verdict fails (the plugin and `route`
  // refuse such tables); false: return the step with its failed verdict (`sim`, which reports
  // and may simulate anyway).
  bool require_ok = true;
  VerifyOptions verify;  // how the result walk runs when the self-check cannot be reused
  bool reuse_self_check = true;  // false: always the result walk (tests; bench baseline)
  // Incremental result walk: when the previous routing handed to run() is the one this pipeline
  // approved last (same tables, same fabric by digest) and the fabric differs from it only by
  // removed links (same nodes, GUIDs, LIDs; every link it has was there before, to the same
  // peer), only the LIDs with a changed entry on some switch are walked; the entry scan still
  // decodes every entry, which finds an unchanged entry into a removed link. Every other LID
  // follows the same entries over the same links as in the approved walk, from the same or fewer
  // start switches. An engine that patches the previous tables (dqr) is then not walked in full.
  // Needs verify.all_switches, all_lmc_lids and scan_entries (the approved walk must be full).
  bool incremental = true;
  // Set: the verdict comes from a full validation with these options (validate(), whose report
  // the step keeps: `compare` and `campaign` need its figures), instead of the result walk.
  std::optional<ValidateOptions> validate;
};

class RoutingPipeline {
 public:
  // Makes engine `name` (unknown: OptionError listing the known engines) and checks `options`
  // against its keys and ranges (OptionError): the only option check of a routing step.
  RoutingPipeline(const std::string& name, const EngineOptions& options, PipelineOptions popts = {});
  // An engine made elsewhere (tests: probe engines).
  RoutingPipeline(std::unique_ptr<Engine> engine, const EngineOptions& options, PipelineOptions popts = {});

  const std::string& name() const { return name_; }
  const EngineOptions& options() const { return checked_.options(); }
  Engine& engine() { return *engine_; }
  const PipelineOptions& pipeline_options() const { return popts_; }

  // Routes `fabric` (which must outlive the step's use of the routing) and gives the verdict.
  // EngineError when the engine refuses the fabric, or (require_ok) when the verdict fails.
  RoutedStep run(const Fabric& fabric, const PreviousRouting& previous = {});

 private:
  std::string name_;
  std::unique_ptr<Engine> engine_;
  CheckedOptions checked_;
  PipelineOptions popts_;
  // The last routing this pipeline approved (verdict ok): digests of its tables and fabric.
  struct Approved {
    uint64_t lfts = 0, fabric = 0;
  };
  std::optional<Approved> approved_;
};

// The verdict on tables routed elsewhere (an LFT file, BookSim2's routing, a test's hand-made
// tables): the self-check record when it applies, else the result walk; never throws on bad
// tables.
Verdict verdict_for(const Fabric& fabric, const Routing& routing, const PipelineOptions& popts = {});

// "ftree-misroute, with check=0" style one-liner of options for messages: "k=v,k=v" ("" = none).
std::string options_text(const EngineOptions& options);

}  // namespace ftroute
