// DQR mesh plug-in: the local detour around a failed mesh link (seed 004 §IV), applied before
// the generic repair.
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

std::set<std::pair<int, int>> Reconfigurer::apply_mesh_plugin(DqrResult& res) {
  std::set<std::pair<int, int>> detoured;
  std::string why;
  std::optional<MeshGrid> found;
  if (!o_.mesh) found = recognise_mesh(before_, &why);
  const MeshGrid* grid = o_.mesh ? o_.mesh.get() : (found ? &*found : nullptr);  // precomputed: fault-free topology
  if (!grid) {
    res.notes.push_back("mesh plug-in not applied: " + why);
    return detoured;
  }
  bool all_ok = true;
  std::set<std::pair<int, int>> done;
  for (auto [a, pa] : dead_ports_) {
    const Port& pb = before_.node(a).port(pa);
    int b = pb.peer_node;
    if (done.count({std::min(a, b), std::max(a, b)})) continue;
    done.insert({std::min(a, b), std::max(a, b)});
    const auto& ca = grid->coord[static_cast<size_t>(a)];
    const auto& cb = grid->coord[static_cast<size_t>(b)];
    int k = 0;
    while (k < 3 && ca[static_cast<size_t>(k)] == cb[static_cast<size_t>(k)]) k++;
    int j = -1;
    for (int dd = 0; dd < grid->ndims; dd++)
      if (dd != k && grid->size[static_cast<size_t>(dd)] > 1) {
        j = dd;
        break;
      }
    if (j < 0) { all_ok = false; continue; }
    double centre = (grid->size[static_cast<size_t>(j)] - 1) / 2.0;
    int dir = ca[static_cast<size_t>(j)] < centre ? 1 : ca[static_cast<size_t>(j)] > centre ? -1 : 1;
    auto shifted = [&](std::array<int, 3> c) {
      c[static_cast<size_t>(j)] += dir;
      return c;
    };
    auto a2c = shifted(ca), b2c = shifted(cb);
    if (a2c[static_cast<size_t>(j)] < 0 || a2c[static_cast<size_t>(j)] >= grid->size[static_cast<size_t>(j)]) { all_ok = false; continue; }
    int a2 = grid->node(a2c), b2 = grid->node(b2c);
    auto port_between = [&](int x, int y) -> int {
      const Node& n = after_.node(x);
      for (int p = 1; p <= n.num_ports; p++)
        if (n.port(p).connected() && n.port(p).peer_node == y) return p;
      return 0;
    };
    int p_aa2 = port_between(a, a2), p_a2b2 = port_between(a2, b2), p_b2b = port_between(b2, b);
    int p_bb2 = port_between(b, b2), p_b2a2 = port_between(b2, a2), p_a2a = port_between(a2, a);
    if (!p_aa2 || !p_a2b2 || !p_b2b || !p_bb2 || !p_b2a2 || !p_a2a) { all_ok = false; continue; }
    // both directions of the failed link: X = (from, port) replaced by from->f2->t2->to
    // Traffic that reached `from` coming from f2, or leaves `to` towards t2, would make a
    // U-turn on the detour; it takes the shortcut f2 -> t2 instead, so those turns are not
    // enabled (enabling them would close a cycle with the other direction's detour).
    struct Dir { int from, port, f2, pf, t2, pm, to, pt, back_in, back_out; };
    Dir dirs[2] = {{a, pa, a2, p_aa2, b2, p_a2b2, b, p_b2b, p_a2a, p_bb2},
                   {b, pb.peer_port, b2, p_bb2, a2, p_b2a2, a, p_a2a, p_b2b, p_aa2}};
    for (const Dir& x : dirs) {
      for (int vl = 0; vl < kNumVlSlots; vl++) {
        Id X = ch(x.from, x.port, vl);
        if (!list_.contains(X)) continue;
        Id c1 = ch(x.from, x.pf, vl), c2 = ch(x.f2, x.pm, vl), c3 = ch(x.t2, x.pt, vl);
        const int uturn_in = link(x.f2, x.back_in), uturn_out = link(x.to, x.back_out);
        std::vector<Dep> deps;
        for (Id c : list_.predecessors(X))
          if (static_cast<int>(c / kNumVlSlots) != uturn_in) deps.push_back({c, c1});
        deps.push_back({c1, c2});
        deps.push_back({c2, c3});
        for (Id c : list_.successors(X))
          if (static_cast<int>(c / kNumVlSlots) != uturn_out) deps.push_back({c3, c});
        if (!list_.enable_all(deps)) {
          all_ok = false;
          if (o_.tlr) local_reroute(x.from, static_cast<uint8_t>(x.port), vl);  // mesh-tlr: fall back
        }
      }
      detoured.insert({x.from, x.port});
    }
  }
  res.plugin_applied = all_ok;
  res.notes.push_back(std::string("mesh plug-in (detours towards the centre of the ") + grid->describe() + "): " +
                      (all_ok ? "all detour turns enabled" : "some detours could not be enabled"));
  return detoured;
}

}  // namespace ftroute::dqr_detail
