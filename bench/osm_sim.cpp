#include "osm_sim.hpp"

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
  env_ = "env FTSIM_LIFETIME=" + std::to_string(4 * timeout + 600) + " FTSIM_START_TIMEOUT=600 FTSIM_IBSIM_OPTS=" +
         quote("-N " + std::to_string(nodes + 64) + " -S " + std::to_string(f.switches().size() + 16) + " -P " +
               std::to_string(ports)) +
         " bash " + quote(std::string(FTROUTE_SOURCE_DIR) + "/scripts/ftsim.sh") + " -w " + quote(dir_) + " ";
  if (std::system(("timeout -k 5 700 " + env_ + "start " + quote(dir_ + "/input.net") + " >" + quote(dir_ + "/start.out") +
                   " 2>&1").c_str()) != 0) {
    (void)std::system(("timeout -k 5 60 " + env_ + "stop >/dev/null 2>&1").c_str());
    throw Error("ibsim did not start (" + dir_ + "/start.out): " + slurp(dir_ + "/start.out"));
  }
}

Sim::~Sim() { (void)std::system(("timeout -k 5 60 " + env_ + "stop >/dev/null 2>&1").c_str()); }

std::optional<campaign::OsmRoutingStep> Sim::route(const OsmRun& run) {
  std::string cmd = "timeout -k 5 " + std::to_string(timeout_ + 60) + " " + env_ + "opensm-once --until-routed --engine " +
                    quote(run.engine) + " --timeout " + std::to_string(timeout_) + " --conf 'log_flags 0x47'";
  for (const auto& c : run.conf) cmd += " --conf " + quote(c);
  if (run.plugin)
    cmd += " --plugin ftroute --plugin-dir " + quote(FTROUTE_PLUGIN_DIR) +
           (run.plugin_options.empty() ? "" : " --plugin-options " + quote(run.plugin_options));
  const std::string out = dir_ + "/osm-" + std::to_string(++runs_) + ".out";
  int rc = std::system((cmd + " >" + quote(out) + " 2>&1").c_str());
  const std::string log = dir_ + "/opensm-" + std::to_string(runs_) + "/osm.log";
  if (rc != 0) std::printf("    (OpenSM run failed, rc %d: %s)\n", rc, slurp(out).c_str());
  auto step = campaign::opensm_routing_step(slurp(log), log);
  std::filesystem::remove(log);  // VERBOSE logs of the big tree are tens of MB
  return step;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

}  // namespace ftroute::bench
