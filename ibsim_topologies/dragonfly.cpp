// Dragonfly(a, p, h, g) generator with 1-D flattened butterflies inside and between the groups
// (seed 003, Table III: Dragonfly(10,5,5,4)); layout in fip_topologies.hpp.
#include "ftroute/error.hpp"
#include "ftroute/fip_topologies.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::topo {

Fabric dragonfly(const Dragonfly& q) {
  auto need = [](bool ok, const std::string& m) {
    if (!ok) throw OptionError("dragonfly: " + m);
  };
  need(q.a >= 1 && q.h >= 0 && q.g >= 1 && q.p >= 0, "needs a >= 1, p >= 0, h >= 0, g >= 1");
  const int H = q.hosts_per_switch < 0 ? q.p : q.hosts_per_switch;
  need(q.g == 1 || q.a * q.h >= q.g - 1, "a h = " + std::to_string(q.a * q.h) + " global channels per group cannot reach the " +
                                            std::to_string(q.g - 1) + " other groups");
  const long radix = static_cast<long>(H) + (q.a - 1) + q.h;
  need(radix <= kMaxPorts, "router radix HOSTS + a - 1 + h = " + std::to_string(radix) + " exceeds " + std::to_string(kMaxPorts));
  need(static_cast<long>(q.a) * q.g <= 200000, "too large: more than 200000 routers");
  const uint64_t nsw = static_cast<uint64_t>(q.a) * static_cast<uint64_t>(q.g);
  check_generated_size("dragonfly", nsw, nsw * static_cast<uint64_t>(H));

  Fabric f;
  auto id = [&](int grp, int i) { return std::to_string(grp) + "_" + std::to_string(i); };
  std::vector<int> sw;  // sw[grp * a + i]
  for (int grp = 0; grp < q.g; grp++)
    for (int i = 0; i < q.a; i++) sw.push_back(f.add_node(NodeType::Switch, "D" + id(grp, i), static_cast<int>(radix)));
  auto R = [&](int grp, int i) { return sw[static_cast<size_t>(grp * q.a + i)]; };
  for (int grp = 0; grp < q.g; grp++)
    for (int i = 0; i < q.a; i++)
      for (int j = 0; j < H; j++) {
        int c = f.add_node(NodeType::Ca, "H" + id(grp, i) + "_" + std::to_string(j), 1);
        f.connect(c, 1, R(grp, i), j + 1);
      }
  // intra-group complete graph: router i's port for router j is H + 1 + (j < i ? j : j - 1)
  for (int grp = 0; grp < q.g; grp++)
    for (int i = 0; i < q.a; i++)
      for (int j = i + 1; j < q.a; j++) f.connect(R(grp, i), H + 1 + (j - 1), R(grp, j), H + 1 + i);
  // inter-group complete graph of groups, L links per pair, in the chosen arrangement
  if (q.g > 1 && q.arrangement != DragonflyArrangement::RoundRobin) {
    const int L = q.a * q.h / (q.g - 1);
    // group x's global port j (router j div h, physical port H + a + j mod h)
    auto node_of = [&](int x, int j) { return R(x, j / q.h); };
    auto port_of = [&](int j) { return H + q.a + j % q.h; };
    for (int x = 0; x < q.g; x++)
      for (int j = 0; j < L * (q.g - 1); j++) {
        const int block = j / L, c = j % L;
        int y, jy;
        if (q.arrangement == DragonflyArrangement::Consecutive) {
          y = block < x ? block : block + 1;        // the block-th other group, ascending
          jy = (x < y ? x : x - 1) * L + c;         // x's rank among y's other groups
        } else {                                    // palm tree: offsets d = 1..g-1
          const int d = block + 1;
          y = (x + d) % q.g;
          jy = (q.g - d - 1) * L + c;               // offset g - d leads back to x
        }
        if (y < x) continue;  // each link once, from its lower group
        f.connect(node_of(x, j), port_of(j), node_of(y, jy), port_of(jy));
      }
  } else if (q.g > 1) {  // round robin
    const int L = q.a * q.h / (q.g - 1);
    std::vector<int> next(static_cast<size_t>(q.g), 0);  // next global slot q of each group
    auto take = [&](int grp, int& node, int& port) {
      const int s = next[static_cast<size_t>(grp)]++;
      node = R(grp, s % q.a);
      port = H + q.a + s / q.a;
    };
    for (int t = 0; t < L; t++)
      for (int g1 = 0; g1 < q.g; g1++)
        for (int g2 = g1 + 1; g2 < q.g; g2++) {
          int n1, p1, n2, p2;
          take(g1, n1, p1);
          take(g2, n2, p2);
          f.connect(n1, p1, n2, p2);
        }
  }
  f.assign_default_guids();
  return f;
}

DragonflyArrangement parse_dragonfly_arrangement(const std::string& name) {
  if (name == "round-robin") return DragonflyArrangement::RoundRobin;
  if (name == "consecutive") return DragonflyArrangement::Consecutive;
  if (name == "palmtree") return DragonflyArrangement::PalmTree;
  throw OptionError("dragonfly: unknown arrangement '" + name + "' (round-robin, consecutive or palmtree)");
}

const char* dragonfly_arrangement_name(DragonflyArrangement a) {
  switch (a) {
    case DragonflyArrangement::Consecutive: return "consecutive";
    case DragonflyArrangement::PalmTree: return "palmtree";
    case DragonflyArrangement::RoundRobin: break;
  }
  return "round-robin";
}

}  // namespace ftroute::topo
