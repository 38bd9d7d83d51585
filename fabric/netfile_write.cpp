// .net writer: write_net(), make_ibsim_loadable() and fabric_diff() (see netfile.hpp); the reader
// is netfile.cpp (full parser) and netfile_fast.cpp (its fast path).
#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/netfile.hpp"
#include "netfile_common.hpp"

namespace ftroute {

using namespace netfile_detail;

namespace {

// A description as ibsim's header line keeps it intact: '"' ends it, so '\''; other control
// characters '?'; its NodeDescription buffer holds 63 characters.
constexpr size_t kIbsimDesc = 63;
std::string ibsim_description(std::string d) {
  for (char& c : d) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') c = '\'';
    else if (u < 0x20 || u == 0x7f) c = '?';
  }
  if (d.size() > kIbsimDesc) d.resize(kIbsimDesc);
  return d;
}

void check_writable_id(const Fabric& f, int n, bool any_desc) {
  const Node& nd = f.node(n);
  if (nd.id.empty() || nd.id.find_first_of("\"#@\n") != std::string::npos)
    throw FabricError("node id \"" + nd.id + "\" cannot be written to a .net file ('\"', '#', '@' are reserved)");
  if (nd.id.size() > kMaxIdLen)
    throw FabricError("node id \"" + nd.id + "\" is longer than " + std::to_string(kMaxIdLen) + " characters");
  if (!any_desc && nd.desc.find_first_of("\"\n") != std::string::npos)
    throw FabricError("description of \"" + nd.id + "\" contains '\"' or a newline");
}

int width_mask(const Fabric& f, int n, int p) {
  switch (f.node(n).port(p).width) {
    case 1: return 1;
    case 2: return 17;   // 1x|2x
    case 4: return 3;    // 1x|4x
    case 8: return 5;    // 1x|8x
    case 12: return 9;   // 1x|12x
  }
  throw FabricError("port " + f.port_name(n, p) + ": width " + std::to_string(f.node(n).port(p).width) +
                    " cannot be written (1, 2, 4, 8 or 12)");
}

}  // namespace

std::string write_net(const Fabric& f, const NetWriteOptions& opt) {
  std::string out;
  auto line = [&](const std::string& s) {
    if (s.size() > kMaxLineLen)
      throw FabricError("line too long for ibsim (" + std::to_string(s.size()) + " > " + std::to_string(kMaxLineLen) +
                        " characters): " + s.substr(0, 60) + "...");
    out += s;
    out += '\n';
  };
  if (!opt.comment.empty()) {
    std::istringstream cs(opt.comment);
    std::string c;
    while (std::getline(cs, c)) {  // long comment lines are wrapped (ibsim reads 254 characters)
      if (c.empty()) line("#");
      for (size_t k = 0; k < c.size(); k += 200) line((k ? "#   " : "# ") + c.substr(k, 200));
    }
  }
  int ncas = 0, nrts = 0;
  bool narrow = false;
  std::unordered_map<uint64_t, int> guids;
  for (int n = 0; n < f.size(); n++) {
    check_writable_id(f, n, opt.ibsim_descriptions);
    const Node& nd = f.node(n);
    if (nd.type == NodeType::Ca) ncas++;
    if (nd.type == NodeType::Router) nrts++;
    if (nd.guid) {
      auto [it, fresh] = guids.emplace(nd.guid, n);
      if (!fresh)
        throw FabricError("nodes \"" + f.node(it->second).id + "\" and \"" + nd.id + "\" share GUID " + hex(nd.guid) +
                          "; ibsim refuses that");
    }
    for (int p = 1; p <= nd.num_ports; p++)
      if (nd.port(p).connected() && nd.port(p).width != 4) narrow = true;
  }
  line("# " + std::to_string(f.switches().size()) + " switches, " + std::to_string(ncas) + " CAs" +
       (nrts ? ", " + std::to_string(nrts) + " routers" : std::string()) + ", " + std::to_string(f.num_links()) +
       " links. Load with: ibsim -s <file>");
  line("");
  if (narrow) {
    line("width=3");  // 1x|4x on every port not given w=, so each link has a common width
    line("");
  }
  // a fabric without any GUID lets ibsim number the nodes; otherwise every GUID is written
  // as it is (GUID 0 included: ibsim's first router really gets 0)
  const bool has_guids = !guids.empty();
  uint64_t next[3] = {0x100000, 0x200000, 0};
  std::vector<int> order(f.switches().begin(), f.switches().end());
  for (int n = 0; n < f.size(); n++)
    if (!f.node(n).is_switch()) order.push_back(n);
  for (int n : order) {
    const Node& nd = f.node(n);
    const TypeIdx t = idx_of(nd.type);
    if (opt.reported_guids && t == kSw && nd.reported_guid && nd.reported_guid != nd.guid) {
      // as ibnetdiscover shows a chassis ASIC: the reported (shared) node GUID, its own in parentheses
      line("switchguid=" + hex(nd.reported_guid) + "(" + hex(nd.guid).substr(2) + ")");
      next[t] = nd.reported_guid;
    } else if (has_guids && nd.guid != next[t]) {
      line(std::string(t == kSw ? "switchguid=" : t == kCa ? "caguid=" : "rtguid=") + hex(nd.guid));
      next[t] = nd.guid;
    }
    const uint64_t g = next[t];
    next[t] += t == kSw ? 1 : static_cast<uint64_t>(nd.num_ports) + 1;
    std::string h = std::string(t == kSw ? "Switch\t" : t == kCa ? "Hca\t" : "Rt\t") + std::to_string(nd.num_ports) +
                    " \"" + nd.id + "\"";
    const Port& p0 = nd.port(0);
    const bool sw_lid = t == kSw && opt.write_lids && p0.base_lid;
    if (nd.desc != nd.id || sw_lid) h += "\t# \"" + (opt.ibsim_descriptions ? ibsim_description(nd.desc) : nd.desc) + "\"";
    if (sw_lid) h += " lid " + std::to_string(p0.base_lid) + " lmc " + std::to_string(p0.lmc);
    line(h);
    for (int p = t == kSw ? 0 : 1; p <= nd.num_ports; p++) {
      const Port& pt = nd.port(p);
      if (t == kSw) {
        if (pt.guid && pt.guid != nd.guid)
          throw FabricError("port " + f.port_name(n, p) + " has GUID " + hex(pt.guid) + ", not the switch GUID " +
                            hex(nd.guid) + "; ibsim cannot reproduce that");
        if (p == 0) continue;
      } else if (pt.guid && pt.guid != g + static_cast<uint64_t>(p)) {
        throw FabricError("port " + f.port_name(n, p) + " has GUID " + hex(pt.guid) + ", not node GUID + " +
                          std::to_string(p) + " = " + hex(g + static_cast<uint64_t>(p)) +
                          "; ibsim 0.10 cannot reproduce that");
      }
      if (!pt.connected()) continue;
      std::string s = "[" + std::to_string(p) + "]\t\"" + f.node(pt.peer_node).id + "\"[" +
                      std::to_string(pt.peer_port) + "]";
      if (pt.width != 4) s += "\tw=" + std::to_string(width_mask(f, n, p));
      if (pt.speed) s += "\ts=" + std::to_string(pt.speed);
      if (pt.speed_ext) s += "\te=" + std::to_string(pt.speed_ext);
      if (t != kSw && opt.write_lids && pt.base_lid)
        s += "\t# lid " + std::to_string(pt.base_lid) + " lmc " + std::to_string(pt.lmc);
      line(s);
    }
    line("");
  }
  return out;
}

std::vector<std::string> make_ibsim_loadable(Fabric& f) {
  std::vector<std::string> notes;
  // descriptions: what ibsim's header line keeps intact
  int descs = 0;
  std::string first;
  for (int n = 0; n < f.size(); n++) {
    Node& nd = f.node(n);
    std::string d = ibsim_description(nd.desc);
    if (d == nd.desc) continue;
    if (!descs++) first = quote_name(nd.desc) + " -> " + quote_name(d);
    nd.desc = std::move(d);
  }
  if (descs)
    notes.push_back(std::to_string(descs) + " node description" + (descs == 1 ? "" : "s") +
                    " changed for ibsim ('\"' -> '\\'', control characters -> '?', at most " +
                    std::to_string(kIbsimDesc) + " characters), e.g. " + first);
  // reported (shared) node GUIDs: every node keeps its own
  int reported = 0;
  for (int n = 0; n < f.size(); n++) {
    Node& nd = f.node(n);
    if (!nd.reported_guid) continue;
    if (!reported++)
      first = "\"" + escape_name(nd.id) + "\" reported " + hex(nd.reported_guid) + ", now " + hex(nd.guid);
    nd.reported_guid = 0;
  }
  if (reported)
    notes.push_back(std::to_string(reported) + " switch" + (reported == 1 ? "" : "es") +
                    " with a shared node GUID written with their own GUID (their port GUID), e.g. " + first);
  // port GUIDs as ibsim derives them, each end port's GUID and each node GUID used once
  bool any_guid = false;
  uint64_t top = 0;
  for (const Node& nd : f.nodes()) {
    any_guid |= nd.guid != 0;
    top = std::max(top, nd.guid + static_cast<uint64_t>(nd.num_ports));
    for (const Port& p : nd.ports) top = std::max(top, p.guid);
  }
  if (!any_guid) return notes;  // written without GUIDs: ibsim numbers the nodes itself
  std::unordered_set<uint64_t> node_guids, port_guids;
  int derived = 0, moved = 0;
  std::string first_moved;
  for (int n = 0; n < f.size(); n++) {
    Node& nd = f.node(n);
    const bool sw = nd.is_switch();
    auto free_block = [&](uint64_t g) {
      if (node_guids.count(g)) return false;
      if (sw) return !port_guids.count(g);
      for (int p = 1; p <= nd.num_ports; p++)
        if (port_guids.count(g + static_cast<uint64_t>(p))) return false;
      return true;
    };
    const bool move = !free_block(nd.guid);
    if (move) {
      const uint64_t g = top + 1;
      top = g + static_cast<uint64_t>(nd.num_ports);
      if (!moved++) first_moved = "\"" + escape_name(nd.id) + "\" " + hex(nd.guid) + " -> " + hex(g);
      nd.guid = g;
    }
    node_guids.insert(nd.guid);
    for (int p = sw ? 0 : 1; p <= nd.num_ports; p++) {
      const uint64_t g = sw ? nd.guid : nd.guid + static_cast<uint64_t>(p);
      if (nd.port(p).guid != g) {
        derived += !move;
        nd.port(p).guid = g;
      }
      if (!sw || p == 0) port_guids.insert(g);
    }
  }
  if (moved)
    notes.push_back(std::to_string(moved) + " node" + (moved == 1 ? "" : "s") +
                    " moved to a fresh GUID: the port GUIDs ibsim derives from the old one (switch: the node GUID, "
                    "CA port p: node GUID + p) collide with another node's, e.g. " + first_moved);
  if (derived)
    notes.push_back(std::to_string(derived) + " port GUID" + (derived == 1 ? "" : "s") +
                    " replaced by what ibsim derives (switch: the node GUID, CA port p: node GUID + p)");
  return notes;
}

std::string fabric_diff(const Fabric& a, const Fabric& b) {
  if (a.size() != b.size())
    return "node count " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  auto peer = [](const Fabric& f, const Port& p) {
    return p.connected() ? f.port_name(p.peer_node, p.peer_port) : std::string("nothing");
  };
  for (int n = 0; n < a.size(); n++) {
    const Node& x = a.node(n);
    const Node& y = b.node(n);
    std::string where = "node " + std::to_string(n) + " \"" + x.id + "\": ";
    if (x.id != y.id) return where + "id vs \"" + y.id + "\"";
    if (x.type != y.type) return where + "type " + node_type_name(x.type) + " vs " + node_type_name(y.type);
    if (x.desc != y.desc) return where + "desc \"" + x.desc + "\" vs \"" + y.desc + "\"";
    if (x.guid != y.guid) return where + "GUID " + hex(x.guid) + " vs " + hex(y.guid);
    if (x.reported_guid != y.reported_guid)
      return where + "reported GUID " + hex(x.reported_guid) + " vs " + hex(y.reported_guid);
    if (x.num_ports != y.num_ports)
      return where + std::to_string(x.num_ports) + " ports vs " + std::to_string(y.num_ports);
    for (int p = 0; p <= x.num_ports; p++) {
      const Port& u = x.port(p);
      const Port& v = y.port(p);
      std::string pw = where + "port " + std::to_string(p) + " ";
      if (p > 0 || x.is_switch()) {
        if (u.guid != v.guid) return pw + "GUID " + hex(u.guid) + " vs " + hex(v.guid);
        if (u.base_lid != v.base_lid || u.lmc != v.lmc)
          return pw + "LID " + std::to_string(u.base_lid) + "/" + std::to_string(u.lmc) + " vs " +
                 std::to_string(v.base_lid) + "/" + std::to_string(v.lmc);
      }
      if (p == 0) continue;
      if (u.connected() != v.connected() || (u.connected() && (a.node(u.peer_node).id != b.node(v.peer_node).id ||
                                                               u.peer_port != v.peer_port)))
        return pw + "links to " + peer(a, u) + " vs " + peer(b, v);
      if (u.connected() && (u.width != v.width || u.speed != v.speed || u.speed_ext != v.speed_ext))
        return pw + "width/speed/extended speed " + std::to_string(u.width) + "/" + std::to_string(u.speed) + "/" +
               std::to_string(u.speed_ext) + " vs " + std::to_string(v.width) + "/" + std::to_string(v.speed) + "/" +
               std::to_string(v.speed_ext);
    }
  }
  return "";
}

}  // namespace ftroute
