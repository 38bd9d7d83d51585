// See fabric_check.hpp.
#include "fabric_check.hpp"

#include <cstdlib>
#include <sstream>

#include "ftroute/cdg.hpp"
#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"

namespace ftroute::itest {

Fabric fabric_from_ibnetdiscover(const std::string& text) { return parse_net(text, "ibnetdiscover"); }

std::optional<int> find_node(const Fabric& f, const std::string& id) {
  if (auto i = f.find(id)) return i;
  for (int i = 0; i < f.size(); ++i)
    if (f.node(i).desc == id) return i;
  return std::nullopt;
}

Lfts lfts_from_dump_fts(const Fabric& f, const std::string& text, const std::string& source) {
  Lfts lfts(f);
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  int sw = -1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.rfind("Unicast lids", 0) == 0) {
      auto g = line.find(" guid 0x");
      if (g == std::string::npos) throw ParseError(source, lineno, "switch header without ' guid 0x'");
      uint64_t guid = std::strtoull(line.c_str() + g + 8, nullptr, 16);
      auto n = f.find_guid(guid);
      if (!n || !f.node(*n).is_switch())
        throw ParseError(source, lineno, "switch GUID " + line.substr(g + 6, 18) + " is not in the fabric");
      sw = *n;
      continue;
    }
    if (line.rfind("0x", 0) != 0) continue;
    if (sw < 0) throw ParseError(source, lineno, "LFT entry before any 'Unicast lids' header");
    char* end = nullptr;
    unsigned long lid = std::strtoul(line.c_str(), &end, 16);
    char* end2 = nullptr;
    unsigned long port = std::strtoul(end, &end2, 10);
    if (end2 == end || lid > kMaxUnicastLid || port > 255)
      throw ParseError(source, lineno, "bad LFT entry '" + line + "'");
    lfts.set(sw, static_cast<Lid>(lid), static_cast<uint8_t>(port));
  }
  return lfts;
}

std::string lfts_file_text(const Fabric& f, const Lfts& lfts) {
  std::ostringstream o;
  char buf[64];
  for (int sw : f.switches()) {
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(f.node(sw).guid));
    o << "Unicast lids [0-" << f.max_lid() << "] of switch guid " << buf << " ('" << f.node(sw).desc
      << "'):\n";
    const auto& t = lfts.table(sw);
    for (size_t lid = 1; lid < t.size(); ++lid) {
      if (t[lid] == kNoPath) continue;
      std::snprintf(buf, sizeof buf, "0x%04zx %03u\n", lid, static_cast<unsigned>(t[lid]));
      o << buf;
    }
  }
  return o.str();
}

std::string RoutingCheck::summary() const {
  std::ostringstream o;
  o << pairs << " pairs, " << delivered << " delivered, " << dropped << " dropped, " << looping
    << " looping; CDG " << (cdg_acyclic ? "acyclic" : "cyclic: " + cycle);
  for (const auto& e : examples) o << "\n  " << e;
  return o.str();
}

RoutingCheck check_routing(const Fabric& f, const Lfts& lfts) {
  Routing r;
  r.engine = "live";
  r.lfts = lfts;
  CdgBuildOptions opt;
  opt.collect_loads = false;
  CdgBuild b = build_cdg(f, r, opt);
  RoutingCheck c;
  c.pairs = b.stats.pairs;
  c.delivered = b.stats.delivered;
  c.dropped = b.stats.dropped;
  c.looping = b.stats.looping;
  c.examples = b.stats.unreachable_examples;
  c.examples.insert(c.examples.end(), b.stats.loop_examples.begin(), b.stats.loop_examples.end());
  if (auto cyc = b.cdg.find_cycle()) {
    c.cdg_acyclic = false;
    c.cycle = b.cdg.format_cycle(*cyc);
  }
  return c;
}

int entries_using_port(const Lfts& lfts, int node, int port) {
  int n = 0;
  for (uint8_t p : lfts.table(node))
    if (p == port) ++n;
  return n;
}

}  // namespace ftroute::itest
