// One routing of a fabric by a real OpenSM under ibsim, read back and checked: the one way ftroute
// runs OpenSM's engines, shared by `ftroute campaign` (engines "opensm:<x>") and `ftroute compare
// --opensm`.
//
// The fabric is written to a work directory (without LIDs: OpenSM assigns them), ibsim is started
// on it through scripts/ftsim.sh (unique IBSIM_SOCKNAME, console FIFO, everything under timeout,
// stopped by PID), OpenSM runs one sweep with `routing_engine <engine>`, and its
// dump/opensm-lfts.dump is mapped back onto the fabric by port GUID. The engine OpenSM really used
// is read from "<x> tables configured" in its log, so a silent fallback to minhop is visible.
// dfsssp, sssp, lash, nue and torus-2QoS get `qos TRUE` (like opensm -Q) so they may use SLs/VLs;
// the SL2VL tables are read from opensm-sl2vl.dump. OpenSM does not dump its per-path SLs, so for
// dfsssp, lash, nue and torus-2QoS OpenSM runs as a daemon and the SA is asked for the PathRecord
// of every validated pair (ftroute-pathsl, campaign/pathsl/); the CDG is then checked per VL with
// those SLs. If that is impossible the report says deadlock_checked = false. An ftroute engine
// name runs that engine inside OpenSM through libftroute.so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/validate.hpp"

namespace ftroute::campaign {

struct OpensmRunOptions {
  int timeout = 120;             // seconds for OpenSM's sweep (ibsim's start and the SA query get more)
  std::string ftsim_script;      // "" = locate_ftsim_script() (next to the binary, $FTROUTE_FTSIM)
  std::string pathsl_tool;       // "" = locate_pathsl_tool() ("" there too: SL engines unchecked)
  long max_path_sl_pairs = 0;    // > 0: above this many pairs the SA is not asked (one PathRecord per
                                 // pair, ~0.3-5 ms each under ibsim): the CDG is then not checked
  std::string scratch_dir = ".";  // the work directory run-<pid>-<n> is made in
  bool keep_scratch = false;     // keep the work directory (ibsim/OpenSM logs, dumps)
  std::string gen_spec;          // generator spec of the fabric ("" for files): torus-2QoS.conf
  int lmc = 0;                   // `lmc N` in opensm.conf (0: not written)
  std::string plugin_options;    // event_plugin_options for an ftroute engine inside OpenSM
  std::string comment;           // first line of the work directory's input.net
  ValidateOptions validate;      // how the result is checked
};

struct OpensmResult {
  std::string status = "ok";     // ok | failed (OpenSM brought no subnet up)
  std::string engine_used;       // from "<x> tables configured"; "none" if there is none
  bool fallback = false;         // engine_used differs from the engine asked for
  bool needs_qos = false;        // the run had `qos TRUE` (opensm_wants_qos)
  double route_seconds = 0;      // OpenSM's routing step from its log, else wall s of the sweep
  std::string message;           // why it failed / how the SLs were read / timing notes
  std::optional<LoadedRouting> loaded;  // status ok: the fabric with OpenSM's LIDs + its routing
  ValidationReport report;       // status ok: the checks of `loaded`
};

// Runs `engine` (an OpenSM engine name, or an ftroute engine through the plugin) on `fabric`.
// OpenSM's own failures go to status/message; throws Error when ibsim or the helpers cannot be
// started at all, Interrupted when a child died of SIGINT/SIGTERM.
OpensmResult run_opensm_engine(const Fabric& fabric, const std::string& engine, const OpensmRunOptions& options);

// "" when ibsim + OpenSM can be run (ftsim.sh, bash, timeout, ibsim, opensm, libumad2sim.so);
// otherwise one sentence naming what is missing and the package that has it. Looks where
// ftsim.sh does: $PATH, then /usr/sbin and /sbin. ftsim_script "" = locate_ftsim_script().
std::string opensm_sim_missing(const std::string& ftsim_script = "");

// OpenSM's own routing engines (3.3.23) in the order of its man page; "file" (it needs an LFT
// file) is not among them.
const std::vector<std::string>& opensm_engine_names();
// Engines run with `qos TRUE`, and those of them whose deadlock freedom rests on per-path SLs
// (sssp computes the same paths without the VL layering, so it gets SL 0).
bool opensm_wants_qos(const std::string& engine);
bool opensm_uses_path_sls(const std::string& engine);

}  // namespace ftroute::campaign
