// `ftroute sim` end to end: the built binary on a shipped .net (LFTs written by `ftroute route`),
// a load sweep with CSV + SVG output checked for its columns and for values that follow from the
// fabric, and bad options / malformed inputs that must fail with a clear message and no output.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kExe = std::string(FTROUTE_BINARY_DIR) + "/cli/ftroute";
const std::string kMesh = std::string(FTROUTE_SOURCE_DIR) + "/ibsim_topologies/nets/mesh4x4.net";

std::string scratch(const std::string& name) { return std::string(FTROUTE_BINARY_DIR) + "/flitsim_cli_test_" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

struct CmdResult {
  int status;
  std::string output;  // stdout + stderr
};

CmdResult ftroute(const std::string& args) {
  // one log per process: ctest -j runs these tests in parallel processes (a shared name mixed
  // their outputs under the slower ASan build)
  const std::string log = scratch("out." + std::to_string(::getpid()) + ".log");
  int rc = std::system((kExe + " " + args + " >" + log + " 2>&1").c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(log)};
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::stringstream in(s);
  std::string tok;
  while (std::getline(in, tok, sep)) r.push_back(tok);
  return r;
}

class FlitsimCli : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(exists(kExe)) << kExe << " not built"; }
};

}  // namespace

TEST_F(FlitsimCli, SweepOnShippedNetWritesCsvAndSvg) {
  // LFTs from the engine, as a user would replay them: ftroute route -> opensm-lfts.dump.
  const std::string lfts = scratch("mesh.lfts"), csv = scratch("sweep.csv"), svg = scratch("sweep.svg");
  std::remove(csv.c_str()), std::remove(svg.c_str());
  CmdResult r = ftroute("route -e ft-dor " + kMesh + " -o " + lfts + " -q");
  ASSERT_EQ(r.status, 0) << r.output;
  r = ftroute("sim --fabric " + kMesh + " --lfts " + lfts + " --sweep 0.1:0.3:0.1 --warmup 500 --measure 4000 --csv " +
              csv + " --svg " + svg);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("load 0.300"), std::string::npos) << r.output;

  std::vector<std::string> lines = split(slurp(csv), '\n');
  ASSERT_EQ(lines.size(), 4u) << slurp(csv);
  const std::vector<std::string> want{"load",      "offered", "accepted", "avg_latency", "p99_latency",
                                      "avg_network_latency", "avg_hops", "generated", "delivered",
                                      "dropped", "in_flight", "drained", "deadlock", "cycles"};
  ASSERT_EQ(split(lines[0], ','), want);
  // 4x4 mesh, one CA per switch, DOR, uniform: the mean Manhattan distance over ordered pairs of
  // distinct nodes is 2 * 1.25 * 256/240 = 8/3, so a packet crosses 11/3 switches on average.
  // Zero-load latency per docs/flitsim.md (L = 1, 3-cycle router, 16-flit packets):
  // (h + 1) + 3h + 15 with h = 11/3, i.e. 30.67 cycles; queueing only adds to it.
  const double hops = 11.0 / 3, zero_load = (hops + 1) + 3 * hops + 15;
  double prev_latency = 0;
  for (size_t i = 1; i < lines.size(); i++) {
    std::vector<std::string> v = split(lines[i], ',');
    ASSERT_EQ(v.size(), want.size()) << lines[i];
    double load = std::stod(v[0]), offered = std::stod(v[1]), accepted = std::stod(v[2]), avg = std::stod(v[3]),
           p99 = std::stod(v[4]), net = std::stod(v[5]), h = std::stod(v[6]);
    EXPECT_NEAR(load, 0.1 * i, 1e-9);
    EXPECT_NEAR(offered, load, 0.2 * load) << lines[i];        // Bernoulli injection, 4000 cycles
    EXPECT_NEAR(accepted, offered, 0.05 * offered) << lines[i];  // far below saturation
    EXPECT_NEAR(h, hops, 0.2) << lines[i];
    EXPECT_GE(avg, zero_load - 1.5) << lines[i];  // (mean over a sample of pairs)
    EXPECT_LT(avg, 3 * zero_load) << lines[i];
    EXPECT_GE(p99, avg) << lines[i];
    EXPECT_LE(net, avg) << lines[i];
    EXPECT_GE(avg, prev_latency) << "latency must grow with the load";
    prev_latency = avg;
    EXPECT_EQ(v[7], v[8]) << "generated != delivered: " << lines[i];
    EXPECT_EQ(v[9], "0") << lines[i];   // dropped
    EXPECT_EQ(v[10], "0") << lines[i];  // in flight at the end (flushed)
    EXPECT_EQ(v[11], "1") << lines[i];  // drained
    EXPECT_EQ(v[12], "0") << lines[i];  // deadlock
    EXPECT_GE(std::stol(v[13]), 4500) << lines[i];
  }
  std::string s = slurp(svg);
  EXPECT_NE(s.find("<svg"), std::string::npos);
  EXPECT_NE(s.find("</svg>"), std::string::npos);
  EXPECT_NE(s.find("mesh4x4.net"), std::string::npos) << "default title names the fabric";
  std::remove(csv.c_str()), std::remove(svg.c_str()), std::remove(lfts.c_str());
}

TEST_F(FlitsimCli, BadOptionsAndInputsFailClearlyWithoutOutput) {
  const std::string csv = scratch("bad.csv"), lfts = scratch("bad.lfts"), net = scratch("bad.net");
  CmdResult r = ftroute("route -e ft-dor " + kMesh + " -o " + lfts + " -q");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string ok = "sim --fabric " + kMesh + " --engine ft-dor --measure 500 --csv " + csv;
  struct Case {
    std::string args;
    int status;
    std::string message;
  };
  // a malformed .net: the error names file and line
  std::ofstream(net) << "Switch 5 \"S0\"\n[1] \"H0\"[1]\n[2] \"S1\"[x]\n";
  // LFTs of switch S0_0 sending LID 0x12 (CA H1_0_0, line 19) to a port it does not have (9),
  // or to its unlinked port 3 (S0_0 is a mesh corner: no -x neighbour)
  const std::string dump = slurp(lfts), badlfts = scratch("badport.lfts"), unlinked = scratch("unlinked.lfts");
  size_t at = dump.find("0x0012 002");
  ASSERT_NE(at, std::string::npos);
  std::ofstream(badlfts) << std::string(dump).replace(at, 10, "0x0012 009");
  std::ofstream(unlinked) << std::string(dump).replace(at, 10, "0x0012 003");
  const std::vector<Case> cases{
      {ok + " --bogus 1", 2, "unknown option '--bogus'"},
      {ok + " --load 1.5", 2, "--load 1.5 out of range"},
      {ok + " --pattern zigzag", 1, "unknown traffic pattern 'zigzag'"},
      {ok + " --pattern hotspot --hot-sources 0.25 --hot-load 2", 2, "--hot-load 2 out of range (0..1)"},
      {ok + " --pattern hotspot --hot-sources 1", 2, "--hot-sources 1 out of range"},
      {ok + " --hot-sources 0.25", 1, "hot sources need the hotspot pattern"},
      {ok + " --vcs 99", 2, "--vcs 99 out of range (0..16)"},
      {ok + " --threads -1", 2, "--threads -1 out of range (0..64)"},
      {ok + " --threads 65", 2, "--threads 65 out of range (0..64)"},
      {ok + " --threads abc", 2, "--threads"},
      {ok + " --threads 2 --nac", 2, "--threads > 1 does not support NAC"},
      {ok + " --vcs 4294967297", 2, "--vcs 4294967297 out of range"},  // not truncated to 1 VC
      {ok + " --fail 100:NOPE[1]", 2, "unknown node 'NOPE'"},
      {ok + " --fail 100:S0_0[3]", 2, "\"S0_0\"[3]"},  // S0_0 has no -x neighbour: port 3 is unlinked
      {"sim --fabric " + kMesh + " --engine ft-dor --sweep 0.1:0.2:0.1", 2, "--sweep needs --csv"},
      {"sim --fabric " + net + " --engine ft-dor --csv " + csv, 1, net + ":3:"},
      {"sim --fabric " + scratch("missing.net") + " --engine ft-dor --csv " + csv, 1, "missing.net"},
      {"sim --fabric " + kMesh + " --lfts " + badlfts + " --csv " + csv, 1,
       badlfts + ":19: port 9 beyond the 5 ports of switch \"S0_0\""},
      {"sim --fabric " + kMesh + " --lfts " + unlinked + " --strict --csv " + csv, 1,
       "routes LID 18 (\"H1_0_0\"[1]) to port \"S0_0\"[3], which has no working link"},
  };
  for (const Case& k : cases) {
    std::remove(csv.c_str());
    CmdResult x = ftroute(k.args);
    EXPECT_EQ(x.status, k.status) << k.args << "\n" << x.output;
    EXPECT_NE(x.output.find(k.message), std::string::npos) << k.args << "\nexpected '" << k.message << "' in:\n" << x.output;
    EXPECT_FALSE(exists(csv)) << k.args << " left " << csv;
  }
  // The same LFTs without --strict: the report names the problem, then the simulation counts the
  // packets the bad entry drops instead of losing them silently.
  std::remove(csv.c_str());
  CmdResult x = ftroute("sim --fabric " + kMesh + " --lfts " + unlinked + " --load 0.2 --measure 2000 --csv " + csv);
  EXPECT_EQ(x.status, 0) << x.output;
  EXPECT_NE(x.output.find("unlinked-port"), std::string::npos) << x.output;
  EXPECT_NE(x.output.find("LFT port missing or unlinked"), std::string::npos) << x.output;
  EXPECT_TRUE(exists(csv));
  for (const std::string& p : {csv, lfts, net, badlfts, unlinked}) std::remove(p.c_str());
}

// `--booksim-config FILE`: a BookSim2 config file gives the fabric, routing, router and traffic;
// a key flitsim does not model is refused by name with file:line (exit 2) and nothing is written.
TEST_F(FlitsimCli, BookSimConfigRunsAndRefusesWhatItDoesNotModel) {
  const std::string cfg = scratch("bs.cfg"), bad = scratch("bsbad.cfg"), csv = scratch("bs.csv");
  std::ofstream(cfg) << "// 4x4 mesh\ntopology = mesh;\nk = 4;\nn = 2;\nrouting_function = dim_order;\n"
                        "num_vcs = 2;\nvc_buf_size = 16;\npacket_size = 4;\ninjection_rate_uses_flits = 1;\n"
                        "injection_rate = 0.1;\nsample_period = 500;\n";
  std::ofstream(bad) << "topology = mesh;\nk = 4;\nrouting_function = dim_order;\nspeculative = 1;\n";
  std::remove(csv.c_str());
  CmdResult ok = ftroute("sim --booksim-config " + cfg + " --json --csv " + csv);
  ASSERT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("\"endpoints\": 16"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("\"booksim_config\""), std::string::npos) << ok.output;
  EXPECT_TRUE(exists(csv));
  const std::vector<std::pair<std::string, std::string>> cases{
      {"sim --booksim-config " + bad + " --csv " + csv,
       bad + ":4: speculative = 1 is not modelled by flitsim (only speculative = 0;)"},
      {"sim --booksim-config " + cfg + " --fabric " + kMesh + " --csv " + csv, "do not combine it with a fabric"},
      {"sim --booksim-config " + scratch("nope.cfg") + " --csv " + csv, "nope.cfg: cannot open"},
      {"sim --booksim-config " + cfg + " --booksim-routing sideways --csv " + csv,
       "--booksim-routing must be random or lft"},
      {"sim --fabric " + kMesh + " --engine ft-dor --booksim-routing lft --csv " + csv,
       "--booksim-routing needs --booksim-config"},
      {"sim --booksim-config " + cfg + " --va-grants all --csv " + csv, "--va-grants must be port or vc"},
      {"sim --fabric " + kMesh + " --engine ft-dor --eject-vcs any --csv " + csv, "--eject-vcs needs --model booksim"},
  };
  for (const auto& [args, msg] : cases) {
    std::remove(csv.c_str());
    CmdResult x = ftroute(args);
    EXPECT_EQ(x.status, 2) << args << "\n" << x.output;
    EXPECT_NE(x.output.find(msg), std::string::npos) << args << "\nexpected '" << msg << "' in:\n" << x.output;
    EXPECT_FALSE(exists(csv)) << args;
  }
  for (const std::string& p : {cfg, bad, csv}) std::remove(p.c_str());
}

TEST_F(FlitsimCli, BookSimModelAcceptsCreditDelayZeroAndTheIbModelExplains) {
  // --model booksim: credit_delay 0 is BookSim2's default and legal; the ib model refuses it
  // with a message that names the option and the model that takes it.
  CmdResult r = ftroute("sim --fabric " + kMesh + " --engine ft-dor --model booksim --credit-delay 0 --load 0.1"
                        " --warmup 200 --measure 2000");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("accepted"), std::string::npos) << r.output;
  r = ftroute("sim --fabric " + kMesh + " --engine ft-dor --credit-delay 0 --load 0.1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--credit-delay 0 needs --model booksim"), std::string::npos) << r.output;
  r = ftroute("sim --fabric " + kMesh + " --engine ft-dor --model nope");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--model must be ib or booksim"), std::string::npos) << r.output;
  r = ftroute("sim --fabric " + kMesh + " --engine ft-dor --allocator nope");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--allocator must be separable or islip"), std::string::npos) << r.output;
  // the model's own constraint (NAC is VCT only) comes from Config::validate: exit 1, named
  r = ftroute("sim --fabric " + kMesh + " --engine ft-dor --model booksim --nac");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("NAC is defined for the InfiniBand router model"), std::string::npos) << r.output;
}
