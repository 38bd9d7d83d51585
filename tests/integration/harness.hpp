// Integration-test harness: drives a real ibsim simulator and a real OpenSM 3.3.23 from C++.
//
//   ftroute::itest::SimFabric sim("minhop_ring");            // scratch dir + unique IBSIM_SOCKNAME
//   sim.start(netfile);                                       // ibsim -s <net>, console on a FIFO
//   auto run = sim.run_opensm_once({.engines = {"minhop"}});  // opensm -o, log flags 0x43
//   ASSERT_TRUE(run.subnet_up); EXPECT_EQ(run.engine_used, "minhop");
//   std::string fts = sim.dump_fts();                         // LFTs read back from the sim switches
//   sim.start_opensm_daemon(cfg);  sim.unlink("S0", 3);  ASSERT_TRUE(sim.wait_for_reroute());
//   // destructor (or stop()) ends OpenSM, ibsim and the FIFO holder by PID.
//
// Guarantees:
//  * every child runs under timeout(1) (own process group) and gets PR_SET_PDEATHSIG, so nothing
//    survives the test binary, even when ctest kills it on TIMEOUT;
//  * each SimFabric has its own IBSIM_SOCKNAME (abstract unix socket, machine-wide namespace):
//    "ftr<pid>_<n>_<name>" truncated;
//  * each SimFabric works in its own scratch dir <build>/itest-scratch/<name> (or
//    $FTROUTE_SCRATCH/<name>), recreated on start; umad2sim's sys-<pid> dirs land there;
//  * the ibsim console FIFO (<scratch>/ibsim.in) is held open by the harness process itself, so
//    ibsim never sees EOF (EOF makes ibsim spin at 100% CPU); shell users may also write to it.
//
// Each opensm run gets <scratch>/opensm-<n>/ with opensm.conf, osm.log, opensm.out, cache/ and
// dump/ (opensm-lfts.dump, opensm.fdbs, opensm-subnet.lst, ... because log_flags is 0x43).
#pragma once

#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ftroute::itest {

class HarnessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using EnvVars = std::vector<std::pair<std::string, std::string>>;

// A finished process.
struct ProcResult {
  int exit_code = -1;      // exit status; 124 = killed by timeout(1); 128+N = killed by signal N
  bool timed_out = false;  // the timeout expired
  std::string out;         // stdout
  std::string err;         // stderr
  bool ok() const { return exit_code == 0 && !timed_out; }
};

// Runs argv (PATH lookup, /usr/sbin added) under `timeout -k 3 <timeout_s>` in cwd with extra
// environment variables; never blocks longer than timeout_s + 5 s.
ProcResult run_process(const std::vector<std::string>& argv, const EnvVars& env,
                       const std::string& cwd, double timeout_s);

// Paths from the build (compile definitions), overridable by $FTROUTE_SOURCE_DIR/$FTROUTE_BINARY_DIR.
std::string source_dir();
std::string binary_dir();
// <build>/itest-scratch/NAME, emptied and created: a test's own files beside its SimFabric.
std::string fresh_scratch_dir(const std::string& name);
std::string umad2sim_lib();  // /usr/lib/<triplet>/umad2sim/libumad2sim.so
// The opensm the tests run: $FTROUTE_OPENSM, else the build's (OPENSM_PREFIX/sbin/opensm with
// -DOPENSM_PREFIX, cmake/ftroute_opensm.cmake), else "opensm" from PATH.
std::string opensm_program();
// Empty when ibsim, opensm, dump_fts, ibnetdiscover, timeout and libumad2sim are all present;
// otherwise a message naming what is missing (tests GTEST_SKIP() with it).
std::string missing_tools();
bool have_program(const std::string& name);

// ---- OpenSM configuration -------------------------------------------------------------
struct OpensmConfig {
  std::vector<std::string> engines = {"minhop"};  // routing_engine (comma-joined), e.g.
                                                  // {"ftree_misroute", "no_fallback"}
  std::vector<std::string> extra_conf;             // raw lines appended to opensm.conf
  std::string plugin_dir;            // prepended to LD_LIBRARY_PATH, e.g. <build>/plugin
  std::string event_plugin_name;     // e.g. "ftroute" => OpenSM dlopens libftroute.so
  std::string event_plugin_options;  // one string, passed to every plugin
  std::string lfts_file;             // lfts_file (for the "file" engine, like -U)
  std::string sim_host;              // SIM_HOST for OpenSM (node id); empty = SimFabric default
  int sweep_interval = 0;            // seconds; 0 = no periodic sweeps (traps still trigger
                                     // heavy sweeps; see wait_for_reroute for the fallback)
  double timeout_s = 60;             // run_opensm_once: whole run; daemon: until first SUBNET UP
  std::string opensm;                // the opensm binary; empty = opensm_program()
};

struct OpensmRun {
  ProcResult proc;           // exit status of `opensm -o` (124 = timeout, e.g. no_fallback failure)
  bool subnet_up = false;    // "SUBNET UP" in the log
  std::string engine_used;   // last "<name> tables configured on all switches", "" if none
  std::string log;           // the OpenSM log
  std::string dir;           // <scratch>/opensm-<n>
  std::string dump_dir;      // <dir>/dump
};

// Last "<name> tables configured on all switches" in an OpenSM log ("" if none).
std::string engine_from_log(const std::string& log);
// Number of non-overlapping occurrences of needle in text.
int count_occurrences(const std::string& text, const std::string& needle);

// ---- the simulated fabric ------------------------------------------------------------------
class SimFabric {
 public:
  // name: a short test name ([A-Za-z0-9_-]); it names the scratch dir and the socket.
  explicit SimFabric(std::string name);
  ~SimFabric();  // stop()
  SimFabric(const SimFabric&) = delete;
  SimFabric& operator=(const SimFabric&) = delete;

  // Starts ibsim on a .net file (copied into the scratch dir as fabric.net) and waits for its
  // "sim>" prompt. Throws HarnessError (with ibsim's output) if it does not come up.
  void start(const std::string& netfile, double timeout_s = 20);
  // Same, from .net text.
  void start_text(const std::string& net_text, double timeout_s = 20);
  bool running() const { return ibsim_pid_ > 0; }

  // Node id the tools (dump_fts, ibnetdiscover, OpenSM unless OpensmConfig::sim_host) attach to;
  // empty = ibsim's default (first node of the .net file).
  void set_sim_host(std::string node) { sim_host_ = std::move(node); }

  // `opensm -o` once; returns when it exits or times out (then it is killed).
  OpensmRun run_opensm_once(const OpensmConfig& cfg);
  // OpenSM as a background daemon (-d 2: log flushed per line). Waits for the first SUBNET UP;
  // throws HarnessError with the log tail if none arrives within cfg.timeout_s.
  // Returns the run dir. Any previous daemon is stopped first.
  std::string start_opensm_daemon(const OpensmConfig& cfg);
  void stop_opensm();  // SIGTERM, then SIGKILL after 5 s; no-op if not running
  bool opensm_running();
  pid_t opensm_pid() const { return opensm_pid_; }
  // SIGHUP to the daemon: forces a heavy sweep + re-route (marks first, like unlink()).
  void opensm_sighup();

  // Writes one console line to ibsim and returns the output it produced (waits until the
  // next "sim>" prompt or wait_s).
  std::string console(const std::string& cmd, double wait_s = 2.0);
  // `Unlink "node"[port]` / `ReLink "node"[port]`; both call mark_reroute() first.
  std::string unlink(const std::string& node, int port);
  std::string relink(const std::string& node, int port);
  // Remembers how many SUBNET UPs the daemon's log has; wait_for_reroute waits for more.
  void mark_reroute();
  // Waits until the daemon logged a new SUBNET UP after the mark and its log then stayed quiet
  // for settle_s (traps from both link ends may cause two sweeps). If nothing happens within
  // half the timeout it sends SIGHUP once (a trap can be lost when its own path was cut).
  // Returns false on timeout. Re-marks on success.
  bool wait_for_reroute(double timeout_s = 30, double settle_s = 0.5);

  // Diagnostics against the simulator (LD_PRELOAD=libumad2sim.so, same socket); throw
  // HarnessError with stderr when the tool fails.
  // dump_fts() is dump_fts's output completed with the entry dump_fts never reads: when a
  // switch's LinearFDBTop is a multiple of 64, infiniband-diags skips the LFT block holding LID
  // top (ftroute::dump_fts_unread_lid, docs/HARNESS.md); that block is read with
  // `smpdump -D <dr path> 0x19 <block>` and the entry added as
  // "0x0040 003 : (read with smpdump: dump_fts skips LID LinearFDBTop)". dump_fts_raw() is the
  // tool's output unchanged.
  std::string dump_fts(double timeout_s = 60);
  std::string dump_fts_raw(double timeout_s = 60);
  std::string ibnetdiscover(double timeout_s = 60);
  // Any libibumad tool, e.g. {"ibroute", "2"}; does not throw.
  ProcResult run_tool(const std::vector<std::string>& argv, double timeout_s = 60);

  // Latest OpenSM run (daemon or once).
  std::string opensm_log() const;
  std::string engine_used() const { return engine_from_log(opensm_log()); }
  int subnet_up_count() const { return count_occurrences(opensm_log(), "SUBNET UP"); }
  std::string opensm_dir() const { return osm_dir_; }
  std::string dump_dir() const { return osm_dir_.empty() ? std::string() : osm_dir_ + "/dump"; }

  std::string ibsim_output() const;  // everything ibsim printed so far
  const std::string& scratch() const { return scratch_; }
  const std::string& sockname() const { return sock_; }
  std::string netfile() const { return scratch_ + "/fabric.net"; }

  // Stops OpenSM, ibsim and the FIFO holder (by PID). Idempotent.
  void stop();

 private:
  std::string prepare_opensm_run(const OpensmConfig& cfg, std::vector<std::string>& argv,
                                 EnvVars& env, bool daemon);
  EnvVars tool_env(const std::string& host) const;

  std::string name_;
  std::string scratch_;
  std::string sock_;
  std::string sim_host_;
  pid_t ibsim_pid_ = -1;
  int fifo_fd_ = -1;  // the FIFO holder: write end kept open by this process
  pid_t opensm_pid_ = -1;
  std::string osm_dir_;
  int osm_runs_ = 0;
  int reroute_mark_ = 0;
};

// ---- ibdmchk (ibutils) cross-check ----------------------------------------------------------
struct IbdmchkResult {
  ProcResult proc;
  bool ran = false;           // produced its credit-loop verdict
  bool credit_loops = false;  // reported credit loops (deadlock potential)
  std::string text;           // stdout + stderr
};
// Runs `ibdmchk -s opensm-subnet.lst -f opensm.fdbs [-m opensm.mcfdbs]` on an OpenSM dump dir
// (log_flags 0x43). ibdmchk 1.5.7 may segfault while exiting after printing its verdict; the
// verdict is what counts. ran == false when the verdict line is missing.
IbdmchkResult run_ibdmchk(const std::string& dump_dir, const std::string& cwd,
                          double timeout_s = 120);

// ---- small file helpers -------------------------------------------------------------------
std::string read_file(const std::string& path);  // "" if missing
void write_file(const std::string& path, const std::string& text);

}  // namespace ftroute::itest
