// bench_lftwrite (issue 29 item 4): the LFT text writer. On `ftroute gen fattree3 --radix R`
// trees routed by ftree-misroute (check=false; the LFTs are the same with the check), it times
// write_lfts (lft_write.cpp) against the previous writer, write_lfts_reference (lft_io.cpp), in
// the same run: each writes the whole dump through AtomicFile to /dev/null (what `ftroute route
// -o /dev/null` does), best of REPS by CPU time (one thread; wall alongside). Then each writer's
// stream is hashed once more (a 64-bit hash over the bytes, independent of where the chunks
// end) and the line says whether both gave the same bytes:
//   opensm-lfts writer: X.XXX s old, Y.YYY s new, R.RRx (CPU; wall ...), same bytes (N bytes, hash H)
//
// Usage: bench_lftwrite [RADIX ...] (default 24 56) [--reps N (default 3)]
//                       [--style opensm|dump_fts|minimal (repeatable; default all three)]
// Figures and the command of the last run: docs/scale.md section 14.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_clock.hpp"
#include "ftroute/atomic_file.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using namespace ftroute::bench;

namespace {

// FNV-style multiply-xor over 8-byte little-endian words in four lanes, fed byte-exactly across
// chunk boundaries (a word may span two chunks). Each step is a bijection of the lane's state, so
// streams that differ in one word always differ before the final mix.
class StreamHash {
 public:
  void add(std::string_view s) {
    bytes_ += s.size();
    const char* p = s.data();
    size_t n = s.size();
    while (n && fill_) {  // complete the pending block
      pend_[fill_++] = *p++, n--;
      if (fill_ == 32) block(pend_), fill_ = 0;
    }
    for (; n >= 32; p += 32, n -= 32) block(p);
    std::memcpy(pend_, p, n);
    fill_ = n;
  }
  uint64_t digest() const {
    uint64_t h = bytes_ * kMul;
    for (uint64_t l : lane_) h = (h ^ l) * kMul, h ^= h >> 29;
    for (size_t i = 0; i < fill_; i++) h = (h ^ static_cast<unsigned char>(pend_[i])) * kMul;
    return h ^ (h >> 32);
  }
  uint64_t bytes() const { return bytes_; }

 private:
  static constexpr uint64_t kMul = 0x100000001b3ull * 0x9e3779b97f4a7c15ull | 1;
  void block(const char* p) {
    for (int i = 0; i < 4; i++) {
      uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      lane_[i] = (lane_[i] ^ w) * kMul;
    }
  }
  uint64_t lane_[4] = {1, 2, 3, 4};
  char pend_[32];
  size_t fill_ = 0;
  uint64_t bytes_ = 0;
};

using Writer = void (*)(const Fabric&, const Lfts&, LftFormat, TextOut&);

struct Timing {
  double cpu = 1e300, wall = 1e300;
};

// Best of reps: the dump through AtomicFile into /dev/null, as `ftroute route -o /dev/null`.
Timing time_writer(Writer w, const Fabric& f, const Lfts& l, LftFormat style, int reps) {
  Timing best;
  for (int r = 0; r < reps; r++) {
    const double c0 = cpu_now();
    const auto t0 = Clock::now();
    AtomicFile file("/dev/null");
    TextOut out(file.sink());
    w(f, l, style, out);
    out.flush();
    file.commit();
    best.cpu = std::min(best.cpu, cpu_now() - c0);
    best.wall = std::min(best.wall, secs(t0, Clock::now()));
  }
  return best;
}

StreamHash hash_writer(Writer w, const Fabric& f, const Lfts& l, LftFormat style) {
  StreamHash h;
  TextOut out([&](std::string_view c) { h.add(c); });
  w(f, l, style, out);
  out.flush();
  return h;
}

const char* label(LftFormat s) { return s == LftFormat::Opensm ? "opensm-lfts" : lft_format_name(s); }

std::string thousands(uint64_t v) {
  const std::string d = std::to_string(v);
  std::string s;
  for (size_t i = 0; i < d.size(); i++) {
    if (i && (d.size() - i) % 3 == 0) s += ',';
    s += d[i];
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> radices;
  std::vector<LftFormat> styles;
  int reps = 3;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--style" && i + 1 < argc) {
      auto s = parse_lft_format(argv[++i]);
      if (!s || *s == LftFormat::Auto) {
        std::fprintf(stderr, "bench_lftwrite: unknown style '%s' (opensm, dump_fts, minimal)\n", argv[i]);
        return 2;
      }
      styles.push_back(*s);
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: bench_lftwrite [RADIX ...] [--reps N] [--style opensm|dump_fts|minimal ...]\n");
      return 0;
    } else if (std::atoi(a.c_str()) >= 4) radices.push_back(std::atoi(a.c_str()));
    else {
      std::fprintf(stderr, "bench_lftwrite: bad argument '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (radices.empty()) radices = {24, 56};
  if (styles.empty()) styles = {LftFormat::Opensm, LftFormat::DumpFts, LftFormat::Minimal};
  bool all_same = true;
  for (int R : radices) {
    Fabric f = topo::fat_tree3(R);
    f.assign_lids(0);
    EngineOptions o;
    o.set("check", "false");
    const Routing r = make_engine("ftree-misroute")->route(f, o);
    size_t entries = 0;
    for (int s : f.switches())
      for (uint8_t p : r.lfts.table(s)) entries += p != kNoPath;
    std::printf("== radix %d: %zu switches, %u LIDs, %s LFT entries; best of %d, to /dev/null\n", R,
                f.switches().size(), static_cast<unsigned>(f.max_lid()), thousands(entries).c_str(), reps);
    std::fflush(stdout);
    for (LftFormat style : styles) {
      const Timing old = time_writer(write_lfts_reference, f, r.lfts, style, reps);
      const Timing now = time_writer(write_lfts, f, r.lfts, style, reps);
      const StreamHash ho = hash_writer(write_lfts_reference, f, r.lfts, style);
      const StreamHash hn = hash_writer(write_lfts, f, r.lfts, style);
      const bool same = ho.bytes() == hn.bytes() && ho.digest() == hn.digest();
      all_same = all_same && same;
      std::printf("%s writer: %.3f s old, %.3f s new, %.2fx (CPU; wall %.3f / %.3f s, %.2fx), %s (%s bytes, hash "
                  "%016" PRIx64 ")\n",
                  label(style), old.cpu, now.cpu, old.cpu / now.cpu, old.wall, now.wall, old.wall / now.wall,
                  same ? "same bytes" : "BYTES DIFFER", thousands(hn.bytes()).c_str(), hn.digest());
      if (!same)
        std::printf("  old: %s bytes, hash %016" PRIx64 "\n", thousands(ho.bytes()).c_str(), ho.digest());
      std::fflush(stdout);
    }
  }
  return all_same ? 0 : 1;
}
