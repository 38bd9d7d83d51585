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

namespace ftroute::itest {

// Parses `ibnetdiscover` output with the .net reader (ftroute/netfile.hpp): node ids are
// "S-<guid>"/"H-<guid>", descs are the ibsim node ids, LIDs are OpenSM's.
Fabric fabric_from_ibnetdiscover(const std::string& text);

// Node index by ibsim node id: matches Node::id, then Node::desc (ibnetdiscover fabrics).
std::optional<int> find_node(const Fabric& f, const std::string& ibsim_id);

// dump_fts / ibroute text -> LFTs of `f` (switches matched by GUID). Throws ParseError
// ("<source>:<line>: ...") on malformed text or a switch GUID not in the fabric.
Lfts lfts_from_dump_fts(const Fabric& f, const std::string& text,
                        const std::string& source = "dump_fts");

// Minimal OpenSM "file" engine input (lfts_file): one "Unicast lids ... guid 0x..:" block
// per switch, "0x<lid> <port>" lines, trailing newline.
std::string lfts_file_text(const Fabric& f, const Lfts& lfts);

struct RoutingCheck {
  uint64_t pairs = 0, delivered = 0, dropped = 0, looping = 0;
  bool cdg_acyclic = true;
  std::string cycle;                  // one CDG cycle, formatted, if any
  std::vector<std::string> examples;  // unreachable / loop examples
  bool all_delivered() const { return pairs > 0 && delivered == pairs; }
  std::string summary() const;
};

// Walks every CA->CA and CA->switch pair through the LFTs and builds the CDG (channel_list).
RoutingCheck check_routing(const Fabric& f, const Lfts& lfts);

// Number of LFT entries of `node` (a switch) that forward to `port`.
int entries_using_port(const Lfts& lfts, int node, int port);

}  // namespace ftroute::itest
