// The flitsim engine's core loop and the Simulator interface. This one translation unit includes
// the parts of Simulator::Impl (sim_impl.hpp lists them), so the per-flit paths inline into the
// loop. See docs/flitsim.md for the model; comments here explain mechanics.
#include "allocators.hpp"
#include "endpoint.hpp"
#include "faults.hpp"
#include "ftdrb_source.hpp"
#include "nac.hpp"
#include "router.hpp"
#include "sim_impl.hpp"

namespace ftroute::flitsim {

inline void Simulator::Impl::process_events() {
  Bucket& bucket = wheel[static_cast<uint64_t>(now) & wmask];
  for (uint32_t i = 0; i < bucket.n; i++) {
    Ev e = bucket.v[i];  // (a handler may append to this bucket and grow it)
    switch (e.kind) {
      case kEvFlit: on_flit(e); break;
      case kEvCredit: on_credit(e); break;
      case kEvFlitCredit:
        on_flit(e);
        credit_arrives(e.c2, e.vc2, 1);
        break;
      case kEvRoute: route_front(static_cast<int>(e.a), e.vc); break;
      case kEvNacId: on_nac_id(e.a); break;
      case kEvNacRec: on_nac_rec(e.a); break;
      case kEvNacTimeout: on_nac_timeout(e.a); break;
    }
  }
  bucket.n = 0;
}

Result Simulator::Impl::run(const TrafficSpec& t) {
  tr = t;
  setup_traffic();
  if (t.warmup < 0 || t.measure < 1) throw OptionError("warmup must be >= 0 and measure >= 1");
  win_lo = t.warmup, win_hi = t.warmup + t.measure;
  // Source process. Each source's Bernoulli process is a sequence of generation cycles with
  // geometric gaps, drawn from the source's own RNG stream (as are its destinations), so it does
  // not depend on when the packets are materialised. Eager sources create every packet at its
  // generation cycle; lazy sources (default) create a packet only when the source queue is
  // empty, stamped with its true generation cycle - the packets, their order and their
  // latencies (which include source queueing) are the same, but a source past saturation holds
  // one packet instead of thousands (BookSim2's TrafficManager injects the same way). Packets
  // still owed at the end are counted in generated/in_source/offered by settle_sources().
  eager = t.eager_sources;
  src_rng.clear();
  for (size_t i = 0; i < eps.size(); i++) src_rng.emplace_back(cfg.seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL * (i + 1));
  owe_limit = win_hi;
  std::vector<int> sources = t.active_sources;
  if (sources.empty())
    for (size_t i = 0; i < eps.size(); i++) sources.push_back(static_cast<int>(i));
  for (int s : sources) {
    if (s < 0 || s >= static_cast<int>(eps.size())) throw OptionError("active source out of range");
    if (t.pattern == "trace") break;
    if (eps[s].gen_due >= 0) continue;  // listed twice
    int64_t g = next_gap(src_rng[s]);
    set_due(s, g > 0 ? g - 1 : -1);
    if (g > 0) gen_q.push({g - 1, s});
  }
  std::sort(link_evs.begin(), link_evs.end(), [](auto& a, auto& b) { return a.cycle < b.cycle; });
  std::stable_sort(routing_evs.begin(), routing_evs.end(), [](auto& a, auto& b) { return a.cycle < b.cycle; });
  generating = true;
  int64_t drain_end = win_hi + t.max_drain;
  int64_t hard_end = drain_end + (t.flush ? t.max_flush : 0);
  bool trace_mode = t.pattern == "trace";
  if (trace_mode) win_lo = 0, win_hi = trace.empty() ? 1 : trace.back().cycle + 1;
  bool flushing = false;
  last_progress = 0;
  for (now = 0;; now++) {
    // phase control
    if (!trace_mode && now >= win_hi && !flushing) {
      if ((measured_outstanding == 0 && owing == 0) || now >= drain_end) {
        if (measured_outstanding || owing) res.drained = false;
        if (!t.flush) break;
        flushing = true;
        generating = false;
        gen_limit = now;  // packets generated before this cycle are still delivered
        owe_limit = now;
        owing = 0;
        for (auto& e : eps) owing += e.gen_due >= 0 && e.gen_due < owe_limit;
      }
    }
    if (trace_mode && trace_i >= trace.size() && network_empty()) break;
    if (flushing && network_empty()) break;
    if (now >= hard_end && !trace_mode) break;
    if (trace_mode && now >= win_hi + t.max_drain) break;
    while (link_i < link_evs.size() && link_evs[link_i].cycle <= now) {
      auto& l = link_evs[link_i++];
      set_link(l.node, l.port, l.up);
    }
    while (routing_i < routing_evs.size() && routing_evs[routing_i].cycle <= now) {
      R = routing_evs[routing_i++].r;
      build_vl_cache();
      if (ftdrb) ftdrb->routing_changed();
      reroute_all();
    }
    ftdrb_deliver_due();
    process_events();
    if (trace_mode) {
      while (trace_i < trace.size() && trace[trace_i].cycle <= now) {
        auto& x = trace[trace_i++];
        generate(x.src, x.dst, x.flits, now);
      }
    } else {
      gen_upto = now;
      while (!gen_q.empty() && gen_q.top().first <= now) {
        auto [tt, s] = gen_q.top();
        gen_q.pop();
        EpState& E = eps[s];
        if (tt != E.gen_due || tt >= gen_limit) continue;  // stale, or after the flush started
        if (eager) {
          gen_next(s, true);
          if (E.gen_due >= 0) gen_q.push({E.gen_due, s});
        } else if (E.queue.empty()) {
          refill(s);  // (a non-empty queue refills itself when it empties)
          if (!E.queue.empty()) mark_ep(s);
        }
      }
    }
    if (cfg.nac && now % cfg.nac_period == 0) nac_trigger_scan();
    for (size_t i = 0; i < dirty_ep.size(); i++) allocate_ep(dirty_ep[i]);
    dirty_ep.clear();
    for (int s : retry_sw) mark_sw(s);
    retry_sw.clear();
    for (size_t i = 0; i < dirty_sw.size(); i++) allocate_switch(dirty_sw[i]);
    dirty_sw.clear();
    if (bsm) step_conns_bs();
    else step_conns();
    if (res.in_network > 0 && now - last_progress > cfg.deadlock_timeout) {
      build_deadlock_report();
      break;
    }
    if (res.in_network == 0 && res.in_source > 0 && now - last_progress > cfg.deadlock_timeout) {
      bool any = false;
      for (auto& e : eps) any = any || (!e.queue.empty() && e.out_ch >= 0 && ch[e.out_ch].alive);
      if (!any) {
        build_deadlock_report();
        res.deadlock.text = "stalled at cycle " + std::to_string(now) +
                            ": packets wait in source queues behind failed links (hold policy)";
        break;
      }
    }
  }
  res.cycles = now;
  res.endpoints = static_cast<int>(eps.size());
  if (!trace_mode) settle_sources();
  if (ftdrb) {
    res.ftdrb_notifications = ftdrb->notifications, res.ftdrb_probes = ftdrb->probes;
    res.ftdrb_probes_delivered = ftdrb->probes_delivered, res.ftdrb_permanent = ftdrb->permanent;
    res.ftdrb_grows = ftdrb->grows, res.ftdrb_shrinks = ftdrb->shrinks;
    res.ftdrb_late_drops = ftdrb->late_drops;
  }
  res.flushed = network_empty();
  int64_t win = trace_mode ? std::max<int64_t>(1, now) : t.measure;
  double denom = static_cast<double>(std::max<size_t>(1, eps.size())) * static_cast<double>(win);
  res.offered = static_cast<double>(window_flits_generated) / denom;
  res.accepted = static_cast<double>(window_flits_ejected) / denom;
  if (!lat.empty()) {
    double s = 0, sn = 0;
    for (double x : lat) s += x;
    for (double x : nlat) sn += x;
    res.avg_latency = s / lat.size();
    res.avg_network_latency = sn / nlat.size();
    res.avg_hops = hops_sum / lat.size();
    std::vector<double> v = lat;
    size_t k = static_cast<size_t>(std::ceil(0.99 * v.size())) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
    res.p99_latency = v[k];
    res.max_latency = *std::max_element(lat.begin(), lat.end());
  }
  if (res.measured_delivered + res.measured_dropped < res.measured_packets) res.drained = false;
  FLITSIM_CHECK(res.generated == res.delivered + res.dropped + res.in_network + res.in_source,
                "packet conservation");
  return res;
}

Simulator::Simulator(const Fabric& fabric, const Routing& routing, const Config& cfg)
    : impl_(std::make_unique<Impl>(fabric, routing, cfg, this)) {}
Simulator::~Simulator() = default;
const std::vector<Endpoint>& Simulator::endpoints() const { return impl_->eps_pub; }
void Simulator::schedule_link(int64_t cycle, int node, int port, bool up) {
  if (node < 0 || node >= impl_->f.size()) throw FabricError("flitsim: link event on unknown node");
  const Node& n = impl_->f.node(node);
  if (port < 1 || port > n.num_ports || !n.port(port).connected())
    throw FabricError("flitsim: link event on " + impl_->f.port_name(node, port) + ", which is not linked");
  impl_->link_evs.push_back({cycle, node, port, up});
}
void Simulator::schedule_routing(int64_t cycle, const Routing* routing) {
  if (!routing) throw OptionError("flitsim: null routing");
  impl_->routing_evs.push_back({cycle, routing});
}

int64_t Simulator::cycle() const { return impl_->now; }
Result Simulator::run(const TrafficSpec& traffic) { return impl_->run(traffic); }

}  // namespace ftroute::flitsim
