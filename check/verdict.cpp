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

}  // namespace

Verdict scan_entries(const Fabric& f, const Lfts& lfts, const VerifyOptions& o) {
  Verdict v;
  v.source = "result walk";
  const std::vector<int>& sws = f.switches();
  size_t shown[6] = {};
  std::vector<int> present;
  present.reserve(sws.size());
  for (int s : sws) {
    if (s >= lfts.num_nodes()) {
      v.missing_tables++;
      add_example(v, shown, o.max_examples, DropKind::NoRoute, "routing has no LFT for switch " + f.node_name(s));
    } else {
      present.push_back(s);
    }
  }
  if (o.stop_at_first && !v.examples.empty()) return v;
  // Per switch: a 256-entry class table of its ports (0 fine, 1 port 0, 2 missing, 3 unlinked),
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
    cls[0] = 1;
    for (int p = 1; p < 256; p++) cls[p] = p > nd.num_ports ? 2 : nd.port(p).connected() ? 0 : 3;
    cls[kNoPath] = 0;
    const std::vector<uint8_t>& tab = lfts.table(s);
    const size_t top = std::min<size_t>(tab.size(), size_t{kMaxUnicastLid} + 1);
    Found& out = found[static_cast<size_t>(i)];
    size_t kinds[6] = {};
    for (size_t lid = 1; lid < top; lid++) {
      const uint8_t p = tab[lid];
      const uint8_t c = cls[p];
      if (c == 0) continue;
      if (c == 1) {
        auto ow = f.owner(static_cast<Lid>(lid));
        if (ow && ow->node == s) continue;
        out.bad++;
        if (kinds[static_cast<int>(DropKind::NotLocal)]++ < o.max_examples)
          out.ex.push_back({DropKind::NotLocal, "switch " + f.node_name(s) + " delivers LID " + std::to_string(lid) +
                                                    " to itself (port 0) but does not own it"});
      } else if (c == 2) {
        out.bad++;
        if (kinds[static_cast<int>(DropKind::BadPort)]++ < o.max_examples)
          out.ex.push_back({DropKind::BadPort, "switch " + f.node_name(s) + " routes LID " + std::to_string(lid) +
                                                   " to port " + std::to_string(p) + " (switch has " +
                                                   std::to_string(nd.num_ports) + " ports)"});
      } else {
        out.bad++;
        if (kinds[static_cast<int>(DropKind::DownPort)]++ < o.max_examples)
          out.ex.push_back({DropKind::DownPort, "switch " + f.node_name(s) + " routes LID " + std::to_string(lid) +
                                                    " to port " + f.port_name(s, p) + ", which has no working link"});
      }
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
  if (!o.scan_entries)
    for (int s : f.switches())
      if (s >= r.lfts.num_nodes()) {
        v.missing_tables++;
        v.examples.push_back({DropKind::NoRoute, "routing has no LFT for switch " + f.node_name(s)});
        if (o.stop_at_first) return v;
      }
  if (v.missing_tables) return v;  // the walk would read tables that do not exist
  size_t shown[6] = {};
  for (const Verdict::Problem& e : v.examples) shown[static_cast<int>(e.kind)]++;
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
    if (!own_lid && f.node(e.node).port(e.port).peer_node < 0) continue;  // no link: not an endpoint
    const Port& ep = f.node(e.node).port(e.port);
    const int attach = own_lid ? e.node : ep.peer_node;
    if (attach < 0 || !f.node(attach).is_switch()) {
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
              count(DropKind::NotLocal, "switch " + f.node_name(w.sw) + " delivers LID " + std::to_string(lid) + " (" +
                                            f.port_name(e.node, e.port) + ") to itself (port 0) but does not own it");
              break;
            case DropKind::BadPort:
              count(DropKind::BadPort, "switch " + f.node_name(w.sw) + " routes LID " + std::to_string(lid) + " (" +
                                           f.port_name(e.node, e.port) + ") to port " + std::to_string(w.hop.port) +
                                           " (switch has " + std::to_string(f.node(w.sw).num_ports) + " ports)");
              break;
            case DropKind::DownPort:
              count(DropKind::DownPort, "switch " + f.node_name(w.sw) + " routes LID " + std::to_string(lid) + " (" +
                                            f.port_name(e.node, e.port) + ") to port " + f.port_name(w.sw, w.hop.port) +
                                            ", which has no working link");
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

Verdict verdict_of(const Fabric& f, const CdgBuild& b, const std::string& source, bool check_cdg, int vl) {
  (void)f;
  Verdict v;
  v.source = source;
  v.walks = b.stats.pairs;
  for (int k = 0; k < 6; k++) v.per_kind[k] = b.stats.per_kind[k];
  // the walk's examples name their stop reason in their text; the kind given is the most common
  DropKind common = DropKind::NoRoute;
  for (int k = 0; k < 6; k++)
    if (k != static_cast<int>(DropKind::Loop) && b.stats.per_kind[k] > b.stats.per_kind[static_cast<int>(common)])
      common = static_cast<DropKind>(k);
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
  DropKind common = DropKind::NoRoute;
  for (int k = 0; k < 6; k++)
    if (k != static_cast<int>(DropKind::Loop) && r.per_kind[k] > r.per_kind[static_cast<int>(common)])
      common = static_cast<DropKind>(k);
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
