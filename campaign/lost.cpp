// Connections lost before re-routing (seed 003 section III-C-1, Eqs. 5-6): the intact routing of a
// campaign's (fabric, engine), the routes of it a fault set cuts, and `campaign-table --lost`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/campaign_lost.hpp"
#include "ftroute/error.hpp"
#include "ftroute/opensm_run.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/route_walk.hpp"

namespace ftroute::campaign {

namespace {

// Every route of r's tables, one walk per (source group, destination LID): start() before each
// walk, on_hop(switch, hop) as walk_path's, on_route(group, w) when the walk delivers, with w the
// routes it stands for (the group's CA ports, the destination's own port left out). The index
// (routes, pi sums) and the count of lost routes walk the same routes through it.
template <class Start, class OnHop, class OnRoute>
void walk_routes(const IntactRouting& r, Start&& start, OnHop&& on_hop, OnRoute&& on_route) {
  for (const auto& d : r.destinations)
    for (size_t gi = 0; gi < r.groups.size(); ++gi) {
      const auto& g = r.groups[gi];
      const uint64_t w = g.ports.size() - (static_cast<int>(gi) == d.group ? 1 : 0);
      if (w == 0) continue;
      start();
      if (walk_path(r.fabric, r.lfts, g.sw, d.lid, d.node, d.port, on_hop).end == PathWalk::Delivered) on_route(gi, w);
    }
}

}  // namespace

OpensmRunOptions campaign_opensm_options(const Config& cfg, const std::string& fabric) {
  OpensmRunOptions o;
  o.timeout = cfg.opensm_timeout;
  o.ftsim_script = cfg.ftsim_script;
  o.pathsl_tool = cfg.pathsl_tool;
  o.scratch_dir = cfg.scratch_dir.empty() ? (cfg.out_dir.empty() ? "." : cfg.out_dir) + "/scratch" : cfg.scratch_dir;
  o.keep_scratch = cfg.keep_scratch;
  o.max_path_sl_pairs = cfg.path_sl_max_pairs;
  for (const auto& src : cfg.fabrics)
    if (src.name == fabric) o.gen_spec = src.gen_spec;
  return o;
}

void index_intact_routing(IntactRouting& r) {
  const Fabric& f = r.fabric;
  r.groups.clear();
  r.destinations.clear();
  r.routes = r.pi_switch_links = r.pi_host_links = r.pi_switches = 0;
  r.switches = static_cast<int>(f.switches().size());
  r.switch_links = static_cast<int>(f.switch_links().size());
  r.host_links = f.num_links() - r.switch_links;
  // sources: connected CA ports by the switch they are cabled to (CA-to-CA cables have no switch)
  std::map<int, size_t> group_of;
  std::map<std::pair<int, int>, int> group_of_port;
  for (int c : f.cas()) {
    const Node& n = f.node(c);
    for (int p = 1; p <= n.num_ports; ++p) {
      const Port& x = n.port(p);
      if (!x.connected() || !f.node(x.peer_node).is_switch()) continue;
      auto [it, fresh] = group_of.try_emplace(x.peer_node, r.groups.size());
      if (fresh) r.groups.push_back({x.peer_node, {}});
      r.groups[it->second].ports.push_back({c, p});
      group_of_port[{c, p}] = static_cast<int>(it->second);
    }
  }
  for (const EndPort& e : f.end_ports()) {
    if (f.node(e.node).is_switch()) continue;  // CA-to-CA routes: switch LIDs carry no connection
    auto g = group_of_port.find({e.node, e.port});
    if (g == group_of_port.end()) continue;  // not cabled to a switch
    for (uint32_t lid = e.base_lid; lid <= e.last_lid(); ++lid)
      r.destinations.push_back({static_cast<Lid>(lid), e.node, e.port, g->second});
  }
  // routes and pi sums, each walk weighted by its sources
  uint64_t sw = 0, links = 0;
  walk_routes(
      r, [&] { sw = links = 0; },
      [&](int, const RouteHop& h) {
        ++sw;
        links += h.kind == RouteHop::Forward;
      },
      [&](size_t, uint64_t w) {
        r.routes += w;
        r.pi_switches += w * sw;
        r.pi_switch_links += w * links;
        r.pi_host_links += 2 * w;  // the source's and the destination's cable
      });
}

namespace {

std::shared_ptr<IntactRouting> in_process(const Config& cfg, const Fabric& intact, const std::string& fabric,
                                          const std::string& engine) {
  auto r = std::make_shared<IntactRouting>();
  r->fabric = intact;
  if (!keeps_file_lids(cfg, fabric, intact)) r->fabric.assign_lids(0);  // as run_one numbers every run
  PipelineOptions po;
  po.require_ok = false;  // the tables as the engine made them: undelivered pairs are no routes
  const EngineVariant variant = engine_variant(engine);
  RoutingPipeline pipeline(variant.name, variant.options, po);
  try {
    r->lfts = pipeline.run(r->fabric).routing.lfts;
  } catch (const EngineError& e) {
    r->status = "refused";
    r->message = "the engine refused the intact fabric: " + e.reason();
    return r;
  }
  r->engine_used = engine;
  return r;
}

std::shared_ptr<IntactRouting> under_opensm(const Config& cfg, const Fabric& intact, const std::string& fabric,
                                            const std::string& engine) {
  auto r = std::make_shared<IntactRouting>();
  OpensmRunOptions o = campaign_opensm_options(cfg, fabric);
  o.max_path_sl_pairs = 1;              // only the LFTs count here: no SA query
  o.validate.check_deadlock = false;    // nor a CDG
  o.comment = "campaign intact routing " + fabric + "|opensm:" + engine;
  OpensmResult res = run_opensm_engine(intact, engine, o);
  r->engine_used = res.engine_used;
  if (res.status != "ok" || !res.loaded) {
    r->status = res.status == "ok" ? "failed" : res.status;
    r->message = "OpenSM on the intact fabric: " + res.message;
    return r;
  }
  r->fabric = std::move(res.loaded->fabric);  // input.net with OpenSM's LIDs: the intact node ids
  r->lfts = std::move(res.loaded->routing.lfts);
  if (res.fallback) r->message = "intact routing by " + res.engine_used + " (OpenSM fell back)";
  return r;
}

}  // namespace

std::shared_ptr<const IntactRouting> compute_intact_routing(const Config& cfg, const Fabric& intact,
                                                            const std::string& fabric, const std::string& engine) {
  static const std::string prefix = "opensm:";
  std::shared_ptr<IntactRouting> r;
  try {
    r = engine.rfind(prefix, 0) == 0 ? under_opensm(cfg, intact, fabric, engine.substr(prefix.size()))
                                     : in_process(cfg, intact, fabric, engine);
  } catch (const OptionError&) {
    throw;  // configuration mistakes stop the campaign
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    r = std::make_shared<IntactRouting>();
    r->status = "error";
    r->message = std::string("intact routing: ") + e.what();
  }
  if (r->status == "ok") index_intact_routing(*r);
  return r;
}

std::shared_ptr<const IntactRouting> IntactRoutings::get(const Config& cfg, const Fabric& intact,
                                                         const std::string& fabric, const std::string& engine) {
  std::promise<std::shared_ptr<const IntactRouting>> mine;
  std::shared_future<std::shared_ptr<const IntactRouting>> fut;
  bool compute = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto [it, fresh] = cache_.try_emplace({fabric, engine});
    if (fresh) {
      it->second = mine.get_future().share();
      compute = true;
    }
    fut = it->second;
  }
  if (compute) {  // outside the lock: an OpenSM run takes seconds, other keys go on meanwhile
    try {
      mine.set_value(compute_intact_routing(cfg, intact, fabric, engine));
    } catch (...) {
      mine.set_exception(std::current_exception());  // every run waiting for it sees it too
    }
  }
  return fut.get();
}

int IntactRoutings::computed() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(cache_.size());
}

LostRoutes count_lost_routes(const IntactRouting& base, const Fabric& faulty, bool host_links) {
  const Fabric& f = base.fabric;
  const size_t nn = static_cast<size_t>(f.size());
  std::vector<int> to(nn, -1);  // base node -> its node in the faulty fabric (-1: failed)
  std::vector<size_t> off(nn + 1, 0);  // port (n, p) of the base is dead_port[off[n] + p]
  for (size_t n = 0; n < nn; ++n) {
    const Node& x = f.node(static_cast<int>(n));
    if (auto m = faulty.find(x.id)) to[n] = *m;
    off[n + 1] = off[n] + static_cast<size_t>(x.num_ports) + 1;
  }
  LostRoutes out;
  std::vector<char> dead_port(off[nn], 0);
  for (size_t n = 0; n < nn; ++n) {
    const Node& x = f.node(static_cast<int>(n));
    if (to[n] < 0 && x.is_switch()) ++out.failed_switches;
    for (int p = 1; p <= x.num_ports; ++p) {
      const Port& e = x.port(p);
      if (!e.connected()) continue;
      const size_t m = static_cast<size_t>(e.peer_node);
      bool dead = to[n] < 0 || to[m] < 0;
      if (!dead) {  // both ends survived: is the cable still there?
        const Node& z = faulty.node(to[n]);
        dead = p > z.num_ports || !z.port(p).connected() || z.port(p).peer_node != to[m] || z.port(p).peer_port != e.peer_port;
        const bool once = m > n || (m == n && e.peer_port > p);
        const bool candidate = host_links || (x.is_switch() && f.node(static_cast<int>(m)).is_switch());
        if (dead && once && candidate) ++out.failed_links;
      }
      dead_port[off[n] + static_cast<size_t>(p)] = dead;
    }
  }
  // per source group: its CA ports whose own cable failed (their routes are lost at the first hop)
  std::vector<uint64_t> dead_sources(base.groups.size(), 0);
  for (size_t gi = 0; gi < base.groups.size(); ++gi)
    for (const auto& s : base.groups[gi].ports)
      dead_sources[gi] += dead_port[off[static_cast<size_t>(s.node)] + static_cast<size_t>(s.port)] != 0;
  bool cut = false;  // the path visits a failed switch or crosses a failed cable
  walk_routes(
      base, [&] { cut = false; },
      [&](int s, const RouteHop& h) {
        if (to[static_cast<size_t>(s)] < 0) cut = true;
        if (h.kind != RouteHop::Dropped && h.port > 0 && dead_port[off[static_cast<size_t>(s)] + h.port]) cut = true;
      },
      [&](size_t gi, uint64_t w) { out.lost += cut ? w : dead_sources[gi]; });
  if (out.failed_links > 0) {
    const int e = host_links ? base.switch_links + base.host_links : base.switch_links;
    const double pi = static_cast<double>(host_links ? base.pi_switch_links + base.pi_host_links : base.pi_switch_links);
    if (e > 0) out.eq6 += out.failed_links * pi / e;
  }
  if (out.failed_switches > 0 && base.switches > 0)
    out.eq6 += out.failed_switches * static_cast<double>(base.pi_switches) / base.switches;
  return out;
}

namespace {

std::string count_text(double v) {  // 12 or 12.5 (a median or quartile between two seeds)
  char b[32];
  std::snprintf(b, sizeof b, v == std::floor(v) ? "%.0f" : "%.1f", v);
  return b;
}

std::string faults_text(const std::string& sw, const std::string& ln) {
  if (int year = 0; parse_year_level(ln, &year)) return "year " + std::to_string(year);
  std::string t = ln + " links";
  if (sw != "0") t = sw + " switches" + (ln != "0" ? ", " + t : "");
  return t;
}

}  // namespace

std::string lost_routes_table(const std::vector<RunResult>& rows, const std::vector<std::string>& engines) {
  std::vector<std::string> order = engines;
  for (const auto& r : rows)
    if (std::find(order.begin(), order.end(), r.key.engine) == order.end()) order.push_back(r.key.engine);
  auto rank = [&](const std::string& e) { return static_cast<long>(std::find(order.begin(), order.end(), e) - order.begin()); };
  struct S {
    int runs = 0;
    std::vector<double> lost;
    double eq6 = 0;
  };
  std::map<std::tuple<std::string, double, std::string, double, std::string, long, std::string>, S> m;
  for (const auto& r : rows) {
    S& s = m[std::make_tuple(r.key.fabric, failures_x(r.key.switch_failures), r.key.switch_failures,
                             failures_x(r.key.link_failures), r.key.link_failures, rank(r.key.engine), r.key.engine)];
    ++s.runs;
    if (r.lost_routes < 0 || std::isnan(r.lost_eq6)) continue;
    s.lost.push_back(static_cast<double>(r.lost_routes));
    s.eq6 += r.lost_eq6;
  }
  std::ostringstream o;
  o << "| fabric | faults | engine | runs | lost routes: median [quartiles] (min-max) | mean | Eq. 6 | median / Eq. 6 | "
       "mean / Eq. 6 |\n"
       "|---|---|---|---|---|---|---|---|---|\n";
  bool partial = false;
  for (auto& [k, s] : m) {
    std::sort(s.lost.begin(), s.lost.end());
    const size_t n = s.lost.size();
    std::string runs = std::to_string(s.runs);
    if (static_cast<int>(n) != s.runs) {
      runs = std::to_string(n) + " of " + runs + " *";
      partial = true;
    }
    std::string lost = "-", mean = "-", eq6 = "-", ratio = "-", mean_ratio = "-";
    if (n > 0) {
      const double med = quantile(s.lost, 0.5), mean6 = s.eq6 / static_cast<double>(n);
      double sum = 0;
      for (double v : s.lost) sum += v;
      const double avg = sum / static_cast<double>(n);
      lost = count_text(med) + " [" + count_text(quantile(s.lost, 0.25)) + "-" + count_text(quantile(s.lost, 0.75)) +
             "] (" + count_text(s.lost.front()) + "-" + count_text(s.lost.back()) + ")";
      auto f = [](const char* format, double v) {
        char b[32];
        std::snprintf(b, sizeof b, format, v);
        return std::string(b);
      };
      mean = f("%.1f", avg);
      eq6 = f("%.1f", mean6);
      if (mean6 > 0) {
        ratio = f("%.2f", med / mean6);
        mean_ratio = f("%.2f", avg / mean6);
      }
    }
    o << "| " << std::get<0>(k) << " | " << faults_text(std::get<2>(k), std::get<4>(k)) << " | " << std::get<6>(k)
      << " | " << runs << " | " << lost << " | " << mean << " | " << eq6 << " | " << ratio << " | " << mean_ratio << " |\n";
  }
  o << "\n"
       "* lost routes: routes (CA source port -> LID of another CA port) of the engine's routing of the intact fabric "
       "that cross a failed cable or visit a failed switch of the run's faults, i.e. the connections lost until the "
       "subnet manager re-routes (seed 003 section III-C-1); routes from and to the CAs of a failed switch count. "
       "Median, quartiles [25 %-75 %, linear interpolation], range and mean over the seeds.\n"
       "* Eq. 6: n/|E| x sum of pi_e over the intact routing (mean over the seeds): pi_e = routes crossing cable e, "
       "E = the cables link faults are drawn from (switch-to-switch; all with --host-links), n = failed cables; "
       "for failed switches the same with E = the switches, pi_s = routes visiting switch s; both terms added when "
       "a run has both. Eq. 6 estimates the expected (mean) loss; how far single fault sets spread around it depends "
       "on how evenly the routing loads the links.\n";
  if (partial)
    o << "* *: runs without the figures (results.csv from before ftroute recorded them, or no routing of the intact "
         "fabric: the engine refused it, OpenSM failed) are left out.\n";
  return o.str();
}

}  // namespace ftroute::campaign
