// Link events of a run (ftroute/flitsim.hpp): `sim --fail/--recover` parsed against the fabric,
// and the fabric as it is at a cycle (what `sim --reroute CYCLE` routes).
#include <algorithm>
#include <map>
#include <string_view>

#include "ftroute/flitsim.hpp"
#include "ftroute/port_ref.hpp"

namespace ftroute::flitsim {

LinkEvent parse_link_event(const Fabric& f, const std::string& arg, bool up) {
  const size_t colon = arg.find(':');
  if (colon == std::string::npos) throw OptionError("expected CYCLE:\"NODE\"[PORT], got '" + arg + "'");
  LinkEvent l;
  try {
    size_t used = 0;
    l.cycle = std::stoll(arg.substr(0, colon), &used);
    if (used != colon) throw 1;
  } catch (...) {
    throw OptionError("expected CYCLE:\"NODE\"[PORT], got '" + arg + "': bad cycle '" + arg.substr(0, colon) + "'");
  }
  PortRef pr;
  try {
    pr = parse_port_ref(std::string_view(arg).substr(colon + 1));
  } catch (const OptionError& e) {
    throw OptionError(std::string(e.what()) + " in '" + arg + "'");
  }
  l.port = pr.port;
  if (l.cycle < 0)
    throw OptionError("cycle " + std::to_string(l.cycle) + " in '" + arg + "' is negative (cycles count from 0)");
  auto n = f.find(pr.node);
  if (!n) throw OptionError("unknown node '" + pr.node + "' in '" + arg + "'");
  const Node& nd = f.node(*n);
  if (l.port < 1 || l.port > nd.num_ports || !nd.port(l.port).connected())
    throw OptionError("port " + f.port_name(*n, l.port) + " in '" + arg + "' is not linked");
  l.node = *n;
  l.up = up;
  return l;
}

Fabric fabric_at(const Fabric& f, const std::vector<LinkEvent>& events, int64_t cycle) {
  std::vector<LinkEvent> sorted = events;
  std::stable_sort(sorted.begin(), sorted.end(), [](const LinkEvent& x, const LinkEvent& y) { return x.cycle < y.cycle; });
  std::map<std::pair<int, int>, bool> state;  // (node, port) -> up, after the last event by `cycle`
  for (const LinkEvent& l : sorted)
    if (l.cycle <= cycle) state[{l.node, l.port}] = l.up;
  Fabric g = f;
  for (const auto& [k, up] : state)
    if (!up) g.disconnect(k.first, k.second);
  return g;
}

}  // namespace ftroute::flitsim
