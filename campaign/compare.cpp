// OpenSM routing-step timing from its log, and the markdown engine comparison table.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "ftroute/campaign_compare.hpp"
#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/error.hpp"

namespace ftroute::campaign {
namespace {

// "Nov 22 13:28:34 574021 [..." -> seconds since Jan 1 00:00 (non-leap year; good enough for
// differences, a year change is handled by the caller).
std::optional<double> log_time(const std::string& line) {
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  static const int first_day[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  char mon[4] = {};
  int day = 0, h = 0, m = 0, s = 0;
  long usec = 0;
  int used = 0;
  if (std::sscanf(line.c_str(), "%3s %d %d:%d:%d %ld%n", mon, &day, &h, &m, &s, &usec, &used) != 6) return std::nullopt;
  int mi = -1;
  for (int i = 0; i < 12; ++i)
    if (std::string(mon) == months[i]) mi = i;
  if (mi < 0 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60 || usec < 0 || usec > 999999) return std::nullopt;
  return ((first_day[mi] + day - 1) * 86400.0) + h * 3600.0 + m * 60.0 + s + static_cast<double>(usec) * 1e-6;
}

double need_time(const std::string& line, int lineno, const std::string& filename) {
  auto t = log_time(line);
  if (!t) throw ParseError(filename, lineno, "no 'Mon DD HH:MM:SS USEC' timestamp: " + line.substr(0, 80));
  return *t;
}

std::string ms(double seconds) {
  char b[32];
  if (seconds >= 10) std::snprintf(b, sizeof b, "%.0f", seconds * 1e3);
  else std::snprintf(b, sizeof b, "%.1f", seconds * 1e3);
  return b;
}

std::string fmt(const char* f, double v) {
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

std::optional<OsmRoutingStep> opensm_routing_step(const std::string& log_text, const std::string& filename) {
  static const std::string kBuild = "building routing with '";
  static const std::string kDone = " tables configured on all switches";
  std::optional<OsmRoutingStep> last;
  std::optional<OsmRoutingStep> open;
  double start = 0;
  std::istringstream in(log_text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto b = line.find(kBuild); b != std::string::npos) {
      auto e = line.find('\'', b + kBuild.size());
      if (!open) {
        open = OsmRoutingStep{};
        start = need_time(line, lineno, filename);
      }
      open->tried.push_back(line.substr(b + kBuild.size(), e == std::string::npos ? std::string::npos : e - b - kBuild.size()));
    } else if (auto d = line.find(kDone); d != std::string::npos) {
      if (!open) continue;  // pass started before VERBOSE logging: not timeable
      auto sp = line.rfind(' ', d - 1);
      open->engine = line.substr(sp + 1, d - sp - 1);
      double t = need_time(line, lineno, filename) - start;
      if (t < 0) t += 365 * 86400.0;  // year change
      open->seconds = t;
      last = open;
      open.reset();
    } else if (line.find("No routing engine able") != std::string::npos) {
      open.reset();
    }
  }
  return last;
}

std::vector<ComparisonRow> comparison_rows(const std::vector<RunResult>& rows, const std::vector<std::string>& engines) {
  std::vector<std::string> order = engines;
  for (const auto& r : rows)
    if (std::find(order.begin(), order.end(), r.key.engine) == order.end()) order.push_back(r.key.engine);
  auto rank = [&](const std::string& e) { return std::find(order.begin(), order.end(), e) - order.begin(); };
  struct S {
    int n = 0, tolerated = 0, unchecked_ok = 0, refused = 0, failed = 0, fallback = 0, measured = 0;
    int vls = 0;
    double efi_max_sum = 0, efi_avg_sum = 0, secs = 0;
    uint64_t efi_max_max = 0;
    std::set<std::string> used;
  };
  // key: fabric, switch failures, link failures (numeric order), engine rank
  std::map<std::tuple<std::string, double, std::string, double, std::string, long, std::string>, S> m;
  for (const auto& r : rows) {
    auto k = std::make_tuple(r.key.fabric, failures_x(r.key.switch_failures), r.key.switch_failures,
                             failures_x(r.key.link_failures), r.key.link_failures, static_cast<long>(rank(r.key.engine)),
                             r.key.engine);
    S& s = m[k];
    ++s.n;
    s.secs += r.route_seconds;
    if (r.fallback) {
      ++s.fallback;
      s.used.insert(r.engine_used);
    }
    if (r.status == "refused") ++s.refused;
    if (r.status != "ok") {
      if (r.status != "refused") ++s.failed;
      continue;
    }
    const bool reach = r.unreachable == 0 && r.looping == 0 && r.bad_entries == 0;
    if (reach && r.deadlock_checked && r.cdg_acyclic) ++s.tolerated;
    if (reach && !r.deadlock_checked) ++s.unchecked_ok;
    ++s.measured;
    s.vls = std::max(s.vls, r.vls_used);
    s.efi_max_sum += double(r.efi_max);
    s.efi_max_max = std::max(s.efi_max_max, r.efi_max);
    s.efi_avg_sum += r.efi_avg;
  }
  std::vector<ComparisonRow> out;
  for (const auto& [k, s] : m) {
    ComparisonRow c;
    c.fabric = std::get<0>(k);
    c.switch_failures = std::get<2>(k);
    c.link_failures = std::get<4>(k);
    c.engine = std::get<6>(k);
    c.opensm = c.engine.rfind("opensm:", 0) == 0;
    c.runs = s.n;
    c.tolerated = s.tolerated;
    c.unchecked_ok = s.unchecked_ok;
    c.refused = s.refused;
    c.failed = s.failed;
    c.fallback = s.fallback;
    c.fallback_engines.assign(s.used.begin(), s.used.end());
    c.measured = s.measured;
    c.vls = s.vls;
    c.efi_max_mean = s.measured ? s.efi_max_sum / s.measured : 0;
    c.efi_max_worst = s.efi_max_max;
    c.efi_avg_mean = s.measured ? s.efi_avg_sum / s.measured : 0;
    c.routing_seconds_mean = s.n ? s.secs / s.n : 0;
    out.push_back(std::move(c));
  }
  return out;
}

std::string comparison_table(const std::vector<RunResult>& rows, const std::vector<std::string>& engines) {
  std::ostringstream o;
  o << "| fabric | faults | engine | tolerated | VLs | EFI max (worst) | EFI avg | routing ms | OpenSM fell back |\n"
       "|---|---|---|---|---|---|---|---|---|\n";
  bool any_unchecked = false;
  for (const ComparisonRow& s : comparison_rows(rows, engines)) {
    const std::string& sw = s.switch_failures;
    const std::string& ln = s.link_failures;
    std::string faults = ln + " links";
    if (sw != "0") faults = sw + " switches" + (ln != "0" ? ", " + faults : "");
    if (int year = 0; parse_year_level(ln, &year)) faults = "year " + std::to_string(year);  // lifetime campaign
    std::string tol = std::to_string(s.tolerated) + "/" + std::to_string(s.runs);
    if (s.unchecked_ok) {
      tol += " (+" + std::to_string(s.unchecked_ok) + " reachable, CDG not checkable †)";
      any_unchecked = true;
    }
    if (s.refused) tol += ", " + std::to_string(s.refused) + " refused";
    if (s.failed) tol += ", " + std::to_string(s.failed) + " failed";
    std::string fb = "-";
    if (s.opensm) {
      fb = std::to_string(s.fallback) + "/" + std::to_string(s.runs);
      if (s.fallback) {
        std::string u;
        for (const auto& e : s.fallback_engines) u += (u.empty() ? "" : "+") + e;
        fb += " → " + u;
      }
    }
    o << "| " << s.fabric << " | " << faults << " | " << s.engine << " | " << tol << " | "
      << (!s.measured ? std::string("-") : s.unchecked_ok == s.measured ? std::string("? †") : std::to_string(s.vls))
      << " | "
      << (s.measured ? fmt("%.1f", s.efi_max_mean) + " (" + std::to_string(s.efi_max_worst) + ")" : "-")
      << " | " << (s.measured ? fmt("%.2f", s.efi_avg_mean) : "-") << " | "
      << (s.runs ? ms(s.routing_seconds_mean) : "-") << " | " << fb << " |\n";
  }
  o << "\n";
  o << "* tolerated: runs (seeds) where every CA reaches every CA and switch LID, with no loop, no LFT entry on a "
       "dead port, and a channel dependency graph over (link, VL) checked acyclic (CA sources, as in the campaign "
       "validation); refused = the ftroute engine threw EngineError; failed = OpenSM brought no subnet up.\n"
       "* VLs: most VLs the checked routes use (max over runs). EFI: edge forwarding index (CA-sourced routes per "
       "directed link, CA and switch LIDs as destinations): mean over runs of the maximum (worst run in brackets), mean of "
       "the average.\n"
       "* routing ms: mean over runs. ftroute engines: CPU time of Engine::route in-process. opensm:X: wall time of "
       "OpenSM's routing step from its log timestamps (\"building routing with\" to \"tables configured on all "
       "switches\": lid matrices, forwarding tables of every engine tried including a failed one before a fallback, "
       "LFT blocks queued), under ibsim; opensm:<ftroute engine> runs the engine in OpenSM through libftroute.so "
       "(engine option check=auto, so the result check is included).\n";
  if (any_unchecked)
    o << "* †: the engine OpenSM used (dfsssp, lash, nue, torus-2QoS) avoids deadlock with per-path SLs mapped to "
         "VLs, and these runs could not read all of those SLs back from the SA (the CSV message says why), so their "
         "CDG is not judged and their VL count is unknown (\"?\"). They count as not tolerated in the first number.\n";
  return o.str();
}

}  // namespace ftroute::campaign
