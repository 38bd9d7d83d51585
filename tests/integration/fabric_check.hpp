// Glue between the live simulator and the ftroute libraries, for integration tests:
// ibnetdiscover text -> Fabric (with the LIDs OpenSM assigned), dump_fts text -> Lfts,
// and the routing checks every integration test applies (reachability, loops, CDG cycles).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"
#include "ftroute/validate.hpp"

namespace ftroute::itest {

// Parses `ibnetdiscover` output with the .net reader (ftroute/netfile.hpp): node ids are
// "S-<guid>"/"H-<guid>", descs are the ibsim node ids, LIDs are OpenSM's.
Fabric fabric_from_ibnetdiscover(const std::string& text);

// Node index by ibsim node id: matches Node::id, then Node::desc (ibnetdiscover fabrics).
std::optional<int> find_node(const Fabric& f, const std::string& ibsim_id);

// dump_fts / ibroute text -> LFTs of `f`, with lft_export's reader (parse_lft + map_lfts:
// switches matched by GUID). Throws ParseError ("<source>:<line>: ...") on malformed text or a
// switch not in the fabric.
Lfts lfts_from_dump_fts(const Fabric& f, const std::string& text,
                        const std::string& source = "dump_fts");

// OpenSM "file" engine input (lfts_file), written by lft_export's writer in OpenSM's own
// opensm-lfts.dump format.
std::string lfts_file_text(const Fabric& f, const Lfts& lfts);

struct RoutingCheck {
  uint64_t pairs = 0, delivered = 0, dropped = 0, looping = 0;
  uint64_t bad_entries = 0;           // LFT entries naming a missing / unlinked port
  bool cdg_acyclic = true;
  std::string cycle;                  // one CDG cycle, formatted, if any
  std::vector<std::string> examples;  // unreachable / loop examples
  ValidationReport report;            // the full lft_export report
  bool all_delivered() const { return pairs > 0 && delivered == pairs; }
  bool ok() const { return all_delivered() && looping == 0 && bad_entries == 0 && cdg_acyclic; }
  std::string summary() const;
};

// lft_export's validate(): every CA->CA and CA->switch pair walked through the LFTs,
// unreachable pairs, forwarding loops, broken entries, CDG (channel_list) cycle search.
RoutingCheck check_routing(const Fabric& f, const Lfts& lfts);

class SimFabric;
// What OpenSM programmed into a running simulator: the fabric from ibnetdiscover (with OpenSM's
// LIDs), the LFTs read back with dump_fts, and check_routing() on them.
struct LiveRouting {
  Fabric fabric;
  Lfts lfts;
  RoutingCheck check;
};
LiveRouting read_live(SimFabric& sim);

// Number of LFT entries of `node` (a switch) that forward to `port`.
int entries_using_port(const Lfts& lfts, int node, int port);

}  // namespace ftroute::itest
