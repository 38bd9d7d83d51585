// The picture of a routed fabric (fabric_svg.hpp, docs/check.md "The picture").
#include "ftroute/fabric_svg.hpp"
#include "ftroute/input_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <unordered_map>

namespace ftroute {

namespace {

size_t at(int i) { return static_cast<size_t>(i); }

size_t cp_count(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

// Byte offset of code point `k` (s.size() if past the end).
size_t cp_offset(std::string_view s, size_t k) {
  size_t i = 0;
  for (; i < s.size(); i++)
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      if (k == 0) return i;
      k--;
    }
  return s.size();
}

bool is_sep(char c) { return c == ' ' || c == ';' || c == ':' || c == '/' || c == '-' || c == '_' || c == '.' || c == ','; }

// Short labels for one row (display text in, display text out): a suffix common to every name
// that starts at a separator (a model or port suffix) goes; then, while a label is longer than
// max_cp, the shortest common prefix ending at a separator that makes them all fit (or the
// longest one) goes; what is still too long keeps its head and tail around an ellipsis. The full
// name stays in the switch's tooltip.
std::vector<std::string> short_labels(std::vector<std::string> names, size_t max_cp) {
  auto longest = [&] {
    size_t m = 0;
    for (const auto& n : names) m = std::max(m, cp_count(n));
    return m;
  };
  if (names.size() >= 2 && longest() > max_cp) {
    size_t pre = names[0].size(), suf = names[0].size(), shortest = names[0].size();
    for (const auto& n : names) {
      size_t k = 0;
      while (k < pre && k < n.size() && n[k] == names[0][k]) k++;
      pre = k;
      k = 0;
      while (k < suf && k < n.size() && n[n.size() - 1 - k] == names[0][names[0].size() - 1 - k]) k++;
      suf = k;
      shortest = std::min(shortest, n.size());
    }
    while (suf > 0 && !is_sep(names[0][names[0].size() - suf])) suf--;  // starts with a separator
    if (suf >= shortest) suf = 0;
    for (auto& n : names) n.resize(n.size() - suf);
    shortest -= suf;
    pre = std::min(pre, shortest > 0 ? shortest - 1 : 0);  // every label keeps something
    // the shortest prefix ending at a separator after which every name fits (or the longest)
    size_t best = 0;
    for (size_t k = 1; k <= pre; k++) {
      if (!is_sep(names[0][k - 1])) continue;
      best = k;
      bool fits = true;
      for (const auto& n : names) fits &= cp_count(n) - cp_count(names[0].substr(0, k)) <= max_cp;
      if (fits) break;
    }
    for (auto& n : names) n = n.substr(best);
  }
  for (auto& n : names) {
    const size_t len = cp_count(n);
    if (len <= max_cp) continue;
    const size_t head = (max_cp - 1) / 2, tail = max_cp - 1 - head;
    n = n.substr(0, cp_offset(n, head)) + "\u2026" + n.substr(cp_offset(n, len - tail));
  }
  return names;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  std::string s = b;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s == "-0" ? "0" : s;
}

std::string num2(double v) {  // line widths: two decimals, so that widths of close loads differ
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string count_text(uint64_t n) {  // 12345 -> "12,345"
  std::string s = std::to_string(n), o;
  for (size_t i = 0; i < s.size(); i++) {
    if (i && (s.size() - i) % 3 == 0) o += ',';
    o += s[i];
  }
  return o;
}

// Sequential colour scale for t in [0, 1]: light blue (few routes) to dark red (the most).
std::string efi_colour(double t) {
  static const double stops[][4] = {{0.0, 0xbd, 0xd7, 0xe7}, {0.35, 0x6b, 0xae, 0xd6}, {0.6, 0xfd, 0x8d, 0x3c},
                                    {0.8, 0xe6, 0x55, 0x0d}, {1.0, 0xa5, 0x0f, 0x15}};
  t = std::clamp(t, 0.0, 1.0);
  size_t k = 0;
  while (k + 2 < std::size(stops) && t > stops[k + 1][0]) k++;
  const double u = (t - stops[k][0]) / (stops[k + 1][0] - stops[k][0]);
  char b[8];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", static_cast<int>(std::lround(stops[k][1] + u * (stops[k + 1][1] - stops[k][1]))),
                static_cast<int>(std::lround(stops[k][2] + u * (stops[k + 1][2] - stops[k][2]))),
                static_cast<int>(std::lround(stops[k][3] + u * (stops[k + 1][3] - stops[k][3]))));
  return b;
}

// Words of `s` in lines of at most `width` code points (a longer word gets a line of its own).
std::vector<std::string> wrap(const std::string& s, size_t width) {
  std::vector<std::string> lines;
  std::string line, word;
  std::istringstream in(s);
  while (in >> word) {
    if (!line.empty() && cp_count(line) + 1 + cp_count(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// A sub-tree of the recognised tree (or the whole tree): its own switches sit in one row across
// its width, its sub-trees side by side below them.
struct Group {
  int level = 0;
  std::vector<int> own;                           // node indices
  std::map<int, std::unique_ptr<Group>> children;  // by block id
  std::vector<Group*> order;                      // children left to right
  int first = 0;                                  // smallest node index inside (for the order)
  double width = 0, x0 = 0;
};

void measure(Group& g, double pod_gap) {
  g.first = g.own.empty() ? 1 << 30 : *std::min_element(g.own.begin(), g.own.end());
  double sum = 0;
  for (auto& [id, c] : g.children) {
    measure(*c, pod_gap);
    g.order.push_back(c.get());
    g.first = std::min(g.first, c->first);
    sum += c->width;
  }
  std::sort(g.order.begin(), g.order.end(), [](const Group* a, const Group* b) { return a->first < b->first; });
  std::sort(g.own.begin(), g.own.end());
  if (!g.order.empty() && g.level >= 2) sum += pod_gap * static_cast<double>(g.order.size() - 1);
  g.width = std::max({sum, static_cast<double>(g.own.size()), 1.0});
}

void place(Group& g, double x0, double pod_gap, std::vector<double>& x) {
  g.x0 = x0;
  double sum = 0;
  for (const Group* c : g.order) sum += c->width;
  const double gap = g.level >= 2 ? pod_gap : 0;
  if (!g.order.empty()) sum += gap * static_cast<double>(g.order.size() - 1);
  double cx = x0 + (g.width - sum) / 2;
  for (Group* c : g.order) {
    place(*c, cx, pod_gap, x);
    cx += c->width + gap;
  }
  for (size_t i = 0; i < g.own.size(); i++)
    x[at(g.own[i])] = x0 + (static_cast<double>(i) + 0.5) * g.width / static_cast<double>(g.own.size());
}

struct Cable {
  int a = -1, pa = 0, b = -1, pb = 0;  // a below b (or left of b in one row)
  uint64_t ab = 0, ba = 0;             // routes a->b, b->a
  uint64_t efi() const { return std::max(ab, ba); }
};

}  // namespace

std::string fabric_svg(const Fabric& f, const ValidationReport& rep, const TreeLevels& L, const FabricSvgOptions& opt) {
  const int N = f.size();
  auto base = [](const std::string& p) {  // a path without its directory
    const size_t k = p.find_last_of('/');
    return k == std::string::npos || k + 1 == p.size() ? p : p.substr(k + 1);
  };
  const std::string name = opt.fabric_name.empty() ? std::string("fabric") : base(opt.fabric_name);
  const std::string lfts_name = opt.lfts_name.empty() ? std::string("LFTs") : base(opt.lfts_name);
  auto level_of = [&](int n) { return n < static_cast<int>(L.level.size()) ? L.level[at(n)] : -1; };

  // ---- rows: level 0 .. height, then the switches no level reached ----
  const int H = std::max(0, L.height);
  bool unplaced = false;
  for (int s : f.switches()) unplaced |= level_of(s) < 0;
  const int rows = H + 1 + (unplaced ? 1 : 0);
  auto row_of = [&](int n) { return level_of(n) < 0 ? H + 1 : level_of(n); };

  std::vector<int> cas(at(N), 0);  // CA/router ports per switch
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int p = 1; p <= n.num_ports; p++)
      if (n.port(p).connected() && !f.node(n.port(p).peer_node).is_switch()) cas[at(s)]++;
  }

  // ---- x positions, in columns (1 = the narrowest spacing), then scaled ----
  std::vector<double> xcol(at(N), 0);
  std::vector<std::vector<int>> row_nodes(at(rows));
  double total = 1;
  const double pod_gap = 0.8;
  Group root;
  root.level = H;
  if (L.recognised) {
    for (int s : f.switches()) {
      if (level_of(s) < 0) continue;
      Group* g = &root;
      static const std::vector<int> none;
      const auto& path = at(s) < L.groups.size() ? L.groups[at(s)] : none;
      for (size_t k = 0; k < path.size(); k++) {
        auto& c = g->children[path[k]];
        if (!c) {
          c = std::make_unique<Group>();
          c->level = H - 1 - static_cast<int>(k);
        }
        g = c.get();
      }
      g->own.push_back(s);
    }
    measure(root, pod_gap);
    place(root, 0, pod_gap, xcol);
    total = root.width;
    for (int s : f.switches())
      if (level_of(s) >= 0) row_nodes[at(row_of(s))].push_back(s);
    for (auto& r : row_nodes) std::sort(r.begin(), r.end(), [&](int a, int b) { return xcol[at(a)] < xcol[at(b)]; });
  } else {
    for (int s : f.switches())
      if (level_of(s) >= 0) row_nodes[at(row_of(s))].push_back(s);
    for (const auto& r : row_nodes) total = std::max(total, static_cast<double>(r.size()));
    for (int r = 0; r <= H; r++) {
      auto& v = row_nodes[at(r)];
      if (r > 0) {  // above the barycentre of their neighbours one row down
        std::vector<double> bary(at(N), 0);
        for (int s : v) {
          double sum = 0;
          int n = 0;
          const Node& nd = f.node(s);
          for (int p = 1; p <= nd.num_ports; p++) {
            const Port& x = nd.port(p);
            if (x.connected() && f.node(x.peer_node).is_switch() && level_of(x.peer_node) == r - 1)
              sum += xcol[at(x.peer_node)], n++;
          }
          bary[at(s)] = n ? sum / n : total / 2;
        }
        std::stable_sort(v.begin(), v.end(), [&](int a, int b) { return bary[at(a)] < bary[at(b)]; });
      }
      for (size_t i = 0; i < v.size(); i++)
        xcol[at(v[i])] = (static_cast<double>(i) + 0.5) * total / static_cast<double>(v.size());
    }
  }
  if (unplaced) {
    auto& v = row_nodes[at(H + 1)];
    for (int s : f.switches())
      if (level_of(s) < 0) v.push_back(s);
    total = std::max(total, static_cast<double>(v.size()));
    for (size_t i = 0; i < v.size(); i++) xcol[at(v[i])] = (static_cast<double>(i) + 0.5) * total / static_cast<double>(v.size());
  }

  // ---- labels: NodeDescription (or the node id), shortened per row ----
  const size_t max_label = 14;
  std::vector<std::string> label(at(N)), full(at(N));
  size_t widest_row = 1;
  for (const auto& r : row_nodes) widest_row = std::max(widest_row, r.size());
  std::vector<size_t> row_label_cp(at(rows), 0);
  for (int r = 0; r < rows; r++) {
    std::vector<std::string> names;
    for (int s : row_nodes[at(r)]) {
      const Node& n = f.node(s);
      full[at(s)] = escape_name(n.desc.empty() ? n.id : n.desc);
      names.push_back(full[at(s)]);
    }
    names = short_labels(names, max_label);
    for (size_t i = 0; i < names.size(); i++) {
      label[at(row_nodes[at(r)][i])] = names[i];
      row_label_cp[at(r)] = std::max(row_label_cp[at(r)], cp_count(names[i]));
    }
  }

  // ---- geometry ----
  const double U = std::clamp(1500.0 / total, 22.0, 72.0);  // px per column
  const double font = std::clamp(U * 0.42, 9.0, 11.0);
  const double char_w = font * 0.62;
  const double left = 110, right = 40;
  const double W = std::max(1100.0, left + total * U + right);
  const double xoff = left + (W - left - right - total * U) / 2;
  auto X = [&](int n) { return xoff + xcol[at(n)] * U; };
  const double nw = std::clamp(U * 0.4, 6.0, 14.0), nh = 8;  // a switch
  std::vector<bool> horizontal(at(rows));
  std::vector<double> label_h(at(rows));  // room the row's labels take (above; below for row 0)
  for (int r = 0; r < rows; r++) {
    const double w = static_cast<double>(row_label_cp[at(r)]) * char_w;
    // across when it fits: centred (leaves, top level) or beside the node (levels in between)
    horizontal[at(r)] = w + 6 + (r > 0 && r < rows - 1 ? nw / 2 + 3 : 0) <= U;
    label_h[at(r)] = horizontal[at(r)] ? font + 4 : w + 6;
  }
  const double gap = H <= 1 ? 300 : 230;  // between two levels
  // cables within one row (BFS levels of a mesh, torus or ring) arc above it
  const double arc_cap = 0.4 * gap;
  auto arc_h = [&](double dx) { return std::min(18 + 0.12 * std::fabs(dx), arc_cap); };
  std::vector<double> arc_max(at(rows), 0);
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (x.connected() && f.node(x.peer_node).is_switch() && x.peer_node != s && row_of(x.peer_node) == row_of(s))
        arc_max[at(row_of(s))] = std::max(arc_max[at(row_of(s))], arc_h(X(x.peer_node) - X(s)));
    }
  }
  const double title_h = 44;
  std::vector<double> row_y(at(rows));
  double y = title_h + std::max(rows > 1 ? label_h[at(rows - 1)] : 0.0, arc_max[at(rows - 1)]) + 10;
  for (int r = rows - 1; r >= 0; r--) {
    row_y[at(r)] = y;
    y += r == H + 1 ? 120 + label_h[at(H)] : gap;  // the unplaced row sits above the top level
  }
  auto Y = [&](int n) { return row_y[at(row_of(n))]; };
  const double below = 6 + font + 4 + label_h[0] + 8;  // host counts and leaf labels under row 0
  const double pods_label = L.pods > 0 ? font + 8 : 0;
  const double legend_y = row_y[0] + below + pods_label + 16;

  // ---- cables, their routes (the busier direction), bundles ----
  std::unordered_map<uint64_t, uint64_t> load;  // node * 256 + port -> routes
  for (const auto& l : rep.switch_link_loads) load[static_cast<uint64_t>(l.node) * 256 + static_cast<uint64_t>(l.port)] = l.routes;
  auto routes = [&](int n, int p) {
    auto it = load.find(static_cast<uint64_t>(n) * 256 + static_cast<uint64_t>(p));
    return it == load.end() ? uint64_t{0} : it->second;
  };
  std::map<std::pair<int, int>, std::vector<Cable>> bundles;  // (lower node, upper node) -> cables
  auto lower_first = [&](int a, int b) {  // lower row first, then left
    if (row_of(a) != row_of(b)) return row_of(a) < row_of(b);
    return X(a) < X(b) || (X(a) == X(b) && a < b);
  };
  int switch_cables = 0, unused = 0;
  for (int s : f.switches()) {
    const Node& n = f.node(s);
    for (int p = 1; p <= n.num_ports; p++) {
      const Port& x = n.port(p);
      if (!x.connected() || !f.node(x.peer_node).is_switch()) continue;
      if (x.peer_node == s || !lower_first(s, x.peer_node)) continue;  // each cable once, from its lower end
      Cable c{s, p, x.peer_node, x.peer_port, routes(s, p), routes(x.peer_node, x.peer_port)};
      bundles[{s, x.peer_node}].push_back(c);
      switch_cables++;
      unused += c.efi() == 0;
    }
  }
  // Placeholders only for a few missing cables: many more than a tenth of the cables "missing" is
  // a shape the recognition does not model (uneven pods, hosts on upper levels), not faults.
  const bool draw_missing = L.missing_cables() <= std::max(16, switch_cables / 10);
  std::map<std::pair<int, int>, int> missing_in_bundle;
  for (const auto& m : L.missing_pairs) {
    if (!draw_missing) break;
    const bool lo = lower_first(m.a, m.b);
    missing_in_bundle[lo ? std::make_pair(m.a, m.b) : std::make_pair(m.b, m.a)] += m.cables;
  }
  const uint64_t emax = rep.efi_max;
  const double wmin = 0.6, wmax = std::clamp(U * 0.11, 2.5, 6.0);
  auto width_of = [&](uint64_t e) { return emax ? wmin + (wmax - wmin) * static_cast<double>(e) / static_cast<double>(emax) : wmin; };
  const double spread = std::max(1.6, wmax * 0.5);  // between the cables of a bundle

  std::ostringstream o;
  o << "<title>" << xml_text(name) << ": routes per switch cable</title>\n";
  o << "<defs><linearGradient id=\"efi\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">";
  for (int k = 0; k <= 10; k++) o << "<stop offset=\"" << num(k * 10) << "%\" stop-color=\"" << efi_colour(k / 10.0) << "\"/>";
  o << "</linearGradient></defs>\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << num(left) << "\" y=\"26\" font-size=\"17\" font-weight=\"bold\">"
    << xml_text(name) << ": routes per switch cable</text>\n";

  // pods (sub-trees of the level below the top) as shaded boxes
  if (L.recognised && L.pods > 0) {
    int k = 0;
    for (const Group* g : root.order) {
      int sw = 0, leaves = 0, hosts = 0;
      std::vector<const Group*> st{g};
      while (!st.empty()) {
        const Group* c = st.back();
        st.pop_back();
        sw += static_cast<int>(c->own.size());
        for (int s : c->own) {
          leaves += level_of(s) == 0;
          hosts += cas[at(s)];
        }
        for (const Group* d : c->order) st.push_back(d);
      }
      if (sw <= 1) continue;
      const double x0 = xoff + g->x0 * U - 0.35 * U, x1 = xoff + (g->x0 + g->width) * U + 0.35 * U;
      const double y0 = row_y[at(H - 1)] - label_h[at(H - 1)] - 10, y1 = row_y[0] + below + pods_label;
      o << "<g class=\"pod\"><rect x=\"" << num(x0) << "\" y=\"" << num(y0) << "\" width=\"" << num(x1 - x0)
        << "\" height=\"" << num(y1 - y0) << "\" rx=\"6\" fill=\"#f2f5f9\" stroke=\"#c5cfdb\"/>";
      std::string text = "pod " + std::to_string(++k) + ": " + std::to_string(leaves) + " leaves, " +
                         std::to_string(sw) + " switches, " + std::to_string(hosts) + " CAs";
      if (cp_count(text) * char_w > x1 - x0) text = "pod " + std::to_string(k);
      o << "<text x=\"" << num((x0 + x1) / 2) << "\" y=\"" << num(y1 - 5) << "\" text-anchor=\"middle\" fill=\"#5a6b80\">"
        << xml_text(text) << "</text></g>\n";
    }
  }
  // level names on the left
  for (int r = 0; r < rows; r++) {
    if (row_nodes[at(r)].empty()) continue;
    const std::string row_name = r == H + 1 ? "no level" : "level " + std::to_string(r);
    o << "<text x=\"8\" y=\"" << num(row_y[at(r)] + 4) << "\" font-size=\"11\" fill=\"#333\">" << xml_text(row_name)
      << "<tspan x=\"8\" dy=\"13\" font-size=\"9\" fill=\"#777\">" << row_nodes[at(r)].size() << " switches</tspan></text>\n";
  }

  // ---- cables: unused first, then by routes (the hottest on top), missing ones, markers ----
  struct Drawn {
    const Cable* c;
    double x1, y1, x2, y2;
  };
  std::vector<Drawn> drawn;
  struct Placeholder {  // one missing cable
    int a, b;
    double x1, y1, x2, y2;
  };
  std::vector<Placeholder> placeholders;
  for (const auto& [key, cs] : bundles) {
    auto it = missing_in_bundle.find(key);
    const int m = it == missing_in_bundle.end() ? 0 : it->second;
    const int total_c = static_cast<int>(cs.size()) + m;
    const double ax = X(key.first), ay = Y(key.first), bx = X(key.second), by = Y(key.second);
    const double len = std::max(1e-9, std::hypot(bx - ax, by - ay));
    const double px = -(by - ay) / len, py = (bx - ax) / len;
    for (int i = 0; i < total_c; i++) {
      const double off = (i - (total_c - 1) / 2.0) * spread;
      const double x1 = ax + px * off, y1 = ay + py * off, x2 = bx + px * off, y2 = by + py * off;
      if (i < static_cast<int>(cs.size())) drawn.push_back({&cs[at(i)], x1, y1, x2, y2});
      else placeholders.push_back({key.first, key.second, x1, y1, x2, y2});
    }
  }
  for (const auto& [key, m] : missing_in_bundle)
    if (!bundles.count(key)) {  // the whole bundle is missing
      const double ax = X(key.first), ay = Y(key.first), bx = X(key.second), by = Y(key.second);
      const double len = std::max(1e-9, std::hypot(bx - ax, by - ay));
      const double px = -(by - ay) / len, py = (bx - ax) / len;
      for (int i = 0; i < m; i++) {
        const double off = (i - (m - 1) / 2.0) * spread;
        placeholders.push_back({key.first, key.second, ax + px * off, ay + py * off, bx + px * off, by + py * off});
      }
    }
  std::stable_sort(drawn.begin(), drawn.end(), [](const Drawn& a, const Drawn& b) { return a.c->efi() < b.c->efi(); });
  auto path_d = [&](double x1, double y1, double x2, double y2) {  // one row: an arc above it
    std::string d = "M" + num(x1) + "," + num(y1);
    if (std::fabs(y1 - y2) < 1e-6)
      d += " Q" + num((x1 + x2) / 2) + "," + num(y1 - 2 * arc_h(x2 - x1)) + " " + num(x2) + "," + num(y2);
    else
      d += " L" + num(x2) + "," + num(y2);
    return d;
  };
  auto mid = [&](double x1, double y1, double x2, double y2) {
    if (std::fabs(y1 - y2) < 1e-6) return std::make_pair((x1 + x2) / 2, y1 - arc_h(x2 - x1));
    return std::make_pair((x1 + x2) / 2, (y1 + y2) / 2);
  };
  o << "<g fill=\"none\" stroke-linecap=\"round\">\n";
  for (const auto& d : drawn) {
    const Cable& c = *d.c;
    const std::string ab = f.port_name(c.a, c.pa), ba = f.port_name(c.b, c.pb);
    const std::string tip = ab + " - " + ba + ": " + count_text(c.ab) + " routes up/right, " + count_text(c.ba) +
                            " routes down/left";
    if (c.efi() == 0) {
      o << "<path class=\"cable unused\" data-efi=\"0\" data-a=\"" << xml_text(ab) << "\" data-b=\"" << xml_text(ba)
        << "\" d=\"" << path_d(d.x1, d.y1, d.x2, d.y2) << "\" stroke=\"#555\" stroke-width=\"0.9\" stroke-dasharray=\"2,3\"><title>"
        << xml_text(tip + " (no route: down, failed or unused)") << "</title></path>\n";
    } else {
      const double t = emax ? static_cast<double>(c.efi()) / static_cast<double>(emax) : 0;
      o << "<path class=\"cable\" data-efi=\"" << c.efi() << "\" data-a=\"" << xml_text(ab) << "\" data-b=\"" << xml_text(ba)
        << "\" d=\"" << path_d(d.x1, d.y1, d.x2, d.y2) << "\" stroke=\"" << efi_colour(t) << "\" stroke-width=\"" << num2(width_of(c.efi())) << "\"><title>" << xml_text(tip) << "</title></path>\n";
    }
  }
  for (const auto& p : placeholders)
    o << "<path class=\"missing\" data-a=\"" << xml_text(full[at(p.a)]) << "\" data-b=\"" << xml_text(full[at(p.b)])
      << "\" d=\"" << path_d(p.x1, p.y1, p.x2, p.y2) << "\" stroke=\"#d62728\" stroke-width=\"1.4\" stroke-dasharray=\"6,4\"><title>"
      << xml_text("missing cable (inferred from the tree): " + full[at(p.a)] + " - " + full[at(p.b)]) << "</title></path>\n";
  o << "</g>\n";
  // unused cables: a cross on their middle
  for (const auto& d : drawn) {
    if (d.c->efi() != 0) continue;
    auto [mx, my] = mid(d.x1, d.y1, d.x2, d.y2);
    o << "<path class=\"unused-mark\" d=\"M" << num(mx - 4) << "," << num(my - 4) << " L" << num(mx + 4) << "," << num(my + 4)
      << " M" << num(mx + 4) << "," << num(my - 4) << " L" << num(mx - 4) << "," << num(my + 4)
      << "\" stroke=\"#d62728\" stroke-width=\"2\"/>\n";
  }
  for (const auto& p : placeholders) {  // missing cables: a ring on their middle
    auto [mx, my] = mid(p.x1, p.y1, p.x2, p.y2);
    o << "<circle class=\"missing-mark\" cx=\"" << num(mx) << "\" cy=\"" << num(my)
      << "\" r=\"4.5\" fill=\"white\" stroke=\"#d62728\" stroke-width=\"1.8\"/>\n";
  }
  // missing cables without a named peer: a dashed stub up or down from the switch
  for (const auto& m : L.missing_stubs) {
    if (!draw_missing || m.node < 0 || m.node >= N) continue;
    const double x = X(m.node), y0 = Y(m.node), y1 = y0 + (m.up ? -34 : 34);
    o << "<g class=\"missing-stub\"><path d=\"M" << num(x) << "," << num(y0) << " L" << num(x) << "," << num(y1)
      << "\" stroke=\"#d62728\" stroke-width=\"1.6\" stroke-dasharray=\"4,3\"/><text x=\"" << num(x + 3) << "\" y=\""
      << num(y1 + (m.up ? 0 : 8)) << "\" fill=\"#d62728\" font-size=\"9\">-" << m.cables << "</text><title>"
      << xml_text(full[at(m.node)] + ": " + std::to_string(m.cables) + " missing " + (m.up ? "up" : "down") +
                  "-link(s) (inferred from the tree)")
      << "</title></g>\n";
  }

  // ---- switches, host counts, labels ----
  const char* halo = " stroke=\"white\" stroke-width=\"3.5\" paint-order=\"stroke\" stroke-linejoin=\"round\"";
  for (int r = 0; r < rows; r++) {
    for (int s : row_nodes[at(r)]) {
      const double x = X(s), y = Y(s);
      std::string tip = full[at(s)] + " (level " + (level_of(s) < 0 ? std::string("none") : std::to_string(level_of(s))) +
                        ", " + std::to_string(cas[at(s)]) + " CAs)";
      o << "<g class=\"switch\"><rect x=\"" << num(x - nw / 2) << "\" y=\"" << num(y - nh / 2) << "\" width=\"" << num(nw)
        << "\" height=\"" << num(nh) << "\" rx=\"1.5\" fill=\"#2f3b4c\"/><title>" << xml_text(tip) << "</title></g>\n";
      // CA count: under a leaf; beside a switch of an upper level (hosts there are unusual)
      if (cas[at(s)] > 0) {
        if (r == 0)
          o << "<text class=\"cas\" x=\"" << num(x) << "\" y=\"" << num(y + nh / 2 + font + 2)
            << "\" text-anchor=\"middle\" fill=\"#2a7f3f\" font-size=\"" << num(font - 1) << "\"" << halo << ">"
            << cas[at(s)] << "</text>\n";
        else
          o << "<text class=\"cas\" x=\"" << num(x + nw / 2 + 2) << "\" y=\"" << num(y + nh / 2 + font) << "\" fill=\"#7b3294\" font-size=\""
            << num(font - 1) << "\"" << halo << ">+" << cas[at(s)] << " CA</text>\n";
      }
      const std::string t = xml_text(label[at(s)]);
      // leaves: below; the top level: above; a level in between: beside the node (its vertical
      // cables run through the middle, up and down)
      const bool top = r == rows - 1;
      if (r == 0) {
        const double ly = y + nh / 2 + font + 6;
        if (horizontal[0])
          o << "<text class=\"label\" x=\"" << num(x) << "\" y=\"" << num(ly + font) << "\" text-anchor=\"middle\"" << halo << ">" << t
            << "</text>\n";
        else
          o << "<text class=\"label\" x=\"" << num(x - font * 0.35) << "\" y=\"" << num(ly) << "\" transform=\"rotate(90 "
            << num(x - font * 0.35) << " " << num(ly) << ")\"" << halo << ">" << t << "</text>\n";
      } else if (horizontal[at(r)]) {
        if (top)
          o << "<text class=\"label\" x=\"" << num(x) << "\" y=\"" << num(y - nh / 2 - 4) << "\" text-anchor=\"middle\"" << halo << ">"
            << t << "</text>\n";
        else
          o << "<text class=\"label\" x=\"" << num(x + nw / 2 + 3) << "\" y=\"" << num(y + font * 0.35) << "\"" << halo << ">" << t
            << "</text>\n";
      } else {
        const double lx = top ? x + font * 0.35 : x + nw / 2 + font * 0.8, ly = y - nh / 2 - 4;
        o << "<text class=\"label\" x=\"" << num(lx) << "\" y=\"" << num(ly) << "\" transform=\"rotate(-90 " << num(lx) << " " << num(ly)
          << ")\"" << halo << ">" << t << "</text>\n";
      }
    }
  }

  // ---- the hottest link ----
  std::string hottest_text;
  if (emax > 0 && rep.efi_max_link.node >= 0 && rep.efi_max_link.node < N) {
    const int hn = rep.efi_max_link.node, hp = rep.efi_max_link.port;
    const Port& x = f.node(hn).port(hp);
    hottest_text = "hottest link: " + count_text(emax) + " routes " + f.port_name(hn, hp) + " -> " +
                   f.port_name(x.peer_node, x.peer_port);
    for (const auto& d : drawn) {
      const Cable& c = *d.c;
      if (!((c.a == hn && c.pa == hp) || (c.b == hn && c.pb == hp))) continue;
      auto [mx, my] = mid(d.x1, d.y1, d.x2, d.y2);
      // in the picture with the switches' labels (the caption and the tooltip name the ports in full)
      const std::string text = "hottest link: " + count_text(emax) + " routes " + label[at(hn)] + "[" + std::to_string(hp) +
                               "] -> " + label[at(x.peer_node)] + "[" + std::to_string(x.peer_port) + "]";
      const bool to_left = mx + 13 + static_cast<double>(cp_count(text)) * 7.2 > W - 10;
      o << "<g class=\"hottest\"><circle cx=\"" << num(mx) << "\" cy=\"" << num(my) << "\" r=\"9\" fill=\"none\" stroke=\"#000\" stroke-width=\"2.2\"/>"
        << "<text x=\"" << num(mx + (to_left ? -13 : 13)) << "\" y=\"" << num(my + 4) << "\" font-size=\"11\" font-weight=\"bold\""
        << (to_left ? " text-anchor=\"end\"" : "") << halo << ">" << xml_text(text) << "<title>" << xml_text(hottest_text)
        << "</title></text></g>\n";
      break;
    }
  }

  // ---- legend ----
  double ly = legend_y;
  o << "<line x1=\"8\" y1=\"" << num(ly - 8) << "\" x2=\"" << num(W - 8) << "\" y2=\"" << num(ly - 8) << "\" stroke=\"#ccc\"/>\n";
  o << "<g class=\"legend\" font-size=\"11\">\n";
  double lx = 16;
  o << "<text x=\"" << num(lx) << "\" y=\"" << num(ly + 10) << "\">routes per cable (EFI, the busier direction)</text>\n";
  o << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly + 18) << "\" width=\"240\" height=\"10\" fill=\"url(#efi)\"/>\n";
  for (int k = 0; k <= 4; k++) {
    const double tx = lx + 60.0 * k;
    o << "<line x1=\"" << num(tx) << "\" y1=\"" << num(ly + 28) << "\" x2=\"" << num(tx) << "\" y2=\"" << num(ly + 32)
      << "\" stroke=\"#333\"/><text x=\"" << num(tx) << "\" y=\"" << num(ly + 43) << "\" text-anchor=\"middle\" font-size=\"9\">"
      << count_text(emax * static_cast<uint64_t>(k) / 4) << "</text>\n";
  }
  lx += 290;
  o << "<text x=\"" << num(lx) << "\" y=\"" << num(ly + 10) << "\">line width grows with the routes</text>\n";
  for (int k = 1; k <= 4; k++) {
    const double tx = lx + 55.0 * (k - 1);
    const uint64_t e = emax * static_cast<uint64_t>(k) / 4;
    o << "<line x1=\"" << num(tx) << "\" y1=\"" << num(ly + 24) << "\" x2=\"" << num(tx + 40) << "\" y2=\"" << num(ly + 24)
      << "\" stroke=\"" << efi_colour(k / 4.0) << "\" stroke-width=\"" << num2(width_of(e)) << "\"/><text x=\"" << num(tx + 20) << "\" y=\""
      << num(ly + 43) << "\" text-anchor=\"middle\" font-size=\"9\">" << count_text(e) << "</text>\n";
  }
  lx += 250;
  auto item = [&](double x, double y0, const std::string& glyph, const std::string& text) {
    o << glyph << "<text x=\"" << num(x + 30) << "\" y=\"" << num(y0 + 4) << "\">" << xml_text(text) << "</text>\n";
  };
  const double c1 = lx, c2 = lx + 300;
  item(c1, ly + 8,
       "<path d=\"M" + num(c1) + "," + num(ly + 8) + " L" + num(c1 + 24) + "," + num(ly + 8) +
           "\" stroke=\"#d62728\" stroke-width=\"1.4\" stroke-dasharray=\"6,4\"/><circle cx=\"" + num(c1 + 12) + "\" cy=\"" +
           num(ly + 8) + "\" r=\"4.5\" fill=\"white\" stroke=\"#d62728\" stroke-width=\"1.8\"/>",
       "missing cable (inferred from the tree)");
  item(c1, ly + 26,
       "<path d=\"M" + num(c1) + "," + num(ly + 26) + " L" + num(c1 + 24) + "," + num(ly + 26) +
           "\" stroke=\"#555\" stroke-width=\"0.9\" stroke-dasharray=\"2,3\"/><path d=\"M" + num(c1 + 8) + "," + num(ly + 22) + " L" +
           num(c1 + 16) + "," + num(ly + 30) + " M" + num(c1 + 16) + "," + num(ly + 22) + " L" + num(c1 + 8) + "," + num(ly + 30) +
           "\" stroke=\"#d62728\" stroke-width=\"2\"/>",
       "cable without routes (down, failed or unused)");
  item(c1, ly + 44,
       "<path d=\"M" + num(c1 + 12) + "," + num(ly + 52) + " L" + num(c1 + 12) + "," + num(ly + 36) +
           "\" stroke=\"#d62728\" stroke-width=\"1.6\" stroke-dasharray=\"4,3\"/>",
       "-n: up-/down-links missing, peer unknown");
  item(c2, ly + 8,
       "<circle cx=\"" + num(c2 + 12) + "\" cy=\"" + num(ly + 8) + "\" r=\"7\" fill=\"none\" stroke=\"#000\" stroke-width=\"2.2\"/>",
       "the hottest link (its routes, from -> to)");
  item(c2, ly + 26,
       "<text x=\"" + num(c2 + 12) + "\" y=\"" + num(ly + 30) + "\" text-anchor=\"middle\" fill=\"#2a7f3f\" font-size=\"10\">18</text>",
       "CAs on a leaf (hosts are not drawn)");
  item(c2, ly + 44,
       "<text x=\"" + num(c2 + 12) + "\" y=\"" + num(ly + 48) + "\" text-anchor=\"middle\" fill=\"#7b3294\" font-size=\"10\">+5</text>",
       "CAs on an upper-level switch");
  o << "</g>\n";

  // ---- caption ----
  std::vector<std::string> cap;
  std::string head = name + ": ";
  if (L.recognised)
    head += "fat tree as ftree-misroute recognises it, " + L.shape;
  else
    head += "levels are BFS distances from the CA-attached switches (no fat tree: " + L.shape + ")";
  cap.push_back(head);
  std::string routing = "routing: " + lfts_name;
  if (!opt.engine.empty()) routing += " (engine " + opt.engine + ")";
  routing += "; check " + std::string(rep.ok() ? "PASS" : "FAIL") + "; EFI over " + count_text(rep.switch_link_loads.size()) +
             " directed switch links: max " + count_text(emax) + ", mean " + num(rep.efi_avg);
  if (!hottest_text.empty()) routing += "; " + hottest_text;
  cap.push_back(routing);
  int cas_total = 0, upper_cas = 0;
  for (int s : f.switches()) {
    cas_total += cas[at(s)];
    if (level_of(s) != 0) upper_cas += cas[at(s)];
  }
  std::string counts = count_text(f.switches().size()) + " switches, " + count_text(cas_total) + " CA ports (" +
                       count_text(upper_cas) + " on upper levels), " + count_text(switch_cables) + " switch cables: " +
                       count_text(unused) + " without routes, " + count_text(L.missing_cables()) + " missing";
  if (L.recognised) counts += " (the recognition estimates " + count_text(L.missing_estimate) + ")";
  if (!draw_missing)
    counts += ", not drawn: more than a tenth of the cables, rather a shape the recognition does not model than faults";
  if (L.pods > 0) counts += "; " + std::to_string(L.pods) + " pods";
  if (unplaced) counts += "; switches in the row 'no level' are not connected to a CA-attached switch";
  cap.push_back(counts);
  // the faults by name (the first few of each kind; every one has a tooltip)
  auto listed = [&](const std::string& what, const std::vector<std::string>& v) {
    if (v.empty()) return;
    std::string t = what + ": ";
    for (size_t i = 0; i < v.size() && i < 6; i++) t += (i ? ", " : "") + v[i];
    if (v.size() > 6) t += " and " + count_text(v.size() - 6) + " more";
    cap.push_back(t);
  };
  std::vector<std::string> miss_names, unused_names;
  for (const auto& m : L.missing_pairs)
    miss_names.push_back(f.node_name(m.a) + " - " + f.node_name(m.b) + (m.cables > 1 ? " x" + std::to_string(m.cables) : ""));
  for (const auto& m : L.missing_stubs)
    miss_names.push_back(f.node_name(m.node) + " " + std::to_string(m.cables) + (m.up ? " up" : " down"));
  for (const auto& d : drawn)
    if (d.c->efi() == 0) unused_names.push_back(f.port_name(d.c->a, d.c->pa) + " - " + f.port_name(d.c->b, d.c->pb));
  listed("missing cables", miss_names);
  listed("cables without routes", unused_names);
  double cy = legend_y + 78;
  for (size_t i = 0; i < cap.size(); i++)
    for (const auto& line : wrap(escape_name(cap[i]), static_cast<size_t>((W - 32) / (i == 0 ? 7.8 : 7.0)))) {
      o << "<text class=\"caption\" x=\"16\" y=\"" << num(cy) << "\" font-size=\"12\"" << (i == 0 ? " font-weight=\"bold\"" : "")
        << ">" << xml_text(line) << "</text>\n";
      cy += 16;
    }
  o << "</svg>\n";
  const double height = cy + 4;  // the canvas ends below the caption
  std::ostringstream top;
  top << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W) << "\" height=\"" << num(height)
      << "\" viewBox=\"0 0 " << num(W) << " " << num(height) << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\""
      << num(font) << "\">\n";
  return top.str() + o.str();
}

}  // namespace ftroute
