// --json helpers (json_out.hpp).
#include "json_out.hpp"

#include "ftroute/input_file.hpp"
#include "ftroute_version.hpp"

namespace ftroute::cli {

using nlohmann::json;

json json_doc(const std::string& cmd) {
  json j;
  j["ftroute_version"] = FTROUTE_VERSION_STRING;
  j["plugin_opensm_version"] = FTROUTE_OPENSM_VERSION;  // "" when the build has no plugin
  j["command"] = cmd;
  return j;
}

json fabric_json(const Fabric& f) {
  return {{"switches", f.switches().size()}, {"cas", f.cas().size()}, {"links", f.num_links()}, {"max_lid", f.max_lid()}};
}

json sim_points_json(const std::vector<flitsim::SweepPoint>& pts) {
  json p = json::array();
  for (const auto& [load, r] : pts) {
    json point = json{{"load", load},
                     {"cycles", r.cycles},
                     {"endpoints", r.endpoints},
                     {"packets", {{"generated", r.generated}, {"injected", r.injected}, {"delivered", r.delivered},
                                  {"dropped", r.dropped}, {"in_network", r.in_network}, {"in_source", r.in_source}}},
                     {"drops", r.drops},
                     {"measured", {{"packets", r.measured_packets}, {"delivered", r.measured_delivered},
                                   {"dropped", r.measured_dropped}}},
                     {"offered", r.offered},
                     {"accepted", r.accepted},
                     {"latency", {{"avg", r.avg_latency}, {"p99", r.p99_latency}, {"max", r.max_latency},
                                  {"avg_network", r.avg_network_latency}}},
                     {"avg_hops", r.avg_hops},
                     {"drained", r.drained},
                     {"flushed", r.flushed},
                     {"deadlock", {{"detected", r.deadlock.detected}, {"cycle", r.deadlock.cycle},
                                   {"wait_for_cycle", r.deadlock.cycle_channels}}},
                     {"notes", r.notes}};
    if (r.background_accepted >= 0)
      point["background"] = {{"accepted", r.background_accepted}, {"latency_avg", r.background_latency}};
    p.push_back(std::move(point));
  }
  return p;
}

json report_json(const Fabric& f, const ValidationReport& r) {
  json j;
  std::vector<std::string> failed;
  if (!r.reachability_ok()) failed.push_back("reachability");
  if (!r.loops_ok()) failed.push_back("loops");
  if (!r.entries_ok()) failed.push_back("lft_entries");
  if (!r.deadlock_ok()) failed.push_back("deadlock");
  j["result"] = r.ok() ? "PASS" : "FAIL";
  j["failed_checks"] = failed;
  j["pairs"] = {{"sources", r.sources},       {"destinations", r.destinations}, {"pairs", r.pairs},
                {"delivered", r.delivered},   {"unreachable", r.unreachable},   {"looping", r.looping},
                {"unreachable_examples", r.unreachable_examples}, {"loop_examples", r.loop_examples}};
  j["lft_entries"] = {{"bad", r.bad_entries}, {"examples", r.bad_entry_examples}};
  j["deadlock"] = {{"checked", r.deadlock_checked}, {"cdg_acyclic", r.cdg_acyclic},
                   {"cycle", r.cycle_text},        {"vls_used", r.vls_used},
                   {"channels", r.cdg_channels},   {"dependencies", r.cdg_edges},
                   {"vl_changing_dependencies", r.cdg_vl_changes}};
  json efi = {{"min", r.efi_min}, {"avg", r.efi_avg}, {"max", r.efi_max}, {"max_link", nullptr}};
  if (r.efi_max_link.node >= 0) efi["max_link"] = f.port_name(r.efi_max_link.node, r.efi_max_link.port);
  j["efi"] = efi;
  j["hops"] = {{"min", r.hops_min}, {"avg", r.hops_avg}, {"max", r.hops_max}, {"histogram", r.hop_histogram}};
  j["warnings"] = r.warnings;
  j["seconds"] = r.seconds;
  return j;
}

namespace {

// Every string and key with the bytes that are not UTF-8 as \xNN (escape_invalid_utf8): names
// from the fabric may be anything, JSON must be UTF-8 (nlohmann::json refuses to write it else).
json utf8_only(const json& j) {
  if (j.is_string()) return escape_invalid_utf8(j.get_ref<const std::string&>());
  if (j.is_array()) {
    json a = json::array();
    for (const json& v : j) a.push_back(utf8_only(v));
    return a;
  }
  if (j.is_object()) {
    json o = json::object();
    for (const auto& [k, v] : j.items()) o[escape_invalid_utf8(k)] = utf8_only(v);
    return o;
  }
  return j;
}

}  // namespace

std::string dump_json(const json& j) { return utf8_only(j).dump(2) + "\n"; }

}  // namespace ftroute::cli
