// Random regular switch graph (seed 003, Table III: "Random", 32 switches, 256 links); the
// construction (the paper gives none) is described in fip_topologies.hpp.
#include <algorithm>
#include <random>
#include <set>
#include <utility>

#include "ftroute/error.hpp"
#include "ftroute/fip_topologies.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::topo {

namespace {

bool connected_graph(int n, const std::vector<std::pair<int, int>>& e) {
  std::vector<std::vector<int>> adj(static_cast<size_t>(n));
  for (auto [a, b] : e) {
    adj[static_cast<size_t>(a)].push_back(b);
    adj[static_cast<size_t>(b)].push_back(a);
  }
  std::vector<char> seen(static_cast<size_t>(n), 0);
  std::vector<int> st{0};
  seen[0] = 1;
  int cnt = 1;
  while (!st.empty()) {
    int v = st.back();
    st.pop_back();
    for (int w : adj[static_cast<size_t>(v)])
      if (!seen[static_cast<size_t>(w)]) seen[static_cast<size_t>(w)] = 1, cnt++, st.push_back(w);
  }
  return cnt == n;
}

}  // namespace

Fabric random_topology(const RandomTopo& q) {
  auto need = [](bool ok, const std::string& m) {
    if (!ok) throw OptionError("random: " + m);
  };
  const int n = q.switches, d = q.degree;
  need(n >= 2, "needs at least 2 switches (got " + std::to_string(n) + ")");
  need(n <= 100000, "too large: more than 100000 switches");
  need(d >= 1 && d < n, "degree must be 1..switches-1 (got " + std::to_string(d) + ")");
  need((static_cast<long>(n) * d) % 2 == 0, "switches x degree must be even (got " + std::to_string(n) + " x " + std::to_string(d) + ")");
  need(d >= 2 || n == 2, "a connected " + std::to_string(n) + "-switch graph needs degree >= 2");
  need(q.hosts_per_switch >= 0, "hosts per switch must be >= 0");
  const long radix = static_cast<long>(q.hosts_per_switch) + d;
  need(radix <= kMaxPorts, "switch radix HOSTS + DEGREE = " + std::to_string(radix) + " exceeds " + std::to_string(kMaxPorts));
  check_generated_size("random", static_cast<uint64_t>(n), static_cast<uint64_t>(n) * static_cast<uint64_t>(q.hosts_per_switch));

  // circulant start graph: i ~ i+s (s = 1..d/2), plus i ~ i+n/2 for odd d (n is then even)
  std::vector<std::pair<int, int>> e;
  std::set<std::pair<int, int>> has;
  auto key = [](int a, int b) { return a < b ? std::make_pair(a, b) : std::make_pair(b, a); };
  auto add = [&](int a, int b) {
    e.push_back(key(a, b));
    has.insert(key(a, b));
  };
  for (int i = 0; i < n; i++)
    for (int s = 1; s <= d / 2; s++) add(i, (i + s) % n);
  if (d % 2)
    for (int i = 0; i < n / 2; i++) add(i, i + n / 2);
  // degree-preserving double-edge swaps
  std::mt19937_64 rng(q.seed);
  const size_t m = e.size();
  auto swaps = [&](size_t accepted_target) {
    size_t accepted = 0, tries = 0;
    while (accepted < accepted_target && tries < 1000 * accepted_target + 1000) {
      tries++;
      const size_t i = uniform_index(rng, m), j = uniform_index(rng, m);
      if (i == j) continue;
      auto [a, b] = e[i];
      auto [c, dd] = e[j];
      if (uniform_index(rng, 2)) std::swap(c, dd);
      // a-b, c-dd -> a-dd, c-b
      if (a == dd || c == b || has.count(key(a, dd)) || has.count(key(c, b))) continue;
      has.erase(key(a, b));
      has.erase(key(c, dd));
      e[i] = key(a, dd);
      e[j] = key(c, b);
      has.insert(e[i]);
      has.insert(e[j]);
      accepted++;
    }
  };
  if (n > d + 1) swaps(20 * m);  // a complete graph has no swap
  for (int round = 0; !connected_graph(n, e); round++) {
    need(round < 100, "no connected graph found after 100 rounds of swaps");
    swaps(m);
  }
  std::sort(e.begin(), e.end());

  Fabric f;
  std::vector<int> sw;
  for (int i = 0; i < n; i++) sw.push_back(f.add_node(NodeType::Switch, "R" + std::to_string(i), static_cast<int>(radix)));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < q.hosts_per_switch; j++) {
      int c = f.add_node(NodeType::Ca, "H" + std::to_string(i) + "_" + std::to_string(j), 1);
      f.connect(c, 1, sw[static_cast<size_t>(i)], j + 1);
    }
  std::vector<std::vector<int>> nb(static_cast<size_t>(n));
  for (auto [a, b] : e) {
    nb[static_cast<size_t>(a)].push_back(b);
    nb[static_cast<size_t>(b)].push_back(a);
  }
  for (auto& v : nb) std::sort(v.begin(), v.end());
  auto port_of = [&](int a, int b) {
    const auto& v = nb[static_cast<size_t>(a)];
    return q.hosts_per_switch + 1 + static_cast<int>(std::lower_bound(v.begin(), v.end(), b) - v.begin());
  };
  for (auto [a, b] : e) f.connect(sw[static_cast<size_t>(a)], port_of(a, b), sw[static_cast<size_t>(b)], port_of(b, a));
  f.assign_default_guids();
  return f;
}

}  // namespace ftroute::topo
