// campaign/engine_choice.cpp: what `ftroute compare` recommends. The ranking (passes every check,
// fewest VLs, lowest EFI max, ftroute's engines before OpenSM's), the fallback chain (only passing
// engines: the best, then ftroute's, then OpenSM's), the opensm.conf lines, the reasons an engine is
// rejected and the "nothing passes" case, on synthetic rows; then in-process engines on a real torus.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cstdlib>
#include <string>
#include <vector>

#include "ftroute/engine_choice.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/error.hpp"
#include "ftroute/opensm_run.hpp"
#include "ftroute/topology.hpp"

using namespace ftroute;
using namespace ftroute::campaign;

namespace {

// A row that passes every check, with `vls` VLs and EFI max `efi`.
EngineRow pass_row(const std::string& name, int vls, uint64_t efi, bool opensm = false) {
  EngineRow r;
  r.name = opensm ? "opensm:" + name : name;
  r.source = opensm ? EngineRow::Source::Opensm : EngineRow::Source::Engine;
  if (opensm) r.engine_used = name;
  r.report.pairs = 100;
  r.report.deadlock_checked = true;
  r.report.cdg_acyclic = true;
  for (int v = 0; v < vls; ++v) r.report.vls_used.push_back(v);
  r.report.efi_max = efi;
  r.needs_qos = vls > 1;
  return r;
}

EngineRow cyclic_row(const std::string& name, bool opensm = false) {
  EngineRow r = pass_row(name, 1, 5, opensm);
  r.report.cdg_acyclic = false;
  r.report.cycle_text = "\"S0\"[3] vl0 -> \"S1\"[4] vl0 -> \"S2\"[1] vl0 -> \"S0\"[3] vl0";
  return r;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

const std::vector<std::string>* reasons_of(const Recommendation& rec, const std::string& name) {
  for (const auto& [n, why] : rec.rejected)
    if (n == name) return &why;
  return nullptr;
}

}  // namespace

TEST(EngineChoice, RankingFewestVlsThenEfiThenFtrouteFirst) {
  std::vector<EngineRow> rows = {
      pass_row("ftdrb", 3, 4),                  // fewest EFI, but 3 VLs
      pass_row("updn", 1, 30, true),            // 1 VL, EFI 30: ties with ftree-misroute
      pass_row("ftree-misroute", 1, 30),        // the tie goes to ftroute's engine
      pass_row("ft-dor", 2, 10),
      pass_row("dfsssp", 1, 20, true),          // 1 VL, lowest EFI among the 1-VL engines
      cyclic_row("minhop", true),
  };
  Recommendation rec = recommend(rows, 0);
  std::vector<std::string> order;
  for (const auto& p : rec.passed) order.push_back(p.name);
  EXPECT_EQ(order, (std::vector<std::string>{"opensm:dfsssp", "ftree-misroute", "opensm:updn", "ft-dor", "ftdrb"}));
  EXPECT_EQ(rec.best, "dfsssp");
  // chain: the best, then the next passing ftroute engine, then the next passing OpenSM engine
  EXPECT_EQ(rec.chain, (std::vector<std::string>{"dfsssp", "ftree-misroute", "updn"}));
  ASSERT_EQ(rec.rejected.size(), 1u);
  EXPECT_EQ(rec.rejected[0].first, "opensm:minhop");
  EXPECT_NE(rec.rejected[0].second[0].find("credit loop"), std::string::npos);
  EXPECT_NE(rec.rejected[0].second[0].find("\"S0\"[3] vl0"), std::string::npos);
}

// An engine whose routes stay on VL 0 but that asks for more VLs (ft-lash's layers: num_vls 3)
// counts with the VLs it asks for.
TEST(EngineChoice, VlsAskedForCount) {
  EngineRow lash = pass_row("ft-lash", 1, 5);
  lash.num_vls = 3;
  lash.needs_qos = true;
  Recommendation rec = recommend({lash, pass_row("ftdrb", 2, 50)}, 0);
  ASSERT_EQ(rec.passed.size(), 2u);
  EXPECT_EQ(rec.passed[0].name, "ftdrb");
  EXPECT_EQ(rec.passed[1].vls, 3);
  // the text names both counts, so that it agrees with the table's VLs column (the VLs used)
  const std::string text = recommendation_text(rec, false);
  EXPECT_NE(text.find("ft-lash (3 VLs, routes on 1, EFI max 5)"), std::string::npos) << text;
  EXPECT_NE(text.find("ftdrb (2 VLs, EFI max 50)"), std::string::npos) << text;
}

TEST(EngineChoice, EqualEnginesKeepTheOrderGiven) {
  std::vector<EngineRow> rows = {pass_row("ft-minhop", 1, 8), pass_row("ftree-misroute", 1, 8),
                                 pass_row("minhop", 1, 8, true), pass_row("updn", 1, 8, true)};
  Recommendation rec = recommend(rows, 0);
  EXPECT_EQ(rec.chain, (std::vector<std::string>{"ft-minhop", "ftree-misroute", "minhop"}));
  EXPECT_TRUE(rec.builtin_minhop.empty()) << "minhop passed and is in the chain: " << rec.builtin_minhop;
}

TEST(EngineChoice, ChainHoldsOnlyPassingEngines) {
  EngineRow fell_back = pass_row("ftree", 1, 2, true);
  fell_back.engine_used = "minhop";
  fell_back.fallback = true;  // its checks pass, but they are minhop's
  EngineRow unreachable = pass_row("updn", 1, 3, true);
  unreachable.report.unreachable = 7;
  unreachable.report.unreachable_examples = {"H1 -> H9: dropped at \"S4\""};
  EngineRow looping = pass_row("ft-minhop", 1, 1);
  looping.report.looping = 2;
  EngineRow bad = pass_row("kns", 1, 1);
  bad.report.bad_entries = 1;
  EngineRow unchecked = pass_row("lash", 1, 1, true);
  unchecked.report.deadlock_checked = false;
  unchecked.message = "12 path records missing from the SA; CDG not checked";
  EngineRow refused = pass_row("ftdrb", 1, 1);
  refused.status = "refused";
  refused.message = "too many faults";
  EngineRow failed = pass_row("nue", 1, 1, true);
  failed.status = "failed";
  failed.message = "OpenSM: ftsim: error: OpenSM did not bring the subnet up";
  EngineRow file = pass_row("mine", 1, 1);
  file.source = EngineRow::Source::File;  // a dump is no engine OpenSM can run
  std::vector<EngineRow> rows = {fell_back, unreachable, looping, bad, unchecked, refused, failed, file,
                                 pass_row("ftree-misroute", 1, 40), cyclic_row("minhop", true)};
  Recommendation rec = recommend(rows, 0);
  EXPECT_EQ(rec.chain, (std::vector<std::string>{"ftree-misroute"}));
  EXPECT_EQ(rec.best, "ftree-misroute");
  ASSERT_EQ(rec.passed.size(), 1u);
  auto why = [&](const std::string& n) {
    const auto* w = reasons_of(rec, n);
    return w ? joined(*w) : std::string("<not rejected>");
  };
  EXPECT_NE(why("opensm:ftree").find("OpenSM fell back to minhop"), std::string::npos) << why("opensm:ftree");
  EXPECT_NE(why("opensm:updn").find("7 of 100 pairs unreachable (e.g. H1 -> H9"), std::string::npos) << why("opensm:updn");
  EXPECT_NE(why("ft-minhop").find("2 pairs loop"), std::string::npos);
  EXPECT_NE(why("kns").find("1 LFT entry on a missing or unlinked port"), std::string::npos);
  EXPECT_NE(why("opensm:lash").find("deadlock freedom not checked (12 path records missing"), std::string::npos);
  EXPECT_NE(why("ftdrb").find("refused: too many faults"), std::string::npos);
  EXPECT_NE(why("opensm:nue").find("OpenSM brought no subnet up"), std::string::npos);
  EXPECT_NE(why("opensm:minhop").find("credit loop"), std::string::npos);
  EXPECT_EQ(reasons_of(rec, "mine"), nullptr);  // file rows are neither candidates nor rejected
  // minhop, OpenSM's last resort, has a credit loop here: the conf says so
  EXPECT_NE(rec.builtin_minhop.find("minhop fails here: credit loop"), std::string::npos) << rec.builtin_minhop;
  EXPECT_NE(joined(rec.conf).find("# when every engine above fails, OpenSM routes with its built-in minhop; minhop fails"),
            std::string::npos)
      << joined(rec.conf);
}

// OpenSM's last resort is its built-in minhop: a row where OpenSM fell back to minhop is minhop's
// routing, so its verdict is what the conf comment reports when minhop itself was not run.
TEST(EngineChoice, BuiltinMinhopJudgedFromAFallback) {
  EngineRow updn = cyclic_row("updn", true);
  updn.engine_used = "minhop";
  updn.fallback = true;
  Recommendation rec = recommend({pass_row("ft-dor", 2, 24), updn}, 0);
  EXPECT_EQ(rec.builtin_minhop.rfind("minhop (what opensm:updn fell back to) fails here: credit loop", 0), 0u)
      << rec.builtin_minhop;
  // the same fallback without a cycle: nothing known against minhop, so no warning
  updn.report.cdg_acyclic = true;
  rec = recommend({pass_row("ft-dor", 2, 24), updn}, 0);
  EXPECT_TRUE(rec.builtin_minhop.empty()) << rec.builtin_minhop;
  EXPECT_EQ(rec.chain, (std::vector<std::string>{"ft-dor"}));  // updn itself still fell back: not in the chain
}

TEST(EngineChoice, OpensmConfLines) {
  // ftroute engine best (with options), an SL-based OpenSM engine in the chain, LMC 1
  EngineRow misroute = pass_row("ftree-misroute", 1, 10);
  misroute.options.set("max_valleys", "4");
  EngineRow dfsssp = pass_row("dfsssp", 2, 9, true);
  dfsssp.needs_qos = true;
  Recommendation rec = recommend({misroute, dfsssp}, 1);
  EXPECT_EQ(rec.chain, (std::vector<std::string>{"ftree-misroute", "dfsssp"}));
  const std::string conf = joined(rec.conf);
  EXPECT_EQ(rec.conf[0], "routing_engine ftree-misroute,dfsssp");
  EXPECT_TRUE(contains(rec.conf, "event_plugin_name ftroute")) << conf;
  EXPECT_TRUE(contains(rec.conf, "event_plugin_options ftree-misroute:max_valleys=4")) << conf;
  EXPECT_TRUE(contains(rec.conf, "qos TRUE")) << conf;
  EXPECT_TRUE(contains(rec.conf, "lmc 1")) << conf;
  EXPECT_NE(conf.find("minhop was not checked here"), std::string::npos) << conf;
  // OpenSM engines only: no plugin lines, no qos, no lmc
  rec = recommend({pass_row("updn", 1, 3, true), cyclic_row("ft-minhop")}, 0);
  EXPECT_EQ(rec.conf[0], "routing_engine updn");
  EXPECT_FALSE(rec.uses_plugin);
  for (const auto& l : rec.conf) {
    EXPECT_EQ(l.find("event_plugin"), std::string::npos) << l;
    EXPECT_NE(l, "qos TRUE");
    EXPECT_EQ(l.rfind("lmc", 0), std::string::npos) << l;
  }
  // an ftroute engine run both in-process and inside OpenSM appears once in the chain
  EngineRow inside = pass_row("ftree-misroute", 1, 10, true);
  rec = recommend({pass_row("ftree-misroute", 1, 10), inside}, 0);
  EXPECT_EQ(rec.chain, (std::vector<std::string>{"ftree-misroute"}));
  EXPECT_EQ(rec.passed.size(), 2u);
  // a multi-VL ftroute engine without options: qos TRUE, plugin name, no event_plugin_options
  rec = recommend({pass_row("ftdrb", 3, 10)}, 0);
  EXPECT_TRUE(contains(rec.conf, "qos TRUE")) << joined(rec.conf);
  EXPECT_TRUE(contains(rec.conf, "event_plugin_name ftroute"));
  EXPECT_TRUE(rec.plugin_options.empty());
}

TEST(EngineChoice, NothingPasses) {
  EngineRow refused = pass_row("ftree-misroute", 1, 1);
  refused.status = "refused";
  refused.message = "too many faults";
  EngineRow updn = pass_row("updn", 1, 1, true);
  updn.report.unreachable = 9288;
  updn.report.pairs = 100000;
  Recommendation rec = recommend({refused, updn, cyclic_row("minhop", true)}, 0);
  EXPECT_TRUE(rec.best.empty());
  EXPECT_TRUE(rec.chain.empty());
  EXPECT_TRUE(rec.conf.empty());
  EXPECT_TRUE(rec.passed.empty());
  EXPECT_EQ(rec.rejected.size(), 3u);
  const std::string t = recommendation_text(rec, true);
  EXPECT_NE(t.find("Recommendation: none - no engine passes every check"), std::string::npos) << t;
  EXPECT_NE(t.find("opensm:minhop: credit loop (CDG cycle): \"S0\"[3] vl0 ->"), std::string::npos) << t;
  EXPECT_NE(t.find("opensm:updn: 9288 of 100000 pairs unreachable"), std::string::npos) << t;
  EXPECT_NE(t.find("ftree-misroute: refused: too many faults"), std::string::npos) << t;
  EXPECT_EQ(t.find("routing_engine"), std::string::npos) << t;
  // without --opensm the text points at it
  EXPECT_NE(recommendation_text(rec, false).find("add --opensm"), std::string::npos);
  EXPECT_TRUE(recommend({}, 0).best.empty());
}

TEST(EngineChoice, ReasonsAreOneLineAndEscaped) {
  EngineRow r = pass_row("updn", 1, 1, true);
  r.status = "failed";
  r.message = "OpenSM: ERR 0A01 node \"evil\x1b[2J\"\nsecond line";
  auto why = rejection_reasons(r);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0].find('\n'), std::string::npos) << why[0];
  EXPECT_EQ(why[0].find('\x1b'), std::string::npos) << why[0];
  EXPECT_NE(why[0].find("\\x1b[2J"), std::string::npos) << why[0];
  // a long cycle is shortened to its first channels
  EngineRow c = cyclic_row("minhop", true);
  c.report.cycle_text.clear();
  for (int i = 0; i < 40; ++i) c.report.cycle_text += "\"S" + std::to_string(i) + "\"[1] vl0 -> ";
  c.report.cycle_text += "\"S0\"[1] vl0";
  why = rejection_reasons(c);
  EXPECT_NE(why[0].find("... (40 channels)"), std::string::npos) << why[0];
  EXPECT_LT(why[0].size(), 200u);
}

TEST(EngineChoice, OptionsPerEngine) {
  EngineOptions o = engine_options_for("ftree-misroute", {"ftree-misroute:max_valleys=4,check=off", "ft-minhop:balance=0",
                                                          "threads=2"});
  EXPECT_EQ(o.get("max_valleys", ""), "4");
  EXPECT_EQ(o.get("check", ""), "off");
  EXPECT_EQ(o.get("threads", ""), "2");
  EXPECT_FALSE(o.has("balance"));
}

// In-process engines on a real 4x4 torus: ft-minhop's minimal routes have a credit loop on one VL,
// ft-dor is deadlock free on 2 VLs; the recommendation picks ft-dor and needs qos TRUE.
TEST(EngineChoice, TorusInProcess) {
  Fabric f = topo::build_fabric_spec("torus:4x4");
  f.assign_lids(0);
  CompareOptions co;
  co.engines = {"ft-minhop", "ft-dor", "ftree-misroute"};
  std::vector<EngineRow> rows = compare_engines(f, co);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].status, "ok");
  EXPECT_FALSE(rows[0].report.cdg_acyclic);
  EXPECT_EQ(rows[1].status, "ok");
  EXPECT_TRUE(rows[1].report.ok());
  EXPECT_EQ(rows[2].status, "refused");  // not a fat tree
  Recommendation rec = recommend(rows, fabric_lmc(f));
  EXPECT_EQ(rec.best, "ft-dor");
  EXPECT_EQ(rec.chain, (std::vector<std::string>{"ft-dor"}));
  EXPECT_TRUE(contains(rec.conf, "qos TRUE")) << joined(rec.conf);
  EXPECT_NE(reasons_of(rec, "ft-minhop"), nullptr);
  EXPECT_NE(reasons_of(rec, "ftree-misroute"), nullptr);
}

TEST(EngineChoice, SimulatorMissingIsNamed) {
  EXPECT_NE(opensm_sim_missing("/nonexistent/ftsim.sh").find("/nonexistent/ftsim.sh"), std::string::npos);
  EXPECT_TRUE(contains(opensm_engine_names(), "updn"));
  EXPECT_FALSE(contains(opensm_engine_names(), "file"));
}

// `compare --opensm` names: OpenSM's engines or ftroute's; `file` and unknown names refused with
// the text the command prints. The scratch directory: kept when given, else a temporary one that
// goes with the object when OpenSM ran.
TEST(EngineChoice, OpensmNamesAndTheScratchDirectory) {
  EXPECT_EQ(opensm_compare_names({"updn", "ftree-misroute"}), (std::vector<std::string>{"updn", "ftree-misroute"}));
  auto error = [](std::vector<std::string> names) -> std::string {
    try {
      opensm_compare_names(names);
    } catch (const OptionError& e) {
      return e.what();
    }
    return "(none)";
  };
  EXPECT_EQ(error({}), "--opensm needs engine names (updn,ftree,minhop,dfsssp, ...)");
  EXPECT_EQ(error({"file"}), "--opensm file: OpenSM's file engine needs an LFT dump; check one with --lfts NAME=FILE");
  EXPECT_EQ(error({"updn", "no\x01such"}).rfind("--opensm: unknown engine 'no\\x01such' (OpenSM's: ", 0), 0u);

  OpensmRunOptions o;
  {
    CompareScratch keep("kept-dir", true);
    keep.apply(o);
    EXPECT_EQ(o.scratch_dir, "kept-dir");
    EXPECT_TRUE(o.keep_scratch);
  }
  std::string tmp;
  {
    CompareScratch temp("", true);
    temp.apply(o);
    tmp = o.scratch_dir;
    EXPECT_FALSE(o.keep_scratch);
    EXPECT_NE(tmp.find("ftroute-compare-" + std::to_string(getpid())), std::string::npos) << tmp;
    std::filesystem::create_directories(tmp);  // as the OpenSM runs make it
  }
  EXPECT_FALSE(std::filesystem::exists(tmp)) << "the temporary scratch directory stays behind";
}

// --engines 'NAME[k=v,..]' in compare: a variant of its own (the campaign's syntax), its options over
// --opt's, its opensm.conf name the engine's, its options handed to the plugin.
TEST(EngineChoice, VariantsRunWithTheirOptions) {
  Fabric f = topo::build_fabric_spec("fattree:4,3");
  topo::FaultSpec fs;
  fs.seed = 1;
  fs.keep_connected = true;
  fs.random_links = 8;  // beyond the misrouting's guarantee: vls=2 takes two valley chains (campaign test)
  topo::inject_faults(f, fs);
  f.assign_lids(0);
  CompareOptions co;
  co.engines = {"ftree-misroute", "ftree-misroute[vls=2,max_valleys=8]"};
  co.opts = {"ftree-misroute:max_valleys=4"};
  const std::vector<EngineRow> rows = compare_engines(f, co);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[1].status, "ok") << rows[1].message;
  EXPECT_EQ(rows[0].num_vls, 1);
  EXPECT_EQ(rows[1].num_vls, 2);
  EXPECT_EQ(rows[0].options.get("max_valleys", ""), "4");
  EXPECT_EQ(rows[1].options.get("max_valleys", ""), "8");  // the variant's own over --opt's
  EXPECT_EQ(rows[1].name, "ftree-misroute[vls=2,max_valleys=8]");
  EXPECT_EQ(rows[1].conf_name(), "ftree-misroute");
  co.engines = {"ftree-misroute[vls=99]"};
  EXPECT_THROW(compare_engines(f, co), OptionError);
}
