// `ftroute compare`: every candidate routing of one fabric checked the same way, and which one to
// run (docs/compare.md). Candidates are ftroute's engines (in-process), OpenSM's own engines
// (a real OpenSM under ibsim, run_opensm_engine) and LFT dumps (--lfts). Each result gets the same
// checks: every CA reaches every CA and switch LID, no loop, no LFT entry on a missing port, the
// channel dependency graph over (link, VL) acyclic with the routing's SLs, edge forwarding index.
//
// The recommendation ranks the engines that pass every check (best = fewest VLs, then lowest EFI
// max, then ftroute's engines before OpenSM's, then the order given) and builds the fallback chain
// of opensm.conf's `routing_engine` line from passing engines only: the best first, then the next
// passing ftroute engine, then the next passing OpenSM engine (so at most three: the first one
// that serves the fabric routes it; the others are the safety net when the fabric changes).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ftroute/engine.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/opensm_run.hpp"
#include "ftroute/validate.hpp"

namespace ftroute::campaign {

struct EngineRow {
  enum class Source { Engine, Opensm, File };
  std::string name;            // "ftree-misroute", "opensm:updn", or NAME of --lfts NAME=FILE
  Source source = Source::Engine;
  std::string status = "ok";   // ok | refused (EngineError) | failed (OpenSM brought no subnet up)
  std::string message;         // why refused / failed; OpenSM's notes (path SLs, timing)
  std::string engine_used;     // Opensm: engine of "<x> tables configured" ("none" if none)
  bool fallback = false;       // Opensm: engine_used is not the engine asked for
  double seconds = 0;          // Engine: CPU s of Engine::route; Opensm: wall s of the routing step
  std::string file;            // File: the LFT dump
  EngineOptions options;       // Engine (and ftroute engines inside OpenSM): the options it ran with
  bool needs_qos = false;      // more than one VL or SL-based: OpenSM needs `qos TRUE`
  int num_vls = 1;             // Engine: VLs the routing asks for (Routing::num_vls; may exceed the
                               // VLs the checked routes use, e.g. ft-lash's layers)
  std::shared_ptr<const Fabric> fabric;  // the fabric the report names (Opensm: with OpenSM's LIDs)
  ValidationReport report;     // status ok

  // The name for opensm.conf's routing_engine ("opensm:updn" -> "updn").
  std::string conf_name() const;
};

struct CompareOptions {
  std::vector<std::string> engines;     // ftroute engines, run in-process
  std::vector<std::string> opts;        // "[ENGINE:]k=v[,k=v]" texts (engine_options_for)
  std::vector<std::string> opensm;      // engines run by OpenSM under ibsim
  std::vector<std::pair<std::string, std::string>> lfts;  // NAME, FILE (LFT dumps to check)
  std::string fabric_path;              // the fabric file (for --lfts)
  OpensmRunOptions osm;                 // its `validate` is replaced by `validate` below
  ValidateOptions validate;
  std::function<void(const std::string&)> progress;  // one line before each OpenSM run
};

// `compare --opensm A,B,..`: the names, each one of OpenSM's engines (opensm_engine_names()) or an
// ftroute engine (run inside OpenSM by libftroute.so). OptionError: an empty list, `file` (it
// needs an LFT dump: --lfts), an unknown name (listing OpenSM's).
std::vector<std::string> opensm_compare_names(const std::vector<std::string>& names);
// "" if `name` runs inside OpenSM (one of OpenSM's engines, or an ftroute engine through
// libftroute.so), else "unknown engine 'NAME' (OpenSM's: ...)" (compare --opensm, campaign's opensm:NAME).
std::string unknown_opensm_engine(const std::string& name);

// The work directory of compare's OpenSM runs (OpensmRunOptions::scratch_dir): `keep` when given
// (kept, with the runs' logs and dumps), else a temporary directory ftroute-compare-<pid>, removed
// when this object goes if `used` (empty by then: every run removes its own directory).
class CompareScratch {
 public:
  CompareScratch(const std::string& keep, bool used);
  ~CompareScratch();
  CompareScratch(const CompareScratch&) = delete;
  CompareScratch& operator=(const CompareScratch&) = delete;
  void apply(OpensmRunOptions& o) const;  // scratch_dir, keep_scratch

 private:
  std::string dir_;
  bool keep_ = false, remove_ = false;
};

// The options for `engine` from "[ENGINE:]k=v[,k=v]" texts: a text with "ENGINE:" (a ':' before
// the first '=') applies to that engine only, one without to every engine. Throws OptionError.
EngineOptions engine_options_for(const std::string& engine, const std::vector<std::string>& opts);

// The options compare_engines() would run with, checked before any work: every entry of
// `engines` (NAME[k=v,..] over --opt's) and every ftroute engine in `opensm`. OptionError for an
// unknown engine (OpenSM's own named as such) or option, or a value out of range.
void check_compare_options(const CompareOptions& options);

// Every row, in the order engines, opensm, lfts. Rows of in-process engines refer to `fabric`
// (keep it alive while the rows are used). Engine refusals and OpenSM failures are rows; throws
// OptionError for an unknown engine or option, Error when ibsim/OpenSM cannot be run at all,
// Interrupted after Ctrl-C/SIGTERM during the OpenSM runs (the run under way ends first, ibsim and
// OpenSM stopped).
std::vector<EngineRow> compare_engines(const Fabric& fabric, const CompareOptions& options);

// Why a row is not a safe choice: empty when it passes every check (status ok, OpenSM used the
// engine asked for, every pair reachable, no loop, no bad LFT entry, CDG checked and acyclic).
// One short reason per failed check, e.g. "credit loop (CDG cycle on VL 0): ...".
std::vector<std::string> rejection_reasons(const EngineRow& row);

// How the best engine is chosen (the ranking above), two lines.
extern const char* const kRankingRule;

struct RankedEngine {
  std::string name;        // row name
  std::string conf_name;   // routing_engine name
  bool ftroute = false;    // an ftroute engine (runs inside OpenSM through libftroute.so)
  int vls = 1;             // VLs it needs: the most of the VLs its routes use and num_vls
  int vls_used = 1;        // VLs its routes use (the table's VLs column; fewer where a layer is empty)
  uint64_t efi_max = 0;
  bool needs_qos = false;
};

struct Recommendation {
  std::vector<RankedEngine> passed;   // best first
  std::vector<std::pair<std::string, std::vector<std::string>>> rejected;  // row name, reasons (row order)
  std::string best;                   // conf name of the best engine; "" when nothing passes
  std::vector<std::string> chain;     // routing_engine entries (at most 3)
  bool uses_plugin = false;           // an ftroute engine in the chain: event_plugin_name ftroute
  std::string plugin_options;         // event_plugin_options ("" = none needed)
  std::vector<std::string> qos_for;   // chain engines that need `qos TRUE`
  int lmc = 0;                        // `lmc N` when > 0
  std::string builtin_minhop;         // what is known of OpenSM's last resort, minhop (a comment)
  std::vector<std::string> conf;      // opensm.conf lines to paste (empty when nothing passes)
};

// `lmc`: the LMC the rows were checked with (written as `lmc N` when > 0). File rows are not
// candidates (they are no engine OpenSM can run).
Recommendation recommend(const std::vector<EngineRow>& rows, int lmc);

// The text printed after the table: the rule, the ranking, the rejected engines and why, the
// chain and the opensm.conf lines (or, when nothing passes, why each engine failed).
std::string recommendation_text(const Recommendation& rec, bool opensm_checked);

// The highest LMC of the fabric's CA ports (0 without LIDs).
int fabric_lmc(const Fabric& fabric);

}  // namespace ftroute::campaign
