// LFT read-back when the highest LID is a multiple of 64 (regression for "LID 64 missing").
//
// The shipped kns_4x2_ft2.net (48 switches + 16 CAs) gets LIDs 1..64 from OpenSM, so every
// switch's LinearFDBTop is 64 and LID 64 sits alone in LFT block 1. OpenSM writes that block and
// ibsim forwards on it, but infiniband-diags 44's dump_fts (and ibroute) read the blocks
// lo/64 .. ALIGN(top, 64)/64 - 1, i.e. block 0 only, and silently print 63 LIDs
// (docs/HARNESS.md, "dump_fts skips LID LinearFDBTop"). This test pins that down:
//  * raw dump_fts output lacks LID 64 on every switch and lft_export's reader names it
//    (map_lfts warning), so the gap is never silent;
//  * SimFabric::dump_fts() (raw output + block 1 read with smpdump) gives, for EVERY LID 1..64
//    of every switch, the entry KnsEngine computes offline and the entry in OpenSM's own
//    opensm-lfts.dump; every pair is delivered.
#include <gtest/gtest.h>

#include "fabric_check.hpp"
#include "ftroute/lft_io.hpp"
#include "harness.hpp"
#include "kns/kns.hpp"
#include "plugin_itest.hpp"

using namespace ftroute;
using namespace ftroute::itest;

TEST(LftTopBlock, KnsFt2LiveEqualsOfflineForEveryLidIncludingLid64) {
  REQUIRE_PLUGIN();
  SimFabric sim("lft_top_block");
  sim.start(source_dir() + "/ibsim_topologies/nets/kns_4x2_ft2.net");
  OpensmRun run = sim.run_opensm_once(plugin_config("kns", "", {"qos TRUE"}));
  ASSERT_TRUE(run.subnet_up) << run.log;
  ASSERT_EQ(run.engine_used, "kns") << "fell back; log in " << run.dir;

  Fabric f = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  ASSERT_EQ(f.switches().size(), 48u);
  ASSERT_EQ(f.max_lid(), 64) << "precondition: the highest LID must end LFT block 0 + 1";

  // raw dump_fts: LID 64 never read (infiniband-diags 44); the reader says so
  const std::string raw = sim.dump_fts_raw();
  LftFile rf = parse_lft(raw, "dump_fts", LftFormat::DumpFts);
  ASSERT_EQ(rf.tables.size(), 48u);
  size_t unread = 0;
  for (const LftTable& t : rf.tables) unread += dump_fts_unread_lid(t) == 64 ? 1 : 0;
  EXPECT_EQ(unread, 48u) << "dump_fts now reads LID LinearFDBTop: update docs/HARNESS.md";
  bool named = false;
  for (const std::string& w : map_lfts(rf, f).warnings)
    named |= w.find("LID 64 missing from 48 dump_fts table(s)") != std::string::npos;
  EXPECT_TRUE(named) << "map_lfts did not name the unread LID";

  // completed read-back == offline kns == OpenSM's own dump, for every LID 1..64
  const std::string fts = sim.dump_fts();
  LftMapResult live = map_lfts(parse_lft(fts, "dump_fts+smpdump", LftFormat::DumpFts), f);
  for (const std::string& w : live.warnings) ADD_FAILURE() << "reader warning on the completed dump: " << w;
  Lfts offline = KnsEngine().route(f).lfts;
  Lfts osm = map_lfts(read_lft_file(run.dump_dir + "/opensm-lfts.dump", LftFormat::Opensm), f).lfts;
  int diffs = 0, lid64 = 0;
  for (int s : f.switches()) {
    for (Lid lid = 1; lid <= f.max_lid(); lid++) {
      const uint8_t a = live.lfts.get(s, lid), b = offline.get(s, lid), c = osm.get(s, lid);
      if (a != b || a != c) {
        if (diffs++ < 5)
          ADD_FAILURE() << f.node(s).desc << " LID " << lid << ": live " << int(a) << ", offline " << int(b)
                        << ", opensm-lfts.dump " << int(c);
      }
    }
    lid64 += live.lfts.get(s, 64) != kNoPath ? 1 : 0;
  }
  EXPECT_EQ(diffs, 0);
  EXPECT_EQ(lid64, 48) << "LID 64 routed on every switch";
  RoutingCheck chk = check_routing(f, live.lfts);
  EXPECT_TRUE(chk.all_delivered()) << chk.summary();
  EXPECT_EQ(chk.looping, 0u) << chk.summary();
}
