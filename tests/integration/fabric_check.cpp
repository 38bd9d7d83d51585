// See fabric_check.hpp.
#include "fabric_check.hpp"
#include "harness.hpp"

#include <cstdlib>
#include <sstream>

#include "ftroute/error.hpp"
#include "ftroute/lft_io.hpp"
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
  // lft_export's reader: byte-exact dump_fts parser, tables matched by switch GUID.
  LftFile file = parse_lft(text, source, LftFormat::DumpFts);
  if (file.tables.empty()) throw ParseError(source, 0, "no LFT tables (empty dump_fts output?)");
  return map_lfts(file, f).lfts;
}

std::string lfts_file_text(const Fabric& f, const Lfts& lfts) {
  // lft_export's writer, in OpenSM's own opensm-lfts.dump format (portguid comments included).
  return write_lfts(f, lfts, LftFormat::Opensm);
}

std::string RoutingCheck::summary() const {
  std::ostringstream o;
  o << pairs << " pairs, " << delivered << " delivered, " << dropped << " dropped, " << looping
    << " looping, " << bad_entries << " bad entries; CDG " << (cdg_acyclic ? "acyclic" : "cyclic: " + cycle);
  for (const auto& e : examples) o << "\n  " << e;
  return o.str();
}

RoutingCheck check_routing(const Fabric& f, const Lfts& lfts) {
  Routing r;
  r.engine = "live";
  r.lfts = lfts;
  RoutingCheck c;
  c.report = validate(f, r);
  c.pairs = c.report.pairs;
  c.delivered = c.report.delivered;
  c.dropped = c.report.unreachable;
  c.looping = c.report.looping;
  c.bad_entries = c.report.bad_entries;
  c.cdg_acyclic = c.report.cdg_acyclic;
  c.cycle = c.report.cycle_text;
  c.examples = c.report.unreachable_examples;
  c.examples.insert(c.examples.end(), c.report.loop_examples.begin(), c.report.loop_examples.end());
  c.examples.insert(c.examples.end(), c.report.bad_entry_examples.begin(),
                    c.report.bad_entry_examples.end());
  return c;
}

int entries_using_port(const Lfts& lfts, int node, int port) {
  int n = 0;
  for (uint8_t p : lfts.table(node))
    if (p == port) ++n;
  return n;
}

LiveRouting read_live(SimFabric& sim) {
  LiveRouting l;
  l.fabric = fabric_from_ibnetdiscover(sim.ibnetdiscover());
  l.lfts = lfts_from_dump_fts(l.fabric, sim.dump_fts());
  l.check = check_routing(l.fabric, l.lfts);
  return l;
}

}  // namespace ftroute::itest
