#include "ftroute/cdg.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>

#include "ftroute/error.hpp"
#include "ftroute/parallel.hpp"
#include "ftroute/route_walk.hpp"

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
  dirty_ = true;
}

void Cdg::finalize() const {
  if (!dirty_ && off_.size() == static_cast<size_t>(num_ids()) + 1) return;
  // Counting sort by source channel into the CSR, then sort + dedupe each (short) successor
  // list: O(edges + channels), no sort of the whole edge list.
  const size_t n = static_cast<size_t>(num_ids());
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
  edge_list_.resize(w);
  for (size_t c = 0; c < n; c++)
    for (uint32_t k = off_[c]; k < off_[c + 1]; k++) edge_list_[k] = (static_cast<uint64_t>(c) << 32) | adj_[k];
  dirty_ = false;
}

size_t Cdg::num_edges() const {
  finalize();
  return edge_list_.size();
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
  for (uint64_t e : edge_list_) {
    Id a = static_cast<Id>(e >> 32), b = static_cast<Id>(e & 0xffffffffu);
    if (vl < 0 || (vl_of(a) == vl && vl_of(b) == vl)) r.emplace_back(a, b);
  }
  return r;
}

size_t Cdg::num_vl_changing_edges() const {
  finalize();
  size_t n = 0;
  for (uint64_t e : edge_list_)
    if (vl_of(static_cast<Id>(e >> 32)) != vl_of(static_cast<Id>(e & 0xffffffffu))) n++;
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

const char* drop_kind_text(DropKind k) {
  switch (k) {
    case DropKind::NoRoute: return "no route (LFT entry 255)";
    case DropKind::BadPort: return "LFT names a port the switch does not have";
    case DropKind::DownPort: return "LFT names a port with no link";
    case DropKind::NotLocal: return "LFT entry 0 (local) but the switch does not own the LID";
    case DropKind::WrongEndpoint: return "delivered to a node that does not own the LID";
    case DropKind::Loop: return "forwarding loop";
  }
  return "?";
}

// ---------------------------------------------------------------- build_cdg

namespace {

struct Source {
  Lid lid;
  int node;           // source node (CA or switch)
  int port;           // source end port (0 for a switch)
  int sw;             // first switch
  int in_port;        // input port on that switch (0 for a switch source)
  int inj_link;       // CA injection link id, -1 for a switch source
};

struct Drop {
  DropKind kind;
  int node;
  int port;
};

// ---- Switch-level pass (the common case: identity SL2VL, no path SLs, so every pair runs on VL0
// and a packet's route from a switch does not depend on where it came from). The LFT column of a
// destination is an in-tree over the switches: each switch reached from a source is resolved
// once (memoised, stamps instead of clearing), and the sources are counted per first switch
// instead of walked one by one, so a destination costs O(switches), not O(sources). Edges, used
// channels, counts, hop histogram and link loads are the same as the per-source walk's
// (tests/unit/cdg_fast_test.cpp compares both on many fabrics).
//
// Destinations run in parallel (CdgBuildOptions::threads), each worker with its own
// accumulators (sums, bit sets), merged at the end: the result does not depend on the thread
// count. The walk is the check library's RouteWalker (route_walk.hpp: memoised per LID, LFTs read
// in blocks of 64 LIDs per switch, one cache line per switch instead of one per entry). A destination with unreachable or looping pairs is deferred to a sequential
// pass in destination order, which hands it to the per-source walk while examples are still
// wanted, so the examples name the same pairs in the same order as a sequential build.
struct FastShared {
  const Fabric& f;
  const Cdg& cdg;
  bool collect_loads = true;
  int nlinks = 0;
  std::vector<int> swl;             // switch positions -> node
  std::vector<int> swpos;           // node -> switch position (-1)
  std::vector<int> nports;          // by node
  std::vector<uint8_t> is_sw;       // by node
  std::vector<int> peer_node, peer_port;  // by link id
  std::vector<size_t> pair_base;    // by node: (s, out, in) index base (see build_cdg)
  std::vector<uint32_t> ca_cnt;     // CA source entries whose first switch is this one
  std::vector<uint8_t> sw_src;      // the switch is a source itself
  std::vector<std::vector<std::pair<int, int>>> ca_at;  // (injection link, input port), one per link
  std::vector<uint32_t> link_entries;  // CA source entries per injection link
  std::vector<int> link_base, np_pos;  // by switch position: Cdg link id of port 0, ports
  std::vector<size_t> pair_base_pos;   // by switch position: pair_base of the node
  size_t npairs = 0;
  FastShared(const Fabric& fab, const Cdg& c) : f(fab), cdg(c) {}
};

class FastWorker {
 public:
  FastWorker(const FastShared& sh, const Lfts& lfts) : sh_(sh), walker_(sh.f, lfts) {
    const size_t NS = sh.swl.size(), nl = static_cast<size_t>(sh.nlinks);
    deliv_count.assign(NS, 0);
    fkind_.assign(NS, 0);
    fhops_.assign(NS, 0);
    foutch_.assign(NS, -1);
    fnext_.assign(NS, -1);
    ftot_.assign(NS, 0);
    inj_done_.assign(nl, 0);
    used_link.assign(nl, 0);
    own_fast.assign(nl, 0);
    inj_corr.assign(nl, 0);
    edge_bits.assign(sh.npairs / 64 + 1, 0);
    if (sh.collect_loads) link_load.assign(nl, 0);
  }

  // Accumulators (merged by build_cdg).
  uint64_t pairs = 0, delivered = 0, dropped = 0, looping = 0, per_kind[6] = {};
  std::vector<uint64_t> hop_histogram, link_load, inj_corr;
  std::vector<uint32_t> deliv_count, own_fast;
  std::vector<uint8_t> used_link;    // VL0 channel of the link used
  std::vector<uint64_t> edge_bits;   // (s, out, in) pair index: dependency peer(s,in) -> (s,out)
  uint32_t fast_dests = 0;

  // Resolves destination LID d (owned by de); commits it and returns true unless it has
  // unreachable pairs and want_unreach, or looping pairs and want_loop (then nothing changed).
  bool run(const EndPort& de, Lid d, bool want_unreach, bool want_loop);

 private:
  // switch at position u: dependency (link arriving at in) -> (out port o)
  void add_edge(size_t u, int in, int o) {
    const size_t p = sh_.pair_base_pos[u] + static_cast<size_t>(o) * static_cast<size_t>(sh_.np_pos[u] + 1) +
                     static_cast<size_t>(in);
    const uint64_t bit = uint64_t{1} << (p & 63);
    if (!(edge_bits[p >> 6] & bit)) edge_bits[p >> 6] |= bit;
  }
  void resolve(int i0, const EndPort& de);

  const FastShared& sh_;
  RouteWalker walker_;
  std::vector<int8_t> fkind_;  // -1 delivered, else DropKind
  std::vector<uint16_t> fhops_;
  std::vector<int32_t> foutch_, fnext_;
  std::vector<uint64_t> ftot_;
  std::vector<uint8_t> inj_done_;  // by link id of the first switch's output
  std::vector<int> resolved_;
  std::vector<std::vector<int>> fbuckets_;
};

// One walk of the check library's RouteWalker from switch position i0; records each switch's
// output channel and next switch, then its outcome and hop count back along the walk.
void FastWorker::resolve(int i0, const EndPort& de) {
  const Cdg& cdg = sh_.cdg;
  const RouteWalker::Walk w = walker_.walk(sh_.swl[static_cast<size_t>(i0)], [&](int s, const RouteHop& hp) {
    const size_t u = static_cast<size_t>(walker_.pos(s));
    fnext_[u] = hp.kind == RouteHop::Forward ? walker_.pos(hp.next) : -1;
    // a channel whenever the entry names a linked port (to a switch, the owner or another CA)
    const bool linked = hp.kind == RouteHop::Forward || (hp.kind == RouteHop::Delivered && hp.port != 0) ||
                        (hp.kind == RouteHop::Dropped && hp.drop == DropKind::WrongEndpoint);
    foutch_[u] = linked ? static_cast<int32_t>(static_cast<Cdg::Id>(sh_.link_base[u] + hp.port) * kNumVlSlots) : -1;
  });
  int8_t kind = -1;
  int h = 0;
  switch (w.end) {
    case RouteWalker::End::Delivered: h = w.hop.port == 0 ? 0 : 1; break;
    case RouteWalker::End::Dropped:
      kind = static_cast<int8_t>(w.hop.drop);
      h = w.hop.drop == DropKind::WrongEndpoint ? 1 : 0;
      break;
    case RouteWalker::End::Joined: {
      const size_t j = static_cast<size_t>(walker_.pos(w.sw));
      kind = fkind_[j];
      h = fhops_[j] + 1;
      break;
    }
    case RouteWalker::End::Loop: kind = static_cast<int8_t>(DropKind::Loop); break;
  }
  (void)de;
  (void)cdg;
  const auto& path = walker_.path();
  for (size_t k = path.size(); k-- > 0;) {
    const int i = walker_.pos(path[k]);
    fkind_[static_cast<size_t>(i)] = kind;
    fhops_[static_cast<size_t>(i)] = static_cast<uint16_t>(h);
    resolved_.push_back(i);
    h++;
  }
}

bool FastWorker::run(const EndPort& de, Lid d, bool want_unreach, bool want_loop) {
  walker_.begin(d, de.node, de.port);
  const Cdg& cdg = sh_.cdg;
  int self_sw = -1, self_leaf = -1, self_link = -1;
  uint32_t self_entries = 0;
  if (sh_.is_sw[static_cast<size_t>(de.node)]) {
    const int i = sh_.swpos[static_cast<size_t>(de.node)];
    if (sh_.sw_src[static_cast<size_t>(i)]) self_sw = i;
  } else if (de.port >= 1 && de.port <= sh_.nports[static_cast<size_t>(de.node)]) {
    const int l = cdg.link_id(de.node, de.port);
    if (sh_.link_entries[static_cast<size_t>(l)] > 0) {
      self_link = l;
      self_entries = sh_.link_entries[static_cast<size_t>(l)];
      self_leaf = sh_.swpos[static_cast<size_t>(sh_.peer_node[static_cast<size_t>(l)])];
    }
  }
  auto c_ca = [&](int i) -> uint32_t {
    return sh_.ca_cnt[static_cast<size_t>(i)] - (i == self_leaf ? self_entries : 0u);
  };
  auto c_sw = [&](int i) -> uint32_t { return sh_.sw_src[static_cast<size_t>(i)] && i != self_sw ? 1u : 0u; };
  resolved_.clear();
  uint64_t bad = 0, loops = 0;
  const size_t NS = sh_.swl.size();
  for (size_t i = 0; i < NS; i++) {
    if (c_ca(static_cast<int>(i)) + c_sw(static_cast<int>(i)) == 0) continue;
    if (!walker_.known(sh_.swl[i])) resolve(static_cast<int>(i), de);
    if (fkind_[i] >= 0) {
      const uint64_t c = c_ca(static_cast<int>(i)) + c_sw(static_cast<int>(i));
      if (fkind_[i] == static_cast<int8_t>(DropKind::Loop)) loops += c;
      else bad += c;
    }
  }
  if ((bad && want_unreach) || (loops && want_loop)) return false;
  // Commit: channels, dependencies, counts.
  fast_dests++;
  if (self_link >= 0) own_fast[static_cast<size_t>(self_link)]++;
  int max_h = 0;
  for (int i : resolved_) {
    const size_t u = static_cast<size_t>(i);
    const int32_t oc = foutch_[u];
    if (oc < 0) continue;
    if (!used_link[static_cast<size_t>(oc / kNumVlSlots)]) used_link[static_cast<size_t>(oc / kNumVlSlots)] = 1;
    const int j = fnext_[u];
    if (j >= 0 && foutch_[static_cast<size_t>(j)] >= 0) {
      const int link = oc / kNumVlSlots;
      add_edge(static_cast<size_t>(j), sh_.peer_port[static_cast<size_t>(link)],
               foutch_[static_cast<size_t>(j)] / kNumVlSlots - sh_.link_base[static_cast<size_t>(j)]);
    }
    // Injection dependencies of the CA sources behind this switch (once per output port).
    if (c_ca(i) > 0 && !inj_done_[static_cast<size_t>(oc / kNumVlSlots)]) {
      const int o = oc / kNumVlSlots - sh_.link_base[u];
      for (const auto& [inj, inport] : sh_.ca_at[u])
        if (inj != self_link) add_edge(u, inport, o);
      if (i != self_leaf) inj_done_[static_cast<size_t>(oc / kNumVlSlots)] = 1;
    }
  }
  for (int i : resolved_) {
    const size_t u = static_cast<size_t>(i);
    const uint64_t cc = c_ca(i), cs = c_sw(i);
    if (cc + cs == 0) continue;
    pairs += cc + cs;
    if (fkind_[u] < 0) {
      delivered += cc + cs;
      const int h = fhops_[u] + (cc ? 1 : 0);
      if (static_cast<size_t>(h) >= hop_histogram.size()) hop_histogram.resize(static_cast<size_t>(h) + 1, 0);
      if (cs) hop_histogram[fhops_[u]] += cs;
      if (cc) hop_histogram[static_cast<size_t>(fhops_[u]) + 1] += cc;
      max_h = std::max(max_h, h);
    } else {
      per_kind[static_cast<int>(fkind_[u])] += cc + cs;
      if (fkind_[u] == static_cast<int8_t>(DropKind::Loop)) looping += cc + cs;
      else dropped += cc + cs;
    }
  }
  if (sh_.collect_loads) {
    if (fbuckets_.size() < static_cast<size_t>(max_h) + 2) fbuckets_.resize(static_cast<size_t>(max_h) + 2);
    for (auto& b : fbuckets_) b.clear();
    for (int i : resolved_) {
      const size_t u = static_cast<size_t>(i);
      if (fkind_[u] >= 0) continue;
      ftot_[u] = c_ca(i) + c_sw(i);
      if (sh_.ca_cnt[u]) deliv_count[u]++;
      fbuckets_[std::min<size_t>(fhops_[u], fbuckets_.size() - 1)].push_back(i);
    }
    // deliv_count counts this destination for every CA source behind a delivering switch; the
    // destination's own port is no source for it
    if (self_link >= 0 && walker_.known(sh_.swl[static_cast<size_t>(self_leaf)]) && fkind_[static_cast<size_t>(self_leaf)] < 0)
      inj_corr[static_cast<size_t>(self_link)] += self_entries;
    for (size_t h = fbuckets_.size(); h-- > 0;)
      for (int i : fbuckets_[h]) {
        const size_t u = static_cast<size_t>(i);
        const uint64_t c = ftot_[u];
        if (c == 0) continue;
        if (foutch_[u] >= 0) link_load[static_cast<size_t>(foutch_[u]) / kNumVlSlots] += c;
        if (fnext_[u] >= 0) ftot_[static_cast<size_t>(fnext_[u])] += c;
        ftot_[u] = 0;
      }
  }
  return true;
}

}  // namespace

CdgBuild build_cdg(const Fabric& f, const Routing& r, const CdgBuildOptions& opt) {
  CdgBuild out{Cdg(f), {}};
  Cdg& cdg = out.cdg;
  RouteWalkStats& st = out.stats;
  const int nlinks = cdg.num_links();
  const int nnodes = f.size();

  // Flat copies of the topology.
  std::vector<int> peer_node(static_cast<size_t>(nlinks), -1), peer_port(static_cast<size_t>(nlinks), 0);
  std::vector<int> nports(static_cast<size_t>(nnodes));
  std::vector<uint8_t> is_sw(static_cast<size_t>(nnodes));
  for (int i = 0; i < nnodes; i++) {
    const Node& n = f.node(i);
    nports[static_cast<size_t>(i)] = n.num_ports;
    is_sw[static_cast<size_t>(i)] = n.is_switch();
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      peer_node[static_cast<size_t>(cdg.link_id(i, p))] = x.peer_node;
      peer_port[static_cast<size_t>(cdg.link_id(i, p))] = x.peer_port;
    }
  }

  // Dense SL2VL tables: switch (s, in, out) -> 16 VLs; CA port -> 16 VLs. Empty => identity.
  const bool identity_vl = r.sl2vl.empty();
  std::vector<size_t> pair_base(static_cast<size_t>(nnodes), 0);  // (s, in, out) index base
  size_t npairs = 0;
  for (int i = 0; i < nnodes; i++) {
    pair_base[static_cast<size_t>(i)] = npairs;
    if (is_sw[static_cast<size_t>(i)]) npairs += static_cast<size_t>(nports[static_cast<size_t>(i)] + 1) * (nports[static_cast<size_t>(i)] + 1);
  }
  // (s, out, in) order: the sources behind one switch share `out` for a destination, so their
  // entries are adjacent.
  auto pair_index = [&](int s, int in, int o) {
    return pair_base[static_cast<size_t>(s)] + static_cast<size_t>(o) * (nports[static_cast<size_t>(s)] + 1) + static_cast<size_t>(in);
  };
  std::vector<uint8_t> sw_vl, ca_vl;
  if (!identity_vl) {
    sw_vl.assign(npairs * kNumVlSlots, 0);
    ca_vl.assign(static_cast<size_t>(nlinks) * kNumVlSlots, 0);
    for (int i = 0; i < nnodes; i++) {
      const int np = nports[static_cast<size_t>(i)];
      if (is_sw[static_cast<size_t>(i)]) {
        for (int in = 0; in <= np; in++)
          for (int o = 1; o <= np; o++)
            for (int sl = 0; sl < kNumVlSlots; sl++)
              sw_vl[pair_index(i, in, o) * kNumVlSlots + static_cast<size_t>(sl)] = r.sl2vl.vl(i, in, o, sl) & 15;
      } else {
        for (int p = 1; p <= np; p++)
          for (int sl = 0; sl < kNumVlSlots; sl++)
            ca_vl[static_cast<size_t>(cdg.link_id(i, p)) * kNumVlSlots + static_cast<size_t>(sl)] = r.sl2vl.vl(i, 0, p, sl) & 15;
      }
    }
  }

  // Sources.
  std::vector<Source> sources;
  for (const EndPort& e : f.end_ports()) {
    const Node& n = f.node(e.node);
    const Lid last = opt.all_source_lids ? e.last_lid() : e.base_lid;
    if (n.is_switch()) {
      if (!opt.switch_sources) continue;
      sources.push_back({e.base_lid, e.node, 0, e.node, 0, -1});
    } else {
      if (!opt.ca_sources) continue;
      const Port& p = n.port(e.port);
      if (!p.connected() || !f.node(p.peer_node).is_switch()) continue;  // cannot inject
      for (uint32_t l = e.base_lid; l <= last; l++)
        sources.push_back({static_cast<Lid>(l), e.node, e.port, p.peer_node, p.peer_port, cdg.link_id(e.node, e.port)});
    }
  }
  st.sources = static_cast<int>(sources.size());

  // Per-state arrays; a state is (node, in_port, sl), index (link_id(node, in_port)) * 16 + sl.
  // SL-major (index sl * nlinks + link) so the states of one SL are contiguous, and one record per
  // state so a visit touches one cache line.
  struct StateRec {
    uint32_t stamp = 0;
    int32_t next = -1, res = -1, outch = -1;
    uint32_t cnt = 0;
    uint16_t hops = 0;
  };
  const size_t nstates = static_cast<size_t>(nlinks) * kNumVlSlots;
  std::vector<StateRec> S;  // allocated by the first destination the per-source walk handles
  std::unique_ptr<RouteWalker> slow_walker;  // the per-source walk's hops (allocated with S)
  std::vector<uint16_t> edge_cache;  // (s,in,out) -> last (vin*16+vout)+1 inserted (per-source walk)
  if (opt.collect_loads) st.link_load.assign(static_cast<size_t>(nlinks), 0);
  std::vector<uint8_t> used_local(static_cast<size_t>(nlinks) * kNumVlSlots, 0);

  uint32_t walk_id = 0;
  std::vector<int32_t> walk;      // states of the current walk
  std::vector<int32_t> touched;   // states visited for the current destination
  std::vector<Drop> drops;        // per destination
  std::vector<std::vector<int32_t>> buckets;

  auto state_of = [&](int node, int in, int sl) {
    return static_cast<int32_t>(static_cast<size_t>(sl) * static_cast<size_t>(nlinks) + static_cast<size_t>(cdg.link_id(node, in)));
  };
  auto vl_at = [&](int s, int in, int o, int sl) -> int {
    if (identity_vl) return sl;
    return sw_vl[pair_index(s, in, o) * kNumVlSlots + static_cast<size_t>(sl)];
  };
  auto record_edge = [&](int s, int in, int o, Cdg::Id cin, Cdg::Id cout) {
    const uint16_t v = static_cast<uint16_t>(Cdg::vl_of(cin) * kNumVlSlots + Cdg::vl_of(cout) + 1);
    uint16_t& slot = edge_cache[pair_index(s, in, o)];
    if (slot == v) return;
    slot = v;
    cdg.add_dependency(cin, cout);
  };

  // ---- Switch-level pass (FastWorker above): set-up.
  const bool fast_ok = identity_vl && !r.path_sl && !opt.force_per_source;
  FastShared sh(f, cdg);
  if (fast_ok) {
    sh.collect_loads = opt.collect_loads;
    sh.nlinks = nlinks;
    sh.swl = f.switches();
    const size_t NS = sh.swl.size();
    sh.swpos.assign(static_cast<size_t>(nnodes), -1);
    for (size_t i = 0; i < NS; i++) sh.swpos[static_cast<size_t>(sh.swl[i])] = static_cast<int>(i);
    sh.nports = nports;
    sh.is_sw = is_sw;
    sh.peer_node = peer_node;
    sh.peer_port = peer_port;
    sh.pair_base = pair_base;
    sh.npairs = npairs;
    for (size_t i = 0; i < NS; i++) {
      const int node = sh.swl[i];
      sh.link_base.push_back(cdg.link_id(node, 0));
      sh.np_pos.push_back(nports[static_cast<size_t>(node)]);
      sh.pair_base_pos.push_back(pair_base[static_cast<size_t>(node)]);
    }
    sh.ca_cnt.assign(NS, 0);
    sh.sw_src.assign(NS, 0);
    sh.ca_at.resize(NS);
    sh.link_entries.assign(static_cast<size_t>(nlinks), 0);
    for (const Source& src : sources) {
      const size_t i = static_cast<size_t>(sh.swpos[static_cast<size_t>(src.sw)]);
      if (src.inj_link >= 0) {
        sh.ca_cnt[i]++;
        if (sh.link_entries[static_cast<size_t>(src.inj_link)]++ == 0) sh.ca_at[i].emplace_back(src.inj_link, src.in_port);
      } else {
        sh.sw_src[i] = 1;
      }
    }
  }
  // Destinations in order.
  struct Dest {
    const EndPort* de;
    Lid d;
  };
  std::vector<Dest> dlist;
  const std::vector<EndPort> end_ports = f.end_ports();
  for (const EndPort& de : end_ports) {
    if (f.node(de.node).is_switch() && !opt.switch_destinations) continue;
    for (uint32_t dl = de.base_lid; dl <= de.last_lid(); dl++) dlist.push_back({&de, static_cast<Lid>(dl)});
  }
  // Parallel phase: every destination whose pairs all arrive; the others are deferred.
  std::vector<FastWorker> fw;
  std::vector<uint8_t> deferred(dlist.size(), 1);
  if (fast_ok) {
    // default (threads 0): parallel from 4M (switch, destination) pairs on; below that (the
    // fabrics DQR, the campaigns and the plugin check by the thousand, ft648 inside OpenSM) the
    // pass takes milliseconds and spawning threads costs more than it saves
    const long n = static_cast<long>(dlist.size());
    const bool big = static_cast<double>(n) * static_cast<double>(sh.swl.size()) >= 4194304.0;
    const int workers = resolve_threads(opt.threads, opt.threads > 0 ? n : big ? n : 1);
    fw.reserve(static_cast<size_t>(workers));
    for (int w = 0; w < workers; w++) fw.emplace_back(sh, r.lfts);
    const long chunk = std::clamp<long>(static_cast<long>(dlist.size()) / (4L * workers), 1, 64);
    parallel_for(workers, static_cast<long>(dlist.size()), chunk, [&](int w, long k) {
      const Dest& x = dlist[static_cast<size_t>(k)];
      if (fw[static_cast<size_t>(w)].run(*x.de, x.d, true, true)) deferred[static_cast<size_t>(k)] = 0;
    });
  }

  for (const Dest& dst : dlist) {
    const EndPort& de = *dst.de;
    {
      const Lid d = dst.d;
      st.destinations++;
      if (fast_ok && !deferred[static_cast<size_t>(&dst - dlist.data())]) continue;
      if (fast_ok &&
          fw[0].run(de, d, static_cast<int>(st.unreachable_examples.size()) < opt.max_examples,
                    static_cast<int>(st.loop_examples.size()) < opt.max_examples))
        continue;
      if (S.empty()) {
        S.resize(nstates);
        edge_cache.assign(npairs, 0);
        slow_walker = std::make_unique<RouteWalker>(f, r.lfts);
      }
      slow_walker->begin(d, de.node, de.port);
      const uint32_t dest_base = walk_id + 1;
      touched.clear();
      drops.clear();
      int max_hops = 0;
      // Outcome bookkeeping of one pair whose first switch state has result rs / hops h0 and
      // leaves through channel outch towards state next.
      auto account = [&](const Source& src, int32_t rs, uint16_t h0, int32_t outch, int32_t nxt) {
        if (rs < 0) {
          st.delivered++;
          const int h = h0 + (src.inj_link >= 0 ? 1 : 0);
          if (static_cast<size_t>(h) >= st.hop_histogram.size()) st.hop_histogram.resize(static_cast<size_t>(h) + 1, 0);
          st.hop_histogram[static_cast<size_t>(h)]++;
          max_hops = std::max(max_hops, h);
          if (opt.collect_loads) {
            if (src.inj_link >= 0) st.link_load[static_cast<size_t>(src.inj_link)]++;
            if (outch >= 0) st.link_load[static_cast<size_t>(outch) / kNumVlSlots]++;
            if (nxt >= 0) S[static_cast<size_t>(nxt)].cnt++;
          }
          return;
        }
        const Drop& dr = drops[static_cast<size_t>(rs)];
        st.per_kind[static_cast<int>(dr.kind)]++;
        if (dr.kind == DropKind::Loop) {
          st.looping++;
          return;
        }
        st.dropped++;
        if (static_cast<int>(st.unreachable_examples.size()) < opt.max_examples)
          st.unreachable_examples.push_back(
              f.node(src.node).id + "(" + std::to_string(src.lid) + ") -> " + f.node(de.node).id + "(" +
              std::to_string(d) + ") stops at " +
              (dr.kind == DropKind::NoRoute || dr.kind == DropKind::NotLocal ? "\"" + f.node(dr.node).id + "\""
                                                                               : f.port_name(dr.node, dr.port)) +
              ": " + drop_kind_text(dr.kind));
      };
      int fast_sw = -1, fast_sl = -1, fast_out = 0;
      int32_t fast_res = -1, fast_next = -1;
      uint16_t fast_hops = 0;
      for (const Source& src : sources) {
        if (src.node == de.node && src.port == de.port) continue;  // same end port
        const int sl = r.path_sl ? (r.path_sl(src.lid, d) & 15) : 0;
        st.pairs++;
        if (src.sw == fast_sw && sl == fast_sl && src.inj_link >= 0) {
          const int vi = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          const Cdg::Id ci = static_cast<Cdg::Id>(src.inj_link) * kNumVlSlots + static_cast<Cdg::Id>(vi);
          const int vo = vl_at(fast_sw, src.in_port, fast_out, sl);
          const Cdg::Id oc = static_cast<Cdg::Id>(cdg.link_id(fast_sw, fast_out)) * kNumVlSlots + static_cast<Cdg::Id>(vo);
          used_local[ci] = 1;
          used_local[oc] = 1;
          record_edge(fast_sw, src.in_port, fast_out, ci, oc);
          if (fast_next >= 0) {
            const StateRec& nx = S[static_cast<size_t>(fast_next)];
            if (nx.outch >= 0) {
              const int nl = static_cast<int>(static_cast<size_t>(fast_next) % static_cast<size_t>(nlinks));
              record_edge(cdg.link_node(nl), cdg.link_port(nl), cdg.link_port(static_cast<int>(nx.outch / kNumVlSlots)), oc,
                          static_cast<Cdg::Id>(nx.outch));
            }
          }
          account(src, fast_res, fast_hops, static_cast<int32_t>(oc), fast_next);
          continue;
        }
        ++walk_id;
        walk.clear();
        int s = src.sw, in = src.in_port;
        int32_t cin = -1;
        if (src.inj_link >= 0) {
          const int v = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          cin = static_cast<int32_t>(static_cast<Cdg::Id>(src.inj_link) * kNumVlSlots + static_cast<Cdg::Id>(v));
        }
        const int32_t start = state_of(s, in, sl);
        int32_t result = -1;
        int32_t cur = start;
        for (;;) {
          const size_t cu = static_cast<size_t>(cur);
          if (S[cu].stamp >= dest_base) {
            if (S[cu].stamp == walk_id) {  // revisited within this walk: loop
              if (cin >= 0 && S[cu].outch >= 0)  // the dependency that closes the loop
                record_edge(s, in, cdg.link_port(static_cast<int>(S[cu].outch / kNumVlSlots)),
                            static_cast<Cdg::Id>(cin), static_cast<Cdg::Id>(S[cu].outch));
              drops.push_back({DropKind::Loop, s, in});
              result = static_cast<int32_t>(drops.size() - 1);
              if (static_cast<int>(st.loop_examples.size()) < opt.max_examples) {
                std::string txt;
                size_t i = walk.size();
                while (i > 0 && walk[i - 1] != cur) i--;
                for (size_t j = i - 1; j < walk.size(); j++) {
                  const int link = static_cast<int>(static_cast<size_t>(walk[j]) % static_cast<size_t>(nlinks));
                  const int sw = cdg.link_node(link);
                  const int32_t oc = S[static_cast<size_t>(walk[j])].outch;
                  txt += f.port_name(sw, oc >= 0 ? cdg.link_port(static_cast<int>(oc / kNumVlSlots)) : 0) + " -> ";
                }
                txt += "\"" + f.node(s).id + "\" (DLID " + std::to_string(d) + ")";
                st.loop_examples.push_back(txt);
              }
            } else {
              if (cin >= 0 && S[cu].outch >= 0)
                record_edge(s, in, cdg.link_port(static_cast<int>(S[cu].outch / kNumVlSlots)),
                            static_cast<Cdg::Id>(cin), static_cast<Cdg::Id>(S[cu].outch));
              result = S[cu].res;
            }
            break;
          }
          S[cu].stamp = walk_id;
          walk.push_back(cur);
          // A start state (CA-facing input port, or port 0) has no predecessors: its count is
          // settled right after the walk, so it stays out of the per-destination propagation.
          if (cur != start) touched.push_back(cur);
          S[cu].next = -1;
          S[cu].outch = -1;
          // the hop itself is the check library's one (RouteWalker::hop = follow())
          const RouteHop hp = slow_walker->hop(s);
          const int o = hp.port;
          DropKind dk{};
          bool drop = false, done = false;
          if (hp.kind == RouteHop::Dropped && hp.drop != DropKind::WrongEndpoint) {
            dk = hp.drop, drop = true;
          } else if (hp.kind == RouteHop::Delivered && o == 0) {
            S[cu].hops = 0;
            done = true;
          } else {  // a linked port: to the next switch, the owner, or another CA
            const int link = cdg.link_id(s, o);
            const int v = vl_at(s, in, o, sl);
            const Cdg::Id oc = static_cast<Cdg::Id>(link) * kNumVlSlots + static_cast<Cdg::Id>(v);
            S[cu].outch = static_cast<int32_t>(oc);
            used_local[oc] = 1;
            if (cin >= 0) record_edge(s, in, o, static_cast<Cdg::Id>(cin), oc);
            if (hp.kind == RouteHop::Forward) {
              cin = static_cast<int32_t>(oc);
              s = hp.next;
              in = hp.next_port;
              const int32_t nx = state_of(s, in, sl);
              S[cu].next = nx;
              cur = nx;
              continue;
            }
            if (hp.kind == RouteHop::Delivered) {
              S[cu].hops = 1;
              done = true;
            } else {
              dk = DropKind::WrongEndpoint, drop = true;
              s = hp.next, in = hp.next_port;  // name the endpoint in the message
            }
          }
          if (drop) {
            drops.push_back({dk, s, dk == DropKind::WrongEndpoint ? in : o});
            result = static_cast<int32_t>(drops.size() - 1);
          } else if (done) {
            result = -1;
          }
          break;
        }
        // Propagate the outcome (and hop counts) back along the walk.
        if (result < 0) {
          for (size_t j = walk.size(); j-- > 0;) {
            const size_t w = static_cast<size_t>(walk[j]);
            S[w].res = -1;
            if (S[w].next >= 0) S[w].hops = static_cast<uint16_t>(S[static_cast<size_t>(S[w].next)].hops + 1);
          }
        } else {
          for (int32_t w : walk) S[static_cast<size_t>(w)].res = result;
        }
        if (src.inj_link >= 0) {
          const int v = identity_vl ? sl : ca_vl[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(sl)];
          used_local[static_cast<size_t>(src.inj_link) * kNumVlSlots + static_cast<size_t>(v)] = 1;
        }
        const StateRec& sr = S[static_cast<size_t>(start)];
        account(src, sr.res, sr.hops, sr.outch, sr.next);
        // Remember the continuation: the next CA sources behind the same switch with the same SL
        // leave through the same LFT entry, so they only add their injection edge and counts.
        if (src.inj_link >= 0 && sr.outch >= 0) {
          fast_sw = src.sw;
          fast_sl = sl;
          fast_out = cdg.link_port(static_cast<int>(sr.outch / kNumVlSlots));
          fast_res = sr.res;
          fast_hops = sr.hops;
          fast_next = sr.next;
        } else {
          fast_sw = -1;
        }
      }
      // Routes per link: push the per-state counts down the in-tree (decreasing hops).
      if (opt.collect_loads) {
        if (buckets.size() < static_cast<size_t>(max_hops) + 2) buckets.resize(static_cast<size_t>(max_hops) + 2);
        for (auto& b : buckets) b.clear();
        for (int32_t t : touched) {
          const size_t w = static_cast<size_t>(t);
          if (S[w].res >= 0) continue;
          buckets[std::min<size_t>(S[w].hops, buckets.size() - 1)].push_back(t);
        }
        for (size_t h = buckets.size(); h-- > 0;) {
          for (int32_t t : buckets[h]) {
            const size_t w = static_cast<size_t>(t);
            const uint32_t c = S[w].cnt;
            if (c == 0) continue;
            if (S[w].outch >= 0) st.link_load[static_cast<size_t>(S[w].outch) / kNumVlSlots] += c;
            if (S[w].next >= 0) S[static_cast<size_t>(S[w].next)].cnt += c;
            S[w].cnt = 0;
          }
        }
      }
      // stamps are only compared against dest_base; guard against wrap-around
      if (walk_id > 0xF0000000u) {
        for (auto& x : S) x.stamp = 0;
        walk_id = 0;
      }
    }
  }
  // Merge the switch-level pass's workers (sums and unions: independent of the thread count).
  uint32_t fast_dests = 0;
  for (const FastWorker& w : fw) fast_dests += w.fast_dests;
  if (fast_ok && fast_dests > 0) {
    std::vector<uint32_t> deliv_count(sh.swl.size(), 0), own_fast(static_cast<size_t>(nlinks), 0);
    std::vector<uint64_t> inj_corr(static_cast<size_t>(nlinks), 0), bits(npairs / 64 + 1, 0);
    for (const FastWorker& w : fw) {
      st.pairs += w.pairs;
      st.delivered += w.delivered;
      st.dropped += w.dropped;
      st.looping += w.looping;
      for (int k = 0; k < 6; k++) st.per_kind[k] += w.per_kind[k];
      if (w.hop_histogram.size() > st.hop_histogram.size()) st.hop_histogram.resize(w.hop_histogram.size(), 0);
      for (size_t h = 0; h < w.hop_histogram.size(); h++) st.hop_histogram[h] += w.hop_histogram[h];
      for (size_t l = 0; l < w.link_load.size(); l++) st.link_load[l] += w.link_load[l];
      for (size_t l = 0; l < w.used_link.size(); l++)
        if (w.used_link[l]) used_local[l * kNumVlSlots] = 1;
      for (size_t i = 0; i < deliv_count.size(); i++) deliv_count[i] += w.deliv_count[i];
      for (size_t l = 0; l < own_fast.size(); l++) own_fast[l] += w.own_fast[l], inj_corr[l] += w.inj_corr[l];
      for (size_t b = 0; b < bits.size(); b++) bits[b] |= w.edge_bits[b];
    }
    // Dependencies on VL0: bit (s, out, in) = the link arriving at (s, in) -> (s, out).
    for (int i = 0; i < nnodes; i++) {
      if (!is_sw[static_cast<size_t>(i)]) continue;
      const int np = nports[static_cast<size_t>(i)];
      for (int o = 0; o <= np; o++)
        for (int in = 0; in <= np; in++) {
          const size_t p = pair_index(i, in, o);
          if (!(bits[p >> 6] >> (p & 63) & 1)) continue;
          const int l = cdg.link_id(i, in);
          const Cdg::Id cin = static_cast<Cdg::Id>(cdg.link_id(peer_node[static_cast<size_t>(l)], peer_port[static_cast<size_t>(l)])) * kNumVlSlots;
          cdg.add_dependency(cin, static_cast<Cdg::Id>(cdg.link_id(i, o)) * kNumVlSlots);
        }
    }
    for (size_t i = 0; i < sh.swl.size(); i++)
      for (const auto& [inj, inport] : sh.ca_at[i]) {
        const size_t l = static_cast<size_t>(inj);
        if (fast_dests > own_fast[l]) used_local[l * kNumVlSlots] = 1;  // paired with some destination
        if (opt.collect_loads) st.link_load[l] += static_cast<uint64_t>(deliv_count[i]) * sh.link_entries[l] - inj_corr[l];
      }
  }
  for (size_t c = 0; c < used_local.size(); c++)
    if (used_local[c]) {
      cdg.mark_used(static_cast<Cdg::Id>(c));
      st.vl_mask = static_cast<uint16_t>(st.vl_mask | (1u << (c % kNumVlSlots)));
    }
  cdg.finalize();
  return out;
}

}  // namespace ftroute
