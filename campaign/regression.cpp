// Fail-in-place regression method (seed 003 §V, Tables V-VII): see campaign_regression.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "ftroute/campaign_regression.hpp"

namespace ftroute::campaign {

LinearFit linear_fit(const std::vector<double>& x, const std::vector<double>& y) {
  LinearFit f;
  const size_t n = std::min(x.size(), y.size());
  f.n = static_cast<int>(n);
  if (n < 2) return f;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= double(n), my /= double(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return f;  // one x value: no line
  f.ok = true;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  double ssr = 0;
  for (size_t i = 0; i < n; ++i) ssr += (y[i] - f.at(x[i])) * (y[i] - f.at(x[i]));
  f.r2 = syy > 0 ? 1 - ssr / syy : NAN;
  return f;
}

double crossing(const LinearFit& a, const LinearFit& b) {
  if (a.slope == b.slope) return NAN;
  return (b.intercept - a.intercept) / (a.slope - b.slope);
}

std::vector<EngineFit> engine_fits(const std::vector<RunResult>& rows) {
  struct P {
    std::vector<double> x, y;
    int excluded = 0, cas = 0;
  };
  std::map<std::pair<std::string, std::string>, P> m;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& r : rows) {
    auto k = std::make_pair(r.key.fabric, r.key.engine);
    if (!m.count(k)) order.push_back(k);
    P& p = m[k];
    const int failures = r.links_removed + r.switches_removed;
    if (failures == 0 && r.status == "ok") p.cas = std::max(p.cas, r.cas);
    if (r.routing_ok() && r.deadlock_checked && r.simulated) {
      p.x.push_back(failures);
      p.y.push_back(r.sim_accepted);
    } else {
      ++p.excluded;
    }
  }
  std::vector<EngineFit> out;
  for (const auto& k : order) {
    const P& p = m[k];
    EngineFit e;
    e.fabric = k.first, e.engine = k.second;
    e.fit = linear_fit(p.x, p.y);
    e.excluded = p.excluded;
    e.cas = p.cas;
    for (double x : p.x) e.max_failures = std::max(e.max_failures, x);
    out.push_back(e);
  }
  return out;
}

std::vector<Step> recommendation(const std::vector<EngineFit>& fits, double x_limit) {
  std::vector<const EngineFit*> ok;
  for (const auto& f : fits)
    if (f.fit.ok) ok.push_back(&f);
  std::vector<Step> steps;
  if (ok.empty()) return steps;
  // best at x = 0 (ties: the flatter line, then the first given)
  const EngineFit* cur = ok[0];
  for (const EngineFit* f : ok)
    if (f->fit.intercept > cur->fit.intercept ||
        (f->fit.intercept == cur->fit.intercept && f->fit.slope > cur->fit.slope))
      cur = f;
  steps.push_back({0, cur->engine});
  double x = 0;
  for (size_t guard = 0; guard < ok.size(); ++guard) {
    // the earliest later point where a line with a flatter slope overtakes the current one
    const EngineFit* next = nullptr;
    double nx = INFINITY;
    for (const EngineFit* f : ok) {
      if (f == cur || f->fit.slope <= cur->fit.slope) continue;
      double c = crossing(cur->fit, f->fit);
      if (std::isnan(c) || c <= x || c > x_limit) continue;
      if (c < nx || (c == nx && next && f->fit.slope > next->fit.slope)) nx = c, next = f;
    }
    if (!next) break;
    steps.push_back({nx, next->engine});
    cur = next;
    x = nx;
  }
  return steps;
}

namespace {
std::string fmt(const char* f, double v) {
  if (std::isnan(v)) return "-";
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
}  // namespace

std::string regression_table(const std::vector<RunResult>& rows, const std::vector<std::string>& engines,
                             double link_gbytes) {
  std::vector<EngineFit> fits = engine_fits(rows);
  std::vector<std::string> order = engines;
  for (const auto& f : fits)
    if (std::find(order.begin(), order.end(), f.engine) == order.end()) order.push_back(f.engine);
  auto rank = [&](const std::string& e) { return std::find(order.begin(), order.end(), e) - order.begin(); };
  std::stable_sort(fits.begin(), fits.end(), [&](const EngineFit& a, const EngineFit& b) {
    return a.fabric != b.fabric ? a.fabric < b.fabric : rank(a.engine) < rank(b.engine);
  });
  std::ostringstream o;
  o << "| fabric | engine | points | excluded | intercept | slope /failure | R^2 | intercept GB/s | slope GB/s "
       "/failure | slope % of intercept /failure | failures measured |\n"
       "|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, std::vector<EngineFit>> by_fabric;
  for (const auto& f : fits) {
    by_fabric[f.fabric].push_back(f);
    const double gb = double(f.cas) * link_gbytes;
    o << "| " << f.fabric << " | " << f.engine << " | " << f.fit.n << " | " << f.excluded << " | ";
    if (f.fit.ok) {
      o << fmt("%.4f", f.fit.intercept) << " | " << fmt("%+.5f", f.fit.slope) << " | " << fmt("%.2f", f.fit.r2) << " | "
        << fmt("%.2f", f.fit.intercept * gb) << " | " << fmt("%+.2f", f.fit.slope * gb) << " | "
        << (f.fit.intercept != 0 ? fmt("%+.2f", 100 * f.fit.slope / f.fit.intercept) : "-") << " | 0.."
        << fmt("%.0f", f.max_failures) << " |\n";
    } else {
      o << "- | - | - | - | - | - | " << (f.fit.n ? "0.." + fmt("%.0f", f.max_failures) : "-") << " |\n";
    }
  }
  o << "\n";
  for (const auto& [fabric, fs] : by_fabric) {
    double measured = 0;
    int links = 0;
    for (const auto& f : fs) measured = std::max(measured, f.max_failures);
    for (const auto& r : rows)  // switch-to-switch links of the intact fabric (links counts CA links too)
      if (r.key.fabric == fabric) links = std::max(links, r.links - r.cas);
    auto steps = recommendation(fs, links > 0 ? double(links) : 1e9);
    o << "* " << fabric << ": ";
    if (steps.empty()) {
      o << "no engine has a regression (needs >= 2 failure levels of routed, simulated runs)\n";
      continue;
    }
    o << "best now: **" << steps[0].engine << "**";
    for (size_t i = 1; i < steps.size(); ++i)
      o << "; after " << fmt("%.1f", steps[i].failures) << " failures: **" << steps[i].engine << "**"
        << (steps[i].failures > measured ? " (extrapolated beyond the " + fmt("%.0f", measured) + " measured)" : "");
    if (steps.size() == 1) o << " (no other line crosses it up to " << links << " failures)";
    o << "\n";
  }
  o << "\n* points: runs that routed (every pair reachable, no loop, CDG checked acyclic) and were simulated; "
       "excluded: the other runs (refused, failed, deadlock-prone, not simulated). x = failures kept in place in the run "
       "(failed links + failed switches, actual counts), y = simulated throughput in flits per endpoint per cycle "
       "(flitsim; for the shift-exchange pattern = the paper's Eq. 7 throughput per HCA).\n"
       "* GB/s: y x HCAs x "
    << fmt("%g", link_gbytes)
    << " GB/s (one flit per cycle at an endpoint = the link rate; 4 GB/s = 4X QDR, the paper's Gbyte/s of Tables "
       "V-VII, whole network).\n"
       "* recommendation: the engine with the highest line at 0 failures, then each engine whose line overtakes "
       "the current one (where the regression lines cross), up to the number of links of the fabric.\n";
  return o.str();
}

}  // namespace ftroute::campaign
