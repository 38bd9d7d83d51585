// Small validation points against checked-in BookSim2 results (issue 21, "Tests"): the 8x8 mesh
// configuration of tests/data/booksim/mesh8_uniform_vc1_p16.cfg and the 8x8 torus of
// torus8_uniform_vc2_p4.cfg, read with --booksim-config's reader, simulated by flitsim at the
// loads of the .csv next to each, whose
// rows hold BookSim2's latency and accepted rate at each load (mean of three seeds; the file's
// header names the exact BookSim2 command) and the tolerance each is held to (-1: not compared,
// the latency of a saturated network). A model change that
// moves flitsim's curve away from BookSim2's fails here. Runs in a few seconds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ftroute/booksim_config.hpp"
#include "ftroute/flitsim.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

namespace {

struct RefPoint {
  double load, latency, accepted, latency_tol, accepted_tol;
};

std::vector<RefPoint> read_reference(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<RefPoint> pts;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      EXPECT_EQ(line, "load,booksim_latency,booksim_accepted,latency_tol,accepted_tol") << path;
      header = true;
      continue;
    }
    RefPoint p{};
    char c1, c2, c3, c4;
    std::istringstream s(line);
    s >> p.load >> c1 >> p.latency >> c2 >> p.accepted >> c3 >> p.latency_tol >> c4 >> p.accepted_tol;
    EXPECT_TRUE(s && c1 == ',' && c2 == ',' && c3 == ',' && c4 == ',') << path << ": bad row '" << line << "'";
    pts.push_back(p);
  }
  return pts;
}

void check_against_booksim2(const std::string& name) {
  const std::string dir = std::string(FTROUTE_SOURCE_DIR) + "/tests/data/booksim/";
  BookSimConfig b = read_booksim_config(dir + name + ".cfg");
  Fabric f = booksim_fabric(b);
  Routing r = booksim_routing(f, b);
  std::vector<RefPoint> ref = read_reference(dir + name + ".csv");
  ASSERT_GE(ref.size(), 3u);
  for (const RefPoint& p : ref) {
    Config c;
    TrafficSpec t;
    apply_booksim_config(b, c, t);
    t.load = p.load;
    Simulator sim(f, r, c);
    Result res = sim.run(t);
    const double dlat = (res.avg_latency - p.latency) / p.latency;
    const double dacc = (res.accepted - p.accepted) / p.accepted;
    if (p.latency_tol >= 0)
      std::printf("%s load %.2f: latency flitsim %.1f BookSim2 %.1f (%+.1f %%, tol %.0f %%), ", name.c_str(), p.load,
                  res.avg_latency, p.latency, 100 * dlat, 100 * p.latency_tol);
    else
      std::printf("%s load %.2f: latency flitsim %.1f (saturated, not compared), ", name.c_str(), p.load, res.avg_latency);
    std::printf("accepted flitsim %.4f BookSim2 %.4f (%+.1f %%, tol %.0f %%)\n", res.accepted, p.accepted, 100 * dacc,
                100 * p.accepted_tol);
    if (p.latency_tol >= 0) {
      EXPECT_LE(std::fabs(dlat), p.latency_tol) << name << ": latency at load " << p.load;
    }
    EXPECT_LE(std::fabs(dacc), p.accepted_tol) << name << ": accepted at load " << p.load;
    EXPECT_FALSE(res.deadlock.detected);
  }
}

}  // namespace

TEST(FlitsimBookSimPoint, Mesh8UniformMatchesBookSim2WithinTolerance) { check_against_booksim2("mesh8_uniform_vc1_p16"); }

// The 8x8 torus exercises what the mesh does not: BookSim2's random tie-breaking (LMC LIDs picked
// at random), its dateline VC classes with every VC at the destination router, and its VC
// allocator over VCs (past saturation it idles output VCs; the per-port allocator accepts ~11 %
// more there).
TEST(FlitsimBookSimPoint, Torus8UniformMatchesBookSim2WithinTolerance) { check_against_booksim2("torus8_uniform_vc2_p4"); }
