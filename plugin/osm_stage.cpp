// libftroute.so - DQR's staged transition on the wire (docs/PLUGIN.md "Staged DQR transition"):
// Routing::transition applied stage by stage with LFT Set SMPs, acknowledgements, ack timeout,
// drain time and stage dumps. Called from osm_plugin.cpp's ucast_build_fwd_tables callback.
//
// The OpenSM headers are included in the same order as in osm_plugin.cpp (osm_config.h first,
// `delete` renamed around osm_event_plugin.h; docs/INSTALL.md, "header traps").

#define FILE_ID OSM_FILE_UCAST_MGR_C  // borrow a file id for per-module log levels
#include <opensm/osm_config.h>        // FIRST: ENABLE_OSM_PERF_MGR etc. change struct layouts

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapter.hpp"
#include "ftroute/dqr/dqr.hpp"
#include "ftroute/engine.hpp"

// osm_event_plugin.h names a struct member `delete` (a C++ keyword).
#define delete delete_cb
#include <opensm/osm_file_ids.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sm.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_ucast_mgr.h>
#include <opensm/osm_version.h>
#undef delete

#include "osm_plugin.hpp"

namespace ftroute::plugin::osm_side {

namespace {

// ---- staged DQR transition (docs/PLUGIN.md "Staged DQR transition") ------------------------
// Runs inside ucast_build_fwd_tables, on the state-manager thread, which holds OpenSM's plock
// exclusively (osm_ucast_mgr_process). new_lft already holds the final tables. Per stage: the
// changed 64-LID blocks are sent as LFT Set SMPs (osm_req_set, as OpenSM's own set_lft_block
// does, with sw->lft's block zeroed first so an unanswered block is re-sent later); then the plock
// is released, because the LFT receiver (osm_lft_rcv_process) needs it exclusively to store each
// answer in sw->lft; the plugin polls sw->lft under the shared lock until every block reads back
// as sent (OpenSM's wait_for_pending_transactions waits on the same answers through its QP0
// counter); then the drain time passes and the plock is taken back before the next stage.
// Nothing else changes the subnet's objects while the lock is free: switches are only created and
// dropped by the sweep, i.e. by this very thread. Afterwards sw->lft equals new_lft, so OpenSM's
// own push (osm_ucast_mgr_set_fwd_tables) finds no changed block.

// The plock is free inside this scope and exclusively held again when it ends.
class PlockReleased {
 public:
  explicit PlockReleased(cl_plock_t* l) : l_(l) { cl_plock_release(l_); }
  ~PlockReleased() { cl_plock_excl_acquire(l_); }
  PlockReleased(const PlockReleased&) = delete;
  PlockReleased& operator=(const PlockReleased&) = delete;

 private:
  cl_plock_t* l_;
};

class PlockShared {
 public:
  explicit PlockShared(cl_plock_t* l) : l_(l) { cl_plock_acquire(l_); }
  ~PlockShared() { cl_plock_release(l_); }
  PlockShared(const PlockShared&) = delete;
  PlockShared& operator=(const PlockShared&) = delete;

 private:
  cl_plock_t* l_;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Sleeps ms in short slices; false when OpenSM is exiting.
bool sleep_ms(double ms) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    if (osm_exit_flag) return false;
    const double left = ms - ms_since(t0);
    if (left <= 0) return true;
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(std::min(left, 10.0)));
  }
}

// Block b of a switch as it would be sent: new_lft's bytes with the plan's entries for LIDs <= top.
void compose_block(const Target& t, const ftroute::Lfts& state, unsigned b, uint8_t* out) {
  const unsigned base = b * IB_SMP_DATA_SIZE;
  std::memset(out, OSM_NO_PATH, IB_SMP_DATA_SIZE);
  for (unsigned i = 0; i < IB_SMP_DATA_SIZE && base + i < t.sw->lft_size; i++) out[i] = t.sw->new_lft[base + i];
  const std::vector<uint8_t>& tab = state.table(t.idx);
  for (unsigned i = 0; i < IB_SMP_DATA_SIZE; i++) {
    const unsigned lid = base + i;
    if (lid >= 1 && lid <= t.top && lid < tab.size()) out[i] = tab[lid];
  }
}

unsigned block_bytes(const Target& t, unsigned b) {
  const unsigned base = b * IB_SMP_DATA_SIZE;
  return base >= t.sw->lft_size ? 0u : std::min<unsigned>(IB_SMP_DATA_SIZE, t.sw->lft_size - base);
}

struct PendingBlock {
  const Target* t;
  unsigned block;
  uint8_t data[IB_SMP_DATA_SIZE];
};

// The tables as the switches acknowledged them (sw->lft), in the snapshot's numbering.
ftroute::Lfts acked_tables(PluginCtx* c, const fp::Snapshot& s, const std::vector<Target>& targets) {
  ftroute::Lfts l(s.fabric);
  PlockShared lk(&c->osm->lock);
  for (const Target& t : targets)
    for (unsigned lid = 1; lid <= t.top && lid < t.sw->lft_size; lid++) l.set(t.idx, static_cast<Lid>(lid), t.sw->lft[lid]);
  return l;
}

}  // namespace

void stage_transition(PluginCtx* c, EngineCtx* e, const fp::Snapshot& snap, const std::vector<Target>& targets) {
  const ftroute::LftTransition& tr = *snap.routing.transition;
  const std::string& name = e->slot->name();
  const ftroute::EngineOptions& o = e->slot->options();
  osm_opensm_t* osm = c->osm;
  osm_subn_t* subn = &osm->subn;
  const size_t N = tr.stages.size();
  const std::vector<ftroute::OptionSpec> specs = ftroute::dqr_option_specs();
  if (!o.get_bool(ftroute::find_option_spec(specs, "staged"))) {
    plog(c, OSM_LOG_INFO, "ftroute: %s transition not staged (staged=false): OpenSM sends the %zu changed entries at once",
         name.c_str(), tr.entries());
    return;
  }
  // The state-manager thread must hold the plock exclusively here; a read lock then fails.
  {
    const int r = pthread_rwlock_tryrdlock(&osm->lock.lock);
    if (r == 0) {
      pthread_rwlock_unlock(&osm->lock.lock);
      plog(c, OSM_LOG_ERROR,
           "ftroute: %s transition not staged: OpenSM's lock is not held by the routing callback (unexpected OpenSM "
           "build); OpenSM sends the %zu changed entries at once",
           name.c_str(), tr.entries());
      return;
    }
  }
  const fp::DrainTime drain = fp::drain_time(subn->opt.packet_life_time, subn->opt.head_of_queue_lifetime,
                                             subn->opt.leaf_head_of_queue_lifetime,
                                             o.has("drain_ms") ? o.get_int("drain_ms", 0) : -1);
  const double ack_timeout_ms =
      o.has("ack_timeout_ms")
          ? static_cast<double>(o.get_int("ack_timeout_ms", 2000))
          : std::max(2000.0, 2.0 * subn->opt.transaction_timeout * (subn->opt.transaction_retries + 1.0));
  std::vector<const Target*> by_idx(static_cast<size_t>(snap.fabric.size()), nullptr);
  for (const Target& t : targets) by_idx[static_cast<size_t>(t.idx)] = &t;

  std::unique_ptr<fp::TransitionPlan> plan;
  try {
    plan = std::make_unique<fp::TransitionPlan>(snap.routing.lfts, tr, name);
  } catch (const std::exception& ex) {
    plog(c, OSM_LOG_ERROR, "ftroute: %s transition not staged: %s; OpenSM sends the new tables at once", name.c_str(),
         ex.what());
    return;
  }
  // The switches must hold the previous tables (what the stages start from) as OpenSM knows them.
  uint8_t want[IB_SMP_DATA_SIZE];
  for (const Target& t : targets) {
    for (unsigned b = 0; b <= t.top / IB_SMP_DATA_SIZE; b++) {
      const unsigned n = block_bytes(t, b);
      compose_block(t, plan->state(), b, want);
      if (n && std::memcmp(t.sw->lft + b * IB_SMP_DATA_SIZE, want, n) != 0) {
        plog(c, OSM_LOG_ERROR,
             "ftroute: %s transition not staged: LFT block %u of switch %s as OpenSM last set it differs from the "
             "previous routing the stages start from; OpenSM sends the new tables at once",
             name.c_str(), b, node_label(t.sw->p_node).c_str());
        return;
      }
    }
  }
  for (const auto& st : tr.stages)
    for (const auto& en : st.entries)
      if (!by_idx[static_cast<size_t>(en.sw)] || en.lid > by_idx[static_cast<size_t>(en.sw)]->top) {
        plog(c, OSM_LOG_ERROR, "ftroute: %s transition not staged: an entry lies outside OpenSM's tables; OpenSM sends the new tables at once",
             name.c_str());
        return;
      }

  std::string dump_dir = o.get(ftroute::find_option_spec(specs, "stage_dump"));
  if (!dump_dir.empty()) {
    const std::string why = fp::stage_dump_dir_problem(dump_dir);
    if (!why.empty()) {
      plog(c, OSM_LOG_ERROR, "ftroute: %s: stage_dump=%s cannot be written (%s): the transition goes on without stage dumps",
           name.c_str(), dump_dir.c_str(), why.c_str());
      dump_dir.clear();
    } else {
      fp::remove_stage_dumps(dump_dir);
    }
  }
  auto dump = [&](size_t k) {
    if (dump_dir.empty()) return;
    try {
      fp::write_stage_dump(fp::stage_dump_path(dump_dir, k), snap.fabric, acked_tables(c, snap, targets));
    } catch (const std::exception& ex) {
      plog(c, OSM_LOG_ERROR, "ftroute: %s: stage dump %s not written (%s): no further stage dumps", name.c_str(),
           fp::stage_dump_path(dump_dir, k).c_str(), ex.what());
      dump_dir.clear();
    }
  };

  plog(c, OSM_LOG_INFO,
       "ftroute: %s transition: %zu entries in %zu stages%s; ack timeout %.0f ms, drain %.1f ms between stages (%s)",
       name.c_str(), tr.entries(), N, tr.sl_changes ? " after the layer moves" : "", ack_timeout_ms, drain.ms,
       drain.why.c_str());
  const auto t_all = std::chrono::steady_clock::now();
  const uint64_t traps0 = c->counters.traps.load();
  bool trap_noted = false;
  double ack_total = 0, drain_total = 0;
  size_t blocks_total = 0;
  std::vector<char> touched(static_cast<size_t>(snap.fabric.size()), 0);
  std::string stop;  // why the transition stopped early ("" = all stages acknowledged)
  bool exiting = false;
  try {
    {
      PlockReleased unlocked(&osm->lock);
      dump(0);
      if (tr.sl_changes) {
        const auto t0 = std::chrono::steady_clock::now();
        exiting = !sleep_ms(drain.ms);
        drain_total += ms_since(t0);
        plog(c, OSM_LOG_INFO,
             "ftroute: %s transition stage 0/%zu (layer moves): %zu path SLs changed (the SA answers them from now on), "
             "no LFT block, drain %.1f ms",
             name.c_str(), N, tr.sl_changes, drain.ms);
      }
    }
    for (size_t k = 0; k < N && stop.empty() && !exiting; k++) {
      const ftroute::LftTransition::Stage& st = tr.stages[k];
      const auto blocks = plan->apply_next();
      std::vector<PendingBlock> pending(blocks.size());
      std::vector<char> stage_sw(static_cast<size_t>(snap.fabric.size()), 0);
      size_t nsw = 0;
      for (size_t i = 0; i < blocks.size(); i++) {
        const Target& t = *by_idx[static_cast<size_t>(blocks[i].first)];
        PendingBlock& pb = pending[i];
        pb.t = &t;
        pb.block = blocks[i].second;
        compose_block(t, plan->state(), pb.block, pb.data);
        if (!stage_sw[static_cast<size_t>(t.idx)]++) nsw++;
        touched[static_cast<size_t>(t.idx)] = 1;
      }
      const auto t_send = std::chrono::steady_clock::now();
      for (PendingBlock& pb : pending) {
        osm_physp_t* p0 = osm_node_get_physp_ptr(pb.t->sw->p_node, 0);
        if (!p0) {
          stop = "switch " + node_label(pb.t->sw->p_node) + " has no port 0 to send LFT block " + std::to_string(pb.block) + " to";
          break;
        }
        // Zero OpenSM's copy first (as set_lft_block does): if no answer comes, the block differs
        // from new_lft and OpenSM sends it again.
        std::memset(pb.t->sw->lft + pb.block * IB_SMP_DATA_SIZE, 0, block_bytes(*pb.t, pb.block));
        osm_madw_context_t ctx;
        std::memset(&ctx, 0, sizeof ctx);
        ctx.lft_context.node_guid = osm_node_get_node_guid(pb.t->sw->p_node);
        ctx.lft_context.set_method = TRUE;
        const ib_api_status_t rs =
            osm_req_set(&osm->sm, osm_physp_get_dr_path_ptr(p0), pb.data, IB_SMP_DATA_SIZE, IB_MAD_ATTR_LIN_FWD_TBL,
                        cl_hton32(pb.block), FALSE, ib_port_info_get_m_key(&p0->port_info), 0, CL_DISP_MSGID_NONE, &ctx);
        if (rs != IB_SUCCESS) {
          stop = "sending LFT block " + std::to_string(pb.block) + " to switch " + node_label(pb.t->sw->p_node) +
                 " failed (" + ib_get_err_str(rs) + ")";
          break;
        }
      }
      blocks_total += pending.size();
      double ack_ms = 0;
      {
        PlockReleased unlocked(&osm->lock);
        // wait until every block reads back as sent, OpenSM gave up on it, or the timeout
        int idle_polls = 0;
        while (stop.empty()) {
          const int32_t outstanding = osm->stats.qp0_mads_outstanding;
          size_t left = 0;
          const PendingBlock* first = nullptr;
          {
            PlockShared lk(&osm->lock);
            for (const PendingBlock& pb : pending) {
              const unsigned n = block_bytes(*pb.t, pb.block);
              if (std::memcmp(pb.t->sw->lft + pb.block * IB_SMP_DATA_SIZE, pb.data, n) != 0) {
                if (!first) first = &pb;
                left++;
              }
            }
          }
          if (!left) break;
          // No SMP outstanding any more (OpenSM retired every request, answered or timed out)
          // and still unanswered: twice in a row, so a response being stored is not missed.
          idle_polls = outstanding == 0 ? idle_polls + 1 : 0;
          const double waited = ms_since(t_send);
          if (idle_polls >= 2 || waited > ack_timeout_ms) {
            char buf[320];
            std::snprintf(buf, sizeof buf, "switch %s did not acknowledge LFT block %u within %.0f ms (%zu of %zu blocks unacknowledged%s)",
                          node_label(first->t->sw->p_node).c_str(), first->block, waited, left, pending.size(),
                          idle_polls >= 2 ? ", OpenSM retired the request" : "");
            stop = buf;
            break;
          }
          if (osm_exit_flag) {
            exiting = true;
            break;
          }
          std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        ack_ms = ms_since(t_send);
        ack_total += ack_ms;
        dump(k + 1);
        const double planned = stop.empty() && !exiting && k + 1 < N ? drain.ms : 0.0;
        if (stop.empty())
          plog(c, OSM_LOG_INFO,
               "ftroute: %s transition stage %zu/%zu: %zu LFT blocks to %zu switches (%zu entries, %zu idle), "
               "acknowledged in %.1f ms, drain %.1f ms",
               name.c_str(), k + 1, N, pending.size(), nsw, st.entries.size(), st.idle, ack_ms, planned);
        if (planned > 0) {
          const auto t0 = std::chrono::steady_clock::now();
          exiting = !sleep_ms(drain.ms);
          drain_total += ms_since(t0);
        }
      }
      const uint64_t traps = c->counters.traps.load();
      if (stop.empty() && traps != traps0 && !trap_noted && k + 1 < N) {
        trap_noted = true;
        plog(c, OSM_LOG_INFO,
             "ftroute: %s transition: new trap during stage %zu of %zu: finishing the %zu remaining stages, which were "
             "checked already (a lost link adds no dependency and no loop); the next sweep routes the new event",
             name.c_str(), k + 1, N, N - k - 1);
      }
    }
  } catch (const std::exception& ex) {
    stop = std::string("error: ") + ex.what();
  }
  // the plock is held exclusively again here
  size_t switches_total = 0;
  for (char t : touched) switches_total += t != 0;
  if (!stop.empty() || exiting) {
    // Stopped half way: the switches keep a checked state (the stages sent so far); new_lft is
    // set to it, so OpenSM's own push only repeats the last stage's unanswered blocks.
    uint8_t buf[IB_SMP_DATA_SIZE];
    for (const Target& t : targets)
      for (unsigned b = 0; b <= t.top / IB_SMP_DATA_SIZE; b++) {
        compose_block(t, plan->state(), b, buf);
        std::memcpy(t.sw->new_lft + b * IB_SMP_DATA_SIZE, buf, block_bytes(t, b));
      }
    if (exiting) {
      plog(c, OSM_LOG_INFO, "ftroute: %s transition stopped after stage %zu of %zu: OpenSM is exiting", name.c_str(),
           plan->applied(), N);
      return;
    }
    e->slot->route_next_from_scratch();
    subn->force_heavy_sweep = TRUE;
    plog(c, OSM_LOG_ERROR,
         "ftroute: %s transition stopped at stage %zu of %zu: %s; the switches keep the checked state of stage %zu "
         "(OpenSM repeats only that stage's unanswered blocks, no later stage is sent); falling back to the full re-route "
         "path: a heavy sweep is forced and routes from scratch with the base engine (total %.1f ms)",
         name.c_str(), plan->applied(), N, stop.c_str(), plan->applied(), ms_since(t_all));
    return;
  }
  // OpenSM's own push after this callback sends every block where new_lft differs from sw->lft:
  // count them (0 when every stage was acknowledged).
  size_t left_for_opensm = 0;
  for (const Target& t : targets)
    for (unsigned b = 0; b <= t.top / IB_SMP_DATA_SIZE; b++)
      if (std::memcmp(t.sw->new_lft + b * IB_SMP_DATA_SIZE, t.sw->lft + b * IB_SMP_DATA_SIZE, block_bytes(t, b)) != 0)
        left_for_opensm++;
  plog(c, OSM_LOG_INFO,
       "ftroute: %s transition done: %zu stages, %zu LFT blocks to %zu switches, %zu entries in %.1f ms (acknowledge %.1f "
       "ms, drain %.1f ms); %zu changed blocks left for OpenSM's own push%s",
       name.c_str(), N, blocks_total, switches_total, tr.entries(), ms_since(t_all), ack_total, drain_total,
       left_for_opensm, trap_noted ? "; a new trap came during the transition, the next sweep routes it" : "");
}

}  // namespace ftroute::plugin::osm_side
