// The fast LFT reader (fast_read_map_lfts, issue 15) against the full reader (read_lft_file +
// adopt_lids + map_lfts): the same Lfts, fabric LIDs and warnings on every real OpenSM /
// dump_fts / ibroute file in tests/data/lft/ and on generated dumps of the shipped fabrics in all
// three styles, with LIDs remapped (renumbered fabric) and adopted (fabric without LIDs); and on
// 800 randomly damaged files (deleted/duplicated/swapped lines, flipped characters, binary bytes,
// CRLF, long lines, bad GUIDs) either both succeed identically or the fast reader declines and the
// full reader's error is what load_routing reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ftroute/registry.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/error.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "test_scale.hpp"

using namespace ftroute;

namespace {

const std::string kSrc = FTROUTE_SOURCE_DIR;

std::string tmpdir() {
  const std::string d = std::string(FTROUTE_BINARY_DIR) + "/itest-scratch/lft_fast";
  std::filesystem::create_directories(d);
  return d;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

struct Outcome {
  bool ok = false;
  std::string error;
  Lfts lfts;
  std::vector<std::string> warnings;
  std::vector<std::pair<Lid, uint8_t>> lids;  // fabric LIDs after reading (adopt)
};

std::vector<std::pair<Lid, uint8_t>> lids_of(const Fabric& f) {
  std::vector<std::pair<Lid, uint8_t>> v;
  for (int i = 0; i < f.size(); i++)
    for (int p = 0; p <= f.node(i).num_ports; p++) v.emplace_back(f.node(i).port(p).base_lid, f.node(i).port(p).lmc);
  return v;
}

Outcome slow(const std::string& path, Fabric f, bool adopt) {
  Outcome o;
  try {
    LftFile file = read_lft_file(path);
    if (adopt) adopt_lids(file, f);
    LftMapResult m = map_lfts(file, f);
    o.ok = true;
    o.lfts = std::move(m.lfts);
    o.warnings = std::move(m.warnings);
    o.lids = lids_of(f);
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

// Returns {fast declined?, outcome}
std::pair<bool, Outcome> fast(const std::string& path, Fabric f, bool adopt) {
  Outcome o;
  auto r = fast_read_map_lfts(path, LftFormat::Auto, f, adopt);
  if (!r) return {true, o};
  o.ok = true;
  o.lfts = std::move(r->lfts);
  o.warnings = std::move(r->warnings);
  o.lids = lids_of(f);
  return {false, o};
}

// The fast reader either declines or gives exactly what the full reader gives (which must then
// succeed). Returns true if the fast reader took the file.
bool expect_equivalent(const std::string& path, const Fabric& f, bool adopt, const std::string& what) {
  SCOPED_TRACE(what);
  const Outcome s = slow(path, f, adopt);
  auto [declined, o] = fast(path, f, adopt);
  if (declined) return false;
  EXPECT_TRUE(s.ok) << "fast reader accepted a file the full reader rejects: " << s.error;
  if (!s.ok) return true;
  EXPECT_TRUE(o.lfts == s.lfts) << "LFTs differ";
  EXPECT_EQ(o.warnings, s.warnings);
  EXPECT_EQ(o.lids, s.lids);
  return true;
}

Fabric net(const std::string& p) { return read_net_file(p); }

}  // namespace

TEST(LftFast, RealToolOutput) {
  int took = 0;
  for (const std::string name : {"2sw4hca", "ft4x2", "ring4"}) {
    const Fabric f = net(kSrc + "/tests/data/lft/" + name + ".net");
    for (const std::string ext : {".opensm-lfts.dump", ".dump_fts", ".ibroute"})
      for (bool adopt : {false, true}) {
        const std::string p = kSrc + "/tests/data/lft/" + name + ext;
        Fabric g = f;
        if (!adopt && g.max_lid() == 0) continue;
        took += expect_equivalent(p, g, adopt, name + ext + (adopt ? " adopt" : ""));
      }
  }
  {
    const Fabric f = net(kSrc + "/tests/data/lft/ft4x2.net");
    for (const std::string ext : {".opensm-lfts.dump", ".dump_fts"})
      took += expect_equivalent(kSrc + "/tests/data/lft/ft4x2_lmc1" + ext, f, true, "ft4x2_lmc1" + ext);
  }
  EXPECT_GE(took, 6) << "the fast reader declined the real files";
}

TEST(LftFast, GeneratedDumpsOfShippedFabrics) {
  int took = 0, n = 0;
  std::vector<std::filesystem::path> nets;
  for (const auto& e : std::filesystem::directory_iterator(kSrc + "/ibsim_topologies/nets"))
    if (e.path().extension() == ".net") nets.push_back(e.path());
  std::sort(nets.begin(), nets.end());
  ASSERT_GE(nets.size(), 10u);
  for (size_t k = 0; k < nets.size(); k++) {
    if (!test_scale::sampled(k, 4)) continue;
    const std::filesystem::directory_entry e(nets[k]);
    Fabric f = net(e.path().string());
    f.assign_lids(1);
    const Routing r = make_engine("ft-minhop")->route(f);
    for (LftFormat style : {LftFormat::Opensm, LftFormat::DumpFts, LftFormat::Minimal}) {
      const std::string p = tmpdir() + "/gen.dump";
      write(p, write_lfts(f, r.lfts, style));
      const std::string what = e.path().filename().string() + " " + lft_format_name(style);
      took += expect_equivalent(p, f, false, what);
      Fabric renum = f;  // other LIDs: the file's are remapped through the portguids
      renum.assign_lids(1, false);
      took += expect_equivalent(p, renum, false, what + " renumbered");
      if (style != LftFormat::Minimal || true) {
        Fabric nolids = net(e.path().string());
        took += expect_equivalent(p, nolids, true, what + " adopt");
      }
      n += 3;
    }
  }
  EXPECT_GE(took, n * 9 / 10) << took << " of " << n;
}

TEST(LftFast, RandomDamageAgreesWithFullReader) {
  Fabric f = net(kSrc + "/ibsim_topologies/nets/4ary3tree.net");
  f.assign_lids(1);
  const Routing r = make_engine("ft-minhop")->route(f);
  const std::string good[2] = {write_lfts(f, r.lfts, LftFormat::Opensm), write_lfts(f, r.lfts, LftFormat::DumpFts)};
  std::mt19937_64 rng(15);
  int took = 0, declined = 0;
  for (int it = 0; it < test_scale::rounds(800); it++) {
    std::vector<std::string> lines;
    {
      std::istringstream in(good[it % 2]);
      std::string l;
      while (std::getline(in, l)) lines.push_back(l);
    }
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; k++) {
      size_t i = rng() % lines.size();
      std::string& l = lines[i];
      switch (rng() % 12) {
        case 0: lines.erase(lines.begin() + static_cast<long>(i)); break;
        case 1: lines.insert(lines.begin() + static_cast<long>(i), l); break;  // duplicate line
        case 2: std::swap(l, lines[rng() % lines.size()]); break;
        case 3: if (!l.empty()) l[rng() % l.size()] = static_cast<char>('0' + rng() % 10); break;
        case 4: if (!l.empty()) l[rng() % l.size()] = static_cast<char>(rng() % 256); break;  // maybe binary
        case 5: l += '\r'; break;
        case 6: l = "  " + l + "  "; break;
        case 7: if (l.size() > 7) l.erase(rng() % l.size(), 1); break;
        case 8: l += std::string(5000, 'x'); break;
        case 9: if (auto p = l.find("portguid 0x"); p != std::string::npos) l[p + 11 + rng() % 16] = 'f'; break;
        case 10: if (l.size() > 12) l.replace(7, 3, std::to_string(rng() % 300)); break;  // port column
        case 11: lines.insert(lines.begin() + static_cast<long>(i), "# comment " + std::to_string(it)); break;
      }
      if (lines.empty()) lines.push_back("");
    }
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    if (it % 7 == 0 && !text.empty()) text.pop_back();  // no final newline
    const std::string p = tmpdir() + "/fuzz.dump";
    write(p, text);
    const bool adopt = it % 3 == 0;
    Fabric g = adopt ? net(kSrc + "/ibsim_topologies/nets/4ary3tree.net") : f;
    const bool t = expect_equivalent(p, g, adopt, "iteration " + std::to_string(it));
    took += t;
    declined += !t;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(took, test_scale::rounds(40)) << "fast path never exercised";
  EXPECT_GT(declined, test_scale::rounds(40)) << "damage never reached the full reader";
}

TEST(LftFast, LoadRoutingUsesItAndKeepsErrors) {
  // load_routing with the fast reader == with the full one (FTROUTE_SLOW_LFT_READER)
  Fabric f = net(kSrc + "/ibsim_topologies/nets/ft648_f1.net");
  f.assign_lids(0);
  const Routing r = make_engine("ft-minhop")->route(f);
  const std::string d = tmpdir();
  write(d + "/f.net", write_net(f));
  write(d + "/l.dump", write_lfts(f, r.lfts));
  Fabric nolids = net(kSrc + "/ibsim_topologies/nets/ft648_f1.net");
  write(d + "/n.net", write_net(nolids));
  for (const std::string& fab : {d + "/f.net", d + "/n.net"}) {
    LoadedRouting a = load_routing(fab, d + "/l.dump");
    setenv("FTROUTE_SLOW_LFT_READER", "1", 1);
    LoadedRouting b = load_routing(fab, d + "/l.dump");
    unsetenv("FTROUTE_SLOW_LFT_READER");
    EXPECT_TRUE(a.routing.lfts == b.routing.lfts) << fab;
    EXPECT_TRUE(a.routing.lfts == r.lfts) << fab;
    EXPECT_EQ(a.warnings, b.warnings);
    EXPECT_EQ(a.lids_from_file, b.lids_from_file);
    EXPECT_TRUE(b.file.tables.size() > 0);
    EXPECT_TRUE(a.file.tables.empty()) << "the fast reader was not used";
  }
  // a bad line: the full reader's file:line error
  std::string text = write_lfts(f, r.lfts);
  text.insert(text.find("\n0x0005") + 1, "0x0005 999 # bad\n");
  write(d + "/bad.dump", text);
  try {
    load_routing(d + "/f.net", d + "/bad.dump");
    FAIL() << "bad port accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.dump:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("port 999 out of range"), std::string::npos) << e.what();
  }
}
