// OpenSM under ibsim (scripts/ftsim.sh): one routing, read back and checked (ftroute/opensm_run.hpp).
#include <sys/wait.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <unordered_map>

#include "ftroute/campaign.hpp"
#include "ftroute/campaign_compare.hpp"
#include "ftroute/error.hpp"
#include "ftroute/helpers.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/opensm_run.hpp"
#include "ftroute/registry.hpp"

namespace fs = std::filesystem;

namespace ftroute::campaign {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tail(const std::string& s, size_t n) { return s.substr(s.size() > n ? s.size() - n : 0); }

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::atomic<int> g_workdir_counter{0};

// /bin/sh -c CMD via posix_spawn (not std::system, which ignores SIGINT process-wide while it
// waits, so Ctrl-C would be lost during OpenSM runs). Returns the exit status, 128+signal.
int sh(const std::string& cmd) {
  pid_t pid;
  const std::string line = "exec " + cmd;  // every cmd starts with a program; sh gets out of the way
  const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) return -1;
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// sh() for the steps whose failure is recorded: an interrupted child stops the caller instead.
int sh_checked(const std::string& cmd) {
  int rc = sh(cmd);
  if (rc == 128 + SIGINT || rc == 128 + SIGTERM)
    throw Interrupted("interrupted (signal " + std::to_string(rc - 128) + ")");
  return rc;
}

// "src dst" port-GUID pairs for the SA: every connected CA port to every other CA port and every
// switch (the pairs validate() checks: CA sources, CA and switch destinations).
std::string path_pairs(const Fabric& f) {
  std::vector<uint64_t> src, dst;
  for (int c : f.cas())
    for (size_t p = 1; p < f.node(c).ports.size(); ++p)
      if (f.node(c).ports[p].connected()) src.push_back(f.node(c).ports[p].guid);
  dst = src;
  for (int s : f.switches()) dst.push_back(f.node(s).guid);
  std::string out;
  char b[64];
  for (uint64_t a : src)
    for (uint64_t d : dst)
      if (a != d) {
        std::snprintf(b, sizeof b, "0x%016llx 0x%016llx\n", static_cast<unsigned long long>(a), static_cast<unsigned long long>(d));
        out += b;
      }
  return out;
}

// "dfsssp: 9 VLs needed, 8 available" from the last such pair of lines in OpenSM's log (dfsssp,
// sssp with qos; "" when absent): why dfsssp fell back to minhop on a faulty fabric.
std::string dfsssp_vl_note(const std::string& log) {
  static const std::string kNeeded = "Virtual Lanes needed: ", kAvail = "Virtual Lanes available: ";
  const auto n = log.rfind(kNeeded), a = log.rfind(kAvail);
  if (n == std::string::npos) return "";
  const int needed = std::atoi(log.c_str() + n + kNeeded.size());
  std::string note = "dfsssp: " + std::to_string(needed) + " VLs needed";
  if (a != std::string::npos) note += ", " + std::to_string(std::atoi(log.c_str() + a + kAvail.size())) + " available";
  return note;
}

// How many pairs path_pairs() lists, without listing them.
long path_pair_count(const Fabric& f) {
  long ca_ports = 0;
  for (int c : f.cas())
    for (size_t p = 1; p < f.node(c).ports.size(); ++p)
      if (f.node(c).ports[p].connected()) ++ca_ports;
  return ca_ports * (ca_ports - 1 + static_cast<long>(f.switches().size()));
}

// The executable `name` on $PATH, /usr/sbin or /sbin (where ftsim.sh looks), or "".
std::string find_program(const std::string& name) {
  const char* p = std::getenv("PATH");
  std::string path = std::string(p ? p : "") + ":/usr/sbin:/sbin";
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::error_code ec;
    const fs::path f = fs::path(dir) / name;
    if (fs::is_regular_file(f, ec) && access(f.c_str(), X_OK) == 0) return f.string();
  }
  return "";
}

}  // namespace

const std::vector<std::string>& opensm_engine_names() {
  static const std::vector<std::string> names = {"minhop", "updn", "dnup", "ftree", "lash", "dor",
                                                 "torus-2QoS", "nue", "dfsssp", "sssp"};
  return names;
}

bool opensm_wants_qos(const std::string& e) {
  return e == "dfsssp" || e == "lash" || e == "nue" || e == "sssp" || e == "torus-2QoS";
}
bool opensm_uses_path_sls(const std::string& e) { return e == "dfsssp" || e == "lash" || e == "nue" || e == "torus-2QoS"; }

std::string opensm_sim_missing(const std::string& ftsim_script) {
  const std::string script = ftsim_script.empty() ? locate_ftsim_script() : ftsim_script;
  if (script.empty())
    return "scripts/ftsim.sh not found next to the ftroute binary (libexec/ftroute/ftsim.sh); set FTROUTE_FTSIM";
  std::error_code ec;
  if (!fs::is_regular_file(script, ec) || access(script.c_str(), R_OK) != 0)
    return "cannot read the ibsim/OpenSM script '" + script + "' (FTROUTE_FTSIM or --ftsim)";
  static const std::pair<const char*, const char*> programs[] = {
      {"bash", "bash"}, {"timeout", "coreutils"}, {"ibsim", "ibsim-utils"}, {"opensm", "opensm"}};
  for (const auto& [prog, pkg] : programs)
    if (find_program(prog).empty()) return std::string("'") + prog + "' not found (package " + pkg + ")";
  // the list of scripts/ftsim.sh
  for (const char* um : {"/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so", "/usr/lib/aarch64-linux-gnu/umad2sim/libumad2sim.so",
                         "/usr/lib/umad2sim/libumad2sim.so", "/usr/lib64/umad2sim/libumad2sim.so"})
    if (fs::exists(um, ec)) return "";
  return "libumad2sim.so not found (package libumad2sim0)";
}

OpensmResult run_opensm_engine(const Fabric& fabric, const std::string& engine, const OpensmRunOptions& o) {
  OpensmResult out;
  const std::string script = o.ftsim_script.empty() ? locate_ftsim_script() : o.ftsim_script;
  if (script.empty())
    throw Error("scripts/ftsim.sh not found next to the ftroute binary (libexec/ftroute/ftsim.sh); "
                "set FTROUTE_FTSIM or pass --ftsim PATH");
  const std::string pathsl = o.pathsl_tool.empty() ? locate_pathsl_tool() : o.pathsl_tool;
  fs::create_directories(o.scratch_dir.empty() ? "." : o.scratch_dir);
  const std::string w = fs::absolute(o.scratch_dir.empty() ? "." : o.scratch_dir).string() + "/run-" +
                        std::to_string(getpid()) + "-" + std::to_string(g_workdir_counter++);
  struct Remove {  // the work directory goes away however the run ends (unless kept)
    std::string path;
    bool keep;
    ~Remove() {
      std::error_code ec;
      if (!keep) fs::remove_all(path, ec);
    }
  } remove_workdir{w, o.keep_scratch};
  fs::remove_all(w);
  fs::create_directories(w);
  NetWriteOptions wo;
  wo.write_lids = false;  // OpenSM assigns the LIDs; the dump's portguids give them back
  wo.ibsim_descriptions = true;  // a '"' in a NodeDescription would end ibsim's header line
  wo.comment = o.comment;
  {
    std::ofstream f(w + "/input.net");
    f << write_net(fabric, wo);
  }
  // Engines with per-path SLs run as a daemon with libftroute.so loaded for its path-SL dump
  // (plugin option path_sl_dump: at SUBNET UP the plugin asks OpenSM's own SA code for every
  // pair's SL and writes them to a file, a second or so for millions of pairs); only when no dump
  // appears (no plugin, or one refused by a foreign OpenSM) is the SA asked over the wire
  // afterwards (`opensm -o` exits after its sweep, hence the daemon). The others run once.
  const long sl_pairs = opensm_uses_path_sls(engine) ? path_pair_count(fabric) : 0;
  const bool over_limit = o.max_path_sl_pairs > 0 && sl_pairs > o.max_path_sl_pairs;
  const bool daemon = opensm_uses_path_sls(engine) && !over_limit;
  const std::string sl_dump = daemon ? w + "/path_sl.txt" : "";
  // Waiting for the dump: at most 30 s plus 50 us per pair (it takes about 1-2 us per pair).
  const long dump_wait = daemon ? 30 + sl_pairs / 20000 : 0;
  // Over the wire: one PathRecord per pair, answered one at a time through ibsim: 200-12,000 per
  // second on the shared 2-core box, slower the more runs share it. Allowed: the OpenSM timeout
  // plus 1 s per 100 pairs (82,225 pairs of the 5x5 torus; 4.9 M of the 7x7x7 torus; 6.3 M of a
  // 2,328-CA director dump, which once lost 3.4 M answers when ibsim's lifetime below ran out mid-query).
  const long sl_timeout = daemon ? dump_wait + (pathsl.empty() ? 0 : o.timeout + sl_pairs / 100) : 0;
  // FTSIM_LIFETIME bounds ibsim/holder (they run under timeout(1)): if this process is killed
  // before it can stop them, they still go away shortly after the run would have ended, the
  // path SL query included.
  const std::string base = "env FTSIM_LIFETIME=" + std::to_string(o.timeout + 180 + (daemon ? sl_timeout + 60 : 0)) +
                           " bash " + shell_quote(script) +
                           " -w " + shell_quote(w) + " ";
  const std::string to = std::to_string(o.timeout);
  struct Stopper {  // stop ibsim/OpenSM/holder by the PIDs ftsim.sh recorded, whatever happens
    std::string cmd;
    bool done = false;
    void stop() {
      if (!done) sh(cmd);
      done = true;
    }
    ~Stopper() { stop(); }
  } stopper{"timeout -k 5 60 " + base + "stop >/dev/null 2>&1"};
  if (sh_checked("timeout -k 5 120 " + base + "start " + shell_quote(w + "/input.net") + " >" + shell_quote(w + "/start.out") + " 2>&1") != 0)
    throw Error("ibsim did not start: " + tail(slurp(w + "/start.out"), 200));
  // log_flags 0x47 = 0x43 + VERBOSE: the "building routing with" line that starts the routing step.
  std::string osm = std::string(daemon ? "opensm-start" : "opensm-once") + " --engine " + shell_quote(engine) +
                    " --timeout " + to + " --conf 'log_flags 0x47'";
  out.needs_qos = opensm_wants_qos(engine);
  if (out.needs_qos) osm += " --conf 'qos TRUE'";
  if (o.lmc > 0) osm += " --conf " + shell_quote("lmc " + std::to_string(o.lmc));
  if (find_engine(engine) || !sl_dump.empty()) {  // an ftroute engine inside OpenSM, or the path-SL dump
    osm += " --plugin ftroute";
    // next to the binary (build tree or install prefix), else the system library path
    if (std::string pd = locate_plugin_dir(); !pd.empty()) osm += " --plugin-dir " + shell_quote(pd);
    std::string po = find_engine(engine) ? o.plugin_options : "";
    if (!sl_dump.empty()) po += (po.empty() ? "" : " ") + std::string("path_sl_dump=") + sl_dump;
    if (!po.empty()) osm += " --plugin-options " + shell_quote(po);
  }
  if (engine == "torus-2QoS") {
    std::string conf = torus2qos_conf(fabric, o.gen_spec);
    if (!conf.empty()) {
      std::ofstream(w + "/torus-2QoS.conf") << conf;
      osm += " --conf " + shell_quote("torus_config " + w + "/torus-2QoS.conf");
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  int rc = sh_checked("timeout -k 5 " + std::to_string(o.timeout + 30) + " " + base + osm + " >" +
                      shell_quote(w + "/osm.out") + " 2>" + shell_quote(w + "/osm.err"));
  out.route_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string used = slurp(w + "/osm.out");
  while (!used.empty() && (used.back() == '\n' || used.back() == ' ')) used.pop_back();
  if (auto nl = used.rfind('\n'); nl != std::string::npos) used = used.substr(nl + 1);
  out.engine_used = used.empty() ? "none" : used;
  out.fallback = used != engine;
  // Path SLs: the plugin's dump (written right after SUBNET UP), else from the SA while the
  // daemon still runs (one PathRecord per validated pair).
  std::string sl_text;
  int sl_rc = -1;
  bool from_dump = false;
  if (rc == 0 && daemon && opensm_uses_path_sls(out.engine_used)) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(dump_wait);
    const std::string osm_log = w + "/opensm-1/osm.log";
    // the plugin logs that it is loaded at start-up: no such line, no dump to wait for
    const bool plugin_loaded = slurp(osm_log).find("ftroute: plugin loaded") != std::string::npos;
    // (a failed dump is an ERR FT05 line: stop waiting; the log is read once a second)
    for (int i = 1; plugin_loaded && !fs::exists(sl_dump) && std::chrono::steady_clock::now() < until; i++) {
      if (i % 10 == 0 && slurp(osm_log).find("ERR FT05") != std::string::npos) break;
      usleep(100000);
    }
    from_dump = fs::exists(sl_dump);
  }
  if (rc == 0 && daemon && !from_dump && !pathsl.empty() && opensm_uses_path_sls(out.engine_used)) {
    const std::string pairs = path_pairs(fabric);
    std::ofstream(w + "/pairs.txt") << pairs;
    // ftsim.sh stops a tool after FTSIM_TOOL_TIMEOUT (60 s by default), which cut the query short
    // on loaded or large fabrics: sl_timeout above.
    sl_rc = sh_checked("timeout -k 5 " + std::to_string(sl_timeout + 30) + " env FTSIM_TOOL_TIMEOUT=" +
                       std::to_string(sl_timeout) + " " + base + "tool " + shell_quote(pathsl) + " <" +
                       shell_quote(w + "/pairs.txt") + " >" + shell_quote(w + "/pathsl.out") + " 2>" +
                       shell_quote(w + "/pathsl.err"));
    sl_text = slurp(w + "/pathsl.out");
  }
  stopper.stop();  // the dump files are all we need from here on
  // Routing step alone (issue 4) instead of the whole `opensm -o`, when the log shows it.
  const std::string log = slurp(w + "/opensm-1/osm.log");
  const std::string vl_note = dfsssp_vl_note(log);
  auto add_vl_note = [&] {  // dfsssp's VL demand goes to the message however the run ends
    if (!vl_note.empty()) out.message += (out.message.empty() ? "" : "; ") + vl_note;
  };
  try {
    if (auto step = opensm_routing_step(log, w + "/opensm-1/osm.log")) out.route_seconds = step->seconds;
  } catch (const ParseError& e) {
    out.message = std::string("routing time = whole opensm run (") + e.what() + ")";
  }
  if (rc != 0) {
    out.status = "failed";
    out.message = "OpenSM: " + tail(slurp(w + "/osm.err"), 200);
    add_vl_note();
    return out;
  }
  const std::string dump = w + "/opensm-1/dump";
  for (int i = 0; i < 50 && !fs::exists(dump + "/opensm-lfts.dump"); ++i) usleep(100000);  // daemon: written at the end of the sweep
  // With the SL2VL dump, load_routing also sets num_vls (highest VL + 1): flitsim sizes its VCs by
  // it and would drop every packet on a higher VL.
  const std::string sl2vl = dump + "/opensm-sl2vl.dump";
  out.loaded = load_routing(w + "/input.net", dump + "/opensm-lfts.dump", LftFormat::Auto, "",
                            fs::exists(sl2vl) ? sl2vl : "", true, static_cast<uint8_t>(std::max(0, o.lmc)));
  LoadedRouting& lr = *out.loaded;
  lr.routing.engine = "opensm:" + out.engine_used;
  out.report = validate(lr.fabric, lr.routing, o.validate);
  if (opensm_uses_path_sls(out.engine_used)) {
    // OpenSM dumps no per-path SLs; they come from libftroute.so's dump of what OpenSM's SA code
    // answers, or from the SA itself over the wire (ftroute-pathsl above). Without
    // all of them the CDG would be built on SL 0, which is not the routing OpenSM programmed:
    // the check is then reported as not done rather than a false cycle.
    size_t missing = 0;
    std::unordered_map<uint32_t, uint8_t> sls;
    std::function<uint8_t(Lid, Lid)> dumped;
    std::string dump_note;
    if (from_dump) {
      const std::string text = slurp(sl_dump);
      const PathSlDumpEnd end = path_sl_dump_end(text);
      if (!end.found) {
        dump_note = "the plugin's path-SL dump has no end line";
      } else if (end.missing > 0) {
        missing = static_cast<size_t>(end.missing);
      } else {
        uint16_t used = 0;
        dumped = parse_path_sl(text, sl_dump, lr.fabric, &used);
        int max_sl = 0;
        for (int sl = 0; sl < 16; sl++)
          if (used >> sl & 1) max_sl = sl;
        dump_note = "path SLs from OpenSM's SA code (plugin dump): " + std::to_string(end.pairs) + " pairs; SL 0.." +
                    std::to_string(max_sl);
      }
    } else if (sl_rc == 0) {
      sls = parse_pathsl_output(sl_text, &missing);
    }
    if (dumped) {
      out.message = dump_note;
      lr.routing.path_sl = std::move(dumped);
      out.report = validate(lr.fabric, lr.routing, o.validate);  // CDG over (link, VL) with the SA's SLs and OpenSM's SL2VL
    } else if (!dump_note.empty() || (!from_dump && sl_rc != 0) || missing > 0) {
      out.report.deadlock_checked = false;
      out.report.cdg_acyclic = true;
      out.report.cycle.clear();
      out.report.cycle_text.clear();
      if (over_limit)
        out.message = "path SLs not read: " + std::to_string(sl_pairs) + " pairs exceed the limit of " +
                      std::to_string(o.max_path_sl_pairs) + " (--path-sl-limit); CDG not checked";
      else if (!dump_note.empty()) out.message = dump_note + "; CDG not checked";
      else if (from_dump) out.message = std::to_string(missing) + " pairs without path parameters in OpenSM's SA; CDG not checked";
      else if (pathsl.empty())
        out.message = "no path-SL dump from libftroute.so and ftroute-pathsl not built: path SLs unknown; CDG not checked";
      else if (sl_rc != 0) out.message = "path SL query failed (" + slurp(w + "/pathsl.err").substr(0, 200) + "); CDG not checked";
      else out.message = std::to_string(missing) + " path records missing from the SA; CDG not checked";
    } else {
      int max_sl = 0;
      for (const auto& [k, sl] : sls) max_sl = std::max(max_sl, static_cast<int>(sl));
      out.message = "path SLs from the SA: " + std::to_string(sls.size()) + " paths; SL 0.." + std::to_string(max_sl);
      lr.routing.path_sl = [sls = std::move(sls)](Lid s, Lid d) -> uint8_t {
        auto it = sls.find((static_cast<uint32_t>(s) << 16) | d);
        return it == sls.end() ? 0 : it->second;
      };
      out.report = validate(lr.fabric, lr.routing, o.validate);  // CDG over (link, VL) with the SA's SLs and OpenSM's SL2VL
    }
  }
  add_vl_note();
  return out;
}

}  // namespace ftroute::campaign
