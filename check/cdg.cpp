// The channel dependency graph itself: channel ids, edges (CSR), used channels, cycle search and
// topological order. build_cdg() fills it from a routing (cdg_build.cpp, its switch-level pass in
// cdg_fast.cpp).
#include "ftroute/cdg.hpp"

#include <algorithm>
#include <deque>

#include "ftroute/error.hpp"

namespace ftroute {

// ---------------------------------------------------------------- Cdg

Cdg::Cdg(const Fabric& f) : fabric_(&f) {
  port_base_.resize(static_cast<size_t>(f.size()));
  int next = 0;
  for (int i = 0; i < f.size(); i++) {
    port_base_[static_cast<size_t>(i)] = next;
    const int np = f.node(i).num_ports;
    for (int p = 0; p <= np; p++) {
      link_node_.push_back(i);
      link_port_.push_back(p);
    }
    next += np + 1;
  }
  used_.assign(num_ids(), 0);
}

Channel Cdg::channel(Id c) const {
  const int link = static_cast<int>(c / kNumVlSlots);
  return Channel{link_node(link), static_cast<uint8_t>(link_port(link)), static_cast<uint8_t>(c % kNumVlSlots)};
}

std::string Cdg::name(const Channel& c) const {
  return fabric_->port_name(c.node, c.port) + " vl" + std::to_string(c.vl);
}

std::string Cdg::format_cycle(const std::vector<Channel>& cycle) const {
  std::string s;
  for (const auto& c : cycle) s += name(c) + " -> ";
  if (!cycle.empty()) s += name(cycle.front());
  return s;
}

void Cdg::mark_used(Id c) {
  if (c >= used_.size()) throw Error("Cdg: channel id " + std::to_string(c) + " out of range");
  used_[c] = 1;
}

void Cdg::add_dependency(Id from, Id to) {
  mark_used(from);
  mark_used(to);
  edge_list_.push_back((static_cast<uint64_t>(from) << 32) | to);
}

void Cdg::add_dependencies(std::vector<uint32_t> off, std::vector<Id> adj) {
  const size_t n = static_cast<size_t>(num_ids());
  if (off.size() != n + 1 || off[0] != 0 || off[n] != adj.size())
    throw Error("Cdg::add_dependencies: the offsets do not fit the channels or the successor list");
  for (size_t c = 0; c < n; c++) {
    if (off[c] > off[c + 1]) throw Error("Cdg::add_dependencies: decreasing offsets");
    if (off[c] == off[c + 1]) continue;
    used_[c] = 1;
    for (uint32_t k = off[c]; k < off[c + 1]; k++) {
      if (adj[k] >= n) throw Error("Cdg: channel id " + std::to_string(adj[k]) + " out of range");
      if (k > off[c] && adj[k] <= adj[k - 1]) throw Error("Cdg::add_dependencies: a successor list is not increasing");
      used_[adj[k]] = 1;
    }
  }
  if (edge_list_.empty() && (off_.size() != n + 1 || adj_.empty())) {
    off_ = std::move(off);
    adj_ = std::move(adj);
    return;
  }
  append_csr(off, adj);
}

void Cdg::append_csr(const std::vector<uint32_t>& off, const std::vector<Id>& adj) const {
  for (size_t c = 0; c + 1 < off.size(); c++)
    for (uint32_t k = off[c]; k < off[c + 1]; k++) edge_list_.push_back((static_cast<uint64_t>(c) << 32) | adj[k]);
}

void Cdg::finalize() const {
  const size_t n = static_cast<size_t>(num_ids());
  if (edge_list_.empty() && off_.size() == n + 1) return;
  // The adjacency built so far joins the edges added since.
  if (off_.size() == n + 1) append_csr(off_, adj_);
  // Counting sort by source channel into the CSR, then sort + dedupe each (short) successor
  // list: O(edges + channels), no sort of the whole edge list.
  off_.assign(n + 1, 0);
  for (uint64_t e : edge_list_) off_[(e >> 32) + 1]++;
  for (size_t i = 1; i <= n; i++) off_[i] += off_[i - 1];
  adj_.resize(edge_list_.size());
  {
    std::vector<uint32_t> pos(off_.begin(), off_.end() - 1);
    for (uint64_t e : edge_list_) adj_[pos[e >> 32]++] = static_cast<Id>(e & 0xffffffffu);
  }
  size_t w = 0;
  uint32_t start = 0;
  for (size_t c = 0; c < n; c++) {
    const uint32_t end = off_[c + 1];
    std::sort(adj_.begin() + start, adj_.begin() + end);
    const size_t w0 = w;
    for (uint32_t k = start; k < end; k++)
      if (w == w0 || adj_[w - 1] != adj_[k]) adj_[w++] = adj_[k];
    start = end;
    off_[c + 1] = static_cast<uint32_t>(w);
  }
  adj_.resize(w);
  adj_.shrink_to_fit();
  edge_list_.clear();
  edge_list_.shrink_to_fit();
}

size_t Cdg::num_edges() const {
  finalize();
  return adj_.size();
}

std::vector<Cdg::Id> Cdg::used_channels(int vl) const {
  std::vector<Id> r;
  for (Id c = 0; c < used_.size(); c++)
    if (used_[c] && (vl < 0 || vl_of(c) == vl)) r.push_back(c);
  return r;
}

std::vector<int> Cdg::vls_used() const {
  uint32_t mask = 0;
  for (Id c = 0; c < used_.size(); c++)
    if (used_[c]) mask |= 1u << vl_of(c);
  std::vector<int> r;
  for (int v = 0; v < kNumVlSlots; v++)
    if (mask & (1u << v)) r.push_back(v);
  return r;
}

bool Cdg::has_edge(Id from, Id to) const {
  finalize();
  if (from >= num_ids()) return false;
  return std::binary_search(adj_.begin() + off_[from], adj_.begin() + off_[from + 1], to);
}

std::pair<const Cdg::Id*, const Cdg::Id*> Cdg::successors(Id c) const {
  finalize();
  if (c >= num_ids() || adj_.empty()) return {nullptr, nullptr};
  return {adj_.data() + off_[c], adj_.data() + off_[c + 1]};
}

std::vector<std::pair<Cdg::Id, Cdg::Id>> Cdg::edges(int vl) const {
  finalize();
  std::vector<std::pair<Id, Id>> r;
  for (Id a = 0; a + 1 < off_.size(); a++)
    for (uint32_t k = off_[a]; k < off_[a + 1]; k++)
      if (vl < 0 || (vl_of(a) == vl && vl_of(adj_[k]) == vl)) r.emplace_back(a, adj_[k]);
  return r;
}

size_t Cdg::num_vl_changing_edges() const {
  finalize();
  size_t n = 0;
  for (Id a = 0; a + 1 < off_.size(); a++)
    for (uint32_t k = off_[a]; k < off_[a + 1]; k++)
      if (vl_of(a) != vl_of(adj_[k])) n++;
  return n;
}

std::optional<std::vector<Channel>> Cdg::find_cycle(int vl) const {
  finalize();
  const Id n = num_ids();
  std::vector<uint8_t> color(n, 0);  // 0 white, 1 on stack, 2 done
  std::vector<std::pair<Id, uint32_t>> stack;  // (channel, next edge offset)
  auto ok = [&](Id c) { return vl < 0 || vl_of(c) == vl; };
  for (Id root = 0; root < n; root++) {
    if (color[root] || off_[root] == off_[root + 1] || !ok(root)) continue;
    stack.clear();
    stack.emplace_back(root, off_[root]);
    color[root] = 1;
    while (!stack.empty()) {
      auto& [c, k] = stack.back();
      if (k == off_[c + 1]) {
        color[c] = 2;
        stack.pop_back();
        continue;
      }
      const Id s = adj_[k++];
      if (!ok(s) || color[s] == 2) continue;
      if (color[s] == 1) {  // back edge: the cycle is the stack from s to the top
        std::vector<Channel> cyc;
        size_t i = stack.size();
        while (i > 0 && stack[i - 1].first != s) i--;
        for (size_t j = i - 1; j < stack.size(); j++) cyc.push_back(channel(stack[j].first));
        return cyc;
      }
      color[s] = 1;
      stack.emplace_back(s, off_[s]);
    }
  }
  return std::nullopt;
}

std::optional<std::vector<Cdg::Id>> Cdg::topological_order(int vl, bool include_unused) const {
  finalize();
  const Id n = num_ids();
  std::vector<uint8_t> in_set(n, 0);
  std::vector<int> vls;
  if (vl >= 0) vls.push_back(vl);
  else vls = vls_used();
  for (Id c = 0; c < n; c++)
    if (used_[c] && (vl < 0 || vl_of(c) == vl)) in_set[c] = 1;
  if (include_unused) {
    for (int link = 0; link < num_links(); link++) {
      const int nd = link_node(link), p = link_port(link);
      if (p == 0 || !fabric_->node(nd).port(p).connected()) continue;
      for (int v : vls) in_set[static_cast<Id>(link) * kNumVlSlots + static_cast<Id>(v)] = 1;
    }
  }
  std::vector<uint32_t> indeg(n, 0);
  size_t count = 0;
  for (Id c = 0; c < n; c++) {
    if (!in_set[c]) continue;
    count++;
    for (uint32_t k = off_[c]; k < off_[c + 1]; k++)
      if (in_set[adj_[k]]) indeg[adj_[k]]++;
  }
  // Kahn with a FIFO seeded in id order: deterministic.
  std::deque<Id> q;
  for (Id c = 0; c < n; c++)
    if (in_set[c] && indeg[c] == 0) q.push_back(c);
  std::vector<Id> order;
  order.reserve(count);
  while (!q.empty()) {
    Id c = q.front();
    q.pop_front();
    order.push_back(c);
    for (uint32_t k = off_[c]; k < off_[c + 1]; k++) {
      Id s = adj_[k];
      if (in_set[s] && --indeg[s] == 0) q.push_back(s);
    }
  }
  if (order.size() != count) return std::nullopt;
  return order;
}

}  // namespace ftroute
