// flitsim's routing check (check_routing, CheckReport) and endpoint numbering (endpoints_of).
#include "sim_impl.hpp"

namespace ftroute::flitsim {

const char* issue_kind_name(Issue::Kind k) {
  switch (k) {
    case Issue::NoRoute: return "no-route";
    case Issue::BadPort: return "bad-port";
    case Issue::UnlinkedPort: return "unlinked-port";
    case Issue::Loop: return "loop";
    case Issue::Misdelivery: return "misdelivery";
    case Issue::Unattached: return "unattached";
    case Issue::VlRange: return "vl-range";
  }
  return "?";
}

std::vector<Endpoint> endpoints_of(const Fabric& f) {
  std::vector<Endpoint> r;
  for (int i = 0; i < f.size(); i++) {
    const Node& n = f.node(i);
    if (n.is_switch()) continue;
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& pp = n.port(p);
      if (pp.connected() && pp.base_lid) r.push_back({i, p, pp.base_lid, pp.lmc});
    }
  }
  return r;
}

std::string CheckReport::summary() const {
  if (ok()) return "routing check: ok";
  std::ostringstream o;
  o << "routing check found problems:";
  for (auto& [k, c] : counts) o << " " << issue_kind_name(k) << "=" << c;
  o << "\n";
  for (auto& e : examples) o << "  " << issue_kind_name(e.kind) << ": " << e.message << "\n";
  return o.str();
}

CheckReport check_routing(const Fabric& f, const Routing& r, bool all_lmc_lids, size_t max_examples) {
  CheckReport rep;
  std::map<Issue::Kind, size_t> shown;
  auto add = [&](Issue::Kind k, const std::string& m) {
    rep.counts[k]++;
    if (shown[k]++ < max_examples) rep.examples.push_back({k, m});
  };
  auto eps = endpoints_of(f);
  std::vector<int> starts;  // attach switches of all sources
  std::vector<char> is_start(static_cast<size_t>(f.size()), 0);
  for (auto& e : eps) {
    const Port& p = f.node(e.node).port(e.port);
    if (!f.node(p.peer_node).is_switch()) continue;
    if (!is_start[p.peer_node]) is_start[p.peer_node] = 1, starts.push_back(p.peer_node);
  }
  RouteWalker walker(f, r.lfts);  // ftroute/route_walk.hpp
  for (auto& d : eps) {
    const Port& dp = f.node(d.node).port(d.port);
    if (!f.node(dp.peer_node).is_switch()) {
      add(Issue::Unattached, "destination " + f.port_name(d.node, d.port) + " is not attached to a switch");
      continue;
    }
    uint32_t last = all_lmc_lids ? d.base_lid + (1u << d.lmc) - 1 : d.base_lid;
    for (uint32_t lid = d.base_lid; lid <= last; lid++) {
      walker.begin(static_cast<Lid>(lid), d.node, d.port);
      std::string L = "LID " + std::to_string(lid) + " (" + f.port_name(d.node, d.port) + ")";
      for (int s0 : starts) {
        const RouteWalker::Walk w = walker.walk(s0);
        if (w.end == RouteWalker::End::Loop) {
          add(Issue::Loop, L + " loops through switch " + f.node_name(w.sw));
          continue;
        }
        if (w.end != RouteWalker::End::Dropped) continue;
        const int s = w.sw;
        const uint8_t p = w.hop.port;
        const Node& n = f.node(s);
        switch (w.hop.drop) {
          case DropKind::NoRoute:
            add(Issue::NoRoute, "switch " + f.node_name(s) + " has no route for " + L);
            break;
          case DropKind::NotLocal:  // destinations are CA ports: port 0 never delivers them
            add(Issue::Misdelivery, "switch " + f.node_name(s) + " sends " + L + " to its own port 0");
            break;
          case DropKind::BadPort:
            add(Issue::BadPort, "LFT of switch " + f.node_name(s) + " sends " + L + " to port " + std::to_string(p) +
                                    ", which does not exist (" + std::to_string(n.num_ports) + " ports)");
            break;
          case DropKind::DownPort:
            add(Issue::UnlinkedPort, "LFT of switch " + f.node_name(s) + " sends " + L + " to " + f.port_name(s, p) +
                                         ", which is not linked");
            break;
          case DropKind::WrongEndpoint:
            add(Issue::Misdelivery, "switch " + f.node_name(s) + " sends " + L + " out of " + f.port_name(s, p) +
                                        " to " + f.port_name(w.hop.next, w.hop.next_port));
            break;
          default:
            break;
        }
      }
    }
  }
  return rep;
}

}  // namespace ftroute::flitsim
