#include "ftroute/route_walk.hpp"

#include <cstring>

namespace ftroute {

const char* drop_kind_text(DropKind k) {
  switch (k) {
    case DropKind::NoRoute: return "no route (LFT entry 255)";
    case DropKind::BadPort: return "LFT names a port the switch does not have";
    case DropKind::DownPort: return "LFT names a port with no link";
    case DropKind::NotLocal: return "LFT entry 0 (local) but the switch does not own the LID";
    case DropKind::WrongEndpoint: return "delivered to a node that does not own the LID";
    case DropKind::Loop: return "forwarding loop";
  }
  return "?";
}

RouteWalker::RouteWalker(const Fabric& f, const Lfts& lfts)
    : lfts_(lfts), known_(static_cast<size_t>(f.size()), 0), onpath_(static_cast<size_t>(f.size()), 0) {
  info_.assign(static_cast<size_t>(f.size()), NodeInfo{});
  for (int s : f.switches()) {
    const Node& nd = f.node(s);
    NodeInfo& ni = info_[static_cast<size_t>(s)];
    ni.pos = static_cast<int32_t>(sw_list_.size());
    ni.base = static_cast<uint32_t>(ports_.size());
    ni.nports = nd.num_ports;
    sw_list_.push_back(s);
    for (int p = 0; p <= nd.num_ports; p++) {
      PortInfo e;
      if (p > 0 && nd.port(p).peer_node >= 0) {
        e.peer_node = nd.port(p).peer_node;
        e.peer_port = static_cast<int16_t>(nd.port(p).peer_port);
        e.peer_sw = f.node(e.peer_node).is_switch();
      }
      ports_.push_back(e);
    }
  }
  blk_.assign(sw_list_.size() * kBlock, kNoPath);
}

void RouteWalker::load_block(long b) {
  blk_id_ = b;
  const size_t lo = static_cast<size_t>(b) * kBlock;
  for (size_t i = 0; i < sw_list_.size(); i++) {
    const int s = sw_list_[i];
    uint8_t* dst = &blk_[i * kBlock];
    size_t n = 0;
    if (s < lfts_.num_nodes()) {
      const std::vector<uint8_t>& tab = lfts_.table(s);
      n = tab.size() > lo ? std::min<size_t>(kBlock, tab.size() - lo) : 0;
      if (n) std::memcpy(dst, tab.data() + lo, n);
    }
    if (n < kBlock) std::memset(dst + n, kNoPath, kBlock - n);
  }
}

}  // namespace ftroute
