// The routing pipeline (ftroute/pipeline.hpp): engine -> options checked once -> route -> verdict.
#include "ftroute/pipeline.hpp"

#include <chrono>
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
  const auto t1 = std::chrono::steady_clock::now();
  if (popts_.validate) {
    step.report = validate(fabric, step.routing, *popts_.validate);
    step.verdict = verdict_of(*step.report);
  } else {
    PipelineOptions p = popts_;
    p.verify.stop_at_first = p.verify.stop_at_first || p.require_ok;  // refused at the first problem
    step.verdict = verdict_for(fabric, step.routing, p);
  }
  step.check_ms = ms_since(t1);
  if (popts_.require_ok && !step.verdict.ok()) throw EngineError(name_, step.verdict.first_problem());
  step.switches = static_cast<int>(fabric.switches().size());
  count_routed(fabric, step.routing.lfts, popts_.verify.threads, step.lids, step.entries);
  step.millis = ms_since(t0);
  return step;
}

}  // namespace ftroute
