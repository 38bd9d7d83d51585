// The fast .net reader (fast_parse_net, issue 15) against the full parser: whenever the fast
// reader returns a Fabric it is the full parser's Fabric field by field (every node, port, GUID,
// link, width/speed, LID), on the shipped fabrics, the test data, generated trees and write_net
// output with LIDs, GUID directives and narrow links; on the bad-input corpus it always declines
// (so the full parser's error is what parse_net reports); and on 1500 randomly damaged files
// either the fast reader declines or both readers accept the same Fabric.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;

namespace {

const std::string kSrc = FTROUTE_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The full parser alone (the fast path disabled for this call).
struct SlowReader {
  SlowReader() { setenv("FTROUTE_SLOW_NET_READER", "1", 1); }
  ~SlowReader() { unsetenv("FTROUTE_SLOW_NET_READER"); }
};

std::optional<Fabric> full(std::string_view text, const std::string& name, std::string* error = nullptr) {
  SlowReader slow;
  try {
    return parse_net(text, name);
  } catch (const Error& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

// Every field of every node and port, the switch order and the LID index.
std::string strict_diff(const Fabric& a, const Fabric& b) {
  if (std::string d = fabric_diff(a, b); !d.empty()) return d;
  if (a.switches() != b.switches()) return "switch order";
  if (a.max_lid() != b.max_lid()) return "max LID";
  for (int n = 0; n < a.size(); n++) {
    const Node &x = a.node(n), &y = b.node(n);
    for (int p = 0; p <= x.num_ports; p++) {
      const Port &u = x.port(p), &v = y.port(p);
      if (u.guid != v.guid || u.peer_node != v.peer_node || u.peer_port != v.peer_port || u.width != v.width ||
          u.speed != v.speed || u.speed_ext != v.speed_ext || u.base_lid != v.base_lid || u.lmc != v.lmc)
        return "node " + x.id + " port " + std::to_string(p);
    }
    if (a.find(x.id) != b.find(x.id) || a.find_guid(x.guid) != b.find_guid(y.guid)) return "index of " + x.id;
  }
  const auto ea = a.end_ports(), eb = b.end_ports();
  if (ea.size() != eb.size()) return "end port count";
  for (size_t i = 0; i < ea.size(); i++)
    if (ea[i].node != eb[i].node || ea[i].port != eb[i].port || ea[i].base_lid != eb[i].base_lid) return "end port " + std::to_string(i);
  return "";
}

// Returns whether the fast reader accepted the text; fails the test if it accepted something
// the full parser rejects or builds a different Fabric.
bool check(const std::string& text, const std::string& name) {
  std::optional<Fabric> fast = fast_parse_net(text);
  std::string err;
  std::optional<Fabric> slow = full(text, name, &err);
  if (!fast) return false;
  EXPECT_TRUE(slow.has_value()) << name << ": fast reader accepted what the full parser rejects: " << err;
  if (slow) {
    EXPECT_EQ(strict_diff(*fast, *slow), "") << name;
  }
  return true;
}

std::vector<std::string> net_files(const std::string& dir) {
  std::vector<std::string> v;
  if (!std::filesystem::exists(dir)) return v;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".net") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(NetFast, ShippedAndTestDataEqualTheFullParser) {
  int accepted = 0, files = 0;
  for (const std::string& dir : {kSrc + "/ibsim_topologies/nets", kSrc + "/tests/data/net", kSrc + "/tests/data/bad/ok"})
    for (const std::string& path : net_files(dir)) {
      ++files;
      accepted += check(slurp(path), path);
    }
  EXPECT_GT(files, 15);
  EXPECT_GE(accepted, 15);  // the shipped fabrics are written by write_net: all in the fast subset
}

TEST(NetFast, GeneratedFabricsWithLidsGuidsAndWidths) {
  std::vector<std::pair<std::string, Fabric>> fabrics;
  fabrics.emplace_back("kary 4,3", topo::kary_ntree(4, 3));
  fabrics.emplace_back("ft648", topo::fat_tree648());
  fabrics.emplace_back("fattree3 radix 8", topo::fat_tree3(8));
  for (auto& [name, f] : fabrics) {
    for (int variant = 0; variant < 4; variant++) {
      Fabric g = f;
      if (variant >= 1) g.assign_lids(variant == 3 ? 1 : 0);
      if (variant >= 2) {  // narrow and slow links, GUIDs that need directives, descriptions
        g.node(g.switches()[1]).port(1).width = 1;
        g.node(g.switches()[1]).port(1).speed = 3;
        const Port& p = g.node(g.switches()[1]).port(1);
        g.node(p.peer_node).port(p.peer_port).width = 1;
        g.node(p.peer_node).port(p.peer_port).speed = 3;
        g.node(g.switches()[0]).desc = "spine # one";
        const int ca = g.cas()[3];
        g.node(ca).guid = 0xabc000;
        for (int q = 1; q <= g.node(ca).num_ports; q++) g.node(ca).port(q).guid = 0xabc000 + static_cast<uint64_t>(q);
      } else {
        g.assign_default_guids();
      }
      NetWriteOptions wo;
      wo.comment = name + " variant " + std::to_string(variant);
      const std::string text = write_net(g, wo);
      EXPECT_TRUE(check(text, name)) << name << " variant " << variant << " should be in the fast subset";
      std::optional<Fabric> fast = fast_parse_net(text);
      ASSERT_TRUE(fast.has_value());
      EXPECT_EQ(fabric_diff(*fast, g), "") << name << " variant " << variant;
    }
  }
}

// Production-fabric features (issue 27): aggregation nodes on ports beyond the radix, director
// descriptions and extended speeds are in the fast subset; switches sharing a chassis node GUID
// (switchguid=0xCHASSIS(GUID)) are the full parser's, with the same result through parse_net.
TEST(NetFast, ProductionFabricFeatures) {
  Fabric f = topo::cluster_tree(topo::parse_cluster_tree("pods=1*4,aggs=2,cores=2,hosts=2,an=1,director=1,chassisguid=shared"));
  f.assign_lids();
  for (int n = 0; n < f.size(); n++)
    for (int p = 1; p <= f.node(n).num_ports; p++) {
      f.node(n).port(p).speed = 7;
      f.node(n).port(p).speed_ext = static_cast<uint8_t>(n % 2 ? 7 : 3);  // both ends of a link need not agree
    }
  Fabric plain = f;
  for (int n = 0; n < plain.size(); n++) plain.node(n).reported_guid = 0;
  const std::string text = write_net(plain);
  EXPECT_NE(text.find("\te=3"), std::string::npos);
  EXPECT_TRUE(check(text, "director")) << "should be in the fast subset";
  std::optional<Fabric> fast = fast_parse_net(text);
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(fabric_diff(*fast, plain), "");
  NetWriteOptions wo;
  wo.reported_guids = true;
  const std::string shared = write_net(f, wo);
  EXPECT_FALSE(fast_parse_net(shared).has_value());
  std::vector<std::string> warnings;
  NetReadOptions ro;
  ro.warnings = &warnings;
  EXPECT_EQ(fabric_diff(parse_net(shared, "shared.net", ro), f), "");
  std::optional<Fabric> slow = full(shared, "shared.net");
  ASSERT_TRUE(slow.has_value());
  EXPECT_EQ(strict_diff(*slow, parse_net(shared, "shared.net", ro)), "");
}

TEST(NetFast, BadCorpusAlwaysDeclines) {
  int n = 0;
  for (const std::string& path : net_files(kSrc + "/tests/data/bad/net")) {
    const std::string text = slurp(path);
    ++n;
    EXPECT_FALSE(fast_parse_net(text).has_value()) << path << " is bad input but the fast reader accepted it";
    // parse_net (fast path first) reports the full parser's error
    std::string want;
    EXPECT_FALSE(full(text, path, &want).has_value()) << path;
    try {
      parse_net(text, path);
      ADD_FAILURE() << path << ": parse_net accepted bad input";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), want) << path;
    }
  }
  EXPECT_GT(n, 20);
}

static void random_damage(const std::string& text, unsigned seed, int iters, int min_accepted, int min_declined) {
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  std::mt19937 rng(seed);
  const std::string alphabet = "[]\"#@ \t0123456789xwse=lidmc\r\x01SwitchHcaCa-_()";
  int accepted = 0, declined = 0;
  for (int iter = 0; iter < iters; iter++) {
    std::vector<std::string> l = lines;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; e++) {
      const size_t i = rng() % l.size();
      switch (rng() % 6) {
        case 0: l.erase(l.begin() + static_cast<long>(i)); break;
        case 1: l.insert(l.begin() + static_cast<long>(i), l[rng() % l.size()]); break;
        case 2: std::swap(l[i], l[rng() % l.size()]); break;
        case 3:
          if (!l[i].empty()) l[i][rng() % l[i].size()] = alphabet[rng() % alphabet.size()];
          break;
        case 4: l[i].insert(rng() % (l[i].size() + 1), 1, alphabet[rng() % alphabet.size()]); break;
        case 5:
          if (!l[i].empty()) l[i].erase(rng() % l[i].size(), 1);
          break;
      }
      if (l.empty()) l.push_back("");
    }
    std::string t;
    for (const auto& x : l) t += x + "\n";
    const bool ok = check(t, "damaged.net");
    (ok ? accepted : declined)++;
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "damaged text:\n" << t;
      break;
    }
  }
  EXPECT_GT(accepted, min_accepted);  // some edits keep the file valid (e.g. swapped records, deleted comments)
  EXPECT_GT(declined, min_declined);
}

TEST(NetFast, RandomDamageDeclinesOrAgrees) {
  Fabric base = topo::kary_ntree(3, 2);
  base.assign_lids();
  base.assign_default_guids();
  random_damage(write_net(base), 15, 1500, 20, 500);
}

// The same on a fat tree with LMC 1 and ids renamed to 20-30 characters (past the id index's
// 16 inline bytes; edits inside an id's tail must not be mistaken for the original id).
TEST(NetFast, RandomDamageLongIdsLmc) {
  Fabric g = topo::fat_tree3(4);
  Fabric base;
  for (int n = 0; n < g.size(); n++)
    base.add_node(g.node(n).type, "long_node_name_" + g.node(n).id + "_tail", g.node(n).num_ports);
  for (int n = 0; n < g.size(); n++)
    for (int p = 1; p <= g.node(n).num_ports; p++)
      if (g.node(n).port(p).connected()) base.connect(n, p, g.node(n).port(p).peer_node, g.node(n).port(p).peer_port);
  base.assign_lids(1);
  base.assign_default_guids();
  random_damage(write_net(base), 1515, 1000, 10, 300);
}

TEST(NetFast, SlowReaderSwitchDisablesIt) {
  const std::string text = write_net(topo::kary_ntree(2, 2));
  EXPECT_TRUE(fast_parse_net(text).has_value());
  SlowReader slow;
  EXPECT_FALSE(fast_parse_net(text).has_value());
}

// Ids longer than the 16 bytes the id index keeps inline, ids that share those 16 bytes, ids of
// every length 1..64 (the index packs them differently below 8, 8..15 and from 16 bytes), LMC 1
// and lines long enough that the 8-byte line scanner runs several words between tabs.
TEST(NetFast, LongAndSharedPrefixIds) {
  Fabric f;
  const std::string pre = "a_very_long_switch_name_prefix_";  // > 16 bytes
  std::vector<int> sw;
  for (int i = 0; i < 6; i++) sw.push_back(f.add_node(NodeType::Switch, pre + std::to_string(i), 25));
  int port = 1;
  for (int len = 1; len <= 64; len++) {
    std::string id(static_cast<size_t>(len), 'h');
    id[0] = 'H';
    id.back() = static_cast<char>('0' + len % 10);
    const int ca = f.add_node(NodeType::Ca, id, 1);
    f.connect(sw[static_cast<size_t>((len - 1) / 23)], port, ca, 1);
    port = port % 23 + 1;
  }
  for (size_t i = 0; i + 1 < sw.size(); i++) f.connect(sw[i], 25, sw[i + 1], 24);  // a chain
  f.assign_lids(1);
  f.assign_default_guids();
  const std::string text = write_net(f);
  EXPECT_TRUE(check(text, "long_ids.net"));
  auto fast = fast_parse_net(text);
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(strict_diff(*fast, f), "");
  for (int n = 0; n < f.size(); n++) EXPECT_EQ(fast->find(f.node(n).id), n) << f.node(n).id;
  EXPECT_FALSE(fast->find(pre).has_value());
  EXPECT_FALSE(fast->find(pre + "6").has_value());
  EXPECT_FALSE(fast->find("Hh").has_value());
}

// Port lines that disagree with the other end's line (the fast reader links each pair once and
// declines a second, different link on the same port): always declined, the full parser's error.
TEST(NetFast, DisagreeingLinkDeclarationsDecline) {
  const std::string head = "Switch\t3 \"S1\"\n";
  const std::vector<std::string> bad = {
      // S1[1] says H1[1], H1[1] says S1[2]
      head + "[1]\t\"H1\"[1]\n[2]\t\"H2\"[1]\n\nHca\t1 \"H1\"\n[1]\t\"S1\"[2]\n\nHca\t1 \"H2\"\n[1]\t\"S1\"[2]\n",
      // two CAs claim S1[1]
      head + "[1]\t\"H1\"[1]\n\nHca\t1 \"H1\"\n[1]\t\"S1\"[1]\n\nHca\t1 \"H2\"\n[1]\t\"S1\"[1]\n",
      // a port linked to itself
      head + "[1]\t\"S1\"[1]\n",
      // remote port out of range, unknown remote
      head + "[1]\t\"H1\"[2]\n\nHca\t1 \"H1\"\n",
      head + "[1]\t\"H9\"[1]\n\nHca\t1 \"H1\"\n",
  };
  for (const std::string& t : bad) {
    EXPECT_FALSE(fast_parse_net(t).has_value()) << t;
    std::string want;
    EXPECT_FALSE(full(t, "x.net", &want).has_value()) << t;
  }
  // one-sided declarations and a switch-to-switch loop on the same node are fine
  const std::string ok = head + "[1]\t\"H1\"[1]\n[2]\t\"S1\"[3]\n[3]\t\"S1\"[2]\n\nHca\t1 \"H1\"\n\nHca\t1 \"H2\"\n[1]\t\"S1\"[3]\n";
  EXPECT_FALSE(full(ok, "ok.net").has_value());  // S1[3] claimed twice: both readers refuse
  const std::string ok2 = head + "[1]\t\"H1\"[1]\n[2]\t\"S1\"[3]\n[3]\t\"S1\"[2]\n\nHca\t1 \"H1\"\n";
  EXPECT_TRUE(check(ok2, "ok2.net"));
}

// read_net_file reads a regular file without the binary-data scan (the fast reader takes only
// printable text; anything else goes to the full parser, which scans): the errors are unchanged.
TEST(NetFast, ReadNetFileErrorsUnchanged) {
  const std::string dir = testing::TempDir();
  const std::string good = write_net(topo::kary_ntree(2, 2));
  struct Case {
    std::string text, want;
  };
  std::string nul = good;
  nul.insert(nul.find('\n', nul.find('\n') + 1) + 3, 1, '\0');  // line 3
  std::string longline = good + std::string(5000, 'x') + "\n";
  const std::vector<Case> cases = {{nul, ":3: binary data (byte 0x00"},
                                   {longline, "line longer than 4096 characters"},
                                   {good.substr(0, good.size() / 2) + "\r\n", ""}};
  int i = 0;
  for (const Case& c : cases) {
    const std::string path = dir + "/netfast_read_" + std::to_string(i++) + ".net";
    { std::ofstream(path, std::ios::binary) << c.text; }
    std::string want;
    EXPECT_FALSE(full(c.text, path, &want).has_value()) << path;
    try {
      read_net_file(path);
      ADD_FAILURE() << path << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), want) << path;
      EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
  }
  const std::string path = dir + "/netfast_read_ok.net";
  { std::ofstream(path, std::ios::binary) << good; }
  EXPECT_EQ(strict_diff(read_net_file(path), *full(good, path)), "");
  std::filesystem::remove(path);
}

// read_net_file reads a regular file with read(2) into an uninitialised buffer
// (read_input_text); everything else goes through read_input_file as before. Against the old
// composition (read_input_file into a string, then parse_net) on the same path: the same Fabric
// or the same error text, file:line, for good files, a file without a trailing newline, an
// empty file, NUL bytes, a long line, CRLF, a directory, a missing file, a FIFO, a size limit.
TEST(NetFast, ReadNetFileNewReadPathMatchesTheOldOne) {
  const std::string dir = testing::TempDir() + "/netfast_readpath_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  auto old_read = [](const std::string& path, std::string* err) -> std::optional<Fabric> {
    try {
      InputLimits lim = net_input_limits();
      lim.caller_checks_text = true;
      const std::string text = read_input_file(path, lim);
      return parse_net(text, path);
    } catch (const Error& e) {
      *err = e.what();
      return std::nullopt;
    }
  };
  auto new_read = [](const std::string& path, std::string* err) -> std::optional<Fabric> {
    try {
      return read_net_file(path);
    } catch (const Error& e) {
      *err = e.what();
      return std::nullopt;
    }
  };
  auto same = [&](const std::string& path, const std::string& want) {
    std::string eo, en;
    const std::optional<Fabric> o = old_read(path, &eo), n = new_read(path, &en);
    EXPECT_EQ(o.has_value(), n.has_value()) << path << ": " << eo << " / " << en;
    EXPECT_EQ(en, eo) << path;
    if (o && n) {
      EXPECT_EQ(strict_diff(*o, *n), "") << path;
    }
    if (!want.empty()) {
      EXPECT_NE(en.find(want), std::string::npos) << path << ": " << en;
    }
    return n;
  };
  Fabric g = topo::fat_tree3(8);
  g.assign_lids();
  const std::string good = write_net(g);
  std::string nul = good;
  nul[good.size() / 2] = '\0';
  struct Case {
    std::string name, text, want;
  };
  const std::vector<Case> cases = {
      {"good.net", good, ""},
      {"no_newline.net", good.substr(0, good.size() - 1), ""},
      {"kary.net", write_net(topo::kary_ntree(3, 3)), ""},
      {"empty.net", "", "empty file"},
      {"blank.net", "\n\n", ""},
      {"nul.net", nul, "binary data (byte 0x00"},
      {"long.net", good + std::string(5000, 'x') + "\n", "line longer than 4096 characters"},
      {"crlf.net", "Switch 2 \"S\"\r\n[1] \"H\"[1]\r\n\r\nHca 1 \"H\"\r\n[1] \"S\"[1]\r\n", ""},
      {"bad_line.net", good + "garbage\n", ":" + std::to_string(std::count(good.begin(), good.end(), '\n') + 1) + ":"},
  };
  for (const Case& c : cases) {
    const std::string path = dir + "/" + c.name;
    { std::ofstream(path, std::ios::binary) << c.text; }
    const std::optional<Fabric> f = same(path, c.want);
    if (c.name == "good.net") {
      ASSERT_TRUE(f.has_value());
      EXPECT_EQ(strict_diff(*f, *full(good, path)), "");
      EXPECT_EQ(fabric_diff(*f, g), "");
    }
  }
  same(dir, "is a directory, not a file");
  same(dir + "/missing.net", "cannot open file: No such file or directory");
  {
    setenv("FTROUTE_MAX_INPUT_BYTES", "1000", 1);
    same(dir + "/good.net", "file too large: " + std::to_string(good.size()) + " bytes, limit 1000");
    unsetenv("FTROUTE_MAX_INPUT_BYTES");
  }
  // a FIFO (not a regular file: read and scanned as before), once for each reader
  const std::string fifo = dir + "/pipe.net";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& text : {good, nul}) {
    std::string errs[2];
    std::optional<Fabric> got[2];
    for (int which = 0; which < 2; which++) {
      std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
      got[which] = which == 0 ? old_read(fifo, &errs[0]) : new_read(fifo, &errs[1]);
      writer.join();
    }
    EXPECT_EQ(errs[1], errs[0]);
    ASSERT_EQ(got[0].has_value(), got[1].has_value());
    if (got[1]) EXPECT_EQ(fabric_diff(*got[1], g), "");
    else EXPECT_NE(errs[1].find("binary data (byte 0x00"), std::string::npos) << errs[1];
  }
  std::filesystem::remove_all(dir);
}

// The line scanner and the quoted-string reader look at 16 bytes at a time (SSE2), also past a
// line's end: a byte that is not printable ASCII, a tab or '\n' declines wherever it sits (in
// the first or last 16 bytes of the text, right before or after a line end); an id whose closing
// quote is missing declines even when a later line has a '"' within 16 bytes; '#'/'@' in an id
// declines before and after its 16th byte; and every such text gives the full parser's verdict.
TEST(NetFast, SixteenByteScansAtEveryOffset) {
  // comment lines and a description: there only the scanner sees a bad byte
  const std::string good = "# a comment line, long enough for two blocks\n#\n# x\nSwitch\t3 \"S1\" # \"the spine switch\"\n[1]\t\"H1\"[1]\n[2]\t\"a_long_host_name_over_16\"[1]\n\nHca\t1 \"H1\"\n"
                           "[1]\t\"S1\"[1]\n\nHca\t1 \"a_long_host_name_over_16\"\n[1]\t\"S1\"[2]\n";
  ASSERT_TRUE(check(good, "good.net"));
  int tried = 0;
  for (const char bad : {'\0', '\x01', '\v', '\r', '\x1f', '\x7f', '\x80', '\xff'})
    for (size_t at = 0; at <= good.size(); at++) {
      for (const bool replace : {false, true}) {
        std::string t = good;
        if (replace && at < t.size()) t[at] = bad;
        else t.insert(at, 1, bad);
        EXPECT_FALSE(fast_parse_net(t).has_value()) << "byte " << int(static_cast<unsigned char>(bad)) << " at " << at;
        check(t, "bad_byte.net");
        ++tried;
      }
    }
  EXPECT_GT(tried, 1000);
  // drop each quote in turn: the fast reader declines (a '"' later in the text is not the close)
  for (size_t at = 0; at < good.size(); at++) {
    if (good[at] != '"') continue;
    std::string t = good;
    t.erase(at, 1);
    EXPECT_FALSE(fast_parse_net(t).has_value()) << "quote at " << at;
    check(t, "quote.net");
  }
  // '#' or '@' at each position of an id (short, and long past 16 bytes), the id changed
  // everywhere it appears (so the links still resolve)
  int reserved = 0;
  for (const std::string id : {"S1", "H1", "a_long_host_name_over_16"})
    for (const char c : {'#', '@'})
      for (size_t i = 0; i < id.size(); i++) {
        std::string changed = id;
        changed[i] = c;
        std::string t = good;
        for (size_t at = t.find('"' + id + '"'); at != std::string::npos; at = t.find('"' + id + '"', at + 1))
          t.replace(at + 1, id.size(), changed);
        EXPECT_FALSE(fast_parse_net(t).has_value()) << changed;
        check(t, "reserved.net");
        EXPECT_FALSE(full(t, "reserved.net").has_value()) << changed;  // "reserved by ibsim", "port aliases"
        ++reserved;
      }
  EXPECT_EQ(reserved, 2 * (2 + 2 + 24));
  // the same text padded so that its end falls at every offset of a 16-byte block
  for (int pad = 0; pad < 40; pad++) {
    const std::string t = std::string(static_cast<size_t>(pad), '\n') + good;
    EXPECT_TRUE(check(t, "padded.net")) << pad;
    const std::string u = good + std::string(static_cast<size_t>(pad), '\n');
    EXPECT_TRUE(check(u, "padded_end.net")) << pad;
    if (pad > 0) {
      std::string v = u;
      v[v.size() - 1 - static_cast<size_t>(pad / 2)] = '\x01';
      EXPECT_FALSE(fast_parse_net(v).has_value()) << pad;
    }
  }
}
