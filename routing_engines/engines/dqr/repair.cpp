// DQR repair of one destination LID: the affected switches, the order they are repaired in,
// committing new entries and rolling a failed LID back.
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

bool Reconfigurer::attempt(Dest& D, const std::vector<int>& todo, const std::vector<int>& affected, std::string& why) {
  for (int w : todo) {
    if (reaches(D, w)) continue;
    if (idle_route(D, w) || direct_route(D, w)) continue;
    if (!search_and_commit(D, w, why)) {
      if (dist_to(D.t)[static_cast<size_t>(w)] >= (1 << 30)) why = "switch " + after_.node_name(w) + " is physically cut off";
      return false;
    }
  }
  for (int s : affected)
    if (!reaches(D, s)) {
      why = "switch " + after_.node_name(s) + " still has no route";
      return false;
    }
  return true;
}

void Reconfigurer::rollback(Dest& D) {
  (void)D;
  changes_.resize(lid_changes_);  // this LID's changes are the last ones
  if (++cg_ == 0) std::fill(chg_gen_.begin(), chg_gen_.end(), 0), cg_ = 1;
  changed_now_.clear();
  for (int w : idle_list_) idle_[static_cast<size_t>(w)] = 0;
  idle_list_.clear();
  col_.assign(old_col_, old_col_ + tables_->stride);
  new_routes();
}

bool Reconfigurer::repair(Lid d, DqrResult& res) {
  Dest D;
  D.d = d;
  // before.attach(d) from the tables; after.attach(d) is the same unless the link at the
  // destination's switch changed (links are symmetric)
  Attach atb;
  if (d < tables_->lid_sw.size() && tables_->lid_sw[d] >= 0) atb = {tables_->lid_sw[d], tables_->lid_port[d]};
  if (!atb.valid()) return true;  // nothing was routed to it
  const Attach at =
      !same_lids_ || (atb.port != 0 && port_changed_[static_cast<size_t>(link(atb.sw, atb.port))]) ? after_.attach(d) : atb;
  if (!at.valid() || at.sw != atb.sw) {
    res.notes.push_back("LID " + std::to_string(d) + " lost its link to the fabric; its entries are left as they were");
    return true;
  }
  D.t = at.sw;
  D.tport = at.port;
  const EndPort own = *after_.owner(d);
  D.owner = own.node;
  old_col_ = tables_->column(d);
  col_.assign(old_col_, old_col_ + tables_->stride);
  new_routes();
  if (++ag_ == 0) std::fill(aff_.begin(), aff_.end(), 0), ag_ = 1;
  idle_list_.clear();
  changed_now_.clear();
  lid_changes_ = changes_.size();
  if (++cg_ == 0) std::fill(chg_gen_.begin(), chg_gen_.end(), 0), cg_ = 1;
  // affected = near ends (entry on a failed link, route fine before) + everything routed into them
  std::vector<int>& affected = affected_;  // scratch kept across LIDs (no allocation per LID)
  affected.clear();
  for (auto [s, p] : dead_ports_) {
    if (cur(s) != p || aff_[static_cast<size_t>(s)] == ag_) continue;
    int y = old_next_switch(s, p);
    bool ok = false;
    for (int hops = 0; y >= 0 && hops <= before_.size(); hops++) {
      if (y == D.t) { ok = cur(y) == D.tport; break; }
      y = old_next_switch(y, cur(y));
    }
    if (!ok) continue;  // already broken before this fault: not ours
    aff_[static_cast<size_t>(s)] = ag_;
    affected.push_back(s);
  }
  // connect: every source switch without a route to d (DqrOptions::connect)
  if (o_.connect)
    for (int s : after_.switches())
      if (s != D.t && aff_[static_cast<size_t>(s)] != ag_ && has_own_source(D, s) && !reaches(D, s)) {
        aff_[static_cast<size_t>(s)] = ag_;
        affected.push_back(s);
      }
  // Local repair changes only the near ends; their upstream switches are needed only for the
  // metrics (count_affected) and end-to-end repair.
  const bool upstream = o_.paths == DqrOptions::Paths::EndToEnd || o_.count_affected;
  if (upstream) {  // (the arrays in locals: affected's growth would make the compiler reload them)
    uint32_t* const aff = aff_.data();
    const uint32_t ag = ag_;
    const uint8_t* const col = col_.data();
    const NodeInfo* const node = node_.data();
    for (size_t i = 0; i < affected.size(); i++)
      for (auto [u, up] : sw_in(affected[i])) {
        if (aff[u] == ag || col[node[u].slot] != up) continue;
        aff[u] = ag;
        affected.push_back(u);
      }
  }
  if (affected.empty()) return true;
  res.dlids_affected++;
  if (o_.count_affected) res.entries_affected += affected.size();
  const bool d_is_ca = own.port != 0 && own.base_lid == d;
  if (d_is_ca && o_.count_affected)
    for (int s : affected) res.flows_affected += static_cast<uint64_t>(cas_at_[static_cast<size_t>(s)]);
  mark_traffic(D);

  std::vector<int>& todo = todo_;
  todo.clear();
  if (o_.paths == DqrOptions::Paths::Local) {
    for (int s : affected) {
      uint8_t p = cur(s);
      if (no_port(s, p) ? o_.connect : dead(s, p)) todo.push_back(s);
    }
    if (todo.size() > 1) {  // nearest to d first
      std::vector<std::pair<int, int>> key;  // (distance, switch)
      for (int s : todo) key.push_back({switch_dist(D.t, s), s});
      std::stable_sort(key.begin(), key.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < key.size(); i++) todo[i] = key[i].second;
    }
  } else {
    // End to end: farther from d first (a switch's fresh shortest path fixes the affected
    // switches it passes through); switches with no source of their own last: they only carry
    // the traffic of other affected switches, which get their own paths first and may leave
    // them idle (idle_route). On a fat tree that is the spine that lost a down link: taken
    // first, as the farthest, its leaves would follow its down-up detour instead of going up
    // another spine. (Upstream-first instead of farther-first lost 20 points on the meshes.)
    todo = affected;
    if (todo.size() > 1) {
      std::vector<std::tuple<bool, int, int>> key;  // (no source of its own, distance, switch)
      for (int s : todo) key.push_back({!has_own_source(D, s), switch_dist(D.t, s), s});
      std::stable_sort(key.begin(), key.end(), [](const auto& a, const auto& b) {
        if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(b);
        return std::get<1>(a) > std::get<1>(b);
      });
      for (size_t i = 0; i < key.size(); i++) todo[i] = std::get<2>(key[i]);
    }
  }
  std::string why;
  if (!attempt(D, todo, affected, why)) {
    const bool moved = o_.layers == DqrOptions::Layers::All && !single_vl_ && move_layers(D, todo, affected, why);
    if (!moved) {
      if (res.failures.size() < 5) res.failures.push_back("DLID " + std::to_string(d) + ": " + why);
      return false;
    }
    res.dlids_layer_moved++;
  }
  for (int w : idle_list_)
    if (is_idle(w) && chg_gen_[static_cast<size_t>(w)] == cg_) changes_[chg_at_[static_cast<size_t>(w)]].idle = true;
  stage_changes(D);
  return true;
}

// Sets the entries of a new path (switch, port) that joins the route of switch `junction`, and
// records the traffic it now carries.
void Reconfigurer::commit(Dest& D, const std::vector<Entry>& entries, int junction) {
  bool from_broken = true;  // every entry changed at a switch whose route did not reach d
  for (const Entry& e : entries) from_broken = from_broken && !reaches(D, e.sw);
  for (const Entry& e : entries) record_change(e.sw, D.d, e.port);
  // new traffic: the path's switches, then the joined route (idle switches on it carry
  // traffic from now on)
  for (const Entry& e : entries) {
    set_mask(D, e.sw, e.lay);
    idle_[static_cast<size_t>(e.sw)] = 0;
  }
  const uint16_t lm = entries.empty() ? 0 : entries.back().lay;
  int y = junction;
  for (int hops = 0; hops <= after_.size(); hops++) {
    const bool was_idle = is_idle(y);
    idle_[static_cast<size_t>(y)] = 0;
    if ((mask(D, y) & lm) == lm && !was_idle) break;
    set_mask(D, y, lm);
    if (y == D.t) break;
    y = after_.node(y).port(cur(y)).peer_node;
  }
  if (from_broken) new_routes_from_broken();  // routes changed
  else new_routes();
}

void Reconfigurer::record_change(int y, Lid d, uint8_t q) {
  const uint8_t was = cur(y);
  if (was == q) return;
  if (chg_gen_[static_cast<size_t>(y)] == cg_) {
    changes_[chg_at_[static_cast<size_t>(y)]].new_port = q;
  } else {
    chg_gen_[static_cast<size_t>(y)] = cg_;
    chg_at_[static_cast<size_t>(y)] = changes_.size();
    changes_.push_back(LftChange{y, d, was, q});
    changed_now_.push_back(y);
  }
  col_[slot(y)] = q;
}

}  // namespace ftroute::dqr_detail
