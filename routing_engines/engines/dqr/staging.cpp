// DQR staging: the order in which the changed LFT entries may be written (DqrResult::changes).
// A changed entry's stage is its hop count to its LID along the new routes; stages are applied
// in increasing order, idle entries last (see DqrResult::changes in ftroute/dqr/dqr.hpp).
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

// Transition stage of every entry changed for d: memoised walks over this LID's column.
void Reconfigurer::stage_changes(const Dest& D) {
  for (int y0 : changed_now_) {
    int y = y0, base = 0;
    dstack_.clear();
    for (int hops = 0; hops <= after_.size(); hops++) {
      if (dgen_[static_cast<size_t>(y)] == ag_) { base = depth_[static_cast<size_t>(y)]; break; }
      if (y == D.t) { dstack_.push_back(y), base = -1; break; }
      dstack_.push_back(y);
      const int nx = next_switch(y, cur(y));
      if (nx < 0) break;
      y = nx;
    }
    for (size_t i = 0; i < dstack_.size(); i++) {
      const size_t v = static_cast<size_t>(dstack_[i]);
      dgen_[v] = ag_;
      depth_[v] = base + static_cast<int>(dstack_.size() - i);
    }
    changes_[chg_at_[static_cast<size_t>(y0)]].stage = depth_[static_cast<size_t>(y0)];
  }
}

void order_transition(std::vector<LftChange>& changes) {
  int deepest = 0;
  for (const LftChange& c : changes)
    if (!c.idle) deepest = std::max(deepest, c.stage);
  for (LftChange& c : changes)
    if (c.idle) c.stage = deepest + 1;
  std::sort(changes.begin(), changes.end(), [](const LftChange& a, const LftChange& b) {
    return std::tie(a.stage, a.lid, a.sw) < std::tie(b.stage, b.lid, b.sw);
  });
}

}  // namespace ftroute::dqr_detail
