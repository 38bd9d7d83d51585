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
