// DQR search bound (the A* pass of long searches, path_search.cpp): which channels are
// "monotone", i.e. can reach the destination's switch by a walk whose channels go up in the
// channel list. The walk over the list per search of before (monotone_reference, kept for
// DqrOptions::cross_check), and how it is computed now: backwards from the destination's
// switch, for one destination (mark_good) or many (mark_batch). docs/dqr.md "At scale".
#include "reconfigurer.hpp"

#include <limits>

namespace ftroute::dqr_detail {

// Depth-first over channels in increasing list position: channel c = (link l, vl) is
// "monotone" if its head switch is d's switch, or its head's route reaches d and every turn
// of joining it goes up (joins_up), or some channel leaving the head goes up from c and is
// monotone.
// Generous on purpose (it ignores loops, U-turns, the joined route's further hops and the
// traffic entering the path), so it never rules out a completion the search could price
// without a reorder: the bound it gives is admissible, and consistent because a step from a
// non-monotone channel to a monotone one is itself a downward turn.
bool Reconfigurer::monotone_reference(const Dest& D, int l0, int vl) {
  if (mono_gen_.empty()) {
    mono_yes_.assign(static_cast<size_t>(tables_->num_links()), 0);
    mono_no_.assign(static_cast<size_t>(tables_->num_links()), 0);
    mono_gen_.assign(static_cast<size_t>(tables_->num_links()), 0);
  }
  const uint16_t bit = static_cast<uint16_t>(1u << vl);
  auto known = [&](Id c) {
    const size_t l = c / kNumVlSlots;
    return mono_gen_[l] == mono_g_ && ((mono_yes_[l] | mono_no_[l]) & bit);
  };
  auto yes = [&](Id c) { return (mono_yes_[c / kNumVlSlots] & bit) != 0; };
  auto set = [&](Id c, bool v) {
    const size_t l = c / kNumVlSlots;
    if (mono_gen_[l] != mono_g_) mono_gen_[l] = mono_g_, mono_yes_[l] = mono_no_[l] = 0;
    (v ? mono_yes_[l] : mono_no_[l]) |= bit;
  };
  const Id c0 = static_cast<Id>(l0) * kNumVlSlots + static_cast<Id>(vl);
  if (known(c0)) return yes(c0);
  mono_stack_.clear();
  mono_stack_.push_back({c0, 0});
  bool result = false;  // of the channel just finished
  bool returning = false;
  while (!mono_stack_.empty()) {
    auto& [c, q] = mono_stack_.back();
    const int y = next_sw_[c / kNumVlSlots];
    const int pc = list_.pos(c);
    if (returning && result) {  // the child tried at port q is monotone
      set(c, true);
      mono_stack_.pop_back();
      continue;
    }
    if (!returning && q == 0) {  // first visit
      bool done = y < 0, val = false;
      if (y == D.t) done = val = true;
      else if (y >= 0 && reaches(D, y) && joins_up(D, c, y, vl)) done = val = true;
      if (done) {
        set(c, val), result = val, returning = true;
        mono_stack_.pop_back();
        continue;
      }
    }
    returning = false;
    bool pushed = false;
    const int np = nports(y);
    while (++q <= np) {
      if (next_switch(y, static_cast<uint8_t>(q)) < 0) continue;
      const Id c2 = ch(y, q, vl);
      if (list_.pos(c2) <= pc) continue;
      if (known(c2)) {
        if (yes(c2)) break;
        continue;
      }
      mono_stack_.push_back({c2, 0});
      pushed = true;
      break;
    }
    if (pushed) continue;
    // all ports tried (q > np: none monotone) or a known monotone child (q <= np)
    const bool val = q <= np;
    set(mono_stack_.back().first, val), result = val, returning = true;
    mono_stack_.pop_back();
  }
  return yes(c0);
}

bool Reconfigurer::monotone(const Dest& D, int l0, int vl) {
  const uint16_t bit = static_cast<uint16_t>(1u << vl);
  if (good_for_ != mono_g_) {  // a new search: nothing marked yet
    good_for_ = mono_g_, good_vls_ = 0;
    const size_t nl = static_cast<size_t>(tables_->num_links());
    if (good_gen_.size() < nl) {
      good_.assign(nl, 0);
      good_gen_.assign(nl, 0);
      done_gen_.assign(static_cast<size_t>(after_.size()), 0);
    }
    if (++good_g_ == 0) std::fill(good_gen_.begin(), good_gen_.end(), 0), good_g_ = 1;
  }
  if (!(good_vls_ & bit)) {
    good_vls_ |= bit;
    // Several searches between two reorders of the list: the monotone channels of the next
    // destinations' switches in one sweep (mark_batch); the first one alone (mark_good). One
    // layer only: the batch holds one.
    const uint64_t ver = list_.order_version();
    const bool in_batch = single_vl_ && batch_ver_ == ver && tbit_[static_cast<size_t>(D.t)] >= 0;
    if (single_vl_ && !in_batch && miss_ver_ == ver) mark_batch(D, vl);
    if (single_vl_ && batch_ver_ == ver && tbit_[static_cast<size_t>(D.t)] >= 0) {
      batch_vls_ |= bit;
    } else {
      batch_vls_ &= static_cast<uint16_t>(~bit);
      miss_ver_ = ver;
      mark_good(D, vl);
    }
  }
  const bool r = (batch_vls_ & bit) ? (gsets_[static_cast<size_t>(l0)] >> tbit_[static_cast<size_t>(D.t)]) & 1
                                    : good_gen_[static_cast<size_t>(l0)] == good_g_ && (good_[static_cast<size_t>(l0)] & bit);
  if (o_.cross_check && monotone_reference(D, l0, vl) != r)
    throw Error("dqr cross-check: bound of " + list_.name(ch(tables_->link_node[static_cast<size_t>(l0)],
                                                            l0 - tables_->port_base[static_cast<size_t>(tables_->link_node[static_cast<size_t>(l0)])], vl)) +
                " for LID " + std::to_string(D.d) + ": the walk over the list says " + (r ? "not " : "") + "monotone");
  return r;
}

// The channels on layer vl from which some walk over working switch links, each channel higher
// in the list than the one before, enters d's switch (see monotone()): backwards from the
// channels entering d's switch, highest position first.
void Reconfigurer::mark_good(const Dest& D, int vl) {
  if (++done_g_ == 0) std::fill(done_gen_.begin(), done_gen_.end(), 0), done_g_ = 1;
  const uint32_t g = good_g_, done = done_g_;
  const uint16_t bit = static_cast<uint16_t>(1u << vl);
  const size_t npos = list_.order().size();
  if (pending_.size() < (npos + 63) / 64) pending_.assign((npos + 63) / 64, 0);
  if (in_pos_.size() != tables_->sw_in.size()) {
    in_pos_.assign(tables_->sw_in.size(), 0);
    in_pos_ver_.assign(static_cast<size_t>(after_.size()), 0);
  }
  int top = -1;
  auto add = [&](int u, uint8_t up) {  // the channel (u, up, vl) is good
    const size_t l = static_cast<size_t>(link(u, up));
    if (good_gen_[l] != g) good_gen_[l] = g, good_[l] = 0;
    if (good_[l] & bit) return;
    good_[l] |= bit;
    const int p = list_.pos(ch(u, up, vl));
    if (p < 0) return;  // not in the list: nothing is below it
    pending_[static_cast<size_t>(p) >> 6] |= 1ULL << (p & 63);
    top = std::max(top, p);
  };
  for (auto [u, up] : sw_in(D.t))
    if (next_switch(u, up) == D.t) add(u, up);
  // highest pending position first: the first good channel taken from a switch is its highest,
  // and every channel entering that switch below it is good
  for (int w = top >> 6; w >= 0; w--) {
    while (pending_[static_cast<size_t>(w)]) {
      const int b = 63 - __builtin_clzll(pending_[static_cast<size_t>(w)]);
      pending_[static_cast<size_t>(w)] &= ~(1ULL << b);
      const int p = w * 64 + b;
      const int u = tables_->link_node[list_.order()[static_cast<size_t>(p)] / kNumVlSlots];
      if (done_gen_[static_cast<size_t>(u)] == done) continue;
      done_gen_[static_cast<size_t>(u)] = done;
      // the positions of the working switch channels entering u on vl, cached in sw_in's order
      // (INT_MAX where the link failed) while the list order stays the same
      const size_t k0 = static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(u)]);
      const size_t k1 = static_cast<size_t>(tables_->sw_in_off[static_cast<size_t>(u) + 1]);
      const uint64_t ver = list_.order_version() * kNumVlSlots + static_cast<uint64_t>(vl) + 1;
      if (in_pos_ver_[static_cast<size_t>(u)] != ver) {
        in_pos_ver_[static_cast<size_t>(u)] = ver;
        for (size_t k = k0; k < k1; k++) {
          auto [x, xp] = tables_->sw_in[k];
          in_pos_[k] = next_switch(x, xp) == u ? list_.pos(ch(x, xp, vl)) : std::numeric_limits<int32_t>::max();
        }
      }
      for (size_t k = k0; k < k1; k++)
        if (in_pos_[k] < p) add(tables_->sw_in[k].first, tables_->sw_in[k].second);
    }
  }
}

// mark_good() (single VL) for up to 64 destination switches at once: D.t and those of the LIDs still to be
// repaired that belong to switches (a switch's own LID is what needs long searches on a fat
// tree: it is reached through turnarounds). One sweep over the list from the top: a channel on
// a working switch link is monotone for target t iff it enters t or a channel leaving its head
// higher in the list is; acc_ holds, per switch, the targets of the channels leaving it seen so
// far (all higher), so the channel's set is acc_ of its head (plus its head if that is a target).
void Reconfigurer::mark_batch(const Dest& D, int vl) {
  if (tbit_.empty()) {
    tbit_.assign(static_cast<size_t>(after_.size()), -1);
    acc_.assign(static_cast<size_t>(after_.size()), 0);
    gsets_.assign(static_cast<size_t>(tables_->num_links()), 0);
  }
  for (int x : batch_targets_) tbit_[static_cast<size_t>(x)] = -1;
  batch_targets_.clear();
  auto add = [&](int x) {
    if (tbit_[static_cast<size_t>(x)] >= 0 || batch_targets_.size() >= 64) return;
    tbit_[static_cast<size_t>(x)] = static_cast<int8_t>(batch_targets_.size());
    batch_targets_.push_back(x);
  };
  add(D.t);
  for (size_t i = lid_next_; i < lid_order_.size() && batch_targets_.size() < 64; i++)
    if (lid_switch_[i] >= 0) add(lid_switch_[i]);
  std::fill(acc_.begin(), acc_.end(), 0);
  const std::vector<Id>& order = list_.order();
  for (size_t p = order.size(); p-- > 0;) {
    const Id c = order[p];
    if (static_cast<int>(c % kNumVlSlots) != vl) continue;
    const size_t l = c / kNumVlSlots;
    const int y = next_sw_[l];
    if (y < 0) continue;
    const int8_t b = tbit_[static_cast<size_t>(y)];
    const uint64_t gs = acc_[static_cast<size_t>(y)] | (b >= 0 ? 1ULL << b : 0);
    gsets_[l] = gs;
    acc_[static_cast<size_t>(tables_->link_node[l])] |= gs;
  }
  batch_ver_ = list_.order_version();
}

}  // namespace ftroute::dqr_detail
