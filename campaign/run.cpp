// One campaign run: faults, routing (in-process or OpenSM under ibsim), validation, flitsim.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <random>
#include <unordered_map>

#include "ftroute/campaign.hpp"
#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/campaign_lost.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/error.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/helpers.hpp"
#include "ftroute/engine_choice.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"
#include "ftroute/opensm_run.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/cluster_tree.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/validate.hpp"
#include "ftroute/switch_graph.hpp"

namespace fs = std::filesystem;

namespace ftroute::campaign {
namespace {

int to_int(const std::string& s, const std::string& what) {
  try {
    size_t pos = 0;
    int v = std::stoi(s, &pos);
    if (pos != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw OptionError("bad number '" + s + "' in " + what);
  }
}

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// For the CSV message column (csv_row quotes it, RFC 4180): at most 300 bytes, control characters
// other than line breaks and tabs as \xNN (OpenSM's stderr, names from the fabric).
std::string clean(const std::string& s) {
  std::string r;
  for (char c : s.size() > 300 ? s.substr(0, 300) : s)
    r += c == '\n' || c == '\t' ? std::string(1, c) : escape_name(std::string_view(&c, 1));
  return s.size() > 300 ? r + "..." : r;
}

// flitsim pattern for a campaign pattern name. "shift-exchange" is the paper's whole pattern (B.8,
// a trace, see simulate()); "shift" and "exchange" are one representative permutation each, under
// steady injection: "shift" = tornado over the endpoint index (i -> i + ceil(N/2) - 1),
// "exchange" = complement (i -> N-1-i, every pair crosses the bisection). Other names go to
// flitsim unchanged.
std::string flitsim_pattern(const std::string& p) {
  if (p == "shift") return "tornado";
  if (p == "exchange") return "complement";
  return p;
}

std::atomic<int> g_trace_counter{0};

void simulate(const Config& cfg, const Fabric& f, const Routing& r, RunResult& out) {
  flitsim::Config sc;
  sc.seed = static_cast<uint64_t>(out.key.seed);
  sc.packet_flits = cfg.sim_packet_flits;
  sc.buffer_flits = cfg.sim_buffer_flits;
  sc.link_latency = cfg.sim_link_latency;
  sc.validate();  // OptionError: stops the campaign (the CLI checks the same before any run)
  flitsim::TrafficSpec t;
  t.pattern = flitsim_pattern(cfg.pattern);
  t.load = cfg.sim_load;
  t.warmup = cfg.sim_warmup;
  t.measure = cfg.sim_measure;
  t.max_drain = 4 * cfg.sim_measure;
  t.flush = false;
  std::string trace;
  int exchange_endpoints = 0;
  if (cfg.pattern == "shift-exchange") {
    // Finite pattern: runs until every packet is delivered; accepted = delivered flits /
    // (endpoints x cycles) = Eq. 7's N(N-1)·msg/runtime per endpoint, in flits/endpoint/cycle.
    // The endpoints are the application's: SHARP aggregation nodes (a CA inside every switch of
    // an HDR fabric) get routes but run no exchange.
    std::vector<int> members;  // flitsim endpoint indices, in flitsim order
    const auto eps = flitsim::endpoints_of(f);
    for (size_t i = 0; i < eps.size(); ++i)
      if (!is_aggregation_node(f, eps[i].node)) members.push_back(static_cast<int>(i));
    const int n = static_cast<int>(members.size());
    exchange_endpoints = n;
    std::vector<int> order = members;
    if (cfg.shift_order != Config::ShiftOrder::Index) {
      const std::vector<int> perm = cfg.shift_order == Config::ShiftOrder::Random
                                        ? random_endpoint_order(n, static_cast<uint64_t>(out.key.seed))
                                        : distance_endpoint_order(f, members);
      for (int k = 0; k < n; ++k) order[static_cast<size_t>(k)] = members[static_cast<size_t>(perm[static_cast<size_t>(k)])];
    }
    trace = fs::temp_directory_path().string() + "/ftroute-shiftx-" + std::to_string(getpid()) + "-" +
            std::to_string(g_trace_counter++) + ".trace";
    std::ofstream(trace) << shift_exchange_trace(n, cfg.sim_msg_packets, order);
    t.pattern = "trace";
    t.trace_file = trace;
    t.warmup = 0;
    t.measure = 1;
    t.max_drain = int64_t{200} * n * cfg.sim_msg_packets * sc.packet_flits + 100000;  // far above the runtime
  }
  struct Remove {
    std::string path;
    ~Remove() {
      if (!path.empty()) fs::remove(path);
    }
  } remove_trace{trace};
  flitsim::Simulator sim(f, r, sc);
  flitsim::Result res = sim.run(t);
  out.simulated = true;
  out.sim_offered = res.offered;
  out.sim_accepted = res.accepted;
  out.sim_latency = res.avg_latency;
  out.sim_net_latency = res.avg_network_latency;
  if (trace.empty() && !res.accepted_per_endpoint.empty()) {  // steady injection: per-HCA consumption bandwidth
    const auto& v = res.accepted_per_endpoint;
    out.sim_hca = {quantile(v, 0), quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75), quantile(v, 1)};
  }
  out.sim_dropped = res.dropped;
  out.sim_deadlock = res.deadlock.detected;
  if (!trace.empty()) {  // flitsim's window is [0, 1) for this trace: count the whole run instead
    const double denom = static_cast<double>(std::max(1, exchange_endpoints)) * static_cast<double>(std::max<int64_t>(1, res.cycles));
    out.sim_accepted = static_cast<double>(res.delivered) * sc.packet_flits / denom;
  }
  if (!trace.empty() && !res.deadlock.detected && res.delivered + res.dropped < res.generated)
    out.message += (out.message.empty() ? "" : "; ") + std::string("shift-exchange did not finish within the cycle limit");
}

void fill_validation(const ValidationReport& v, RunResult& out) {
  out.pairs = v.pairs;
  out.unreachable = v.unreachable;
  out.looping = v.looping;
  out.bad_entries = v.bad_entries;
  out.deadlock_checked = v.deadlock_checked;
  out.cdg_acyclic = v.cdg_acyclic;
  out.vls_used = static_cast<int>(v.vls_used.size());
  out.efi_max = v.efi_max;
  out.efi_avg = v.efi_avg;
  out.hops_avg = v.hops_avg;
  out.hops_max = v.hops_max;
}

// A lifetime campaign simulates only the runs that count (lifetime_valid: routed, CDG checked
// acyclic, no fallback): the others' throughput would be that of routes that may deadlock or of
// an engine nobody asked for, and on production-sized fabrics every simulation costs seconds.
bool wants_simulation(const Config& cfg, const RunResult& out) {
  if (cfg.pattern.empty()) return false;
  return cfg.lifetime.years <= 0 || lifetime_valid(out);
}

// ---------------- OpenSM through ibsim (ftroute/opensm_run.hpp) ----------------

void run_opensm(const Config& cfg, const Fabric& faulty, const std::string& engine, RunResult& out) {
  OpensmRunOptions o = campaign_opensm_options(cfg, out.key.fabric);
  o.comment = "campaign run " + out.key.id();
  OpensmResult r = run_opensm_engine(faulty, engine, o);
  out.engine_used = r.engine_used;
  out.fallback = r.fallback;
  out.route_seconds = r.route_seconds;
  out.message = r.message;
  if (r.status != "ok") {
    out.status = r.status;
    return;
  }
  fill_validation(r.report, out);
  if (wants_simulation(cfg, out)) simulate(cfg, r.loaded->fabric, r.loaded->routing, out);
}

}  // namespace

std::unordered_map<uint32_t, uint8_t> parse_pathsl_output(const std::string& text, size_t* missing) {
  std::unordered_map<uint32_t, uint8_t> sls;
  std::istringstream in(text);
  std::string line;
  *missing = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '-') {
      ++*missing;
      continue;
    }
    unsigned slid = 0, dlid = 0, sl = 0;
    if (std::sscanf(line.c_str(), "%u %u %u", &slid, &dlid, &sl) != 3 || sl > 15)
      throw Error("ftroute-pathsl: unexpected output line '" + line + "'");
    sls[(slid << 16) | dlid] = static_cast<uint8_t>(sl);
  }
  return sls;
}

std::string torus2qos_conf(const Fabric& f, const std::string& gen_spec) {
  if (gen_spec.empty()) return "";
  topo::SpecArgs sa = topo::parse_fabric_spec(gen_spec);  // the spec build_fabric() used
  const std::string kind = sa.kind;
  if (kind != "mesh" && kind != "torus") return "";
  if (!sa.get("dims")) return "";
  const std::vector<int> dims = topo::parse_dims(*sa.get("dims"));
  const int hosts = sa.integer("hosts", 1, 0, kMaxPorts);
  const int L = sa.integer("links", 1, 1, kMaxPorts);  // parallel cables per neighbour pair
  const bool torus = kind == "torus";
  const int nd = static_cast<int>(dims.size());
  if (nd < 1 || nd > 3) return "";
  int nsw = 1;
  for (int d : dims) nsw *= d;
  const char axis[] = {'x', 'y', 'z'};
  // Seed: the first switch (topo::grid order, first dimension fastest) that survived the faults
  // with all its seed links up: +d (ports hosts+1+2dL .. hosts+L+2dL, any live cable of the
  // bundle; L = links) in every dimension, and -d (ports hosts+L+1+2dL ..) too on a torus
  // (torus-2QoS needs both directions for radix-4 rings). On a mesh the switch must not sit at
  // the upper end of any dimension.
  for (int i = 0; i < nsw; ++i) {
    std::vector<int> c(static_cast<size_t>(nd));
    std::string name = "S";
    for (int d = 0, idx = i; d < nd; ++d) {
      c[static_cast<size_t>(d)] = idx % dims[static_cast<size_t>(d)];
      idx /= dims[static_cast<size_t>(d)];
      name += (d ? "_" : "") + std::to_string(c[static_cast<size_t>(d)]);
    }
    auto sw = f.find(name);
    if (!sw || !f.node(*sw).is_switch()) continue;
    const Node& n = f.node(*sw);
    auto peer1 = [&](int port) -> const Node* {
      if (port >= static_cast<int>(n.ports.size()) || !n.ports[static_cast<size_t>(port)].connected()) return nullptr;
      const Node& q = f.node(n.ports[static_cast<size_t>(port)].peer_node);
      return q.is_switch() ? &q : nullptr;
    };
    auto peer = [&](int first) -> const Node* {  // the first live cable of the bundle at first..first+L-1
      for (int j = 0; j < L; ++j)
        if (const Node* q = peer1(first + j)) return q;
      return nullptr;
    };
    std::ostringstream o;
    bool ok = true;
    for (int d = 0; d < nd && ok; ++d) {
      if (!torus && c[static_cast<size_t>(d)] + 1 >= dims[static_cast<size_t>(d)]) ok = false;
      const Node* plus = peer(hosts + 1 + 2 * d * L);
      const Node* minus = torus ? peer(hosts + 1 + 2 * d * L + L) : nullptr;
      if (!plus || (torus && !minus)) ok = false;
      if (!ok) break;
      char b[128];
      std::snprintf(b, sizeof b, "%cp_link 0x%016llx 0x%016llx\n", axis[d], static_cast<unsigned long long>(n.guid),
                    static_cast<unsigned long long>(plus->guid));
      o << b;
      if (minus) {
        std::snprintf(b, sizeof b, "%cm_link 0x%016llx 0x%016llx\n", axis[d], static_cast<unsigned long long>(n.guid),
                      static_cast<unsigned long long>(minus->guid));
        o << b;
      }
    }
    if (!ok) continue;
    std::ostringstream head;
    head << "# torus-2QoS.conf written by ftroute campaign for " << gen_spec << " (seed switch " << name << ")\n"
         << kind;
    for (int d = 0; d < 3; ++d) head << " " << (d < nd ? dims[static_cast<size_t>(d)] : 1);
    head << "\n";
    return head.str() + o.str();
  }
  return "";
}

FabricSource parse_fabric_source(const std::string& text, bool is_file) {
  FabricSource s;
  s.name = text;
  if (is_file) {
    s.net_path = text;
    // the fabric's name in every output (CSV, tables, plots): escaped as names are, and '|' as
    // \x7c too, since the name stands in Markdown table cells
    s.name.clear();
    for (char c : escape_name(fs::path(text).filename().string())) s.name += c == '|' ? std::string("\\x7c") : std::string(1, c);
  } else {
    s.gen_spec = text;
  }
  return s;
}

Fabric build_fabric(const FabricSource& src) {
  if (!src.net_path.empty()) {
    Fabric f = read_fabric_file(src.net_path);
    return f;
  }
  try {
    return topo::build_fabric_spec(src.gen_spec);  // the one spec grammar (fabric_spec.hpp)
  } catch (const topo::SpecError& e) {
    throw topo::SpecError("--gen: " + std::string(e.what()));
  }
}

int failures_count(const std::string& spec, int candidates) {
  if (spec.empty()) throw OptionError("empty failure count");
  if (spec.back() == '%') {
    double pct;
    try {
      size_t pos = 0;
      pct = std::stod(spec.substr(0, spec.size() - 1), &pos);
      if (pos != spec.size() - 1) throw std::invalid_argument(spec);
    } catch (const std::exception&) {
      throw OptionError("bad failure percentage '" + spec + "'");
    }
    if (pct < 0 || pct > 100) throw OptionError("failure percentage out of 0..100: '" + spec + "'");
    return static_cast<int>(std::lround(pct / 100.0 * candidates));
  }
  int n = to_int(spec, "failure count");
  if (n < 0) throw OptionError("negative failure count '" + spec + "'");
  return n;
}

double failures_x(const std::string& spec) {
  int year = 0;
  if (parse_year_level(spec, &year)) return year;
  try {
    return std::stod(spec.back() == '%' ? spec.substr(0, spec.size() - 1) : spec);
  } catch (const std::exception&) {
    return 0;
  }
}

std::string RunKey::id() const {
  return fabric + "|" + engine + "|" + link_failures + "|" + switch_failures + "|" + std::to_string(seed);
}

void parse_shard(const std::string& text, Config& cfg) {
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument(text);
    cfg.shard_index = std::stoi(text.substr(0, slash));
    cfg.shard_count = std::stoi(text.substr(slash + 1));
  } catch (const std::exception&) {
    throw OptionError("--shard expects I/N (0 <= I < N), got '" + text + "'");
  }
  if (cfg.shard_count < 1 || cfg.shard_index < 0 || cfg.shard_index >= cfg.shard_count)
    throw OptionError("--shard expects I/N (0 <= I < N), got '" + text + "'");
}

EngineVariant engine_variant(const std::string& entry) {
  EngineVariant v;
  const size_t open = entry.find('[');
  v.name = entry.substr(0, open);
  if (v.name.empty()) throw OptionError("engine entry '" + escape_name(entry) + "' has no engine name");
  if (open != std::string::npos) {
    if (entry.find(']') != entry.size() - 1 || entry.find('[', open + 1) != std::string::npos)  // one pair, at the end
      throw OptionError("engine entry '" + escape_name(entry) + "': options go in one pair of brackets at the end, NAME[k=v,k=v]");
    if (v.name.rfind("opensm:", 0) == 0)
      throw OptionError("engine entry '" + escape_name(entry) + "': options in brackets are for ftroute's own engines, not opensm:<engine>");
    v.options = EngineOptions::parse(entry.substr(open + 1, entry.size() - open - 2));
  }
  if (v.name.rfind("opensm:", 0) == 0) {
    // OpenSM's engine or an ftroute one run by the plugin; a typo would silently give minhop's
    // fallback rows
    if (const std::string why = unknown_opensm_engine(v.name.substr(7)); !why.empty())
      throw OptionError("engine entry '" + escape_name(v.name) + "': " + why);
    return v;
  }
  if (!find_engine(v.name)) {
    const auto& osm = opensm_engine_names();
    if (std::find(osm.begin(), osm.end(), v.name) != osm.end())
      throw OptionError("'" + v.name + "' is an OpenSM engine, not an ftroute one: run it inside OpenSM under ibsim (" +
                        "`campaign --engines opensm:" + v.name + "`, `compare --opensm " + v.name + "`)");
  }
  make_engine(v.name)->check_options(v.options);  // unknown name or option
  return v;
}

std::vector<std::string> split_engines(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : list) {
    if (c == '[') depth++;
    if (c == ']') depth--;
    if (c == ',' && depth == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<RunKey> plan(const Config& cfg) {
  if (cfg.shard_count < 1 || cfg.shard_index < 0 || cfg.shard_index >= cfg.shard_count)
    throw OptionError("bad shard " + std::to_string(cfg.shard_index) + "/" + std::to_string(cfg.shard_count));
  std::vector<RunKey> all;
  for (const auto& f : cfg.fabrics)
    for (const auto& e : cfg.engines) {
      if (cfg.lifetime.years > 0) {
        for (int y = 0; y <= cfg.lifetime.years; ++y)
          for (int s = 1; s <= cfg.seeds; ++s) all.push_back({f.name, e, year_level(y), year_level(y), s});
        continue;
      }
      for (const auto& sf : cfg.switch_failures)
        for (const auto& lf : cfg.link_failures)
          for (int s = 1; s <= cfg.seeds; ++s) all.push_back({f.name, e, lf, sf, s});
    }
  std::vector<RunKey> out;
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % static_cast<size_t>(cfg.shard_count)) == cfg.shard_index) out.push_back(all[i]);
  return out;
}

bool keeps_file_lids(const Config& cfg, const std::string& fabric, const Fabric& intact) {
  if (!cfg.file_lids || intact.max_lid() == 0) return false;
  for (const auto& src : cfg.fabrics)
    if (src.name == fabric) return !src.net_path.empty();
  return false;
}

void check_file_lids(const Config& cfg, const FabricSource& src, const Fabric& intact) {
  if (!keeps_file_lids(cfg, src.name, intact)) return;
  intact.require_file_lids(src.net_path, "--lids assign");
}

RunResult run_one(const Config& cfg, const Fabric& intact, const RunKey& key, IntactRoutings* routings) {
  RunResult out;
  out.key = key;
  try {
    Fabric f = intact;
    int year = 0;
    if (parse_year_level(key.link_failures, &year)) {
      // lifetime: the failures of years 1..year of this seed, kept in place
      if (cfg.lifetime.years <= 0) throw OptionError("failure level '" + key.link_failures + "' needs a lifetime campaign (--years)");
      LifetimeFaults lf;
      f = fabric_in_year(intact, cfg.lifetime, static_cast<uint64_t>(key.seed), year, cfg.keep_connected,
                         cfg.host_links, &lf);
      out.links_removed = lf.links;
      out.switches_removed = lf.switches;
      out.hosts_removed = lf.cas;
    } else {
      topo::FaultSpec fs_;
      fs_.seed = static_cast<uint64_t>(key.seed);
      fs_.keep_connected = cfg.keep_connected;
      fs_.host_links = cfg.host_links;
      int cand_links = cfg.host_links ? f.num_links() : static_cast<int>(f.switch_links().size());
      fs_.random_links = failures_count(key.link_failures, cand_links);
      fs_.random_switches = failures_count(key.switch_failures, static_cast<int>(f.switches().size()));
      topo::FaultReport rep = topo::inject_faults(f, fs_);
      out.links_removed = static_cast<int>(rep.links.size());
      out.switches_removed = static_cast<int>(rep.switches.size());
      out.hosts_removed = static_cast<int>(rep.hosts.size());
    }
    out.switches = static_cast<int>(f.switches().size());
    out.cas = static_cast<int>(f.cas().size());
    out.links = f.num_links();

    if (out.links_removed + out.switches_removed + out.hosts_removed == 0) {
      out.lost_routes = 0;  // nothing failed, nothing lost (and no routing of the intact fabric needed)
      out.lost_eq6 = 0;
    } else {  // connections lost before re-routing: the routes of the engine's tables of the INTACT fabric
      IntactRoutings own;
      IntactRoutings& cache = routings ? *routings : own;
      const auto base = cache.get(cfg, intact, key.fabric, key.engine);
      if (base->status == "ok") {
        const LostRoutes lost = count_lost_routes(*base, f, cfg.host_links);
        out.lost_routes = static_cast<int64_t>(lost.lost);
        out.lost_eq6 = lost.eq6;
      }
      if (!base->message.empty()) out.message = base->message;
    }
    const std::string prefix = "opensm:";
    if (key.engine.rfind(prefix, 0) == 0) {
      const std::string note = out.message;
      run_opensm(cfg, f, key.engine.substr(prefix.size()), out);
      if (!note.empty()) out.message = clean(out.message + (out.message.empty() ? "" : "; ") + note);
      return out;
    }
    if (!keeps_file_lids(cfg, key.fabric, intact)) f.assign_lids(0);  // else: the file's, kept by inject_faults
    PipelineOptions po;  // the verdict is the full validation's, whose figures the row needs
    po.require_ok = false;
    po.validate = ValidateOptions{};
    const EngineVariant variant = engine_variant(key.engine);
    RoutingPipeline pipeline(variant.name, variant.options, po);  // ftroute/pipeline.hpp
    out.engine_used = key.engine;
    RoutedStep step;
    double t0 = cpu_now();
    try {
      step = pipeline.run(f);
    } catch (const EngineError& e) {
      out.route_seconds = cpu_now() - t0;
      out.status = "refused";
      out.engine_used = "none";
      out.message = clean(e.reason());
      return out;
    }
    out.route_seconds = step.engine_thread_cpu_ms / 1e3;  // this thread's: runs go in parallel
    fill_validation(*step.report, out);
    if (wants_simulation(cfg, out)) simulate(cfg, f, step.routing, out);
  } catch (const OptionError&) {
    throw;  // configuration mistakes stop the campaign
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    out.status = "error";
    out.message = clean(e.what());
  }
  out.message = clean(out.message);
  return out;
}

std::string shift_exchange_trace(int n, int packets, const std::vector<int>& order) {
  if (!order.empty() && static_cast<int>(order.size()) != n) throw Error("shift_exchange_trace: order has the wrong size");
  auto at = [&](int k) { return order.empty() ? k : order[static_cast<size_t>(k)]; };
  std::vector<int> shifts;
  for (int k = 1; k <= n / 2; ++k) {
    shifts.push_back(k);
    if (2 * k != n) shifts.push_back(-k);
  }
  std::string out;
  out.reserve(static_cast<size_t>(n) * shifts.size() * static_cast<size_t>(packets) * 12);
  for (int s : shifts)
    for (int i = 0; i < n; ++i)
      for (int p = 0; p < packets; ++p)
        out += "0 " + std::to_string(at(i)) + " " + std::to_string(at(((i + s) % n + n) % n)) + "\n";
  return out;
}

std::vector<int> random_endpoint_order(int n, uint64_t seed) {
  std::vector<int> order(static_cast<size_t>(std::max(0, n)));
  for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 g(seed);
  for (int i = n - 1; i > 0; --i)
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(topo::uniform_index(g, static_cast<uint64_t>(i) + 1))]);
  return order;
}

std::vector<int> distance_endpoint_order(const Fabric& f, const std::vector<int>& members) {
  const auto eps = flitsim::endpoints_of(f);
  const SwitchGraph g(f);
  const int n = static_cast<int>(members.size());
  std::vector<int> sw(static_cast<size_t>(n), -1);  // switch position each member is cabled to
  for (int i = 0; i < n; ++i) {
    const flitsim::Endpoint& e = eps.at(static_cast<size_t>(members[static_cast<size_t>(i)]));
    const Port& p = f.node(e.node).port(e.port);
    if (p.connected()) sw[static_cast<size_t>(i)] = g.pos(p.peer_node);
  }
  std::vector<std::vector<int>> dist(static_cast<size_t>(g.size()));  // BFS rows, on demand
  std::vector<int> queue;
  auto d = [&](int a, int b) {  // hops between members a and b; unreachable = farthest
    const int sa = sw[static_cast<size_t>(a)], sb = sw[static_cast<size_t>(b)];
    if (sa < 0 || sb < 0) return std::numeric_limits<int>::max();
    std::vector<int>& row = dist[static_cast<size_t>(sa)];
    if (row.empty()) g.bfs(sa, row, queue);
    const int x = row[static_cast<size_t>(sb)];
    return x < 0 ? std::numeric_limits<int>::max() : x;
  };
  std::vector<int> order;
  order.reserve(static_cast<size_t>(n));
  std::vector<char> placed(static_cast<size_t>(n), 0);
  for (int cur = n > 0 ? 0 : -1; cur >= 0;) {
    order.push_back(cur);
    placed[static_cast<size_t>(cur)] = 1;
    int next = -1, best = 0;
    for (int i = 0; i < n; ++i) {
      if (placed[static_cast<size_t>(i)]) continue;
      const int x = d(cur, i);
      if (next < 0 || x < best) next = i, best = x;
    }
    cur = next;
  }
  return order;
}

const char* shift_order_name(Config::ShiftOrder o) {
  switch (o) {
    case Config::ShiftOrder::Random: return "random";
    case Config::ShiftOrder::Distance: return "distance";
    default: return "index";
  }
}

}  // namespace ftroute::campaign
