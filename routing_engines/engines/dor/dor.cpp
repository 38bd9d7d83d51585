#include "dor/dor.hpp"

#include <algorithm>

#include "ftroute/grid.hpp"

namespace ftroute {

Routing DorEngine::route(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  options.check_known(kName, option_keys());
  std::string why;
  auto grid = recognise_mesh(fabric, &why);
  if (!grid) throw EngineError(kName, "not a full 2-D/3-D mesh: " + why);
  std::string order = options.get("order", grid->ndims == 3 ? "xyz" : "xy");
  std::vector<int> dims;
  for (char ch : order) {
    int d = ch == 'x' ? 0 : ch == 'y' ? 1 : ch == 'z' ? 2 : -1;
    if (d < 0 || d >= grid->ndims || std::find(dims.begin(), dims.end(), d) != dims.end())
      throw OptionError("option order=" + order + " for engine 'ft-dor': expected a permutation of " +
                        std::string(grid->ndims == 3 ? "xyz" : "xy"));
    dims.push_back(d);
  }
  if (static_cast<int>(dims.size()) != grid->ndims)
    throw OptionError("option order=" + order + " for engine 'ft-dor': expected a permutation of " +
                      std::string(grid->ndims == 3 ? "xyz" : "xy"));

  Routing r;
  r.engine = kName;
  r.lfts = Lfts(fabric);
  r.num_vls = 1;
  for (const EndPort& ep : fabric.end_ports()) {
    Lid base = ep.base_lid;
    Attach at = fabric.attach(base);
    if (!at.valid()) continue;  // CA without a link: nothing to route
    if (!grid->is_grid_switch(at.sw)) continue;
    const auto& ct = grid->coord[static_cast<size_t>(at.sw)];
    for (int s : fabric.switches()) {
      uint8_t port;
      if (s == at.sw) {
        port = at.port;
      } else {
        const auto& cs = grid->coord[static_cast<size_t>(s)];
        port = kNoPath;
        for (int d : dims) {
          if (cs[static_cast<size_t>(d)] == ct[static_cast<size_t>(d)]) continue;
          port = grid->port[static_cast<size_t>(s)][static_cast<size_t>(2 * d + (ct[static_cast<size_t>(d)] > cs[static_cast<size_t>(d)] ? 0 : 1))];
          break;
        }
        if (port == 0 || port == kNoPath)
          throw EngineError(kName, "no dimension-order port on switch \"" + fabric.node(s).id + "\" towards LID " +
                                       std::to_string(base));
      }
      for (Lid l = base; l <= ep.last_lid(); l++) r.lfts.set(s, l, port);
    }
  }
  r.notes.push_back("dor: " + grid->describe() + ", dimension order " + order);
  return r;
}

}  // namespace ftroute
