#include "dor/dor.hpp"

#include <algorithm>
#include <memory>

namespace ftroute {

std::vector<OptionSpec> DorEngine::option_specs() const {
  return {
      OptionSpec::text("order", "", "dimension order, a permutation of x, y[, z] (default: xy, xyz in 3-D)"),
      OptionSpec::integer("max_vls", 1, 15, "8", "VLs a torus may use (2^dims layers needed); more needed => refused"),
  };
}

int torus_direction(const MeshGrid& grid, int d, int from, int to) {
  if (from == to) return 0;
  const int n = grid.size[static_cast<size_t>(d)];
  if (!grid.torus) return to > from ? 1 : -1;
  const int plus = ((to - from) % n + n) % n;  // hops going +
  return plus <= n - plus ? 1 : -1;             // tie (plus == n/2) -> + (dor.hpp)
}

int torus_layer(const MeshGrid& grid, const std::array<int, 3>& a, const std::array<int, 3>& b) {
  if (!grid.torus) return 0;
  int layer = 0;
  for (int d = 0; d < grid.ndims; d++) {
    const int x = a[static_cast<size_t>(d)], y = b[static_cast<size_t>(d)];
    const int dir = torus_direction(grid, d, x, y);
    // going + from x reaches y without wrapping iff y > x; going - iff y < x
    if ((dir > 0 && y < x) || (dir < 0 && y > x)) layer |= 1 << d;
  }
  return layer;
}

Routing DorEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  const long max_vls = options.get_int(option_spec("max_vls"));
  std::string why;
  auto grid = recognise_grid(fabric, &why);
  if (!grid) throw EngineError(kName, "not a full 2-D/3-D mesh or torus: " + why);
  std::string order = options.has("order") ? options.get("order", "") : grid->ndims == 3 ? "xyz" : "xy";
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
  const int layers = grid->torus ? 1 << grid->ndims : 1;
  if (layers > max_vls)
    throw EngineError(kName, "the " + grid->describe() + " needs " + std::to_string(layers) +
                                 " virtual layers (one per set of dateline-crossing dimensions), max_vls=" +
                                 std::to_string(max_vls) + " allows " + std::to_string(max_vls));

  Routing r;
  r.engine = kName;
  r.lfts = Lfts(fabric);
  r.num_vls = layers;
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
          const int dir = torus_direction(*grid, d, cs[static_cast<size_t>(d)], ct[static_cast<size_t>(d)]);
          if (dir == 0) continue;
          port = grid->port[static_cast<size_t>(s)][static_cast<size_t>(2 * d + (dir > 0 ? 0 : 1))];
          break;
        }
        if (port == 0 || port == kNoPath)
          throw EngineError(kName, "no dimension-order port on switch " + fabric.node_name(s) + " towards LID " +
                                       std::to_string(base));
      }
      for (Lid l = base; l <= ep.last_lid(); l++) r.lfts.set(s, l, port);
    }
  }
  std::string note = "dor: " + grid->describe() + ", dimension order " + order;
  if (grid->torus) {
    // path_sl: layer of (switch of slid, switch of dlid); identity SL2VL (sl2vl left empty).
    struct Tab {
      MeshGrid grid;                 // sizes + torus flag (coords by linear index below)
      std::vector<int32_t> lid_lin;  // LID -> linear grid index of its switch, -1 = none
    };
    auto tab = std::make_shared<Tab>();
    tab->grid.ndims = grid->ndims;
    tab->grid.size = grid->size;
    tab->grid.torus = true;
    tab->lid_lin.assign(static_cast<size_t>(fabric.max_lid()) + 1, -1);
    for (const EndPort& ep : fabric.end_ports()) {
      const int sw = fabric.node(ep.node).is_switch() ? ep.node : fabric.attach(ep.base_lid).sw;
      if (!grid->is_grid_switch(sw)) continue;
      for (Lid l = ep.base_lid; l <= ep.last_lid(); l++)
        tab->lid_lin[l] = grid->linear(grid->coord[static_cast<size_t>(sw)]);
    }
    r.path_sl = [tab](Lid slid, Lid dlid) -> uint8_t {
      const auto& t = *tab;
      if (slid >= t.lid_lin.size() || dlid >= t.lid_lin.size() || t.lid_lin[slid] < 0 || t.lid_lin[dlid] < 0) return 0;
      auto coord = [&](int li) {
        const auto& sz = t.grid.size;
        return std::array<int, 3>{li % sz[0], (li / sz[0]) % sz[1], li / (sz[0] * sz[1])};
      };
      return static_cast<uint8_t>(torus_layer(t.grid, coord(t.lid_lin[slid]), coord(t.lid_lin[dlid])));
    };
    note += ", E-cube: " + std::to_string(layers) + " virtual layers (SL = VL = dateline crossings), ties towards +";
  }
  r.notes.push_back(note);
  return r;
}

}  // namespace ftroute
