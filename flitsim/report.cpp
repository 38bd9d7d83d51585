// Sweeps, CSV and the hand-written SVG plot of flitsim results.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ftroute/flitsim.hpp"
#include "ftroute/input_file.hpp"

namespace ftroute::flitsim {

std::vector<double> parse_sweep(const std::string& spec) {
  double a, b, st;
  char c1, c2;
  std::istringstream in(spec);
  if (!(in >> a >> c1 >> b >> c2 >> st) || c1 != ':' || c2 != ':' || (in >> std::ws, !in.eof()))
    throw OptionError("--sweep expects FROM:TO:STEP, e.g. 0.05:0.95:0.05 (got '" + spec + "')");
  if (st <= 0 || a <= 0 || b < a) throw OptionError("--sweep: need 0 < FROM <= TO and STEP > 0 (got '" + spec + "')");
  std::vector<double> r;
  for (int i = 0;; i++) {
    double x = a + i * st;
    if (x > b + st * 1e-6) break;
    r.push_back(std::round(x * 1e9) / 1e9);
    if (r.size() > 10000) throw OptionError("--sweep: more than 10000 points");
  }
  return r;
}

std::vector<SweepPoint> sweep(const Fabric& f, const Routing& r, const Config& cfg, TrafficSpec t,
                              const std::vector<double>& loads) {
  std::vector<SweepPoint> out;
  for (double l : loads) {
    t.load = l;
    Simulator sim(f, r, cfg);
    out.push_back({l, sim.run(t)});
  }
  return out;
}

std::string sweep_csv(const std::vector<SweepPoint>& pts) {
  std::ostringstream o;
  o << "load,offered,accepted,avg_latency,p99_latency,avg_network_latency,avg_hops,generated,delivered,"
       "dropped,in_flight,drained,deadlock,cycles\n";
  char buf[512];
  for (auto& p : pts) {
    const Result& r = p.result;
    std::snprintf(buf, sizeof buf, "%.4f,%.5f,%.5f,%.2f,%.2f,%.2f,%.3f,%llu,%llu,%llu,%llu,%d,%d,%lld\n", p.load,
                  r.offered, r.accepted, r.avg_latency, r.p99_latency, r.avg_network_latency, r.avg_hops,
                  static_cast<unsigned long long>(r.generated), static_cast<unsigned long long>(r.delivered),
                  static_cast<unsigned long long>(r.dropped),
                  static_cast<unsigned long long>(r.in_network + r.in_source), r.drained ? 1 : 0,
                  r.deadlock.detected ? 1 : 0, static_cast<long long>(r.cycles));
    o << buf;
  }
  return o.str();
}


static double nice_step(double range) {
  double raw = range / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  double n = raw / mag;
  return (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * mag;
}

std::string sweep_svg(const std::vector<SweepPoint>& pts, const std::string& title) {
  const int W = 960, H = 440, pw = 380, ph = 300, top = 70;
  const int lx0 = 80, rx0 = 560;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << " " << H << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"13\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << W / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"17\" font-weight=\"bold\">" << xml_text(title)
    << "</text>\n";
  double xmax = 0, lmax = 0, amax = 0;
  for (auto& p : pts) {
    xmax = std::max(xmax, std::max(p.load, p.result.offered));
    if (!p.result.deadlock.detected && p.result.avg_latency > 0) lmax = std::max(lmax, p.result.p99_latency);
    amax = std::max(amax, p.result.accepted);
  }
  if (xmax <= 0) xmax = 1;
  if (lmax <= 0) lmax = 1;
  amax = std::max(amax, xmax);
  double xs = nice_step(xmax);
  xmax = std::ceil(xmax / xs - 1e-9) * xs;
  auto panel = [&](int x0, const std::string& ylabel, double ymax, auto yval, const char* color, auto yval2,
                   const char* color2, const char* name1, const char* name2) {
    double ys = nice_step(ymax);
    ymax = std::ceil(ymax / ys - 1e-9) * ys;
    auto X = [&](double v) { return x0 + v / xmax * pw; };
    auto Y = [&](double v) { return top + ph - v / ymax * ph; };
    o << "<rect x=\"" << x0 << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
      << "\" fill=\"none\" stroke=\"black\"/>\n";
    char b[256];
    for (double v = 0; v <= xmax + 1e-9; v += xs) {
      std::snprintf(b, sizeof b, "%g", std::round(v * 1000) / 1000);
      o << "<line x1=\"" << X(v) << "\" y1=\"" << top << "\" x2=\"" << X(v) << "\" y2=\"" << top + ph
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << X(v) << "\" y=\"" << top + ph + 18 << "\" text-anchor=\"middle\">" << b
        << "</text>\n";
    }
    for (double v = 0; v <= ymax + 1e-9; v += ys) {
      std::snprintf(b, sizeof b, "%g", std::round(v * 1000) / 1000);
      o << "<line x1=\"" << x0 << "\" y1=\"" << Y(v) << "\" x2=\"" << x0 + pw << "\" y2=\"" << Y(v)
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << x0 - 6 << "\" y=\"" << Y(v) + 4 << "\" text-anchor=\"end\">" << b
        << "</text>\n";
    }
    o << "<text x=\"" << x0 + pw / 2 << "\" y=\"" << top + ph + 40
      << "\" text-anchor=\"middle\">offered load (flits/node/cycle)</text>\n";
    o << "<text transform=\"translate(" << x0 - 52 << "," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << xml_text(ylabel) << "</text>\n";
    auto series = [&](auto fn, const char* col, bool dashed) {
      std::string d;
      for (auto& p : pts) {
        double v = fn(p);
        if (v < 0 || std::isnan(v)) continue;
        std::snprintf(b, sizeof b, "%s%.1f,%.1f", d.empty() ? "M" : " L", X(p.load), Y(std::min(v, ymax)));
        d += b;
        o << "<circle cx=\"" << X(p.load) << "\" cy=\"" << Y(std::min(v, ymax)) << "\" r=\"3\" fill=\"" << col
          << "\"/>\n";
      }
      if (!d.empty())
        o << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << col << "\" stroke-width=\"2\""
          << (dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n";
    };
    series(yval, color, false);
    series(yval2, color2, true);
    o << "<line x1=\"" << x0 + 12 << "\" y1=\"" << top + 14 << "\" x2=\"" << x0 + 36 << "\" y2=\"" << top + 14
      << "\" stroke=\"" << color << "\" stroke-width=\"2\"/><text x=\"" << x0 + 42 << "\" y=\"" << top + 18 << "\">"
      << name1 << "</text>\n";
    o << "<line x1=\"" << x0 + 12 << "\" y1=\"" << top + 32 << "\" x2=\"" << x0 + 36 << "\" y2=\"" << top + 32
      << "\" stroke=\"" << color2 << "\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/><text x=\"" << x0 + 42
      << "\" y=\"" << top + 36 << "\">" << name2 << "</text>\n";
  };
  auto bad = [](const SweepPoint& p) { return p.result.deadlock.detected || p.result.measured_delivered == 0; };
  panel(
      lx0, "latency (cycles)", lmax, [&](const SweepPoint& p) { return bad(p) ? -1.0 : p.result.avg_latency; },
      "#1f77b4", [&](const SweepPoint& p) { return bad(p) ? -1.0 : p.result.p99_latency; }, "#ff7f0e",
      "average latency", "p99 latency");
  panel(
      rx0, "accepted (flits/node/cycle)", amax, [&](const SweepPoint& p) { return p.result.accepted; }, "#2ca02c",
      [&](const SweepPoint& p) { return p.load; }, "#999999", "accepted throughput", "offered = accepted");
  int dl = 0;
  for (auto& p : pts) dl += p.result.deadlock.detected ? 1 : 0;
  if (dl)
    o << "<text x=\"" << W / 2 << "\" y=\"" << H - 8 << "\" text-anchor=\"middle\" fill=\"#c00\">" << dl
      << " load point(s) deadlocked (latency not plotted)</text>\n";
  o << "</svg>\n";
  return o.str();
}

std::string format_result(const Result& r) {
  std::ostringstream o;
  char b[512];
  std::snprintf(b, sizeof b,
                "cycles %lld, endpoints %d\n"
                "offered %.4f, accepted %.4f flits/node/cycle\n"
                "latency avg %.2f, p99 %.0f, max %.0f cycles (network %.2f), avg hops %.2f\n",
                static_cast<long long>(r.cycles), r.endpoints, r.offered, r.accepted, r.avg_latency, r.p99_latency,
                r.max_latency, r.avg_network_latency, r.avg_hops);
  o << b;
  o << "packets: generated " << r.generated << " = delivered " << r.delivered << " + dropped " << r.dropped
    << " + in network " << r.in_network << " + in source queues " << r.in_source << "\n";
  o << "measured: " << r.measured_packets << " packets, " << r.measured_delivered << " delivered, "
    << r.measured_dropped << " dropped" << (r.drained ? "" : " (NOT drained: saturated?)") << "\n";
  if (r.background_accepted >= 0) {
    std::snprintf(b, sizeof b, "background (sources that are not hot, to endpoints that are not hot): accepted %.4f, latency avg %.2f\n",
                  r.background_accepted, r.background_latency);
    o << b;
  }
  for (auto& [why, n] : r.drops) o << "  dropped " << n << ": " << why << "\n";
  if (r.escaped || r.escape_fallbacks)
    o << "escape paths: " << r.escaped << " packets re-addressed, " << r.escape_fallbacks
      << " without a usable escape LID (fallback)\n";
  if (r.nac_triggers)
    o << "NAC: " << r.nac_triggers << " triggers, " << r.nac_id_packets << " ID packets, " << r.nac_confirmed
      << " cycles confirmed, " << r.nac_recovery_moves << " recovery moves, " << r.nac_timeouts << " timeouts\n";
  if (r.nac_confirmed > 0) {
    std::snprintf(b, sizeof b, "NAC identification (trigger -> confirmed): mean %.1f cycles; first confirmed run triggered at cycle %lld\n",
                  static_cast<double>(r.nac_confirm_cycles) / static_cast<double>(r.nac_confirmed),
                  static_cast<long long>(r.nac_first_confirmed));
    o << b;
  }
  if (r.nac_recovered > 0) {
    std::snprintf(b, sizeof b, "NAC time (trigger -> recovery signal back at the origin): mean %.1f cycles over %llu runs\n",
                  static_cast<double>(r.nac_time_cycles) / static_cast<double>(r.nac_recovered),
                  static_cast<unsigned long long>(r.nac_recovered));
    o << b;
  }
  if (r.deadlock.detected) o << r.deadlock.text << "\n";
  return o.str();
}

}  // namespace ftroute::flitsim
