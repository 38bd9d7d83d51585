// Integration-test harness implementation: see harness.hpp.
#include "harness.hpp"

#include "ftroute/lft_io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#ifndef FTROUTE_SOURCE_DIR
#define FTROUTE_SOURCE_DIR "."
#endif
#ifndef FTROUTE_BINARY_DIR
#define FTROUTE_BINARY_DIR "."
#endif

extern char** environ;

namespace fs = std::filesystem;

namespace ftroute::itest {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

std::string fmt_seconds(double s) {
  std::ostringstream o;
  o << std::max(1, static_cast<int>(s + 0.999));
  return o.str();
}

std::string tail(const std::string& s, size_t n = 3000) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

// Environment for a child: ours, with PATH extended by the sbin dirs, plus overrides.
std::vector<std::string> make_env(const EnvVars& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    std::string key = kv.substr(0, eq);
    bool overridden = false;
    for (const auto& [k, v] : extra)
      if (k == key) overridden = true;
    if (overridden) continue;
    if (key == "PATH") kv += ":/usr/sbin:/sbin:/usr/bin:/bin";
    env.push_back(kv);
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  return env;
}

// Spawns `timeout -k 3 <lifetime_s> argv...` in its own process group (timeout does setpgid),
// with PR_SET_PDEATHSIG=SIGTERM (timeout forwards it to the command). stdin from stdin_path
// (or /dev/null), stdout/stderr into files. Returns the pid of the timeout process.
pid_t spawn(const std::vector<std::string>& argv, const EnvVars& extra_env, const std::string& cwd,
            double lifetime_s, const std::string& stdin_path, const std::string& out_path,
            const std::string& err_path) {
  std::vector<std::string> full = {"timeout", "-k", "3", fmt_seconds(lifetime_s)};
  full.insert(full.end(), argv.begin(), argv.end());
  std::vector<char*> cargv;
  for (auto& a : full) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> env = make_env(extra_env);
  std::vector<char*> cenv;
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  std::string in = stdin_path.empty() ? std::string("/dev/null") : stdin_path;
  // Resolve timeout(1) before fork (execve needs a path).
  std::string timeout_bin = fs::exists("/usr/bin/timeout") ? "/usr/bin/timeout" : "/bin/timeout";

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw HarnessError(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    int fi = open(in.c_str(), O_RDONLY);
    int fo = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = err_path == out_path ? fo : open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fi < 0 || fo < 0 || fe < 0) _exit(126);
    dup2(fi, 0);
    dup2(fo, 1);
    dup2(fe, 2);
    execve(timeout_bin.c_str(), cargv.data(), cenv.data());
    _exit(127);
  }
  return pid;
}

// Waits for pid until deadline (seconds from now); returns the raw wait status or nullopt.
std::optional<int> wait_for(pid_t pid, double seconds) {
  auto t0 = Clock::now();
  for (;;) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return st;
    if (r < 0 && errno != EINTR) return 0;  // not our child any more
    if (since(t0) >= seconds) return std::nullopt;
    sleep_s(0.01);
  }
}

int decode_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

// Ends a process started by spawn(): SIGTERM to timeout(1) (forwarded to the command), then
// SIGKILL to the whole process group.
int terminate(pid_t pid, double grace_s = 5) {
  if (pid <= 0) return -1;
  kill(pid, SIGTERM);
  if (auto st = wait_for(pid, grace_s)) return decode_status(*st);
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  if (auto st = wait_for(pid, 5)) return decode_status(*st);
  return -1;
}

std::atomic<int> g_counter{0};

std::string sanitize(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  if (s.empty()) s = "sim";
  return s;
}

}  // namespace

// ---- free functions ---------------------------------------------------------------------
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw HarnessError("cannot write " + path);
  out << text;
  if (!out) throw HarnessError("write failed: " + path);
}

ProcResult run_process(const std::vector<std::string>& argv, const EnvVars& env,
                       const std::string& cwd, double timeout_s) {
  if (argv.empty()) throw HarnessError("run_process: empty argv");
  int n = g_counter++;
  std::string base = cwd + "/.proc-" + std::to_string(getpid()) + "-" + std::to_string(n);
  std::string out = base + ".out", err = base + ".err";
  pid_t pid = spawn(argv, env, cwd, timeout_s, "", out, err);
  ProcResult r;
  auto st = wait_for(pid, timeout_s + 5);
  if (!st) {
    r.timed_out = true;
    r.exit_code = terminate(pid, 1);
  } else {
    r.exit_code = decode_status(*st);
  }
  if (r.exit_code == 124) r.timed_out = true;
  r.out = read_file(out);
  r.err = read_file(err);
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(err, ec);
  return r;
}

std::string source_dir() {
  const char* e = std::getenv("FTROUTE_SOURCE_DIR");
  return e && *e ? e : FTROUTE_SOURCE_DIR;
}

std::string binary_dir() {
  const char* e = std::getenv("FTROUTE_BINARY_DIR");
  return e && *e ? e : FTROUTE_BINARY_DIR;
}

std::string fresh_scratch_dir(const std::string& name) {
  const std::string d = binary_dir() + "/itest-scratch/" + name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::string umad2sim_lib() {
  for (const char* p : {"/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so",
                        "/usr/lib/aarch64-linux-gnu/umad2sim/libumad2sim.so",
                        "/usr/lib/umad2sim/libumad2sim.so", "/usr/lib64/umad2sim/libumad2sim.so"})
    if (fs::exists(p)) return p;
  return "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
}

std::string opensm_program() {
  const char* e = std::getenv("FTROUTE_OPENSM");
  return e && *e ? e : FTROUTE_OPENSM;
}

bool have_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

std::string missing_tools() {
  std::string miss;
  for (const std::string& p : {std::string("ibsim"), opensm_program(), std::string("dump_fts"),
                               std::string("ibnetdiscover"), std::string("timeout")})
    if (!have_program(p)) miss += std::string(miss.empty() ? "" : ", ") + p;
  if (!fs::exists(umad2sim_lib())) miss += std::string(miss.empty() ? "" : ", ") + umad2sim_lib();
  return miss.empty() ? "" : "missing: " + miss + " (run scripts/install-deps.sh)";
}

std::string engine_from_log(const std::string& log) {
  static const std::regex re(R"((\S+) tables configured on all switches)");
  std::string last;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it)
    last = (*it)[1].str();
  return last;
}

int count_occurrences(const std::string& text, const std::string& needle) {
  if (needle.empty()) return 0;
  int n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size()))
    ++n;
  return n;
}

// ---- SimFabric ------------------------------------------------------------------------------
SimFabric::SimFabric(std::string name) : name_(sanitize(name)) {
  const char* root = std::getenv("FTROUTE_SCRATCH");
  std::string r = root && *root ? root : binary_dir() + "/itest-scratch";
  scratch_ = r + "/" + name_;
  // Abstract socket names are machine-wide: pid + counter make them unique; keep them short.
  sock_ = "ftr" + std::to_string(getpid()) + "_" + std::to_string(g_counter++) + "_" +
          name_.substr(0, 24);
}

SimFabric::~SimFabric() {
  try {
    stop();
  } catch (...) {
  }
}

void SimFabric::start_text(const std::string& net_text, double timeout_s) {
  std::error_code ec;
  fs::create_directories(binary_dir() + "/itest-scratch", ec);
  std::string tmp = (std::getenv("FTROUTE_SCRATCH") && *std::getenv("FTROUTE_SCRATCH")
                         ? std::string(std::getenv("FTROUTE_SCRATCH"))
                         : binary_dir() + "/itest-scratch") +
                    "/." + name_ + ".net." + std::to_string(getpid());
  fs::create_directories(fs::path(tmp).parent_path(), ec);
  write_file(tmp, net_text);
  try {
    start(tmp, timeout_s);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fs::remove(tmp, ec);
}

void SimFabric::start(const std::string& net_path, double timeout_s) {
  if (running()) throw HarnessError("SimFabric " + name_ + ": already started");
  if (!fs::exists(net_path)) throw HarnessError("net file not found: " + net_path);
  std::error_code ec;
  fs::remove_all(scratch_, ec);
  fs::create_directories(scratch_, ec);
  if (ec) throw HarnessError("cannot create scratch dir " + scratch_ + ": " + ec.message());
  fs::copy_file(net_path, this->netfile(), fs::copy_options::overwrite_existing, ec);
  if (ec) throw HarnessError("cannot copy " + net_path + ": " + ec.message());
  std::string fifo = scratch_ + "/ibsim.in";
  if (mkfifo(fifo.c_str(), 0600) != 0)
    throw HarnessError("mkfifo " + fifo + ": " + std::strerror(errno));
  // The holder: O_RDWR on a FIFO never blocks on Linux and keeps a writer open forever.
  fifo_fd_ = open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (fifo_fd_ < 0) throw HarnessError("open " + fifo + ": " + std::strerror(errno));
  write_file(scratch_ + "/ibsim.sock", sock_ + "\n");
  ibsim_pid_ = spawn({"ibsim", "-s", this->netfile()}, {{"IBSIM_SOCKNAME", sock_}}, scratch_,
                     3600, fifo, scratch_ + "/ibsim.out", scratch_ + "/ibsim.out");
  write_file(scratch_ + "/ibsim.pid", std::to_string(ibsim_pid_) + "\n");
  auto t0 = Clock::now();
  while (since(t0) < timeout_s) {
    std::string out = ibsim_output();
    if (out.find("sim>") != std::string::npos) return;
    int st = 0;
    if (waitpid(ibsim_pid_, &st, WNOHANG) == ibsim_pid_) {
      ibsim_pid_ = -1;
      close(fifo_fd_);
      fifo_fd_ = -1;
      throw HarnessError("ibsim exited (status " + std::to_string(decode_status(st)) + ") on " +
                         net_path + ":\n" + tail(ibsim_output()));
    }
    sleep_s(0.02);
  }
  std::string out = ibsim_output();
  stop();
  throw HarnessError("ibsim did not come up within " + fmt_seconds(timeout_s) + " s on " + net_path +
                     ":\n" + tail(out));
}

std::string SimFabric::ibsim_output() const { return read_file(scratch_ + "/ibsim.out"); }

EnvVars SimFabric::tool_env(const std::string& host) const {
  EnvVars env = {{"IBSIM_SOCKNAME", sock_}};
  if (!host.empty()) env.emplace_back("SIM_HOST", host);
  return env;
}

std::string SimFabric::prepare_opensm_run(const OpensmConfig& cfg, std::vector<std::string>& argv,
                                          EnvVars& env, bool daemon) {
  if (!running()) throw HarnessError("SimFabric " + name_ + ": ibsim not started");
  std::string dir = scratch_ + "/opensm-" + std::to_string(++osm_runs_);
  std::error_code ec;
  fs::create_directories(dir + "/dump", ec);
  fs::create_directories(dir + "/cache", ec);
  std::ostringstream conf;
  conf << "# written by the ftroute integration harness\n";
  std::string engines;
  for (const auto& e : cfg.engines) engines += (engines.empty() ? "" : ",") + e;
  if (!engines.empty()) conf << "routing_engine " << engines << "\n";
  conf << "log_flags 0x43\n"
       << "force_log_flush TRUE\n"
       << "dump_files_dir " << dir << "/dump\n"
       << "sweep_interval " << cfg.sweep_interval << "\n";
  if (!cfg.event_plugin_name.empty()) conf << "event_plugin_name " << cfg.event_plugin_name << "\n";
  if (!cfg.event_plugin_options.empty())
    conf << "event_plugin_options " << cfg.event_plugin_options << "\n";
  if (!cfg.lfts_file.empty()) conf << "lfts_file " << cfg.lfts_file << "\n";
  for (const auto& l : cfg.extra_conf) conf << l << "\n";
  write_file(dir + "/opensm.conf", conf.str());

  argv = {"env", "LD_PRELOAD=" + umad2sim_lib(), cfg.opensm.empty() ? opensm_program() : cfg.opensm, "-F", dir + "/opensm.conf", "-f",
          dir + "/osm.log", "-d", "2"};
  if (!daemon) argv.push_back("-o");
  env = tool_env(cfg.sim_host.empty() ? sim_host_ : cfg.sim_host);
  env.emplace_back("OSM_CACHE_DIR", dir + "/cache");
  env.emplace_back("OSM_TMP_DIR", dir + "/dump");
  if (!cfg.plugin_dir.empty()) {
    const char* old = std::getenv("LD_LIBRARY_PATH");
    env.emplace_back("LD_LIBRARY_PATH",
                     cfg.plugin_dir + (old && *old ? std::string(":") + old : std::string()));
  }
  osm_dir_ = dir;
  return dir;
}

OpensmRun SimFabric::run_opensm_once(const OpensmConfig& cfg) {
  std::vector<std::string> argv;
  EnvVars env;
  std::string dir = prepare_opensm_run(cfg, argv, env, false);
  OpensmRun r;
  r.dir = dir;
  r.dump_dir = dir + "/dump";
  pid_t pid = spawn(argv, env, dir, cfg.timeout_s, "", dir + "/opensm.out", dir + "/opensm.out");
  auto st = wait_for(pid, cfg.timeout_s + 5);
  if (!st) {
    r.proc.timed_out = true;
    r.proc.exit_code = terminate(pid, 1);
  } else {
    r.proc.exit_code = decode_status(*st);
  }
  if (r.proc.exit_code == 124) r.proc.timed_out = true;
  r.proc.out = read_file(dir + "/opensm.out");
  r.log = read_file(dir + "/osm.log");
  r.subnet_up = r.log.find("SUBNET UP") != std::string::npos;
  r.engine_used = engine_from_log(r.log);
  return r;
}

std::string SimFabric::start_opensm_daemon(const OpensmConfig& cfg) {
  stop_opensm();
  std::vector<std::string> argv;
  EnvVars env;
  std::string dir = prepare_opensm_run(cfg, argv, env, true);
  opensm_pid_ = spawn(argv, env, dir, 3600, "", dir + "/opensm.out", dir + "/opensm.out");
  write_file(dir + "/opensm.pid", std::to_string(opensm_pid_) + "\n");
  auto t0 = Clock::now();
  while (since(t0) < cfg.timeout_s) {
    if (opensm_log().find("SUBNET UP") != std::string::npos) {
      mark_reroute();
      return dir;
    }
    if (!opensm_running()) break;
    sleep_s(0.02);
  }
  std::string log = opensm_log() + read_file(dir + "/opensm.out");
  stop_opensm();
  throw HarnessError("OpenSM daemon: no SUBNET UP within " + fmt_seconds(cfg.timeout_s) + " s (" +
                     dir + "):\n" + tail(log));
}

bool SimFabric::opensm_running() {
  if (opensm_pid_ <= 0) return false;
  int st = 0;
  if (waitpid(opensm_pid_, &st, WNOHANG) == opensm_pid_) {
    opensm_pid_ = -1;
    return false;
  }
  return true;
}

void SimFabric::stop_opensm() {
  if (opensm_pid_ > 0) terminate(opensm_pid_);
  opensm_pid_ = -1;
}

void SimFabric::opensm_sighup() {
  if (!opensm_running()) throw HarnessError("opensm_sighup: no OpenSM daemon running");
  mark_reroute();
  // timeout(1) does not forward SIGHUP; signal the whole process group: opensm reacts with a
  // heavy sweep and timeout(1) itself would die from SIGHUP, so send it to the child only.
  // The child is the only other member of the group, found via /proc.
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string n = e.path().filename();
    if (n.empty() || !std::isdigit(static_cast<unsigned char>(n[0]))) continue;
    std::string stat = read_file(e.path().string() + "/stat");
    auto rp = stat.rfind(')');
    if (rp == std::string::npos) continue;
    std::istringstream ss(stat.substr(rp + 2));
    char state;
    long ppid = 0;
    ss >> state >> ppid;
    if (ppid == opensm_pid_) kill(static_cast<pid_t>(std::stol(n)), SIGHUP);
  }
}

std::string SimFabric::console(const std::string& cmd, double wait_s) {
  if (fifo_fd_ < 0) throw HarnessError("SimFabric " + name_ + ": ibsim not started");
  size_t before = ibsim_output().size();
  std::string line = cmd + "\n";
  if (write(fifo_fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw HarnessError("cannot write to ibsim console: " + std::string(std::strerror(errno)));
  auto t0 = Clock::now();
  std::string out;
  while (since(t0) < wait_s) {
    std::string all = ibsim_output();
    out = all.size() > before ? all.substr(before) : std::string();
    if (out.find("sim>") != std::string::npos) break;
    sleep_s(0.01);
  }
  return out;
}

static std::string quoted_port(const std::string& node, int port) {
  return "\"" + node + "\"[" + std::to_string(port) + "]";
}

std::string SimFabric::unlink(const std::string& node, int port) {
  mark_reroute();
  return console("Unlink " + quoted_port(node, port));
}

std::string SimFabric::relink(const std::string& node, int port) {
  mark_reroute();
  return console("ReLink " + quoted_port(node, port));
}

void SimFabric::mark_reroute() { reroute_mark_ = subnet_up_count(); }

bool SimFabric::wait_for_reroute(double timeout_s, double settle_s) {
  if (!opensm_running()) return false;
  auto t0 = Clock::now();
  bool hupped = false;
  while (since(t0) < timeout_s) {
    if (subnet_up_count() > reroute_mark_) {
      // Settle: the log must stay unchanged for settle_s.
      size_t size = opensm_log().size();
      auto quiet = Clock::now();
      while (since(t0) < timeout_s) {
        sleep_s(0.05);
        size_t now = opensm_log().size();
        if (now != size) {
          size = now;
          quiet = Clock::now();
        } else if (since(quiet) >= settle_s) {
          mark_reroute();
          return true;
        }
      }
      return false;
    }
    if (!hupped && since(t0) > timeout_s / 2) {
      int mark = reroute_mark_;
      opensm_sighup();
      reroute_mark_ = mark;
      hupped = true;
    }
    if (!opensm_running()) return false;
    sleep_s(0.02);
  }
  return false;
}

ProcResult SimFabric::run_tool(const std::vector<std::string>& argv, double timeout_s) {
  if (!running()) throw HarnessError("SimFabric " + name_ + ": ibsim not started");
  std::vector<std::string> full = {"env", "LD_PRELOAD=" + umad2sim_lib()};
  full.insert(full.end(), argv.begin(), argv.end());
  return run_process(full, tool_env(sim_host_), scratch_, timeout_s);
}

std::string SimFabric::dump_fts_raw(double timeout_s) {
  ProcResult r = run_tool({"dump_fts"}, timeout_s);
  if (!r.ok())
    throw HarnessError("dump_fts failed (exit " + std::to_string(r.exit_code) + "):\n" + tail(r.err));
  return r.out;
}

std::string SimFabric::dump_fts(double timeout_s) {
  const std::string raw = dump_fts_raw(timeout_s);
  LftFile file = parse_lft(raw, "dump_fts", LftFormat::DumpFts);
  bool added = false;
  for (LftTable& t : file.tables) {
    const Lid top = dump_fts_unread_lid(t);
    if (!top) continue;
    // header address "DR path slid 0; dlid 0; 0,1,3" -> "0,1,3"
    const auto semi = t.addr.rfind(';');
    if (t.addr.rfind("DR path", 0) != 0 || semi == std::string::npos)
      throw HarnessError("dump_fts table of " + t.desc + ": cannot take a DR path from '" + t.addr + "'");
    const std::string path = t.addr.substr(semi + 2);
    ProcResult r = run_tool({"smpdump", "-D", path, "0x19", std::to_string(top / 64)}, timeout_s);
    // stdout: 64 bytes as 4 lines of 8 "xxxx" groups, then e.g. "SMP status: 0x8000"
    std::string hex;
    static const std::regex data_line("^[0-9a-fA-F]{4}( [0-9a-fA-F]{4})* *$");
    std::istringstream lines(r.out);
    for (std::string l; std::getline(lines, l);)
      if (std::regex_match(l, data_line))
        for (char c : l)
          if (c != ' ') hex += c;
    if (!r.ok() || hex.size() != 128)
      throw HarnessError("smpdump of LFT block " + std::to_string(top / 64) + " of " + t.desc + " failed (exit " +
                         std::to_string(r.exit_code) + "):\n" + tail(r.out + r.err));
    const unsigned port = static_cast<unsigned>(std::stoul(hex.substr(2 * (top % 64), 2), nullptr, 16));
    if (port == 0xff) continue;  // no route to LID top: dump_fts would not list it either
    LftEntry e;
    e.lid = top;
    e.port = static_cast<uint8_t>(port);
    e.info = " : (read with smpdump: dump_fts skips LID LinearFDBTop)";
    t.entries.push_back(std::move(e));
    std::smatch m;
    static const std::regex footer("^([0-9]+)( valid lids dumped.*)$");
    if (std::regex_match(t.footer, m, footer)) t.footer = std::to_string(std::stoul(m[1].str()) + 1) + m[2].str();
    added = true;
  }
  return added ? write_lft_file(file) : raw;
}

std::string SimFabric::ibnetdiscover(double timeout_s) {
  ProcResult r = run_tool({"ibnetdiscover"}, timeout_s);
  if (!r.ok())
    throw HarnessError("ibnetdiscover failed (exit " + std::to_string(r.exit_code) + "):\n" +
                       tail(r.err));
  return r.out;
}

std::string SimFabric::opensm_log() const {
  return osm_dir_.empty() ? std::string() : read_file(osm_dir_ + "/osm.log");
}

void SimFabric::stop() {
  stop_opensm();
  if (ibsim_pid_ > 0) {
    terminate(ibsim_pid_);
    ibsim_pid_ = -1;
  }
  if (fifo_fd_ >= 0) {
    close(fifo_fd_);
    fifo_fd_ = -1;
  }
}

// ---- ibdmchk ----------------------------------------------------------------------------------
IbdmchkResult run_ibdmchk(const std::string& dump_dir, const std::string& cwd, double timeout_s) {
  IbdmchkResult r;
  std::vector<std::string> argv = {"ibdmchk", "-s", dump_dir + "/opensm-subnet.lst", "-f",
                                   dump_dir + "/opensm.fdbs"};
  if (fs::exists(dump_dir + "/opensm.mcfdbs")) {
    argv.push_back("-m");
    argv.push_back(dump_dir + "/opensm.mcfdbs");
  }
  r.proc = run_process(argv, {}, cwd, timeout_s);
  r.text = r.proc.out + r.proc.err;
  // Verdict lines of ibdmchk 1.5.7: "-I- no credit loops found" / "-E- credit loops in routing"
  // (preceded by "BT credit loop through: <node>/P<port> VL: <vl>" lines).
  bool none = r.text.find("no credit loops found") != std::string::npos;
  bool loops = r.text.find("-E- credit loops in routing") != std::string::npos;
  r.credit_loops = loops;
  r.ran = none || loops;
  return r;
}

}  // namespace ftroute::itest
