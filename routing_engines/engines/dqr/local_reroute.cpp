// DQR "turn local reroute" (tlr, seed 004 §V-A): before the per-destination repairs, a local
// reroute path around every failed link is made legal in the channel list with all of its
// turns considered together (entry turns, the turns along the detour, exit turns), the
// topology-agnostic counterpart of the mesh plug-in. The per-destination searches that follow
// then find a detour whose turns are already enabled. Also the mesh plug-in's fallback for the
// links it cannot detour (variant mesh-tlr).
#include "reconfigurer.hpp"

namespace ftroute::dqr_detail {

namespace {
constexpr size_t kMaxDetours = 64;  // candidate detours tried per failed channel
constexpr int kExtraHops = 2;       // detours up to the shortest one + 2 hops
}  // namespace

bool Reconfigurer::local_reroute(int from, uint8_t port, int only_vl) {
  const int to = before_.node(from).port(port).peer_node;
  const std::vector<int>& dist = dist_to(to);
  const int shortest = dist[static_cast<size_t>(from)];
  if (shortest >= (1 << 30)) return false;  // physically cut off
  // candidate detours from -> ... -> to over working links, simple, shortest first
  std::vector<std::vector<int>> detours;
  std::vector<int> path{from};
  std::vector<char> on(static_cast<size_t>(after_.size()), 0);
  on[static_cast<size_t>(from)] = 1;
  for (int len = shortest; len <= shortest + kExtraHops && detours.size() < kMaxDetours; len++) {
    // depth-first, pruned by the distance to `to`
    std::function<void()> dfs = [&]() {
      if (detours.size() >= kMaxDetours) return;
      const int y = path.back();
      const int depth = static_cast<int>(path.size()) - 1;
      if (y == to) {
        if (depth == len) detours.push_back(path);
        return;
      }
      for (int q = 1; q <= nports(y); q++) {
        const int z = next_switch(y, static_cast<uint8_t>(q));
        if (z < 0 || on[static_cast<size_t>(z)] || depth + 1 + dist[static_cast<size_t>(z)] > len) continue;
        on[static_cast<size_t>(z)] = 1;
        path.push_back(z);
        dfs();
        path.pop_back();
        on[static_cast<size_t>(z)] = 0;
      }
    };
    dfs();
  }
  auto port_to = [&](int x, int y) -> int {
    for (int q = 1; q <= nports(x); q++)
      if (next_switch(x, static_cast<uint8_t>(q)) == y) return q;
    return 0;
  };
  bool all_ok = true;
  for (int vl = 0; vl < kNumVlSlots; vl++) {
    if (only_vl >= 0 && vl != only_vl) continue;
    const Id X = ch(from, port, vl);
    if (!list_.contains(X)) continue;
    bool done = false;
    for (const auto& dp : detours) {
      std::vector<Id> cs;
      for (size_t i = 0; i + 1 < dp.size(); i++) cs.push_back(ch(dp[i], static_cast<uint8_t>(port_to(dp[i], dp[i + 1])), vl));
      auto on_detour = [&](int n, size_t lo, size_t hi) {
        return n >= 0 && std::find(dp.begin() + static_cast<std::ptrdiff_t>(lo), dp.begin() + static_cast<std::ptrdiff_t>(hi), n) !=
                             dp.begin() + static_cast<std::ptrdiff_t>(hi);
      };
      std::vector<Dep> deps;
      // entry: what fed X now turns onto the detour (not traffic coming from the detour itself,
      // which would go back where it came from)
      for (Id c : list_.predecessors(X))
        if (!on_detour(tables_->link_node[c / kNumVlSlots], 1, dp.size())) deps.push_back({c, cs.front()});
      for (size_t i = 0; i + 1 < cs.size(); i++) deps.push_back({cs[i], cs[i + 1]});
      // exit: the detour's last channel feeds what X fed (not back onto the detour)
      for (Id c : list_.successors(X))
        if (!on_detour(tables_->next_sw[c / kNumVlSlots], 0, dp.size() - 1)) deps.push_back({cs.back(), c});
      if (list_.enable_all(deps)) {
        done = true;
        break;
      }
    }
    if (!done) all_ok = false;
  }
  return all_ok;
}

void Reconfigurer::apply_local_reroutes(DqrResult& res, const std::set<std::pair<int, int>>& skip) {
  int ok = 0, failed = 0;
  for (auto [a, pa] : dead_ports_) {
    if (skip.count({a, pa})) continue;
    (local_reroute(a, pa) ? ok : failed)++;
  }
  res.notes.push_back("turn local reroute: " + std::to_string(ok) + " failed channel(s) detoured, " +
                      std::to_string(failed) + " not");
}

}  // namespace ftroute::dqr_detail
