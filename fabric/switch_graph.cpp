#include "ftroute/switch_graph.hpp"

#include <algorithm>

namespace ftroute {

SwitchGraph::SwitchGraph(const Fabric& f, Order order) : node_(f.switches()), pos_(static_cast<size_t>(f.size()), -1) {
  if (order == Order::Guid)
    std::sort(node_.begin(), node_.end(), [&](int a, int b) {
      const Node &x = f.node(a), &y = f.node(b);
      return x.guid != y.guid ? x.guid < y.guid : x.id < y.id;
    });
  for (size_t i = 0; i < node_.size(); i++) pos_[static_cast<size_t>(node_[i])] = static_cast<int>(i);
  edge_off_.reserve(node_.size() + 1);
  port_base_.reserve(node_.size() + 1);
  edge_off_.push_back(0);
  port_base_.push_back(0);
  for (size_t i = 0; i < node_.size(); i++) {
    const Node& n = f.node(node_[i]);
    peer_.push_back(-1);  // port 0
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      const int q = x.connected() ? pos_[static_cast<size_t>(x.peer_node)] : -1;
      if (q >= 0 && q != static_cast<int>(i)) {
        edges_.push_back({static_cast<uint8_t>(p), q});
        peer_.push_back(q);
      } else {
        peer_.push_back(-1);
      }
    }
    edge_off_.push_back(static_cast<uint32_t>(edges_.size()));
    port_base_.push_back(static_cast<int>(peer_.size()));
  }
}

int SwitchGraph::components(std::vector<int>& comp) const {
  comp.assign(node_.size(), -1);
  std::vector<int> queue(node_.size());
  int n = 0;
  for (size_t s = 0; s < node_.size(); s++) {
    if (comp[s] >= 0) continue;
    size_t head = 0, tail = 0;
    queue[tail++] = static_cast<int>(s);
    comp[s] = n;
    while (head < tail)
      for (const Edge& e : edges(queue[head++]))
        if (comp[static_cast<size_t>(e.nbr)] < 0) comp[static_cast<size_t>(e.nbr)] = n, queue[tail++] = e.nbr;
    n++;
  }
  return n;
}

}  // namespace ftroute
