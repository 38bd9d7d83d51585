#include "osm_sim.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"

namespace ftroute::bench {

std::string quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Sim::Sim(const Fabric& f, const std::string& dir, int timeout) : dir_(dir), timeout_(timeout) {
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  NetWriteOptions wo;
  wo.write_lids = false;
  {
    std::ofstream o(dir_ + "/input.net");
    o << write_net(f, wo);
  }
  const long nodes = static_cast<long>(f.switches().size() + f.cas().size());
  const long ports = (2L * f.num_links() + nodes) * 3 / 2 + 1000;
  // ibsim 0.10's switches report LinearFDBCap 30720, which OpenSM takes as its highest unicast
  // LID (ERR 0307 beyond it: the radix-52 tree needs 38,532 LIDs): raise it with -L
  long lids = static_cast<long>(f.switches().size());
  for (int c : f.cas())
    for (int p = 1; p <= f.node(c).num_ports; ++p) lids += f.node(c).port(p).connected();
  const std::string lin_cap = lids > 30000 ? " -L 49152" : "";
  env_ = "env FTSIM_LIFETIME=" + std::to_string(4 * timeout + 600) + " FTSIM_START_TIMEOUT=" + std::to_string(std::max(600, timeout)) + " FTSIM_IBSIM_OPTS=" +
         quote("-N " + std::to_string(nodes + 64) + " -S " + std::to_string(f.switches().size() + 16) + " -P " +
               std::to_string(ports) + lin_cap) +
         " bash " + quote(std::string(FTROUTE_SOURCE_DIR) + "/scripts/ftsim.sh") + " -w " + quote(dir_) + " ";
  // loading the radix-52 tree (38,532 nodes) takes ibsim minutes on a loaded machine
  if (std::system(("timeout -k 5 " + std::to_string(std::max(600, timeout) + 100) + " " + env_ + "start " + quote(dir_ + "/input.net") + " >" + quote(dir_ + "/start.out") +
                   " 2>&1").c_str()) != 0) {
    (void)std::system(("timeout -k 5 60 " + env_ + "stop >/dev/null 2>&1").c_str());
    throw Error("ibsim did not start (" + dir_ + "/start.out): " + slurp(dir_ + "/start.out"));
  }
}

Sim::~Sim() { (void)std::system(("timeout -k 5 60 " + env_ + "stop >/dev/null 2>&1").c_str()); }

// libftroute.so's directory: FTROUTE_PLUGIN_DIR in the environment (e.g. a copy, so that a
// rebuild during a long run does not swap the plugin between runs), else the build tree's.
std::string plugin_dir() {
  const char* e = std::getenv("FTROUTE_PLUGIN_DIR");
  return e && *e ? std::string(e) : std::string(FTROUTE_PLUGIN_DIR);
}

std::string Sim::osm_options(const OsmRun& run) const {
  std::string cmd = "--engine " + quote(run.engine) + " --timeout " + std::to_string(timeout_) + " --conf 'log_flags 0x47'";
  for (const auto& c : run.conf) cmd += " --conf " + quote(c);
  if (run.plugin)
    cmd += " --plugin ftroute --plugin-dir " + quote(plugin_dir()) +
           (run.plugin_options.empty() ? "" : " --plugin-options " + quote(run.plugin_options));
  return cmd;
}

std::optional<campaign::OsmRoutingStep> Sim::route(const OsmRun& run) {
  std::string cmd = "timeout -k 5 " + std::to_string(timeout_ + 60) + " " + env_ + "opensm-once --until-routed " + osm_options(run);
  const std::string out = dir_ + "/osm-" + std::to_string(++runs_) + ".out";
  int rc = std::system((cmd + " >" + quote(out) + " 2>&1").c_str());
  const std::string log = dir_ + "/opensm-" + std::to_string(runs_) + "/osm.log";
  if (rc != 0) std::printf("    (OpenSM run failed, rc %d: %s)\n", rc, slurp(out).c_str());
  auto step = campaign::opensm_routing_step(slurp(log), log);
  std::filesystem::remove(log);  // VERBOSE logs of the big tree are tens of MB
  return step;
}

namespace {

// "Nov 22 13:28:34 574021 [..." -> seconds since Jan 1 (differences only; a year change is
// handled by the caller). Negative when the line has no stamp.
double stamp(const std::string& line) {
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  static const int first_day[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  if (line.size() < 22) return -1;
  char mon[4] = {};
  int day = 0, h = 0, m = 0, sec = 0;
  long usec = 0;
  if (std::sscanf(line.c_str(), "%3s %d %d:%d:%d %ld", mon, &day, &h, &m, &sec, &usec) != 6) return -1;
  for (int i = 0; i < 12; ++i)
    if (std::string(mon) == months[i]) return (first_day[i] + day - 1) * 86400.0 + h * 3600.0 + m * 60.0 + sec + usec * 1e-6;
  return -1;
}

double since(double t, double t0) {
  double d = t - t0;
  return d < 0 ? d + 365 * 86400.0 : d;
}

}  // namespace

std::vector<OsmLogPass> osm_log_passes(const std::string& log_text) {
  static const std::string kBuild = "building routing with '";
  static const std::string kDone = " tables configured on all switches";
  std::vector<OsmLogPass> passes;
  double last_t = -1, master = -1, build = -1, trap = -1;
  bool trap_pass = false;  // a pass completed after the pending trap
  std::istringstream in(log_text);
  std::string line;
  while (std::getline(in, line)) {
    const double t = stamp(line);
    if (t >= 0) last_t = t;
    if (line.find("ENTERING SM MASTER STATE") != std::string::npos) {
      master = last_t;
    } else if (t >= 0 && line.find(kBuild) != std::string::npos) {
      if (build < 0) build = t;
    } else if (auto d = line.find(kDone); t >= 0 && d != std::string::npos) {
      if (build < 0) continue;
      OsmLogPass p;
      const auto sp = line.rfind(' ', d - 1);
      p.engine = line.substr(sp + 1, d - sp - 1);
      p.window = since(t, build);
      if (master >= 0) p.master_to_conf = since(t, master);
      p.trap_at = trap;
      master = build = -1;
      passes.push_back(p);
      trap_pass = trap >= 0;
    } else if (line.find("No routing engine able") != std::string::npos) {
      build = -1;
    } else if (t >= 0 && line.find("Received Generic Notice") != std::string::npos &&
               line.find("num:128 ") != std::string::npos) {
      if (trap < 0) trap = t;
    } else if (t >= 0 && line.find("-> SUBNET UP") != std::string::npos) {
      if (!passes.empty() && passes.back().up_at < 0) passes.back().up_at = t;
      if (trap >= 0 && trap_pass && !passes.empty()) passes.back().trap_to_up = since(t, trap);
      if (trap_pass || trap < 0) trap = -1;
      trap_pass = false;
    }
  }
  return passes;
}

std::string Sim::ftsim(const std::string& args, int seconds, int* rc) {
  const std::string out = dir_ + "/ftsim-" + std::to_string(++runs_) + ".out";
  const int r = std::system(("timeout -k 5 " + std::to_string(seconds) + " " + env_ + args + " >" + quote(out) + " 2>&1").c_str());
  if (rc) *rc = r;
  return slurp(out);
}

std::string Sim::current_dir() {
  const std::string d = slurp(dir_ + "/current_opensm");
  return d.substr(0, d.find('\n'));
}

std::optional<OsmMeasure> Sim::measure(const OsmRun& run) {
  int rc = 0;
  const std::string out = ftsim("opensm-once --until-routed " + osm_options(run), timeout_ + 60, &rc);
  const std::string osm_dir = current_dir();
  if (rc != 0) std::printf("    (OpenSM run failed, rc %d: %s)\n", rc, out.c_str());
  auto passes = osm_log_passes(slurp(osm_dir + "/osm.log"));
  std::filesystem::remove(osm_dir + "/osm.log");  // VERBOSE logs of the big tree are tens of MB
  if (passes.empty()) return std::nullopt;
  OsmMeasure m;
  m.pass = passes.back();
  const std::string hwm = slurp(osm_dir + "/vmhwm_kb");
  if (!hwm.empty()) m.vmhwm_kb = std::atol(hwm.c_str());
  return m;
}

std::optional<OsmMeasure> Sim::start_daemon(const OsmRun& run) {
  int rc = 0;
  const std::string out = ftsim("opensm-start " + osm_options(run), timeout_ + 60, &rc);
  if (rc != 0) {
    std::printf("    (OpenSM daemon did not come up, rc %d: %s)\n", rc, out.c_str());
    stop_daemon();
    return std::nullopt;
  }
  auto passes = osm_log_passes(slurp(current_dir() + "/osm.log"));
  if (passes.empty()) return std::nullopt;
  OsmMeasure m;
  m.pass = passes.front();
  m.vmhwm_kb = std::atol(ftsim("vmhwm", 60).c_str());
  return m;
}

std::optional<OsmMeasure> Sim::unlink_reroute(const std::string& node, int port) {
  const size_t before = osm_log_passes(slurp(current_dir() + "/osm.log")).size();
  int rc = 0;
  std::string out = ftsim("unlink " + quote(node) + " " + std::to_string(port), 60, &rc);
  if (rc != 0) {
    std::printf("    (Unlink failed, rc %d: %s)\n", rc, out.c_str());
    return std::nullopt;
  }
  out = ftsim("wait-reroute " + std::to_string(timeout_), timeout_ + 60, &rc);
  if (rc != 0) {
    std::printf("    (no re-route, rc %d: %s)\n", rc, out.c_str());
    return std::nullopt;
  }
  auto passes = osm_log_passes(slurp(current_dir() + "/osm.log"));
  if (passes.size() <= before) return std::nullopt;
  OsmMeasure m;
  m.pass = passes.back();
  // both link ends may trap (two sweeps): from the first trap to the last SUBNET UP
  if (passes[before].trap_at >= 0 && m.pass.up_at >= 0) m.pass.trap_to_up = since(m.pass.up_at, passes[before].trap_at);
  m.vmhwm_kb = std::atol(ftsim("vmhwm", 60).c_str());
  return m;
}

void Sim::relink(const std::string& node, int port) { (void)ftsim("relink " + quote(node) + " " + std::to_string(port), 60); }

std::string Sim::log_text() { return slurp(current_dir() + "/osm.log"); }

void Sim::stop_daemon() { (void)ftsim("opensm-stop", 120); }

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

}  // namespace ftroute::bench
