// DQR hop distances to a destination's switch after a fault (the order in which end-to-end and
// local repair take the affected switches): from the all-pairs table of the fault-free fabric
// (DqrTables::sw_dist) wherever a shortest path survived, by a Dijkstra over the few switches
// whose shortest paths all failed otherwise, by a BFS over the fabric (dist_to) as the fallback.
// docs/dqr.md "At scale".
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

int Reconfigurer::switch_dist(int t, int v) {
  const int d = switch_dist_table(t, v);
  if (o_.cross_check && d != dist_to(t)[static_cast<size_t>(v)])
    throw Error("dqr cross-check: distance from " + after_.node_name(v) + " to " + after_.node_name(t) + " is " +
                std::to_string(dist_to(t)[static_cast<size_t>(v)]) + ", from the table " + std::to_string(d));
  return d;
}

int Reconfigurer::switch_dist_table(int t, int v) {
  if (!dist_ok_ || tables_->dist(t, v) == 255) return dist_to(t)[static_cast<size_t>(v)];
  if (spw_t_ != t) {
    spw_t_ = t;
    if (++spw_g_ == 0) {
      std::fill(spw_gen_.begin(), spw_gen_.end(), 0);
      std::fill(near_gen_.begin(), near_gen_.end(), 0);
      spw_g_ = 1;
    }
  }
  // No path got shorter (no link was added). A switch some shortest path of which survived is
  // as far from t as before, and every path from v meets such a switch (t itself is one). So
  // over the switches whose shortest paths all failed (found from v through each other), the
  // distances are shortest paths from their neighbours of the first kind: Dijkstra, seeded
  // with 1 + their distance, over that set only; memoised for t.
  if (shortest_path_works(t, v)) return tables_->dist(t, v);
  if (near_gen_[static_cast<size_t>(v)] == spw_g_) return near_d_[static_cast<size_t>(v)];
  constexpr int kFar = 1 << 30;
  near_q_.clear();
  near_q_.push_back(v);
  near_gen_[static_cast<size_t>(v)] = spw_g_;
  near_d_[static_cast<size_t>(v)] = kFar;
  std::vector<std::pair<int, int>> heap;  // (-distance, switch)
  for (size_t i = 0; i < near_q_.size(); i++) {
    const int x = near_q_[i];
    for (int q = 1; q <= nports(x); q++) {
      const int y = next_switch(x, static_cast<uint8_t>(q));
      if (y < 0) continue;
      const int dy = tables_->dist(t, y);
      if (dy == 255) return dist_to(t)[static_cast<size_t>(v)];
      if (shortest_path_works(t, y)) {
        near_d_[static_cast<size_t>(x)] = std::min(near_d_[static_cast<size_t>(x)], 1 + dy);
      } else if (near_gen_[static_cast<size_t>(y)] != spw_g_) {
        near_gen_[static_cast<size_t>(y)] = spw_g_;
        near_d_[static_cast<size_t>(y)] = kFar;
        near_q_.push_back(y);
      }
    }
  }
  for (int x : near_q_)
    if (near_d_[static_cast<size_t>(x)] < kFar) heap.push_back({-near_d_[static_cast<size_t>(x)], x});
  std::make_heap(heap.begin(), heap.end());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const auto [nd, x] = heap.back();
    heap.pop_back();
    if (-nd != near_d_[static_cast<size_t>(x)]) continue;
    for (int q = 1; q <= nports(x); q++) {
      const int y = next_switch(x, static_cast<uint8_t>(q));
      if (y < 0 || near_gen_[static_cast<size_t>(y)] != spw_g_ || shortest_path_works(t, y)) continue;
      if (near_d_[static_cast<size_t>(x)] + 1 < near_d_[static_cast<size_t>(y)]) {
        near_d_[static_cast<size_t>(y)] = near_d_[static_cast<size_t>(x)] + 1;
        heap.push_back({-near_d_[static_cast<size_t>(y)], y});
        std::push_heap(heap.begin(), heap.end());
      }
    }
  }
  return near_d_[static_cast<size_t>(v)];
}

bool Reconfigurer::shortest_path_works(int t, int x) {
  if (x == t) return true;
  if (spw_gen_[static_cast<size_t>(x)] == spw_g_) return spw_val_[static_cast<size_t>(x)];
  const int dx = tables_->dist(t, x);
  bool ok = true;  // no failed link lies on a shortest path from x
  for (auto [a, q] : dead_ports_) {
    const int b = old_next_switch(a, q);
    if (b >= 0 && tables_->dist(a, x) + 1 + tables_->dist(t, b) == dx) {
      ok = false;
      break;
    }
  }
  for (int q = 1; !ok && q <= nports(x); q++) {  // a working first hop on a shortest path that works
    const int y = next_switch(x, static_cast<uint8_t>(q));
    ok = y >= 0 && tables_->dist(t, y) + 1 == dx && shortest_path_works(t, y);
  }
  spw_gen_[static_cast<size_t>(x)] = spw_g_;
  spw_val_[static_cast<size_t>(x)] = ok;
  return ok;
}

const std::vector<int>& Reconfigurer::dist_to(int t) {
  // hop distances to t over working switch links; they depend on t only, so they are kept for
  // the other DLIDs attached to the same switch
  std::vector<int>& dt = dist_by_t_[static_cast<size_t>(t)];
  if (dt.empty()) {
    dt.assign(static_cast<size_t>(after_.size()), 1 << 30);
    std::vector<int> q{t};
    dt[static_cast<size_t>(t)] = 0;
    for (size_t i = 0; i < q.size(); i++) {
      const int u = q[i];
      for (int p = 1; p <= nports(u); p++) {
        const int v = next_switch(u, static_cast<uint8_t>(p));
        if (v >= 0 && dt[static_cast<size_t>(v)] > dt[static_cast<size_t>(u)] + 1)
          dt[static_cast<size_t>(v)] = dt[static_cast<size_t>(u)] + 1, q.push_back(v);
      }
    }
  }
  return dt;
}

}  // namespace ftroute::dqr_detail
