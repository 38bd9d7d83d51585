// Campaign CSV, merge, SVG plots, summary and the parallel, resumable driver.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <iterator>
#include <sstream>
#include <string_view>
#include <thread>
#include <tuple>

#include "ftroute/campaign.hpp"
#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/campaign_lost.hpp"
#include "ftroute/campaign_regression.hpp"
#include "ftroute/atomic_file.hpp"
#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"

namespace fs = std::filesystem;

namespace ftroute::campaign {
namespace {

// Ctrl-C / SIGTERM during run_campaign: finish the runs under way (their rows are complete and
// valid), start no new ones, write the reports, then throw Interrupted. A second signal gets the
// default action (immediate exit; a half-written row is dropped on resume).
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int sig) {
  g_stop = 1;
  std::signal(sig, SIG_DFL);
}

// The per-HCA consumption bandwidth columns, in the order of RunResult::sim_hca.
constexpr const char* kSimHcaColumns[] = {"sim_hca_min", "sim_hca_q1", "sim_hca_median", "sim_hca_q3", "sim_hca_max"};
constexpr const char* kColumns[] = {"fabric", "engine", "link_failures", "switch_failures", "seed", "status", "engine_used",
                          "fallback", "links_removed", "switches_removed", "hosts_removed", "switches", "cas",
                          "links", "pairs", "unreachable", "looping", "bad_entries", "deadlock_checked",
                          "cdg_acyclic", "vls_used", "efi_max", "efi_avg", "hops_avg", "hops_max",
                          "route_seconds", "simulated", "sim_offered", "sim_accepted", "sim_latency",
                          "sim_dropped", "sim_deadlock", "message", "lost_routes", "lost_eq6", "sim_net_latency",
                          "sim_hca_min", "sim_hca_q1", "sim_hca_median", "sim_hca_q3", "sim_hca_max"};
constexpr size_t kNumColumns = sizeof kColumns / sizeof kColumns[0];
// the header ends with the per-HCA columns, as parse_csv reads them
constexpr bool hca_columns_last() {
  for (size_t i = 0; i < std::size(kSimHcaColumns); i++)
    if (std::string_view(kColumns[kNumColumns - std::size(kSimHcaColumns) + i]) != kSimHcaColumns[i]) return false;
  return true;
}
static_assert(hca_columns_last());
// Columns added after results.csv files were first written: an older file lacks them (its rows
// read as "unknown"), and a campaign resumed in its directory rewrites it with the full header.
bool optional_column(const std::string& c) {
  return c == "lost_routes" || c == "lost_eq6" || c == "sim_net_latency" || c.rfind("sim_hca_", 0) == 0;
}

std::string q(const std::string& s) {  // RFC 4180: a field with , " CR or LF in quotes, quotes doubled
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// RFC 4180 records of `text` from `pos` on: fields split at commas outside quotes, "" inside quotes
// is one quote, CR/LF inside quotes are part of the field; a record ends at LF (CRLF) outside
// quotes. Returns false at the end of the text. *line = line number where the record starts;
// *complete = false for a last record without its LF, *quoted_open = true when it ends inside quotes.
struct CsvRecord {
  std::vector<std::string> fields;
  int line = 0;
  bool complete = true, quote_open = false;
};
bool next_record(const std::string& text, size_t& pos, int& line, CsvRecord& rec) {
  if (pos >= text.size()) return false;
  rec.fields.assign(1, std::string());
  rec.line = line;
  rec.complete = false;
  rec.quote_open = false;
  bool in_q = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (c == '\n') ++line;
    std::string& cur = rec.fields.back();
    if (in_q) {
      if (c != '"') cur += c;
      else if (pos < text.size() && text[pos] == '"') cur += '"', ++pos;
      else in_q = false;
    } else if (c == '"') {
      in_q = true;
    } else if (c == ',') {
      rec.fields.emplace_back();
    } else if (c == '\n') {
      if (!cur.empty() && cur.back() == '\r') cur.pop_back();  // CRLF
      rec.complete = true;
      return true;
    } else {
      cur += c;
    }
  }
  rec.quote_open = in_q;
  return true;
}

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

void write_atomic(const std::string& path, const std::string& content) {
  AtomicFile f(path);  // temp file + rename; removed again if anything fails
  f.write(content);
  f.commit();
}

std::string file_safe(const std::string& s) {
  std::string o;
  for (char c : s) o += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return o;
}

}  // namespace

std::string csv_header() {
  std::string h;
  for (size_t i = 0; i < kNumColumns; ++i) h += (i ? "," : "") + std::string(kColumns[i]);
  return h;
}

std::string csv_row(const RunResult& r) {
  auto hca = [&](size_t i) { return i < r.sim_hca.size() ? num(r.sim_hca[i]) : std::string(); };
  std::vector<std::string> c = {q(r.key.fabric), q(r.key.engine), q(r.key.link_failures), q(r.key.switch_failures),
                                std::to_string(r.key.seed), q(r.status), q(r.engine_used), r.fallback ? "1" : "0",
                                std::to_string(r.links_removed), std::to_string(r.switches_removed),
                                std::to_string(r.hosts_removed), std::to_string(r.switches), std::to_string(r.cas),
                                std::to_string(r.links), std::to_string(r.pairs), std::to_string(r.unreachable),
                                std::to_string(r.looping), std::to_string(r.bad_entries),
                                r.deadlock_checked ? "1" : "0", r.cdg_acyclic ? "1" : "0", std::to_string(r.vls_used),
                                std::to_string(r.efi_max), num(r.efi_avg), num(r.hops_avg), std::to_string(r.hops_max),
                                num(r.route_seconds), r.simulated ? "1" : "0", num(r.sim_offered),
                                num(r.sim_accepted), num(r.sim_latency), std::to_string(r.sim_dropped),
                                r.sim_deadlock ? "1" : "0", q(r.message),
                                r.lost_routes < 0 ? std::string() : std::to_string(r.lost_routes),
                                std::isnan(r.lost_eq6) ? std::string() : num(r.lost_eq6),
                                r.simulated ? num(r.sim_net_latency) : std::string(),
                                hca(0), hca(1), hca(2), hca(3), hca(4)};
  std::string s;
  for (size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + c[i];
  return s;
}

std::vector<RunResult> parse_csv(const std::string& text, const std::string& filename) {
  std::vector<RunResult> rows;
  std::map<std::string, size_t> col;
  size_t pos = 0;
  int next_line = 1;
  CsvRecord rec;
  while (next_record(text, pos, next_line, rec)) {
    const int ln = rec.line;
    if (rec.quote_open) throw ParseError(filename, ln, "unterminated quote");
    if (!rec.complete) throw ParseError(filename, ln, "truncated row (no end of line; interrupted write?)");
    const std::vector<std::string>& f = rec.fields;
    if (f.size() == 1 && f[0].empty()) continue;  // blank line
    if (col.empty()) {
      for (size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
      for (const char* c : kColumns)
        if (!col.count(c) && !optional_column(c)) throw ParseError(filename, ln, std::string("header lacks column '") + c + "'");
      continue;
    }
    if (f.size() != col.size())
      throw ParseError(filename, ln, "expected " + std::to_string(col.size()) + " fields, got " + std::to_string(f.size()) +
                                         " (truncated row?)");
    auto g = [&](const char* name) -> const std::string& { return f[col[name]]; };
    auto gi = [&](const char* name) -> long long {
      try {
        size_t pos = 0;
        long long v = std::stoll(g(name), &pos);
        if (pos != g(name).size()) throw std::invalid_argument("x");
        return v;
      } catch (const std::exception&) {
        throw ParseError(filename, ln, std::string("column ") + name + ": not an integer: '" + g(name) + "'");
      }
    };
    auto gd = [&](const char* name) -> double {
      try {
        return std::stod(g(name));
      } catch (const std::exception&) {
        throw ParseError(filename, ln, std::string("column ") + name + ": not a number: '" + g(name) + "'");
      }
    };
    RunResult r;
    r.key = {g("fabric"), g("engine"), g("link_failures"), g("switch_failures"), static_cast<int>(gi("seed"))};
    r.status = g("status");
    r.engine_used = g("engine_used");
    r.fallback = gi("fallback") != 0;
    r.links_removed = static_cast<int>(gi("links_removed"));
    r.switches_removed = static_cast<int>(gi("switches_removed"));
    r.hosts_removed = static_cast<int>(gi("hosts_removed"));
    r.switches = static_cast<int>(gi("switches"));
    r.cas = static_cast<int>(gi("cas"));
    r.links = static_cast<int>(gi("links"));
    r.pairs = static_cast<uint64_t>(gi("pairs"));
    r.unreachable = static_cast<uint64_t>(gi("unreachable"));
    r.looping = static_cast<uint64_t>(gi("looping"));
    r.bad_entries = static_cast<uint64_t>(gi("bad_entries"));
    r.deadlock_checked = gi("deadlock_checked") != 0;
    r.cdg_acyclic = gi("cdg_acyclic") != 0;
    r.vls_used = static_cast<int>(gi("vls_used"));
    r.efi_max = static_cast<uint64_t>(gi("efi_max"));
    r.efi_avg = gd("efi_avg");
    r.hops_avg = gd("hops_avg");
    r.hops_max = static_cast<int>(gi("hops_max"));
    r.route_seconds = gd("route_seconds");
    r.simulated = gi("simulated") != 0;
    r.sim_offered = gd("sim_offered");
    r.sim_accepted = gd("sim_accepted");
    r.sim_latency = gd("sim_latency");
    r.sim_dropped = static_cast<uint64_t>(gi("sim_dropped"));
    r.sim_deadlock = gi("sim_deadlock") != 0;
    r.message = g("message");
    if (col.count("lost_routes") && !g("lost_routes").empty()) r.lost_routes = gi("lost_routes");
    if (col.count("lost_eq6") && !g("lost_eq6").empty()) r.lost_eq6 = gd("lost_eq6");
    if (col.count("sim_net_latency") && !g("sim_net_latency").empty()) r.sim_net_latency = gd("sim_net_latency");
    if (col.count("sim_hca_median") && !g("sim_hca_median").empty())
      for (const char* c : kSimHcaColumns) r.sim_hca.push_back(gd(c));
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<RunResult> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_csv(ss.str(), path);
}

size_t csv_complete_prefix(const std::string& text) {
  size_t pos = 0, end = 0;
  int line = 1;
  CsvRecord rec;
  while (next_record(text, pos, line, rec))
    if (rec.complete) end = pos;
  return end;
}

std::vector<std::vector<RunResult>> read_result_parts(const std::vector<std::string>& paths) {
  std::vector<std::vector<RunResult>> parts;
  for (const auto& p : paths) {
    std::string csv = std::filesystem::is_directory(p) ? p + "/results.csv" : p;
    if (!std::filesystem::exists(csv)) throw Error(csv + ": no such file");
    parts.push_back(read_csv(csv));
  }
  return parts;
}

std::vector<RunResult> merge(const std::vector<std::vector<RunResult>>& parts, int* duplicates) {
  std::set<std::string> seen;
  std::vector<RunResult> out;
  int dup = 0;
  for (const auto& p : parts)
    for (const auto& r : p) {
      if (seen.insert(r.key.id()).second) out.push_back(r);
      else ++dup;
    }
  if (duplicates) *duplicates = dup;
  return out;
}

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m = {
      {"unreachable", "unreachable pairs (validator)",
       [](const RunResult& r) { return r.status == "ok" ? double(r.unreachable) : NAN; }, "unreachable pairs (count)"},
      {"valid", "valid routing, % of runs (reachable, no loop, CDG acyclic)",
       [](const RunResult& r) { return r.routing_ok() ? 100.0 : 0.0; }, "valid runs (%)", 100},
      {"throughput", "accepted load (flitsim, flits/endpoint/cycle)",
       [](const RunResult& r) { return r.simulated ? r.sim_accepted : NAN; }, "accepted load (flits/endpoint/cycle)"},
      {"hca_bandwidth", "consumption bandwidth per HCA (flitsim, flits/cycle; seed 003 Fig. 4)",
       [](const RunResult& r) { return r.simulated && r.sim_hca.size() == 5 ? r.sim_hca[2] : NAN; },
       "consumption bandwidth per HCA (flits/cycle)", 0,
       [](const RunResult& r) { return r.simulated && r.sim_hca.size() == 5 ? r.sim_hca : std::vector<double>{}; }},
      {"efi_max", "max edge forwarding index (routes per link)",
       [](const RunResult& r) { return r.status == "ok" ? double(r.efi_max) : NAN; }, "max EFI (routes per link)"},
      {"hops_avg", "average hops (CA to CA)",
       [](const RunResult& r) { return r.status == "ok" ? r.hops_avg : NAN; }, "average hops (links)"},
      {"lost_routes", "routes lost before re-routing (intact routing, seed 003 Eq. 6)",
       [](const RunResult& r) { return r.lost_routes >= 0 ? double(r.lost_routes) : NAN; }, "lost routes (count)"},
      {"route_seconds", "routing time, s (in-process CPU; OpenSM: wall of opensm -o)",
       [](const RunResult& r) { return r.status == "ok" || r.status == "refused" ? r.route_seconds : NAN; },
       "routing time (s)"},
  };
  return m;
}

namespace {
bool links_vary_of(const std::vector<RunResult>& rows, const std::string& fabric) {
  std::set<std::string> lf;
  for (const auto& r : rows)
    if (r.key.fabric == fabric) lf.insert(r.key.link_failures);
  return lf.size() > 1 || (lf.size() == 1 && *lf.begin() != "0");
}
struct Agg {
  double sum = 0, mn = INFINITY, mx = -INFINITY;
  int n = 0;
  std::vector<double> vals;     // the values over the seeds, for the median and quartiles
  std::array<double, 5> box{};  // Metric::box: the sum over the runs of each of the five
  int boxes = 0;
  int runs = 0, fallbacks = 0;  // every run at this point (NaN values too), those where OpenSM fell back
  int refused = 0;              // runs the engine refused (EngineError): not failed routings
};
// (engine, x) -> aggregate. x from link failures unless only switch failures vary.
std::map<std::string, std::map<double, Agg>> aggregate(const std::vector<RunResult>& rows, const std::string& fabric,
                                                       const Metric& m, std::string* xlabel) {
  bool links_vary = false;
  std::set<std::string> lf;
  for (const auto& r : rows)
    if (r.key.fabric == fabric) lf.insert(r.key.link_failures);
  links_vary = lf.size() > 1 || (lf.size() == 1 && *lf.begin() != "0");
  bool pct = false;
  for (const auto& r : rows)
    if (r.key.fabric == fabric) {
      const std::string& s = links_vary ? r.key.link_failures : r.key.switch_failures;
      if (!s.empty() && s.back() == '%') pct = true;
    }
  *xlabel = std::string(links_vary ? "failed links" : "failed switches") + (pct ? " (%)" : "");
  for (const auto& r : rows)
    if (r.key.fabric == fabric && parse_year_level(r.key.link_failures, nullptr))
      *xlabel = "years in service (failures kept in place)";
  std::map<std::string, std::map<double, Agg>> a;
  std::map<std::string, std::map<double, std::tuple<int, int, int>>> runs;  // (runs, fallbacks, refused), NaN values too
  for (const auto& r : rows) {
    if (r.key.fabric != fabric) continue;
    double v = m.value(r);
    double x = failures_x(links_vary ? r.key.link_failures : r.key.switch_failures);
    auto& [n_runs, n_fallbacks, n_refused] = runs[r.key.engine][x];
    n_runs++;
    n_fallbacks += r.fallback;
    n_refused += r.status == "refused";
    if (std::isnan(v)) continue;
    Agg& g = a[r.key.engine][x];
    g.sum += v;
    g.mn = std::min(g.mn, v);
    g.mx = std::max(g.mx, v);
    ++g.n;
    g.vals.push_back(v);
    if (m.box) {
      const std::vector<double> b = m.box(r);
      if (b.size() == 5) {
        for (size_t i = 0; i < 5; i++) g.box[i] += b[i];
        g.boxes++;
      }
    }
  }
  if (m.box)  // whiskers and axis from the mean box
    for (auto& [e, pts] : a)
      for (auto& [x, g] : pts)
        if (g.boxes > 0) g.mn = g.box[0] / g.boxes, g.mx = g.box[4] / g.boxes;
  for (auto& [e, pts] : a)
    for (auto& [x, g] : pts) std::tie(g.runs, g.fallbacks, g.refused) = runs[e][x];
  return a;
}
}  // namespace

double quantile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::string plot_svg(const std::vector<RunResult>& rows, const std::string& fabric, const Metric& m) {
  std::string xlabel;
  auto a = aggregate(rows, fabric, m, &xlabel);
  const double W = 760, H = 440, L = 70, R = 200, T = 40, B = 50;
  double x0 = INFINITY, x1 = -INFINITY, y1 = 0;
  for (auto& [e, pts] : a)
    for (auto& [x, g] : pts) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y1 = std::max(y1, g.mx);
    }
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << W / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">" << xml_text(fabric) << ": "
    << xml_text(m.label) << "</text>\n";
  if (a.empty()) {
    s << "<text x=\"" << W / 2 << "\" y=\"" << H / 2 << "\" text-anchor=\"middle\">no data</text>\n</svg>\n";
    return s.str();
  }
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= 0) y1 = 1;
  if (m.ymax > 0 && y1 <= m.ymax) {
    y1 = m.ymax;  // a percentage ends at 100 %
  } else {  // round the top up to a "nice" number so the 5 grid steps read well (1, 2, 2.5, 5 x 10^k)
    double step = y1 * 1.02 / 5, mag = std::pow(10.0, std::floor(std::log10(step)));
    for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
      if (f * mag >= step) {
        step = f * mag;
        break;
      }
    y1 = step * 5;
  }
  const double pad = 14;  // keep the first/last points (and their offsets) off the axes
  auto X = [&](double x) { return L + pad + (x - x0) / (x1 - x0) * (W - L - R - 2 * pad); };
  auto Y = [&](double y) { return H - B - y / y1 * (H - T - B); };
  s << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  s << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 5; ++i) {
    double y = y1 * i / 5;
    s << "<line x1=\"" << L - 4 << "\" y1=\"" << Y(y) << "\" x2=\"" << W - R << "\" y2=\"" << Y(y)
      << "\" stroke=\"#ddd\"/><text x=\"" << L - 6 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\">" << num(y)
      << "</text>\n";
  }
  std::set<double> xs;
  for (auto& [e, pts] : a)
    for (auto& [x, g] : pts) xs.insert(x);
  for (double x : xs)
    s << "<line x1=\"" << X(x) << "\" y1=\"" << H - B << "\" x2=\"" << X(x) << "\" y2=\"" << H - B + 4
      << "\" stroke=\"black\"/><text x=\"" << X(x) << "\" y=\"" << H - B + 18 << "\" text-anchor=\"middle\">" << num(x)
      << "</text>\n";
  s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 10 << "\" text-anchor=\"middle\">" << xml_text(xlabel)
    << (m.box ? " (box: quartiles over the HCAs, whiskers: min..max, mean over the seeds"
              : " (median over seeds, box: quartiles, whiskers: min..max")
    << (m.name == "throughput" ? "; dotted: regression" : "")
    << ")</text>\n";
  s << "<text x=\"16\" y=\"" << (T + H - B) / 2 << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
    << (T + H - B) / 2 << ")\">" << xml_text(m.ylabel.empty() ? m.label : m.ylabel) << "</text>\n";
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  // one marker shape per engine (circle, square, triangle, diamond, cross, ...) at (px, py)
  auto marker = [](int k, double px, double py, const char* c) {
    std::ostringstream o;
    const double r = 4.5;
    switch (k % 6) {
      case 0: o << "<circle cx=\"" << num(px) << "\" cy=\"" << num(py) << "\" r=\"" << r << "\" fill=\"" << c << "\"/>"; break;
      case 1: o << "<rect x=\"" << num(px - r) << "\" y=\"" << num(py - r) << "\" width=\"" << 2 * r << "\" height=\"" << 2 * r
                << "\" fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\"/>"; break;
      case 2: o << "<path d=\"M" << num(px) << "," << num(py - r - 1) << " L" << num(px + r + 1) << "," << num(py + r)
                << " L" << num(px - r - 1) << "," << num(py + r) << " Z\" fill=\"" << c << "\"/>"; break;
      case 3: o << "<path d=\"M" << num(px) << "," << num(py - r - 1) << " L" << num(px + r + 1) << "," << num(py) << " L"
                << num(px) << "," << num(py + r + 1) << " L" << num(px - r - 1) << "," << num(py) << " Z\" fill=\"none\" stroke=\""
                << c << "\" stroke-width=\"2\"/>"; break;
      case 4: o << "<path d=\"M" << num(px - r) << "," << num(py - r) << " L" << num(px + r) << "," << num(py + r) << " M"
                << num(px + r) << "," << num(py - r) << " L" << num(px - r) << "," << num(py + r) << "\" stroke=\"" << c
                << "\" stroke-width=\"2\"/>"; break;
      default: o << "<circle cx=\"" << num(px) << "\" cy=\"" << num(py) << "\" r=\"" << r << "\" fill=\"none\" stroke=\"" << c
                 << "\" stroke-width=\"2\"/>"; break;
    }
    return o.str();
  };
  const int ne = static_cast<int>(a.size());
  // Refused runs (the engine declined the fabric, OpenSM would fall back) are not failed
  // routings: a point with refused runs gets a hatched square in the engine's colour and a label
  // "refused R/N" beside it, and the legend counts them. In "valid runs (%)" such a run counts
  // as not valid, so a refusing engine sits at 0 % - with the mark, not as if its routing had
  // failed. Labels (refused, fell back) of points that (nearly) coincide stack upwards, so each
  // stays readable.
  std::map<double, std::vector<double>> labelled;  // x -> y of the points labelled there
  auto label_slot = [&](double x, double py) {
    int k = 0;
    for (double y : labelled[x]) k += std::fabs(y - py) < 12;
    labelled[x].push_back(py);
    return k;
  };
  int ci = 0;
  for (auto& [e, pts] : a) {
    const char* c = colors[ci % 10];
    int refused = 0, runs = 0;
    for (auto& [x, g] : pts) refused += g.refused, runs += g.runs;
    if (refused > 0)
      s << "<defs><pattern id=\"refused" << ci << "\" patternUnits=\"userSpaceOnUse\" width=\"4\" height=\"4\">"
        << "<path d=\"M-1,1 l2,-2 M0,4 l4,-4 M3,5 l2,-2\" stroke=\"" << c << "\" stroke-width=\"1\"/></pattern></defs>\n";
    // small x offset per engine: coinciding lines and points stay side by side
    const double dx = (ci - (ne - 1) / 2.0) * std::min(4.0, 24.0 / std::max(1, ne));
    std::string path;
    for (auto& [x, g] : pts) {
      // the paper's statistic (seed 003 Fig. 4): the median, the box from the first to the third
      // quartile, the whiskers to the minimum and maximum over the seeds
      // (Metric::box: the mean over the seeds of each run's own box)
      const bool own = m.box && g.boxes > 0;
      const double med = own ? g.box[2] / g.boxes : quantile(g.vals, 0.5);
      const double q1 = own ? g.box[1] / g.boxes : quantile(g.vals, 0.25), q3 = own ? g.box[3] / g.boxes : quantile(g.vals, 0.75);
      const double px = X(x) + dx;
      path += (path.empty() ? "M" : " L") + num(px) + "," + num(Y(med));
      s << "<line class=\"whisker\" x1=\"" << num(px) << "\" y1=\"" << Y(g.mn) << "\" x2=\"" << num(px) << "\" y2=\"" << Y(g.mx)
        << "\" stroke=\"" << c << "\" stroke-opacity=\"0.5\"/>";
      if (g.n > 1 || own)
        s << "<rect class=\"quartiles\" x=\"" << num(px - 6) << "\" y=\"" << num(Y(q3)) << "\" width=\"12\" height=\""
          << num(std::max(0.0, Y(q1) - Y(q3))) << "\" fill=\"" << c << "\" fill-opacity=\"0.25\" stroke=\"" << c
          << "\" stroke-opacity=\"0.7\"><title>" << xml_text(e) << " at " << num(x) << ": median " << num(med) << ", quartiles "
          << num(q1) << ".." << num(q3) << ", " << num(g.mn) << ".." << num(g.mx) << " over " << g.n << " runs</title></rect>";
      s << marker(ci, px, Y(med), c);
      if (g.refused > 0) {
        const int k = label_slot(x, Y(med));
        s << "<rect class=\"refused\" x=\"" << num(px - 7) << "\" y=\"" << num(Y(med) - 7) << "\" width=\"14\" height=\"14\" fill=\"url(#refused"
          << ci << ")\" stroke=\"" << c << "\"/><text class=\"refused\" x=\"" << num(px + 11) << "\" y=\"" << num(Y(med) - 8 - 12 * k)
          << "\" font-size=\"10\" fill=\"" << c << "\">refused " << g.refused << "/" << g.runs << "</text>";
      }
      if (g.fallbacks > 0) {  // OpenSM used another engine for some runs here: ring + count on the point
        const int k = label_slot(x, Y(med));
        s << "<circle class=\"fallback\" cx=\"" << num(px) << "\" cy=\"" << num(Y(med)) << "\" r=\"9\" fill=\"none\" stroke=\"black\""
          << " stroke-dasharray=\"2,2\"/><text x=\"" << num(px + 11) << "\" y=\"" << num(Y(med) - 8 - 12 * k) << "\" font-size=\"10\">fell back "
          << g.fallbacks << "/" << g.runs << "</text>";
      }
      s << "\n";
    }
    // every other engine dashed, so identical curves (e.g. an engine and its fallback) stay visible
    const char* dash = ci % 2 ? " stroke-dasharray=\"6,3\"" : "";
    s << "<path d=\"" << path << "\" fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\"" << dash << "/>\n";
    if (m.name == "throughput") {  // the regression line over the runs (seed 003 Tables V-VII)
      // same points as campaign-table --regression (runs that routed, CDG checked acyclic,
      // simulated), on this plot's x axis
      std::vector<double> fx, fy;
      for (const auto& r : rows) {
        if (r.key.fabric != fabric || r.key.engine != e || std::isnan(m.value(r))) continue;
        if (!r.routing_ok() || !r.deadlock_checked) continue;
        fx.push_back(failures_x(links_vary_of(rows, fabric) ? r.key.link_failures : r.key.switch_failures));
        fy.push_back(m.value(r));
      }
      const LinearFit f = linear_fit(fx, fy);
      if (f.ok) {  // over the range of its own points
        auto clampy = [&](double y) { return std::clamp(y, 0.0, y1); };
        const double lx0 = *std::min_element(fx.begin(), fx.end()), lx1 = *std::max_element(fx.begin(), fx.end());
        s << "<line class=\"regression\" x1=\"" << X(lx0) << "\" y1=\"" << Y(clampy(f.at(lx0))) << "\" x2=\"" << X(lx1)
          << "\" y2=\"" << Y(clampy(f.at(lx1))) << "\" stroke=\"" << c
          << "\" stroke-width=\"1\" stroke-dasharray=\"2,2\" stroke-opacity=\"0.8\"><title>" << xml_text(e)
          << ": y = " << num(f.intercept) << " " << (f.slope < 0 ? "- " : "+ ") << num(std::fabs(f.slope))
          << " x, R^2 = " << (std::isnan(f.r2) ? std::string("-") : num(f.r2)) << "</title></line>\n";
      }
    }
    double ly = T + 10 + 18 * ci;
    s << "<line x1=\"" << W - R + 15 << "\" y1=\"" << ly << "\" x2=\"" << W - R + 40 << "\" y2=\"" << ly
      << "\" stroke=\"" << c << "\" stroke-width=\"2\"" << dash << "/>" << marker(ci, W - R + 27.5, ly, c) << "<text x=\""
      << W - R + 45 << "\" y=\"" << ly + 4 << "\">" << xml_text(e)
      << (refused > 0 ? " (refused " + std::to_string(refused) + "/" + std::to_string(runs) + ")" : std::string()) << "</text>\n";
    ++ci;
  }
  s << "</svg>\n";
  return s.str();
}

std::string summary_table(const std::vector<RunResult>& rows) {
  struct S {
    int n = 0, ok = 0, refused = 0, errors = 0, valid = 0, fallback = 0, cycles = 0, unchecked = 0, sims = 0;
    double unreach = 0, thr = 0, efi = 0, secs = 0;
    std::vector<double> thrs;  // per simulated run
    std::set<std::string> used;
  };
  std::map<std::tuple<std::string, std::string, std::string, std::string>, S> m;
  for (const auto& r : rows) {
    S& s = m[{r.key.fabric, r.key.engine, r.key.switch_failures, r.key.link_failures}];
    ++s.n;
    if (r.status == "ok") {
      ++s.ok;
      s.unreach += double(r.unreachable);
      s.efi += double(r.efi_max);
      if (r.deadlock_checked && !r.cdg_acyclic) ++s.cycles;
      if (!r.deadlock_checked) ++s.unchecked;
    } else if (r.status == "refused") {
      ++s.refused;
    } else {
      ++s.errors;
    }
    if (r.routing_ok()) ++s.valid;
    if (r.fallback) ++s.fallback;
    if (r.simulated) {
      ++s.sims;
      s.thr += r.sim_accepted;
      s.thrs.push_back(r.sim_accepted);
    }
    s.secs += r.route_seconds;
    s.used.insert(r.engine_used);
  }
  // The fault-free point of a row's fabric and engine: no link and no switch failures, or year 0
  // of a lifetime campaign.
  auto fault_free_key = [](const std::tuple<std::string, std::string, std::string, std::string>& k) {
    const bool life = parse_year_level(std::get<3>(k), nullptr);
    return std::make_tuple(std::get<0>(k), std::get<1>(k), std::string(life ? "y0" : "0"), std::string(life ? "y0" : "0"));
  };
  // Throughput relative to the fault-free point (no link and no switch failures) of the same
  // fabric and engine: mean over seeds of accepted / mean fault-free accepted - 1.
  auto rel = [&](const std::tuple<std::string, std::string, std::string, std::string>& k, const S& s) -> std::string {
    auto it = m.find(fault_free_key(k));
    if (!s.sims || it == m.end() || !it->second.sims || it->second.thr <= 0) return "-";
    double base = it->second.thr / it->second.sims;
    char t[32];
    std::snprintf(t, sizeof t, "%+.1f%%", (s.thr / s.sims / base - 1) * 100);
    return t;
  };
  // The same per run: median and worst (lowest) over the seeds, "-5.2%(-9.8)" (the paper quotes
  // medians and worst cases of the per-seed change, headline 1).
  auto rel_med = [&](const std::tuple<std::string, std::string, std::string, std::string>& k, const S& s) -> std::string {
    auto it = m.find(fault_free_key(k));
    if (s.thrs.empty() || it == m.end() || !it->second.sims || it->second.thr <= 0) return "-";
    double base = it->second.thr / it->second.sims;
    std::vector<double> v = s.thrs;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    char t[48];
    std::snprintf(t, sizeof t, "%+.1f%%(%+.1f)", (med / base - 1) * 100, (v.front() / base - 1) * 100);
    return t;
  };
  std::ostringstream o;
  char b[600];
  std::snprintf(b, sizeof b, "%-22s %-20s %6s %6s %4s %4s %4s %5s %5s %6s %5s %12s %9s %9s %8s %15s %9s  %s\n", "fabric", "engine",
                "swfail", "lnfail", "runs", "ok", "ref", "err", "valid", "cycles", "nocdg", "unreach(avg)", "efi(avg)",
                "thr(avg)", "thr vs 0", "med(worst) vs 0", "route s", "engine used");
  o << b;
  for (auto& [k, s] : m) {
    std::string used;
    for (auto& u : s.used) used += (used.empty() ? "" : "+") + u;
    std::snprintf(b, sizeof b, "%-22s %-20s %6s %6s %4d %4d %4d %5d %5d %6d %5d %12.1f %9.1f %9s %8s %15s %9.3f  %s%s\n",
                  std::get<0>(k).c_str(), std::get<1>(k).c_str(), std::get<2>(k).c_str(), std::get<3>(k).c_str(), s.n,
                  s.ok, s.refused, s.errors, s.valid, s.cycles, s.unchecked, s.ok ? s.unreach / s.ok : 0.0, s.ok ? s.efi / s.ok : 0.0,
                  s.sims ? num(s.thr / s.sims).c_str() : "-", rel(k, s).c_str(), rel_med(k, s).c_str(),
                  s.n ? s.secs / s.n : 0.0, used.c_str(),
                  s.fallback ? " (FALLBACK)" : "");
    o << b;
  }
  return o.str();
}

void write_reports(const std::vector<RunResult>& rows, const std::string& out_dir) {
  fs::create_directories(out_dir + "/plots");
  std::set<std::string> fabrics, files;
  for (const auto& r : rows) fabrics.insert(r.key.fabric);
  for (const auto& f : fabrics) {
    // names that differ only in what file_safe() replaces ('a b.net', 'a_b.net') get -2, -3, ...
    std::string base = file_safe(f);
    for (int k = 2; !files.insert(base).second; k++) base = file_safe(f) + "-" + std::to_string(k);
    for (const auto& m : metrics()) {
      bool any = false;
      for (const auto& r : rows)
        if (r.key.fabric == f && !std::isnan(m.value(r))) any = true;
      if (!any) continue;
      write_atomic(out_dir + "/plots/" + base + "_" + m.name + ".svg", plot_svg(rows, f, m));
    }
  }
  // header: the settings the rows were simulated with (campaign.conf)
  Settings st;
  std::string head = read_campaign_settings(out_dir, &st)
                         ? "# settings: " + settings_summary(st) + "\n"
                         : "# settings: not recorded (no campaign.conf: a directory from before ftroute recorded them; "
                           "shift-exchange in index order)\n";
  // The one place where a file's LIDs are not those of the run: OpenSM numbers the fabric itself.
  bool opensm_rows = false;
  for (const auto& r : rows) opensm_rows = opensm_rows || r.key.engine.rfind("opensm:", 0) == 0;
  for (const auto& [k, v] : st)
    if (k == "lids" && v == "file" && opensm_rows)
      head += "# lids: in-process engines on --fabric files use the file's LIDs; opensm:* rows the LIDs OpenSM assigned\n";
  write_atomic(out_dir + "/summary.txt", head + summary_table(rows));
  // a lifetime campaign's case study (ftroute/campaign_lifetime.hpp)
  if (std::any_of(rows.begin(), rows.end(), [](const RunResult& r) { return parse_year_level(r.key.link_failures, nullptr); }))
    write_atomic(out_dir + "/case_study.md",
                 "## Fail-in-place case study (seed 003 §V-D)\n\nSettings: " +
                     (read_campaign_settings(out_dir, &st) ? settings_summary(st) : std::string("not recorded")) +
                     " (per year: link rate, switch rate).\n\n" + lifetime_report(rows));
}

std::vector<RunResult> run_campaign(const Config& cfg, const std::function<void(const Progress&)>& progress) {
  if (cfg.out_dir.empty()) throw OptionError("campaign: no output directory");
  if (cfg.engines.empty()) throw OptionError("campaign: no engines");
  if (cfg.fabrics.empty()) throw OptionError("campaign: no fabric");
  // every fabric (file or --gen spec) is built before the output directory is created: a bad
  // spec leaves nothing behind
  std::map<std::string, Fabric> intact;
  for (const auto& f : cfg.fabrics) {
    if (intact.count(f.name)) throw OptionError("campaign: fabric '" + f.name + "' given twice");
    intact.emplace(f.name, build_fabric(f));
    check_file_lids(cfg, f, intact.at(f.name));
  }
  // The settings outside the run key (campaign.conf): a directory that already holds rows keeps
  // its own; a different request is refused before anything is written.
  const std::string csv = cfg.out_dir + "/results.csv";
  const Settings want = campaign_settings(cfg);
  bool has_rows = false;
  if (fs::exists(csv)) {
    std::ifstream in(csv, std::ios::binary);
    std::string line;
    int lines = 0;
    while (lines < 2 && std::getline(in, line))
      if (!line.empty() && line != "\r") ++lines;
    has_rows = lines >= 2;  // header + at least one run
  }
  if (has_rows) {
    Settings rec;
    const bool have = read_campaign_settings(cfg.out_dir, &rec);
    SettingMismatch m;
    if (compare_campaign_settings(have ? &rec : nullptr, want, &m))
      throw OptionError(
          cfg.out_dir + " holds results with " + m.key + " " + m.recorded +
          (m.assumed ? (have ? " (" + campaign_settings_path(cfg.out_dir) + " has no " + m.key +
                                   ": a directory from before the setting was recorded)"
                             : std::string(" (no campaign.conf: a directory from before the setting was recorded)"))
                     : " (" + campaign_settings_path(cfg.out_dir) + ")") +
          ", this run asks for " + m.key + " " + m.requested + " (" + setting_option(m.key) +
          "): refusing to mix them; use the recorded setting or another --out directory");
  }
  fs::create_directories(cfg.out_dir);
  bool rewrite = !has_rows;
  if (has_rows) {  // a directory of generated fabrics ("lids -", or no "lids") extended with a file
    Settings rec;
    if (read_campaign_settings(cfg.out_dir, &rec)) {
      std::string had = "-";
      for (const auto& [k, v] : rec)
        if (k == "lids") had = v;
      for (const auto& [k, v] : want)
        if (k == "lids" && had == "-" && v != "-") rewrite = true;
    }
  }
  if (rewrite) write_atomic(campaign_settings_path(cfg.out_dir), campaign_settings_text(want));
  if (fs::exists(csv)) {
    // A run killed in the middle of appending leaves a last line without '\n': drop it (that run
    // is simply done again) instead of refusing to resume.
    std::ifstream in(csv, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    // (record by record: a message in quotes may hold line breaks)
    if (const size_t keep = csv_complete_prefix(text); keep != text.size()) {
      std::fprintf(stderr, "campaign: %s: dropping an incomplete last line (interrupted run)\n", csv.c_str());
      write_atomic(csv, text.substr(0, keep));
    }
  }
  std::vector<RunResult> existing = read_csv(csv);  // throws ParseError on a damaged file
  if (!existing.empty() || (fs::exists(csv) && fs::file_size(csv) > 0)) {
    // a results.csv from before the newest columns: rewritten with the full header (its rows keep
    // their values, the new columns empty), so the rows appended below fit its header
    std::ifstream in(csv, std::ios::binary);
    std::string head;
    std::getline(in, head);
    if (!head.empty() && head.back() == '\r') head.pop_back();
    if (head != csv_header()) {
      std::string text = csv_header() + "\n";
      for (const auto& r : existing) text += csv_row(r) + "\n";
      write_atomic(csv, text);
    }
  }
  std::set<std::string> done;
  for (const auto& r : existing) done.insert(r.key.id());

  std::vector<RunKey> todo;
  Progress pr;
  for (const auto& k : plan(cfg)) {
    if (done.count(k.id())) ++pr.skipped;
    else todo.push_back(k);
  }
  pr.total = todo.size();
  {
    bool fresh = !fs::exists(csv) || fs::file_size(csv) == 0;
    std::ofstream o(csv, std::ios::app);
    if (!o) throw Error("cannot write " + csv);
    if (fresh) o << csv_header() << "\n";
  }
  std::mutex mu;
  IntactRoutings intact_routings;  // one routing of each intact (fabric, engine), shared by the runs
  std::atomic<size_t> next{0};
  std::exception_ptr fatal;
  auto t0 = std::chrono::steady_clock::now();
  g_stop = 0;
  auto old_int = std::signal(SIGINT, on_stop_signal);
  auto old_term = std::signal(SIGTERM, on_stop_signal);
  auto worker = [&] {
    for (;;) {
      if (g_stop) return;
      size_t i = next++;
      if (i >= todo.size()) return;
      {
        std::lock_guard<std::mutex> l(mu);
        if (fatal) return;
      }
      RunResult r;
      try {
        r = run_one(cfg, intact.at(todo[i].fabric), todo[i], &intact_routings);
      } catch (...) {
        std::lock_guard<std::mutex> l(mu);
        if (!fatal) fatal = std::current_exception();
        return;
      }
      std::lock_guard<std::mutex> l(mu);
      std::ofstream o(csv, std::ios::app);
      o << csv_row(r) << "\n";
      o.flush();
      ++pr.done;
      if (r.status == "error") ++pr.failed;
      pr.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (progress) progress(pr);
    }
  };
  int jobs = std::max(1, std::min<int>(cfg.jobs, static_cast<int>(std::max<size_t>(1, todo.size()))));
  std::vector<std::thread> th;
  for (int j = 0; j < jobs; ++j) th.emplace_back(worker);
  for (auto& t : th) t.join();
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  if (fatal) std::rethrow_exception(fatal);
  std::vector<RunResult> all = read_csv(csv);
  write_reports(all, cfg.out_dir);
  if (g_stop)
    throw Interrupted("interrupted after " + std::to_string(pr.done) + " of " + std::to_string(pr.total) +
                      " runs; run the same command again to resume");
  return all;
}

}  // namespace ftroute::campaign
