// The one verdict on a routing (ftroute/verdict.hpp): the result walk, the entry scan, the tables'
// digest and the engines' self-checks read in the same terms.
#include "ftroute/verdict.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "ftroute/parallel.hpp"
#include "ftroute/switch_graph.hpp"

namespace ftroute {

const char* drop_kind_name(DropKind k) {
  switch (k) {
    case DropKind::NoRoute: return "no-route";
    case DropKind::BadPort: return "bad-port";
    case DropKind::DownPort: return "unlinked-port";
    case DropKind::NotLocal: return "not-local";
    case DropKind::WrongEndpoint: return "misdelivery";
    case DropKind::Loop: return "loop";
  }
  return "?";
}

uint64_t Verdict::dropped() const {
  uint64_t n = 0;
  for (int k = 0; k < 6; k++)
    if (k != static_cast<int>(DropKind::Loop)) n += per_kind[k];
  return n;
}

std::string Verdict::first_problem() const {
  if (!examples.empty()) return examples.front().text;
  if (!cdg_acyclic) return "channel dependency cycle: " + cycle;
  if (ok()) return "";
  return std::to_string(dropped()) + " pairs unreachable, " + std::to_string(looping()) + " looping, " +
         std::to_string(bad_entries) + " bad LFT entries";
}

std::string Verdict::first_of(DropKind k) const {
  for (const Problem& e : examples)
    if (e.kind == k) return e.text;
  return first_problem();
}

std::string Verdict::summary() const {
  if (ok()) return "routing check: ok";
  std::ostringstream o;
  o << "routing check found problems:";
  for (int k = 0; k < 6; k++)
    if (per_kind[k]) o << " " << drop_kind_name(static_cast<DropKind>(k)) << "=" << per_kind[k];
  if (bad_entries) o << " bad-entries=" << bad_entries;
  if (unattached) o << " unattached=" << unattached;
  if (missing_tables) o << " missing-tables=" << missing_tables;
  if (!cdg_acyclic) o << " cdg-cycle=1";
  o << "\n";
  for (const Problem& e : examples) o << "  " << drop_kind_name(e.kind) << ": " << e.text << "\n";
  if (!cdg_acyclic) o << "  cycle: " << cycle << "\n";
  return o.str();
}

namespace {

// Adds an example when its kind has fewer than `max` so far.
void add_example(Verdict& v, size_t shown[6], size_t max, DropKind k, std::string text) {
  if (shown[static_cast<int>(k)]++ < max) v.examples.push_back({k, std::move(text)});
}

// Counts the switches without an LFT (with an example each); returns those that have one.
std::vector<int> switches_with_tables(const Fabric& f, const Lfts& lfts, Verdict& v, size_t shown[6], size_t max) {
  std::vector<int> present;
  present.reserve(f.switches().size());
  for (int s : f.switches()) {
    if (s < lfts.num_nodes()) {
      present.push_back(s);
      continue;
    }
    v.missing_tables++;
    add_example(v, shown, max, DropKind::NoRoute, "routing has no LFT for switch " + f.node_name(s));
  }
  return present;
}

// The text of an LFT entry of switch sw for `lid` that names port p, which is port 0 on a switch
// not owning the LID (NotLocal), a port the switch lacks (BadPort) or one without link
// (DownPort). `dest` names the LID's owner (" (\"H1\"[1])") where the walk knows it, else "".
std::string bad_entry_text(const Fabric& f, int sw, uint32_t lid, const std::string& dest, DropKind k, uint8_t p) {
  const std::string head = "switch " + f.node_name(sw);
  const std::string l = std::to_string(lid) + dest;
  if (k == DropKind::NotLocal) return head + " delivers LID " + l + " to itself (port 0) but does not own it";
  if (k == DropKind::BadPort)
    return head + " routes LID " + l + " to port " + std::to_string(p) + " (switch has " +
           std::to_string(f.node(sw).num_ports) + " ports)";
  return head + " routes LID " + l + " to port " + f.port_name(sw, p) + ", which has no working link";
}

// The most frequent stop reason other than a loop (NoRoute when there is none): the kind given to
// examples that carry their reason only in their text.
DropKind most_common_drop(const uint64_t per_kind[6]) {
  DropKind common = DropKind::NoRoute;
  for (int k = 0; k < 6; k++)
    if (k != static_cast<int>(DropKind::Loop) && per_kind[k] > per_kind[static_cast<int>(common)])
      common = static_cast<DropKind>(k);
  return common;
}

}  // namespace

Verdict scan_entries(const Fabric& f, const Lfts& lfts, const VerifyOptions& o) {
  Verdict v;
  v.source = "result walk";
  size_t shown[6] = {};
  const std::vector<int> present = switches_with_tables(f, lfts, v, shown, o.max_examples);
  if (o.stop_at_first && !v.examples.empty()) return v;
  // Per switch: a 256-entry class table of its ports (fine, or the DropKind of the entry),
  // then one pass over its table; only the (rare) bad entries are looked at further.
  struct Found {
    uint64_t bad = 0;
    std::vector<Verdict::Problem> ex;  // at most max_examples per kind, in LID order
  };
  std::vector<Found> found(present.size());
  const long n = static_cast<long>(present.size());
  const int workers = resolve_threads(o.threads, n / 16 + 1);
  parallel_for(workers, n, 8, [&](int, long i) {
    const int s = present[static_cast<size_t>(i)];
    const Node& nd = f.node(s);
    uint8_t cls[256];
    // 0 fine, else the DropKind + 1 of the entry
    constexpr uint8_t kNotLocal = static_cast<uint8_t>(DropKind::NotLocal) + 1;
    cls[0] = kNotLocal;
    for (int p = 1; p < 256; p++)
      cls[p] = p > nd.num_ports           ? static_cast<uint8_t>(DropKind::BadPort) + 1
               : nd.port(p).connected() ? 0
                                        : static_cast<uint8_t>(DropKind::DownPort) + 1;
    cls[kNoPath] = 0;
    const std::vector<uint8_t>& tab = lfts.table(s);
    const size_t top = std::min<size_t>(tab.size(), size_t{kMaxUnicastLid} + 1);
    Found& out = found[static_cast<size_t>(i)];
    size_t kinds[6] = {};
    for (size_t lid = 1; lid < top; lid++) {
      const uint8_t p = tab[lid];
      const uint8_t c = cls[p];
      if (c == 0) continue;
      if (c == kNotLocal) {
        auto ow = f.owner(static_cast<Lid>(lid));
        if (ow && ow->node == s) continue;  // port 0 of the switch that owns the LID
      }
      const DropKind k = static_cast<DropKind>(c - 1);
      out.bad++;
      if (kinds[static_cast<int>(k)]++ < o.max_examples)
        out.ex.push_back({k, bad_entry_text(f, s, static_cast<uint32_t>(lid), "", k, p)});
      if (o.stop_at_first) break;
    }
  });
  for (Found& x : found) {
    v.bad_entries += x.bad;
    for (auto& e : x.ex) add_example(v, shown, o.max_examples, e.kind, std::move(e.text));
    if (o.stop_at_first && !v.examples.empty()) break;
  }
  return v;
}

Verdict verify_routing(const Fabric& f, const Routing& r, const VerifyOptions& o) {
  Verdict v = o.scan_entries ? scan_entries(f, r.lfts, o) : Verdict{};
  v.source = "result walk";
  if (o.stop_at_first && !v.examples.empty()) return v;
  size_t shown[6] = {};
  for (const Verdict::Problem& e : v.examples) shown[static_cast<int>(e.kind)]++;
  if (!o.scan_entries) switches_with_tables(f, r.lfts, v, shown, o.max_examples);
  if (v.missing_tables) return v;  // the walk would read tables that do not exist
  // switch components over working switch-switch links (every switch of the LID's component is
  // a start switch); the simulator's check starts only at the switches end ports attach to
  std::vector<int> comp_of(static_cast<size_t>(f.size()), -1);  // by node
  std::vector<std::vector<int>> members;                          // component -> switch nodes
  std::vector<int> starts;
  if (o.all_switches) {
    const SwitchGraph g(f);
    std::vector<int> comp;
    members.resize(static_cast<size_t>(g.components(comp)));
    for (int pos = 0; pos < g.size(); pos++) {
      comp_of[static_cast<size_t>(g.node(pos))] = comp[static_cast<size_t>(pos)];
      members[static_cast<size_t>(comp[static_cast<size_t>(pos)])].push_back(g.node(pos));
    }
  } else {
    std::vector<char> is_start(static_cast<size_t>(f.size()), 0);
    for (const EndPort& e : f.end_ports()) {
      if (f.node(e.node).is_switch()) continue;
      const Port& p = f.node(e.node).port(e.port);
      if (p.peer_node < 0 || !f.node(p.peer_node).is_switch() || is_start[static_cast<size_t>(p.peer_node)]) continue;
      is_start[static_cast<size_t>(p.peer_node)] = 1;
      starts.push_back(p.peer_node);
    }
    std::sort(starts.begin(), starts.end());
  }
  RouteWalker walker(f, r.lfts);
  auto count = [&](DropKind k, std::string text) {
    v.per_kind[static_cast<int>(k)]++;
    add_example(v, shown, o.max_examples, k, std::move(text));
  };
  for (const EndPort& e : f.end_ports()) {
    const bool own_lid = f.node(e.node).is_switch();  // a switch's LID (port 0)
    if (own_lid && !o.all_switches) continue;          // traffic goes to end ports only
    const int attach = own_lid ? e.node : f.node(e.node).port(e.port).peer_node;
    if (attach < 0) continue;  // a CA port without link: not an endpoint
    if (!f.node(attach).is_switch()) {
      if (!o.all_switches) {
        v.unattached++;
        add_example(v, shown, o.max_examples, DropKind::NoRoute,
                    "destination " + f.port_name(e.node, e.port) + " is not attached to a switch");
        if (o.stop_at_first) return v;
      }
      continue;
    }
    const int c = o.all_switches ? comp_of[static_cast<size_t>(attach)] : 0;
    const uint32_t last = o.all_lmc_lids ? e.last_lid() : e.base_lid;
    for (uint32_t lid = e.base_lid; lid <= last; lid++) {
      if (o.walk_lids && lid < o.walk_lids->size() && !(*o.walk_lids)[lid]) continue;
      walker.begin(static_cast<Lid>(lid), e.node, e.port);
      const std::vector<int>& from = o.all_switches ? members[static_cast<size_t>(c)] : starts;
      for (int s : from) {
        if (walker.known(s)) continue;
        v.walks++;
        const RouteWalker::Walk w = walker.walk(s);
        if (w.end == RouteWalker::End::Loop) {
          count(DropKind::Loop, "LID " + std::to_string(lid) + " loops through switch " + f.node_name(w.sw));
        } else if (w.end == RouteWalker::End::Dropped) {
          switch (w.hop.drop) {
            case DropKind::NoRoute:
              count(DropKind::NoRoute, "switch " + f.node_name(w.sw) + " has no route to LID " + std::to_string(lid) +
                                           " (" + f.port_name(e.node, e.port) + ")");
              break;
            case DropKind::WrongEndpoint:
              count(DropKind::WrongEndpoint, "switch " + f.node_name(w.sw) + " sends LID " + std::to_string(lid) +
                                                 " out of " + f.port_name(w.sw, w.hop.port) + " to " +
                                                 f.port_name(w.hop.next, w.hop.next_port) + ", which does not own it");
              break;
            case DropKind::NotLocal:
            case DropKind::BadPort:
            case DropKind::DownPort:
              count(w.hop.drop, bad_entry_text(f, w.sw, lid, " (" + f.port_name(e.node, e.port) + ")", w.hop.drop, w.hop.port));
              break;
            case DropKind::Loop:
              break;
          }
        } else {
          continue;
        }
        if (o.stop_at_first) return v;
      }
    }
  }
  return v;
}

uint64_t lfts_digest(const Fabric& f, const Lfts& lfts, int threads) {
  const std::vector<int>& sws = f.switches();
  const long n = static_cast<long>(sws.size());
  std::vector<uint64_t> h(sws.size(), 0);
  const int workers = resolve_threads(threads, n / 16 + 1);
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  parallel_for(workers, n, 8, [&](int, long i) {
    const int s = sws[static_cast<size_t>(i)];
    uint64_t x = static_cast<uint64_t>(s) * kMul + 1;
    if (s < lfts.num_nodes()) {
      const std::vector<uint8_t>& t = lfts.table(s);
      x ^= t.size() * 0xC2B2AE3D27D4EB4Full;
      const uint8_t* p = t.data();
      size_t k = 0;
      // four independent lanes, 8 bytes each: a multiply-xorshift per word
      uint64_t a = x, b = x ^ 1, c = x ^ 2, d = x ^ 3;
      for (; k + 32 <= t.size(); k += 32) {
        uint64_t w[4];
        std::memcpy(w, p + k, 32);
        a = (a ^ w[0]) * kMul, a ^= a >> 29;
        b = (b ^ w[1]) * kMul, b ^= b >> 29;
        c = (c ^ w[2]) * kMul, c ^= c >> 29;
        d = (d ^ w[3]) * kMul, d ^= d >> 29;
      }
      for (; k < t.size(); k++) a = (a ^ p[k]) * kMul, a ^= a >> 29;
      x = ((a * 31 + b) * 31 + c) * 31 + d;
    }
    h[static_cast<size_t>(i)] = x;
  });
  uint64_t all = static_cast<uint64_t>(lfts.num_nodes());
  for (uint64_t x : h) all = (all ^ x) * kMul, all ^= all >> 31;
  return all;
}

Verdict verdict_of(const CdgBuild& b, const std::string& source, bool check_cdg, int vl) {
  Verdict v;
  v.source = source;
  v.walks = b.stats.pairs;
  for (int k = 0; k < 6; k++) v.per_kind[k] = b.stats.per_kind[k];
  // the walk's examples name their stop reason in their text; the kind given is the most common
  const DropKind common = most_common_drop(b.stats.per_kind);
  for (const std::string& e : b.stats.unreachable_examples) v.examples.push_back({common, e});
  for (const std::string& e : b.stats.loop_examples) v.examples.push_back({DropKind::Loop, e});
  if (check_cdg) {
    v.cdg_checked = true;
    if (auto cyc = b.cdg.find_cycle(vl)) {
      v.cdg_acyclic = false;
      v.cycle = b.cdg.format_cycle(*cyc);
    }
  }
  return v;
}

Verdict verdict_of(const ValidationReport& r) {
  Verdict v;
  v.source = "validation";
  v.walks = r.pairs;
  for (int k = 0; k < 6; k++) v.per_kind[k] = r.per_kind[k];
  v.per_kind[static_cast<int>(DropKind::Loop)] = r.looping;
  v.bad_entries = r.bad_entries;
  const DropKind common = most_common_drop(r.per_kind);
  for (const std::string& e : r.bad_entry_examples) v.examples.push_back({DropKind::DownPort, e});
  for (const std::string& e : r.unreachable_examples) v.examples.push_back({common, e});
  for (const std::string& e : r.loop_examples) v.examples.push_back({DropKind::Loop, e});
  v.cdg_checked = r.deadlock_checked;
  v.cdg_acyclic = r.cdg_acyclic;
  v.cycle = r.cycle_text;
  return v;
}

void record_self_check(const Fabric& f, Routing& r, const CdgBuild& b, const CdgBuildOptions& o, const std::string& by,
                       bool cdg_checked, bool cdg_acyclic, int threads) {
  auto rec = std::make_shared<RoutingSelfCheck>();
  rec->digest = lfts_digest(f, r.lfts, threads);
  rec->nodes = f.size();
  rec->max_lid = f.max_lid();
  rec->every_switch_source = o.switch_sources;
  rec->switch_destinations = o.switch_destinations;
  rec->pairs = b.stats.pairs;
  rec->delivered = b.stats.delivered;
  rec->dropped = b.stats.dropped;
  rec->looping = b.stats.looping;
  rec->cdg_checked = cdg_checked;
  rec->cdg_acyclic = cdg_acyclic;
  rec->by = by;
  r.self_check = std::move(rec);
}

std::optional<Verdict> reuse_self_check(const Fabric& f, const Routing& r, int threads) {
  const RoutingSelfCheck* rec = r.self_check.get();
  if (!rec || !rec->every_switch_source || !rec->switch_destinations || rec->nodes != f.size() ||
      rec->max_lid != f.max_lid())
    return std::nullopt;
  for (int s : f.switches())
    if (s >= r.lfts.num_nodes()) return std::nullopt;
  if (lfts_digest(f, r.lfts, threads) != rec->digest) return std::nullopt;
  Verdict v;
  v.source = rec->by;
  v.walks = rec->pairs;
  // the record keeps counts, not kinds: a self-check that found problems is walked again by the
  // pipeline for the names, so a reused record is one that found none
  if (rec->dropped || rec->looping || rec->delivered != rec->pairs) return std::nullopt;
  v.cdg_checked = rec->cdg_checked;
  v.cdg_acyclic = rec->cdg_acyclic;
  if (!v.cdg_acyclic) return std::nullopt;
  return v;
}

}  // namespace ftroute
