// Undirected Kautz graph generator (seed 003, Table III: Kautz(2,4)); layout in fip_topologies.hpp.
#include <map>

#include "ftroute/error.hpp"
#include "ftroute/fip_topologies.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::topo {

Fabric kautz(const Kautz& p) {
  auto need = [](bool ok, const std::string& m) {
    if (!ok) throw OptionError("kautz: " + m);
  };
  need(p.d >= 1, "d must be >= 1 (got " + std::to_string(p.d) + ")");
  need(p.k >= 1, "k must be >= 1 (got " + std::to_string(p.k) + ")");
  need(p.hosts_per_switch >= 0, "hosts per switch must be >= 0");
  need(p.redundancy >= 1, "redundancy r must be >= 1");
  const long radix = static_cast<long>(p.hosts_per_switch) + 2L * p.d * p.redundancy;
  need(radix <= kMaxPorts, "switch radix HOSTS + 2 d r = " + std::to_string(radix) + " exceeds " +
                               std::to_string(kMaxPorts) + " ports");
  // (d+1) d^(k-1) switches, bounded before anything is built
  uint64_t nsw = static_cast<uint64_t>(p.d) + 1;
  for (int i = 1; i < p.k; i++) {
    nsw *= static_cast<uint64_t>(p.d);
    need(nsw <= 200000, "too large: more than 200000 switches");
  }
  check_generated_size("kautz", nsw, nsw * static_cast<uint64_t>(p.hosts_per_switch));

  // enumerate the strings in lexicographic order
  std::vector<std::vector<int>> str;
  std::vector<int> cur;
  auto rec = [&](auto&& self) -> void {
    if (static_cast<int>(cur.size()) == p.k) {
      str.push_back(cur);
      return;
    }
    for (int x = 0; x <= p.d; x++) {
      if (!cur.empty() && cur.back() == x) continue;
      cur.push_back(x);
      self(self);
      cur.pop_back();
    }
  };
  rec(rec);
  std::map<std::vector<int>, int> index;
  for (size_t i = 0; i < str.size(); i++) index[str[i]] = static_cast<int>(i);
  auto name = [&](const std::vector<int>& s) {
    std::string n;
    for (size_t i = 0; i < s.size(); i++) {
      if (p.d + 1 > 10 && i) n += '.';
      n += std::to_string(s[i]);
    }
    return n;
  };
  // rank of symbol x among 0..d without `skip`
  auto rank = [](int x, int skip) { return x < skip ? x : x - 1; };

  Fabric f;
  std::vector<int> sw;
  for (const auto& s : str) sw.push_back(f.add_node(NodeType::Switch, "K" + name(s), static_cast<int>(radix)));
  const int H = p.hosts_per_switch, r = p.redundancy;
  for (size_t i = 0; i < str.size(); i++)
    for (int j = 0; j < H; j++) {
      int c = f.add_node(NodeType::Ca, "H" + name(str[i]) + "_" + std::to_string(j), 1);
      f.connect(c, 1, sw[i], j + 1);
    }
  for (size_t i = 0; i < str.size(); i++) {
    const std::vector<int>& s = str[i];
    for (int x = 0; x <= p.d; x++) {
      if (x == s.back()) continue;
      std::vector<int> t(s.begin() + 1, s.end());
      t.push_back(x);
      const int ti = index.at(t);
      const int jo = rank(x, s.back());   // out-arc rank at s
      const int ji = rank(s[0], t[0]);    // in-arc rank at t (predecessor's first symbol != t_1)
      for (int c = 0; c < r; c++)
        f.connect(sw[i], H + 1 + jo * r + c, sw[static_cast<size_t>(ti)], H + p.d * r + 1 + ji * r + c);
    }
  }
  f.assign_default_guids();
  return f;
}

}  // namespace ftroute::topo
