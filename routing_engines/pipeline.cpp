// The routing pipeline (ftroute/pipeline.hpp): engine -> options checked once -> route -> verdict.
#include "ftroute/pipeline.hpp"

#include <chrono>
#include <cstring>
#include <ctime>

#include "ftroute/parallel.hpp"

namespace ftroute {

namespace {

double cpu_ms(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// LIDs of end ports routed on at least one switch, and the entries for them that are not
// kNoPath: switch by switch (each table read in order), in parallel over switches.
void count_routed(const Fabric& f, const Lfts& lfts, int threads, int& lids, long& entries) {
  std::vector<Lid> owned;
  for (const EndPort& e : f.end_ports())
    for (uint32_t lid = e.base_lid; lid <= e.last_lid(); lid++) owned.push_back(static_cast<Lid>(lid));
  const std::vector<int>& sws = f.switches();
  const long n = static_cast<long>(sws.size());
  const int workers = resolve_threads(threads, n / 16 + 1);
  std::vector<std::vector<uint8_t>> any(static_cast<size_t>(workers));
  std::vector<long> count(static_cast<size_t>(workers), 0);
  for (auto& a : any) a.assign(static_cast<size_t>(f.max_lid()) + 1, 0);
  parallel_for(workers, n, 8, [&](int w, long i) {
    const int s = sws[static_cast<size_t>(i)];
    if (s >= lfts.num_nodes()) return;
    const std::vector<uint8_t>& tab = lfts.table(s);
    uint8_t* mine = any[static_cast<size_t>(w)].data();
    long c = 0;
    for (Lid lid : owned)
      if (lid < tab.size() && tab[lid] != kNoPath) {
        mine[lid] = 1;
        c++;
      }
    count[static_cast<size_t>(w)] += c;
  });
  entries = 0;
  for (long c : count) entries += c;
  lids = 0;
  for (Lid lid : owned) {
    uint8_t x = 0;
    for (const auto& a : any) x |= a[lid];
    lids += x;
  }
}

// A digest of what the result walk reads from a fabric: nodes (type, ports, GUID), LIDs and
// links (peer node and port of every port).
uint64_t fabric_digest(const Fabric& f) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = static_cast<uint64_t>(f.size());
  auto mix = [&](uint64_t x) { h = (h ^ x) * kMul, h ^= h >> 29; };
  for (int i = 0; i < f.size(); i++) {
    const Node& n = f.node(i);
    mix(static_cast<uint64_t>(n.type) << 32 | static_cast<uint32_t>(n.num_ports));
    mix(n.guid);
    for (int p = 0; p <= n.num_ports; p++) {
      const Port& pt = n.port(p);
      mix(static_cast<uint64_t>(pt.base_lid) << 40 | static_cast<uint64_t>(pt.lmc) << 32 |
          static_cast<uint32_t>(pt.connected() ? pt.peer_node * 256 + pt.peer_port : -1));
    }
  }
  return h;
}

// `now` is `before` with links removed only: same nodes (type, ports, GUID), same LIDs, and every
// link of `now` connects the same ports in `before`.
bool only_links_removed(const Fabric& before, const Fabric& now) {
  if (before.size() != now.size()) return false;
  for (int i = 0; i < now.size(); i++) {
    const Node& a = now.node(i);
    const Node& b = before.node(i);
    if (a.type != b.type || a.num_ports != b.num_ports || a.guid != b.guid) return false;
    for (int p = 0; p <= a.num_ports; p++) {
      const Port& x = a.port(p);
      const Port& y = b.port(p);
      if (x.base_lid != y.base_lid || x.lmc != y.lmc) return false;
      if (p > 0 && x.connected() && (!y.connected() || x.peer_node != y.peer_node || x.peer_port != y.peer_port))
        return false;
    }
  }
  return true;
}

// LIDs with an entry that differs between the two tables on some switch (changed[lid] = 1).
// false when the tables are not comparable (other nodes or table sizes).
bool changed_lids(const Fabric& f, const Lfts& before, const Lfts& now, std::vector<uint8_t>& changed) {
  if (before.num_nodes() != now.num_nodes()) return false;
  changed.assign(static_cast<size_t>(f.max_lid()) + 1, 0);
  for (int s : f.switches()) {
    if (s >= now.num_nodes()) return false;
    const std::vector<uint8_t>& a = before.table(s);
    const std::vector<uint8_t>& b = now.table(s);
    if (a.size() != b.size() || b.size() > changed.size()) return false;
    if (std::memcmp(a.data(), b.data(), a.size()) == 0) continue;
    for (size_t l = 0; l < b.size(); l++) changed[l] |= a[l] != b[l];
  }
  return true;
}

}  // namespace

std::string options_text(const EngineOptions& options) {
  std::string t;
  for (const auto& [k, v] : options.all()) t += (t.empty() ? "" : ",") + k + "=" + v;
  return t;
}

RoutingPipeline::RoutingPipeline(const std::string& name, const EngineOptions& options, PipelineOptions popts)
    : RoutingPipeline(make_engine(name), options, std::move(popts)) {}

RoutingPipeline::RoutingPipeline(std::unique_ptr<Engine> engine, const EngineOptions& options, PipelineOptions popts)
    : name_(engine->name()), engine_(std::move(engine)), checked_(engine_->check_options(options)), popts_(std::move(popts)) {}

Verdict verdict_for(const Fabric& fabric, const Routing& routing, const PipelineOptions& popts) {
  if (popts.reuse_self_check && popts.verify.all_switches && popts.verify.all_lmc_lids)
    if (std::optional<Verdict> v = reuse_self_check(fabric, routing, popts.verify.threads)) {
      // the walk is the engine's; every entry is still decoded (the walk meets only the entries of
      // end-port and switch LIDs, the scan all of them)
      if (popts.verify.scan_entries) {
        Verdict e = scan_entries(fabric, routing.lfts, popts.verify);
        v->bad_entries = e.bad_entries;
        v->missing_tables = e.missing_tables;
        v->examples = std::move(e.examples);
      }
      return *v;
    }
  return verify_routing(fabric, routing, popts.verify);
}

RoutedStep RoutingPipeline::run(const Fabric& fabric, const PreviousRouting& previous) {
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_ms(CLOCK_PROCESS_CPUTIME_ID), t0c = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
  RoutedStep step;
  step.routing = engine_->route(fabric, checked_, previous);
  step.engine_ms = ms_since(t0);
  step.engine_cpu_ms = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
  step.engine_thread_cpu_ms = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - t0c;
  if (popts_.require_ok && step.routing.deadlock_recovery)
    throw EngineError(name_, "routed without deadlock avoidance (deadlock=recovery): only a network that recovers "
                             "from deadlocks can run these tables (ftroute sim --nac); InfiniBand switches cannot");
  const auto t1 = std::chrono::steady_clock::now();
  if (popts_.validate) {
    step.report = validate(fabric, step.routing, *popts_.validate);
    step.verdict = verdict_of(*step.report);
  } else {
    PipelineOptions p = popts_;
    p.verify.stop_at_first = p.verify.stop_at_first || p.require_ok;  // refused at the first problem
    const bool full_walk = p.verify.all_switches && p.verify.all_lmc_lids && p.verify.scan_entries;
    std::vector<uint8_t> changed;
    long walked = -1;  // LIDs walked by the incremental verdict (-1: full walk)
    if (popts_.incremental && full_walk && approved_ && previous.fabric && previous.routing && !step.routing.self_check &&
        only_links_removed(*previous.fabric, fabric) && changed_lids(fabric, previous.routing->lfts, step.routing.lfts, changed) &&
        fabric_digest(*previous.fabric) == approved_->fabric &&
        lfts_digest(*previous.fabric, previous.routing->lfts, p.verify.threads) == approved_->lfts) {
      p.verify.walk_lids = &changed;
      walked = 0;
      for (uint8_t c : changed) walked += c;
    }
    step.verdict = verdict_for(fabric, step.routing, p);
    if (walked >= 0 && step.verdict.source == "result walk")
      step.verdict.source = "result walk of the " + std::to_string(walked) + " LIDs changed since the approved previous routing";
    approved_.reset();
    if (popts_.incremental && full_walk && step.verdict.ok())
      approved_ = Approved{lfts_digest(fabric, step.routing.lfts, p.verify.threads), fabric_digest(fabric)};
  }
  step.check_ms = ms_since(t1);
  if (popts_.require_ok && !step.verdict.ok()) throw EngineError(name_, step.verdict.first_problem());
  step.switches = static_cast<int>(fabric.switches().size());
  count_routed(fabric, step.routing.lfts, popts_.verify.threads, step.lids, step.entries);
  step.millis = ms_since(t0);
  return step;
}

}  // namespace ftroute
