#include "ftroute/fabric.hpp"

#include <algorithm>
#include <cstring>
#include <deque>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"

namespace ftroute {

const char* node_type_name(NodeType t) {
  switch (t) {
    case NodeType::Switch: return "Switch";
    case NodeType::Ca: return "Ca";
    case NodeType::Router: return "Rt";
  }
  return "?";
}

int Fabric::add_node(NodeType type, std::string id, int num_ports, uint64_t guid) {
  if (id.empty()) throw FabricError("node with an empty id");
  if (num_ports < 1 || num_ports > kMaxPorts)
    throw FabricError("node \"" + id + "\": " + std::to_string(num_ports) +
                      " ports (must be 1.." + std::to_string(kMaxPorts) + ")");
  const IdKey key = id_key(id);
  if (find_id(id, key) >= 0) throw FabricError("duplicate node id \"" + id + "\"");
  Node n;
  n.type = type;
  n.desc = id;
  n.id = std::move(id);
  n.guid = guid;
  n.num_ports = num_ports;
  n.ports.resize(static_cast<size_t>(num_ports) + 1);
  if (type == NodeType::Switch)
    for (auto& p : n.ports) p.guid = guid;
  int idx = static_cast<int>(nodes_.size());
  nodes_.push_back(std::move(n));
  if ((id_keys_.size() + 1) * 2 > id_slots_.size()) grow_ids(id_keys_.size() + 1);
  id_keys_.push_back(key);
  for (size_t i = key.hash & (id_slots_.size() - 1);; i = (i + 1) & (id_slots_.size() - 1))
    if (id_slots_[i] < 0) {
      id_slots_[i] = idx;
      break;
    }
  if (type == NodeType::Switch) switches_.push_back(idx);
  return idx;
}

void Fabric::reserve(size_t n) {
  nodes_.reserve(n);
  id_keys_.reserve(n);
  // not the id table: it grows with the ids, at most half full, so a generous estimate of n does
  // not make it (and every lookup's cache misses) larger than the ids need
}

void Fabric::grow_ids(size_t n) {
  size_t want = 1024;
  while (want < 2 * n + 2) want *= 2;
  if (want <= id_slots_.size()) return;
  id_slots_.assign(want, -1);
  const size_t mask = want - 1;
  for (size_t node = 0; node < id_keys_.size(); node++)
    for (size_t i = id_keys_[node].hash & mask;; i = (i + 1) & mask)
      if (id_slots_[i] < 0) {
        id_slots_[i] = static_cast<int32_t>(node);
        break;
      }
}

Fabric::IdKey Fabric::id_key(std::string_view id) {
  IdKey k;
  const char* p = id.data();
  const size_t n = id.size();
  if (n >= 16) {
    std::memcpy(&k.a, p, 8);
    std::memcpy(&k.b, p + 8, 8);
  } else if (n >= 8) {
    std::memcpy(&k.a, p, 8);
    for (size_t i = 8; i < n; i++) k.b |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * (i - 8));
  } else {
    for (size_t i = 0; i < n; i++) k.a |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  k.len = static_cast<uint32_t>(id.size());
  uint64_t h = (k.a * 0x9E3779B97F4A7C15ull) ^ ((k.b + k.len) * 0xC2B2AE3D27D4EB4Full);
  for (size_t i = 16; i < id.size(); i++) h = (h ^ static_cast<unsigned char>(id[i])) * 1099511628211ull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  k.hash = static_cast<uint32_t>(h);
  return k;
}

int Fabric::find_id(std::string_view id, const IdKey& k) const {
  if (id_slots_.empty()) return -1;
  const size_t mask = id_slots_.size() - 1;
  for (size_t i = k.hash & mask;; i = (i + 1) & mask) {
    const int32_t n = id_slots_[i];
    if (n < 0) return -1;
    const IdKey& o = id_keys_[static_cast<size_t>(n)];
    if (o.hash == k.hash && o.a == k.a && o.b == k.b && o.len == k.len &&
        (k.len <= 16 || std::string_view(nodes_[static_cast<size_t>(n)].id).substr(16) == id.substr(16)))
      return n;
  }
}

namespace {
bool has_own_desc(const Node& n) { return !n.desc.empty() && n.desc != n.id; }
std::string id_suffix(const Node& n) { return has_own_desc(n) ? " (" + escape_name(n.id) + ")" : std::string(); }
}  // namespace

std::string Fabric::node_name(int node) const {
  if (node < 0 || node >= size()) return "<node " + std::to_string(node) + ">";
  // Fabrics read from ibnetdiscover output have GUID-based ids ("S-0000000000200022") and the
  // node description after '#': show the description people know, with the unique id after it.
  const Node& n = nodes_[static_cast<size_t>(node)];
  return quote_name(has_own_desc(n) ? n.desc : n.id) + id_suffix(n);
}

std::string Fabric::port_name(int node, int port) const {
  if (node < 0 || node >= size()) return "<node " + std::to_string(node) + ">[" + std::to_string(port) + "]";
  const Node& n = nodes_[static_cast<size_t>(node)];
  return quote_name(has_own_desc(n) ? n.desc : n.id) + "[" + std::to_string(port) + "]" + id_suffix(n);
}

std::string Fabric::node_label(int node) const {
  if (node < 0 || node >= size()) return "<node " + std::to_string(node) + ">";
  const Node& n = nodes_[static_cast<size_t>(node)];
  return has_own_desc(n) ? node_name(node) : escape_name(n.id);
}

std::optional<std::pair<int, int>> Fabric::first_port_without_lid() const {
  if (max_lid_ == 0) return std::nullopt;
  for (int i = 0; i < size(); i++) {
    const Node& n = nodes_[static_cast<size_t>(i)];
    if (n.is_switch()) {
      if (!n.port(0).base_lid) return std::make_pair(i, 0);
    } else {
      for (int p = 1; p <= n.num_ports; p++)
        if (n.port(p).connected() && !n.port(p).base_lid) return std::make_pair(i, p);
    }
  }
  return std::nullopt;
}

void Fabric::connect(int a, int pa, int b, int pb) {
  auto check = [&](int n, int p) {
    if (n < 0 || n >= size()) throw FabricError("link to unknown node index " + std::to_string(n));
    if (p < 1 || p > nodes_[static_cast<size_t>(n)].num_ports)
      throw FabricError("port " + port_name(n, p) + " out of range (node has " +
                        std::to_string(nodes_[static_cast<size_t>(n)].num_ports) + " ports)");
  };
  check(a, pa);
  check(b, pb);
  if (a == b && pa == pb) throw FabricError("port " + port_name(a, pa) + " linked to itself");
  Port& x = node(a).port(pa);
  Port& y = node(b).port(pb);
  if (x.peer_node == b && x.peer_port == pb && y.peer_node == a && y.peer_port == pa) return;
  if (x.connected())
    throw FabricError("port " + port_name(a, pa) + " is already linked to " + port_name(x.peer_node, x.peer_port) +
                      ", cannot link it to " + port_name(b, pb));
  if (y.connected())
    throw FabricError("port " + port_name(b, pb) + " is already linked to " + port_name(y.peer_node, y.peer_port) +
                      ", cannot link it to " + port_name(a, pa));
  x.peer_node = b;
  x.peer_port = static_cast<uint8_t>(pb);
  y.peer_node = a;
  y.peer_port = static_cast<uint8_t>(pa);
}

void Fabric::disconnect(int a, int pa) {
  Port& x = node(a).port(pa);
  if (!x.connected()) return;
  Port& y = node(x.peer_node).port(x.peer_port);
  y.peer_node = -1;
  y.peer_port = 0;
  x.peer_node = -1;
  x.peer_port = 0;
}

void Fabric::set_lid(int n, int p, Lid base, uint8_t lmc) {
  Node& nd = node(n);
  if (nd.is_switch() && p != 0)
    throw FabricError("LID on switch port " + port_name(n, p) + ": switches own LIDs on port 0 only");
  if (!nd.is_switch() && (p < 1 || p > nd.num_ports))
    throw FabricError("LID on " + port_name(n, p) + ": no such port");
  if (lmc > 7) throw FabricError("LMC " + std::to_string(lmc) + " on " + port_name(n, p) + " (max 7)");
  nd.port(p).base_lid = base;
  nd.port(p).lmc = lmc;
  reindex_lids();
}

void Fabric::assign_lids(uint8_t lmc, bool switches_first, bool lmc_esp0) {
  if (lmc > 7) throw FabricError("LMC " + std::to_string(lmc) + " (max 7)");
  {
    // Count first (same alignment as below), so a fabric that does not fit changes nothing and the
    // error names the count and the limit.
    uint64_t need = 1, sw_lids = 0, ca_ports = 0;
    auto count = [&](uint8_t l) {
      const uint64_t block = 1u << l;
      need = (need + block - 1) / block * block + block;
    };
    auto sw = [&] {
      for (size_t i = 0; i < switches_.size(); i++) count(lmc_esp0 ? lmc : 0), sw_lids++;
    };
    auto ca = [&] {
      for (auto& n : nodes_) {
        if (n.is_switch()) continue;
        for (int p = 1; p <= n.num_ports; p++)
          if (n.port(p).connected()) count(lmc), ca_ports++;
      }
    };
    if (switches_first) sw(), ca();
    else ca(), sw();
    if (need - 1 > kMaxUnicastLid)
      throw FabricError("the fabric needs " + std::to_string(need - 1) + " unicast LIDs (" + std::to_string(sw_lids) +
                        " switches, " + std::to_string(ca_ports) + " connected CA/router ports with LMC " +
                        std::to_string(lmc) + "), more than the 49151 unicast LIDs InfiniBand has (0x0001-0xBFFF)");
  }
  for (auto& n : nodes_)
    for (auto& p : n.ports) p.base_lid = 0, p.lmc = 0;
  uint32_t next = 1;
  auto give = [&](Node& n, int p, uint8_t l) {
    uint32_t block = 1u << l;
    next = (next + block - 1) / block * block;  // align like OpenSM
    if (next + block - 1 > kMaxUnicastLid)
      throw FabricError("out of unicast LIDs while assigning " + n.id + " (LMC " + std::to_string(l) + ")");
    n.port(p).base_lid = static_cast<Lid>(next);
    n.port(p).lmc = l;
    next += block;
  };
  auto do_switches = [&] {
    for (int s : switches_) give(nodes_[static_cast<size_t>(s)], 0, lmc_esp0 ? lmc : 0);
  };
  auto do_cas = [&] {
    for (auto& n : nodes_) {
      if (n.is_switch()) continue;
      for (int p = 1; p <= n.num_ports; p++)
        if (n.port(p).connected()) give(n, p, lmc);
    }
  };
  if (switches_first) {
    do_switches();
    do_cas();
  } else {
    do_cas();
    do_switches();
  }
  reindex_lids();
}

// ibsim 0.10 numbers each node type with its own counter in file order: switches from 0x200000
// (one GUID each, every port carries it), CAs from 0x100000 (node GUID G, port p = G + p, next CA
// at G + nports + 1), routers like CAs but from 0 in ibsim. GUID 0 means "unassigned" here, so
// routers start at 0x300000 instead; write_net() then emits `rtguid=` and ibsim reproduces them.
// Counters start above any GUID already given to a node of the same type (no collisions).
void Fabric::assign_default_guids() {
  uint64_t sw_next = 0x200000, ca_next = 0x100000, rt_next = 0x300000;
  for (auto& n : nodes_) {
    if (!n.guid) continue;
    if (n.is_switch()) sw_next = std::max(sw_next, n.guid + 1);
    else if (n.type == NodeType::Ca) ca_next = std::max(ca_next, n.guid + static_cast<uint64_t>(n.num_ports) + 1);
    else rt_next = std::max(rt_next, n.guid + static_cast<uint64_t>(n.num_ports) + 1);
  }
  for (auto& n : nodes_) {
    if (n.guid) continue;
    if (n.is_switch()) {
      n.guid = sw_next++;
      for (auto& p : n.ports) p.guid = n.guid;
    } else {
      uint64_t& next = n.type == NodeType::Ca ? ca_next : rt_next;
      n.guid = next;
      for (int p = 1; p <= n.num_ports; p++) n.port(p).guid = n.guid + static_cast<uint64_t>(p);
      next += static_cast<uint64_t>(n.num_ports) + 1;
    }
  }
}

std::optional<int> Fabric::find(std::string_view id) const {
  const int i = find_id(id, id_key(id));
  if (i < 0) return std::nullopt;
  return i;
}

std::optional<int> Fabric::find_guid(uint64_t g) const {
  for (size_t i = 0; i < nodes_.size(); i++)
    if (nodes_[i].guid == g) return static_cast<int>(i);
  return std::nullopt;
}

std::vector<int> Fabric::cas() const {
  std::vector<int> r;
  for (size_t i = 0; i < nodes_.size(); i++)
    if (!nodes_[i].is_switch()) r.push_back(static_cast<int>(i));
  return r;
}

std::vector<std::pair<int, int>> Fabric::switch_links() const {
  std::vector<std::pair<int, int>> r;
  for (int s : switches_)
    for (int p = 1; p <= nodes_[static_cast<size_t>(s)].num_ports; p++) {
      const Port& x = nodes_[static_cast<size_t>(s)].port(p);
      if (x.connected() && nodes_[static_cast<size_t>(x.peer_node)].is_switch() &&
          (x.peer_node > s || (x.peer_node == s && x.peer_port > p)))
        r.emplace_back(s, p);
    }
  return r;
}

int Fabric::num_links() const {
  int n = 0;
  for (size_t i = 0; i < nodes_.size(); i++)
    for (int p = 1; p <= nodes_[i].num_ports; p++) {
      const Port& x = nodes_[i].port(p);
      if (x.connected() && (x.peer_node > static_cast<int>(i) ||
                            (x.peer_node == static_cast<int>(i) && x.peer_port > p)))
        n++;
    }
  return n;
}

void Fabric::reindex_lids() {
  lid_ports_.clear();
  max_lid_ = 0;
  for (size_t i = 0; i < nodes_.size(); i++) {
    const Node& n = nodes_[i];
    for (int p = n.is_switch() ? 0 : 1; p <= (n.is_switch() ? 0 : n.num_ports); p++) {
      const Port& x = n.port(p);
      if (!x.base_lid) continue;
      EndPort e{static_cast<int>(i), static_cast<uint8_t>(p), x.base_lid, x.lmc};
      lid_ports_.push_back(e);
      max_lid_ = std::max<Lid>(max_lid_, e.last_lid());
    }
  }
  // already in LID order (LIDs given in node order, as assign_lids and .net files do): no sort
  // (strictly increasing only: equal LIDs keep the order std::sort gives them)
  bool strictly_sorted = true;
  for (size_t k = 1; k < lid_ports_.size() && strictly_sorted; k++)
    strictly_sorted = lid_ports_[k - 1].base_lid < lid_ports_[k].base_lid;
  if (!strictly_sorted)
    std::sort(lid_ports_.begin(), lid_ports_.end(),
              [](const EndPort& a, const EndPort& b) { return a.base_lid < b.base_lid; });
  lid_owner_.assign(static_cast<size_t>(max_lid_) + 1, -1);
  for (size_t k = 0; k < lid_ports_.size(); k++)
    for (uint32_t l = lid_ports_[k].base_lid; l <= lid_ports_[k].last_lid(); l++)
      if (lid_owner_[l] < 0) lid_owner_[l] = static_cast<int32_t>(k);  // overlaps reported by validate()
}

const std::vector<EndPort>& Fabric::end_ports() const { return lid_ports_; }

std::optional<EndPort> Fabric::owner(Lid lid) const {
  if (lid >= lid_owner_.size() || lid_owner_[lid] < 0) return std::nullopt;
  return lid_ports_[static_cast<size_t>(lid_owner_[lid])];
}

Attach Fabric::attach(Lid lid) const {
  auto e = owner(lid);
  if (!e) return {};
  const Node& n = node(e->node);
  if (n.is_switch()) return {e->node, 0};
  const Port& p = n.port(e->port);
  if (!p.connected() || !node(p.peer_node).is_switch()) return {};
  return {p.peer_node, p.peer_port};
}

void Fabric::require_file_lids(const std::string& label, const std::string& renumber) const {
  if (auto miss = first_port_without_lid())
    throw FabricError(label + ": " +
                      (miss->second == 0 ? "switch " + node_name(miss->first) : "port " + port_name(miss->first, miss->second)) +
                      " has no LID while others do (use " + renumber + " to renumber)");
}

void Fabric::validate() const {
  for (size_t i = 0; i < nodes_.size(); i++) {
    const Node& n = nodes_[i];
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (!x.connected()) continue;
      if (x.peer_node >= size())
        throw FabricError("port " + port_name(static_cast<int>(i), p) + " links to a missing node");
      const Node& m = node(x.peer_node);
      if (x.peer_port < 1 || x.peer_port > m.num_ports)
        throw FabricError("port " + port_name(static_cast<int>(i), p) + " links to " +
                          port_name(x.peer_node, x.peer_port) + ", which does not exist");
      const Port& y = m.port(x.peer_port);
      if (y.peer_node != static_cast<int>(i) || y.peer_port != p)
        throw FabricError("link " + port_name(static_cast<int>(i), p) + " -> " + port_name(x.peer_node, x.peer_port) +
                          " is not symmetric");
    }
  }
  std::vector<int32_t> seen(static_cast<size_t>(max_lid_) + 1, -1);
  for (size_t k = 0; k < lid_ports_.size(); k++) {
    const EndPort& e = lid_ports_[k];
    if (e.last_lid() > kMaxUnicastLid)
      throw FabricError("LID range of " + port_name(e.node, e.port) + " exceeds the unicast range");
    for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) {
      if (seen[l] >= 0) {
        const EndPort& o = lid_ports_[static_cast<size_t>(seen[l])];
        throw FabricError("LID " + std::to_string(l) + " used by both " + port_name(o.node, o.port) + " and " +
                          port_name(e.node, e.port));
      }
      seen[l] = static_cast<int32_t>(k);
    }
  }
}

bool Fabric::connected() const {
  if (nodes_.empty()) return true;
  std::vector<char> vis(nodes_.size(), 0);
  const int start = switches_.empty() ? 0 : switches_.front();
  std::deque<int> q{start};
  vis[static_cast<size_t>(start)] = 1;
  size_t count = 1;
  while (!q.empty()) {
    int u = q.front();
    q.pop_front();
    const Node& n = nodes_[static_cast<size_t>(u)];
    // traffic can only transit switches; a CA with two ports does not forward
    if (!n.is_switch() && u != start) continue;
    for (int p = 1; p <= n.num_ports; p++) {
      int v = n.port(p).peer_node;
      if (v >= 0 && !vis[static_cast<size_t>(v)]) {
        vis[static_cast<size_t>(v)] = 1;
        count++;
        q.push_back(v);
      }
    }
  }
  return count == nodes_.size();
}

bool is_internal_switch_port(const Fabric& f, int sw, int port) {
  const Node& s = f.node(sw);
  if (!s.is_switch() || port != s.num_ports) return false;
  // ASIC radices 36 (SwitchX/Switch-IB), 40 (Quantum), 64 (Quantum-2), 144 (Quantum-3), + 1
  return port == 37 || port == 41 || port == 65 || port == 145;
}

bool is_aggregation_node(const Fabric& f, int node) {
  const Node& n = f.node(node);
  if (n.type != NodeType::Ca) return false;
  if (n.desc.find("Aggregation Node") != std::string::npos) return true;
  int links = 0, sw = -1, sw_port = 0;
  for (int p = 1; p <= n.num_ports; p++) {
    const Port& pt = n.port(p);
    if (!pt.connected()) continue;
    links++;
    sw = pt.peer_node;
    sw_port = pt.peer_port;
  }
  return links == 1 && is_internal_switch_port(f, sw, sw_port);
}

}  // namespace ftroute
