// One campaign run: faults, routing (in-process or OpenSM under ibsim), validation, flitsim.
#include <sys/stat.h>
#include <sys/wait.h>
#include <spawn.h>
#include <cerrno>
#include <unistd.h>

#include <csignal>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <random>
#include <unordered_map>

#include "ftroute/campaign.hpp"
#include "ftroute/campaign_compare.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/error.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/helpers.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/validate.hpp"

namespace fs = std::filesystem;

namespace ftroute::campaign {
namespace {

int to_int(const std::string& s, const std::string& what) {
  try {
    size_t pos = 0;
    int v = std::stoi(s, &pos);
    if (pos != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw OptionError("bad number '" + s + "' in " + what);
  }
}

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// For the CSV message column (csv_row quotes it, RFC 4180): at most 300 bytes, control characters
// other than line breaks and tabs as \xNN (OpenSM's stderr, names from the fabric).
std::string clean(const std::string& s) {
  std::string r;
  for (char c : s.size() > 300 ? s.substr(0, 300) : s)
    r += c == '\n' || c == '\t' ? std::string(1, c) : escape_name(std::string_view(&c, 1));
  return s.size() > 300 ? r + "..." : r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// flitsim pattern for a campaign pattern name. "shift-exchange" is the paper's whole pattern (B.8,
// a trace, see simulate()); "shift" and "exchange" are one representative permutation each, under
// steady injection: "shift" = tornado over the endpoint index (i -> i + ceil(N/2) - 1),
// "exchange" = complement (i -> N-1-i, every pair crosses the bisection). Other names go to
// flitsim unchanged.
std::string flitsim_pattern(const std::string& p) {
  if (p == "shift") return "tornado";
  if (p == "exchange") return "complement";
  return p;
}

std::atomic<int> g_trace_counter{0};

void simulate(const Config& cfg, const Fabric& f, const Routing& r, RunResult& out) {
  flitsim::Config sc;
  sc.seed = static_cast<uint64_t>(out.key.seed);
  flitsim::TrafficSpec t;
  t.pattern = flitsim_pattern(cfg.pattern);
  t.load = cfg.sim_load;
  t.warmup = cfg.sim_warmup;
  t.measure = cfg.sim_measure;
  t.max_drain = 4 * cfg.sim_measure;
  t.flush = false;
  std::string trace;
  if (cfg.pattern == "shift-exchange") {
    // Finite pattern: runs until every packet is delivered; accepted = delivered flits /
    // (endpoints x cycles) = Eq. 7's N(N-1)·msg/runtime per endpoint, in flits/endpoint/cycle.
    const int n = static_cast<int>(flitsim::endpoints_of(f).size());
    trace = fs::temp_directory_path().string() + "/ftroute-shiftx-" + std::to_string(getpid()) + "-" +
            std::to_string(g_trace_counter++) + ".trace";
    std::ofstream(trace) << shift_exchange_trace(
        n, cfg.sim_msg_packets,
        cfg.shift_order_random ? random_endpoint_order(n, static_cast<uint64_t>(out.key.seed)) : std::vector<int>{});
    t.pattern = "trace";
    t.trace_file = trace;
    t.warmup = 0;
    t.measure = 1;
    t.max_drain = int64_t{200} * n * cfg.sim_msg_packets * sc.packet_flits + 100000;  // far above the runtime
  }
  struct Remove {
    std::string path;
    ~Remove() {
      if (!path.empty()) fs::remove(path);
    }
  } remove_trace{trace};
  flitsim::Simulator sim(f, r, sc);
  flitsim::Result res = sim.run(t);
  out.simulated = true;
  out.sim_offered = res.offered;
  out.sim_accepted = res.accepted;
  out.sim_latency = res.avg_latency;
  out.sim_dropped = res.dropped;
  out.sim_deadlock = res.deadlock.detected;
  if (!trace.empty()) {  // flitsim's window is [0, 1) for this trace: count the whole run instead
    const double denom = static_cast<double>(std::max(1, res.endpoints)) * static_cast<double>(std::max<int64_t>(1, res.cycles));
    out.sim_accepted = static_cast<double>(res.delivered) * sc.packet_flits / denom;
  }
  if (!trace.empty() && !res.deadlock.detected && res.delivered + res.dropped < res.generated)
    out.message += (out.message.empty() ? "" : "; ") + std::string("shift-exchange did not finish within the cycle limit");
}

void fill_validation(const ValidationReport& v, RunResult& out) {
  out.pairs = v.pairs;
  out.unreachable = v.unreachable;
  out.looping = v.looping;
  out.bad_entries = v.bad_entries;
  out.deadlock_checked = v.deadlock_checked;
  out.cdg_acyclic = v.cdg_acyclic;
  out.vls_used = static_cast<int>(v.vls_used.size());
  out.efi_max = v.efi_max;
  out.efi_avg = v.efi_avg;
  out.hops_avg = v.hops_avg;
  out.hops_max = v.hops_max;
}

// ---------------- OpenSM through ibsim (scripts/ftsim.sh) ----------------

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

// sh() for the steps whose failure is recorded: an interrupted child stops the campaign instead.
int sh_checked(const std::string& cmd) {
  int rc = sh(cmd);
  if (rc == 128 + SIGINT || rc == 128 + SIGTERM)
    throw Interrupted("interrupted (signal " + std::to_string(rc - 128) + ")");
  return rc;
}

// Engines that get `qos TRUE` (opensm -Q), and those of them whose deadlock freedom rests on
// per-path SLs (sssp computes the same paths without the VL layering, so it gets SL 0).
bool wants_qos(const std::string& e) { return e == "dfsssp" || e == "lash" || e == "nue" || e == "sssp" || e == "torus-2QoS"; }
bool uses_path_sls(const std::string& e) { return e == "dfsssp" || e == "lash" || e == "nue" || e == "torus-2QoS"; }

std::string pathsl_tool(const Config& cfg) {
  if (!cfg.pathsl_tool.empty()) return cfg.pathsl_tool;
  return locate_pathsl_tool();  // next to the binary or $FTROUTE_PATHSL ("" = SL engines unchecked)
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

void run_opensm(const Config& cfg, const Fabric& faulty, const std::string& gen_spec, const std::string& engine,
                RunResult& out) {
  std::string script = cfg.ftsim_script.empty() ? locate_ftsim_script() : cfg.ftsim_script;
  if (script.empty())
    throw Error("scripts/ftsim.sh not found next to the ftroute binary (libexec/ftroute/ftsim.sh); "
                "set FTROUTE_FTSIM or pass --ftsim PATH");
  std::string scratch = cfg.scratch_dir.empty() ? (cfg.out_dir.empty() ? "." : cfg.out_dir) + "/scratch"
                                                : cfg.scratch_dir;
  fs::create_directories(scratch);
  std::string w = fs::absolute(scratch).string() + "/run-" + std::to_string(getpid()) + "-" +
                  std::to_string(g_workdir_counter++);
  fs::remove_all(w);
  fs::create_directories(w);
  NetWriteOptions wo;
  wo.write_lids = false;  // OpenSM assigns the LIDs; the dump's portguids give them back
  wo.comment = "campaign run " + out.key.id();
  {
    std::ofstream o(w + "/input.net");
    o << write_net(faulty, wo);
  }
  // FTSIM_LIFETIME bounds ibsim/holder (they run under timeout(1)): if this process is killed
  // before it can stop them, they still go away shortly after the run would have ended.
  const std::string base = "env FTSIM_LIFETIME=" + std::to_string(cfg.opensm_timeout + 180) + " bash " + shell_quote(script) + " -w " + shell_quote(w) + " ";
  const std::string to = std::to_string(cfg.opensm_timeout);
  struct Stopper {  // stop ibsim/OpenSM/holder by the PIDs ftsim.sh recorded, whatever happens
    std::string cmd;
    bool done = false;
    void stop() {
      if (!done) sh(cmd);
      done = true;
    }
    ~Stopper() { stop(); }
  } stopper{"timeout -k 5 60 " + base + "stop >/dev/null 2>&1"};
  if (sh_checked("timeout -k 5 120 " + base + "start " + shell_quote(w + "/input.net") + " >" + shell_quote(w + "/start.out") + " 2>&1") != 0) {
    std::string log = slurp(w + "/start.out");
    throw Error("ibsim did not start: " + log.substr(log.size() > 200 ? log.size() - 200 : 0));
  }
  // Engines with per-path SLs run as a daemon so that the SA can be asked for the SLs afterwards
  // (`opensm -o` exits after its sweep); the others run once.
  const bool daemon = uses_path_sls(engine) && !pathsl_tool(cfg).empty();
  // log_flags 0x47 = 0x43 + VERBOSE: the "building routing with" line that starts the routing step.
  std::string osm = std::string(daemon ? "opensm-start" : "opensm-once") + " --engine " + shell_quote(engine) +
                    " --timeout " + to + " --conf 'log_flags 0x47'";
  if (wants_qos(engine)) osm += " --conf 'qos TRUE'";
  if (find_engine(engine)) {  // an ftroute engine inside OpenSM, through libftroute.so
    osm += " --plugin ftroute";
    // next to the binary (build tree or install prefix), else the system library path
    if (std::string pd = locate_plugin_dir(); !pd.empty()) osm += " --plugin-dir " + shell_quote(pd);
  }
  if (engine == "torus-2QoS") {
    std::string conf = torus2qos_conf(faulty, gen_spec);
    if (!conf.empty()) {
      std::ofstream(w + "/torus-2QoS.conf") << conf;
      osm += " --conf " + shell_quote("torus_config " + w + "/torus-2QoS.conf");
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  int rc = sh_checked("timeout -k 5 " + std::to_string(cfg.opensm_timeout + 30) + " " + base + osm + " >" +
              shell_quote(w + "/osm.out") + " 2>" + shell_quote(w + "/osm.err"));
  out.route_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string used = slurp(w + "/osm.out");
  while (!used.empty() && (used.back() == '\n' || used.back() == ' ')) used.pop_back();
  if (auto nl = used.rfind('\n'); nl != std::string::npos) used = used.substr(nl + 1);
  out.engine_used = used.empty() ? "none" : used;
  out.fallback = used != engine;
  // Path SLs from the SA while the daemon still runs (one PathRecord per validated pair).
  std::string sl_text;
  int sl_rc = -1;
  if (rc == 0 && daemon && uses_path_sls(out.engine_used)) {
    const std::string pairs = path_pairs(faulty);
    std::ofstream(w + "/pairs.txt") << pairs;
    // One PathRecord per pair, answered one at a time through ibsim: 200-1,000 per second on the
    // shared 2-core box, slower the more runs share it. ftsim.sh stops a tool after
    // FTSIM_TOOL_TIMEOUT (60 s by default), which cut the query short on loaded or large fabrics
    // (82,225 pairs of the 5x5 torus; 4.9 M of the 7x7x7 torus): allow --opensm-timeout plus
    // 1 s per 100 pairs.
    const long sl_timeout = cfg.opensm_timeout + static_cast<long>(std::count(pairs.begin(), pairs.end(), '\n') / 100);
    sl_rc = sh_checked("timeout -k 5 " + std::to_string(sl_timeout + 30) + " env FTSIM_TOOL_TIMEOUT=" +
                       std::to_string(sl_timeout) + " " + base + "tool " +
                       shell_quote(pathsl_tool(cfg)) + " <" + shell_quote(w + "/pairs.txt") + " >" +
                       shell_quote(w + "/pathsl.out") + " 2>" + shell_quote(w + "/pathsl.err"));
    sl_text = slurp(w + "/pathsl.out");
  }
  stopper.stop();  // the dump files are all we need from here on
  // Routing step alone (issue 4) instead of the whole `opensm -o`, when the log shows it.
  try {
    if (auto step = opensm_routing_step(slurp(w + "/opensm-1/osm.log"), w + "/opensm-1/osm.log")) out.route_seconds = step->seconds;
  } catch (const ParseError& e) {
    out.message = std::string("routing time = whole opensm run (") + e.what() + ")";
  }
  if (rc != 0) {
    out.status = "failed";
    std::string err = slurp(w + "/osm.err");
    out.message = "OpenSM: " + err.substr(err.size() > 200 ? err.size() - 200 : 0);
    if (!cfg.keep_scratch) fs::remove_all(w);
    return;
  }
  std::string dump = w + "/opensm-1/dump";
  for (int i = 0; i < 50 && !fs::exists(dump + "/opensm-lfts.dump"); ++i) usleep(100000);  // daemon: written at the end of the sweep
  // With the SL2VL dump, load_routing also sets num_vls (highest VL + 1): flitsim sizes its VCs by
  // it and would drop every packet on a higher VL.
  const std::string sl2vl = dump + "/opensm-sl2vl.dump";
  LoadedRouting lr = load_routing(w + "/input.net", dump + "/opensm-lfts.dump", LftFormat::Auto, "",
                                  fs::exists(sl2vl) ? sl2vl : "", true);
  lr.routing.engine = "opensm:" + out.engine_used;
  ValidationReport v = validate(lr.fabric, lr.routing);
  fill_validation(v, out);
  if (uses_path_sls(out.engine_used)) {
    // OpenSM 3.3.23 dumps no per-path SLs; they come from the SA (ftroute-pathsl above). Without
    // all of them the CDG would be built on SL 0, which is not the routing OpenSM programmed:
    // the check is then reported as not done rather than a false cycle.
    size_t missing = 0;
    std::unordered_map<uint32_t, uint8_t> sls;
    if (sl_rc == 0) sls = parse_pathsl_output(sl_text, &missing);
    if (sl_rc != 0 || missing > 0) {
      out.deadlock_checked = false;
      out.cdg_acyclic = true;
      if (!daemon) out.message = "ftroute-pathsl not built: path SLs unknown; CDG not checked";
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
      v = validate(lr.fabric, lr.routing);  // CDG over (link, VL) with the SA's SLs and OpenSM's SL2VL
      fill_validation(v, out);
    }
  }
  if (!cfg.pattern.empty()) simulate(cfg, lr.fabric, lr.routing, out);
  if (!cfg.keep_scratch) fs::remove_all(w);
}

}  // namespace

std::unordered_map<uint32_t, uint8_t> parse_pathsl_output(const std::string& text, size_t* missing) {
  std::unordered_map<uint32_t, uint8_t> sls;
  std::istringstream in(text);
  std::string line;
  *missing = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '-') {
      ++*missing;
      continue;
    }
    unsigned slid = 0, dlid = 0, sl = 0;
    if (std::sscanf(line.c_str(), "%u %u %u", &slid, &dlid, &sl) != 3 || sl > 15)
      throw Error("ftroute-pathsl: unexpected output line '" + line + "'");
    sls[(slid << 16) | dlid] = static_cast<uint8_t>(sl);
  }
  return sls;
}

std::string torus2qos_conf(const Fabric& f, const std::string& gen_spec) {
  if (gen_spec.empty()) return "";
  topo::SpecArgs sa = topo::parse_fabric_spec(gen_spec);  // the spec build_fabric() used
  const std::string kind = sa.kind;
  if (kind != "mesh" && kind != "torus") return "";
  if (!sa.get("dims")) return "";
  const std::vector<int> dims = topo::parse_dims(*sa.get("dims"));
  const int hosts = sa.integer("hosts", 1, 0, kMaxPorts);
  const int L = sa.integer("links", 1, 1, kMaxPorts);  // parallel cables per neighbour pair
  const bool torus = kind == "torus";
  const int nd = static_cast<int>(dims.size());
  if (nd < 1 || nd > 3) return "";
  int nsw = 1;
  for (int d : dims) nsw *= d;
  const char axis[] = {'x', 'y', 'z'};
  // Seed: the first switch (topo::grid order, first dimension fastest) that survived the faults
  // with all its seed links up: +d (ports hosts+1+2dL .. hosts+L+2dL, any live cable of the
  // bundle; L = links) in every dimension, and -d (ports hosts+L+1+2dL ..) too on a torus
  // (torus-2QoS needs both directions for radix-4 rings). On a mesh the switch must not sit at
  // the upper end of any dimension.
  for (int i = 0; i < nsw; ++i) {
    std::vector<int> c(static_cast<size_t>(nd));
    std::string name = "S";
    for (int d = 0, idx = i; d < nd; ++d) {
      c[static_cast<size_t>(d)] = idx % dims[static_cast<size_t>(d)];
      idx /= dims[static_cast<size_t>(d)];
      name += (d ? "_" : "") + std::to_string(c[static_cast<size_t>(d)]);
    }
    auto sw = f.find(name);
    if (!sw || !f.node(*sw).is_switch()) continue;
    const Node& n = f.node(*sw);
    auto peer1 = [&](int port) -> const Node* {
      if (port >= static_cast<int>(n.ports.size()) || !n.ports[static_cast<size_t>(port)].connected()) return nullptr;
      const Node& q = f.node(n.ports[static_cast<size_t>(port)].peer_node);
      return q.is_switch() ? &q : nullptr;
    };
    auto peer = [&](int first) -> const Node* {  // the first live cable of the bundle at first..first+L-1
      for (int j = 0; j < L; ++j)
        if (const Node* q = peer1(first + j)) return q;
      return nullptr;
    };
    std::ostringstream o;
    bool ok = true;
    for (int d = 0; d < nd && ok; ++d) {
      if (!torus && c[static_cast<size_t>(d)] + 1 >= dims[static_cast<size_t>(d)]) ok = false;
      const Node* plus = peer(hosts + 1 + 2 * d * L);
      const Node* minus = torus ? peer(hosts + 1 + 2 * d * L + L) : nullptr;
      if (!plus || (torus && !minus)) ok = false;
      if (!ok) break;
      char b[128];
      std::snprintf(b, sizeof b, "%cp_link 0x%016llx 0x%016llx\n", axis[d], static_cast<unsigned long long>(n.guid),
                    static_cast<unsigned long long>(plus->guid));
      o << b;
      if (minus) {
        std::snprintf(b, sizeof b, "%cm_link 0x%016llx 0x%016llx\n", axis[d], static_cast<unsigned long long>(n.guid),
                      static_cast<unsigned long long>(minus->guid));
        o << b;
      }
    }
    if (!ok) continue;
    std::ostringstream head;
    head << "# torus-2QoS.conf written by ftroute campaign for " << gen_spec << " (seed switch " << name << ")\n"
         << kind;
    for (int d = 0; d < 3; ++d) head << " " << (d < nd ? dims[static_cast<size_t>(d)] : 1);
    head << "\n";
    return head.str() + o.str();
  }
  return "";
}

FabricSource parse_fabric_source(const std::string& text, bool is_file) {
  FabricSource s;
  s.name = text;
  if (is_file) {
    s.net_path = text;
    s.name = fs::path(text).filename().string();
  } else {
    s.gen_spec = text;
  }
  return s;
}

Fabric build_fabric(const FabricSource& src) {
  if (!src.net_path.empty()) {
    Fabric f = read_fabric_file(src.net_path);
    return f;
  }
  try {
    return topo::build_fabric_spec(src.gen_spec);  // the one spec grammar (fabric_spec.hpp)
  } catch (const topo::SpecError& e) {
    throw topo::SpecError("--gen: " + std::string(e.what()));
  }
}

int failures_count(const std::string& spec, int candidates) {
  if (spec.empty()) throw OptionError("empty failure count");
  if (spec.back() == '%') {
    double pct;
    try {
      size_t pos = 0;
      pct = std::stod(spec.substr(0, spec.size() - 1), &pos);
      if (pos != spec.size() - 1) throw std::invalid_argument(spec);
    } catch (const std::exception&) {
      throw OptionError("bad failure percentage '" + spec + "'");
    }
    if (pct < 0 || pct > 100) throw OptionError("failure percentage out of 0..100: '" + spec + "'");
    return static_cast<int>(std::lround(pct / 100.0 * candidates));
  }
  int n = to_int(spec, "failure count");
  if (n < 0) throw OptionError("negative failure count '" + spec + "'");
  return n;
}

double failures_x(const std::string& spec) {
  try {
    return std::stod(spec.back() == '%' ? spec.substr(0, spec.size() - 1) : spec);
  } catch (const std::exception&) {
    return 0;
  }
}

std::string RunKey::id() const {
  return fabric + "|" + engine + "|" + link_failures + "|" + switch_failures + "|" + std::to_string(seed);
}

std::vector<RunKey> plan(const Config& cfg) {
  if (cfg.shard_count < 1 || cfg.shard_index < 0 || cfg.shard_index >= cfg.shard_count)
    throw OptionError("bad shard " + std::to_string(cfg.shard_index) + "/" + std::to_string(cfg.shard_count));
  std::vector<RunKey> all;
  for (const auto& f : cfg.fabrics)
    for (const auto& e : cfg.engines)
      for (const auto& sf : cfg.switch_failures)
        for (const auto& lf : cfg.link_failures)
          for (int s = 1; s <= cfg.seeds; ++s) all.push_back({f.name, e, lf, sf, s});
  std::vector<RunKey> out;
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % static_cast<size_t>(cfg.shard_count)) == cfg.shard_index) out.push_back(all[i]);
  return out;
}

bool keeps_file_lids(const Config& cfg, const std::string& fabric, const Fabric& intact) {
  if (!cfg.file_lids || intact.max_lid() == 0) return false;
  for (const auto& src : cfg.fabrics)
    if (src.name == fabric) return !src.net_path.empty();
  return false;
}

void check_file_lids(const Config& cfg, const FabricSource& src, const Fabric& intact) {
  if (!keeps_file_lids(cfg, src.name, intact)) return;
  if (auto miss = intact.first_port_without_lid())
    throw FabricError(src.net_path + ": " + (miss->second == 0 ? "switch " + intact.node_name(miss->first)
                                                                 : "port " + intact.port_name(miss->first, miss->second)) +
                      " has no LID while others do (use --lids assign to renumber)");
}

RunResult run_one(const Config& cfg, const Fabric& intact, const RunKey& key) {
  RunResult out;
  out.key = key;
  try {
    Fabric f = intact;
    topo::FaultSpec fs_;
    fs_.seed = static_cast<uint64_t>(key.seed);
    fs_.keep_connected = cfg.keep_connected;
    fs_.host_links = cfg.host_links;
    int cand_links = cfg.host_links ? f.num_links() : static_cast<int>(f.switch_links().size());
    fs_.random_links = failures_count(key.link_failures, cand_links);
    fs_.random_switches = failures_count(key.switch_failures, static_cast<int>(f.switches().size()));
    topo::FaultReport rep = topo::inject_faults(f, fs_);
    out.links_removed = static_cast<int>(rep.links.size());
    out.switches_removed = static_cast<int>(rep.switches.size());
    out.hosts_removed = static_cast<int>(rep.hosts.size());
    out.switches = static_cast<int>(f.switches().size());
    out.cas = static_cast<int>(f.cas().size());
    out.links = f.num_links();

    const std::string prefix = "opensm:";
    if (key.engine.rfind(prefix, 0) == 0) {
      std::string gen_spec;
      for (const auto& src : cfg.fabrics)
        if (src.name == key.fabric) gen_spec = src.gen_spec;
      run_opensm(cfg, f, gen_spec, key.engine.substr(prefix.size()), out);
      return out;
    }
    if (!keeps_file_lids(cfg, key.fabric, intact)) f.assign_lids(0);  // else: the file's, kept by inject_faults
    auto engine = make_engine(key.engine);
    out.engine_used = key.engine;
    Routing r;
    double t0 = cpu_now();
    try {
      const EngineOptions no_options;
      r = engine->route(f, no_options);
    } catch (const EngineError& e) {
      out.route_seconds = cpu_now() - t0;
      out.status = "refused";
      out.engine_used = "none";
      out.message = clean(e.reason());
      return out;
    }
    out.route_seconds = cpu_now() - t0;
    ValidationReport v = validate(f, r);
    fill_validation(v, out);
    if (!cfg.pattern.empty()) simulate(cfg, f, r, out);
  } catch (const OptionError&) {
    throw;  // configuration mistakes stop the campaign
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    out.status = "error";
    out.message = clean(e.what());
  }
  out.message = clean(out.message);
  return out;
}

std::string shift_exchange_trace(int n, int packets, const std::vector<int>& order) {
  if (!order.empty() && static_cast<int>(order.size()) != n) throw Error("shift_exchange_trace: order has the wrong size");
  auto at = [&](int k) { return order.empty() ? k : order[static_cast<size_t>(k)]; };
  std::vector<int> shifts;
  for (int k = 1; k <= n / 2; ++k) {
    shifts.push_back(k);
    if (2 * k != n) shifts.push_back(-k);
  }
  std::string out;
  out.reserve(static_cast<size_t>(n) * shifts.size() * static_cast<size_t>(packets) * 12);
  for (int s : shifts)
    for (int i = 0; i < n; ++i)
      for (int p = 0; p < packets; ++p)
        out += "0 " + std::to_string(at(i)) + " " + std::to_string(at(((i + s) % n + n) % n)) + "\n";
  return out;
}

std::vector<int> random_endpoint_order(int n, uint64_t seed) {
  std::vector<int> order(static_cast<size_t>(std::max(0, n)));
  for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 g(seed);
  for (int i = n - 1; i > 0; --i)
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(topo::uniform_index(g, static_cast<uint64_t>(i) + 1))]);
  return order;
}

}  // namespace ftroute::campaign
