// flitsim's endpoint numbering (endpoints_of). The routing check is the pipeline's verdict
// (ftroute/verdict.hpp).
#include "sim_impl.hpp"

namespace ftroute::flitsim {

std::vector<Endpoint> endpoints_of(const Fabric& f) {
  std::vector<Endpoint> r;
  for (int i = 0; i < f.size(); i++) {
    const Node& n = f.node(i);
    if (n.is_switch()) continue;
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& pp = n.port(p);
      if (pp.connected() && pp.base_lid) r.push_back({i, p, pp.base_lid, pp.lmc});
    }
  }
  return r;
}

}  // namespace ftroute::flitsim
