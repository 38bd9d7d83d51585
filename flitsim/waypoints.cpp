// Waypoint files (flitsim.hpp Waypoints, docs/flitsim.md "Waypoints"): "SRC" "DST" "VIA1" ...
#include <unordered_map>
#include <unordered_set>

#include "ftroute/flitsim.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/port_ref.hpp"

namespace ftroute::flitsim {

std::vector<Waypoints> parse_waypoints(const Fabric& f, std::string_view text, const std::string& filename) {
  check_input_text(text, filename, 4096);
  const std::vector<Endpoint> eps = endpoints_of(f);
  std::unordered_map<int, int> ep_of_node;  // node -> its endpoint; -2 = several
  for (size_t i = 0; i < eps.size(); i++) {
    auto [it, fresh] = ep_of_node.emplace(eps[i].node, static_cast<int>(i));
    if (!fresh) it->second = -2;
  }
  std::vector<Waypoints> out;
  std::unordered_set<uint64_t> seen;
  int ln = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    ln++;
    std::vector<std::string> names;
    for (size_t i = 0; i < line.size();) {
      const char c = line[i];
      if (c == ' ' || c == '\t' || c == '\r') {
        i++;
      } else if (c == '#') {
        break;
      } else if (c == '"') {
        try {
          names.push_back(parse_quoted_name(line, i));
        } catch (const OptionError& e) {
          throw ParseError(filename, ln, std::string("bad quoted name: ") + e.what());
        }
      } else {
        throw ParseError(filename, ln, "expected a quoted node name (\"SRC\" \"DST\" \"VIA1\" ...), found '" +
                                           escape_name(line.substr(i, 20)) + "'");
      }
    }
    if (names.empty()) continue;
    if (names.size() < 3) throw ParseError(filename, ln, "expected \"SRC\" \"DST\" and at least one \"VIA\"");
    auto node_of = [&](const std::string& name) {
      auto n = f.find(name);
      if (!n) throw ParseError(filename, ln, "no node " + quote_name(name) + " in the fabric");
      return *n;
    };
    Waypoints w;
    for (int k = 0; k < 2; k++) {
      const int n = node_of(names[static_cast<size_t>(k)]);
      auto e = ep_of_node.find(n);
      if (f.node(n).is_switch() || e == ep_of_node.end() || e->second < 0)
        throw ParseError(filename, ln, f.node_name(n) + " is not a CA or router with one port with a LID");
      (k == 0 ? w.src : w.dst) = e->second;
    }
    for (size_t k = 2; k < names.size(); k++) {
      const int n = node_of(names[k]);
      const Node& nd = f.node(n);
      if (!nd.is_switch() || !nd.port(0).base_lid)
        throw ParseError(filename, ln, f.node_name(n) + " is not a switch with a LID");
      w.via.push_back(nd.port(0).base_lid);
    }
    if (w.via.size() > 15) throw ParseError(filename, ln, "more than 15 waypoints");
    if (!seen.insert(static_cast<uint64_t>(w.src) << 32 | static_cast<uint32_t>(w.dst)).second)
      throw ParseError(filename, ln, "the pair " + f.node_name(eps[static_cast<size_t>(w.src)].node) + " -> " +
                                         f.node_name(eps[static_cast<size_t>(w.dst)].node) + " is given twice");
    out.push_back(std::move(w));
  }
  return out;
}

std::string format_waypoints(const Fabric& f, int src_node, int dst_node, const std::vector<int>& via_nodes) {
  std::string s = quote_name(f.node(src_node).id) + " " + quote_name(f.node(dst_node).id);
  for (int v : via_nodes) s += " " + quote_name(f.node(v).id);
  return s + "\n";
}

std::vector<Waypoints> read_waypoints(const Fabric& f, const std::string& path) {
  return parse_waypoints(f, read_input_file(path, table_input_limits()), path);
}

}  // namespace ftroute::flitsim
