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

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <ctime>
#include <exception>
#include <thread>

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

void Simulator::Impl::run_setup(const TrafficSpec& t) {
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
  // (Threads: every shard draws the same streams; it runs only the sources it owns.)
  eager = t.eager_sources;
  src_rng.clear();
  sl_rng.clear();
  for (size_t i = 0; i < eps.size(); i++) {
    const uint64_t seed = cfg.seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL * (i + 1);
    src_rng.emplace_back(seed);
    sl_rng.emplace_back(seed ^ 0xd1b54a32d192ed03ULL);  // a stream of its own: the spread leaves the traffic as it is
  }
  owe_limit = win_hi;
  std::vector<int> sources = t.active_sources;
  if (sources.empty())
    for (size_t i = 0; i < eps.size(); i++) sources.push_back(static_cast<int>(i));
  for (int s : sources) {
    if (s < 0 || s >= static_cast<int>(eps.size())) throw OptionError("active source out of range");
    if (t.pattern == "trace") break;
    if (par && own_ep[static_cast<size_t>(s)] != shard) continue;
    if (eps[s].gen_due >= 0) continue;  // listed twice
    int64_t g = next_gap(s);
    set_due(s, g > 0 ? g - 1 : -1);
    if (g > 0) gen_q.push({g - 1, s});
  }
  std::sort(link_evs.begin(), link_evs.end(), [](auto& a, auto& b) { return a.cycle < b.cycle; });
  std::stable_sort(routing_evs.begin(), routing_evs.end(), [](auto& a, auto& b) { return a.cycle < b.cycle; });
  generating = true;
  drain_end = win_hi + t.max_drain;
  hard_end = drain_end + (t.flush ? t.max_flush : 0);
  trace_mode = t.pattern == "trace";
  if (trace_mode) win_lo = 0, win_hi = trace.empty() ? 1 : trace.back().cycle + 1;
  if (par && trace_mode)  // the wake-up bound must hold for every shard's packets
    for (auto& x : trace) min_need = std::min(min_need, x.flits);
  last_progress = 0;
  deadlock_after = std::max<int64_t>(cfg.deadlock_timeout, 2 * int64_t{cfg.link_latency} + 100);
}

// The cycle loop. With threads every shard runs it in step: one barrier per cycle (sync()),
// after which the counters that decide the phases (measured packets outstanding, packets owed,
// in the network and at the sources, the last cycle a flit moved) are the sums (maxima) over the
// shards, so every shard takes the same decisions in the same cycle as one thread would.
void Simulator::Impl::run_loop() {
  const TrafficSpec& t = tr;
  bool flushing = false;
  if (par) sync();
  for (now = 0;; now++) {
    if (par) drain_inbox();
    // phase control
    const uint64_t meas_out = par ? par_meas_out() : measured_outstanding;
    const uint64_t owed = par ? par_owing() : owing;
    if (!trace_mode && now >= win_hi && !flushing) {
      if ((meas_out == 0 && owed == 0) || now >= drain_end) {
        if (meas_out || owed) res.drained = false;
        if (!t.flush) break;
        flushing = true;
        generating = false;
        gen_limit = now;  // packets generated before this cycle are still delivered
        owe_limit = now;
        owing = 0;
        for (auto& e : eps) owing += e.gen_due >= 0 && e.gen_due < owe_limit;
        if (par) sync();  // (every shard is here in the same cycle)
      }
    }
    const bool empty = par ? par_empty() : network_empty();
    if (trace_mode && trace_i >= trace.size() && empty) break;
    if (flushing && empty) break;
    if (now >= hard_end && !trace_mode) break;
    if (trace_mode && now >= win_hi + t.max_drain) break;
    if (par && link_i < link_evs.size() && link_evs[link_i].cycle <= now) {
      // Threads: a serial section (every shard has its inbox on its wheel, then waits). Shard 0
      // applies the link events to every shard: a packet cut on a dying link is shortened in the
      // buffers downstream, which other shards own.
      sync();
      while (link_i < link_evs.size() && link_evs[link_i].cycle <= now) {
        auto& l = link_evs[link_i++];
        if (shard == 0) set_link(l.node, l.port, l.up);
      }
      sync(false);  // (shard 0 may have written this shard's counters: read them after the barrier)
    }
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
        if (par && (x.src < 0 || own_ep[static_cast<size_t>(x.src)] != shard)) continue;
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
    if (cfg.nac && now >= cfg.nac_start && now % cfg.nac_period == 0) nac_trigger_scan();
    for (size_t i = 0; i < dirty_ep.size(); i++) allocate_ep(dirty_ep[i]);
    dirty_ep.clear();
    for (int s : retry_sw) mark_sw(s);
    retry_sw.clear();
    for (size_t i = 0; i < dirty_sw.size(); i++) allocate_switch(dirty_sw[i]);
    dirty_sw.clear();
    if (bsm) step_conns_bs();
    else step_conns();
    if (par) {
      sync();
      const int64_t lp = par_last_progress();
      const uint64_t in_net = par_in_network(), in_src = par_in_source();
      if (in_net > 0 && now - lp > deadlock_after) {
        dl_kind = 1, last_progress = lp;
        break;
      }
      if (in_net == 0 && in_src > 0 && now - lp > deadlock_after) {
        any_src = false;
        for (auto& e : eps) any_src = any_src || (!e.queue.empty() && e.out_ch >= 0 && ch[e.out_ch].alive);
        sync();
        any_src = false;
        if (!par_any_src()) {
          dl_kind = 2, last_progress = lp;
          break;
        }
      }
      continue;
    }
    if (res.in_network > 0 && now - last_progress > deadlock_after) {
      build_deadlock_report();
      break;
    }
    if (res.in_network == 0 && res.in_source > 0 && now - last_progress > deadlock_after) {
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
}

Result Simulator::Impl::run_finish() {
  res.cycles = now;
  res.endpoints = static_cast<int>(eps.size());
  if (ftdrb) {
    res.ftdrb_notifications = ftdrb->notifications, res.ftdrb_probes = ftdrb->probes;
    res.ftdrb_probes_delivered = ftdrb->probes_delivered, res.ftdrb_permanent = ftdrb->permanent;
    res.ftdrb_grows = ftdrb->grows, res.ftdrb_shrinks = ftdrb->shrinks;
    res.ftdrb_late_drops = ftdrb->late_drops;
  }
  res.flushed = network_empty();
  int64_t win = trace_mode ? std::max<int64_t>(1, now) : tr.measure;
  double denom = static_cast<double>(std::max<size_t>(1, eps.size())) * static_cast<double>(win);
  res.offered = static_cast<double>(window_flits_generated) / denom;
  res.accepted = static_cast<double>(window_flits_ejected) / denom;
  res.accepted_per_endpoint.resize(eps.size());
  for (size_t i = 0; i < eps.size(); i++)
    res.accepted_per_endpoint[i] = static_cast<double>(eps[i].window_ejected) / static_cast<double>(win);
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
  if (!hot_ep.empty()) {
    uint64_t ej = 0, bsrc = 0;
    for (size_t i = 0; i < eps.size(); i++) {
      if (!hot_ep[i]) ej += eps[i].window_ejected;
      if (!hot_ep[i] && !hot_src[i]) bsrc++;
    }
    res.background_accepted = static_cast<double>(ej) / (static_cast<double>(std::max<uint64_t>(1, bsrc)) * static_cast<double>(win));
    double s = 0;
    for (double x : blat) s += x;
    res.background_latency = blat.empty() ? 0 : s / static_cast<double>(blat.size());
  }
  if (res.measured_delivered + res.measured_dropped < res.measured_packets) res.drained = false;
  FLITSIM_CHECK(res.generated == res.delivered + res.dropped + res.in_network + res.in_source,
                "packet conservation");
  return res;
}

Result Simulator::Impl::run(const TrafficSpec& t) {
  run_setup(t);
  run_loop();
  if (!trace_mode) settle_sources();
  return run_finish();
}

// ---------------- threads ----------------

// Shared state of a threaded run: the barrier, the outboxes (two sets, by cycle parity: a shard
// fills set now & 1 while the others read set (now - 1) & 1), the counters each shard publishes
// before the barrier and their reduction, which the barrier's completion step computes once.
// The per-cycle barrier: the last of the `expected` threads to arrive runs the completion step
// and releases the others. A waiter spins briefly (a quiet box: the others arrive within
// microseconds), yields the core up to 100 times (an oversubscribed box: lets the thread it waits
// for run), then sleeps on a condition variable, so a long wait costs no CPU.
template <class Completion>
class CycleBarrier {
 public:
  CycleBarrier(int n, Completion c) : expected_(n), done_(c) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> l(m_);
    const uint64_t g = gen_.load(std::memory_order_relaxed);
    if (++count_ == expected_) {
      release(l);
      return;
    }
    l.unlock();
    for (int i = 0; i < 300; i++) {  // spin (~20-40 us), then hand the core over a while, then sleep
      if (gen_.load(std::memory_order_acquire) != g) return;
      if (i < 200) __builtin_ia32_pause();
      else std::this_thread::yield();
    }
    l.lock();
    cv_.wait(l, [&] { return gen_.load(std::memory_order_acquire) != g; });
  }
  void arrive_and_drop() {  // this thread leaves: it counts for this phase and no later one
    std::unique_lock<std::mutex> l(m_);
    --expected_;
    if (expected_ > 0 && count_ == expected_) release(l);
  }

 private:
  void release(std::unique_lock<std::mutex>& l) {
    done_();
    count_ = 0;
    gen_.store(gen_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    l.unlock();
    cv_.notify_all();
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<uint64_t> gen_{0};
  int expected_, count_ = 0;
  Completion done_;
};

struct Simulator::Impl::Par {
  struct Pub {
    uint64_t meas_out = 0, owing = 0, in_network = 0, in_source = 0;
    int64_t last_progress = 0;
    bool any_src = false;
  };
  struct Done {
    Par* p;
    void operator()() noexcept { p->reduce(); }
  };
  int T;
  std::vector<Impl*> sh;
  std::vector<std::vector<OutEv>> box;  // [(parity * T + from) * T + to]
  std::vector<Pub> pub;
  Pub g;  // the reduction (uint64 sums wrap: a packet injected in one shard may leave in another)
  std::vector<Pkt*> pk_tab;
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> err;
  CycleBarrier<Done> bar;
  Simulator* owner;
  explicit Par(int n, Simulator* o)
      : T(n), box(static_cast<size_t>(2 * n * n)), pub(static_cast<size_t>(n)), pk_tab(kPkMaxChunks, nullptr),
        err(static_cast<size_t>(n)), bar(n, Done{this}), owner(o) {}
  std::vector<OutEv>* out(int parity, int from) { return &box[static_cast<size_t>((parity * T + from) * T)]; }
  void reduce() noexcept {
    Pub r;
    for (const Pub& x : pub) {
      r.meas_out += x.meas_out, r.owing += x.owing, r.in_network += x.in_network, r.in_source += x.in_source;
      r.last_progress = std::max(r.last_progress, x.last_progress);
      r.any_src = r.any_src || x.any_src;
    }
    g = r;
    // the hooks, in shard order (a shard's records in their order), one thread at a time
    if (failed.load(std::memory_order_relaxed)) return;  // (a shard failed: the run is over)
    try {
      for (Impl* s : sh) {
        for (const HookRec& h : s->hook_buf) {
          if (h.reason) {
            if (owner->on_drop) owner->on_drop(h.id, h.reason);
          } else if (owner->on_deliver) {
            owner->on_deliver(h.id, h.src, h.dst, h.latency);
          }
        }
        s->hook_buf.clear();
      }
    } catch (...) {
      if (!err[0]) err[0] = std::current_exception();
      failed = true;
    }
  }
};

struct ShardAbort {};  // another shard failed: leave the loop

Simulator::Impl& Simulator::Impl::shard_impl(int s) { return *par->sh[static_cast<size_t>(s)]; }
void Simulator::Impl::par_min_need_1() {
  for (Impl* m : par->sh) m->min_need = 1;
}

void Simulator::Impl::sync(bool publish) {
  if (publish) {
    Par::Pub& p = par->pub[static_cast<size_t>(shard)];
    p.meas_out = measured_outstanding, p.owing = owing, p.in_network = res.in_network, p.in_source = res.in_source;
    p.last_progress = last_progress, p.any_src = any_src;
  }
  timespec a{}, b{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  par->bar.arrive_and_wait();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  wait_cpu += static_cast<double>(b.tv_sec - a.tv_sec) + 1e-9 * static_cast<double>(b.tv_nsec - a.tv_nsec);
  if (par->failed.load(std::memory_order_relaxed)) throw ShardAbort{};
}
uint64_t Simulator::Impl::par_meas_out() const { return par->g.meas_out; }
uint64_t Simulator::Impl::par_owing() const { return par->g.owing; }
uint64_t Simulator::Impl::par_in_network() const { return par->g.in_network; }
uint64_t Simulator::Impl::par_in_source() const { return par->g.in_source; }
int64_t Simulator::Impl::par_last_progress() const { return par->g.last_progress; }
bool Simulator::Impl::par_any_src() const { return par->g.any_src; }
bool Simulator::Impl::par_empty() const { return par->g.in_network == 0 && par->g.in_source == 0 && par->g.owing == 0; }

// Start of a cycle: the events the other shards sent to this one in the previous cycle, by
// sending shard, then in send order; then this shard's outboxes for this cycle (read by the
// others two cycles ago) are emptied.
void Simulator::Impl::drain_inbox() {
  const int T = par->T;
  if (now > 0) {
    const int pp = static_cast<int>((now - 1) & 1);
    for (int s = 0; s < T; s++) {
      if (s == shard) continue;
      for (const OutEv& x : par->out(pp, s)[shard]) put(x.t, x.e);
    }
  }
  my_out = par->out(static_cast<int>(now & 1), shard);
  for (int r = 0; r < T; r++) my_out[r].clear();
}

// Adds another shard's counters and samples (threads: after the loop, in shard order).
void Simulator::Impl::absorb(Impl& o) {
  Result& a = res;
  const Result& b = o.res;
  a.generated += b.generated, a.injected += b.injected, a.delivered += b.delivered, a.dropped += b.dropped;
  a.in_network += b.in_network, a.in_source += b.in_source;
  for (const auto& [k, v] : b.drops) a.drops[k] += v;
  a.measured_packets += b.measured_packets, a.measured_delivered += b.measured_delivered;
  a.measured_dropped += b.measured_dropped;
  a.drained = a.drained && b.drained;
  a.flits_moved += b.flits_moved;
  a.min_credits = std::min(a.min_credits, b.min_credits);
  a.nac_triggers += b.nac_triggers, a.nac_id_packets += b.nac_id_packets, a.nac_confirmed += b.nac_confirmed;
  a.nac_recovery_moves += b.nac_recovery_moves, a.nac_timeouts += b.nac_timeouts;
  a.nac_confirm_cycles += b.nac_confirm_cycles, a.nac_recovered += b.nac_recovered, a.nac_time_cycles += b.nac_time_cycles;
  if (b.nac_first_confirmed >= 0 && (a.nac_first_confirmed < 0 || b.nac_first_confirmed < a.nac_first_confirmed))
    a.nac_first_confirmed = b.nac_first_confirmed;
  a.escaped += b.escaped, a.escape_fallbacks += b.escape_fallbacks;
  lat.insert(lat.end(), o.lat.begin(), o.lat.end());
  nlat.insert(nlat.end(), o.nlat.begin(), o.nlat.end());
  blat.insert(blat.end(), o.blat.begin(), o.blat.end());
  hops_sum += o.hops_sum;
  measured_outstanding += o.measured_outstanding;
  owing += o.owing;
  window_flits_ejected += o.window_flits_ejected, window_flits_generated += o.window_flits_generated;
  for (size_t i = 0; i < eps.size() && i < o.eps.size(); i++) eps[i].window_ejected += o.eps[i].window_ejected;
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
void Simulator::set_waypoints(std::vector<Waypoints> w) {
  Impl& z = *impl_;
  auto t = std::make_shared<Impl::WpTable>();
  const size_t ne = z.eps.size();
  if (!w.empty() && (z.ftdrb || z.cfg.fault_policy == FaultPolicy::Escape))
    throw OptionError("flitsim: waypoints do not combine with FT-DRB sources or escape paths (both re-address packets)");
  for (size_t i = 0; i < w.size(); i++) {
    const Waypoints& x = w[i];
    if (x.src < 0 || static_cast<size_t>(x.src) >= ne || x.dst < 0 || static_cast<size_t>(x.dst) >= ne)
      throw OptionError("flitsim: waypoints of endpoints " + std::to_string(x.src) + " -> " + std::to_string(x.dst) +
                        ": no such endpoint (" + std::to_string(ne) + " endpoints)");
    const std::string pair = z.f.node_name(z.eps[static_cast<size_t>(x.src)].node) + " -> " +
                             z.f.node_name(z.eps[static_cast<size_t>(x.dst)].node);
    if (x.via.empty() || x.via.size() > 15)
      throw OptionError("flitsim: " + pair + " has " + std::to_string(x.via.size()) + " waypoints (1..15)");
    for (Lid l : x.via) {
      auto o = z.f.owner(l);
      if (!o || !z.f.node(o->node).is_switch())
        throw OptionError("flitsim: waypoint LID " + std::to_string(l) + " of " + pair + " is not a switch's LID");
    }
    const int sl = z.R->sl(z.eps[static_cast<size_t>(x.src)].base, z.eps[static_cast<size_t>(x.dst)].base) +
                   static_cast<int>(x.via.size());
    if (sl > 15 || (z.vl_base.empty() && sl >= z.V))
      throw OptionError("flitsim: waypoints of " + pair + ": the last leg runs on SL " + std::to_string(sl) + ", but " +
                        (sl > 15 ? std::string("SLs end at 15") : "the run has " + std::to_string(z.V) + " VCs (--vcs)"));
    if (!t->of_pair.emplace(static_cast<uint64_t>(x.src) << 32 | static_cast<uint32_t>(x.dst), static_cast<int32_t>(i)).second)
      throw OptionError("flitsim: waypoints of " + pair + " given twice");
  }
  t->w = std::move(w);
  z.wp = t->w.empty() ? nullptr : std::move(t);
}

void Simulator::schedule_routing(int64_t cycle, const Routing* routing) {
  if (!routing) throw OptionError("flitsim: null routing");
  impl_->routing_evs.push_back({cycle, routing});
}

int64_t Simulator::cycle() const { return impl_->now; }
const std::vector<double>& Simulator::thread_cpu_seconds() const { return impl_->shard_cpu; }
Result Simulator::run(const TrafficSpec& traffic) {
  const int T = resolve_threads(impl_->cfg.threads, static_cast<int>(impl_->sws.size()));
  if (T <= 1) return impl_->run(traffic);
  return run_threads(traffic, T);
}

int resolve_threads(int threads, int switches) {
  int t = threads;
  if (t == 0) t = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min({t, switches, 64}));
}

Result Simulator::run_threads(const TrafficSpec& traffic, int T) {
  Impl& z = *impl_;
  auto refuse = [](const char* what) {
    throw OptionError(std::string("flitsim: --threads > 1 does not support ") + what + "; use --threads 1");
  };
  if (z.cfg.nac) refuse("NAC");
  if (z.ftdrb) refuse("FT-DRB sources (lid policy ftdrb)");
  auto par = std::make_unique<Impl::Par>(T, this);
  std::vector<std::unique_ptr<Impl>> more;
  par->sh.push_back(&z);
  for (int s = 1; s < T; s++) {
    more.push_back(std::make_unique<Impl>(z.f, *z.R, z.cfg, this, par->pk_tab.data()));
    par->sh.push_back(more.back().get());
  }
  // shard 0 (impl_) switches to the shared chunk table: nothing was allocated yet
  FLITSIM_CHECK(z.pk_chunks.empty(), "packets before the run");
  z.pk_tab = par->pk_tab.data();
  // Partition: contiguous ranges of switches balanced by weight, 4 x (ports + 1) + 3 per attached
  // CA (a CA's source and sink cost about 3/4 of a switch port: fitted on the radix-36 tree's
  // per-thread CPU times); an endpoint belongs to the shard of the switch it is cabled to.
  const size_t nsw = z.sws.size(), nep = z.eps.size(), nch = z.ch.size();
  std::vector<int> ep_sw(nep, -1);
  std::vector<int64_t> w(nsw, 0);
  for (size_t i = 0; i < nep; i++) {
    const EpState& e = z.eps[i];
    if (e.out_ch >= 0 && z.ch[static_cast<size_t>(e.out_ch)].dst_sw >= 0) ep_sw[i] = z.ch[static_cast<size_t>(e.out_ch)].dst_sw;
    else if (e.in_ch >= 0 && z.ch[static_cast<size_t>(e.in_ch)].src_sw >= 0) ep_sw[i] = z.ch[static_cast<size_t>(e.in_ch)].src_sw;
    if (ep_sw[i] >= 0) w[static_cast<size_t>(ep_sw[i])] += 3;
  }
  int64_t total = 0;
  for (size_t s = 0; s < nsw; s++) total += (w[s] += 4 * (static_cast<int64_t>(z.sws[s].in_chs.size()) + 1));
  std::vector<uint16_t> own_sw(nsw), own_ep(nep), own_src(nch), own_dst(nch);
  int64_t acc = 0;
  for (size_t s = 0; s < nsw; s++) {
    // the shard whose share of the total weight holds this switch's midpoint
    own_sw[s] = static_cast<uint16_t>(std::min<int64_t>(T - 1, (2 * acc + w[s]) * T / (2 * total)));
    acc += w[s];
  }
  for (size_t i = 0; i < nep; i++) own_ep[i] = ep_sw[i] >= 0 ? own_sw[static_cast<size_t>(ep_sw[i])] : 0;
  for (size_t c = 0; c < nch; c++) {
    const Channel& x = z.ch[c];
    own_src[c] = x.src_sw >= 0 ? own_sw[static_cast<size_t>(x.src_sw)] : own_ep[static_cast<size_t>(x.src_ep)];
    own_dst[c] = x.dst_sw >= 0 ? own_sw[static_cast<size_t>(x.dst_sw)] : own_ep[static_cast<size_t>(x.dst_ep)];
  }
  for (int s = 0; s < T; s++) {
    Impl& m = *par->sh[static_cast<size_t>(s)];
    m.par = par.get(), m.shard = s, m.nsh = T, m.next_id = static_cast<uint64_t>(s) + 1;
    m.own_sw = own_sw, m.own_ep = own_ep, m.own_src = own_src, m.own_dst = own_dst;
    if (s > 0) m.routing_evs = z.routing_evs;  // (every shard re-routes its own switches)
    if (s > 0) m.link_evs = z.link_evs;        // (all stop for them; shard 0 applies them)
    if (s > 0) m.wp = z.wp;
    m.my_out = par->out(0, s);
    m.run_setup(traffic);
  }
  std::vector<std::thread> th;
  std::vector<double> cpu(static_cast<size_t>(T), 0.0);
  auto body = [&](int s) {
    timespec c0{}, c1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    try {
      par->sh[static_cast<size_t>(s)]->run_loop();
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
      cpu[static_cast<size_t>(s)] = static_cast<double>(c1.tv_sec - c0.tv_sec) + 1e-9 * static_cast<double>(c1.tv_nsec - c0.tv_nsec);
    } catch (const ShardAbort&) {
      par->bar.arrive_and_drop();
      return;
    } catch (...) {
      par->err[static_cast<size_t>(s)] = std::current_exception();
      par->failed = true;
      par->bar.arrive_and_drop();
      return;
    }
    par->bar.arrive_and_drop();  // (the others may still wait on a barrier phase: none do, all
                                 // leave the loop in the same cycle; this keeps the count right)
  };
  for (int s = 1; s < T; s++) th.emplace_back(body, s);
  body(0);
  for (auto& x : th) x.join();
  for (auto& e : par->err)
    if (e) std::rethrow_exception(e);
  z.shard_cpu = cpu;
  for (int s = 0; s < T; s++) z.shard_cpu.push_back(par->sh[static_cast<size_t>(s)]->wait_cpu);
  Impl& a = z;
  for (int s = 0; s < T; s++)
    if (!par->sh[static_cast<size_t>(s)]->trace_mode) par->sh[static_cast<size_t>(s)]->settle_sources();
  for (int s = 1; s < T; s++) a.absorb(*par->sh[static_cast<size_t>(s)]);
  if (a.dl_kind) {
    std::vector<int64_t> next(a.ivc.size(), -1);
    for (Impl* m : par->sh) m->fill_wait_for(next);
    a.report_wait_for(next);
    if (a.dl_kind == 2)
      a.res.deadlock.text = "stalled at cycle " + std::to_string(a.now) +
                            ": packets wait in source queues behind failed links (hold policy)";
  }
  Result r = a.run_finish();
  // The shards' packet chunks go with them; shard 0 keeps no pointer into the shared table.
  a.pk_tab = a.own_pk_tab.data();
  a.par = nullptr;
  return r;
}

}  // namespace ftroute::flitsim
