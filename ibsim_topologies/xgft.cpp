// XGFT(h; m_1..m_h; w_1..w_h) generator (seed 003, Table III: XGFT(1,22,11)); layout in
// fip_topologies.hpp.
#include <algorithm>

#include "ftroute/error.hpp"
#include "ftroute/fip_topologies.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::topo {

namespace {

// Comma-separated non-negative integers (each < 10^6); OptionError("<what>: ...") unless the
// count is in [min_count, max_count].
std::vector<int> spec_ints(const std::string& params, const std::string& what, size_t min_count, size_t max_count) {
  std::vector<int> v;
  size_t pos = 0;
  while (true) {
    size_t c = params.find(',', pos);
    std::string t = params.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos)
      throw OptionError(what + ": '" + t + "' is not a non-negative integer");
    v.push_back(std::stoi(t));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  if (v.size() < min_count || v.size() > max_count)
    throw OptionError(what + ": expected " + std::to_string(min_count) +
                      (max_count == min_count ? "" : ".." + std::to_string(max_count)) + " comma-separated numbers, got " +
                      std::to_string(v.size()));
  return v;
}

}  // namespace

Xgft parse_xgft(const std::string& params, const std::string& what) {
  const std::string w = what + " (xgft:H,M1..MH,W1..WH[,HOSTS])";
  std::vector<int> v = spec_ints(params, w, 3, 64);
  const int h = v[0];
  if (h < 1 || h > 16) throw OptionError(w + ": H must be 1..16 (got " + std::to_string(h) + ")");
  const size_t n = 1 + 2 * static_cast<size_t>(h);
  if (v.size() != n && v.size() != n + 1)
    throw OptionError(w + ": H = " + std::to_string(h) + " needs " + std::to_string(n) + " or " + std::to_string(n + 1) +
                      " numbers, got " + std::to_string(v.size()));
  Xgft p;
  p.m.assign(v.begin() + 1, v.begin() + 1 + h);
  p.w.assign(v.begin() + 1 + h, v.begin() + 1 + 2 * h);
  if (v.size() > n) p.hosts_per_leaf = v[n];
  return p;
}

Fabric xgft(const Xgft& p) {
  auto need = [](bool ok, const std::string& m) {
    if (!ok) throw OptionError("xgft: " + m);
  };
  const int h = static_cast<int>(p.m.size());
  need(h >= 1 && p.w.size() == p.m.size(), "needs h >= 1 and as many w_i as m_i");
  need(p.hosts_per_leaf >= 0, "hosts per leaf must be >= 0");
  for (int i = 0; i < h; i++) need(p.m[static_cast<size_t>(i)] >= 1 && p.w[static_cast<size_t>(i)] >= 1, "every m_i and w_i must be >= 1");
  // switches per level and the radix of each level
  std::vector<uint64_t> count(static_cast<size_t>(h) + 1);
  uint64_t total = 0;
  int radix = 0;
  for (int l = 0; l <= h; l++) {
    uint64_t c = 1;
    for (int j = 1; j <= h; j++) {
      c *= static_cast<uint64_t>(j <= l ? p.w[static_cast<size_t>(j - 1)] : p.m[static_cast<size_t>(j - 1)]);
      need(c <= 200000, "too large: more than 200000 switches on level " + std::to_string(l));
    }
    count[static_cast<size_t>(l)] = c;
    total += c;
    const long down = l == 0 ? p.hosts_per_leaf : p.m[static_cast<size_t>(l - 1)];
    const long up = l < h ? p.w[static_cast<size_t>(l)] : 0;
    need(down + up <= kMaxPorts, "a level-" + std::to_string(l) + " switch needs " + std::to_string(down + up) +
                                     " ports, more than " + std::to_string(kMaxPorts));
    radix = std::max(radix, static_cast<int>(down + up));
  }
  check_generated_size("xgft", total, count[0] * static_cast<uint64_t>(p.hosts_per_leaf));

  // label of switch x on level l: digit j (1..h) = a_j < m_j for j > l, b_j < w_j for j <= l;
  // index = mixed radix with digit 1 least significant
  auto base = [&](int l, int j) { return j <= l ? p.w[static_cast<size_t>(j - 1)] : p.m[static_cast<size_t>(j - 1)]; };
  auto digits_of = [&](int l, uint64_t x) {
    std::vector<int> d(static_cast<size_t>(h) + 1);
    for (int j = 1; j <= h; j++) {
      d[static_cast<size_t>(j)] = static_cast<int>(x % static_cast<uint64_t>(base(l, j)));
      x /= static_cast<uint64_t>(base(l, j));
    }
    return d;
  };
  auto index_of = [&](int l, const std::vector<int>& d) {
    uint64_t x = 0;
    for (int j = h; j >= 1; j--) x = x * static_cast<uint64_t>(base(l, j)) + static_cast<uint64_t>(d[static_cast<size_t>(j)]);
    return x;
  };
  auto label = [&](int l, uint64_t x) {
    std::vector<int> d = digits_of(l, x);
    std::string s;
    for (int j = h; j >= 1; j--) s += (j < h ? "." : "") + std::to_string(d[static_cast<size_t>(j)]);
    return s;
  };

  Fabric f;
  std::vector<std::vector<int>> sw(static_cast<size_t>(h) + 1);
  for (int l = 0; l <= h; l++)
    for (uint64_t x = 0; x < count[static_cast<size_t>(l)]; x++)
      sw[static_cast<size_t>(l)].push_back(f.add_node(NodeType::Switch, "X" + std::to_string(l) + "_" + label(l, x), radix));
  for (uint64_t x = 0; x < count[0]; x++)
    for (int j = 0; j < p.hosts_per_leaf; j++) {
      int c = f.add_node(NodeType::Ca, "H" + label(0, x) + "_" + std::to_string(j), 1);
      f.connect(c, 1, sw[0][x], j + 1);
    }
  for (int l = 0; l < h; l++) {
    const int first_up = (l == 0 ? p.hosts_per_leaf : p.m[static_cast<size_t>(l - 1)]) + 1;
    for (uint64_t x = 0; x < count[static_cast<size_t>(l)]; x++) {
      std::vector<int> d = digits_of(l, x);
      const int a = d[static_cast<size_t>(l) + 1];  // this switch's digit among its parents' children
      for (int b = 0; b < p.w[static_cast<size_t>(l)]; b++) {
        std::vector<int> e = d;
        e[static_cast<size_t>(l) + 1] = b;
        f.connect(sw[static_cast<size_t>(l)][x], first_up + b, sw[static_cast<size_t>(l) + 1][index_of(l + 1, e)], a + 1);
      }
    }
  }
  f.assign_default_guids();
  return f;
}

}  // namespace ftroute::topo
