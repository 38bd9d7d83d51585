// `ftroute sim`'s run apart from its options and output (ftroute/sim_run.hpp).
#include "ftroute/sim_run.hpp"

#include <cstdio>
#include <sstream>

#include "ftroute/flitsim_testnets.hpp"
#include "ftroute/registry.hpp"

namespace ftroute::flitsim {

PipelineOptions sim_check(bool all_lmc_lids) {
  PipelineOptions po;
  po.require_ok = false;  // reported; --strict refuses
  po.reuse_self_check = false;
  po.verify.all_switches = false;
  po.verify.scan_entries = false;
  po.verify.all_lmc_lids = all_lmc_lids;
  return po;
}

SimEngine::SimEngine(const std::string& name, const EngineOptions& options, bool all_lmc_lids) {
  if (name.empty() || name == "flitsim-minhop") return;
  try {
    pipeline_.emplace(name, options, sim_check(all_lmc_lids));
  } catch (const OptionError& x) {
    if (find_engine(name)) throw;
    throw OptionError(std::string(x.what()) + "; also: flitsim-minhop (simulator's min-hop helper)");
  }
}

Routing SimEngine::route(const Fabric& f, std::optional<Verdict>* verdict) {
  if (!pipeline_) return route_minhop(f);
  RoutedStep step = pipeline_->run(f);
  if (verdict) *verdict = std::move(step.verdict);
  return std::move(step.routing);
}

Verdict SimInput::check(bool all_lmc_lids) const {
  return verdict ? *verdict : verdict_for(fabric, routing, sim_check(all_lmc_lids));
}

SimInput route_sim_fabric(Fabric f, int lmc, SimEngine& engine) {
  if (lmc >= 0) f.assign_lids(static_cast<uint8_t>(lmc));
  else if (f.max_lid() == 0) f.assign_lids(0);
  f.validate();
  SimInput in;
  in.routing = engine.route(f, &in.verdict);
  in.fabric = std::move(f);
  return in;
}

SimInput booksim_input(const BookSimConfig& b, bool random_choices) {
  SimInput in;
  in.fabric = booksim_fabric(b, random_choices);
  in.routing = booksim_routing(in.fabric, b, random_choices);
  return in;
}

std::vector<int> parse_int_list(const std::string& s, char sep, const std::string& what) {
  std::vector<int> r;
  std::stringstream in(s);
  std::string tok;
  while (std::getline(in, tok, sep)) {
    try {
      size_t used = 0;
      r.push_back(std::stoi(tok, &used));
      if (used != tok.size()) throw 1;
    } catch (...) {
      throw SimOptionError(what + ": bad number '" + tok + "' in '" + s + "'");
    }
  }
  return r;
}

std::vector<std::string> apply_booksim_file(const std::string& path, bool random_choices, BookSimConfig& b, Config& c,
                                            TrafficSpec& t) {
  try {
    b = read_booksim_config(path);
  } catch (const ParseError& e) {
    throw SimOptionError(e.what());
  }
  try {
    apply_booksim_config(b, c, t, random_choices);
  } catch (const OptionError& e) {
    throw SimOptionError(path + ": " + e.what());
  }
  std::vector<std::string> notes;
  for (const auto& k : b.ignored)
    notes.push_back(path + ":" + std::to_string(b.line_of.at(k)) + ": " + k +
                    " only steers BookSim2's run control or output; ignored");
  if (b.topology == "fattree" && !random_choices)
    notes.push_back(path + ": fattree nca picks the up port at random per packet in BookSim2; "
                           "flitsim routes up by destination (D-mod-k, --booksim-routing lft)");
  return notes;
}

void booksim_lid_policy(const BookSimConfig& b, bool random_choices, bool lid_policy_given, Config& c) {
  if (!random_choices || booksim_lmc(b) == 0) return;  // a LID (= a combination of choices) at random per packet
  if (lid_policy_given && c.lid_policy != LidPolicy::Random)
    throw SimOptionError("--booksim-routing random needs --lid-policy random (the default with it)");
  c.lid_policy = LidPolicy::Random;
}

void check_sim_threads(const Config& c) {
  if (resolve_threads(c.threads, 1 << 30) <= 1) return;
  const char* what = c.nac                                  ? "NAC"
                     : c.lid_policy == LidPolicy::FtDrb     ? "FT-DRB sources (--lid-policy ftdrb)"
                                                            : nullptr;
  if (what) throw SimOptionError(std::string("--threads > 1 does not support ") + what + "; use --threads 1");
}

void check_sim_load(double load) {
  if (load >= 0 && load <= 1) return;
  char v[32];
  std::snprintf(v, sizeof v, "%g", load);
  throw SimOptionError(std::string("--load ") + v + " out of range: offered flits/endpoint/cycle must be 0..1");
}

static std::string file_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

std::string sim_title(const std::string& fabric, const std::string& engine, const std::string& lfts,
                      const std::string& pattern, bool nac) {
  return file_name(fabric) + ", " + (engine.empty() ? "LFTs " + file_name(lfts) : "engine " + engine) + ", " + pattern +
         (nac ? ", NAC" : "");
}

std::string booksim_title(const std::string& config, const std::string& pattern) {
  return file_name(config) + " (BookSim2 config), " + pattern;
}

void SimSchedule::apply(Simulator& sim) const {
  for (const auto& l : links) sim.schedule_link(l.cycle, l.node, l.port, l.up);
  for (const auto& [cyc, r] : reroutes) sim.schedule_routing(cyc, r);
  if (!waypoints.empty()) sim.set_waypoints(waypoints);
}

static LinkEvent link_event(const Fabric& f, const std::string& arg, bool up) {
  try {
    return parse_link_event(f, arg, up);
  } catch (const OptionError& e) {
    throw SimOptionError(e.what());
  }
}

SimSchedule sim_schedule(const Fabric& f, const std::vector<std::string>& fails,
                         const std::vector<std::string>& recovers, const std::vector<std::string>& reroutes,
                         const std::function<Routing(const std::string&)>& load_file, SimEngine* engine) {
  SimSchedule s;
  for (const auto& a : fails) s.links.push_back(link_event(f, a, false));
  for (const auto& a : recovers) s.links.push_back(link_event(f, a, true));
  for (const auto& a : reroutes) {
    const auto colon = a.find(':');
    int64_t cyc;
    try {
      cyc = std::stoll(a.substr(0, colon));
    } catch (...) {
      throw SimOptionError("--reroute expects CYCLE[:LFTFILE], got '" + a + "'");
    }
    if (cyc < 0) throw SimOptionError("--reroute cycle " + std::to_string(cyc) + " is negative");
    if (colon != std::string::npos) {
      if (!load_file) throw SimOptionError("--reroute CYCLE:LFTFILE needs the fabric as a file, not --gen");
      s.tables.push_back(load_file(a.substr(colon + 1)));
    } else {
      if (!engine) throw SimOptionError("--reroute CYCLE without a file needs --engine");
      s.tables.push_back(engine->route(fabric_at(f, s.links, cyc)));  // links failed by then
    }
    s.reroutes.push_back({cyc, &s.tables.back()});
  }
  return s;
}

Result run_sim_point(const Fabric& f, const Routing& r, const Config& c, const SimSchedule& s, TrafficSpec t,
                     double load) {
  t.load = load;
  Simulator sim(f, r, c);
  s.apply(sim);
  return sim.run(t);
}

std::string format_ftdrb_counters(const Result& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "FT-DRB: %llu notifications, %llu probes (%llu delivered), %llu permanent faults, "
                "metapath +%llu/-%llu, %llu late drops\n",
                static_cast<unsigned long long>(r.ftdrb_notifications), static_cast<unsigned long long>(r.ftdrb_probes),
                static_cast<unsigned long long>(r.ftdrb_probes_delivered),
                static_cast<unsigned long long>(r.ftdrb_permanent), static_cast<unsigned long long>(r.ftdrb_grows),
                static_cast<unsigned long long>(r.ftdrb_shrinks), static_cast<unsigned long long>(r.ftdrb_late_drops));
  return buf;
}

}  // namespace ftroute::flitsim
