// Connections lost before re-routing (J. Domke, T. Hoefler, S. Matsuoka, "Fail-in-Place Network
// Design: Interaction between Topology, Routing Algorithm and Failures", SC 2014, section III-C-1,
// Eqs. 5-6, Fig. 2; spec docs/specs/fattree_fip_dqr.md, "Lost-connection experiment").
//
// Until the subnet manager has programmed new tables after a failure, the switches still forward
// with the tables of the intact fabric, and every route of those tables that crosses a failed link
// or switch is lost. A campaign run records
//   lost_routes  the routes (CA source port, destination LID of a CA port) that the engine's routing
//                of the INTACT fabric delivers and that cross a failed link or visit a failed switch
//                of the run's fault set (the routes from and to the CAs of a failed switch included:
//                they visit it);
//   lost_eq6     Eq. 6's estimate n/|E| * sum_e pi_e over the intact routing, pi_e = routes crossing
//                cable e in either direction, E = the candidates of the link faults (switch-to-switch
//                cables; every cable with --host-links), n = the failed cables; for switch failures
//                the same with E = the switches, pi_s = routes visiting switch s, n = failed
//                switches; a run with both sums the two terms.
// The intact routing is computed once per (fabric, engine) and shared by every run of a campaign
// (IntactRoutings; opensm:<x>: one OpenSM run under ibsim on the intact fabric).
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ftroute/campaign.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/opensm_run.hpp"
#include "ftroute/routing.hpp"

namespace ftroute::campaign {

// The engine's routing of the intact fabric and what Eq. 6 needs of it.
struct IntactRouting {
  std::string status = "ok";   // ok | refused (EngineError) | failed (OpenSM) | error: no routing
  std::string message;         // why not, or a note ("OpenSM fell back to minhop on the intact fabric")
  std::string engine_used;     // the engine whose tables these are (OpenSM: from its log)
  Fabric fabric;               // the intact fabric with the LIDs the tables use
  Lfts lfts;
  // Sources: the connected CA ports, grouped by the switch they are cabled to.
  struct Source {
    int node = -1, port = 0;
  };
  struct SourceGroup {
    int sw = -1;
    std::vector<Source> ports;
  };
  std::vector<SourceGroup> groups;
  // Destinations: every LID of every connected CA port (its LMC range).
  struct Destination {
    Lid lid = 0;
    int node = -1, port = 0;
    int group = -1;  // the source group of the destination port (it is no source of its own LIDs)
  };
  std::vector<Destination> destinations;
  // Figures of the routes the tables deliver (CA port -> CA LID).
  uint64_t routes = 0;
  uint64_t pi_switch_links = 0;  // sum over switch-to-switch cables of the routes crossing them
  uint64_t pi_host_links = 0;    // the same over the CA cables (2 per route)
  uint64_t pi_switches = 0;      // sum over switches of the routes visiting them
  int switch_links = 0, host_links = 0, switches = 0;  // |E| of each kind in the intact fabric
};

// The OpenSM options of a campaign's runs on `fabric` (timeout, helpers, scratch directory, SA
// query limit, the generator spec for torus-2QoS.conf): the runs and the intact routing share them.
OpensmRunOptions campaign_opensm_options(const Config& cfg, const std::string& fabric);

// Builds the figures of `r` (groups, destinations, routes, pi sums) from r.fabric and r.lfts.
void index_intact_routing(IntactRouting& r);

// The routing of `intact` (the campaign's fabric `fabric`) by `engine`: in process with the LIDs
// the campaign's runs use (keeps_file_lids), or one OpenSM run under ibsim for opensm:<x> (no SA
// query, no CDG check: only its LFTs are used). EngineError and OpenSM failures go to status;
// OptionError and Interrupted are thrown.
std::shared_ptr<const IntactRouting> compute_intact_routing(const Config& cfg, const Fabric& intact,
                                                            const std::string& fabric, const std::string& engine);

// The intact routings of one campaign, each computed once, by the first run that asks; runs in
// other threads that ask for the same (fabric, engine) wait for it. Thread-safe.
class IntactRoutings {
 public:
  std::shared_ptr<const IntactRouting> get(const Config& cfg, const Fabric& intact, const std::string& fabric,
                                           const std::string& engine);
  int computed() const;  // how many were computed (tests)

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_future<std::shared_ptr<const IntactRouting>>> cache_;
};

struct LostRoutes {
  uint64_t lost = 0;    // routes of the intact routing cut by the faults
  double eq6 = 0;       // Eq. 6's estimate
  int failed_links = 0, failed_switches = 0;  // n of Eq. 6 (links between surviving nodes; switches)
};
// Counts the routes of `base` that `faulty` (base's fabric minus failed links and switches, nodes
// matched by id) cuts: a route is lost when it visits a switch missing from `faulty` or crosses a
// cable missing there (its CA cables included). host_links: the link faults' candidates are all
// cables (campaign --host-links), else the switch-to-switch cables.
LostRoutes count_lost_routes(const IntactRouting& base, const Fabric& faulty, bool host_links);

// `campaign-table --lost`: one markdown row per (fabric, failures, engine) with the lost routes over
// the seeds as median [lower quartile - upper quartile] (min - max), their mean, the mean of Eq. 6's
// estimate and the ratios median / Eq. 6 and mean / Eq. 6; runs without the figures (older results.csv, no intact routing) are
// counted apart. Quartiles by linear interpolation between the order statistics (quantile(), campaign.hpp).
std::string lost_routes_table(const std::vector<RunResult>& rows, const std::vector<std::string>& engines = {});

}  // namespace ftroute::campaign
