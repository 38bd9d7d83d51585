// flitsim fed from files: a .net written by netfile.hpp and an opensm-lfts.dump written by
// lft_io.hpp are read back with load_routing() and replayed; results match the in-memory run.
#include <gtest/gtest.h>
#include "sim_check.hpp"

#include <fstream>

#include "ftroute/flitsim.hpp"
#include "ftroute/flitsim_testnets.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

TEST(FlitsimFiles, NetAndLftDumpReplayLikeInMemory) {
  Fabric f = make_mesh(3, 3, false);
  Routing r = route_dor(f, 3, 3, false);
  std::string dir = FTROUTE_BINARY_DIR;
  std::string net = dir + "/flitsim_files_mesh3.net", lft = dir + "/flitsim_files_mesh3.lfts";
  std::ofstream(net) << write_net(f);
  std::ofstream(lft) << write_lfts(f, r.lfts);
  LoadedRouting lr = load_routing(net, lft);
  ASSERT_EQ(lr.fabric.size(), f.size());
  Verdict chk = sim_check(lr.fabric, lr.routing, false);
  EXPECT_TRUE(chk.ok()) << chk.summary();
  Config c;
  TrafficSpec t;
  t.load = 0.2, t.warmup = 200, t.measure = 3000;
  Simulator a(f, r, c), b(lr.fabric, lr.routing, c);
  Result ra = a.run(t), rb = b.run(t);
  EXPECT_TRUE(rb.flushed);
  EXPECT_EQ(rb.delivered, rb.generated);
  // same fabric, same tables, same seed: identical runs
  EXPECT_EQ(ra.generated, rb.generated);
  EXPECT_EQ(ra.delivered, rb.delivered);
  EXPECT_DOUBLE_EQ(ra.avg_latency, rb.avg_latency);
}
