// What `ftroute sim` runs; cli/cmd_sim.cpp only parses the options and prints. Here: the
// routing to simulate (an ftroute engine through the routing pipeline, or the simulator's own
// `flitsim-minhop`), the simulator's routing check, a BookSim2 config applied to the router and
// traffic, the fault and re-route schedule of `--fail/--recover/--reroute`, and one load point.
// Bad option values throw SimOptionError (the CLI reports them as usage errors, exit 2); input
// files and engines throw their own errors (ParseError, EngineError, ...).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ftroute/booksim_config.hpp"
#include "ftroute/error.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/pipeline.hpp"

namespace ftroute::flitsim {

// A bad value of a `sim` option (the message names the option and the value).
class SimOptionError : public OptionError {
 public:
  using OptionError::OptionError;
};

// The simulator's routing check: every LID (LMC ranges when all_lmc_lids, i.e. a LID policy other
// than base) from the switches end ports attach to, where traffic enters; not every unused entry
// (ftroute/verdict.hpp). Reported, not refused (`sim --strict` refuses).
PipelineOptions sim_check(bool all_lmc_lids);

// The routing of `sim --engine NAME`: an ftroute engine through the routing pipeline (options
// checked when it is made: OptionError, for an unknown name listing flitsim-minhop too), or the
// simulator's own min-hop routing (`flitsim-minhop`, or an empty name).
class SimEngine {
 public:
  SimEngine(const std::string& name, const EngineOptions& options, bool all_lmc_lids);
  // Routes f; *verdict (if given) gets the pipeline's verdict (none for flitsim-minhop).
  Routing route(const Fabric& f, std::optional<Verdict>* verdict = nullptr);

 private:
  std::optional<RoutingPipeline> pipeline_;
};

// `sim --booksim-config FILE`: reads FILE and sets c and t from it (random_choices: BookSim2's
// per-packet random routing choices as LMC LIDs). Returns the notes to print (keys that only steer
// BookSim2's run control, the fattree up-port rule). A bad file or value: SimOptionError naming it.
std::vector<std::string> apply_booksim_file(const std::string& path, bool random_choices, BookSimConfig& b, Config& c,
                                            TrafficSpec& t);
// After the router options: with random_choices and LMC LIDs the LID policy must be Random (the
// default with it); SimOptionError when lid_policy_given chose another.
void booksim_lid_policy(const BookSimConfig& b, bool random_choices, bool lid_policy_given, Config& c);

// --threads > 1 with NAC or FT-DRB sources: SimOptionError (the simulator refuses them too).
void check_sim_threads(const Config& c);

// The fabric and routing a run simulates.
struct SimInput {
  Fabric fabric;
  Routing routing;
  std::optional<Verdict> verdict;  // the routing pipeline's, for an engine's routing
  // The routing check before simulating: the pipeline's verdict, else verdict_for() with sim_check().
  Verdict check(bool all_lmc_lids) const;
};
// An engine's routing of f: LIDs renumbered with LMC lmc (0..7), or assigned with LMC 0 where f
// has none (lmc < 0); f is validated first.
SimInput route_sim_fabric(Fabric f, int lmc, SimEngine& engine);
// A BookSim2 config's fabric and routing (booksim_fabric, booksim_routing).
SimInput booksim_input(const BookSimConfig& b, bool random_choices);

// --dims KxK.., --hotspots I,J: integers separated by sep; SimOptionError naming `what`, the bad
// token and the whole value.
std::vector<int> parse_int_list(const std::string& s, char sep, const std::string& what);

// `sim --load X`: SimOptionError unless 0 <= X <= 1.
void check_sim_load(double load);

// The default title of `sim`'s plot and JSON document: "<fabric file name>, engine NAME, PATTERN"
// ("LFTs <file name>" without an engine; ", NAC" with NAC), for a BookSim2 config "<config file
// name> (BookSim2 config), PATTERN".
std::string sim_title(const std::string& fabric, const std::string& engine, const std::string& lfts,
                      const std::string& pattern, bool nac);
std::string booksim_title(const std::string& config, const std::string& pattern);

// The link events and re-routes of a run, validated before anything runs.
struct SimSchedule {
  std::vector<LinkEvent> links;
  std::deque<Routing> tables;                             // the re-route tables, owned here
  std::vector<std::pair<int64_t, const Routing*>> reroutes;  // (cycle, tables)
  std::vector<Waypoints> waypoints;                          // `sim --waypoints FILE`
  void apply(Simulator& sim) const;
};
// fails/recovers: CYCLE:"NODE"[PORT]; reroutes: CYCLE[:LFTFILE], in order. CYCLE:LFTFILE is read
// by load_file (empty: the fabric is not a file), a bare CYCLE re-runs engine (null: no --engine)
// on fabric_at() that cycle, i.e. without the links failed by then.
SimSchedule sim_schedule(const Fabric& f, const std::vector<std::string>& fails,
                         const std::vector<std::string>& recovers, const std::vector<std::string>& reroutes,
                         const std::function<Routing(const std::string&)>& load_file, SimEngine* engine);

// One load point: a fresh simulator on (f, r) with the schedule, traffic t at `load`.
Result run_sim_point(const Fabric& f, const Routing& r, const Config& c, const SimSchedule& s, TrafficSpec t,
                     double load);

// The FT-DRB source counters of a result, one line (printed after format_result with
// `--lid-policy ftdrb`).
std::string format_ftdrb_counters(const Result& r);

}  // namespace ftroute::flitsim
