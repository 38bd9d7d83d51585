// ftroute campaign-table: the engine comparison of docs/ftree-misroute.md (issue 4) as a markdown
// table, from one or more campaign directories (results.csv). The work is in campaign/compare.cpp.
#include <cstdio>

#include "cli.hpp"
#include "ftroute/campaign.hpp"
#include "ftroute/campaign_compare.hpp"

using namespace ftroute;

namespace {

int run_campaign_table(cli::Args& a) {
  std::vector<std::string> order;
  if (auto e = a.value("engines")) order = cli::split_list(*e, ',');
  auto pos = a.positionals();
  if (pos.empty()) throw cli::UsageError("give the campaign directories (or results.csv files)");
  std::vector<std::vector<campaign::RunResult>> parts = campaign::read_result_parts(pos);
  auto rows = campaign::merge(parts);
  if (rows.empty()) throw Error("no campaign results in the given files");
  std::fputs(campaign::comparison_table(rows, order).c_str(), stdout);
  return 0;
}

}  // namespace

static ::ftroute::cli::Registrar ftroute_subcommand_campaign_table(
    "campaign-table", "markdown engine comparison (tolerated, VLs, EFI, routing time, fallback) of campaign results",
    R"(usage: ftroute campaign-table DIR|results.csv ... [--engines A,B,...]

Prints one markdown row per fabric x fault level x engine of `ftroute campaign` results:
tolerated runs (reachable, loop-free, CDG checked acyclic), VLs used, edge forwarding index
(max, avg), mean routing time, and how often OpenSM fell back to another engine. --engines gives
the row order within a fault level (default: order of appearance). See docs/ftree-misroute.md.)",
    run_campaign_table);
