// bench_scale (issue 15): the whole InfiniBand unicast LID space. For 3-level fat trees
// (`ftroute gen fattree3 --radix R`; default R = 36 48 52 56, up to 47,824 LIDs) it prints:
//   net file    read_net_file of the generated .net (MB/s)
//   engine      ftree-misroute in-process with its default self-check (check=auto, every size
//               now), ratio against the same engine with check=false in the same run, and
//               against threads=1 (same LFTs required); --engine-only stops there
//   route       `ftroute route -e ftree-misroute` to a file (child process): wall, MB/s, peak RSS
//   check       `ftroute check` of that file (child process): wall, peak RSS; parse = the fast
//               reader in-process (wall and CPU MB/s)
//   validate    validate() in-process (reachability, loops, CDG, EFI)
// --minhop: only ft-minhop in-process instead (default threads, threads=1, and up to
//   --baseline-radix the previous LID-major code, FTROUTE_SLOW_MINHOP=1; same LFTs required).
// Baselines, measured in the same run for trees up to --baseline-radix (default 36; the old code
// needs ~270 bytes per LFT entry, 23 GB at radix 48): the old string writer
// (FTROUTE_SLOW_LFT_WRITER=1), the full LFT reader (FTROUTE_SLOW_LFT_READER=1), and the per-source
// CDG walk (CdgBuildOptions::force_per_source) in place of the switch-level pass.
// Peak RSS of the commands from GNU time (%M; package `time`). Files go to --dir (default /tmp/bench_scale) and
// are deleted after each tree (a radix-56 dump is 12.6 GB) unless --keep.
//
//   routing step  (first) the routing step as the plugin runs it (ftroute/pipeline.hpp: engine,
//               self-check, verdict; no file output) in a forked child: wall, CPU, peak RSS (the
//               fabric held by this process included), and the ratio of its wall time to a plain
//               single-threaded d-mod-k pass over the same tables in the same run (issue #29
//               item 1); then the same step with the second walk (the result walk after the
//               self-check, what the plugin did before the routing pipeline) for comparison.
// Usage: bench_scale [--ftroute PATH] [--dir DIR] [--keep] [--baseline-radix R] [--engine-only] [--minhop] [RADIX ...]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_clock.hpp"
#include "ftroute/cdg.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;
using bench::Clock;
using bench::cpu_now;
using bench::secs;

namespace {

struct Child {
  int status = -1;
  double wall = 0, cpu = 0;
  long maxrss_kb = 0;
};

// Runs argv (stdout/stderr to log) with extra environment under GNU time, which reports the
// command's own peak RSS: a child forked from this process would count this process's pages
// (Linux keeps the pre-exec high-water mark in ru_maxrss).
Child run(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log) {
  Child c;
  const std::string stats = log + ".time";
  std::fflush(stdout);  // or the child's freopen writes our buffer a second time
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    FILE* f = std::freopen(log.c_str(), "w", stdout);
    (void)f;
    dup2(fileno(stdout), 2);
    std::vector<std::string> full = {"/usr/bin/time", "-f", "%M %U %S", "-o", stats};
    full.insert(full.end(), argv.begin(), argv.end());
    std::vector<char*> a;
    for (const auto& s : full) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  waitpid(pid, &c.status, 0);
  c.wall = secs(t0, Clock::now());
  std::ifstream in(stats);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line[0] >= '0' && line[0] <= '9') last = line;  // "Command exited with ..." first
  double u = 0, s = 0;
  if (std::sscanf(last.c_str(), "%ld %lf %lf", &c.maxrss_kb, &u, &s) == 3) c.cpu = u + s;
  return c;
}

std::string self_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = 0;
  return std::filesystem::path(buf).parent_path().string();
}

double mb(uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

// A plain single-threaded d-mod-k pass over the same LFT shape (issue #29 item 1's yardstick): per
// switch and destination LID one table lookup: down towards the destination's leaf when the
// switch is above it, else up port (LID mod number of up ports). Ranks are BFS distances from the
// leaves (switches with CAs); the down tables are built before the timed pass. Switch LIDs go up
// (or to port 0 on their own switch): a timing reference, not a routing.
struct PlainDmodk {
  std::vector<int> sw;                           // switch nodes
  std::vector<std::vector<uint8_t>> down;        // by switch position: leaf index -> down port (0: none)
  std::vector<std::vector<uint8_t>> up;          // by switch position: up ports
  std::vector<int> lid_leaf;                     // LID -> leaf index (-1: a switch LID)
  std::vector<uint8_t> lid_port;                 // LID -> CA port on its leaf (or 0)
  std::vector<int> lid_switch;                   // LID -> switch position owning it (-1)
  std::vector<int> leaf_pos;                     // leaf index -> switch position

  explicit PlainDmodk(const Fabric& f) {
    sw = f.switches();
    std::vector<int> pos(static_cast<size_t>(f.size()), -1);
    for (size_t i = 0; i < sw.size(); i++) pos[static_cast<size_t>(sw[i])] = static_cast<int>(i);
    const size_t S = sw.size();
    std::vector<int> rank(S, -1), leaf_of(S, -1), order;
    for (size_t i = 0; i < S; i++) {
      const Node& n = f.node(sw[i]);
      for (int p = 1; p <= n.num_ports; p++)
        if (n.port(p).peer_node >= 0 && !f.node(n.port(p).peer_node).is_switch()) rank[i] = 0;
      if (rank[i] == 0) {
        leaf_of[i] = static_cast<int>(leaf_pos.size());
        leaf_pos.push_back(static_cast<int>(i));
        order.push_back(static_cast<int>(i));
      }
    }
    for (size_t h = 0; h < order.size(); h++) {  // BFS ranks
      const Node& n = f.node(sw[static_cast<size_t>(order[h])]);
      for (int p = 1; p <= n.num_ports; p++) {
        const int v = n.port(p).peer_node;
        if (v < 0 || !f.node(v).is_switch() || rank[static_cast<size_t>(pos[static_cast<size_t>(v)])] >= 0) continue;
        rank[static_cast<size_t>(pos[static_cast<size_t>(v)])] = rank[static_cast<size_t>(order[h])] + 1;
        order.push_back(pos[static_cast<size_t>(v)]);
      }
    }
    down.assign(S, std::vector<uint8_t>(leaf_pos.size(), 0));
    up.assign(S, {});
    for (int i : order) {  // increasing rank: children first
      const Node& n = f.node(sw[static_cast<size_t>(i)]);
      for (int p = 1; p <= n.num_ports; p++) {
        const int v = n.port(p).peer_node;
        if (v < 0 || !f.node(v).is_switch()) continue;
        const int c = pos[static_cast<size_t>(v)];
        if (rank[static_cast<size_t>(c)] > rank[static_cast<size_t>(i)]) {
          up[static_cast<size_t>(i)].push_back(static_cast<uint8_t>(p));
        } else if (rank[static_cast<size_t>(c)] < rank[static_cast<size_t>(i)]) {
          if (leaf_of[static_cast<size_t>(c)] >= 0) down[static_cast<size_t>(i)][static_cast<size_t>(leaf_of[static_cast<size_t>(c)])] = static_cast<uint8_t>(p);
          for (size_t L = 0; L < leaf_pos.size(); L++)
            if (down[static_cast<size_t>(c)][L] && !down[static_cast<size_t>(i)][L]) down[static_cast<size_t>(i)][L] = static_cast<uint8_t>(p);
        }
      }
    }
    const size_t top = static_cast<size_t>(f.max_lid()) + 1;
    lid_leaf.assign(top, -1);
    lid_port.assign(top, 0);
    lid_switch.assign(top, -1);
    for (const EndPort& e : f.end_ports())
      for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) {
        if (f.node(e.node).is_switch()) {
          lid_switch[l] = pos[static_cast<size_t>(e.node)];
          continue;
        }
        const Port& p = f.node(e.node).port(e.port);
        if (p.peer_node < 0) continue;
        lid_leaf[l] = leaf_of[static_cast<size_t>(pos[static_cast<size_t>(p.peer_node)])];
        lid_port[l] = static_cast<uint8_t>(p.peer_port);
      }
  }
  // The timed pass: every entry of every switch's table.
  void fill(Lfts& out) const {
    for (size_t i = 0; i < sw.size(); i++) {
      std::vector<uint8_t>& tab = out.table(sw[i]);
      const std::vector<uint8_t>& dn = down[i];
      const std::vector<uint8_t>& ups = up[i];
      const size_t nup = std::max<size_t>(1, ups.size());
      for (size_t l = 1; l < lid_leaf.size(); l++) {
        const int L = lid_leaf[l];
        uint8_t p;
        if (L >= 0 && leaf_pos[static_cast<size_t>(L)] == static_cast<int>(i)) p = lid_port[l];
        else if (L >= 0 && dn[static_cast<size_t>(L)]) p = dn[static_cast<size_t>(L)];
        else if (lid_switch[l] == static_cast<int>(i)) p = 0;
        else p = ups.empty() ? kNoPath : ups[l % nup];
        tab[l] = p;
      }
    }
  }
};

// The routing step as the plugin runs it (the routing pipeline: engine + self-check + verdict, no
// file output) in a forked child, so that its peak RSS is the step's on top of the fabric the
// parent holds (ru_maxrss keeps the high-water mark of the pages the child shares at the fork).
struct StepFigures {
  double wall = 0, cpu = 0;
  long maxrss_kb = 0;
  int ok = 0;          // verdict ok
  uint64_t digest = 0;  // of the tables
  char source[64] = {};
};
StepFigures routing_step_in_child(const Fabric& f, bool reuse_self_check) {
  StepFigures out;
  int fd[2];
  if (pipe(fd) != 0) return out;
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    StepFigures r;
    PipelineOptions po;
    po.reuse_self_check = reuse_self_check;
    RoutingPipeline p("ftree-misroute", EngineOptions{}, po);
    const double c = cpu_now();
    const auto t = Clock::now();
    RoutedStep st = p.run(f);
    r.wall = secs(t, Clock::now());
    r.cpu = cpu_now() - c;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    r.maxrss_kb = ru.ru_maxrss;
    r.ok = st.verdict.ok();
    r.digest = lfts_digest(f, st.routing.lfts);
    std::snprintf(r.source, sizeof r.source, "%s", st.verdict.source.c_str());
    const ssize_t n = write(fd[1], &r, sizeof r);
    _exit(n == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  close(fd[1]);
  const ssize_t n = read(fd[0], &out, sizeof out);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (n != static_cast<ssize_t>(sizeof out)) out = StepFigures{};
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ftroute = self_dir() + "/../cli/ftroute", dir = "/tmp/bench_scale";
  bool keep = false, engine_only = false, minhop = false;
  int baseline_radix = 36;
  std::vector<int> radices;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--ftroute" && i + 1 < argc) ftroute = argv[++i];
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--keep") keep = true;
    else if (a == "--engine-only") engine_only = true;
    else if (a == "--minhop") minhop = true;
    else if (a == "--baseline-radix" && i + 1 < argc) baseline_radix = std::atoi(argv[++i]);
    else if (a == "-h" || a == "--help") {
      std::printf("usage: bench_scale [--ftroute PATH] [--dir DIR] [--keep] [--baseline-radix R] [--engine-only] [--minhop] [RADIX ...]\n");
      return 0;
    } else radices.push_back(std::atoi(a.c_str()));
  }
  if (radices.empty()) radices = {36, 48, 52, 56};
  std::filesystem::create_directories(dir);
  if (!std::filesystem::exists(ftroute)) {
    std::fprintf(stderr, "bench_scale: %s not found (build the ftroute target or pass --ftroute)\n", ftroute.c_str());
    return 2;
  }
  std::printf("bench_scale: ftroute %s, files in %s, baselines up to radix %d\n", ftroute.c_str(), dir.c_str(),
              baseline_radix);
  for (int R : radices) {
    const std::string tag = dir + "/r" + std::to_string(R);
    Fabric f = topo::fat_tree3(R);
    {
      std::ofstream(tag + ".net") << write_net(f);
    }
    f.assign_lids(0);
    long entries = 0;
    std::printf("\n== radix %d: %zu switches, %zu HCAs, %u LIDs\n", R, f.switches().size(), f.cas().size(),
                static_cast<unsigned>(f.max_lid()));
    {
      const double c = cpu_now();
      Fabric g = read_net_file(tag + ".net");
      const double dc = cpu_now() - c;
      const uint64_t n = std::filesystem::file_size(tag + ".net");
      std::printf("net file  %.1f MB read in %.2f s CPU (%.0f MB/s), %d nodes\n", mb(n), dc, mb(n) / dc, g.size());
    }
    if (minhop) {
      // ft-minhop: default threads, one thread, and the previous code (same run, same LFTs)
      auto mh = make_engine("ft-minhop");
      auto timed = [&](const EngineOptions& o, bool slow, Routing& out) {
        if (slow) setenv("FTROUTE_SLOW_MINHOP", "1", 1);
        const double c = cpu_now();
        const auto t = Clock::now();
        out = mh->route(f, o);
        const double w = secs(t, Clock::now()), dc = cpu_now() - c;
        unsetenv("FTROUTE_SLOW_MINHOP");
        return std::pair<double, double>(w, dc);
      };
      Routing rd, r1, rs;
      EngineOptions one;
      one.set("threads", "1");
      const auto [dw, dc] = timed({}, false, rd);
      const auto [ow, oc] = timed(one, false, r1);
      std::printf("ft-minhop default threads %.2f s wall, %.2f s CPU; threads=1 %.2f s wall, %.2f s CPU (wall %.2fx)%s\n",
                  dw, dc, ow, oc, ow > 0 ? dw / ow : 0.0, rd.lfts == r1.lfts ? ", same LFTs" : ", LFTS DIFFER");
      if (R <= baseline_radix) {
        const auto [sw, sc] = timed({}, true, rs);
        std::printf("ft-minhop previous code (FTROUTE_SLOW_MINHOP=1) %.2f s wall, %.2f s CPU: threads=1 / previous CPU "
                    "%.3fx, default wall / previous %.3fx%s\n",
                    sw, sc, sc > 0 ? oc / sc : 0.0, sw > 0 ? dw / sw : 0.0,
                    rs.lfts == rd.lfts ? ", same LFTs" : ", LFTS DIFFER");
      }
      std::fflush(stdout);
      std::filesystem::remove(tag + ".net");
      continue;
    }
    // the routing step as the plugin runs it, against a plain d-mod-k pass over the same tables
    {
      const StepFigures st = routing_step_in_child(f, true);
      const StepFigures walk = routing_step_in_child(f, false);
      PlainDmodk plain(f);
      Lfts tabs(f);
      const double c = cpu_now();
      const auto t = Clock::now();
      plain.fill(tabs);
      const double pw = secs(t, Clock::now()), pc = cpu_now() - c;
      std::printf("routing step: %.2f s wall, %.2f s CPU, %.0f MB peak RSS, %.2fx plain d-mod-k\n", st.wall, st.cpu,
                  static_cast<double>(st.maxrss_kb) / 1024.0, pw > 0 ? st.wall / pw : 0.0);
      std::printf("  verdict %s by the %s; plain d-mod-k %.2f s wall, %.2f s CPU (one thread); with the second walk "
                  "(the result walk after the self-check) %.2f s wall, %.2f s CPU, verdict %s: step/with %.2fx wall, "
                  "%.2fx CPU%s\n",
                  st.ok ? "ok" : "FAILED", st.source, pw, pc, walk.wall, walk.cpu, walk.ok ? "ok" : "FAILED",
                  walk.wall > 0 ? st.wall / walk.wall : 0.0, walk.cpu > 0 ? st.cpu / walk.cpu : 0.0,
                  st.digest == walk.digest && st.ok == walk.ok ? ", same LFTs and verdict" : ", LFTS OR VERDICT DIFFER");
      std::fflush(stdout);
    }
    // engine
    auto engine = make_engine("ftree-misroute");
    EngineOptions off;
    off.set("check", "false");
    double c0 = cpu_now();
    auto t0 = Clock::now();
    Routing r = engine->route(f);
    const double eng_wall = secs(t0, Clock::now()), eng_cpu = cpu_now() - c0;
    c0 = cpu_now();
    t0 = Clock::now();
    { Routing r2 = engine->route(f, off); }
    const double raw_cpu = cpu_now() - c0;
    // baseline in the same run: one thread (threads=1), same LFTs
    EngineOptions one;
    one.set("threads", "1");
    c0 = cpu_now();
    t0 = Clock::now();
    bool same = false;
    {
      Routing r1 = engine->route(f, one);
      same = r1.lfts == r.lfts;
    }
    const double one_wall = secs(t0, Clock::now()), one_cpu = cpu_now() - c0;
    for (int s : f.switches())
      for (uint8_t p : r.lfts.table(s)) entries += p != kNoPath;
    std::printf("engine    ftree-misroute (check=auto) %.2f s CPU (%.2f s wall); check=false %.2f s CPU: self-check "
                "costs %.2fx\n",
                eng_cpu, eng_wall, raw_cpu, raw_cpu > 0 ? eng_cpu / raw_cpu : 0.0);
    std::printf("engine    threads=1 (check=auto) %.2f s CPU (%.2f s wall): default threads wall %.2fx of one thread%s\n",
                one_cpu, one_wall, one_wall > 0 ? eng_wall / one_wall : 0.0, same ? ", same LFTs" : ", LFTS DIFFER");
    std::fflush(stdout);
    if (engine_only) {
      std::filesystem::remove(tag + ".net");
      continue;
    }
    // route to a file
    const std::string dump = tag + ".dump";
    Child rt = run({ftroute, "route", "-e", "ftree-misroute", tag + ".net", "-o", dump, "-q"}, {}, tag + ".route.log");
    const uint64_t size = std::filesystem::exists(dump) ? std::filesystem::file_size(dump) : 0;
    std::printf("route     %s: %.1f s wall, %.1f s CPU, %.0f MB written at %.0f MB/s, peak RSS %.0f MB (%.1f B per LFT "
                "entry, %ld entries)\n",
                rt.status == 0 ? "ok" : "FAILED", rt.wall, rt.cpu, mb(size), mb(size) / rt.wall, rt.maxrss_kb / 1024.0,
                rt.maxrss_kb * 1024.0 / static_cast<double>(entries), entries);
    std::fflush(stdout);
    if (R <= baseline_radix) {
      Child old = run({ftroute, "route", "-e", "ftree-misroute", tag + ".net", "-o", tag + ".old.dump", "-q"},
                      {"FTROUTE_SLOW_LFT_WRITER=1"}, tag + ".route_old.log");
      const bool same = old.status == 0 && std::filesystem::exists(tag + ".old.dump") &&
                        std::filesystem::file_size(tag + ".old.dump") == size;
      std::printf("  baseline (old string writer): %.1f s wall, peak RSS %.0f MB -> new/old wall %.2fx, RSS %.3fx%s\n",
                  old.wall, old.maxrss_kb / 1024.0, rt.wall / old.wall,
                  static_cast<double>(rt.maxrss_kb) / static_cast<double>(old.maxrss_kb),
                  same ? ", same size" : ", SIZE DIFFERS");
      std::filesystem::remove(tag + ".old.dump");
    }
    // check
    Child ck = run({ftroute, "check", "-f", tag + ".net", "-l", dump, "-q"}, {}, tag + ".check.log");
    std::printf("check     %s: %.1f s wall, %.1f s CPU, peak RSS %.0f MB\n", ck.status == 0 ? "PASS" : "FAILED", ck.wall,
                ck.cpu, ck.maxrss_kb / 1024.0);
    std::fflush(stdout);
    if (R <= baseline_radix) {
      Child old = run({ftroute, "check", "-f", tag + ".net", "-l", dump, "-q"}, {"FTROUTE_SLOW_LFT_READER=1"},
                      tag + ".check_old.log");
      std::printf("  baseline (full reader): %.1f s wall, %.1f s CPU, peak RSS %.0f MB -> new/old wall %.2fx, CPU %.2fx, "
                  "RSS %.3fx\n",
                  old.wall, old.cpu, old.maxrss_kb / 1024.0, ck.wall / old.wall, ck.cpu / old.cpu,
                  static_cast<double>(ck.maxrss_kb) / static_cast<double>(old.maxrss_kb));
    }
    // parse in-process (fast reader; the fabric without LIDs adopts them like `check` does)
    {
      Fabric g = topo::fat_tree3(R);
      c0 = cpu_now();
      t0 = Clock::now();
      auto m = fast_read_map_lfts(dump, LftFormat::Auto, g, true);
      const double w = secs(t0, Clock::now()), c = cpu_now() - c0;
      std::printf("parse     %s: %.1f s wall (%.0f MB/s), %.1f s CPU (%.0f MB/s)%s\n", m ? "fast reader" : "DECLINED", w,
                  mb(size) / w, c, mb(size) / c, m && m->lfts == r.lfts ? ", same LFTs as the engine" : ", LFTS DIFFER");
    }
    if (!keep) std::filesystem::remove(dump);
    // validation in-process
    {
      c0 = cpu_now();
      t0 = Clock::now();
      ValidationReport rep = validate(f, r);
      const double w = secs(t0, Clock::now()), c = cpu_now() - c0;
      std::printf("validate  %s: %.1f s CPU (%.1f s wall), %llu pairs, %zu dependencies\n", rep.ok() ? "PASS" : "FAIL", c, w,
                  static_cast<unsigned long long>(rep.pairs), rep.cdg_edges);
      if (R <= baseline_radix) {
        CdgBuildOptions fast, slow;
        slow.force_per_source = true;
        c0 = cpu_now();
        CdgBuild a = build_cdg(f, r, fast);
        const double ca = cpu_now() - c0;
        c0 = cpu_now();
        CdgBuild b = build_cdg(f, r, slow);
        const double cb = cpu_now() - c0;
        std::printf("  baseline (per-source CDG walk): build_cdg %.2f s CPU vs switch-level %.2f s -> %.2fx%s\n", cb, ca,
                    ca / cb, a.cdg.edges() == b.cdg.edges() ? ", same dependencies" : ", DEPENDENCIES DIFFER");
      }
    }
    std::fflush(stdout);
  }
  return 0;
}
