// `ftroute ftdrb-eval` on a tiny configuration (4x4 torus and 4-ary 2-tree, 10 % failed links):
// table rows present, fault-free relative values exactly 1, FT-DRB loses far fewer packets and
// delivers more than the single base path when static faults break base paths, and the output
// does not depend on --jobs (deterministic, parallel-safe). Runs the built ftroute binary.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

const std::string kBin = std::string(FTROUTE_BINARY_DIR) + "/cli/ftroute";
// ctest runs every TEST in its own process, possibly in parallel: per-process file names
const std::string kDir = std::string(FTROUTE_BINARY_DIR) + "/ftdrb_eval_test_" + std::to_string(getpid()) + "_";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run(const std::string& args) {
  int rc = std::system((kBin + " ftdrb-eval " + args + " 2>/dev/null").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

using Row = std::map<std::string, std::string>;

std::vector<Row> parse_csv(const std::string& text) {
  std::vector<Row> rows;
  std::stringstream in(text);
  std::string line;
  std::vector<std::string> head;
  auto split = [](const std::string& l) {
    std::vector<std::string> v;
    std::stringstream s(l);
    std::string c;
    while (std::getline(s, c, ',')) v.push_back(c);
    if (!l.empty() && l.back() == ',') v.push_back("");
    return v;
  };
  while (std::getline(in, line)) {
    if (head.empty()) {
      head = split(line);
      continue;
    }
    auto v = split(line);
    Row r;
    for (size_t i = 0; i < head.size() && i < v.size(); i++) r[head[i]] = v[i];
    rows.push_back(r);
  }
  return rows;
}

const std::string kArgs =
    "--topos torus4x4,4ary2tree --patterns uniform,transpose --faults 10 "
    "--methods single,ftdrb,ftdrb-static,single-static --warmup 300 --measure 1000 --seed 3";

struct Eval {
  std::vector<Row> rows;
  std::string md, csv;
};

const Eval& eval() {
  static Eval e = [] {
    Eval r;
    EXPECT_EQ(run(kArgs + " --jobs 1 --csv " + kDir + "a.csv -o " + kDir + "a.md"), 0);
    r.csv = slurp(kDir + "a.csv");
    r.md = slurp(kDir + "a.md");
    r.rows = parse_csv(r.csv);
    std::remove((kDir + "a.csv").c_str());
    std::remove((kDir + "a.md").c_str());
    return r;
  }();
  return e;
}

const Row* find(const std::string& topo, const std::string& pat, const std::string& pct, const std::string& m) {
  for (const Row& r : eval().rows)
    if (r.at("topology") == topo && r.at("pattern") == pat && r.at("failed_pct") == pct && r.at("method") == m)
      return &r;
  return nullptr;
}

double num(const Row* r, const std::string& k) { return std::stod(r->at(k)); }

TEST(FtdrbEval, EveryRowPresentAndFaultFreeIsTheReference) {
  // 2 topologies x 2 patterns x (0 % added as reference, 10 %) x 4 methods
  ASSERT_EQ(eval().rows.size(), 32u) << eval().csv;
  for (const Row& r : eval().rows) {
    SCOPED_TRACE(r.at("topology") + " " + r.at("pattern") + " " + r.at("failed_pct") + " " + r.at("method"));
    EXPECT_EQ(r.at("deadlock"), "0");
    EXPECT_GT(std::stod(r.at("sat_throughput")), 0.1);
    EXPECT_FALSE(r.at("light_latency").empty()) << "light load 0.02 must not saturate";
    // the sweep runs until saturation, or through all 11 default loads up to 1.0
    EXPECT_TRUE(!r.at("saturated_at").empty() || r.at("points") == "11") << r.at("points");
    if (r.at("failed_pct") == "0") {
      EXPECT_EQ(r.at("failed_links"), "0");
      EXPECT_DOUBLE_EQ(std::stod(r.at("rel_sat")), 1.0);
      EXPECT_DOUBLE_EQ(std::stod(r.at("rel_latency")), 1.0);
      EXPECT_EQ(r.at("dropped"), "0");
    } else {
      EXPECT_GT(std::stoi(r.at("failed_links")), 0);
    }
  }
  for (const char* t : {"**torus4x4**", "**4ary2tree**", "| uniform | 10 % (", "| transpose | 0 % (0)", "thesis ref.",
                        "~80 %", "> 95 %", "**Summary at 10 % failed links**", "| 4ary2tree | uniform | ~80 % |"})
    EXPECT_NE(eval().md.find(t), std::string::npos) << t << "\n" << eval().md;
}

TEST(FtdrbEval, FtDrbBeatsTheBasePathWhenStaticFaultsBreakIt) {
  for (const char* topo : {"torus4x4", "4ary2tree"})
    for (const char* pat : {"uniform", "transpose"}) {
      SCOPED_TRACE(std::string(topo) + " " + pat);
      const Row* ft = find(topo, pat, "10", "ftdrb-static");
      const Row* base = find(topo, pat, "10", "single-static");
      ASSERT_TRUE(ft && base);
      // the faults break base paths: the base LID keeps losing packets; FT-DRB only until the
      // sources are notified (no re-route in either)
      double base_loss = num(base, "dropped") / num(base, "generated");
      double ft_loss = num(ft, "dropped") / num(ft, "generated");
      EXPECT_GT(base_loss, 0.05);
      EXPECT_GT(num(ft, "notifications"), 0);
      EXPECT_LT(ft_loss * 2, base_loss);
      // at the light load (16 endpoints, 1000 cycles: coarse) FT-DRB delivers at least as much
      EXPECT_GE(num(ft, "light_accepted"), num(base, "light_accepted"));
      if (std::string(pat) == "transpose") {  // multipath balances the permutation after re-route
        EXPECT_GT(num(find(topo, pat, "10", "ftdrb"), "sat_throughput"),
                  1.1 * num(find(topo, pat, "10", "single"), "sat_throughput"));
      }
      // re-routed variants lose nothing
      EXPECT_EQ(find(topo, pat, "10", "single")->at("dropped"), "0");
      EXPECT_EQ(find(topo, pat, "10", "ftdrb")->at("dropped"), "0");
    }
}

TEST(FtdrbEval, OutputDoesNotDependOnJobs) {
  ASSERT_FALSE(eval().csv.empty());
  ASSERT_EQ(run(kArgs + " --jobs 3 --csv " + kDir + "b.csv -o " + kDir + "b.md"), 0);
  EXPECT_EQ(slurp(kDir + "b.csv"), eval().csv);
  EXPECT_EQ(slurp(kDir + "b.md"), eval().md);
  std::remove((kDir + "b.csv").c_str());
  std::remove((kDir + "b.md").c_str());
}

TEST(FtdrbEval, BadInputIsAUsageErrorWithoutOutput) {
  std::remove((kDir + "c.md").c_str());
  EXPECT_EQ(run("--topos torus4x4,foo -o " + kDir + "c.md"), 2);
  EXPECT_EQ(run("--topos 2ary3tree --patterns transpose -o " + kDir + "c.md"), 2);  // 8 endpoints
  EXPECT_EQ(run("--faults 0,x -o " + kDir + "c.md"), 2);
  EXPECT_EQ(run("--methods ftdrb,magic -o " + kDir + "c.md"), 2);
  EXPECT_FALSE(std::ifstream(kDir + "c.md").good());
}

}  // namespace
