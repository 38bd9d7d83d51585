#include "ftroute/routing.hpp"

#include <numeric>

#include "ftroute/error.hpp"

namespace ftroute {

// Only switches get a table: allocating max_lid bytes per CA costs ~150 MB on a 10k-CA fabric.
Lfts::Lfts(const Fabric& f) : tables_(static_cast<size_t>(f.size())) {
  for (int s : f.switches()) tables_[static_cast<size_t>(s)].assign(static_cast<size_t>(f.max_lid()) + 1, kNoPath);
}

Lfts::Lfts(int num_nodes, Lid max_lid)
    : tables_(static_cast<size_t>(num_nodes), std::vector<uint8_t>(static_cast<size_t>(max_lid) + 1, kNoPath)) {}

void Lfts::set(int sw, Lid lid, uint8_t port) {
  if (sw < 0) throw Error("Lfts::set: negative switch index");
  if (static_cast<size_t>(sw) >= tables_.size()) tables_.resize(static_cast<size_t>(sw) + 1);
  auto& t = tables_[static_cast<size_t>(sw)];
  if (lid >= t.size()) t.resize(static_cast<size_t>(lid) + 1, kNoPath);
  t[lid] = port;
}

Sl2Vl::Table Sl2Vl::identity() {
  Table t{};
  std::iota(t.begin(), t.end(), static_cast<uint8_t>(0));
  return t;
}

uint8_t Sl2Vl::vl(int node, int in_port, int out_port, int sl) const {
  if (tables_.empty()) return static_cast<uint8_t>(sl & 15);
  auto it = tables_.find(key(node, in_port, out_port));
  if (it == tables_.end()) return static_cast<uint8_t>(sl & 15);
  return it->second[static_cast<size_t>(sl & 15)];
}

void Sl2Vl::set(int node, int in_port, int out_port, const Table& t) { tables_[key(node, in_port, out_port)] = t; }

void Sl2Vl::set_all(const Fabric& f, const Table& t) {
  for (int i = 0; i < f.size(); i++) {
    const Node& n = f.node(i);
    if (n.is_switch()) {
      for (int in = 0; in <= n.num_ports; in++)
        for (int out = 1; out <= n.num_ports; out++) set(i, in, out, t);
    } else {
      for (int p = 1; p <= n.num_ports; p++) set(i, 0, p, t);
    }
  }
}

}  // namespace ftroute
