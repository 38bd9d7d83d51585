#include "ftroute/validate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace ftroute {

namespace {
std::string fmtd(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}
}  // namespace

std::vector<LinkLoad> switch_link_loads(const Fabric& f, const CdgBuild& b) {
  std::vector<LinkLoad> out;
  const auto& load = b.stats.link_load;
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (!x.connected() || !f.node(x.peer_node).is_switch()) continue;
      out.push_back({s, p, load.empty() ? 0 : load[static_cast<size_t>(b.cdg.link_id(s, p))]});
    }
  }
  return out;
}

ValidationReport validate(const Fabric& f, const Routing& r, const ValidateOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  ValidationReport rep;
  rep.engine = r.engine;
  rep.switches = static_cast<int>(f.switches().size());
  rep.cas = static_cast<int>(f.cas().size());
  rep.links = f.num_links();
  for (const EndPort& e : f.end_ports()) rep.lids += 1 << e.lmc;

  // LFT entries naming a missing or unlinked port, for every LID some port owns.
  if (r.lfts.num_nodes() < f.size())
    rep.warnings.push_back("the routing has LFTs for " + std::to_string(r.lfts.num_nodes()) + " of " +
                           std::to_string(f.size()) + " nodes");
  std::vector<uint8_t> owned(static_cast<size_t>(f.max_lid()) + 1, 0);  // f.owner() per entry was 4 % of `check`
  for (const EndPort& e : f.end_ports())
    for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) owned[l] = 1;
  for (int s : f.switches()) {
    if (s >= r.lfts.num_nodes()) continue;
    const Node& n = f.node(s);
    const auto& t = r.lfts.table(s);
    for (size_t l = 1; l < t.size(); l++) {
      const uint8_t p = t[l];
      if (p == kNoPath || p == 0) continue;
      if (l >= owned.size() || !owned[l]) continue;
      const bool missing = p > n.num_ports;
      if (!missing && n.port(p).connected()) continue;
      rep.bad_entries++;
      if (static_cast<int>(rep.bad_entry_examples.size()) < opt.max_examples)
        rep.bad_entry_examples.push_back(f.node_name(s) + " LID " + std::to_string(l) + " -> port " + std::to_string(p) +
                                         (missing ? " (switch has " + std::to_string(n.num_ports) + " ports)"
                                                  : " (no link on " + f.port_name(s, p) + ")"));
    }
  }

  CdgBuildOptions co;
  co.switch_sources = opt.switch_sources;
  co.switch_destinations = opt.switch_destinations;
  co.all_source_lids = opt.all_source_lids;
  co.max_examples = opt.max_examples;
  CdgBuild b = build_cdg(f, r, co);
  const RouteWalkStats& st = b.stats;
  rep.sources = st.sources;
  rep.destinations = st.destinations;
  rep.pairs = st.pairs;
  rep.delivered = st.delivered;
  rep.unreachable = st.dropped;
  rep.looping = st.looping;
  std::copy(std::begin(st.per_kind), std::end(st.per_kind), std::begin(rep.per_kind));
  rep.unreachable_examples = st.unreachable_examples;
  if (rep.pairs == 0) rep.warnings.push_back("no source/destination pairs: nothing was checked");
  rep.loop_examples = st.loop_examples;

  if (opt.check_deadlock) {
    rep.deadlock_checked = true;
    auto cyc = b.cdg.find_cycle();
    rep.cdg_acyclic = !cyc;
    if (cyc) {
      rep.cycle = *cyc;
      rep.cycle_text = b.cdg.format_cycle(*cyc);
    }
  }
  rep.vls_used = b.cdg.vls_used();
  rep.cdg_channels = b.cdg.used_channels().size();
  rep.cdg_edges = b.cdg.num_edges();
  rep.cdg_vl_changes = b.cdg.num_vl_changing_edges();

  // EFI over directed switch-to-switch links.
  uint64_t sum = 0;
  bool first = true;
  rep.switch_link_loads = switch_link_loads(f, b);
  for (const LinkLoad& ll : rep.switch_link_loads) {
    sum += ll.routes;
    if (first || ll.routes < rep.efi_min) rep.efi_min = ll.routes;
    if (first || ll.routes > rep.efi_max) rep.efi_max = ll.routes, rep.efi_max_link = ll;
    first = false;
  }
  if (!rep.switch_link_loads.empty()) rep.efi_avg = static_cast<double>(sum) / static_cast<double>(rep.switch_link_loads.size());

  rep.hop_histogram = st.hop_histogram;
  uint64_t hsum = 0, hn = 0;
  rep.hops_min = -1;
  for (size_t h = 0; h < rep.hop_histogram.size(); h++) {
    if (!rep.hop_histogram[h]) continue;
    if (rep.hops_min < 0) rep.hops_min = static_cast<int>(h);
    rep.hops_max = static_cast<int>(h);
    hsum += h * rep.hop_histogram[h];
    hn += rep.hop_histogram[h];
  }
  if (rep.hops_min < 0) rep.hops_min = 0;
  rep.hops_avg = hn ? static_cast<double>(hsum) / static_cast<double>(hn) : 0;
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

std::string format_report(const Fabric& f, const ValidationReport& r) {
  std::string o;
  auto line = [&](const std::string& s) { o += s + "\n"; };
  auto st = [](bool ok) { return std::string(ok ? "PASS" : "FAIL"); };
  line("routing" + (r.engine.empty() ? std::string() : " '" + r.engine + "'") + " on " + std::to_string(r.switches) +
       " switches, " + std::to_string(r.cas) + " CAs/routers, " + std::to_string(r.links) + " links, " +
       std::to_string(r.lids) + " LIDs");
  for (const auto& w : r.warnings) line("  warning: " + w);
  line("  reachability    " + st(r.reachability_ok()) + "  " + std::to_string(r.sources) + " sources x " +
       std::to_string(r.destinations) + " destination LIDs: " + std::to_string(r.pairs) + " pairs, " +
       std::to_string(r.delivered) + " delivered, " + std::to_string(r.unreachable) + " unreachable");
  for (int k = 0; k < 5; k++)
    if (r.per_kind[k])
      line("                        " + std::to_string(r.per_kind[k]) + " x " + drop_kind_text(static_cast<DropKind>(k)));
  for (const auto& e : r.unreachable_examples) line("                        e.g. " + e);
  line("  loops           " + st(r.loops_ok()) + "  " +
       (r.looping ? std::to_string(r.looping) + " pairs caught in forwarding loops" : std::string("none")));
  for (const auto& e : r.loop_examples) line("                        loop: " + e);
  line("  LFT entries     " + st(r.entries_ok()) + "  " +
       (r.bad_entries ? std::to_string(r.bad_entries) + " entries name a missing or unlinked port"
                      : std::string("no entry names a missing or unlinked port")));
  for (const auto& e : r.bad_entry_examples) line("                        e.g. " + e);
  std::string vls;
  for (int v : r.vls_used) vls += (vls.empty() ? "VL" : ",VL") + std::to_string(v);
  if (!vls.empty()) vls = std::to_string(r.vls_used.size()) + " (" + vls + ")";
  if (r.deadlock_checked) {
    line("  deadlock (CDG)  " + st(r.cdg_acyclic) + "  " + std::to_string(r.cdg_channels) + " channels, " +
         std::to_string(r.cdg_edges) + " dependencies (" + std::to_string(r.cdg_vl_changes) +
         " change VL), VLs used: " + (vls.empty() ? "-" : vls));
    if (!r.cdg_acyclic)
      line("                        cycle (" + std::to_string(r.cycle.size()) + " channels): " + r.cycle_text);
  } else {
    line("  deadlock (CDG)  skipped, VLs used: " + (vls.empty() ? "-" : vls));
  }
  std::string hist;
  for (size_t h = 0; h < r.hop_histogram.size(); h++)
    if (r.hop_histogram[h]) hist += " " + std::to_string(h) + ":" + std::to_string(r.hop_histogram[h]);
  line("  hops            min " + std::to_string(r.hops_min) + " avg " + fmtd(r.hops_avg) + " max " +
       std::to_string(r.hops_max) + "   (links per route:" + hist + ")");
  if (!r.switch_link_loads.empty())
    line("  EFI             " + std::to_string(r.switch_link_loads.size()) + " directed switch links: min " +
         std::to_string(r.efi_min) + " avg " + fmtd(r.efi_avg) + " max " + std::to_string(r.efi_max) + " (at " +
         f.port_name(r.efi_max_link.node, r.efi_max_link.port) + ")");
  else
    line("  EFI             no switch-to-switch links");
  std::string failed;
  auto add = [&](bool ok, const char* n) {
    if (!ok) failed += (failed.empty() ? "" : ", ") + std::string(n);
  };
  add(r.reachability_ok(), "unreachable pairs");
  add(r.loops_ok(), "forwarding loops");
  add(r.entries_ok(), "bad LFT entries");
  add(r.deadlock_ok(), "deadlock");
  line(failed.empty() ? "RESULT: PASS" : "RESULT: FAIL (" + failed + ")");
  return o;
}

}  // namespace ftroute
