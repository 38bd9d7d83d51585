// What the full .net parser (netfile.cpp) and its fast path (netfile_fast.cpp) must agree on,
// written once: ibsim's limits, the record type index, the width mask, and the ports a node
// record starts with. Private to fabric/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ftroute/fabric.hpp"

namespace ftroute::netfile_detail {

constexpr size_t kMaxIdLen = 64;     // ibsim NODEIDLEN - 1
constexpr size_t kMaxLineLen = 254;  // ibsim reads at most 255 bytes per line, '\n' included

enum TypeIdx { kCa = 0, kSw = 1, kRt = 2 };
inline TypeIdx idx_of(NodeType t) { return t == NodeType::Switch ? kSw : t == NodeType::Ca ? kCa : kRt; }

// ibsim's enabled-width mask (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x) -> the widest width in it.
inline int lanes_of_mask(unsigned mask) {
  if (mask & 8) return 12;
  if (mask & 4) return 8;
  if (mask & 2) return 4;
  if (mask & 16) return 2;
  return 1;
}

// Every port of a node just read: the file's default width, speed and extended speed, and its
// GUID (a switch's ports share the node GUID; a CA's port p is node GUID + p, port 0 has none).
inline void init_node_ports(Node& nd, bool is_switch, uint64_t guid, uint8_t width, uint8_t speed,
                            uint8_t speed_ext) {
  for (int p = 0; p <= nd.num_ports; p++) {
    Port& pt = nd.port(p);
    pt.width = width;
    pt.speed = speed;
    pt.speed_ext = speed_ext;
    pt.guid = is_switch ? guid : (p ? guid + static_cast<uint64_t>(p) : 0);
  }
}

// "0x" and the value in lower-case hex, for messages and the writer's GUID lines.
inline std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace ftroute::netfile_detail
