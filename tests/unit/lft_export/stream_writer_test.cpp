// Streaming writers (issue 15): write_lfts(..., TextOut&), write_path_sl/write_sl2vl/write_fdbs
// into a TextOut give the same bytes as the writers they replaced, on every shipped fabric, for
// every LFT style, with LMC, holes (LIDs a switch does not route) and a small chunk size (so the
// chunk boundaries fall inside lines). The references are the old code paths: make_lft_file +
// write_lft_file (still in the library), and verbatim copies of the old string-building path-SL /
// SL2VL writers below.
#include <gtest/gtest.h>

#include <cinttypes>
#include <filesystem>

#include "ftroute/registry.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/text_out.hpp"
#include "test_scale.hpp"

using namespace ftroute;

namespace {

std::string fmt(const char* f, auto... args) {
  char b[512];
  int n = std::snprintf(b, sizeof b, f, args...);
  return std::string(b, static_cast<size_t>(n));
}

// ---- the writers as they were before streaming (verbatim, string-building) ----
std::string old_write_path_sl(const Fabric& f, const Routing& r) {
  std::string out = "# ftroute path-SL file (ibdmchk -c): src_node_guid dlid sl\n";
  std::vector<std::pair<int, Lid>> srcs;
  for (int i = 0; i < f.size(); i++) {
    const Node& n = f.node(i);
    if (n.is_switch()) continue;
    for (int p = 1; p <= n.num_ports; p++)
      if (n.port(p).base_lid) {
        srcs.emplace_back(i, n.port(p).base_lid);
        break;
      }
  }
  const auto eps = f.end_ports();
  for (auto [node, slid] : srcs)
    for (const EndPort& e : eps)
      for (uint32_t d = e.base_lid; d <= e.last_lid(); d++) {
        if (e.node == node) continue;
        const int sl = r.sl(slid, static_cast<Lid>(d));
        if (sl == 0) continue;
        out += fmt("0x%016" PRIx64 " %u %d\n", f.node(node).guid, d, sl);
      }
  return out;
}

std::string old_write_sl2vl(const Fabric& f, const Sl2Vl& t) {
  std::string out = "# ftroute SL2VL file (ibdmchk -d): swguid iport oport 0x(sl0)(sl1) ... 0x(sl14)(sl15)\n";
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int in = 0; in <= n.num_ports; in++) {
      if (in > 0 && !n.port(in).connected()) continue;
      for (int o = 1; o <= n.num_ports; o++) {
        if (!n.port(o).connected() || o == in) continue;
        out += fmt("0x%016" PRIx64 " %d %d", n.guid, in, o);
        for (int k = 0; k < 8; k++) out += fmt(" 0x%x%x", t.vl(s, in, o, 2 * k) & 15, t.vl(s, in, o, 2 * k + 1) & 15);
        out += "\n";
      }
    }
  }
  return out;
}

// Streams with a 100-byte chunk: boundaries fall inside lines.
template <typename F>
std::string streamed(F&& write) {
  std::string s;
  size_t chunks = 0;
  TextOut out([&](std::string_view c) { s.append(c), chunks++; }, 100);
  write(out);
  out.flush();
  EXPECT_TRUE(s.size() < 200 || chunks > 1) << "the chunking was not exercised";
  return s;
}

std::vector<std::string> shipped_nets() {
  std::vector<std::string> r;
  for (const auto& e : std::filesystem::directory_iterator(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets"))
    if (e.path().extension() == ".net") r.push_back(e.path().string());
  std::sort(r.begin(), r.end());
  return r;
}

void expect_same_lfts(const Fabric& f, const Lfts& l, const std::string& what) {
  for (LftFormat style : {LftFormat::Opensm, LftFormat::DumpFts, LftFormat::Minimal}) {
    const std::string want = write_lft_file(make_lft_file(f, l, style));
    const std::string got = streamed([&](TextOut& o) { write_lfts(f, l, style, o); });
    ASSERT_EQ(got.size(), want.size()) << what << " " << lft_format_name(style);
    ASSERT_TRUE(got == want) << what << " " << lft_format_name(style);
    EXPECT_EQ(write_lfts(f, l, style), want) << what << " (string wrapper)";
  }
}

}  // namespace

TEST(StreamWriter, LftsByteIdenticalOnShippedFabrics) {
  const auto nets = shipped_nets();
  ASSERT_GE(nets.size(), 10u);
  for (size_t n = 0; n < nets.size(); n++) {
    if (!test_scale::sampled(n, 3)) continue;
    const auto& path = nets[n];
    for (int lmc : {0, 2}) {
      Fabric f = read_net_file(path);
      f.assign_lids(static_cast<uint8_t>(lmc));
      const Routing r = make_engine("ft-minhop")->route(f);
      expect_same_lfts(f, r.lfts, path + " lmc " + std::to_string(lmc));
      // Holes: every 7th entry unrouted, every 11th naming a port beyond the switch (both are
      // skipped by the writers, and in dump_fts they shift the LMC "path #k" state machine).
      Lfts holes = r.lfts;
      int k = 0;
      for (int s : f.switches())
        for (Lid l = 0; l <= f.max_lid(); l++, k++) {
          if (k % 7 == 3) holes.set(s, l, kNoPath);
          else if (k % 11 == 5) holes.set(s, l, static_cast<uint8_t>(f.node(s).num_ports + 1));
        }
      expect_same_lfts(f, holes, path + " lmc " + std::to_string(lmc) + " with holes");
    }
  }
}

TEST(StreamWriter, SlFilesByteIdentical) {
  int with_sl = 0, with_vl = 0;
  for (const auto& [net, engine] : std::vector<std::pair<std::string, std::string>>{
           {"kns_4x2_ft2.net", "kns"}, {"torus4x4.net", "ft-dor"}, {"torus4x4_f1.net", "ftdrb"},
           {"4ary3tree.net", "ftree-misroute"}}) {
    Fabric f = read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/" + net);
    f.assign_lids(engine == "ftdrb" ? 2 : 0);
    EngineOptions o;
    const Routing r = make_engine(engine)->route(f, o);
    const std::string psl = old_write_path_sl(f, r), slvl = old_write_sl2vl(f, r.sl2vl);
    with_sl += psl.find('\n') + 1 < psl.size();
    with_vl += r.num_vls > 1;
    EXPECT_TRUE(streamed([&](TextOut& t) { write_path_sl(f, r, t); }) == psl) << net;
    EXPECT_TRUE(streamed([&](TextOut& t) { write_sl2vl(f, r.sl2vl, t); }) == slvl) << net;
    EXPECT_EQ(write_path_sl(f, r), psl) << net;
    EXPECT_EQ(write_sl2vl(f, r.sl2vl), slvl) << net;
    EXPECT_EQ(streamed([&](TextOut& t) { write_fdbs(f, r.lfts, t); }), write_fdbs(f, r.lfts)) << net;
  }
  EXPECT_GE(with_sl, 1) << "no engine produced a non-zero path SL: the path-SL comparison is empty";
  EXPECT_GE(with_vl, 1);
}

TEST(StreamWriter, SinkErrorLeavesTheWriter) {
  Fabric f = read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/4ary3tree.net");
  f.assign_lids(0);
  const Routing r = make_engine("ft-minhop")->route(f);
  size_t calls = 0;
  TextOut out([&](std::string_view) {
    if (++calls == 3) throw Error("disk full");
  }, 1000);
  EXPECT_THROW(write_lfts(f, r.lfts, LftFormat::Opensm, out), Error);
  EXPECT_EQ(calls, 3u);
}

// Hostile node descriptions (quotes, backslashes, control characters, a NUL, DEL): every style
// writes them as make_lft_file does, control characters as \xNN, never raw. (dump_fts used to
// print the destination's description raw, cut at a NUL.)
TEST(StreamWriter, LftsEscapeHostileNames) {
  Fabric f = read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/4ary3tree.net");
  f.assign_lids(1);
  const Routing r = make_engine("ft-minhop")->route(f);
  const std::string evil[] = {"it's \"q\" \\ ", std::string("a\x01\x1b[31m\x7f", 8), std::string("nul\0cut", 7),
                              "tab\there\r\nnext"};
  for (int i = 0; i < f.size(); i++) f.node(i).desc = evil[static_cast<size_t>(i) % 4] + std::to_string(i);
  expect_same_lfts(f, r.lfts, "hostile names");
  for (LftFormat style : {LftFormat::Opensm, LftFormat::DumpFts, LftFormat::Minimal}) {
    const std::string s = write_lfts(f, r.lfts, style);
    for (char c : s) {
      ASSERT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) << lft_format_name(style);
    }
    if (style != LftFormat::Minimal) {
      EXPECT_NE(s.find("a\\x01\\x1b[31m\\x7f"), std::string::npos) << lft_format_name(style);
    }
  }
}
