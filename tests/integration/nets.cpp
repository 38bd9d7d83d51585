// .net generators for integration tests, see nets.hpp.
#include "nets.hpp"

#include <map>
#include <sstream>
#include <stdexcept>

namespace ftroute::itest {
namespace {

int ipow(int b, int e) {
  int r = 1;
  while (e-- > 0) r *= b;
  return r;
}

int digit(int w, int i, int k) { return (w / ipow(k, i)) % k; }

int set_digit(int w, int i, int k, int d) { return w - digit(w, i, k) * ipow(k, i) + d * ipow(k, i); }

// Collects port lines per node and prints nodes in insertion order.
struct NetText {
  struct Node {
    std::string type;
    int ports;
    std::map<int, std::string> lines;
  };
  std::vector<std::string> order;
  std::map<std::string, Node> nodes;
  void node(const std::string& type, const std::string& id, int ports) {
    order.push_back(id);
    nodes[id] = Node{type, ports, {}};
  }
  void link(const std::string& a, int pa, const std::string& b, int pb) {
    nodes.at(a).lines[pa] = "\"" + b + "\"[" + std::to_string(pb) + "]";
    nodes.at(b).lines[pb] = "\"" + a + "\"[" + std::to_string(pa) + "]";
  }
  std::string str(const std::string& comment) const {
    std::ostringstream o;
    o << "# " << comment << "\n\n";
    for (const auto& id : order) {
      const Node& n = nodes.at(id);
      o << n.type << "\t" << n.ports << " \"" << id << "\"\n";
      for (const auto& [p, l] : n.lines) o << "[" << p << "]\t" << l << "\n";
      o << "\n";
    }
    return o.str();
  }
};

}  // namespace

std::string kary_ntree_switch(int k, int n, int level, int w) {
  (void)k;
  (void)n;
  return "L" + std::to_string(level) + "_" + std::to_string(w);
}

std::string kary_ntree_host(int p) { return "H" + std::to_string(p); }

std::string kary_ntree_net(int k, int n) {
  if (k < 2 || n < 1) throw std::invalid_argument("kary_ntree_net: need k >= 2, n >= 1");
  int per_level = ipow(k, n - 1);
  NetText t;
  for (int l = 0; l < n; ++l)
    for (int w = 0; w < per_level; ++w) t.node("Switch", kary_ntree_switch(k, n, l, w), 2 * k);
  for (int p = 0; p < ipow(k, n); ++p) t.node("Hca", kary_ntree_host(p), 1);
  for (int l = 0; l + 1 < n; ++l)
    for (int w = 0; w < per_level; ++w)
      for (int j = 0; j < k; ++j)
        t.link(kary_ntree_switch(k, n, l, w), k + 1 + j,
               kary_ntree_switch(k, n, l + 1, set_digit(w, l, k, j)), 1 + digit(w, l, k));
  for (int p = 0; p < ipow(k, n); ++p) t.link(kary_ntree_host(p), 1, kary_ntree_switch(k, n, 0, p / k), 1 + p % k);
  return t.str(std::to_string(k) + "-ary " + std::to_string(n) + "-tree (tests/integration/nets.cpp)");
}

std::string ring_net(int switches, int hcas) {
  if (switches < 3 || hcas < 1) throw std::invalid_argument("ring_net: need >= 3 switches, >= 1 hca");
  NetText t;
  for (int i = 0; i < switches; ++i) t.node("Switch", "R" + std::to_string(i), 2 + hcas);
  for (int i = 0; i < switches; ++i)
    for (int c = 0; c < hcas; ++c) t.node("Hca", "H" + std::to_string(i) + "_" + std::to_string(c), 1);
  for (int i = 0; i < switches; ++i) t.link("R" + std::to_string(i), 1, "R" + std::to_string((i + 1) % switches), 2);
  for (int i = 0; i < switches; ++i)
    for (int c = 0; c < hcas; ++c)
      t.link("H" + std::to_string(i) + "_" + std::to_string(c), 1, "R" + std::to_string(i), 3 + c);
  return t.str("ring of " + std::to_string(switches) + " switches (tests/integration/nets.cpp)");
}

std::string torus2d_net(int x, int y, int hcas) {
  if (x < 3 || y < 3 || hcas < 1) throw std::invalid_argument("torus2d_net: need x, y >= 3, hcas >= 1");
  auto sw = [](int i, int j) { return "T" + std::to_string(i) + "_" + std::to_string(j); };
  NetText t;
  for (int i = 0; i < x; ++i)
    for (int j = 0; j < y; ++j) t.node("Switch", sw(i, j), 4 + hcas);
  for (int i = 0; i < x; ++i)
    for (int j = 0; j < y; ++j)
      for (int c = 0; c < hcas; ++c)
        t.node("Hca", "H" + std::to_string(i) + "_" + std::to_string(j) + "_" + std::to_string(c), 1);
  for (int i = 0; i < x; ++i)
    for (int j = 0; j < y; ++j) {
      t.link(sw(i, j), 2, sw((i + 1) % x, j), 1);
      t.link(sw(i, j), 4, sw(i, (j + 1) % y), 3);
    }
  for (int i = 0; i < x; ++i)
    for (int j = 0; j < y; ++j)
      for (int c = 0; c < hcas; ++c)
        t.link("H" + std::to_string(i) + "_" + std::to_string(j) + "_" + std::to_string(c), 1, sw(i, j), 5 + c);
  return t.str(std::to_string(x) + "x" + std::to_string(y) + " torus (tests/integration/nets.cpp)");
}

}  // namespace ftroute::itest
