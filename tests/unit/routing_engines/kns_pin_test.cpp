// kns LFTs and path SLs pinned byte for byte across the speed work on its VL layers (session 21:
// IncrementalDag instead of a reachability search per new edge, layers seeded from layer 0's
// order, refused edges remembered). The expected hashes were taken from the engine before that
// work (main 2e96927): FNV-1a 64 over every switch table (node order), then path_sl(slid, dlid)
// for every source LID and destination LID, then the notes; on faulted KNS with one and two
// intermediate routers, concentration and LMC.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "ftroute/engine.hpp"
#include "ftroute/kns_topology.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "lft_pin.hpp"

using namespace ftroute;

namespace {

using lft_pin::fnv;

struct Case {
  std::string name;
  int k, n, p, faults;
  uint64_t seed;
  uint8_t lmc;
  std::string options;  // EngineOptions::parse text
};

uint64_t route_hash(const Case& c) {
  KnsParams q;
  q.k = c.k;
  q.n = c.n;
  q.p = c.p;
  Fabric f = make_kns(q, c.lmc);
  topo::FaultSpec spec;
  spec.random_links = c.faults;
  spec.seed = c.seed;
  spec.keep_connected = true;
  topo::inject_faults(f, spec);
  f.assign_lids(c.lmc);
  const EngineOptions o = EngineOptions::parse(c.options);
  Routing r;
  try {
    r = make_engine("kns")->route(f, o);
  } catch (const std::exception& e) {  // a refusal is pinned by its text
    const std::string w = e.what();
    std::printf("    %s: refused: %s\n", c.name.c_str(), w.c_str());
    return fnv(lft_pin::kBasis, w.data(), w.size());
  }
  uint64_t h = lft_pin::hash_tables(f, r);
  for (Lid s = 1; s <= f.max_lid(); s++)
    for (Lid d = 1; d <= f.max_lid(); d++) {
      const uint8_t sl = r.sl(s, d);
      h = fnv(h, &sl, 1);
    }
  for (const auto& n : r.notes) h = fnv(h, n.data(), n.size());
  return h;
}

}  // namespace

TEST(KnsPin, SameLftsAndSlsAsBeforeTheLayerSpeedWork) {
  const std::vector<std::pair<Case, uint64_t>> cases = {
      {{"kns:6,2 4 faults, one IN", 6, 2, 1, 4, 2, 0, "max_in=1"}, 0x1d359bba334540d6ULL},
      {{"kns:8,2,p=2 8 faults", 8, 2, 2, 8, 3, 0, ""}, 0x9887a014a3323b0dULL},
      {{"kns:5,3 12 faults", 5, 3, 1, 12, 2, 0, ""}, 0xd34dab5ca5a27b33ULL},
      {{"kns:4,3,p=2 6 faults, XORDET 2 classes", 4, 3, 2, 6, 5, 0, "xordet=true,max_vls=15"}, 0x4bd17fdc8e18c814ULL},
      {{"kns:5,2 5 faults, LMC 1", 5, 2, 1, 5, 7, 1, ""}, 0x3507edf1699fe95aULL},
  };
  for (const auto& [c, want] : cases) {
    const uint64_t got = route_hash(c);
    std::printf("    %s: 0x%016llxULL\n", c.name.c_str(), static_cast<unsigned long long>(got));
    EXPECT_EQ(got, want) << c.name;
  }
}
