// `ftroute sim --booksim-config`: the BookSim2 config reader (flitsim/booksim_config.cpp).
// Syntax, BookSim2's defaults for keys the file does not set, the mapping onto flitsim's Config
// and TrafficSpec, and every kind of bad input: each must throw a ParseError naming file:line
// and the key.
#include <gtest/gtest.h>
#include "sim_check.hpp"

#include <fstream>
#include <string>

#include "ftroute/booksim_config.hpp"
#include "ftroute/error.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

namespace {

// The issue's configuration (issue 21): 8x8 mesh, DOR, 1 VC, 64-flit buffers, 16-flit packets.
const char* kIssue = R"(// issue 21
topology = mesh;
k = 8;
n = 2;
routing_function = dim_order;
num_vcs = 1;
vc_buf_size = 64;   // flits per VC
packet_size = 16;
injection_rate_uses_flits = 1;
injection_rate = 0.25;
traffic = uniform;
latency_thres = 1000000.0;
)";

// Expects parse_booksim_config(text) to throw a ParseError at `line` whose message contains `what`.
void expect_error(const std::string& text, int line, const std::string& what) {
  try {
    parse_booksim_config(text, "cfg.booksim");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "cfg.booksim");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what() << "\n(expected: " << what << ")";
    if (line > 0) {
      EXPECT_EQ(std::string(e.what()).rfind("cfg.booksim:" + std::to_string(line) + ": ", 0), 0u) << e.what();
    }
  }
}

const std::string kMinimal = "topology = mesh; k = 4; n = 2; routing_function = dim_order;\n";

}  // namespace

TEST(BookSimConfig, ReadsTheIssueConfigAndMapsIt) {
  BookSimConfig b = parse_booksim_config(kIssue, "issue.cfg");
  EXPECT_EQ(b.topology, "mesh");
  EXPECT_EQ(b.k, 8);
  EXPECT_EQ(b.n, 2);
  EXPECT_EQ(b.num_vcs, 1);
  EXPECT_EQ(b.vc_buf_size, 64);
  EXPECT_EQ(b.packet_size, 16);
  EXPECT_TRUE(b.injection_rate_uses_flits);
  EXPECT_DOUBLE_EQ(b.load_flits(), 0.25);
  EXPECT_EQ(b.line_of.at("vc_buf_size"), 7);
  ASSERT_EQ(b.ignored.size(), 1u);
  EXPECT_EQ(b.ignored[0], "latency_thres");
  // keys the file does not set: BookSim2's defaults
  EXPECT_EQ(b.routing_delay, 1);
  EXPECT_EQ(b.vc_alloc_delay, 1);
  EXPECT_EQ(b.sw_alloc_delay, 1);
  EXPECT_EQ(b.st_final_delay, 1);
  EXPECT_EQ(b.credit_delay, 0);
  EXPECT_FALSE(b.wait_for_tail_credit);
  EXPECT_EQ(b.warmup_periods, 3);
  EXPECT_EQ(b.sample_period, 1000);
  EXPECT_EQ(b.max_samples, 10);

  Config c;
  TrafficSpec t;
  apply_booksim_config(b, c, t);
  EXPECT_EQ(c.num_vcs, 1);
  EXPECT_EQ(c.buffer_flits, 64);
  EXPECT_EQ(c.packet_flits, 16);
  EXPECT_EQ(c.link_latency, 1);
  EXPECT_EQ(c.routing_delay, 1);
  EXPECT_EQ(c.switching, Switching::Wormhole);
  EXPECT_EQ(c.model, RouterModel::BookSim);  // the compatibility mode
  EXPECT_EQ(c.vc_alloc_delay, 1);
  EXPECT_EQ(c.alloc_delay, 1);  // sw_alloc_delay
  EXPECT_EQ(c.xbar_delay, 1);   // st_prepare_delay + st_final_delay
  EXPECT_EQ(c.credit_delay, 0);
  EXPECT_FALSE(c.wait_tail_credit);
  EXPECT_EQ(c.allocator, Allocator::ISlip);
  EXPECT_EQ(c.islip_iterations, 1);
  EXPECT_TRUE(t.self_traffic);
  EXPECT_EQ(t.pattern, "uniform");
  EXPECT_DOUBLE_EQ(t.load, 0.25);
  EXPECT_EQ(t.warmup, 3000);
  EXPECT_EQ(t.measure, 3000);  // three sample periods
  EXPECT_NO_THROW(c.validate());

  Fabric f = booksim_fabric(b);
  Routing r = booksim_routing(f, b);
  EXPECT_EQ(static_cast<int>(endpoints_of(f).size()), 64);
  EXPECT_TRUE(sim_check(f, r, false).ok());
}

TEST(BookSimConfig, DefaultsSyntaxAndUnits) {
  // BookSim2's defaults: torus k 8 n 2, 16 VCs, 8-flit buffers, 1-flit packets, 0.1 packets/node/cycle
  BookSimConfig d = parse_booksim_config("routing_function = dim_order;", "d");
  EXPECT_EQ(d.topology, "torus");
  EXPECT_EQ(d.endpoints(), 64);
  EXPECT_EQ(d.num_vcs, 16);
  EXPECT_EQ(d.vc_buf_size, 8);
  EXPECT_DOUBLE_EQ(d.load_flits(), 0.1);
  Config c;
  TrafficSpec t;
  apply_booksim_config(d, c, t);
  EXPECT_EQ(c.link_latency, 2);  // BookSim2's torus channels (use_noc_latency = 1)
  // packets/node/cycle unless injection_rate_uses_flits; statements across lines; comments
  BookSimConfig b = parse_booksim_config("topology\n=\nmesh\n;// c\nk=4;n=1;routing_function=dor;packet_size=4;"
                                         "injection_rate=0.05;traffic=bitcomp;use_noc_latency=0;seed=7;\n",
                                         "b");
  EXPECT_DOUBLE_EQ(b.load_flits(), 0.2);
  EXPECT_EQ(b.line_of.at("topology"), 1);
  EXPECT_EQ(b.line_of.at("k"), 5);
  apply_booksim_config(b, c, t);
  EXPECT_EQ(t.pattern, "complement");
  EXPECT_DOUBLE_EQ(t.load, 0.2);
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(t.dims, std::vector<int>{4});
  EXPECT_EQ(c.link_latency, 1);  // use_noc_latency = 0 (a mesh anyway)
  b = parse_booksim_config("routing_function = dim_order; use_noc_latency = 0; credit_delay = 2; "
                           "wait_for_tail_credit = 1; st_prepare_delay = 1; vc_alloc_delay = 3;",
                           "t");
  apply_booksim_config(b, c, t);
  EXPECT_EQ(c.link_latency, 1);  // torus without BookSim2's longer wrap-around channels
  EXPECT_EQ(c.credit_delay, 2);
  EXPECT_TRUE(c.wait_tail_credit);
  EXPECT_EQ(c.xbar_delay, 2);
  EXPECT_EQ(c.vc_alloc_delay, 3);
  // VC allocator: iSLIP over VCs (BookSim2's default), or the port-level separable allocator
  EXPECT_TRUE(c.va_per_vc);
  apply_booksim_config(parse_booksim_config(kMinimal + "vc_allocator = separable_input_first;", "v"), c, t);
  EXPECT_FALSE(c.va_per_vc);
  EXPECT_EQ(c.allocator, Allocator::Separable);
  // later assignments win, as in BookSim2
  EXPECT_EQ(parse_booksim_config(kMinimal + "num_vcs = 2; num_vcs = 4;", "x").num_vcs, 4);
  // fixed keys are accepted with the modelled value
  EXPECT_NO_THROW(parse_booksim_config(kMinimal + "router = iq; speculative = 0; internal_speedup = 1.0; "
                                                    "sim_type = latency; injection_process = bernoulli;",
                                       "x"));
  // fattree k-ary n-tree
  BookSimConfig ft = parse_booksim_config("topology = fattree; k = 4; n = 3; routing_function = nca;", "ft");
  Fabric f = booksim_fabric(ft);
  EXPECT_EQ(static_cast<int>(endpoints_of(f).size()), 64);
  EXPECT_TRUE(sim_check(f, booksim_routing(f, ft), false).ok());
}

TEST(BookSimConfig, RandomRoutingChoicesUseLmcLidsPickedAtRandom) {
  // BookSim2 breaks torus ties (dim_order) and picks fattree up ports (nca) at random per packet;
  // by default the reader gives the CAs LMC LIDs for those choices and picks a LID at random per
  // packet; random_choices = false: LMC 0, deterministic LFTs, the base LID.
  struct Case {
    std::string text;
    int lmc;
  };
  for (const Case& k : {Case{"topology = torus; k = 8; n = 2; routing_function = dim_order;", 2},
                        Case{"topology = torus; k = 5; n = 1; routing_function = dim_order;", 1},
                        Case{"topology = mesh; k = 4; n = 2; routing_function = dim_order;", 0},
                        Case{"topology = fattree; k = 4; n = 3; routing_function = nca;", 4},
                        Case{"topology = fattree; k = 8; n = 1; routing_function = nca;", 0}}) {
    BookSimConfig b = parse_booksim_config(k.text, "x");
    EXPECT_EQ(booksim_lmc(b), k.lmc) << k.text;
    for (bool rnd : {true, false}) {
      Config c;
      TrafficSpec t;
      apply_booksim_config(b, c, t, rnd);
      Fabric f = booksim_fabric(b, rnd);
      Routing r = booksim_routing(f, b, rnd);
      const int lmc = rnd ? k.lmc : 0;
      EXPECT_EQ(c.lid_policy, lmc > 0 ? LidPolicy::Random : LidPolicy::Base) << k.text;
      const Port& p = f.node(f.cas().front()).port(1);
      EXPECT_EQ(p.lmc, lmc) << k.text << " random " << rnd;
      EXPECT_TRUE(sim_check(f, r, false).ok()) << k.text << " random " << rnd;
    }
  }
  // an up-port digit per level needs k a power of two within LMC 7
  for (const char* bad : {"topology = fattree; k = 6; n = 2; routing_function = nca;",
                          "topology = fattree; k = 8; n = 4; routing_function = nca;"}) {
    BookSimConfig b = parse_booksim_config(bad, "x");
    EXPECT_THROW(booksim_lmc(b), OptionError) << bad;
    Config c;
    TrafficSpec t;
    EXPECT_NO_THROW(apply_booksim_config(b, c, t, false)) << bad;
  }
}

TEST(BookSimConfig, RefusesWhatItDoesNotModelByNameAndLine) {
  expect_error(kMinimal + "foo = 1;", 2, "unknown BookSim2 key 'foo'");
  expect_error(kMinimal + "\nbatch_size = 10;", 3, "BookSim2 key 'batch_size' is not supported");
  expect_error(kMinimal + "speculative = 1;", 2, "speculative = 1 is not modelled by flitsim (only speculative = 0;)");
  expect_error(kMinimal + "hold_switch_for_packet = 1;", 2, "hold_switch_for_packet = 1 is not modelled");
  expect_error(kMinimal + "sim_count = 3;", 2, "sim_count = 3");
  expect_error(kMinimal + "topology = dragonfly;", 2, "topology = dragonfly is not supported");
  expect_error(kMinimal + "traffic = randperm;", 2, "traffic = randperm is not supported");
  expect_error(kMinimal + "sw_allocator = wavefront;", 2, "sw_allocator = wavefront is not modelled");
  expect_error(kMinimal + "\nsw_allocator = separable_input_first;", 3,
               "sw_allocator = separable_input_first is not modelled by flitsim (supported: islip)");
  expect_error(kMinimal + "injection_rate = {0.1,0.2};", 2, "per-class value lists are not supported");
  expect_error(kMinimal + "seed = time;", 2, "seed = time: expected an integer");
  // values
  expect_error(kMinimal + "k = abc;", 2, "k = abc: expected an integer");
  expect_error(kMinimal + "num_vcs = 0;", 2, "num_vcs = 0: out of range (1..16)");
  expect_error(kMinimal + "vc_alloc_delay = 0;", 2, "vc_alloc_delay = 0: out of range");
  expect_error(kMinimal + "injection_rate = 1.5;", 2, "injection_rate = 1.5: out of range");
  expect_error(kMinimal + "injection_rate = 0.2; packet_size = 8;", 2, "more than a link carries");
  expect_error(kMinimal + "injection_rate = nan;", 2, "expected a number");
  // syntax
  expect_error(kMinimal + "k = 4", 2, "expected ';' after 'k = 4'");
  expect_error(kMinimal + "k 4;", 2, "expected '=' after 'k'");
  expect_error(kMinimal + "k = ;", 2, "missing value for 'k'");
  expect_error(kMinimal + "= 4;", 2, "expected a key, got '='");
  expect_error(kMinimal + "1k = 4;", 2, "'1k' is not a key");
  expect_error(kMinimal + "k = 4\x01;", 2, "unexpected byte 0x01");
  expect_error(kMinimal + "k = \xc3\xa9;", 2, "unexpected byte 0xc3");
  // cross-key checks
  expect_error("topology = mesh;", 0, "routing_function is not set");
  expect_error("// only a comment\n", 0, "empty file");
  expect_error("topology = mesh;\nrouting_function = min_adapt;", 2, "routing_function = min_adapt on a mesh");
  expect_error("topology = torus;\nrouting_function = dim_order;\nnum_vcs = 1;", 3, "needs num_vcs >= 2");
  expect_error("topology = fattree;\nrouting_function = dim_order;", 2, "on a fattree is not supported");
  expect_error("topology = mesh;\nrouting_function = dim_order;\nn = 3;", 3, "1-D and 2-D");
  expect_error("topology = mesh; k = 3; routing_function = dim_order;\ntraffic = transpose;", 2,
               "needs a power-of-two number of nodes");
  expect_error(kMinimal + "warmup_periods = 3;\nmax_samples = 3;", 3, "leaves no sample period");
}

TEST(BookSimConfig, FilesNameThemselves) {
  try {
    read_booksim_config("/nonexistent/x.cfg");
    ADD_FAILURE();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.cfg: cannot open"), std::string::npos) << e.what();
  }
  const std::string p = std::string(FTROUTE_BINARY_DIR) + "/booksim_config_test_nul.cfg";
  {
    std::ofstream o(p, std::ios::binary);
    o << kMinimal << "k = 4;\n" << std::string(1, '\0') << "\n";
  }
  try {
    read_booksim_config(p);
    ADD_FAILURE();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 3) << e.what();
    EXPECT_NE(std::string(e.what()).find("NUL byte"), std::string::npos) << e.what();
  }
  // the shipped configurations parse
  for (const char* f : {"mesh8_uniform_vc1_p16.cfg"}) {
    const std::string path = std::string(FTROUTE_SOURCE_DIR) + "/tests/data/booksim/" + f;
    EXPECT_NO_THROW(read_booksim_config(path)) << path;
  }
}
