// Internal to libftroute.so (not installed): what osm_plugin.cpp (OpenSM callbacks, fabric import,
// LFT hand-over) shares with osm_stage.cpp (DQR's staged transition on the wire) and osm_pathsl.cpp
// (the SA's path SLs to a file).
//
// It names OpenSM types but includes no OpenSM header itself: include it last, after the OpenSM
// block of the including file, which follows the order of osm_plugin.cpp (osm_config.h first,
// `delete` renamed around osm_event_plugin.h; docs/INSTALL.md, "header traps").
#pragma once

#ifndef _OSM_CONFIG_H_
#error "osm_plugin.hpp: include <opensm/osm_config.h> first, then the OpenSM headers (see osm_plugin.cpp)"
#endif
#ifndef _OSM_OPENSM_H_
#error "osm_plugin.hpp: include the OpenSM headers before it (see osm_plugin.cpp)"
#endif

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "adapter.hpp"

namespace ftroute::plugin::osm_side {

namespace fp = ftroute::plugin;

struct PluginCtx;

struct EngineCtx {
  PluginCtx* plugin = nullptr;
  std::unique_ptr<fp::EngineSlot> slot;
  std::mutex mu;                                   // guards guid_index
  std::unordered_map<uint64_t, int> guid_index;    // node GUID -> node index of the last snapshot
};

struct PluginCtx {
  osm_opensm_t* osm = nullptr;
  fp::PluginOptions opts;
  std::vector<std::unique_ptr<EngineCtx>> engines;
  fp::EventCounters counters;
  std::mutex trace_mu;
  FILE* trace = nullptr;
};

// One line to OpenSM's log (and the plugin's trace file), control characters escaped.
__attribute__((format(printf, 3, 4))) void plog(PluginCtx* c, osm_log_level_t level, const char* fmt, ...);

// The node description, or the node GUID when it has none.
std::string node_label(osm_node_t* n);

// A switch whose new_lft the plugin writes, with its node index in the snapshot's fabric.
struct Target {
  osm_switch_t* sw;
  int idx;
  uint16_t top;  // highest LID written
};

// DQR's staged transition (osm_stage.cpp): applies snap.routing.transition stage by stage on the
// wire after write_lfts() has filled new_lft; called from ucast_build_fwd_tables.
void stage_transition(PluginCtx* c, EngineCtx* e, const fp::Snapshot& snap, const std::vector<Target>& targets);

// The SA's path SLs to the file of the plugin option path_sl_dump (osm_pathsl.cpp); called when
// the subnet is up. Never throws: a failure is one ERR FT05 line and no file.
void dump_path_sls(PluginCtx* c);

}  // namespace ftroute::plugin::osm_side
