// DQR dependencies: the turns a candidate path adds to the channel list (its entry, its
// junction with a route that reaches d) and whether they go up in the list.
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

bool Reconfigurer::route_touches(const Dest& D, int y, const std::vector<int>& path) const {
  for (int hops = 0; hops <= after_.size(); hops++) {
    if (std::find(path.begin(), path.end(), y) != path.end()) return true;
    if (y == D.t) return false;
    uint8_t q = cur(y);
    y = after_.node(y).port(q).peer_node;
  }
  return true;
}

// Joining z's route (which reaches d) from channel c on layer vl: does every turn that
// junction_deps adds go up in the list? (Those already in the list do.)
bool Reconfigurer::joins_up(const Dest& D, Id c, int z, int vl) {
  join_deps_.clear();
  junction_deps(D, static_cast<int>(c / kNumVlSlots), static_cast<uint16_t>(1u << vl), z, join_deps_);
  return std::all_of(join_deps_.begin(), join_deps_.end(),
                     [&](const Dep& d) { return list_.pos(d.first) < list_.pos(d.second); });
}

void Reconfigurer::entry_deps(const Dest& D, int y, uint8_t q, int in_link, uint16_t in_lay, std::vector<Dep>& out) {
  // Traffic that reaches y from the very switch y now forwards to would U-turn; that switch
  // is downstream of y in the new routing, so it is updated in an earlier transition stage
  // and its old packets drain (packet lifetime) before y changes: no such dependency arises.
  const int next = after_.node(y).port(q).peer_node;
  if (ain_gen_[static_cast<size_t>(y)] != ain_g_) {
    active_in(D, y, ain_[static_cast<size_t>(y)]);
    ain_gen_[static_cast<size_t>(y)] = ain_g_;
  }
  // Single VL: once every CA attached to y has its dependency onto (y, q) in the list, that
  // stays true for the rest of the reconfiguration, so those are not looked up again.
  const size_t lq = static_cast<size_t>(link(y, q));
  const bool ca_known = single_vl_ && ca_deps_ok_[lq];
  bool ca_all = single_vl_ && !ca_known;
  size_t ca_seen = 0;
  for (Id c : ain_[static_cast<size_t>(y)]) {
    const int from = tables_->link_node[c / kNumVlSlots];
    if (from == next) continue;
    const bool is_ca = !after_.node(from).is_switch();
    if (is_ca && ca_known) continue;
    const Id to = ch(y, q, Cdg::vl_of(c));
    if (is_ca) ca_seen++;
    if (is_ca && ca_all && !list_.has_dep(c, to)) ca_all = false;
    out.push_back({c, to});
  }
  if (ca_all && ca_seen == src_at(y).size()) ca_deps_ok_[lq] = 1;
  if (in_link >= 0)
    for (int l = 0; l < kNumVlSlots; l++)
      if (in_lay & (1u << l)) out.push_back({static_cast<Id>(in_link) * kNumVlSlots + static_cast<Id>(l), ch(y, q, l)});
}

void Reconfigurer::junction_deps(const Dest& D, int prev_link, uint16_t lay, int z, std::vector<Dep>& out) {
  each_junction_dep(D, prev_link, lay, z, [&](const Dep& dp) {
    out.push_back(dp);
    return true;
  });
}

}  // namespace ftroute::dqr_detail
