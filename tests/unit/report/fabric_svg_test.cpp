// The picture of `ftroute check --svg` (report/, docs/check.md): levels from the fat-tree
// recognition or BFS, cable widths growing with the routes, the hottest link, missing and unused
// cables marked, hostile names escaped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "ftroute/fabric_spec.hpp"
#include "ftroute/fabric_svg.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/registry.hpp"
#include "ftroute/validate.hpp"

using namespace ftroute;

namespace {

Fabric spec(const std::string& s) {
  Fabric f = topo::build_fabric_spec(s);
  f.assign_lids();
  return f;
}

Routing route(const Fabric& f, const std::string& engine = "ftree-misroute") { return make_engine(engine)->route(f); }

int node(const Fabric& f, const std::string& id) {
  auto n = f.find(id);
  EXPECT_TRUE(n.has_value()) << id;
  return n ? *n : -1;
}

// The port of switch `a` cabled to switch `b` (the first one).
int port_to(const Fabric& f, int a, int b) {
  for (int p = 1; p <= f.node(a).num_ports; p++)
    if (f.node(a).port(p).peer_node == b) return p;
  return 0;
}

std::string picture(const Fabric& f, const Routing& r, const FabricSvgOptions& o = {}) {
  return fabric_svg(f, validate(f, r), tree_levels(f), o);
}

struct CableEl {
  std::string cls;
  uint64_t efi = 0;
  std::string a, b;
  double width = 0;
};

std::vector<CableEl> cables(const std::string& svg) {
  static const std::regex re(R"re(<path class="(cable[^"]*)" data-efi="(\d+)" data-a="([^"]*)" data-b="([^"]*)" d="[^"]*" stroke="[^"]*" stroke-width="([0-9.]+)")re");
  std::vector<CableEl> v;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    v.push_back({(*it)[1], std::stoull((*it)[2]), (*it)[3], (*it)[4], std::stod((*it)[5])});
  return v;
}

std::vector<std::pair<std::string, std::string>> missing(const std::string& svg) {
  static const std::regex re(R"re(<path class="missing" data-a="([^"]*)" data-b="([^"]*)")re");
  std::vector<std::pair<std::string, std::string>> v;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) v.push_back({(*it)[1], (*it)[2]});
  return v;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) n++;
  return n;
}

// What an XML parser needs of text: valid UTF-8, no control characters but tab/LF, every '&' an
// entity, every '<' a tag of the SVG vocabulary written here (no <script, no <!-- or CDATA).
void expect_safe_xml(const std::string& svg) {
  static const std::set<std::string> tags = {"svg", "title", "defs", "linearGradient", "stop", "rect", "text", "tspan",
                                             "g", "path", "line", "circle"};
  for (size_t i = 0; i < svg.size(); i++) {
    const unsigned char c = static_cast<unsigned char>(svg[i]);
    ASSERT_FALSE(c < 0x20 && c != '\n' && c != '\t') << "control character at " << i;
    ASSERT_NE(c, 0x7f);
    if (c == '&') {
      const std::string rest = svg.substr(i, 6);
      EXPECT_TRUE(rest.rfind("&amp;", 0) == 0 || rest.rfind("&lt;", 0) == 0 || rest.rfind("&gt;", 0) == 0 ||
                  rest.rfind("&quot;", 0) == 0 || rest.rfind("&apos;", 0) == 0)
          << "bare & at " << i << ": " << svg.substr(i, 20);
    }
    if (c == '<') {
      size_t k = i + 1 + (i + 1 < svg.size() && svg[i + 1] == '/');
      size_t e = k;
      while (e < svg.size() && std::isalpha(static_cast<unsigned char>(svg[e]))) e++;
      EXPECT_TRUE(tags.count(svg.substr(k, e - k))) << "unexpected tag at " << i << ": " << svg.substr(i, 20);
    }
    if (c >= 0x80) {  // a valid UTF-8 sequence
      const size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      ASSERT_GE(c, 0xc2) << "bad UTF-8 lead byte at " << i;
      for (size_t k = 1; k < len; k++) ASSERT_EQ(static_cast<unsigned char>(svg.at(i + k)) & 0xc0, 0x80) << i;
      i += len - 1;
    }
  }
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_EQ(count(svg, "<svg "), 1u);
  EXPECT_NE(svg.find("</svg>\n"), std::string::npos);
}

TEST(FabricSvg, LevelsOfARecognisedTree) {
  const Fabric f = spec("fattree:4,3");
  const TreeLevels L = tree_levels(f);
  ASSERT_TRUE(L.recognised) << L.shape;
  EXPECT_EQ(L.height, 2);
  EXPECT_EQ(L.pods, 4);
  std::map<int, int> per_level;
  for (int s : f.switches()) {
    per_level[L.level[static_cast<size_t>(s)]]++;
    // the generator's names: S<stage>_<digits>, stage 0 = the leaves
    EXPECT_EQ(L.level[static_cast<size_t>(s)], f.node(s).id[1] - '0') << f.node(s).id;
    EXPECT_EQ(L.groups[static_cast<size_t>(s)].size(), static_cast<size_t>(2 - L.level[static_cast<size_t>(s)]));
  }
  EXPECT_EQ(per_level, (std::map<int, int>{{0, 16}, {1, 16}, {2, 16}}));
  for (int c : f.cas()) EXPECT_EQ(L.level[static_cast<size_t>(c)], -1);
  EXPECT_EQ(L.missing_cables(), 0);
  // a leaf and the level-1 switch above it share their pod; leaves of other pods do not
  const auto& g = L.groups;
  EXPECT_EQ(g[static_cast<size_t>(node(f, "S0_00"))][0], g[static_cast<size_t>(node(f, "S1_00"))][0]);
  EXPECT_NE(g[static_cast<size_t>(node(f, "S0_00"))][0], g[static_cast<size_t>(node(f, "S0_10"))][0]);
}

TEST(FabricSvg, BfsLevelsWhenNotATree) {
  // a ring of 5 switches with hosts on R0 only: R0 level 0, R1 and R4 level 1, R2 and R3 level 2,
  // and R2 - R3 joins two switches of one level: no fat tree
  Fabric f;
  for (int i = 0; i < 5; i++) f.add_node(NodeType::Switch, "R" + std::to_string(i), 4);
  for (int i = 0; i < 5; i++) f.connect(i, 1, (i + 1) % 5, 2);
  f.connect(f.add_node(NodeType::Ca, "H0", 1), 1, 0, 3);
  f.connect(f.add_node(NodeType::Ca, "H1", 1), 1, 0, 4);
  f.assign_default_guids();
  f.assign_lids();
  const TreeLevels L = tree_levels(f);
  EXPECT_FALSE(L.recognised);
  EXPECT_FALSE(L.shape.empty());
  EXPECT_EQ(L.height, 2);
  EXPECT_EQ(L.level, (std::vector<int>{0, 1, 2, 2, 1, -1, -1}));
  const std::string svg = picture(f, route(f, "ft-minhop"));
  EXPECT_NE(svg.find("levels are BFS distances from the CA-attached switches"), std::string::npos);
  expect_safe_xml(svg);
  // a torus: every switch hosts CAs, one row, cables as arcs, still well-formed
  const Fabric t = spec("torus:4x4");
  const std::string ts = picture(t, route(t, "ft-minhop"));
  EXPECT_EQ(cables(ts).size(), 32u);
  EXPECT_NE(ts.find(" Q"), std::string::npos);
  expect_safe_xml(ts);
}

TEST(FabricSvg, WidthsGrowWithRoutesAndTheHottestLinkIsMarked) {
  // ftree-misroute on a tree with a missing cable: loads from ~half to the maximum
  Fabric f = spec("fattree2:12,6,6");
  const int l0 = node(f, "L0"), s0 = node(f, "S0");
  f.disconnect(l0, port_to(f, l0, s0));
  const Routing r = route(f);
  const ValidationReport rep = validate(f, r);
  const std::string svg = fabric_svg(f, rep, tree_levels(f), {});
  auto v = cables(svg);
  ASSERT_EQ(v.size(), static_cast<size_t>(12 * 6 - 1));
  std::set<uint64_t> loads;
  for (const auto& c : v) loads.insert(c.efi);
  ASSERT_GE(loads.size(), 3u) << "the test needs different loads";
  std::sort(v.begin(), v.end(), [](const CableEl& a, const CableEl& b) { return a.efi < b.efi; });
  for (size_t i = 1; i < v.size(); i++) {
    EXPECT_LE(v[i - 1].width, v[i].width) << v[i - 1].efi << " vs " << v[i].efi;
    if (v[i].efi > v[i - 1].efi + rep.efi_max / 50) {
      EXPECT_LT(v[i - 1].width, v[i].width);
    }
  }
  EXPECT_EQ(v.back().efi, rep.efi_max);
  // the hottest link: a ring and a label with its routes and both ports (with the switches'
  // labels, here their ids; the tooltip and the caption name the ports in full)
  ASSERT_EQ(count(svg, "<g class=\"hottest\">"), 1u);
  const int hn = rep.efi_max_link.node, hport = rep.efi_max_link.port;
  const Port& hp = f.node(hn).port(hport);
  const std::string shown = "hottest link: " + std::to_string(rep.efi_max) + " routes " + f.node(hn).id + "[" +
                            std::to_string(hport) + "] -&gt; " + f.node(hp.peer_node).id + "[" + std::to_string(hp.peer_port) + "]";
  const std::string full = "hottest link: " + std::to_string(rep.efi_max) + " routes " + xml_text(f.port_name(hn, hport)) +
                           " -&gt; " + xml_text(f.port_name(hp.peer_node, hp.peer_port));
  const size_t g = svg.find("<g class=\"hottest\">");
  EXPECT_NE(svg.find(shown, g), std::string::npos) << shown;
  EXPECT_LT(svg.find(shown, g), svg.find("</g>", g));
  EXPECT_LT(svg.find(full, g), svg.find("</g>", g)) << "its tooltip names the ports";
  EXPECT_NE(svg.find(full, svg.find("class=\"caption\"")), std::string::npos) << "the caption names it too";
  // the ring sits on the middle of the hottest cable
  static const std::regex ring(R"re(<g class="hottest"><circle cx="([0-9.]+)" cy="([0-9.]+)")re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, ring));
  const std::regex hot_path("<path class=\"cable\" data-efi=\"" + std::to_string(rep.efi_max) + "\" data-a=\"[^\"]*\" data-b=\"[^\"]*\" d=\"M([0-9.]+),([0-9.]+) L([0-9.]+),([0-9.]+)\"");
  bool on_one = false;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), hot_path); it != std::sregex_iterator(); ++it)
    on_one |= std::fabs((std::stod((*it)[1]) + std::stod((*it)[3])) / 2 - std::stod(m[1])) < 0.2 &&
              std::fabs((std::stod((*it)[2]) + std::stod((*it)[4])) / 2 - std::stod(m[2])) < 0.2;
  EXPECT_TRUE(on_one) << "the ring is not on a cable with the maximum routes";
  expect_safe_xml(svg);
}

TEST(FabricSvg, MissingAndUnusedCablesAreMarked) {
  const Fabric full = spec("fattree:4,3");
  // one leaf - level-1 cable removed: the routing of the damaged fabric
  Fabric cut = full;
  const int a = node(cut, "S0_00"), b = node(cut, "S1_01");
  const int pa = port_to(cut, a, b), pb = cut.node(a).port(pa).peer_port;
  cut.disconnect(a, pa);
  const Routing r = route(cut);
  // drawn on the damaged fabric: the cable is missing, nothing is unused
  {
    const TreeLevels L = tree_levels(cut);
    ASSERT_TRUE(L.recognised);
    ASSERT_EQ(L.missing_pairs.size(), 1u);
    EXPECT_EQ(L.missing_pairs[0].a, a);
    EXPECT_EQ(L.missing_pairs[0].b, b);
    EXPECT_TRUE(L.missing_stubs.empty());
    const std::string svg = fabric_svg(cut, validate(cut, r), L, {});
    EXPECT_EQ(missing(svg), (std::vector<std::pair<std::string, std::string>>{{"S0_00", "S1_01"}}));
    EXPECT_EQ(count(svg, "class=\"missing-mark\""), 1u);
    EXPECT_EQ(count(svg, "class=\"cable unused\""), 0u);
    EXPECT_NE(svg.find("missing cables: &quot;S0_00&quot; - &quot;S1_01&quot;"), std::string::npos);
    expect_safe_xml(svg);
  }
  // the same LFTs on the intact fabric: the cable is there but carries no route (down/failed)
  {
    const std::string svg = picture(full, r);
    EXPECT_TRUE(missing(svg).empty());
    std::vector<CableEl> unused;
    for (const auto& c : cables(svg))
      if (c.cls == "cable unused") unused.push_back(c);
    ASSERT_EQ(unused.size(), 1u);
    EXPECT_EQ(unused[0].efi, 0u);
    EXPECT_EQ(unused[0].a, xml_text(full.port_name(a, pa)));
    EXPECT_EQ(unused[0].b, xml_text(full.port_name(b, pb)));
    EXPECT_EQ(count(svg, "class=\"unused-mark\""), 1u);
    expect_safe_xml(svg);
  }
  // the routing of the intact fabric on it: nothing marked
  {
    const std::string svg = picture(full, route(full));
    EXPECT_TRUE(missing(svg).empty());
    EXPECT_EQ(count(svg, "class=\"cable unused\""), 0u);
    EXPECT_EQ(count(svg, "class=\"missing-stub\""), 0u);
  }
}

TEST(FabricSvg, ABundleShortOfACableAndATopCableMissing) {
  // 2-cable leaf-spine bundles: one cable of L1's bundle to S2 removed; in a 3-level tree one
  // aggregation-core cable removed
  Fabric f = spec("ctree:leaves=6,spines=4,hosts=4,links=2");
  const int l1 = node(f, "L1"), s2 = node(f, "S2");
  f.disconnect(l1, port_to(f, l1, s2));
  TreeLevels L = tree_levels(f);
  ASSERT_TRUE(L.recognised) << L.shape;
  ASSERT_EQ(L.missing_pairs.size(), 1u);
  EXPECT_EQ(L.missing_pairs[0].a, l1);
  EXPECT_EQ(L.missing_pairs[0].b, s2);
  EXPECT_EQ(L.missing_pairs[0].cables, 1);
  EXPECT_EQ(L.missing_cables(), 1);
  std::string svg = fabric_svg(f, validate(f, route(f)), L, {});
  EXPECT_EQ(missing(svg), (std::vector<std::pair<std::string, std::string>>{{"L1", "S2"}}));

  Fabric g = spec("ctree:pods=3*3,aggs=3,cores=2,hosts=3");
  const int a = node(g, "A1_2");
  int core = -1;
  for (int p = 1; p <= g.node(a).num_ports && core < 0; p++) {
    const Port& x = g.node(a).port(p);
    if (x.connected() && g.node(x.peer_node).id[0] == 'C') core = x.peer_node;
  }
  ASSERT_GE(core, 0);
  g.disconnect(a, port_to(g, a, core));
  L = tree_levels(g);
  ASSERT_TRUE(L.recognised) << L.shape;
  ASSERT_EQ(L.missing_pairs.size(), 1u);
  EXPECT_EQ(L.missing_pairs[0].a, a);
  EXPECT_EQ(L.missing_pairs[0].b, core);
  svg = fabric_svg(g, validate(g, route(g)), L, {});
  ASSERT_EQ(missing(svg).size(), 1u);
  EXPECT_EQ(missing(svg)[0].first, "A1_2");
  EXPECT_EQ(L.pods, 3);
  EXPECT_EQ(count(svg, "<g class=\"pod\">"), 3u);
  expect_safe_xml(svg);
}

TEST(FabricSvg, EscapesEveryTextFromTheFabric) {
  EXPECT_EQ(xml_text("<a href='x'>&\"</a>"), "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(xml_text(std::string("a\x01\tb\x7f", 5)), "a\\x01\\x09b\\x7f");
  EXPECT_EQ(xml_text("\xff\xfe ok \xc3\x28 \xc3\xa9 \xe2\x82\xac \xed\xa0\x80 \xc2\x85"),
            "\\xff\\xfe ok \\xc3( \xc3\xa9 \xe2\x82\xac \\xed\\xa0\\x80 \\xc2\\x85");  // é and € stay
  EXPECT_EQ(xml_text("]]><!--"), "]]&gt;&lt;!--");

  Fabric f = spec("fattree:2,3");
  const std::string evil = "<script>alert('x')</script> & \"q\" \x01\x1b[31m \xff ]]> <!--";
  for (int s : f.switches()) f.node(s).desc = evil + f.node(s).id;
  f.node(f.switches()[0]).id = "<script>&'\"\x02";  // port names in tooltips and the hottest label
  const Routing r = route(f);
  FabricSvgOptions o;
  o.fabric_name = "dir/<script>x&y.net";
  o.lfts_name = "\"lfts\x03\"";
  o.engine = "<b>engine</b>";
  const std::string svg = picture(f, r, o);
  expect_safe_xml(svg);
  EXPECT_NE(svg.find("&lt;script&gt;x&amp;y.net"), std::string::npos);
  EXPECT_EQ(svg.find("dir/"), std::string::npos) << "the fabric is named without its directory";
  EXPECT_NE(svg.find("\\x1b[31m"), std::string::npos);
  EXPECT_NE(svg.find("&lt;b&gt;engine&lt;/b&gt;"), std::string::npos);
  // labels: at most 14 characters; the part common to a level's names goes, so they stay apart
  static const std::regex label(R"re(<text class="label"[^>]*>([^<]*)</text>)re");
  std::set<std::string> labels;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it) {
    std::string t = (*it)[1];
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      for (size_t p = t.find(e); p != std::string::npos; p = t.find(e, p + 1)) t.replace(p, std::string(e).size(), "_");
    size_t cps = 0;
    for (char c : t) cps += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    EXPECT_LE(cps, 14u) << t;
    labels.insert(t);
  }
  EXPECT_EQ(labels.size(), f.switches().size());
}

}  // namespace
