// The flitsim engine. See docs/flitsim.md for the model; comments here explain mechanics.
// The core (events, routing, allocation, credits, NAC) is Simulator::Impl in sim_impl.hpp.
#include "sim_impl.hpp"

namespace ftroute::flitsim {

Simulator::Simulator(const Fabric& fabric, const Routing& routing, const Config& cfg)
    : impl_(std::make_unique<Impl>(fabric, routing, cfg, this)) {}
Simulator::~Simulator() = default;
const std::vector<Endpoint>& Simulator::endpoints() const { return impl_->eps_pub; }
void Simulator::schedule_link(int64_t cycle, int node, int port, bool up) {
  if (node < 0 || node >= impl_->f.size()) throw FabricError("flitsim: link event on unknown node");
  const Node& n = impl_->f.node(node);
  if (port < 1 || port > n.num_ports || !n.port(port).connected())
    throw FabricError("flitsim: link event on " + impl_->f.port_name(node, port) + ", which is not linked");
  impl_->link_evs.push_back({cycle, node, port, up});
}
void Simulator::schedule_routing(int64_t cycle, const Routing* routing) {
  if (!routing) throw OptionError("flitsim: null routing");
  impl_->routing_evs.push_back({cycle, routing});
}

int64_t Simulator::cycle() const { return impl_->now; }
Result Simulator::run(const TrafficSpec& traffic) { return impl_->run(traffic); }

}  // namespace ftroute::flitsim
