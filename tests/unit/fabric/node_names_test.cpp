// Node names in messages (issue 33 item 3): every CLI, check, engine and plugin text names a node
// by its NodeDescription with its id (S-<GUID>, H-<GUID> in ibnetdiscover output) in brackets, the
// description escaped; fabrics whose descriptions are their ids (generated ones) keep the id alone.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "adapter.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/port_ref.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/topology.hpp"
#include "ftroute/validate.hpp"

namespace ftroute {
namespace {

std::string guid_id(const Node& n) {
  char b[32];
  std::snprintf(b, sizeof b, "%c-%016llx", n.is_switch() ? 'S' : 'H', static_cast<unsigned long long>(n.guid));
  return b;
}

// `g` as ibnetdiscover shows it: ids S-<node GUID> / H-<node GUID>, descriptions from desc(i).
template <class Desc>
Fabric as_discovered(const Fabric& g, Desc&& desc) {
  Fabric f;
  for (int i = 0; i < g.size(); i++) {
    const Node& n = g.node(i);
    const int k = f.add_node(n.type, guid_id(n), n.num_ports, n.guid);
    f.node(k).desc = desc(i);
    for (int p = 0; p <= n.num_ports; p++) f.node(k).port(p).guid = n.port(p).guid;
  }
  for (int i = 0; i < g.size(); i++)
    for (int p = 1; p <= g.node(i).num_ports; p++)
      if (const Port& x = g.node(i).port(p); x.connected()) f.connect(i, p, x.peer_node, x.peer_port);
  for (const EndPort& e : g.end_ports()) f.set_lid(e.node, e.port, e.base_lid, e.lmc);
  return f;
}

// A 4-ary 2-tree whose switches are "lf07.rack3.qm8790"-like and whose hosts are "nodeNN HCA-1".
Fabric rack_fabric() {
  Fabric g = topo::kary_ntree(4, 2);
  g.assign_default_guids();
  g.assign_lids();
  return as_discovered(g, [&](int i) {
    return g.node(i).is_switch() ? "lf" + std::to_string(i) + ".rack3.qm8790" : "node" + std::to_string(i) + " HCA-1";
  });
}

const char* kHostile = "evil\"sw\\x \n\x1b[31m<script>alert(1)</script>\x7f";
const char* kHostileEscaped = "\"evil\\\"sw\\\\x \\x0a\\x1b[31m<script>alert(1)</script>\\x7f\"";

bool has_raw_control(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

// What the plugin and `ftroute route` do with an engine's tables (ftroute/pipeline.hpp): the
// verdict, and EngineError naming the first problem when it fails.
void refuse_bad_tables(const Fabric& f, const Routing& r, const std::string& engine) {
  PipelineOptions po;
  po.verify.stop_at_first = true;
  const Verdict v = verdict_for(f, r, po);
  if (!v.ok()) throw EngineError(engine, v.first_problem());
}

TEST(NodeNames, DescriptionFirstIdInBrackets) {
  const Fabric f = rack_fabric();
  const int s = f.switches().front();
  const int h = f.cas().front();
  const std::string sid = f.node(s).id, hid = f.node(h).id;
  ASSERT_EQ(sid.rfind("S-", 0), 0u);
  EXPECT_EQ(f.node_name(s), "\"" + f.node(s).desc + "\" (" + sid + ")");
  EXPECT_EQ(f.port_name(s, 3), "\"" + f.node(s).desc + "\"[3] (" + sid + ")");
  EXPECT_EQ(f.node_label(h), "\"" + f.node(h).desc + "\" (" + hid + ")");
  EXPECT_NE(f.node_name(s).find(".rack3.qm8790"), std::string::npos);
}

TEST(NodeNames, GeneratedFabricsKeepTheirIds) {  // the output of generated fabrics is unchanged
  Fabric g = topo::kary_ntree(2, 2);
  g.assign_default_guids();
  const int s = g.switches().front(), h = g.cas().front();
  ASSERT_EQ(g.node(s).desc, g.node(s).id);
  EXPECT_EQ(g.node_name(s), "\"" + g.node(s).id + "\"");
  EXPECT_EQ(g.port_name(s, 2), "\"" + g.node(s).id + "\"[2]");
  EXPECT_EQ(g.node_label(h), g.node(h).id);  // bare, as in "H0(7) -> H3(9)"
  g.node(h).desc.clear();                    // no description: the id
  EXPECT_EQ(g.node_name(h), "\"" + g.node(h).id + "\"");
}

TEST(NodeNames, HostileDescriptionIsEscaped) {
  Fabric f = rack_fabric();
  const int s = f.switches().front();
  f.node(s).desc = kHostile;
  const std::string id = " (" + f.node(s).id + ")";
  EXPECT_EQ(f.node_name(s), kHostileEscaped + id);
  EXPECT_EQ(f.port_name(s, 1), kHostileEscaped + std::string("[1]") + id);
  EXPECT_EQ(f.node_label(s), kHostileEscaped + id);
  EXPECT_FALSE(has_raw_control(f.node_name(s)));
  // the quoted part is the port syntax: parse_port_ref reads the description back
  const std::string ref = f.port_name(s, 1).substr(0, f.port_name(s, 1).size() - id.size());
  EXPECT_EQ(parse_port_ref(ref), (PortRef{kHostile, 1}));
  EXPECT_EQ(quote_name(kHostile), kHostileEscaped);
  EXPECT_EQ(format_port_ref(kHostile, 1), ref);
}

// Engine refusals name the description and the GUID id: ft-minhop on a fabric split in two.
TEST(NodeNames, EngineErrorNamesDescriptionAndGuid) {
  Fabric f = rack_fabric();
  const int last = f.switches().back();
  f.node(last).desc = kHostile;
  for (int p = 1; p <= f.node(last).num_ports; p++) f.disconnect(last, p);  // cut off
  try {
    make_engine("ft-minhop")->route(f);
    FAIL() << "ft-minhop routed a disconnected fabric";
  } catch (const EngineError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("switch " + std::string(kHostileEscaped) + " (" + f.node(last).id + ") cannot be reached from switch \"" +
                     f.node(f.switches().front()).desc + "\" (S-"),
              std::string::npos)
        << w;
    EXPECT_FALSE(has_raw_control(w)) << w;
  }
}

// check: unreachable pairs name the hosts "nodeNN HCA-1" (H-<GUID>)(LID) and the switch where the
// route stops; a bad entry names its switch; the plugin's result check too.
TEST(NodeNames, CheckReportsNameDescriptionAndGuid) {
  Fabric f = rack_fabric();
  Routing r = make_engine("ft-minhop")->route(f);
  const int h = f.cas().back();
  const Lid lid = f.node(h).port(1).base_lid;
  const int leaf = f.node(h).port(1).peer_node;
  f.node(leaf).desc = kHostile;
  r.lfts.set(leaf, lid, kNoPath);  // the leaf above h lost its route to h
  ValidationReport rep = validate(f, r);
  ASSERT_FALSE(rep.unreachable_examples.empty());
  const std::string& ex = rep.unreachable_examples.front();
  EXPECT_NE(ex.find("-> \"" + f.node(h).desc + "\" (" + f.node(h).id + ")(" + std::to_string(lid) + ") stops at " +
                    kHostileEscaped + " (" + f.node(leaf).id + "): "),
            std::string::npos)
      << ex;
  EXPECT_NE(ex.find("\" (H-"), std::string::npos) << ex;
  EXPECT_FALSE(has_raw_control(ex)) << ex;

  r.lfts.set(leaf, lid, 9);  // a port the leaf does not have (4-ary: 8 ports)
  rep = validate(f, r);
  ASSERT_FALSE(rep.bad_entry_examples.empty());
  EXPECT_EQ(rep.bad_entry_examples.front().rfind(std::string(kHostileEscaped) + " (" + f.node(leaf).id + ") LID ", 0), 0u)
      << rep.bad_entry_examples.front();
  try {
    refuse_bad_tables(f, r, "ft-minhop");
    FAIL() << "check_routing accepted a port beyond the switch";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("switch " + std::string(kHostileEscaped) + " (" + f.node(leaf).id + ") routes LID"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ftroute
