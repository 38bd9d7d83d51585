// lft-file: a routing read from an LFT dump (another engine's tables, e.g. OpenSM's), alone and as
// DQR's base; EngineOptions' "prefix.*" keys that pass options on to DQR's base engine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ftroute/cdg.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;

namespace {

struct TempDir {
  std::filesystem::path p;
  TempDir() {
    p = std::filesystem::temp_directory_path() / ("lft_file_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
  }
  ~TempDir() { std::filesystem::remove_all(p); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string f = (p / name).string();
    std::ofstream(f) << text;
    return f;
  }
};

Fabric mesh4() {
  topo::Grid g;
  g.dims = {4, 4};
  Fabric f = topo::grid(g);
  f.assign_lids();
  return f;
}

EngineOptions file_opt(const std::string& path) {
  EngineOptions o;
  o.set("file", path);
  return o;
}

}  // namespace

// The tables of the file, in OpenSM's dump format and in dump_fts's, are the routing.
TEST(LftFile, RoutesTheTablesOfItsFile) {
  TempDir d;
  const Fabric f = mesh4();
  const Routing r = make_engine("ft-dor")->route(f);
  for (LftFormat style : {LftFormat::Opensm, LftFormat::DumpFts}) {
    const std::string path = d.write("t.dump", write_lfts(f, r.lfts, style));
    const Routing got = make_engine("lft-file")->route(f, file_opt(path));
    EXPECT_EQ(got.engine, "lft-file");
    for (int s : f.switches())
      for (Lid l = 1; l <= f.max_lid(); l++) ASSERT_EQ(got.lfts.get(s, l), r.lfts.get(s, l)) << lft_format_name(style);
  }
}

// A dump made before a link failed does not route the faulty fabric: refused (OpenSM falls back),
// naming the file and an undelivered pair; so is a file without one of the fabric's switches.
TEST(LftFile, RefusesTablesThatDoNotRouteTheFabric) {
  TempDir d;
  const Fabric f = mesh4();
  const Routing r = make_engine("ft-dor")->route(f);
  const std::string path = d.write("t.dump", write_lfts(f, r.lfts));
  Fabric g = f;
  g.disconnect(f.switch_links().front().first, f.switch_links().front().second);
  try {
    make_engine("lft-file")->route(g, file_opt(path));
    FAIL() << "tables of the fault-free fabric accepted on the faulty one";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("do not route this fabric"), std::string::npos) << e.what();
  }
  // one switch's table removed from the dump
  Lfts missing = r.lfts;
  const int s0 = f.switches().back();
  for (Lid l = 1; l <= f.max_lid(); l++) missing.set(s0, l, kNoPath);
  std::string text = write_lfts(f, missing);
  const std::string path2 = d.write("t2.dump", text);
  try {
    make_engine("lft-file")->route(f, file_opt(path2));
    FAIL() << "a dump without switch " << f.node(s0).id << " accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find(f.node(s0).id), std::string::npos) << e.what();
  }
}

TEST(LftFile, ClearErrorsForOptionsAndMalformedFiles) {
  TempDir d;
  const Fabric f = mesh4();
  auto eng = make_engine("lft-file");
  EXPECT_THROW(eng->route(f), OptionError);                                   // no file=
  // file= is required: refused where the options are checked, before any routing
  try {
    eng->check_options(EngineOptions{});
    FAIL() << "lft-file without file= passed the option check";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("engine 'lft-file' needs option file=VALUE"), std::string::npos) << e.what();
  }
  EngineOptions empty;
  empty.set("file", "");
  EXPECT_THROW(eng->check_options(empty), OptionError);
  EXPECT_THROW(eng->route(f, file_opt((d.p / "nonexistent").string())), OptionError);
  EngineOptions bad = file_opt(d.write("x", "x"));
  bad.set("colour", "red");
  EXPECT_THROW(eng->route(f, bad), OptionError);
  const std::string junk = d.write("junk.dump", "Unicast lids [0-0x10] of switch Lid 1 guid 0x1 (S):\n0x0001 zz\n");
  try {
    eng->route(f, file_opt(junk));
    FAIL() << "malformed file accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(junk + ":"), std::string::npos) << e.what();
  }
}

// DQR over tables it did not compute: base=lft-file with base.file=... routes the fault-free mesh
// with the file's tables, then patches them after a fault (deadlock-free, only broken entries).
TEST(LftFile, IsABaseForDqr) {
  TempDir d;
  const Fabric f = mesh4();
  const Routing ref = make_engine("ft-dor")->route(f);
  const std::string path = d.write("t.dump", write_lfts(f, ref.lfts));
  auto dqr = make_engine("dqr");
  EngineOptions o;
  o.set("base", "lft-file");
  o.set("base.file", path);
  o.set("fallback", "false");
  const Routing first = dqr->route(f, o);
  EXPECT_EQ(first.engine, "dqr(lft-file)");
  for (int s : f.switches())
    for (Lid l = 1; l <= f.max_lid(); l++) ASSERT_EQ(first.lfts.get(s, l), ref.lfts.get(s, l));
  Fabric g = f;
  auto [s, p] = f.switch_links()[f.switch_links().size() / 2];
  g.disconnect(s, p);
  const Routing patched = dqr->route(g, o, PreviousRouting{&f, &first});
  bool noted = false;
  for (const auto& n : patched.notes) noted = noted || n.find("patched the previous routing") != std::string::npos;
  EXPECT_TRUE(noted);
  CdgBuild b = build_cdg(g, patched);
  EXPECT_EQ(b.stats.delivered, b.stats.pairs);
  EXPECT_EQ(b.stats.looping, 0u);
  EXPECT_FALSE(b.cdg.find_cycle());
  // unknown base options reach the base engine, which names them
  o.set("base.colour", "red");
  EXPECT_THROW(make_engine("dqr")->route(f, o), OptionError);
}

// The SL files that go with the tables: path SLs (ibdmchk -c) and SL2VL tables (ibdmchk -d), as
// written for a multi-layer routing (E-cube tori: one SL / VL per virtual layer).
TEST(LftFile, ReadsPathSlsAndSl2VlTables) {
  TempDir d;
  topo::Grid g;
  g.dims = {4, 4};
  g.torus = true;
  Fabric f = topo::grid(g);
  f.assign_lids();
  Routing r = make_engine("ft-dor")->route(f);
  ASSERT_TRUE(r.path_sl);
  ASSERT_GT(r.num_vls, 1);
  Sl2Vl id;
  id.set_all(f, Sl2Vl::identity());
  EngineOptions o = file_opt(d.write("t.dump", write_lfts(f, r.lfts)));
  o.set("sl", d.write("t.sl", write_path_sl(f, r)));
  o.set("sl2vl", d.write("t.sl2vl", write_sl2vl(f, id)));
  const Routing got = make_engine("lft-file")->route(f, o);
  ASSERT_TRUE(got.path_sl);
  int sls = 0;
  for (const EndPort& a : f.end_ports())
    for (const EndPort& b : f.end_ports()) {
      if (f.node(a.node).is_switch() || f.node(b.node).is_switch() || a.node == b.node) continue;
      ASSERT_EQ(got.sl(a.base_lid, b.base_lid), r.sl(a.base_lid, b.base_lid)) << a.base_lid << " -> " << b.base_lid;
      sls |= 1 << r.sl(a.base_lid, b.base_lid);
    }
  EXPECT_GT(__builtin_popcount(static_cast<unsigned>(sls)), 1) << "every pair on one SL: the test checks nothing";
  EXPECT_FALSE(got.sl2vl.empty());
  EXPECT_EQ(got.sl2vl.vl(f.switches().front(), 1, 2, 3), 3);
  // VLs needed: those the file's SLs reach (0..3 here), not the 16 an identity table names (a
  // 4-VL routing must not ask 8-VL ports for 16 VLs: the plugin would refuse it)
  EXPECT_EQ(got.num_vls, r.num_vls);
  o.set("sl2vl", "");  // SLs only: identity, as many VLs as the highest SL + 1
  EXPECT_EQ(make_engine("lft-file")->route(f, o).num_vls, r.num_vls);
  o.set("sl", "");  // tables only: every pair on SL 0 -> VL 0
  o.set("sl2vl", d.write("t.sl2vl", write_sl2vl(f, id)));
  EXPECT_EQ(make_engine("lft-file")->route(f, o).num_vls, 1);
  Sl2Vl high;  // SL 0 -> VL 5 on one switch pair: 6 VLs
  Sl2Vl::Table t = Sl2Vl::identity();
  t[0] = 5;
  high.set_all(f, Sl2Vl::identity());
  high.set(f.switches().front(), 1, 2, t);
  o.set("sl2vl", d.write("h.sl2vl", write_sl2vl(f, high)));
  EXPECT_EQ(make_engine("lft-file")->route(f, o).num_vls, 6);
}

TEST(EngineOptions, PrefixKeysPassOptionsOn) {
  EngineOptions o;
  o.set("base.file", "x");
  o.set("base.sl", "y");
  o.set("paths", "e2e");
  const OptionSpec paths = OptionSpec::text("paths", "local", "p"), base = OptionSpec::prefix("base.*", "b");
  EXPECT_NO_THROW(o.check_known("dqr", {paths, base}));
  EXPECT_THROW(o.check_known("dqr", {paths}), OptionError);
  // a Text spec named like a prefix is no prefix
  EXPECT_THROW(o.check_known("dqr", {paths, OptionSpec::text("base.*", "", "b")}), OptionError);
  const EngineOptions b = o.with_prefix("base");
  EXPECT_EQ(b.all().size(), 2u);
  EXPECT_EQ(b.get("file", ""), "x");
  EngineOptions odd;
  odd.set("basefile", "x");
  EXPECT_THROW(odd.check_known("dqr", {base}), OptionError);
  odd = EngineOptions();
  odd.set("base.", "x");
  EXPECT_THROW(odd.check_known("dqr", {base}), OptionError);
}
