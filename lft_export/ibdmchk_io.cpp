#include "ftroute/ibdmchk_io.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/switch_graph.hpp"
#include "strfmt.hpp"

namespace ftroute {

namespace {

using detail::fmt;

std::string slurp(const std::string& path) { return read_input_file(path, table_input_limits()); }

std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> t;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) i++;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') j++;
    if (j > i) t.push_back(s.substr(i, j - i));
    i = j;
  }
  return t;
}

std::optional<uint64_t> num(std::string_view s, int base = 0) {
  if (s.empty()) return std::nullopt;
  if (base == 0) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
    else base = 10;
  }
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    if (d >= base) return std::nullopt;
    if (v > (UINT64_MAX >> 4)) return std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return v;
}

const char* type_tag(NodeType t) {
  switch (t) {
    case NodeType::Switch: return "SW";
    case NodeType::Ca: return "CA";
    case NodeType::Router: return "Rt";
  }
  return "**";
}

const char* width_str(int w) {
  switch (w) {
    case 1: return "1x";
    case 4: return "4x";
    case 8: return "8x";
    case 12: return "12x";
    case 2: return "2x";
  }
  return "??";
}

// ibsim speed codes (PortInfo LinkSpeedActive): 1 = 2.5, 2 = 5, 4 = 10 Gb/s; 0 = ibsim default (2.5)
const char* speed_str(int s) {
  switch (s) {
    case 0:
    case 1: return "2.5";
    case 2: return "5";
    case 4: return "10";
  }
  return "??";
}

// Hop distance (links) between switches, BFS over switch-to-switch links (SwitchGraph, whose
// positions are Fabric::switches() order: sw_index maps a node to its row).
std::vector<std::vector<uint16_t>> switch_distances(const Fabric& f, std::vector<int>& sw_index) {
  const SwitchGraph g(f);
  sw_index = g.positions();
  const size_t S = static_cast<size_t>(g.size());
  std::vector<std::vector<uint16_t>> d(S, std::vector<uint16_t>(S, UINT16_MAX));
  std::vector<int> dist, queue;
  for (size_t a = 0; a < S; a++) {
    g.bfs(static_cast<int>(a), dist, queue);
    for (size_t t = 0; t < S; t++)
      if (dist[t] >= 0) d[a][t] = static_cast<uint16_t>(dist[t]);
  }
  return d;
}

}  // namespace

// ------------------------------------------------------------------ subnet.lst

std::string write_subnet_lst(const Fabric& f, const SubnetLstOptions& opt) {
  std::vector<int> order(static_cast<size_t>(f.size()));
  for (int i = 0; i < f.size(); i++) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return __builtin_bswap64(f.node(a).guid) < __builtin_bswap64(f.node(b).guid); });
  auto block = [&](int node, int port, bool neighbour) {
    const Node& n = f.node(node);
    const Port& dp = n.is_switch() ? n.port(0) : n.port(port);  // default port: LID owner
    const bool sm = opt.sm_lid && dp.base_lid == opt.sm_lid;
    const uint64_t pg = n.is_switch() ? n.guid : n.port(port).guid;
    return fmt(neighbour ? "{ %s%s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64 " PortGUID:%016" PRIx64
                           " VenID:%08X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } "
                         : "{ %s%s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64 " PortGUID:%016" PRIx64
                           " VenID:%06X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ",
               type_tag(n.type), sm ? "-SM" : "", n.num_ports, n.guid, n.guid, pg, opt.vendor_id, opt.device_id,
               opt.revision, n.desc.c_str(), dp.base_lid, port);
  };
  std::string out;
  for (int i : order) {
    const Node& n = f.node(i);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (!x.connected()) continue;
      out += block(i, p, false);
      out += block(x.peer_node, x.peer_port, true);
      out += fmt("PHY=%s LOG=ACT SPD=%s\n", width_str(x.width), speed_str(x.speed));
    }
  }
  return out;
}

Fabric parse_subnet_lst(std::string_view text, const std::string& filename, uint8_t lmc) {
  check_input_text(text, filename, 4096);
  struct Side {
    NodeType type;
    int ports;
    uint64_t node_guid, port_guid;
    std::string desc;
    Lid lid;
    int pn;
  };
  struct NodeInfo {
    NodeType type;
    int ports;
    std::string desc;
    int line;
    std::map<int, uint64_t> port_guid;
    std::map<int, Lid> lid;  // CA: per port; switch: port 0
  };
  std::map<uint64_t, NodeInfo> nodes;
  std::vector<std::tuple<uint64_t, int, uint64_t, int, int, int, int>> links;  // a, pa, b, pb, width, speed, line
  auto lines = split_lines(text);
  for (size_t li = 0; li < lines.size(); li++) {
    const int ln = static_cast<int>(li + 1);
    std::string_view s = lines[li];
    auto err = [&](const std::string& m) { throw ParseError(filename, ln, m); };
    if (s.find_first_not_of(" \t") == std::string_view::npos) continue;
    Side sides[2];
    size_t pos = 0;
    for (int k = 0; k < 2; k++) {
      size_t open = s.find("{ ", pos);
      if (open == std::string_view::npos) err("malformed line: expected '{ <node> }' twice");
      size_t dopen = s.find('{', open + 1);
      size_t dclose = s.find("} LID:", dopen);
      size_t close = dclose == std::string_view::npos ? dclose : s.find(" }", dclose + 1);
      if (dopen == std::string_view::npos || dclose == std::string_view::npos || close == std::string_view::npos)
        err("malformed node block");
      Side& sd = sides[k];
      sd.desc = std::string(s.substr(dopen + 1, dclose - dopen - 1));
      auto pre = tokens(s.substr(open + 2, dopen - open - 2));
      auto post = tokens(s.substr(dclose + 2, close - dclose - 2));
      if (pre.size() < 7) err("malformed node block: missing fields before {desc}");
      std::string_view ty = pre[0];
      if (ty.substr(0, 2) == "SW") sd.type = NodeType::Switch;
      else if (ty.substr(0, 2) == "CA") sd.type = NodeType::Ca;
      else if (ty.substr(0, 2) == "Rt") sd.type = NodeType::Router;
      else err("unknown node type '" + std::string(ty) + "'");
      auto field = [&](const std::vector<std::string_view>& v, std::string_view key, int base) -> uint64_t {
        for (auto t : v)
          if (t.substr(0, key.size()) == key) {
            auto x = num(t.substr(key.size()), base);
            if (!x) err("malformed " + std::string(key) + " '" + std::string(t) + "'");
            return *x;
          }
        err("missing " + std::string(key));
        return 0;
      };
      sd.ports = static_cast<int>(field(pre, "Ports:", 16));
      sd.node_guid = field(pre, "NodeGUID:", 16);
      sd.port_guid = field(pre, "PortGUID:", 16);
      sd.lid = static_cast<Lid>(field(post, "LID:", 16));
      sd.pn = static_cast<int>(field(post, "PN:", 16));
      if (sd.ports < 1 || sd.ports > kMaxPorts) err("node " + sd.desc + ": " + std::to_string(sd.ports) + " ports");
      if (sd.pn < 1 || sd.pn > sd.ports) err("port " + std::to_string(sd.pn) + " of " + sd.desc + " out of range");
      pos = close + 2;
    }
    int width = 4, speed = 0;
    for (auto t : tokens(s.substr(pos))) {
      if (t.substr(0, 4) == "PHY=") {
        auto w = t.substr(4);
        width = w == "1x" ? 1 : w == "4x" ? 4 : w == "8x" ? 8 : w == "12x" ? 12 : w == "2x" ? 2 : 4;
      } else if (t.substr(0, 4) == "SPD=") {
        auto v = t.substr(4);
        speed = v == "2.5" ? 1 : v == "5" ? 2 : v == "10" ? 4 : 0;
      }
    }
    for (auto& sd : sides) {
      auto [it, fresh] = nodes.try_emplace(sd.node_guid, NodeInfo{sd.type, sd.ports, sd.desc, ln, {}, {}});
      NodeInfo& ni = it->second;
      if (!fresh && (ni.type != sd.type || ni.ports != sd.ports))
        err(fmt("node GUID 0x%016" PRIx64 " listed with a different type or port count than at line %d",
                sd.node_guid, ni.line));
      ni.port_guid[sd.pn] = sd.port_guid;
      if (sd.type == NodeType::Switch) ni.lid[0] = sd.lid;
      else ni.lid[sd.pn] = sd.lid;
    }
    links.emplace_back(sides[0].node_guid, sides[0].pn, sides[1].node_guid, sides[1].pn, width, speed, ln);
  }
  Fabric f;
  std::map<uint64_t, int> idx;
  std::map<std::string, int> ids;
  for (auto& [g, ni] : nodes) {
    std::string id = ni.desc.empty() ? fmt("0x%016" PRIx64, g) : ni.desc;
    if (ids.count(id)) id += fmt("-0x%016" PRIx64, g);  // duplicate descriptions: make ids unique
    ids[id] = 1;
    int n = f.add_node(ni.type, id, ni.ports, g);
    f.node(n).desc = ni.desc;
    if (ni.type != NodeType::Switch)
      for (auto& [p, pg] : ni.port_guid) f.node(n).port(p).guid = pg;
    idx[g] = n;
  }
  for (auto& [a, pa, b, pb, w, sp, ln] : links) {
    try {
      f.connect(idx[a], pa, idx[b], pb);
    } catch (const FabricError& e) {
      throw ParseError(filename, ln, e.what());
    }
    f.node(idx[a]).port(pa).width = static_cast<uint8_t>(w);
    f.node(idx[a]).port(pa).speed = static_cast<uint8_t>(sp);
  }
  for (auto& [g, ni] : nodes)
    for (auto& [p, lid] : ni.lid)
      if (lid) f.set_lid(idx[g], p, lid, ni.type == NodeType::Switch ? 0 : lmc);
  if (f.size() == 0) throw ParseError(filename, 0, "no links: not a fabric (empty, or only blank lines)");
  try {
    f.validate();
  } catch (const FabricError& e) {
    throw ParseError(filename, 0, e.what());
  }
  return f;
}

Fabric read_subnet_lst(const std::string& path, uint8_t lmc) { return parse_subnet_lst(slurp(path), path, lmc); }

// ------------------------------------------------------------------ fdbs

void write_fdbs(const Fabric& f, const Lfts& lfts, TextOut& out) {
  std::vector<int> swi;
  auto dist = switch_distances(f, swi);
  std::vector<int> sws = f.switches();
  std::stable_sort(sws.begin(), sws.end(), [&](int a, int b) { return __builtin_bswap64(f.node(a).guid) < __builtin_bswap64(f.node(b).guid); });
  for (int s : sws) {
    const Node& n = f.node(s);
    out.printf("dump_ucast_routes: Switch 0x%016" PRIx64 "\nLID    : Port : Hops : Optimal\n", n.guid);
    const auto& ds = dist[static_cast<size_t>(swi[static_cast<size_t>(s)])];
    for (uint32_t l = 1; l <= f.max_lid(); l++) {
      out.printf("0x%04X : ", l);
      auto own = f.owner(static_cast<Lid>(l));
      const uint8_t port = lfts.num_nodes() > s ? lfts.get(s, static_cast<Lid>(l)) : kNoPath;
      if (!own || port == kNoPath) {
        out.put("UNREACHABLE\n");
        continue;
      }
      // target switch and extra hop for CAs
      Attach at = f.attach(static_cast<Lid>(l));
      if (!at.valid()) {
        out.printf("%03u  : HOPS UNKNOWN\n", port);
        continue;
      }
      const int extra = f.node(own->node).is_switch() ? 0 : 1;
      const int tgt = swi[static_cast<size_t>(at.sw)];
      auto via = [&](int p) -> int {  // shortest hops from s through port p
        if (p == 0) return s == at.sw && extra == 0 ? 0 : -1;
        if (p > n.num_ports) return -1;
        const Port& x = n.port(p);
        if (!x.connected()) return -1;
        if (x.peer_node == own->node && x.peer_port == own->port) return 1;
        if (!f.node(x.peer_node).is_switch()) return -1;
        uint16_t d = dist[static_cast<size_t>(swi[static_cast<size_t>(x.peer_node)])][static_cast<size_t>(tgt)];
        if (d == UINT16_MAX) return -1;
        return 1 + d + extra;
      };
      const int hops = via(port);
      if (hops < 0) {
        out.printf("%03u  : HOPS UNKNOWN\n", port);
        continue;
      }
      int best = ds[static_cast<size_t>(tgt)] == UINT16_MAX ? hops : ds[static_cast<size_t>(tgt)] + extra;
      out.printf("%03u  : %02u   : ", port, hops);
      if (hops == best) {
        out.put("yes\n");
      } else {
        int bp = port;
        for (int p = 0; p <= n.num_ports; p++)
          if (via(p) == best) {
            bp = p;
            break;
          }
        out.printf("No %u hop path possible via port %u!\n", best, bp);
      }
    }
  }
}

std::string write_fdbs(const Fabric& f, const Lfts& lfts) {
  std::string s;
  TextOut out(TextOut::to_string(s));
  write_fdbs(f, lfts, out);
  out.flush();
  return s;
}

std::string write_mcfdbs_empty() { return ""; }

// ------------------------------------------------------------------ path SL

void write_path_sl(const Fabric& f, const Routing& r, TextOut& out, const PathSlWriteOptions& opt) {
  out.put("# ftroute path-SL file (ibdmchk -c): src_node_guid dlid sl\n");
  std::vector<std::pair<int, Lid>> srcs;  // node, its first port's base LID
  for (int i = 0; i < f.size(); i++) {
    const Node& n = f.node(i);
    if (n.is_switch()) {
      if (opt.switch_sources && n.port(0).base_lid) srcs.emplace_back(i, n.port(0).base_lid);
      continue;
    }
    for (int p = 1; p <= n.num_ports; p++)
      if (n.port(p).base_lid) {
        srcs.emplace_back(i, n.port(p).base_lid);
        break;
      }
  }
  const auto eps = f.end_ports();
  for (auto [node, slid] : srcs)
    for (const EndPort& e : eps)
      for (uint32_t d = e.base_lid; d <= e.last_lid(); d++) {
        // ibdmchk looks the SL up per source *node* for every DLID it traces (another port of
        // the same CA included), so all_pairs writes the node's own LIDs too.
        if (e.node == node && !opt.all_pairs) continue;
        const int sl = r.sl(slid, static_cast<Lid>(d));
        if (sl == 0 && !opt.all_pairs) continue;
        out.printf("0x%016" PRIx64 " %u %d\n", f.node(node).guid, d, sl);
      }
}

std::string write_path_sl(const Fabric& f, const Routing& r, const PathSlWriteOptions& opt) {
  std::string s;
  TextOut out(TextOut::to_string(s));
  write_path_sl(f, r, out, opt);
  out.flush();
  return s;
}

std::function<uint8_t(Lid, Lid)> parse_path_sl(std::string_view text, const std::string& filename, const Fabric& f,
                                               uint16_t* used_sls) {
  check_input_text(text, filename, 4096);
  std::unordered_map<uint64_t, uint8_t> table;  // (node << 16) | dlid
  auto lines = split_lines(text);
  for (size_t li = 0; li < lines.size(); li++) {
    const int ln = static_cast<int>(li + 1);
    std::string_view s = lines[li];
    if (auto h = s.find('#'); h != std::string_view::npos) s = s.substr(0, h);
    auto t = tokens(s);
    if (t.empty()) continue;
    if (t.size() != 3) throw ParseError(filename, ln, "expected 'src_node_guid dlid sl'");
    auto g = num(t[0]);
    auto d = num(t[1]);
    auto sl = num(t[2]);
    if (!g) throw ParseError(filename, ln, "malformed GUID '" + std::string(t[0]) + "'");
    if (!d || *d > kMaxUnicastLid) throw ParseError(filename, ln, "malformed DLID '" + std::string(t[1]) + "'");
    if (!sl || *sl > 15) throw ParseError(filename, ln, "SL '" + std::string(t[2]) + "' is not 0..15");
    auto node = f.find_guid(*g);
    if (!node) throw ParseError(filename, ln, fmt("node GUID 0x%016" PRIx64 " is not in the fabric", *g));
    table[(static_cast<uint64_t>(*node) << 16) | *d] = static_cast<uint8_t>(*sl);
    if (used_sls) *used_sls = static_cast<uint16_t>(*used_sls | (1u << *sl));
  }
  // source LID -> node, captured by value
  std::vector<int32_t> lid_node(static_cast<size_t>(f.max_lid()) + 1, -1);
  for (const EndPort& e : f.end_ports())
    for (uint32_t l = e.base_lid; l <= e.last_lid(); l++) lid_node[l] = e.node;
  return [table = std::move(table), lid_node = std::move(lid_node)](Lid s, Lid d) -> uint8_t {
    if (s >= lid_node.size() || lid_node[s] < 0) return 0;
    auto it = table.find((static_cast<uint64_t>(lid_node[s]) << 16) | d);
    return it == table.end() ? 0 : it->second;
  };
}

std::function<uint8_t(Lid, Lid)> read_path_sl(const std::string& path, const Fabric& f, uint16_t* used_sls) {
  return parse_path_sl(slurp(path), path, f, used_sls);
}

std::string path_sl_dump_end_line(const PathSlDumpEnd& e) {
  return fmt("# end: %ld pairs, %ld without path parameters, %ld with an SL other than their CA's first port\n", e.pairs,
             e.missing, e.disagree);
}

PathSlDumpEnd path_sl_dump_end(std::string_view text) {
  PathSlDumpEnd e;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const size_t nl = text.rfind('\n');
  const std::string last(text.substr(nl == std::string_view::npos ? 0 : nl + 1));
  // the numbers, then the whole line as the writer would put it (nothing more, nothing less)
  if (std::sscanf(last.c_str(), "# end: %ld pairs, %ld without path parameters, %ld", &e.pairs, &e.missing, &e.disagree) == 3 &&
      last + "\n" == path_sl_dump_end_line(e))
    e.found = true;
  else
    e = PathSlDumpEnd{};
  return e;
}

// ------------------------------------------------------------------ SL2VL

void write_sl2vl(const Fabric& f, const Sl2Vl& t, TextOut& out) {
  out.put("# ftroute SL2VL file (ibdmchk -d): swguid iport oport 0x(sl0)(sl1) ... 0x(sl14)(sl15)\n");
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int in = 0; in <= n.num_ports; in++) {
      if (in > 0 && !n.port(in).connected()) continue;
      for (int o = 1; o <= n.num_ports; o++) {
        if (!n.port(o).connected() || o == in) continue;
        out.printf("0x%016" PRIx64 " %d %d", n.guid, in, o);
        for (int k = 0; k < 8; k++)
          out.printf(" 0x%x%x", t.vl(s, in, o, 2 * k) & 15, t.vl(s, in, o, 2 * k + 1) & 15);
        out.put('\n');
      }
    }
  }
}

std::string write_sl2vl(const Fabric& f, const Sl2Vl& t) {
  std::string s;
  TextOut out(TextOut::to_string(s));
  write_sl2vl(f, t, out);
  out.flush();
  return s;
}

Sl2Vl parse_sl2vl(std::string_view text, const std::string& filename, const Fabric& f) {
  check_input_text(text, filename, 4096);
  Sl2Vl r;
  auto lines = split_lines(text);
  // OpenSM's opensm-sl2vl.dump: a "Switch 0x<guid>, base LID n, "desc"" or "Channel Adapter
  // 0x<port guid>, ..." header, then "<in> <out> : vl0 .. vl15" rows in decimal.
  int osm_node = -1, osm_port = 0;
  for (size_t li = 0; li < lines.size(); li++) {
    const int ln = static_cast<int>(li + 1);
    std::string_view s = lines[li];
    for (std::string_view kind : {std::string_view("Switch 0x"), std::string_view("Channel Adapter 0x"),
                                  std::string_view("Router 0x")}) {
      if (s.substr(0, kind.size()) != kind) continue;
      std::string_view g = s.substr(kind.size() - 2);
      g = g.substr(0, g.find(','));
      auto guid = num(g);
      if (!guid) throw ParseError(filename, ln, "malformed GUID in '" + std::string(s.substr(0, 60)) + "'");
      osm_node = -1;
      for (int i = 0; i < f.size() && osm_node < 0; i++) {
        const Node& n = f.node(i);
        if (n.is_switch() && kind[0] == 'S' && n.guid == *guid) osm_node = i, osm_port = 0;
        if (!n.is_switch() && kind[0] != 'S')
          for (int p = 1; p <= n.num_ports; p++)
            if (n.port(p).guid == *guid) osm_node = i, osm_port = p;
      }
      if (osm_node < 0) throw ParseError(filename, ln, fmt("GUID 0x%016" PRIx64 " is not in the fabric", *guid));
      s = {};
      break;
    }
    if (s.empty()) continue;
    if (osm_node >= 0 && s.find(':') != std::string_view::npos && s.front() != '#') {
      auto colon = s.find(':');
      auto io = tokens(s.substr(0, colon));
      auto vls = tokens(s.substr(colon + 1));
      if (io.size() != 2 || vls.size() != 16) throw ParseError(filename, ln, "expected '<in> <out> : <16 VLs>'");
      auto in = num(io[0], 10), out = num(io[1], 10);
      if (!in || !out) throw ParseError(filename, ln, "malformed port number");
      Sl2Vl::Table tab{};
      for (size_t k = 0; k < 16; k++) {
        auto v = num(vls[k], 10);
        if (!v || *v > 15) throw ParseError(filename, ln, "VL '" + std::string(vls[k]) + "' is not 0..15");
        tab[k] = static_cast<uint8_t>(*v);
      }
      const Node& n = f.node(osm_node);
      if (n.is_switch()) {
        if (*in > static_cast<uint64_t>(n.num_ports) || *out > static_cast<uint64_t>(n.num_ports))
          throw ParseError(filename, ln, "port beyond the " + std::to_string(n.num_ports) + " ports of " + f.node_name(osm_node));
        if (*out == 0) continue;  // management port: no data VLs to model
        r.set(osm_node, static_cast<int>(*in), static_cast<int>(*out), tab);
      } else {
        r.set(osm_node, 0, osm_port, tab);  // CA injection table
      }
      continue;
    }
    if (auto h = s.find('#'); h != std::string_view::npos) s = s.substr(0, h);
    auto t = tokens(s);
    if (t.empty()) continue;
    if (t.size() != 11) throw ParseError(filename, ln, "expected 'swguid iport oport' and 8 bytes 0x(sl2k)(sl2k+1)");
    auto g = num(t[0]);
    auto in = num(t[1]);
    auto o = num(t[2]);
    if (!g || !in || !o) throw ParseError(filename, ln, "malformed GUID or port number");
    auto sw = f.find_guid(*g);
    if (!sw || !f.node(*sw).is_switch())
      throw ParseError(filename, ln, fmt("switch GUID 0x%016" PRIx64 " is not in the fabric", *g));
    const int np = f.node(*sw).num_ports;
    if (*in > static_cast<uint64_t>(np) || *o > static_cast<uint64_t>(np) || *o == 0)
      throw ParseError(filename, ln, "port beyond the " + std::to_string(np) + " ports of " + f.node_name(*sw));
    Sl2Vl::Table tab{};
    for (int k = 0; k < 8; k++) {
      auto b = num(t[3 + static_cast<size_t>(k)]);
      if (!b || *b > 0xff) throw ParseError(filename, ln, "malformed SL2VL byte '" + std::string(t[3 + static_cast<size_t>(k)]) + "'");
      tab[static_cast<size_t>(2 * k)] = static_cast<uint8_t>(*b >> 4);
      tab[static_cast<size_t>(2 * k + 1)] = static_cast<uint8_t>(*b & 15);
    }
    r.set(*sw, static_cast<int>(*in), static_cast<int>(*o), tab);
  }
  return r;
}

Sl2Vl read_sl2vl(const std::string& path, const Fabric& f) { return parse_sl2vl(slurp(path), path, f); }

}  // namespace ftroute
