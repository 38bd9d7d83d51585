// ftroute campaign-table: the engine comparison of docs/ftree-misroute.md (issue 4) as a markdown
// table, from one or more campaign directories (results.csv). The work is in campaign/compare.cpp.
#include <algorithm>
#include <cstdio>

#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/campaign.hpp"
#include "ftroute/campaign_compare.hpp"
#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/campaign_lost.hpp"
#include "ftroute/campaign_regression.hpp"

using namespace ftroute;

namespace {

int run_campaign_table(cli::Args& a) {
  std::vector<std::string> order;
  if (auto e = a.value("engines")) order = cli::split_list(*e, ',');
  const bool json = a.flag("json");
  const bool regression = a.flag("regression");
  const bool lifetime = a.flag("lifetime");
  const double link_gbytes = a.double_or("link-gbytes", 4.0);
  if (!(link_gbytes > 0)) throw cli::UsageError("--link-gbytes must be > 0");
  const bool lost = a.flag("lost");
  if (json && (regression || lifetime || lost))
    throw cli::UsageError(std::string("--json prints the comparison rows; it does not go with --") +
                          (regression ? "regression" : lifetime ? "lifetime" : "lost"));
  if (regression && lifetime) throw cli::UsageError("--lifetime already includes the regression; give one of them");
  if (lost && (regression || lifetime))
    throw cli::UsageError(std::string("--lost is a view of its own; it does not go with --") + (regression ? "regression" : "lifetime"));
  auto pos = a.positionals();
  if (pos.empty()) throw cli::UsageError("give the campaign directories (or results.csv files)");
  std::vector<std::vector<campaign::RunResult>> parts = campaign::read_result_parts(pos);
  auto rows = campaign::merge(parts);
  if (rows.empty()) throw Error("no campaign results in the given files");
  // Each input's recorded settings (campaign.conf), grouped: "settings: ... (DIR, DIR)".
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  nlohmann::json jset = nlohmann::json::array();
  for (const auto& p : pos) {
    campaign::Settings st;
    const bool have = campaign::read_campaign_settings(p, &st);
    std::string text = have ? campaign::settings_summary(st)
                            : "not recorded (no campaign.conf: from before ftroute recorded its settings; "
                              "shift-exchange in index order)";
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [k, v] : st) o[k] = v;
    jset.push_back({{"input", p}, {"recorded", have}, {"settings", o}});
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == text; });
    if (it == groups.end()) groups.push_back({text, {p}});
    else it->second.push_back(p);
  }
  if (json) {
    nlohmann::json j = cli::json_doc("campaign-table");
    j["inputs"] = pos;
    j["settings"] = jset;
    nlohmann::json jr = nlohmann::json::array();
    for (const auto& c : campaign::comparison_rows(rows, order))
      jr.push_back({{"fabric", c.fabric},
                    {"switch_failures", c.switch_failures},
                    {"link_failures", c.link_failures},
                    {"engine", c.engine},
                    {"opensm", c.opensm},
                    {"runs", c.runs},
                    {"tolerated", c.tolerated},
                    {"reachable_cdg_unchecked", c.unchecked_ok},
                    {"refused", c.refused},
                    {"failed", c.failed},
                    {"measured", c.measured},
                    {"vls", c.measured ? nlohmann::json(c.vls) : nlohmann::json()},
                    {"efi_max_mean", c.measured ? nlohmann::json(c.efi_max_mean) : nlohmann::json()},
                    {"efi_max_worst", c.measured ? nlohmann::json(c.efi_max_worst) : nlohmann::json()},
                    {"efi_avg_mean", c.measured ? nlohmann::json(c.efi_avg_mean) : nlohmann::json()},
                    {"routing_ms_mean", c.routing_seconds_mean * 1e3},
                    {"fallback", c.opensm ? nlohmann::json(c.fallback) : nlohmann::json()},
                    {"fallback_engines", c.fallback_engines}});
    j["rows"] = jr;
    std::fputs(cli::dump_json(j).c_str(), stdout);
    return 0;
  }
  for (const auto& [text, inputs] : groups) {
    std::string names;
    for (const auto& p : inputs) names += (names.empty() ? "" : ", ") + p;
    std::printf("Campaign settings (%s): %s\n", names.c_str(), text.c_str());
  }
  if (groups.size() > 1)
    std::printf("(the inputs ran with different settings: a fabric and engine found in more than one of them mixes those settings)\n");
  std::printf("\n");
  if (lost)
    std::fputs(campaign::lost_routes_table(rows, order).c_str(), stdout);
  else if (lifetime)
    std::fputs(campaign::lifetime_report(rows, order, link_gbytes).c_str(), stdout);
  else if (regression)
    std::fputs(campaign::regression_table(rows, order, link_gbytes).c_str(), stdout);
  else
    std::fputs(campaign::comparison_table(rows, order).c_str(), stdout);
  return 0;
}

}  // namespace

static ::ftroute::cli::Registrar ftroute_subcommand_campaign_table(
    "campaign-table", "markdown engine comparison (tolerated, VLs, EFI, routing time, fallback) of campaign results",
    R"(usage: ftroute campaign-table DIR|results.csv ... [--engines A,B,...]
       [--json | --regression | --lifetime | --lost] [--link-gbytes 4]

Prints one markdown row per fabric x fault level x engine of `ftroute campaign` results:
tolerated runs (reachable, loop-free, CDG checked acyclic), VLs used, edge forwarding index
(max, avg), mean routing time, and how often OpenSM fell back to another engine. --engines gives
the row order within a fault level (default: order of appearance). See docs/ftree-misroute.md.
--json prints the rows as JSON (docs/JSON.md).

--regression: the fail-in-place design method (seed 003 Tables V-VII) instead: per fabric and
engine the linear regression of simulated throughput against the failures kept in place
(intercept, slope, R^2; flits/endpoint/cycle and Gbyte/s = x HCAs x --link-gbytes, default 4 =
4X QDR), then the recommendation: the best engine now and after how many failures another one
becomes better (where the regression lines cross). See docs/campaign.md.

--lifetime: the case study of a lifetime campaign (`ftroute campaign --years N` / --case-study):
per year the failed switches, links and lost CAs, and per engine the valid runs, throughput and
its change since year 0, EFI, VLs, refusals and OpenSM fallbacks; then the regression and the
recommendation: the engine valid in every year with the best throughput (docs/campaign.md,
"Case study").

--lost: the connections lost before re-routing (seed 003 section III-C-1, Eq. 6, Fig. 2): per
fabric x fault level x engine the routes of the engine's routing of the intact fabric that the
faults cut (results.csv column lost_routes), as median [quartiles] (min-max) and mean over the
seeds, the mean of Eq. 6's estimate n/|E| x sum of the edge forwarding indices (column lost_eq6)
and the ratios median / Eq. 6 and mean / Eq. 6. See docs/campaign.md, "Connections lost before
re-routing".)",
    run_campaign_table);
