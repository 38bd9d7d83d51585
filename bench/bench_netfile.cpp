// bench_netfile: .net parse speed (issue 15: parsing >= 300 MB/s), the fast reader
// (fabric/netfile_fast.cpp) against the full parser (FTROUTE_SLOW_NET_READER=1) in the same
// run, on `ftroute gen fattree3 --radix R` trees written by write_net with LIDs. read_net_file
// from a file in the page cache (read once before timing): wall and CPU seconds, best of REPS,
// MB/s = file bytes / wall seconds, and both Fabrics compared (fabric_diff); also the parse
// alone on the text in memory (CPU) and the file read alone (read_input_text, wall).
//
// Usage: bench_netfile [RADIX ...] (default 36 52) [--reps N (default 3)] [--dir DIR] [--parse-only]
// Figures and the command of the last run: docs/scale.md section 6a.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench_clock.hpp"
#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using namespace ftroute::bench;

namespace {

struct Timing {
  double wall = -1, cpu = -1;
};

Timing best_of(int reps, const std::string& path, Fabric* out) {
  Timing b;
  for (int r = 0; r < reps; ++r) {
    const double c0 = cpu_now();
    const auto w0 = Clock::now();
    Fabric f = read_net_file(path);
    const double w = secs(w0, Clock::now()), c = cpu_now() - c0;
    if (b.wall < 0 || w < b.wall) b.wall = w;
    if (b.cpu < 0 || c < b.cpu) b.cpu = c;
    if (out && r == 0) *out = std::move(f);
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> radices;
  int reps = 3;
  bool parse_only = false;
  std::string dir = std::filesystem::temp_directory_path().string();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--parse-only") parse_only = true;  // only fast_parse_net in memory, REPS times (for perf)
    else radices.push_back(std::atoi(a.c_str()));
  }
  if (radices.empty()) radices = {36, 52};
  std::printf("bench_netfile: read_net_file, fast reader vs full parser (FTROUTE_SLOW_NET_READER=1), best of %d\n", reps);
  int rc = 0;
  for (int radix : radices) {
    Fabric g = topo::fat_tree3(radix);
    g.assign_lids();
    const std::string path = dir + "/bench_netfile_" + std::to_string(getpid()) + "_r" + std::to_string(radix) + ".net";
    { std::ofstream(path) << write_net(g); }
    const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    if (parse_only) {
      const std::string text = write_net(g);
      const double c0 = cpu_now();
      double best = -1;
      for (int r = 0; r < reps; ++r) {
        const double c1 = cpu_now();
        if (!fast_parse_net(text)) return 1;
        const double c = cpu_now() - c1;
        if (best < 0 || c < best) best = c;
      }
      std::printf("radix %d: fast_parse_net %.1f MB/s CPU (mean of %d), best %.1f MB/s\n", radix,
                  mb * reps / (cpu_now() - c0), reps, mb / best);
      std::filesystem::remove(path);
      continue;
    }
    try {
      Fabric fast, slow;
      (void)best_of(1, path, nullptr);  // page cache
      const Timing tf = best_of(reps, path, &fast);
      setenv("FTROUTE_SLOW_NET_READER", "1", 1);
      const Timing ts = best_of(reps, path, &slow);
      unsetenv("FTROUTE_SLOW_NET_READER");
      // the parse alone, text in memory (no file read)
      std::string text;
      {
        std::ifstream in(path, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      double parse_cpu = -1;
      for (int r = 0; r < reps; ++r) {
        const double c0 = cpu_now();
        auto f = fast_parse_net(text);
        const double c = cpu_now() - c0;
        if (!f) throw Error("the fast reader declined the generated file");
        if (parse_cpu < 0 || c < parse_cpu) parse_cpu = c;
      }
      // the file read alone (read_input_text as read_net_file does it, no parse)
      double read_wall = -1;
      for (int r = 0; r < reps; ++r) {
        InputLimits lim = net_input_limits();
        lim.caller_checks_text = true;
        const auto w0 = Clock::now();
        const InputText t = read_input_text(path, lim);
        const double w = secs(w0, Clock::now());
        if (t.view().size() != text.size()) throw Error("short read");
        if (read_wall < 0 || w < read_wall) read_wall = w;
      }
      const std::string diff = fabric_diff(fast, slow);
      std::printf("radix %d (%zu switches, %zu CAs, %.1f MB .net):\n", radix, g.switches().size(), g.cas().size(), mb);
      std::printf("  fast reader  %7.3f s wall (%6.0f MB/s), %7.3f s CPU (%6.0f MB/s)\n", tf.wall, mb / tf.wall, tf.cpu,
                  mb / tf.cpu);
      std::printf("  fast_parse_net on the text in memory: %.3f s CPU (%.0f MB/s)\n", parse_cpu, mb / parse_cpu);
      std::printf("  the file read alone (read_input_text): %.4f s wall (%.0f MB/s)\n", read_wall, mb / read_wall);
      std::printf("  full parser  %7.3f s wall (%6.0f MB/s), %7.3f s CPU (%6.0f MB/s)\n", ts.wall, mb / ts.wall, ts.cpu,
                  mb / ts.cpu);
      std::printf("  ratio fast / full: wall %.3f, CPU %.3f; fabrics %s\n", tf.wall / ts.wall, tf.cpu / ts.cpu,
                  diff.empty() ? "identical" : ("DIFFER: " + diff).c_str());
      if (!diff.empty()) rc = 1;
    } catch (const Error& e) {
      std::printf("radix %d: %s\n", radix, e.what());
      rc = 1;
    }
    std::filesystem::remove(path);
    std::fflush(stdout);
  }
  return rc;
}
