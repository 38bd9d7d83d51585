// The switch graph of a fabric: the switches only (CAs and routers do not forward), at dense
// positions 0..size()-1, with a flat port table and the switch-to-switch links of every switch,
// hop distances by BFS and connected components. The one switch-level graph of the engines and
// of mesh/torus recognition (minhop, ftdrb, grid.cpp, ...).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute {

class SwitchGraph {
 public:
  // Position order: Fabric = Fabric::switches() order (ascending node index); Guid = by GUID,
  // then id (a routing that must not depend on the order a fabric was discovered in: ftdrb).
  enum class Order : uint8_t { Fabric, Guid };
  struct Edge {
    uint8_t port;  // output port of the switch
    int32_t nbr;   // position of the switch it leads to
  };

  SwitchGraph() = default;
  explicit SwitchGraph(const Fabric& f, Order order = Order::Fabric);

  int size() const { return static_cast<int>(node_.size()); }
  int node(int pos) const { return node_[static_cast<size_t>(pos)]; }
  const std::vector<int>& nodes() const { return node_; }  // position -> node index
  int pos(int node) const { return pos_[static_cast<size_t>(node)]; }  // -1: not a switch
  const std::vector<int>& positions() const { return pos_; }  // node index -> position or -1

  // The links to other switches, in port order (one per port: parallel links each; a link of a
  // switch to itself is left out).
  std::span<const Edge> edges(int pos) const {
    return {edges_.data() + edge_off_[static_cast<size_t>(pos)], edges_.data() + edge_off_[static_cast<size_t>(pos) + 1]};
  }
  // Flat port table: slot port_base(pos) + p for p = 0..num_ports(pos) (a dense id per switch
  // port, port 0 included); peer(pos, p) is the position of the switch behind port p, -1 for port
  // 0, a port without link, a CA/router, or a link of the switch to itself.
  int port_base(int pos) const { return port_base_[static_cast<size_t>(pos)]; }
  int num_ports(int pos) const { return port_base_[static_cast<size_t>(pos) + 1] - port_base_[static_cast<size_t>(pos)] - 1; }
  int num_port_slots() const { return port_base_.empty() ? 0 : port_base_.back(); }
  int peer(int pos, int port) const { return peer_[static_cast<size_t>(port_base(pos) + port)]; }

  // Hop distances from switch position src: dist[pos] (-1: not reached). `queue` is scratch
  // (reused between calls: no allocation once both have grown). allow(u, edge) filters the links
  // (a subset, live links only, ...); the unfiltered form takes every link. The span form starts
  // from several switches at once (distance to the nearest; duplicates allowed).
  template <class Allow>
  void bfs(std::span<const int> srcs, std::vector<int>& dist, std::vector<int>& queue, Allow&& allow) const;
  template <class Allow>
  void bfs(int src, std::vector<int>& dist, std::vector<int>& queue, Allow&& allow) const {
    bfs(std::span<const int>(&src, 1), dist, queue, std::forward<Allow>(allow));
  }
  void bfs(int src, std::vector<int>& dist, std::vector<int>& queue) const {
    bfs(src, dist, queue, [](int, const Edge&) { return true; });
  }
  std::vector<int> bfs(int src) const {
    std::vector<int> d, q;
    bfs(src, d, q);
    return d;
  }

  // Connected components: comp[pos] = component id, numbered in order of their lowest position;
  // returns the number of components (0 without switches).
  int components(std::vector<int>& comp) const;

 private:
  std::vector<int> node_, pos_;
  std::vector<uint32_t> edge_off_;
  std::vector<Edge> edges_;
  std::vector<int> port_base_, peer_;
};

template <class Allow>
void SwitchGraph::bfs(std::span<const int> srcs, std::vector<int>& dist, std::vector<int>& queue, Allow&& allow) const {
  dist.assign(node_.size(), -1);
  queue.resize(node_.size());
  size_t head = 0, tail = 0;
  for (const int src : srcs)
    if (dist[static_cast<size_t>(src)] < 0) dist[static_cast<size_t>(src)] = 0, queue[tail++] = src;
  while (head < tail) {
    const int u = queue[head++];
    const int du = dist[static_cast<size_t>(u)] + 1;
    for (const Edge& e : edges(u)) {
      if (dist[static_cast<size_t>(e.nbr)] >= 0 || !allow(u, e)) continue;
      dist[static_cast<size_t>(e.nbr)] = du;
      queue[tail++] = e.nbr;
    }
  }
}

}  // namespace ftroute
