// libftroute.so - OpenSM event plugin (built for one OpenSM version: 3.3.23, 3.3.24, ...) that registers every ftroute engine as an OpenSM
// routing engine (osm_register_external_routing_engine, called from create(), which OpenSM runs
// before it sets up the engines named by `routing_engine`).
//
// Per routing pass (ucast_build_fwd_tables):
//   osm_subn_t --(fabric_from_subn)--> ftroute::Fabric --(EngineSlot::run: the routing pipeline)--> Routing, validated
//   --(check_vls, plan_lfts, write_lfts)--> p_sw->new_lft[] + osm_switch_count_path + hop fix-ups.
// Anything that goes wrong (EngineError, OptionError, FabricError, bad_alloc, ...) is logged as an
// OSM_LOG_ERROR line and the callback returns -1 before a single LFT byte is written, so OpenSM
// tries the next engine in `routing_engine` or falls back to its built-in minhop.
//
// Hop matrix: build_lid_matrices fills the minimal hop counts for switch LIDs (used by SA and
// multicast) itself, one BFS per switch (own_lid_matrices; OpenSM's builder with the plugin option
// lid_matrices=opensm or a hop_weights_file). After writing the LFTs, every (switch,
// switch LID) whose chosen port has a different hop count than the actual route (non-minimal
// engines, e.g. misrouting around faults) is corrected with osm_switch_set_hops. For ft-minhop
// nothing changes.
//
// DQR's staged transition (Routing::transition applied stage by stage on the wire) is in
// osm_stage.cpp; osm_plugin.hpp holds what the two files share.
//
// See docs/PLUGIN.md for configuration, options and troubleshooting.

#define FILE_ID OSM_FILE_UCAST_MGR_C  // borrow a file id for per-module log levels
#include <opensm/osm_config.h>        // FIRST: ENABLE_OSM_PERF_MGR etc. change struct layouts

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "adapter.hpp"
#include "ftroute_version.hpp"  // generated: project version + git describe
#include "ftroute/engine.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/parallel.hpp"

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

// The declarations of osm_plugin.hpp.
namespace ftroute::plugin::osm_side {

namespace {

void vlog(PluginCtx* c, osm_log_level_t level, const char* fmt, va_list ap) {
  char raw[2048];
  std::vsnprintf(raw, sizeof raw, fmt, ap);
  // node descriptions and option values come from the fabric and the config: never copy their
  // control characters (terminal escape sequences) into the log raw
  const std::string buf = ftroute::escape_name(raw);
  if (c->osm) osm_log_v2(&c->osm->log, level, FILE_ID, "%s\n", buf.c_str());
  if (c->trace) {
    std::lock_guard<std::mutex> lk(c->trace_mu);
    std::fprintf(c->trace, "%s\n", buf.c_str());
    std::fflush(c->trace);
  }
}

}  // namespace

__attribute__((format(printf, 3, 4))) void plog(PluginCtx* c, osm_log_level_t level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(c, level, fmt, ap);
  va_end(ap);
}

std::string node_label(osm_node_t* n) {
  if (n->print_desc && *n->print_desc) return n->print_desc;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(cl_ntoh64(osm_node_get_node_guid(n))));
  return buf;
}

}  // namespace ftroute::plugin::osm_side

namespace {

using ftroute::Fabric;
using ftroute::Lid;
using ftroute::NodeType;
namespace fp = ftroute::plugin;
using namespace ftroute::plugin::osm_side;  // PluginCtx, EngineCtx, Target, plog, node_label, stage_transition

// ---- osm_subn_t -> ftroute::Fabric ---------------------------------------------------------
// Nodes: every osm_node_t (switches, CAs, routers), id = node description (made unique with the
// GUID when two nodes share one), node GUID, port GUIDs. Links: only between two valid physical
// ports that know each other as remote and are not DOWN. LIDs+LMC: osm_port_get_lid_range_ho of
// every osm_port_t (switch LIDs on port 0).
Fabric fabric_from_subn(osm_subn_t* subn, std::unordered_map<const osm_node_t*, int>& index) {
  Fabric f;
  std::unordered_map<std::string, int> desc_count;
  for (cl_map_item_t* it = cl_qmap_head(&subn->node_guid_tbl); it != cl_qmap_end(&subn->node_guid_tbl);
       it = cl_qmap_next(it))
    desc_count[node_label(reinterpret_cast<osm_node_t*>(it))]++;
  for (cl_map_item_t* it = cl_qmap_head(&subn->node_guid_tbl); it != cl_qmap_end(&subn->node_guid_tbl);
       it = cl_qmap_next(it)) {
    osm_node_t* n = reinterpret_cast<osm_node_t*>(it);
    NodeType t;
    switch (osm_node_get_type(n)) {
      case IB_NODE_TYPE_SWITCH: t = NodeType::Switch; break;
      case IB_NODE_TYPE_CA: t = NodeType::Ca; break;
      case IB_NODE_TYPE_ROUTER: t = NodeType::Router; break;
      default: continue;
    }
    const uint64_t guid = cl_ntoh64(osm_node_get_node_guid(n));
    std::string id = node_label(n);
    if (desc_count[id] > 1 || f.find(id)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " (0x%016llx)", static_cast<unsigned long long>(guid));
      id += buf;
    }
    int nports = n->node_info.num_ports;
    if (nports < 1) nports = 1;
    const int idx = f.add_node(t, id, nports, guid);
    f.node(idx).desc = node_label(n);
    for (int p = 1; p <= nports && static_cast<uint32_t>(p) < n->physp_tbl_size; p++) {
      osm_physp_t* pp = osm_node_get_physp_ptr(n, static_cast<uint32_t>(p));
      if (pp) f.node(idx).port(p).guid = cl_ntoh64(osm_physp_get_port_guid(pp));
    }
    index[n] = idx;
  }
  for (const auto& [n, idx] : index) {
    osm_node_t* node = const_cast<osm_node_t*>(n);
    const int nports = f.node(idx).num_ports;
    for (int p = 1; p <= nports && static_cast<uint32_t>(p) < node->physp_tbl_size; p++) {
      osm_physp_t* pp = osm_node_get_physp_ptr(node, static_cast<uint32_t>(p));
      if (!pp) continue;
      osm_physp_t* rp = osm_physp_get_remote(pp);
      if (!rp || !osm_physp_is_valid(rp)) continue;
      if (osm_physp_get_port_state(pp) == IB_LINK_DOWN) continue;
      auto r = index.find(osm_physp_get_node_ptr(rp));
      if (r == index.end()) continue;
      const int rport = osm_physp_get_port_num(rp);
      if (rport < 1 || rport > f.node(r->second).num_ports) continue;
      if (osm_physp_get_remote(rp) != pp) continue;  // one-sided: not a working link
      f.connect(idx, p, r->second, rport);
    }
  }
  struct LidSet {
    int node, port;
    uint16_t lo;
    uint8_t lmc;
  };
  std::vector<LidSet> lids;
  for (cl_map_item_t* it = cl_qmap_head(&subn->port_guid_tbl); it != cl_qmap_end(&subn->port_guid_tbl);
       it = cl_qmap_next(it)) {
    osm_port_t* port = reinterpret_cast<osm_port_t*>(it);
    auto r = index.find(port->p_node);
    if (r == index.end() || !port->p_physp) continue;
    uint16_t lo = 0, hi = 0;
    osm_port_get_lid_range_ho(port, &lo, &hi);
    if (!lo || hi < lo) continue;
    uint8_t lmc = 0;
    while ((1u << lmc) < static_cast<unsigned>(hi - lo + 1) && lmc < 7) lmc++;
    const int pnum = f.node(r->second).is_switch() ? 0 : osm_physp_get_port_num(port->p_physp);
    if (pnum > f.node(r->second).num_ports) continue;
    lids.push_back({r->second, pnum, lo, lmc});
  }
  // Fabric::set_lid re-indexes all LIDs on every call; set the fields directly and let the last
  // set_lid build the index once (it also applies set_lid's own checks to that port).
  for (size_t i = 0; i + 1 < lids.size(); i++) {
    ftroute::Port& p = f.node(lids[i].node).port(lids[i].port);
    p.base_lid = lids[i].lo;
    p.lmc = lids[i].lmc;
  }
  if (!lids.empty()) f.set_lid(lids.back().node, lids.back().port, lids.back().lo, lids.back().lmc);
  // OpenSM leaves ports without a LID when the unicast LID space runs out (ERR 0307): refuse the
  // fabric with the count and the limit rather than route part of it.
  {
    long need = 0, missing = 0;
    const long block = 1L << (subn->opt.lmc & 7);
    for (int i = 0; i < f.size(); i++) {
      const ftroute::Node& n = f.node(i);
      if (n.is_switch()) {
        need += subn->opt.lmc_esp0 ? block : 1;
        missing += n.port(0).base_lid == 0;
        continue;
      }
      for (int p = 1; p <= n.num_ports; p++)
        if (n.port(p).connected()) {
          need += block;
          missing += n.port(p).base_lid == 0;
        }
    }
    if (missing > 0 && need > ftroute::kMaxUnicastLid)
      throw ftroute::FabricError("the fabric needs " + std::to_string(need) + " unicast LIDs (LMC " +
                                 std::to_string(subn->opt.lmc) + "), more than the 49151 unicast LIDs InfiniBand has; " +
                                 std::to_string(missing) + " end ports got no LID from OpenSM");
  }
  f.validate();
  return f;
}

// ---- Routing -> new_lft ----------------------------------------------------------------------
struct ApplyStats {
  long entries = 0;
  long hop_fixes = 0;
  double lft_ms = 0;  // pass 2: new_lft + osm_switch_count_path
  double hop_ms = 0;  // pass 3: hop rows of switch LIDs
};

// Data VLs a port offers (PortInfo:VLCap 1..5 -> 1, 2, 4, 8, 15).
int data_vls(osm_physp_t* pp) {
  const int cap = ib_port_info_get_vl_cap(&pp->port_info);
  return cap <= 0 ? 1 : cap >= 5 ? 15 : 1 << (cap - 1);
}

// A multi-VL routing must fit every working port's VL capability.
void check_vls(const fp::Snapshot& s, const std::unordered_map<const osm_node_t*, int>& index, const std::string& engine) {
  if (s.routing.num_vls <= 1) return;
  for (const auto& [n, idx] : index) {
    osm_node_t* node = const_cast<osm_node_t*>(n);
    for (int p = 1; p <= s.fabric.node(idx).num_ports && static_cast<uint32_t>(p) < node->physp_tbl_size; p++) {
      if (!s.fabric.node(idx).port(p).connected()) continue;
      osm_physp_t* pp = osm_node_get_physp_ptr(node, static_cast<uint32_t>(p));
      if (!pp) continue;
      if (data_vls(pp) < s.routing.num_vls)
        throw ftroute::EngineError(engine, "routing needs " + std::to_string(s.routing.num_vls) + " VLs but port " +
                                               s.fabric.port_name(idx, p) + " supports only " +
                                               std::to_string(data_vls(pp)) + " (PortInfo:VLCap)");
    }
  }
}

// Pass 1: check everything against OpenSM's tables; nothing is written if any check fails.
std::vector<Target> plan_lfts(osm_subn_t* subn, const fp::Snapshot& s,
                              const std::unordered_map<const osm_node_t*, int>& index, const std::string& engine) {
  std::vector<Target> targets;
  for (cl_map_item_t* it = cl_qmap_head(&subn->sw_guid_tbl); it != cl_qmap_end(&subn->sw_guid_tbl); it = cl_qmap_next(it)) {
    osm_switch_t* sw = reinterpret_cast<osm_switch_t*>(it);
    auto r = index.find(sw->p_node);
    if (r == index.end() || !s.fabric.node(r->second).is_switch())
      throw ftroute::EngineError(engine, "switch " + node_label(sw->p_node) + " is missing from the adapted fabric");
    if (!sw->new_lft || sw->lft_size == 0)
      throw ftroute::EngineError(engine, "OpenSM has no LFT buffer for switch " + node_label(sw->p_node));
    const uint16_t top = static_cast<uint16_t>(std::min<unsigned>(sw->max_lid_ho, sw->lft_size - 1u));
    const auto& table = s.routing.lfts.table(r->second);
    for (size_t lid = static_cast<size_t>(top) + 1; lid < table.size(); lid++)
      if (table[lid] != ftroute::kNoPath)
        throw ftroute::EngineError(engine, "switch " + node_label(sw->p_node) + " routes LID " + std::to_string(lid) +
                                               " above OpenSM's max LID " + std::to_string(top));
    for (size_t lid = 1; lid <= top && lid < table.size(); lid++)
      if (table[lid] != ftroute::kNoPath && table[lid] >= sw->num_ports)
        throw ftroute::EngineError(engine, "switch " + node_label(sw->p_node) + " routes LID " + std::to_string(lid) +
                                               " to nonexistent port " + std::to_string(table[lid]));
    targets.push_back({sw, r->second, top});
  }
  return targets;
}

ApplyStats write_lfts(const fp::Snapshot& s, const std::vector<Target>& targets) {
  // Pass 2: write.
  ApplyStats st;
  const auto t0 = std::chrono::steady_clock::now();
  for (const Target& t : targets) {
    uint8_t* lft = t.sw->new_lft;
    std::memset(lft, OSM_NO_PATH, t.sw->lft_size);
    const std::vector<uint8_t>& table = s.routing.lfts.table(t.idx);
    const unsigned n = std::min<unsigned>(t.top, table.empty() ? 0u : static_cast<unsigned>(table.size() - 1));
    if (n >= 1) std::memcpy(lft + 1, table.data() + 1, n);  // kNoPath == OSM_NO_PATH (0xff)
    // osm_switch_count_path per routed entry: count per port first, add once per port
    uint32_t per_port[256] = {};
    for (unsigned lid = 1; lid <= n; lid++) per_port[lft[lid]]++;
    for (unsigned p = 0; p < 255; p++) {
      if (!per_port[p]) continue;
      st.entries += per_port[p];
      if (p == 0) continue;
      for (uint32_t k = 0; k < per_port[p]; k++) osm_switch_count_path(t.sw, static_cast<uint8_t>(p));
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  // Pass 3: hop matrix rows of switch LIDs follow the routes actually taken; every switch of a
  // LID at once (fp::switch_hops_to, the memoised RouteWalker), not one walk per (switch, LID).
  // The switch LIDs in increasing order (the walker reads the LFTs in blocks of 64 LIDs), in
  // groups of 64: the hops of a group first, then each switch's rows of the group's LIDs (a
  // switch's rows are its own allocations: switch-major, not one switch after another per LID).
  // Groups are shared out over the threads; a row is only ever written for its own LID, so two
  // threads never write one row.
  std::vector<unsigned> lids;
  for (const ftroute::EndPort& e : s.fabric.end_ports())
    if (s.fabric.node(e.node).is_switch())
      for (unsigned lid = e.base_lid; lid <= e.last_lid(); lid++) lids.push_back(lid);
  std::sort(lids.begin(), lids.end());
  constexpr size_t kGroup = 64;
  const size_t T = targets.size();
  const long groups = static_cast<long>((lids.size() + kGroup - 1) / kGroup);
  const int workers = ftroute::resolve_threads(0, groups);
  struct Worker {
    std::unique_ptr<ftroute::RouteWalker> walker;
    std::vector<int> hops;
    std::vector<uint8_t> group;  // group[k * T + ti]: hops of target ti to the group's k-th LID
    long fixes = 0;
  };
  std::vector<Worker> ws(static_cast<size_t>(workers));
  ftroute::parallel_for(workers, groups, 1, [&](int wi, long g) {
    Worker& w = ws[static_cast<size_t>(wi)];
    if (!w.walker) w.walker = std::make_unique<ftroute::RouteWalker>(s.fabric, s.routing.lfts);
    const size_t k0 = static_cast<size_t>(g) * kGroup, m = std::min(kGroup, lids.size() - k0);
    w.group.assign(m * T, 0xff);
    for (size_t k = 0; k < m; k++) {
      fp::switch_hops_to(*w.walker, s.fabric, static_cast<Lid>(lids[k0 + k]), w.hops);
      for (size_t ti = 0; ti < T; ti++) {
        const int h = w.hops[static_cast<size_t>(targets[ti].idx)];
        if (h >= 0 && h <= 0xfe) w.group[k * T + ti] = static_cast<uint8_t>(h);
      }
    }
    for (size_t ti = 0; ti < T; ti++) {
      const Target& t = targets[ti];
      for (size_t k = 0; k < m; k++) {
        const unsigned lid = lids[k0 + k];
        const uint8_t h = w.group[k * T + ti];
        if (lid > t.top || h == 0xff) continue;
        const uint8_t p = t.sw->new_lft[lid];
        if (p == OSM_NO_PATH) continue;
        if (osm_switch_get_hop_count(t.sw, static_cast<uint16_t>(lid), p) != h) {
          osm_switch_set_hops(t.sw, static_cast<uint16_t>(lid), p, h);
          w.fixes++;
        }
      }
    }
  });
  for (const Worker& w : ws) st.hop_fixes += w.fixes;
  const auto t2 = std::chrono::steady_clock::now();
  st.lft_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  st.hop_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  return st;
}

// ---- routing engine callbacks (state-manager thread, plock held) ------------------------------
// The hop matrix of switch LIDs (what osm_ucast_mgr_build_lid_matrices() computes, and what the
// SA, multicast and opensm-lid-matrix.dump read): for every switch x, every switch LID l(s) and
// every port p of x whose link leads to another switch y, hops = 1 + dist(y, s); 0 on port 0 of
// x for its own LID. OpenSM gets there by relaxing every switch's row against its neighbours'
// until nothing changes (switches x switch LIDs x ports per pass, a pass per hop of the
// diameter); one BFS per switch over the same links gives the same numbers in one pass. The links
// are OpenSM's (physp remote pointers, self-links skipped), not the plugin's fabric model, so the
// rows equal OpenSM's. Every hop weighs 1 (OpenSM's default hop_wf, set here as OpenSM does);
// with a hop_weights_file (weighted hops) OpenSM's own builder runs instead.
int own_lid_matrices(PluginCtx* c) {
  osm_subn_t* subn = &c->osm->subn;
  std::vector<osm_switch_t*> sws;
  std::unordered_map<const osm_node_t*, int> pos;
  for (cl_map_item_t* it = cl_qmap_head(&subn->sw_guid_tbl); it != cl_qmap_end(&subn->sw_guid_tbl); it = cl_qmap_next(it)) {
    osm_switch_t* sw = reinterpret_cast<osm_switch_t*>(it);
    pos[sw->p_node] = static_cast<int>(sws.size());
    sws.push_back(sw);
  }
  const size_t S = sws.size();
  std::vector<std::vector<std::pair<uint8_t, int>>> adj(S);  // (port, neighbour switch)
  std::vector<uint16_t> lid(S);
  for (size_t i = 0; i < S; i++) {
    osm_node_t* n = sws[i]->p_node;
    lid[i] = cl_ntoh16(osm_node_get_base_lid(n, 0));
    for (uint8_t p = 1; p < sws[i]->num_ports; p++) {
      osm_physp_t* pp = osm_node_get_physp_ptr(n, p);
      if (!pp) continue;
      pp->hop_wf = 1;  // what OpenSM's builder sets without a hop_weights_file
      if (!pp->p_remote_physp) continue;
      osm_node_t* rn = pp->p_remote_physp->p_node;
      if (!rn || !rn->sw || rn == n) continue;
      auto r = pos.find(rn);
      if (r != pos.end()) adj[i].emplace_back(p, r->second);
    }
  }
  // dt[y * S + s] = BFS distance from switch s to switch y (kFar: unreachable); stored by target
  // so the switch-major pass below reads the rows of x's neighbours sequentially.
  std::vector<std::vector<int>> nb(S);
  for (size_t i = 0; i < S; i++)
    for (const auto& [p, v] : adj[i]) nb[i].push_back(v);
  const std::vector<uint16_t> dt = fp::switch_distance_matrix(nb, 0);
  constexpr uint16_t kFar = fp::kFarSwitch;
  // Switch-major: x's hop row of every switch LID, written as osm_switch_set_hops(x, lid, p, h)
  // would (a row is malloc'd and set to OSM_NO_PATH on first use, entry p = h, entry 0 = the
  // minimum), without a call into OpenSM per entry (94M calls at radix 36). Each switch's rows
  // are its own, so the switches are shared out over the threads.
  // A row osm_switch_set_hops could not write (a switch LID above a switch's max_lid_ho or
  // num_hops) fails the whole build before anything is written. The switches' rows are looked at
  // only where some switch LID lies beyond such a bound (OpenSM sizes every switch alike).
  const uint16_t top_lid = lid.empty() ? 0 : *std::max_element(lid.begin(), lid.end());
  for (size_t x = 0; x < S; x++) {
    if (top_lid <= sws[x]->max_lid_ho && top_lid < sws[x]->num_hops) continue;
    for (size_t s = 0; s < S; s++)
      if (lid[s] && dt[x * S + s] != kFar && (lid[s] > sws[x]->max_lid_ho || lid[s] >= sws[x]->num_hops))
        return -1;
  }
  ftroute::parallel_for(ftroute::resolve_threads(0, static_cast<long>(S)), static_cast<long>(S), 16, [&](int, long xi) {
    const size_t x = static_cast<size_t>(xi);
    osm_switch_t* sw = sws[x];
    const uint16_t* dx = &dt[x * S];
    for (size_t s = 0; s < S; s++) {
      if (!lid[s] || dx[s] == kFar) continue;
      const uint16_t l = lid[s];
      uint8_t* row = sw->hops[l];
      auto set = [&](uint8_t port, uint8_t h) {
        if (!row) {
          row = static_cast<uint8_t*>(std::malloc(sw->num_ports));
          if (!row) throw std::bad_alloc();
          std::memset(row, OSM_NO_PATH, sw->num_ports);
          sw->hops[l] = row;
        }
        row[port] = h;
        if (row[0] > h) row[0] = h;
      };
      if (x == s) set(0, 0);
      for (const auto& [p, y] : adj[x]) {
        const uint16_t d = dt[static_cast<size_t>(y) * S + s];
        if (d == kFar || d + 1 > 0xfe) continue;
        set(p, static_cast<uint8_t>(d + 1));
      }
    }
  });
  return 0;
}

int cb_build_lid_matrices(void* context) {
  auto* e = static_cast<EngineCtx*>(context);
  PluginCtx* c = e->plugin;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const char* wf = c->osm->subn.opt.hop_weights_file;
    int rc = 1;
    if (!c->opts.opensm_lid_matrices && !(wf && *wf)) rc = own_lid_matrices(c);
    const char* how = "own BFS";
    if (rc > 0) {  // asked for, or weighted hops: OpenSM's builder
      how = "OpenSM's osm_ucast_mgr_build_lid_matrices";
      rc = osm_ucast_mgr_build_lid_matrices(&c->osm->sm.ucast_mgr);
    }
    plog(c, OSM_LOG_INFO, "ftroute: engine '%s': switch LID hop matrices by %s in %.2f ms", e->slot->name().c_str(),
         how, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    return rc;
  } catch (...) {
    return -1;
  }
}

std::string fallback(PluginCtx* c, const std::string& engine) {
  const char* names = c->osm ? c->osm->subn.opt.routing_engine_names : nullptr;
  return fp::fallback_text(names ? names : "", engine);
}

int cb_ucast_build_fwd_tables(void* context) {
  auto* e = static_cast<EngineCtx*>(context);
  PluginCtx* c = e->plugin;
  const std::string& name = e->slot->name();
  try {
    const auto t0 = std::chrono::steady_clock::now();
    std::unordered_map<const osm_node_t*, int> index;
    Fabric f = fabric_from_subn(&c->osm->subn, index);
    const double adapt_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::vector<Target> targets;
    std::shared_ptr<const fp::Snapshot> snap = e->slot->run(std::move(f), [&](const fp::Snapshot& s) {
      check_vls(s, index, name);
      targets = plan_lfts(&c->osm->subn, s, index, name);
    });
    ApplyStats st = write_lfts(*snap, targets);
    {
      std::lock_guard<std::mutex> lk(e->mu);
      e->guid_index.clear();
      for (int i = 0; i < snap->fabric.size(); i++) e->guid_index[snap->fabric.node(i).guid] = i;
    }
    std::string line = fp::describe(name, *snap, c->counters);
    char extra[320];
    std::snprintf(extra, sizeof extra,
                  ", fabric adapted in %.2f ms (engine %.2f ms, verdict %.2f ms by the %s, LFTs written in %.2f ms, hop "
                  "rows in %.2f ms)",
                  adapt_ms, snap->engine_ms, snap->check_ms, snap->verdict.source.c_str(), st.lft_ms, st.hop_ms);
    line += extra;
    if (st.hop_fixes) line += ", " + std::to_string(st.hop_fixes) + " non-minimal hop entries set";
    plog(c, OSM_LOG_INFO, "%s", line.c_str());
    for (const auto& n : snap->routing.notes) {
      if (n.rfind(name + ":", 0) == 0)  // engines often prefix their notes with their name
        plog(c, OSM_LOG_INFO, "ftroute: %s", n.c_str());
      else
        plog(c, OSM_LOG_INFO, "ftroute: %s: %s", name.c_str(), n.c_str());
    }
    if (snap->routing.num_vls > 1 && !c->osm->subn.opt.qos)
      plog(c, OSM_LOG_ERROR,
           "ERR FT02: ftroute: engine '%s' needs %d VLs but QoS is off: SL-to-VL tables are not programmed "
           "(set 'qos TRUE' in opensm.conf); traffic may deadlock",
           name.c_str(), snap->routing.num_vls);
    if (snap->routing.transition) stage_transition(c, e, *snap, targets);
    return 0;
  } catch (const std::bad_alloc&) {
    plog(c, OSM_LOG_ERROR, "ERR FT01: ftroute: engine '%s' failed: out of memory; %s", name.c_str(), fallback(c, name).c_str());
  } catch (const std::exception& ex) {
    plog(c, OSM_LOG_ERROR, "ERR FT01: ftroute: engine '%s' failed: %s; %s", name.c_str(), ex.what(),
         fallback(c, name).c_str());
  } catch (...) {
    plog(c, OSM_LOG_ERROR, "ERR FT01: ftroute: engine '%s' failed: unknown exception; %s", name.c_str(),
         fallback(c, name).c_str());
  }
  return -1;
}

uint8_t cb_path_sl(void* context, uint8_t hint, const ib_net16_t slid, const ib_net16_t dlid) {
  auto* e = static_cast<EngineCtx*>(context);
  try {
    return e->slot->path_sl(hint, cl_ntoh16(slid), cl_ntoh16(dlid));
  } catch (...) {
    return hint;
  }
}

// Called only with `qos TRUE`: fills the SL2VL table of (port's node, in_port -> out_port) from
// Routing::sl2vl. Engines that set no SL2VL leave OpenSM's QoS tables untouched.
void cb_update_sl2vl(void* context, osm_physp_t* port, uint8_t in_port, uint8_t out_port, ib_slvl_table_t* t) {
  auto* e = static_cast<EngineCtx*>(context);
  try {
    auto snap = e->slot->last();
    if (!snap || !port || !t) return;
    const ftroute::Routing& r = snap->routing;
    if (r.num_vls <= 1 && r.sl2vl.empty()) return;  // single-VL engine: OpenSM's QoS tables stay
    osm_node_t* n = osm_physp_get_node_ptr(port);
    int idx;
    {
      std::lock_guard<std::mutex> lk(e->mu);
      auto it = e->guid_index.find(cl_ntoh64(osm_node_get_node_guid(n)));
      if (it == e->guid_index.end()) return;
      idx = it->second;
    }
    // An explicit table for (node, in, out) sets all 16 SLs. Otherwise Routing's default applies
    // (SL s -> VL s) for the SLs the engine uses (s < num_vls); higher SLs keep OpenSM's value,
    // so no SL is ever mapped to a VL the port lacks (or to VL15).
    const bool explicit_table = r.sl2vl.raw().count(ftroute::Sl2Vl::key(idx, in_port, out_port)) != 0;
    for (int sl = 0; sl < 16; sl++) {
      if (!explicit_table && sl >= r.num_vls) continue;
      const uint8_t vl = r.sl2vl.vl(idx, in_port, out_port, sl);
      ib_slvl_table_set(t, static_cast<uint8_t>(sl), static_cast<uint8_t>(vl & 0x0f));
    }
  } catch (...) {
  }
}

void cb_destroy(void* context) {
  auto* e = static_cast<EngineCtx*>(context);
  plog(e->plugin, OSM_LOG_VERBOSE, "ftroute: engine '%s' destroyed after %llu runs (%llu failed)",
       e->slot->name().c_str(), static_cast<unsigned long long>(e->slot->runs()),
       static_cast<unsigned long long>(e->slot->failures()));
}

int cb_setup(osm_routing_engine* re, osm_opensm* osm) {
  re->build_lid_matrices = cb_build_lid_matrices;
  re->ucast_build_fwd_tables = cb_ucast_build_fwd_tables;
  re->path_sl = cb_path_sl;
  re->update_sl2vl = cb_update_sl2vl;
  re->destroy = cb_destroy;
  return 0;
}

// ---- event plugin interface ------------------------------------------------------------------
// The OpenSM version the plugin claims in osm_event_plugin (OpenSM's own check compares it with
// its version string): the headers' OSM_VERSION. FTROUTE_CLAIM_OSM_VERSION overrides it only in
// the test build that shows the layout check refusing a foreign OpenSM (tests/integration,
// plugin_layout_test.cpp): OpenSM's check then passes and ours has to refuse.
#ifdef FTROUTE_CLAIM_OSM_VERSION
constexpr const char* kClaimedVersion = FTROUTE_CLAIM_OSM_VERSION;
#else
constexpr const char* kClaimedVersion = OSM_VERSION;
#endif

// Struct layout check (adapter.hpp, LayoutFacts): reads only osm->osm_version and osm->subn's
// address (offsets every OpenSM shares) and words inside osm->sm near where the headers put
// sm.p_subn, and dereferences nothing at an offset it has not confirmed. On refusal the line goes
// to stderr and, when the running OpenSM's own sm.p_log was found, to its log.
void* ft_create(osm_opensm* osm) {
  if (!osm) return nullptr;
  fp::LayoutFacts lf;
  lf.built_for = OSM_VERSION;
  lf.running = osm->osm_version ? osm->osm_version : "";
  lf.subn_bytes = sizeof(osm_subn_t);
  const size_t off_subn = offsetof(osm_opensm_t, sm) + offsetof(osm_sm_t, p_subn);
  const size_t off_log = offsetof(osm_opensm_t, sm) + offsetof(osm_sm_t, p_log);
  lf.subn_shift = fp::find_pointer_word(osm, off_subn, 256, &osm->subn);
  osm_log_t* log = nullptr;  // the running OpenSM's log, once confirmed
  if (lf.subn_shift) {
    // osm_sm_t itself is the same in every OpenSM: p_log sits where ours is, shifted like p_subn
    void* w = nullptr;
    std::memcpy(&w, reinterpret_cast<const char*>(osm) + static_cast<long>(off_log) + *lf.subn_shift, sizeof w);
    const char* lo = reinterpret_cast<const char*>(osm);
    const char* hi = lo + sizeof(osm_opensm_t) + 4096;
    if (w >= static_cast<const void*>(lo) && w < static_cast<const void*>(hi)) log = static_cast<osm_log_t*>(w);
    lf.log_found = w == &osm->log;
  }
  if (lf.subn_shift && *lf.subn_shift == 0 && lf.log_found) {
    const char* epn = osm->subn.opt.event_plugin_name;
    lf.plugin_name_found = epn && std::strstr(epn, "ftroute");
  }
  const std::string refusal = fp::layout_refusal(lf);
  if (!refusal.empty()) {
    const std::string line = ftroute::escape_name("ERR FT00: " + refusal);
    std::fprintf(stderr, "%s\n", line.c_str());
    if (log) osm_log_v2(log, OSM_LOG_ERROR, FILE_ID, "%s\n", line.c_str());
    return nullptr;
  }
  PluginCtx* c = nullptr;
  try {
    c = new PluginCtx();
    c->osm = osm;
    const char* o = osm->subn.opt.event_plugin_options;
    c->opts = fp::PluginOptions::parse(o ? o : "", ftroute::engines());
    if (!c->opts.log_path.empty()) {
      std::string why;
      c->trace = fp::open_trace_file(c->opts.log_path, &why);
      if (!c->trace)
        plog(c, OSM_LOG_ERROR, "ERR FT03: ftroute: cannot open trace file '%s': %s", c->opts.log_path.c_str(), why.c_str());
    }
    plog(c, OSM_LOG_INFO, "%s", fp::layout_ok_text(lf).c_str());
    for (const auto& err : c->opts.errors) plog(c, OSM_LOG_ERROR, "ERR FT03: ftroute: event_plugin_options: %s", err.c_str());
    std::string names;
    for (const auto& info : ftroute::engines()) {
      auto e = std::make_unique<EngineCtx>();
      e->plugin = c;
      ftroute::EngineOptions eo = c->opts.for_engine(info.name);
      // ftree-misroute ranks from OpenSM's own root_guid_file / io_guid_file (opensm.conf, as
      // OpenSM's ftree does) unless event_plugin_options gives it its own.
      if (info.name == "ftree-misroute") {
        const char* rf = osm->subn.opt.root_guid_file;
        const char* io = osm->subn.opt.io_guid_file;
        if (rf && *rf && !eo.has("root_guid_file")) eo.set("root_guid_file", rf);
        if (io && *io && !eo.has("io_guid_file")) eo.set("io_guid_file", io);
      }
      e->slot = std::make_unique<fp::EngineSlot>(info.name, info.create(), eo);
      external_routing_engine_module_t mod;
      mod.name = e->slot->name().c_str();  // OpenSM strdup's it
      mod.setup = cb_setup;
      mod.context = nullptr;
      cl_status_t st = osm_register_external_routing_engine(osm, &mod, e.get());
      if (st != CL_SUCCESS) {
        plog(c, OSM_LOG_ERROR, "ERR FT04: ftroute: cannot register routing engine '%s' (%s)", info.name.c_str(),
             st == CL_DUPLICATE ? "name already taken" : "registration failed");
        continue;
      }
      names += (names.empty() ? "" : " ") + info.name;
      c->engines.push_back(std::move(e));
    }
    plog(c, OSM_LOG_INFO,
         "ftroute: plugin loaded, engines registered: %s (routing_engine '%s'), version %s, plugin built for %s",
         names.empty() ? "(none)" : names.c_str(),
         osm->subn.opt.routing_engine_names ? osm->subn.opt.routing_engine_names : "(default)",
         FTROUTE_VERSION_STRING, OSM_VERSION);
    return c;
  } catch (const std::exception& ex) {
    osm_log_v2(&osm->log, OSM_LOG_ERROR, FILE_ID, "ERR FT00: ftroute: plugin initialisation failed: %s\n", ex.what());
  }
  // Engines registered before the failure keep a pointer to their context, so keep it alive.
  return c;
}

void ft_delete(void* data) {
  auto* c = static_cast<PluginCtx*>(data);
  if (!c) return;
  plog(c, OSM_LOG_VERBOSE, "ftroute: unloading (heavy sweeps %llu, traps %llu, subnet up %llu)",
       static_cast<unsigned long long>(c->counters.heavy_sweeps.load()),
       static_cast<unsigned long long>(c->counters.traps.load()),
       static_cast<unsigned long long>(c->counters.subnet_up.load()));
  if (c->trace) std::fclose(c->trace);
  c->trace = nullptr;
  delete c;
}

void ft_report(void* data, osm_epi_event_id_t ev, void* ev_data) {
  auto* c = static_cast<PluginCtx*>(data);
  if (!c) return;
  switch (ev) {
    case OSM_EVENT_ID_HEAVY_SWEEP_START: c->counters.heavy_sweeps++; break;
    case OSM_EVENT_ID_TRAP: c->counters.traps++; break;
    case OSM_EVENT_ID_SUBNET_UP:
      c->counters.subnet_up++;
      if (!c->opts.path_sl_dump.empty()) dump_path_sls(c);
      break;
    case OSM_EVENT_ID_LFT_CHANGE: c->counters.lft_changes++; break;
    case OSM_EVENT_ID_UCAST_ROUTING_DONE: c->counters.routing_done++; break;
    default: break;
  }
}

}  // namespace

extern "C" {
__attribute__((visibility("default"))) osm_event_plugin_t osm_event_plugin = {kClaimedVersion, ft_create, ft_delete,
                                                                                ft_report};
}
