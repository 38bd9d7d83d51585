// DQR layer moves (layers=all): flows that cannot be repaired in their own virtual layers move
// to another one.
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

// Layer move (Layers::All), tried when d cannot be repaired in the layers its traffic uses.
// The flows that reach a broken entry (sources upstream of the near ends) all move to one
// other layer l among the VLs the routing already uses, with the first SL whose SL2VL gives l:
//  1. the dependencies of their unchanged old prefixes on l (source -> ... -> near end) are
//     enabled in the channel list (jointly; a layer where that closes a cycle is skipped);
//  2. the traffic marks are recomputed with the new SLs and d is repaired again as usual (its
//     new paths are checked on l). If that fails too, the next layer is tried.
// Dependencies enabled for a layer that was then given up stay in the list (they were legal;
// they only constrain later repairs). One VL per path is kept (a hop whose SL2VL would change
// the VL excludes the layer), and the number of VLs does not grow.
bool Reconfigurer::move_layers(Dest& D, const std::vector<int>& todo, const std::vector<int>& affected, std::string& why) {
  const std::string first_why = why;
  // switches upstream of the near ends (the affected set may hold only the near ends)
  std::vector<uint8_t> up(static_cast<size_t>(before_.size()), 0);
  std::vector<int> queue;
  rollback(D);
  for (auto [s, p] : dead_ports_)
    if (cur(s) == p && !up[static_cast<size_t>(s)]) up[static_cast<size_t>(s)] = 1, queue.push_back(s);
  for (size_t i = 0; i < queue.size(); i++)
    for (auto [u, pu] : sw_in(queue[i]))
      if (!up[static_cast<size_t>(u)] && cur(u) == pu) up[static_cast<size_t>(u)] = 1, queue.push_back(u);
  const int layers = std::max(1, std::min(r_.num_vls, kNumVlSlots));
  for (int l = 0; l < layers; l++) {
    // the flows to move and their SL on layer l
    std::vector<std::pair<const Source*, uint8_t>> mv;
    bool usable = true;
    for (const Source& s : sources_) {
      if (s.node == D.owner || !up[static_cast<size_t>(s.sw)]) continue;
      if (!s.port) { usable = false; break; }  // switch-sourced flows are not moved
      if (r_.sl2vl.vl(s.node, 0, s.port, sl_of(s, D.d)) == l) continue;
      int nsl = -1;
      for (int x = 0; x < 16 && nsl < 0; x++)
        if (r_.sl2vl.vl(s.node, 0, s.port, x) == l) nsl = x;
      if (nsl < 0) { usable = false; break; }
      mv.push_back({&s, static_cast<uint8_t>(nsl)});
    }
    if (!usable || mv.empty()) continue;
    // 1. the unchanged prefixes on l
    std::vector<Dep> deps;
    for (auto [s, nsl] : mv) {
      Id c = ch(s->node, s->port, l);
      int y = s->sw;
      uint8_t in_port = s->in_port;
      for (int hops = 0; usable && hops <= before_.size(); hops++) {
        const uint8_t q = cur(y);
        if (q == kNoPath || q == 0 || q > nports(y)) break;
        if (r_.sl2vl.vl(y, in_port, q, nsl) != l) usable = false;
        const Id nc = ch(y, q, l);
        if (std::find(deps.begin(), deps.end(), Dep{c, nc}) == deps.end()) deps.push_back({c, nc});
        if (y == D.t || dead(y, q)) break;  // delivered, or the near end: the repair goes on from here
        const int nx = old_next_switch(y, q);
        if (nx < 0) break;
        in_port = before_.node(y).port(q).peer_port;
        c = nc;
        y = nx;
      }
    }
    if (!usable || !list_.enable_all(deps)) continue;
    // 2. repair again with the moved flows on l
    for (auto [s, nsl] : mv) sl_over_[(static_cast<uint64_t>(s->lid) << 16) | D.d] = nsl;
    mark_traffic(D);
    if (++ain_g_ == 0) std::fill(ain_gen_.begin(), ain_gen_.end(), 0), ain_g_ = 1;
    std::string w2;
    if (attempt(D, todo, affected, w2)) return true;
    for (auto [s, nsl] : mv) sl_over_.erase((static_cast<uint64_t>(s->lid) << 16) | D.d);
    rollback(D);
    mark_traffic(D);
  }
  why = first_why + " (in its own layers; no other layer helped)";
  return false;
}

}  // namespace ftroute::dqr_detail
