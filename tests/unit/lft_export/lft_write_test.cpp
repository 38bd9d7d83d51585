// write_lfts (lft_write.cpp: every LID's line rendered once, copied per switch with the port
// digits filled in) against write_lfts_reference (the issue-15 writer it replaced) and, where the
// fabric is small, write_lft_file(make_lft_file(...)): the same bytes for every LftFormat (Auto
// included) and chunk size, on shipped fabrics with LMC 0-3, switches with LMC, sparse LIDs up to
// 0xBFFF with unowned LIDs between them, switches without a table or with short or overlong
// tables, unrouted (kNoPath) entries, ports beyond the switch and port 0, LMC ranges a switch
// prints only in part (dump_fts' "path #k" lines then follow the printed entries), and hostile
// node descriptions (quotes, backslashes, '%', control characters, NUL, DEL, 8-bit bytes, names
// longer than TextOut's buffer slack). Differences are reported at their first byte, with the
// line each writer wrote there.
#include <gtest/gtest.h>

#include <random>

#include "ftroute/engine.hpp"
#include "ftroute/error.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/text_out.hpp"
#include "ftroute/topology.hpp"
#include "test_scale.hpp"

using namespace ftroute;

namespace {

using Writer = void (*)(const Fabric&, const Lfts&, LftFormat, TextOut&);

std::string written(Writer w, const Fabric& f, const Lfts& l, LftFormat style, size_t chunk) {
  std::string s;
  size_t chunks = 0;
  TextOut out([&](std::string_view c) { s.append(c), chunks++; }, chunk);
  w(f, l, style, out);
  out.flush();
  if (chunk < 1000 && s.size() > 3 * (chunk + TextOut::kSlack)) {
    EXPECT_GT(chunks, 2u) << "chunking not exercised";
  }
  return s;
}

// "" when equal, else where they differ: offset, line number, and both lines there.
std::string first_difference(const std::string& got, const std::string& want) {
  if (got == want) return "";
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) i++;
  size_t bol = i == 0 ? std::string::npos : want.rfind('\n', i - 1);
  bol = bol == std::string::npos ? 0 : bol + 1;
  auto line_at = [&](const std::string& s) {
    if (bol >= s.size()) return std::string("<end of text>");
    const size_t eol = s.find('\n', bol);
    return s.substr(bol, eol == std::string::npos ? std::string::npos : eol - bol);
  };
  return "first difference at byte " + std::to_string(i) + " of " + std::to_string(want.size()) + " (got " +
         std::to_string(got.size()) + "), line " + std::to_string(std::count(want.begin(), want.begin() + i, '\n') + 1) +
         ":\n  got:  " + line_at(got) + "\n  want: " + line_at(want);
}

const LftFormat kStyles[] = {LftFormat::Auto, LftFormat::Opensm, LftFormat::DumpFts, LftFormat::Minimal};

// The new writer equals the reference at several chunk sizes (1 byte: every line crosses a
// chunk; 100: the chunk is shorter than a line plus the slack; 1 MiB: the default), and the
// reference equals the LftFile path when with_file.
void expect_same(const Fabric& f, const Lfts& l, const std::string& what, bool with_file = true) {
  for (LftFormat style : kStyles) {
    const std::string ref = written(write_lfts_reference, f, l, style, size_t{1} << 20);
    ASSERT_GT(ref.size(), 0u);
    const std::string ctx = what + ", style " + lft_format_name(style);
    if (with_file) {
      ASSERT_EQ(first_difference(ref, write_lft_file(make_lft_file(f, l, style))), "") << ctx << " (LftFile)";
    }
    for (size_t chunk : {size_t{1}, size_t{100}, size_t{1} << 20}) {
      if (chunk == 1 && ref.size() > (size_t{4} << 20)) continue;
      ASSERT_EQ(first_difference(written(write_lfts, f, l, style, chunk), ref), "") << ctx << ", chunk " << chunk;
    }
    ASSERT_EQ(first_difference(write_lfts(f, l, style), ref), "") << ctx << " (string form)";
  }
}

Fabric shipped(const std::string& net) {
  return read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/" + net);
}

// Every port value a table can hold, LMC ranges cut: kNoPath, beyond the switch, 0, a real port.
Lfts random_lfts(const Fabric& f, std::mt19937& rng, int hole_pct) {
  Lfts l(f);
  std::uniform_int_distribution<int> pct(0, 99);
  for (int s : f.switches()) {
    const int np = f.node(s).num_ports;
    for (uint32_t lid = 0; lid <= f.max_lid(); lid++) {
      const int r = pct(rng);
      uint8_t p;
      if (r < hole_pct) p = kNoPath;
      else if (r < hole_pct + 3) p = static_cast<uint8_t>(np + 1 + pct(rng) % (255 - np));  // skipped
      else if (r < hole_pct + 6) p = 0;
      else p = static_cast<uint8_t>(1 + pct(rng) % np);
      l.set(s, static_cast<Lid>(lid), p);
    }
  }
  return l;
}

// LIDs with gaps (unowned LIDs between ports), an LMC of 0-3 per CA port, the last port up to
// the top of the unicast range.
void sparse_lids(Fabric& f, std::mt19937& rng, bool to_top) {
  std::uniform_int_distribution<int> gap(0, 9), lmc(0, 3);
  std::vector<std::pair<int, int>> ports;
  for (int i = 0; i < f.size(); i++) {
    Node& n = f.node(i);
    for (int p = 0; p <= n.num_ports; p++) n.port(p).base_lid = 0, n.port(p).lmc = 0;
    if (n.is_switch()) ports.emplace_back(i, 0);
    else
      for (int p = 1; p <= n.num_ports; p++)
        if (n.port(p).connected()) ports.emplace_back(i, p);
  }
  uint32_t next = 1;
  for (size_t k = 0; k < ports.size(); k++) {
    const auto [node, port] = ports[k];
    const uint8_t m = port == 0 ? 0 : static_cast<uint8_t>(lmc(rng));
    const uint32_t block = 1u << m;
    next = (next + static_cast<uint32_t>(gap(rng)) + block - 1) / block * block;
    if (to_top && k + 1 == ports.size()) next = kMaxUnicastLid + 1 - block;
    f.node(node).port(port).base_lid = static_cast<Lid>(next);
    f.node(node).port(port).lmc = m;
    next += block;
  }
  ASSERT_LE(next - 1, kMaxUnicastLid);
  const auto [n0, p0] = ports.front();
  f.set_lid(n0, p0, f.node(n0).port(p0).base_lid, f.node(n0).port(p0).lmc);  // re-index every LID
}

}  // namespace

TEST(LftWrite, SameAsReferenceOnShippedFabrics) {
  int n = 0;
  for (const char* net : {"4ary3tree.net", "ft648_f1.net", "kns_4x2_ft2.net", "torus4x4_f1.net", "ring8.net",
                          "mesh4x4.net"}) {
    if (!test_scale::sampled(static_cast<size_t>(n++), 3)) continue;
    for (int lmc : {0, 1, 3}) {
      Fabric f = shipped(net);
      f.assign_lids(static_cast<uint8_t>(lmc), true, lmc == 1);  // LMC 1: switches too (lmc_esp0)
      const Routing r = make_engine("ft-minhop")->route(f);
      const std::string what = std::string(net) + " lmc " + std::to_string(lmc);
      expect_same(f, r.lfts, what, f.size() < 200);
      // LMC ranges printed in part: every switch skips one LID of each range in turn (the base,
      // a middle one, the last), so dump_fts' "path #k" state leaves the pre-rendered lines
      Lfts cut = r.lfts;
      int k = 0;
      for (int s : f.switches())
        for (const EndPort& e : f.end_ports())
          if (e.lmc > 0) cut.set(s, static_cast<Lid>(e.base_lid + (k++ % (1 << e.lmc))), kNoPath);
      expect_same(f, cut, what + " ranges cut", f.size() < 200);
    }
  }
}

TEST(LftWrite, SameAsReferenceOnRandomTablesAndSparseLids) {
  std::mt19937 rng(29);
  const int rounds = test_scale::rounds(8, 4);
  for (int round = 0; round < rounds; round++) {
    Fabric f = round % 2 ? shipped("kns_4x2.net") : topo::fat_tree3(8);
    const bool top = round == 3;  // one fabric up to LID 0xBFFF (49,151 LIDs)
    sparse_lids(f, rng, top);
    ASSERT_TRUE(!top || f.max_lid() == kMaxUnicastLid);
    Lfts l = random_lfts(f, rng, round % 4 == 0 ? 90 : 15 * (round % 4));
    const auto& sws = f.switches();
    // switches without a table, with a short one, with one beyond max_lid
    l.table(sws[0]).clear();
    l.table(sws[1]).resize(f.max_lid() / 2);
    l.set(sws[2], static_cast<Lid>(std::min<uint32_t>(f.max_lid() + 40u, 0xFFFF)), 1);
    expect_same(f, l, "random round " + std::to_string(round), !top);
  }
  // tables for fewer nodes than the fabric has (the last switches have none)
  Fabric f = shipped("4ary3tree.net");
  f.assign_lids(2);
  Lfts l = random_lfts(f, rng, 10);
  Lfts few(f.switches()[f.switches().size() / 2], f.max_lid());
  for (int s = 0; s < few.num_nodes(); s++) few.table(s) = l.table(s);
  expect_same(f, few, "tables for half the switches");
  expect_same(f, Lfts(), "no tables at all");
  Fabric nolids = shipped("ring8.net");  // max_lid 0: LID 0 only
  expect_same(nolids, Lfts(nolids), "no LIDs");
}

TEST(LftWrite, HostileNamesEscapedAlike) {
  Fabric f = shipped("4ary3tree.net");
  f.assign_lids(1, true, true);
  const Routing r = make_engine("ft-minhop")->route(f);
  const std::string evil[] = {"it's \"q\" \\ %s%n%d", std::string("a\x01\x1b[31m\x7f", 8), std::string("nul\0cut", 7),
                              "tab\there\r\nnext", "\xc3\xa9t\xe9 \xff", std::string(5000, 'L') + "\x02" + "end"};
  for (int i = 0; i < f.size(); i++) f.node(i).desc = evil[static_cast<size_t>(i) % 6] + std::to_string(i);
  expect_same(f, r.lfts, "hostile names");
  for (LftFormat style : kStyles) {
    const std::string s = write_lfts(f, r.lfts, style);
    for (char c : s) {
      ASSERT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) << lft_format_name(style);
    }
    if (style != LftFormat::Minimal) {
      EXPECT_NE(s.find("a\\x01\\x1b[31m\\x7f"), std::string::npos) << lft_format_name(style);
      EXPECT_NE(s.find(std::string(5000, 'L') + "\\x02end"), std::string::npos) << lft_format_name(style);
      EXPECT_NE(s.find("nul\\x00cut"), std::string::npos) << lft_format_name(style);
    }
  }
}

// What the writer does besides the text: a switch without a GUID is refused before the first
// byte; a sink error leaves the writer at once, after a prefix of the text.
TEST(LftWrite, ErrorsAsTheReference) {
  Fabric f = shipped("4ary3tree.net");
  f.assign_lids(0);
  const Routing r = make_engine("ft-minhop")->route(f);
  for (LftFormat style : kStyles) {
    Fabric g = f;
    g.node(g.switches().back()).guid = 0;
    size_t calls = 0;
    TextOut out([&](std::string_view) { calls++; }, 10);
    EXPECT_THROW(write_lfts(g, r.lfts, style, out), FabricError);
    out.flush();
    EXPECT_EQ(calls, 0u) << lft_format_name(style);

    const std::string ref = write_lfts(f, r.lfts, style);
    std::string got;
    calls = 0;
    TextOut failing([&](std::string_view c) {
      if (++calls == 4) throw Error("disk full");
      got.append(c);
    }, 1000);
    EXPECT_THROW(write_lfts(f, r.lfts, style, failing), Error);
    EXPECT_EQ(calls, 4u) << lft_format_name(style);
    EXPECT_GE(got.size(), 3000u);
    EXPECT_EQ(ref.compare(0, got.size(), got), 0) << lft_format_name(style);
  }
}

// TextOut itself: text longer than the buffer, room() growing it, chunks of the asked size.
TEST(LftWrite, TextOutChunks) {
  std::string all;
  std::vector<size_t> sizes;
  TextOut out([&](std::string_view c) { all.append(c), sizes.push_back(c.size()); }, 100);
  std::string want;
  for (int i = 0; i < 50; i++) {
    const std::string s(static_cast<size_t>(i * 37 % 300), static_cast<char>('a' + i % 26));
    out.put(s);
    want += s;
    out.put('\n');
    want += '\n';
  }
  const std::string big(3 * (100 + TextOut::kSlack) + 5, 'B');
  out.put(big);
  want += big;
  const size_t before_room = sizes.size();
  char* p = out.room(20000);  // more than the buffer holds: flushed (even if not full), grown
  ASSERT_GE(out.free_bytes(), 20000u);
  std::memset(p, 'R', 20000);
  out.wrote(20000);
  want += std::string(20000, 'R');
  out.hex4(0xbfff), out.put(' '), out.dec3(7);
  want += "0xbfff 007";
  out.flush();
  EXPECT_EQ(all, want);
  EXPECT_EQ(out.bytes(), want.size());
  for (size_t k = 0; k + 1 < sizes.size(); k++)
    if (k != before_room) {
      EXPECT_GE(sizes[k], 100u) << "chunk " << k;
    }
}
