#include "ftroute/route_walk.hpp"

namespace ftroute {

RouteWalker::Walk RouteWalker::walk(int s) {
  Walk w;
  ++walk_stamp_;
  path_.clear();
  for (;;) {
    const size_t i = static_cast<size_t>(s);
    if (known_[i] == lid_stamp_) {
      w.end = End::Joined;
      break;
    }
    if (onpath_[i] == walk_stamp_) {
      w.end = End::Loop;
      break;
    }
    onpath_[i] = walk_stamp_;
    path_.push_back(s);
    w.hop = follow(f_, lfts_, s, lid_, dst_node_, dst_port_);
    if (w.hop.kind == RouteHop::Forward) {
      s = w.hop.next;
      continue;
    }
    w.end = w.hop.kind == RouteHop::Delivered ? End::Delivered : End::Dropped;
    break;
  }
  w.sw = s;
  for (int x : path_) known_[static_cast<size_t>(x)] = lid_stamp_;
  return w;
}

}  // namespace ftroute
