// Validators: deadlock (ring all-clockwise vs dateline), loops, unreachable LIDs, broken LFT
// entries, EFI on a hand-computed case, and real OpenSM routings from tests/data/lft/.
#include <gtest/gtest.h>

#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/validate.hpp"
#include "test_fabrics.hpp"

using namespace ftroute;
using test_fabrics::ring;

namespace {

const std::string kDir = std::string(FTROUTE_SOURCE_DIR) + "/tests/data/lft/";

int home_of(const Fabric& f, int n, const EndPort& e) { return f.node(e.node).is_switch() ? e.node : e.node - n; }

Routing clockwise(const Fabric& f, int n) {
  Routing r;
  r.engine = "clockwise";
  r.lfts = Lfts(f);
  for (int s = 0; s < n; s++)
    for (const EndPort& e : f.end_ports()) {
      int home = home_of(f, n, e);
      r.lfts.set(s, e.base_lid, home != s ? 1 : (e.node == s ? 0 : 3));
    }
  return r;
}

// Dateline: a path that wraps past R(n-1) -> R0 gets SL = source switch + 1 (SL0 otherwise); the
// SL2VL table of Rk puts such a packet arriving from the ring on VL1 iff k < source switch, i.e.
// once it has crossed the dateline (its switches before the crossing are all > source).
void add_dateline(const Fabric& f, Routing& r, int n) {
  auto sw_of = [&f, n](Lid l) {
    auto e = f.owner(l);
    return home_of(f, n, *e);
  };
  r.path_sl = [sw_of](Lid s, Lid d) -> uint8_t {
    return sw_of(s) > sw_of(d) ? static_cast<uint8_t>(sw_of(s) + 1) : 0;
  };
  r.sl2vl.set_all(f, Sl2Vl::Table{});  // CA injection and everything else: VL0
  for (int k = 0; k < n; k++)
    for (int in = 0; in <= 4; in++)
      for (int out = 1; out <= 4; out++) {
        Sl2Vl::Table t{};
        for (int sl = 1; sl < 16; sl++) t[static_cast<size_t>(sl)] = (in == 2 && k < sl - 1) ? 1 : 0;
        r.sl2vl.set(k, in, out, t);
      }
  r.num_vls = 2;
}

}  // namespace

TEST(Validate, ClockwiseRingDeadlocks) {
  for (int n : {4, 5, 6}) {
    Fabric f = ring(n);
    Routing r = clockwise(f, n);
    ValidationReport rep = validate(f, r);
    EXPECT_TRUE(rep.reachability_ok());
    EXPECT_TRUE(rep.loops_ok());
    EXPECT_TRUE(rep.entries_ok());
    EXPECT_FALSE(rep.cdg_acyclic);
    EXPECT_FALSE(rep.ok());
    ASSERT_EQ(rep.cycle.size(), static_cast<size_t>(n));
    for (const Channel& c : rep.cycle) {
      EXPECT_EQ(c.port, 1);  // the clockwise ring links
      EXPECT_EQ(c.vl, 0);
    }
    std::string txt = format_report(f, rep);
    EXPECT_NE(txt.find("RESULT: FAIL (deadlock)"), std::string::npos) << txt;
    EXPECT_NE(txt.find("\"R0\"[1] vl0"), std::string::npos) << txt;
  }
}

TEST(Validate, DatelineOnTwoVlsIsDeadlockFree) {
  for (int n : {4, 5, 6}) {
    Fabric f = ring(n);
    Routing r = clockwise(f, n);
    add_dateline(f, r, n);
    ValidationReport rep = validate(f, r);
    EXPECT_TRUE(rep.cdg_acyclic) << n << ": " << rep.cycle_text;
    EXPECT_TRUE(rep.ok()) << format_report(f, rep);
    EXPECT_EQ(rep.vls_used, (std::vector<int>{0, 1}));
    EXPECT_GT(rep.cdg_vl_changes, 0u);
  }
}

TEST(Validate, LoopIsNamed) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  const Lid c3 = f.node(n + 3).port(1).base_lid;
  r.lfts.set(2, c3, 2);  // R2 sends C3 back to R1, R1 forwards clockwise to R2: R1 <-> R2
  ValidationReport rep = validate(f, r);
  EXPECT_FALSE(rep.loops_ok());
  EXPECT_EQ(rep.looping, 3u);  // C0, C1, C2 towards C3
  ASSERT_FALSE(rep.loop_examples.empty());
  const std::string& e = rep.loop_examples[0];
  EXPECT_TRUE(e.find("\"R1\"[1] -> \"R2\"[2] -> \"R1\"") != std::string::npos ||
              e.find("\"R2\"[2] -> \"R1\"[1] -> \"R2\"") != std::string::npos)
      << e;
  EXPECT_NE(format_report(f, rep).find("RESULT: FAIL (forwarding loops"), std::string::npos);
}

TEST(Validate, UnreachableLidIsCountedAndNamed) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  add_dateline(f, r, n);
  const Lid c0 = f.node(n + 0).port(1).base_lid;
  r.lfts.set(2, c0, kNoPath);  // R2 lost its route to C0: C1 and C2 cannot reach it (C3 passes R3 only)
  ValidationReport rep = validate(f, r);
  EXPECT_EQ(rep.unreachable, 2u);
  EXPECT_EQ(rep.per_kind[static_cast<int>(DropKind::NoRoute)], 2u);
  ASSERT_FALSE(rep.unreachable_examples.empty());
  const std::string& e = rep.unreachable_examples[0];
  EXPECT_NE(e.find(" -> C0(" + std::to_string(c0) + ") stops at \"R2\""), std::string::npos) << e;
  EXPECT_TRUE(e.rfind("C1(", 0) == 0 || e.rfind("C2(", 0) == 0) << e;
  EXPECT_TRUE(rep.loops_ok());
  EXPECT_TRUE(rep.cdg_acyclic);
  EXPECT_NE(format_report(f, rep).find("RESULT: FAIL (unreachable pairs)"), std::string::npos);
}

TEST(Validate, EntriesOnDownOrMissingPorts) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  add_dateline(f, r, n);
  const Lid c2 = f.node(n + 2).port(1).base_lid;
  r.lfts.set(0, c2, 4);   // R0[4] has no link
  r.lfts.set(0, f.node(1).port(0).base_lid, 7);  // R0 has 4 ports
  ValidationReport rep = validate(f, r);
  EXPECT_EQ(rep.bad_entries, 2u);
  ASSERT_EQ(rep.bad_entry_examples.size(), 2u);
  // examples in LID order: R1's LID (2) first, then C2's
  EXPECT_NE(rep.bad_entry_examples[0].find("\"R0\" LID 2 -> port 7 (switch has 4 ports)"), std::string::npos)
      << rep.bad_entry_examples[0];
  EXPECT_NE(rep.bad_entry_examples[1].find("-> port 4 (no link on \"R0\"[4])"), std::string::npos)
      << rep.bad_entry_examples[1];
  EXPECT_EQ(rep.per_kind[static_cast<int>(DropKind::DownPort)], 2u);  // C0, C3 -> C2
  EXPECT_EQ(rep.per_kind[static_cast<int>(DropKind::BadPort)], 3u);   // C0, C2, C3 -> R1
  EXPECT_FALSE(rep.ok());
  EXPECT_NE(format_report(f, rep).find("RESULT: FAIL (unreachable pairs, bad LFT entries)"), std::string::npos)
      << format_report(f, rep);
}

// A bad entry no route walks (on a switch no CA sits behind) fails only the LFT-entry check: the
// RESULT line must say so, not PASS (scripts/mutate.sh drops that verdict and expects a failure).
TEST(Validate, BadEntryAloneFailsTheResult) {
  Fabric f;
  for (int i = 0; i < 4; i++) f.add_node(NodeType::Switch, "R" + std::to_string(i), 4);
  const int spur = f.add_node(NodeType::Switch, "R4", 4);  // hangs off R0[4], no CA
  for (int i = 0; i < 4; i++) f.add_node(NodeType::Ca, "C" + std::to_string(i), 1);
  for (int i = 0; i < 4; i++) {
    f.connect(i, 1, (i + 1) % 4, 2);
    f.connect(i, 3, 5 + i, 1);
  }
  f.connect(0, 4, spur, 1);
  f.assign_default_guids();
  f.assign_lids();
  Routing r;
  r.lfts = Lfts(f);
  for (const EndPort& e : f.end_ports()) {
    const int home = e.node == spur ? spur : f.node(e.node).is_switch() ? e.node : e.node - 5;
    for (int s = 0; s < 4; s++) r.lfts.set(s, e.base_lid, home == s ? (e.node == s ? 0 : 3) : home == spur && s == 0 ? 4 : 1);
    r.lfts.set(spur, e.base_lid, e.node == spur ? 0 : 1);
  }
  ValidateOptions no_cdg;  // the clockwise ring deadlocks (Validate.ClockwiseRingDeadlocks); not the point here
  no_cdg.check_deadlock = false;
  ValidationReport good = validate(f, r, no_cdg);
  ASSERT_TRUE(good.ok()) << format_report(f, good);
  r.lfts.set(spur, f.node(5).port(1).base_lid, 3);  // R4 -> C0 out of R4[3]: no link, but no CA source passes R4
  ValidationReport rep = validate(f, r, no_cdg);
  EXPECT_TRUE(rep.reachability_ok());
  EXPECT_TRUE(rep.loops_ok());
  EXPECT_EQ(rep.bad_entries, 1u);
  EXPECT_FALSE(rep.ok());
  EXPECT_NE(format_report(f, rep).find("RESULT: FAIL (bad LFT entries)"), std::string::npos) << format_report(f, rep);
}

// One test per way a route can be dropped (DropKind): each breaks one LFT entry of the ring and
// asserts that exactly the pairs through it are counted, in `unreachable` (or `looping`) and in
// per_kind, and that the reachability verdict and the RESULT line fail. These are what keeps a
// table that delivers to the wrong CA, or a port-0 entry on a switch that does not own the LID,
// from printing RESULT: PASS (the LFT-entry check skips port 0 and connected ports, so nothing else
// would catch them). scripts/mutate.sh stops counting each kind in turn and expects these to fail.
namespace {
void expect_dropped(const Fabric& f, const ValidationReport& rep, DropKind k, uint64_t n) {
  SCOPED_TRACE(drop_kind_text(k));
  const std::string txt = format_report(f, rep);
  EXPECT_EQ(rep.per_kind[static_cast<int>(k)], n) << txt;
  EXPECT_EQ(rep.delivered + n, rep.pairs) << txt;
  if (k == DropKind::Loop) {
    EXPECT_EQ(rep.looping, n) << txt;
    EXPECT_EQ(rep.unreachable, 0u) << txt;
    EXPECT_FALSE(rep.loops_ok());
    EXPECT_NE(txt.find("RESULT: FAIL (forwarding loops"), std::string::npos) << txt;
  } else {
    EXPECT_EQ(rep.unreachable, n) << txt;
    EXPECT_EQ(rep.looping, 0u) << txt;
    EXPECT_FALSE(rep.reachability_ok());
    EXPECT_NE(txt.find("RESULT: FAIL (unreachable pairs"), std::string::npos) << txt;
    ASSERT_FALSE(rep.unreachable_examples.empty()) << txt;
    EXPECT_NE(rep.unreachable_examples[0].find(drop_kind_text(k)), std::string::npos) << rep.unreachable_examples[0];
  }
  EXPECT_FALSE(rep.ok());
}
}  // namespace

// Ring of 4, clockwise: CA sources C0..C3; the pairs towards C2 that pass R1 are C0, C1 and C3.
TEST(ValidateDrop, NoRoute) {
  Fabric f = ring(4);
  Routing r = clockwise(f, 4);
  r.lfts.set(1, f.node(4 + 2).port(1).base_lid, kNoPath);
  ValidationReport rep = validate(f, r);
  expect_dropped(f, rep, DropKind::NoRoute, 3);
  EXPECT_TRUE(rep.entries_ok());
}

TEST(ValidateDrop, WrongEndpoint) {
  Fabric f = ring(4);
  Routing r = clockwise(f, 4);
  r.lfts.set(1, f.node(4 + 2).port(1).base_lid, 3);  // R1[3] is C1: delivered to the wrong CA
  ValidationReport rep = validate(f, r);
  expect_dropped(f, rep, DropKind::WrongEndpoint, 3);
  EXPECT_TRUE(rep.entries_ok());  // a linked port: only the walk can tell
  EXPECT_NE(rep.unreachable_examples[0].find("stops at \"C1\"[1]"), std::string::npos) << rep.unreachable_examples[0];
}

TEST(ValidateDrop, NotLocal) {
  Fabric f = ring(4);
  Routing r = clockwise(f, 4);
  r.lfts.set(1, f.node(4 + 2).port(1).base_lid, 0);  // R1 claims C2's LID as its own
  ValidationReport rep = validate(f, r);
  expect_dropped(f, rep, DropKind::NotLocal, 3);
  EXPECT_TRUE(rep.entries_ok());  // port 0 is never a bad entry
  EXPECT_NE(rep.unreachable_examples[0].find("stops at \"R1\""), std::string::npos) << rep.unreachable_examples[0];
}

TEST(ValidateDrop, NotLocalSwitchLid) {
  Fabric f = ring(4);
  Routing r = clockwise(f, 4);
  r.lfts.set(1, f.node(2).port(0).base_lid, 0);  // R1 claims R2's LID
  ValidationReport rep = validate(f, r);
  expect_dropped(f, rep, DropKind::NotLocal, 3);  // C0, C1, C3 -> R2
}

TEST(ValidateDrop, Loop) {
  Fabric f = ring(4);
  Routing r = clockwise(f, 4);
  r.lfts.set(2, f.node(4 + 3).port(1).base_lid, 2);  // R2 sends C3 back to R1: R1 <-> R2
  ValidationReport rep = validate(f, r);
  expect_dropped(f, rep, DropKind::Loop, 3);  // C0, C1, C2 -> C3
}

TEST(ValidateDrop, BadPort) {
  Fabric f = ring(4);
  Routing r = clockwise(f, 4);
  r.lfts.set(1, f.node(4 + 2).port(1).base_lid, 9);  // R1 has 4 ports
  ValidationReport rep = validate(f, r);
  expect_dropped(f, rep, DropKind::BadPort, 3);
  EXPECT_EQ(rep.bad_entries, 1u);
}

TEST(ValidateDrop, DownPort) {
  Fabric f = ring(4);
  Routing r = clockwise(f, 4);
  r.lfts.set(1, f.node(4 + 2).port(1).base_lid, 4);  // R1[4] has no link
  ValidationReport rep = validate(f, r);
  expect_dropped(f, rep, DropKind::DownPort, 3);
  EXPECT_EQ(rep.bad_entries, 1u);
}

TEST(Validate, EdgeForwardingIndexHandComputed) {
  // S0 - S1 - S2 in a line; H0a, H0b on S0, H1 on S1, H2 on S2. Destinations: 4 CAs + 3 switches.
  Fabric f;
  for (int i = 0; i < 3; i++) f.add_node(NodeType::Switch, "S" + std::to_string(i), 4);
  int h0a = f.add_node(NodeType::Ca, "H0a", 1), h0b = f.add_node(NodeType::Ca, "H0b", 1);
  int h1 = f.add_node(NodeType::Ca, "H1", 1), h2 = f.add_node(NodeType::Ca, "H2", 1);
  f.connect(0, 1, 1, 2);
  f.connect(1, 1, 2, 2);
  f.connect(0, 3, h0a, 1);
  f.connect(0, 4, h0b, 1);
  f.connect(1, 3, h1, 1);
  f.connect(2, 3, h2, 1);
  f.assign_default_guids();
  f.assign_lids();
  Routing r;
  r.lfts = Lfts(f);
  for (int s = 0; s < 3; s++)
    for (const EndPort& e : f.end_ports()) {
      int home = f.node(e.node).is_switch() ? e.node : f.node(e.node).port(1).peer_node;
      uint8_t p = home == s ? (e.node == s ? 0 : static_cast<uint8_t>(f.node(e.node).port(1).peer_port))
                            : (home > s ? 1 : 2);
      r.lfts.set(s, e.base_lid, p);
    }
  ValidationReport rep = validate(f, r);
  ASSERT_TRUE(rep.ok()) << format_report(f, rep);
  EXPECT_EQ(rep.pairs, 4u * 7u - 4u);
  auto load = [&](int s, int p) {
    for (auto& l : rep.switch_link_loads)
      if (l.node == s && l.port == p) return l.routes;
    ADD_FAILURE() << "no link " << s << "[" << p << "]";
    return uint64_t{0};
  };
  EXPECT_EQ(load(0, 1), 8u);  // H0a,H0b -> H1,H2,S1,S2
  EXPECT_EQ(load(1, 1), 6u);  // H0a,H0b,H1 -> H2,S2
  EXPECT_EQ(load(2, 2), 5u);  // H2 -> H0a,H0b,H1,S0,S1
  EXPECT_EQ(load(1, 2), 6u);  // H1,H2 -> H0a,H0b,S0
  EXPECT_EQ(rep.switch_link_loads.size(), 4u);
  EXPECT_EQ(rep.efi_min, 5u);
  EXPECT_EQ(rep.efi_max, 8u);
  EXPECT_DOUBLE_EQ(rep.efi_avg, 6.25);
  EXPECT_EQ(rep.efi_max_link.node, 0);
  EXPECT_EQ(rep.efi_max_link.port, 1);
  // hops: H0a<->H0b 2 links; to own switch 1; ... check extremes
  EXPECT_EQ(rep.hops_min, 1);
  EXPECT_EQ(rep.hops_max, 4);  // H0x <-> H2
}

TEST(Validate, SwitchSourcesAddPairs) {
  const int n = 4;
  Fabric f = ring(n);
  Routing r = clockwise(f, n);
  add_dateline(f, r, n);
  ValidateOptions o;
  o.switch_sources = true;
  ValidationReport rep = validate(f, r, o);
  EXPECT_EQ(rep.sources, 2 * n);
  EXPECT_EQ(rep.pairs, static_cast<uint64_t>(2 * n * (2 * n - 1)));
  EXPECT_TRUE(rep.reachability_ok());
}

TEST(Validate, RealOpenSMRoutings) {
  // minhop as OpenSM 3.3.23 computed it on ibsim (tests/data/lft/capture.sh).
  for (auto [name, net] : {std::pair{"2sw4hca", "2sw4hca.net"}, std::pair{"ft4x2", "ft4x2.net"},
                           std::pair{"ft4x2_lmc1", "ft4x2.net"}, std::pair{"ring4", "ring4.net"}}) {
    Fabric f = read_net_file(kDir + net);
    LftFile file = read_lft_file(kDir + std::string(name) + ".dump_fts");
    adopt_lids(file, f);
    Routing r;
    r.lfts = map_lfts(file, f).lfts;
    ValidateOptions ca_only;  // CA-to-CA pairs, what `ibdmchk` checks by default
    ca_only.switch_destinations = false;
    ca_only.all_source_lids = true;
    ValidationReport rep = validate(f, r, ca_only);
    EXPECT_TRUE(rep.ok()) << name << "\n" << format_report(f, rep);
    EXPECT_EQ(rep.delivered, rep.pairs);
    EXPECT_EQ(rep.vls_used, std::vector<int>{0});
    ValidateOptions all;  // every pair incl. switches, like `ibdmchk -a`
    all.switch_sources = true;
    ValidationReport rep_all = validate(f, r, all);
    EXPECT_EQ(rep_all.delivered, rep_all.pairs) << name;
    if (std::string(name) == "ring4") {
      // ibdmchk -a on the same files (ring4.ibdmchk-a.txt): "Found credit loop on:
      // S..200000/U1/P1 VL: 0" through the P1 ports of all four switches. Same cycle here.
      EXPECT_FALSE(rep_all.cdg_acyclic);
      ASSERT_EQ(rep_all.cycle.size(), 4u);
      for (const Channel& c : rep_all.cycle) {
        EXPECT_TRUE(f.node(c.node).is_switch());
        EXPECT_EQ(c.port, 1);
        EXPECT_EQ(c.vl, 0);
      }
    } else {
      EXPECT_TRUE(rep_all.ok()) << name << "\n" << format_report(f, rep_all);
    }
  }
}

// Cross-check with ibutils' ibdmchk (skipped when it is not installed): it must agree with our
// CDG check on the clockwise ring (credit loop) and on the dateline ring (none), reading the
// subnet.lst / fdbs / path-SL / SL2VL files our writers produce.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "ftroute/ibdmchk_io.hpp"
#include "test_fabrics.hpp"

namespace {
std::string run_ibdmchk(const std::string& dir, bool with_sl) {
  std::string cmd = "cd " + dir + " && timeout 60 ibdmchk -s subnet.lst -f fdbs -m mcfdbs";
  if (with_sl) cmd += " -c psl -d slvl";
  cmd += " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);  // ibdmchk 1.5.7 crashes on exit after printing its report; the text is what counts
  }
  return out;
}
void write(const std::string& path, const std::string& text) {
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  fwrite(text.data(), 1, text.size(), f);
  fclose(f);
}
}  // namespace

TEST(Validate, IbdmchkAgreesOnRingCreditLoops) {
  if (std::system("command -v ibdmchk >/dev/null 2>&1") != 0) GTEST_SKIP() << "ibdmchk not installed";
  const int n = 5;
  Fabric f = ring(n);
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ftroute_vt_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (bool dateline : {false, true}) {
    Routing r = clockwise(f, n);
    if (dateline) add_dateline(f, r, n);
    ValidateOptions ca_only;
    ca_only.switch_destinations = false;  // ibdmchk checks CA-to-CA paths
    ValidationReport rep = validate(f, r, ca_only);
    write((dir / "subnet.lst").string(), write_subnet_lst(f));
    write((dir / "fdbs").string(), write_fdbs(f, r.lfts));
    write((dir / "mcfdbs").string(), write_mcfdbs_empty());
    PathSlWriteOptions po;
    po.all_pairs = true;
    write((dir / "psl").string(), write_path_sl(f, r, po));
    write((dir / "slvl").string(), write_sl2vl(f, r.sl2vl));
    const std::string out = run_ibdmchk(dir.string(), dateline);
    ASSERT_NE(out.find("Analyzing Fabric for Credit Loops"), std::string::npos) << out;
    const bool ibdm_loop = out.find("credit loops in routing") != std::string::npos;
    EXPECT_EQ(ibdm_loop, !rep.cdg_acyclic) << "dateline=" << dateline << "\n" << out;
    EXPECT_EQ(rep.cdg_acyclic, dateline);
    if (dateline) {
      EXPECT_NE(out.find("2 VLs used"), std::string::npos) << out;
    }
  }
  fs::remove_all(dir);
}
