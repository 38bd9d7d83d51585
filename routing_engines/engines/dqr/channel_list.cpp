#include "ftroute/dqr/channel_list.hpp"

#include <algorithm>
#include <queue>

#include "ftroute/error.hpp"

namespace ftroute {

void ChannelList::resize(Id n) {
  if (pos_.size() >= n) return;
  pos_.resize(n, -1);
  out_.resize(n);
  in_.resize(n);
  mark_.resize(n, 0);
}

ChannelList::ChannelList(Id num_ids, const std::vector<Id>& channels, const std::vector<Dep>& deps) {
  resize(num_ids);
  for (Id c : channels) add_channel(c);
  for (auto [a, b] : deps) {
    add_channel(a);
    add_channel(b);
    insert_dep(a, b);
  }
  rebuild_order();
}

ChannelList ChannelList::build(const Fabric& fabric, const Routing& routing, const ChannelListOptions& options) {
  CdgBuildOptions co;
  co.switch_sources = options.switch_sources;
  co.switch_destinations = true;
  co.collect_loads = false;
  CdgBuild b = build_cdg(fabric, routing, co);
  if (auto cyc = b.cdg.find_cycle(-1))
    throw EngineError("dqr", "routing by '" + routing.engine +
                                 "' is not deadlock-free, no channel list exists: dependency cycle " +
                                 b.cdg.format_cycle(*cyc));
  auto order = b.cdg.topological_order(-1, true);
  if (!order) throw EngineError("dqr", "routing by '" + routing.engine + "' is not deadlock-free (cyclic CDG)");
  ChannelList cl;
  cl.fabric_ = &fabric;
  cl.ids_ = Cdg(fabric);
  cl.resize(cl.ids_.num_ids());
  for (Id c : *order) cl.add_channel(c);
  cl.init_turns();
  // the CDG's successor lists are sorted and unique: taken over as they are (what insert_dep
  // would build from its edges, in the same order)
  std::vector<uint32_t> in_count(cl.pos_.size(), 0);
  for (Id a = 0; a < b.cdg.num_ids(); a++) {
    auto [p, e] = b.cdg.successors(a);
    for (const Id* x = p; x != e; x++) in_count[*x]++;
  }
  for (Id x = 0; x < in_count.size(); x++) cl.in_[x].reserve(in_count[x]);
  for (Id a = 0; a < b.cdg.num_ids(); a++) {
    auto [p, e] = b.cdg.successors(a);
    if (p == e) continue;
    cl.out_[a].assign(p, e);
    cl.num_deps_ += static_cast<size_t>(e - p);
    for (const Id* x = p; x != e; x++) {
      cl.in_[*x].push_back(a);
      if (auto [w, bit] = cl.turn_bit(a, *x); w >= 0) cl.turns_[static_cast<size_t>(w)] |= 1ULL << bit;
    }
  }
  std::string why;
  if (!cl.valid(&why)) cl.rebuild_order();  // cannot happen with a correct topological order
  return cl;
}

void ChannelList::add_channel(Id c) {
  resize(c + 1);
  if (pos_[c] >= 0) return;
  order_version_++;
  pos_[c] = static_cast<int32_t>(ord_.size());
  ord_.push_back(c);
  if (!turn_slot_.empty()) {
    if (turn_slot_.size() <= c) turn_slot_.resize(c + 1, -1);
    turn_slot_[c] = static_cast<int32_t>(turns_.size() / 4);
    turns_.resize(turns_.size() + 4, 0);
    for (Id b : out_[c])  // dependencies recorded before c had a row
      if (auto [w, bit] = turn_bit(c, b); w >= 0) turns_[static_cast<size_t>(w)] |= 1ULL << bit;
  }
}

void ChannelList::init_turns() {
  const int nl = ids_.num_links();
  tlink_.assign(static_cast<size_t>(nl), {});
  for (int l = 0; l < nl; l++) {
    const int n = ids_.link_node(l), p = ids_.link_port(l);
    tlink_[static_cast<size_t>(l)].node = n;
    tlink_[static_cast<size_t>(l)].port = p;
    const Port& pt = fabric_->node(n).port(p);
    if (p > 0 && pt.connected()) tlink_[static_cast<size_t>(l)].head = pt.peer_node;
  }
  turn_slot_.assign(pos_.size(), -1);
  turns_.assign(ord_.size() * 4, 0);
  for (size_t i = 0; i < ord_.size(); i++) turn_slot_[ord_[i]] = static_cast<int32_t>(i);
  for (Id a = 0; a < out_.size(); a++)
    for (Id b : out_[a])
      if (auto [w, bit] = turn_bit(a, b); w >= 0) turns_[static_cast<size_t>(w)] |= 1ULL << bit;
}

void ChannelList::insert_dep(Id a, Id b) {
  std::vector<Id>& o = out_[a];
  auto it = std::lower_bound(o.begin(), o.end(), b);
  if (it != o.end() && *it == b) return;
  o.insert(it, b);
  in_[b].push_back(a);
  num_deps_++;
  if (journaling_) journal_.push_back({a, b});
  if (auto [w, bit] = turn_bit(a, b); w >= 0) turns_[static_cast<size_t>(w)] |= 1ULL << bit;
}

bool ChannelList::has_dep(Id a, Id b) const {
  if (auto [w, bit] = turn_bit(a, b); w >= 0) return (turns_[static_cast<size_t>(w)] >> bit) & 1;
  if (a >= out_.size()) return false;
  const std::vector<Id>& o = out_[a];
  if (o.size() <= 16) {  // most channels have few successors: a scan beats the binary search
    for (Id x : o)
      if (x == b) return true;
    return false;
  }
  return std::binary_search(o.begin(), o.end(), b);
}

std::vector<ChannelList::Dep> ChannelList::dependencies() const {
  std::vector<Dep> r;
  r.reserve(num_deps_);
  for (Id a = 0; a < out_.size(); a++)
    for (Id b : out_[a]) r.emplace_back(a, b);
  return r;  // sorted: by source id, successors kept sorted
}

bool ChannelList::valid(std::string* why) const {
  for (size_t i = 0; i < ord_.size(); i++)
    if (pos_[ord_[i]] != static_cast<int32_t>(i)) {
      if (why) *why = "position table out of sync at " + std::to_string(i);
      return false;
    }
  for (Id a = 0; a < out_.size(); a++)
    for (Id b : out_[a])
      if (!contains(a) || !contains(b) || pos_[a] >= pos_[b]) {
        if (why) *why = "dependency " + name(a) + " -> " + name(b) + " goes down";
        return false;
      }
  return true;
}

std::string ChannelList::name(Id c) const {
  if (fabric_) return ids_.name(c);
  return "#" + std::to_string(c);
}

std::string ChannelList::describe(size_t max_lines) const {
  std::string s;
  for (size_t i = 0; i < ord_.size() && i < max_lines; i++) s += std::to_string(i) + " " + name(ord_[i]) + "\n";
  if (ord_.size() > max_lines) s += "... (" + std::to_string(ord_.size() - max_lines) + " more)\n";
  return s;
}

bool ChannelList::can_enable(Id a, Id b, const std::vector<Dep>& extra) const {
  if (a == b) return false;
  if (!contains(a) || !contains(b)) return false;
  if (has_dep(a, b)) return true;  // already there: adding it changes nothing
  // Upward extra edges behave like ordinary deps; only downward ones can lead back below.
  int bound = pos_[a];
  for (auto [x, y] : extra)
    if (pos(x) >= pos(y)) bound = std::max(bound, pos(x));
  if (pos_[b] > bound) return true;  // b and everything above it can never come back down
  // DFS from b over deps + extra, limited to positions <= bound, looking for a.
  if (++stamp_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  dfs_calls_++;
  std::vector<Id> stack{b};
  mark_[b] = stamp_;
  while (!stack.empty()) {
    Id u = stack.back();
    stack.pop_back();
    dfs_visited_++;
    if (u == a) return false;
    auto visit = [&](Id v) {
      if (v < pos_.size() && pos_[v] >= 0 && pos_[v] <= bound && mark_[v] != stamp_) {
        mark_[v] = stamp_;
        stack.push_back(v);
      }
    };
    for (Id v : out_[u]) visit(v);
    for (auto [x, y] : extra)
      if (x == u) visit(y);
  }
  return true;
}

bool ChannelList::enable(Id a, Id b) {
  if (a == b || !contains(a) || !contains(b)) return false;
  if (has_dep(a, b)) return true;
  const int lb = pos_[b], ub = pos_[a];
  if (lb > ub) {
    insert_dep(a, b);
    return true;
  }
  // Pearce-Kelly: forward set from b within [lb, ub], backward set from a within [lb, ub].
  if (++stamp_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  std::vector<Id> fwd, stack{b};
  mark_[b] = stamp_;
  while (!stack.empty()) {
    Id u = stack.back();
    stack.pop_back();
    if (u == a) return false;  // cycle
    fwd.push_back(u);
    for (Id v : out_[u])
      if (pos_[v] <= ub && mark_[v] != stamp_) mark_[v] = stamp_, stack.push_back(v);
  }
  std::vector<Id> bwd;
  stack.push_back(a);
  mark_[a] = stamp_;
  while (!stack.empty()) {
    Id u = stack.back();
    stack.pop_back();
    bwd.push_back(u);
    for (Id v : in_[u])
      if (pos_[v] >= lb && mark_[v] != stamp_) mark_[v] = stamp_, stack.push_back(v);
  }
  auto by_pos = [&](Id x, Id y) { return pos_[x] < pos_[y]; };
  std::sort(fwd.begin(), fwd.end(), by_pos);
  std::sort(bwd.begin(), bwd.end(), by_pos);
  std::vector<int32_t> slots;
  slots.reserve(fwd.size() + bwd.size());
  for (Id x : fwd) slots.push_back(pos_[x]);
  for (Id x : bwd) slots.push_back(pos_[x]);
  std::sort(slots.begin(), slots.end());
  size_t i = 0;
  for (Id x : bwd) pos_[x] = slots[i], ord_[static_cast<size_t>(slots[i])] = x, i++;
  for (Id x : fwd) pos_[x] = slots[i], ord_[static_cast<size_t>(slots[i])] = x, i++;
  moved_ += fwd.size() + bwd.size();
  order_version_++;
  enabled_++;
  insert_dep(a, b);
  return true;
}

void ChannelList::erase_dep(Id a, Id b) {
  if (a >= out_.size() || b >= in_.size()) return;
  std::vector<Id>& o = out_[a];
  auto it = std::lower_bound(o.begin(), o.end(), b);
  if (it == o.end() || *it != b) return;
  o.erase(it);
  std::vector<Id>& in = in_[b];
  in.erase(std::find(in.begin(), in.end(), a));
  if (auto [w, bit] = turn_bit(a, b); w >= 0) turns_[static_cast<size_t>(w)] &= ~(1ULL << bit);
  num_deps_--;
}

void ChannelList::drop_dependencies_of(Id c) {
  if (c >= out_.size()) return;
  std::vector<Dep> deps;
  for (Id b : out_[c]) deps.push_back({c, b});
  for (Id a : in_[c]) deps.push_back({a, c});
  drop_dependencies(deps);
}

void ChannelList::drop_dependencies(const std::vector<Dep>& deps) {
  for (auto [a, b] : deps) erase_dep(a, b);
}

bool ChannelList::can_enable_all(const std::vector<Dep>& deps) const {
  std::vector<Dep> prefix;
  prefix.reserve(deps.size());
  for (auto d : deps) {
    if (!can_enable(d.first, d.second, prefix)) return false;
    prefix.push_back(d);
  }
  return true;
}

bool ChannelList::enable_all(const std::vector<Dep>& deps) {
  if (!can_enable_all(deps)) return false;
  for (auto d : deps)
    if (!enable(d.first, d.second)) throw Error("channel list: joint check accepted a cyclic turn set (bug)");
  return true;
}

void ChannelList::replace_dependencies(const std::vector<Dep>& deps) {
  num_deps_ = 0;
  for (auto& v : out_) v.clear();
  for (auto& v : in_) v.clear();
  std::fill(turns_.begin(), turns_.end(), 0);
  bool down = false;
  for (auto [a, b] : deps) {
    add_channel(a);
    add_channel(b);
    insert_dep(a, b);
    if (pos_[a] >= pos_[b]) down = true;
  }
  if (down) rebuild_order();
}

void ChannelList::rebuild_order() {
  // Kahn's algorithm, ready channels taken by current position (stable).
  std::vector<uint32_t> indeg(pos_.size(), 0);
  for (const std::vector<Id>& o : out_)
    for (Id b : o) indeg[b]++;
  using Item = std::pair<int32_t, Id>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (Id c : ord_)
    if (indeg[c] == 0) ready.push({pos_[c], c});
  std::vector<Id> out;
  out.reserve(ord_.size());
  while (!ready.empty()) {
    Id u = ready.top().second;
    ready.pop();
    out.push_back(u);
    for (Id v : out_[u])
      if (--indeg[v] == 0) ready.push({pos_[v], v});
  }
  if (out.size() != ord_.size()) {
    for (Id c : ord_)
      if (indeg[c] > 0) {
        Id nxt = 0;
        for (Id v : out_[c])
          if (indeg[v] > 0) nxt = v;
        throw Error("channel list: dependencies are cyclic (e.g. through " + name(c) + " -> " + name(nxt) + ")");
      }
  }
  ord_ = std::move(out);
  for (size_t i = 0; i < ord_.size(); i++) pos_[ord_[i]] = static_cast<int32_t>(i);
  order_version_++;
}

}  // namespace ftroute
