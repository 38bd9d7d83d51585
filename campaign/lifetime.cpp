// Fail-in-place lifetime schedule and case-study report (ftroute/campaign_lifetime.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "ftroute/campaign_lifetime.hpp"
#include "ftroute/campaign_regression.hpp"
#include "ftroute/error.hpp"
#include "ftroute/topology.hpp"

namespace ftroute::campaign {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The seed of one random stream of (seed, year): 0 = counts, 1 = which switches, 2 = which links.
uint64_t stream_seed(uint64_t seed, int year, int stream) {
  return splitmix64(seed ^ splitmix64(static_cast<uint64_t>(year) * 4 + static_cast<uint64_t>(stream)));
}

std::string fmt(const char* f, double v) {
  if (std::isnan(v)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Markdown-safe text of a name or message from the fabric or a log (no table breaks).
std::string md(std::string s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n' || c == '\r') o += ' ';
    else if (c == '`' || c == '*' || c == '_' || c == '<' || c == '>' || c == '[' || c == ']') o += std::string("\\") + c;
    else o += c;
  }
  return o;
}

}  // namespace

std::string year_level(int year) { return "y" + std::to_string(year); }

bool parse_year_level(const std::string& level, int* year) {
  if (level.size() < 2 || level[0] != 'y' || level.size() > 5) return false;
  int y = 0;
  for (size_t i = 1; i < level.size(); ++i) {
    if (level[i] < '0' || level[i] > '9') return false;
    y = y * 10 + (level[i] - '0');
  }
  if (year) *year = y;
  return true;
}

double parse_rate(const std::string& text, const std::string& what) {
  if (text.empty()) throw OptionError(what + ": empty rate");
  const bool pct = text.back() == '%';
  const std::string num = pct ? text.substr(0, text.size() - 1) : text;
  double v = 0;
  try {
    size_t pos = 0;
    v = std::stod(num, &pos);
    if (pos != num.size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw OptionError(what + ": bad rate '" + text + "' (e.g. 1% or 0.01)");
  }
  if (pct) v /= 100;
  if (!(v >= 0 && v <= 1)) throw OptionError(what + ": rate '" + text + "' outside 0..100 %");
  return v;
}

void set_lifetime(Config& cfg, const LifetimeArgs& a, bool case_study, bool failure_levels) {
  if (!case_study && !a.years) {
    if (a.link_rate || a.switch_rate || a.link_ratio || a.expected_counts)
      throw OptionError("--link-rate, --switch-rate, --link-ratio and --expected-counts need --years N (or --case-study)");
    return;
  }
  if (failure_levels)
    throw OptionError("--link-failures/--switch-failures and --years/--case-study exclude each other "
                      "(a lifetime draws its failures from --link-rate/--switch-rate)");
  if (a.link_rate && a.link_ratio) throw OptionError("give --link-rate or --link-ratio, not both");
  Lifetime& lt = cfg.lifetime;
  lt.years = 8;
  if (a.years) {
    char* end = nullptr;
    const long y = std::strtol(a.years->c_str(), &end, 10);
    if (a.years->empty() || *end || y < 1 || y > 100) throw OptionError("--years expects 1..100, got '" + *a.years + "'");
    lt.years = static_cast<int>(y);
  }
  lt.link_rate = parse_rate(a.link_rate.value_or("1%"), "--link-rate");
  lt.switch_rate = parse_rate(a.switch_rate.value_or("1%"), "--switch-rate");
  if (a.link_ratio) {
    char* end = nullptr;
    lt.links_per_switch = std::strtod(a.link_ratio->c_str(), &end);
    if (a.link_ratio->empty() || *end || !(lt.links_per_switch > 0) || !std::isfinite(lt.links_per_switch))
      throw OptionError("--link-ratio expects a number > 0 (link failures per switch failure), got '" + *a.link_ratio +
                        "'");
  }
  lt.expected_counts = a.expected_counts;
}

int lifetime_candidate_links(const Fabric& f, bool host_links) {
  return host_links ? f.num_links() : static_cast<int>(f.switch_links().size());
}

double effective_link_rate(const Lifetime& lt, int switches, int candidate_links) {
  if (lt.links_per_switch <= 0) return lt.link_rate;
  if (candidate_links <= 0) return 0;
  return std::min(1.0, lt.links_per_switch * lt.switch_rate * switches / candidate_links);
}

int bernoulli_count(std::mt19937_64& g, int n, double p) {
  int k = 0;
  for (int i = 0; i < n; ++i) {
    const double u = static_cast<double>(g() >> 11) * 0x1.0p-53;  // [0, 1), the same everywhere
    if (u < p) ++k;
  }
  return k;
}

Fabric fabric_in_year(const Fabric& intact, const Lifetime& lt, uint64_t seed, int year, bool keep_connected,
                      bool host_links, LifetimeFaults* faults) {
  if (year < 0) throw OptionError("lifetime: negative year");
  Fabric f = intact;
  LifetimeFaults out;
  const int s0 = static_cast<int>(intact.switches().size());
  const int l0 = lifetime_candidate_links(intact, host_links);
  const double link_rate = effective_link_rate(lt, s0, l0);
  int switches_so_far = 0, links_so_far = 0;
  for (int y = 1; y <= year; ++y) {
    std::mt19937_64 counts(stream_seed(seed, y, 0));
    YearFaults yf;
    yf.year = y;
    // Links first, among the links up at the start of the year, then switches: with
    // links_per_switch the expected link failures of a year are then exactly K x the expected
    // switch failures of the same populations (a failed switch's links cannot fail later).
    const int kl = lt.expected_counts ? static_cast<int>(std::lround(y * link_rate * l0)) - links_so_far
                                      : bernoulli_count(counts, lifetime_candidate_links(f, host_links), link_rate);
    if (kl > 0) {
      topo::FaultSpec fs;
      fs.random_links = kl;
      fs.seed = stream_seed(seed, y, 2);
      fs.keep_connected = keep_connected;
      fs.host_links = host_links;
      topo::FaultReport r = topo::inject_faults(f, fs);
      yf.links = r.links;
      yf.cas = r.hosts;
    }
    const int ks = lt.expected_counts ? static_cast<int>(std::lround(y * lt.switch_rate * s0)) - switches_so_far
                                      : bernoulli_count(counts, static_cast<int>(f.switches().size()), lt.switch_rate);
    if (ks > 0) {
      topo::FaultSpec fs;
      fs.random_switches = ks;
      fs.seed = stream_seed(seed, y, 1);
      fs.keep_connected = keep_connected;
      topo::FaultReport r = topo::inject_faults(f, fs);
      yf.switches = r.switches;
      yf.cas.insert(yf.cas.end(), r.hosts.begin(), r.hosts.end());
    }
    switches_so_far += static_cast<int>(yf.switches.size());
    links_so_far += static_cast<int>(yf.links.size());
    out.switches += static_cast<int>(yf.switches.size());
    out.links += static_cast<int>(yf.links.size());
    out.cas += static_cast<int>(yf.cas.size());
    out.years.push_back(std::move(yf));
  }
  if (faults) *faults = std::move(out);
  return f;
}

// ---------------- report ----------------

bool lifetime_valid(const RunResult& r) {
  return r.routing_ok() && r.deadlock_checked && r.bad_entries == 0 && !r.fallback;
}

std::vector<LifetimeEngine> lifetime_engines(const std::vector<RunResult>& rows, const std::vector<std::string>& order_in) {
  std::vector<std::string> order = order_in;
  for (const auto& r : rows)
    if (std::find(order.begin(), order.end(), r.key.engine) == order.end()) order.push_back(r.key.engine);
  int last_year = 0;
  for (const auto& r : rows) {
    int y = 0;
    if (parse_year_level(r.key.link_failures, &y)) last_year = std::max(last_year, y);
  }
  std::vector<LifetimeEngine> out;
  for (const auto& e : order) {
    LifetimeEngine le;
    le.engine = e;
    std::set<std::string> used;
    double thr = 0, efi = 0, y0 = 0, yl = 0;
    int nthr = 0, nvalid_efi = 0, ny0 = 0, nyl = 0;
    bool all_sim = true;
    for (const auto& r : rows) {
      int y = 0;
      if (r.key.engine != e || !parse_year_level(r.key.link_failures, &y)) continue;
      ++le.runs;
      if (r.status == "refused") ++le.refused;
      else if (r.status != "ok") ++le.failed;
      if (r.fallback) {
        ++le.fallback;
        used.insert(r.engine_used);
      }
      if (r.status == "ok" && !r.deadlock_checked) ++le.unchecked;
      if (r.status == "ok" && r.deadlock_checked && !r.cdg_acyclic) ++le.cycles;
      if ((r.status != "ok" || r.fallback) && le.refusal.empty() && !r.message.empty()) le.refusal = r.message;
      if (!lifetime_valid(r)) {
        if (le.first_invalid_year < 0 || y < le.first_invalid_year) le.first_invalid_year = y;
        continue;
      }
      ++le.valid;
      efi += double(r.efi_max);
      ++nvalid_efi;
      le.vls = std::max(le.vls, r.vls_used);
      if (!r.simulated) {
        all_sim = false;
        continue;
      }
      thr += r.sim_accepted;
      ++nthr;
      if (y == 0) y0 += r.sim_accepted, ++ny0;
      if (y == last_year) yl += r.sim_accepted, ++nyl;
    }
    if (le.runs == 0) continue;
    le.fallback_engines.assign(used.begin(), used.end());
    le.simulated = all_sim && nthr > 0;
    le.throughput = nthr ? thr / nthr : NAN;
    le.throughput_y0 = ny0 ? y0 / ny0 : NAN;
    le.throughput_last = nyl ? yl / nyl : NAN;
    le.efi_max = nvalid_efi ? efi / nvalid_efi : NAN;
    out.push_back(std::move(le));
  }
  return out;
}

LifetimeRecommendation recommend_lifetime(const std::vector<LifetimeEngine>& engines, int years) {
  LifetimeRecommendation rec;
  std::vector<const LifetimeEngine*> ok;
  for (const auto& e : engines)
    if (e.runs > 0 && e.valid == e.runs && e.first_invalid_year < 0) ok.push_back(&e);
  const bool by_throughput = !ok.empty() && std::all_of(ok.begin(), ok.end(), [](const LifetimeEngine* e) { return e->simulated; });
  auto better = [&](const LifetimeEngine* a, const LifetimeEngine* b) {  // a strictly better than b
    if (by_throughput) {
      if (a->throughput != b->throughput) return a->throughput > b->throughput;
      return a->throughput_last > b->throughput_last;
    }
    return a->efi_max < b->efi_max;
  };
  const LifetimeEngine* best = nullptr;
  const LifetimeEngine* second = nullptr;
  for (const LifetimeEngine* e : ok) {
    if (!best || better(e, best)) second = best, best = e;
    else if (!second || better(e, second)) second = e;
  }
  // why the others are out
  std::string others;
  for (const auto& e : engines) {
    if (std::find(ok.begin(), ok.end(), &e) != ok.end()) continue;
    std::string r;
    auto add = [&](const std::string& s) { r += (r.empty() ? "" : ", ") + s; };
    const std::string of = " of " + std::to_string(e.runs) + " runs";
    if (e.refused) add("refused " + std::to_string(e.refused) + of);
    if (e.failed) add("failed " + std::to_string(e.failed) + of);
    if (e.fallback) {
      std::string u;
      for (const auto& x : e.fallback_engines) u += (u.empty() ? "" : "+") + x;
      add("OpenSM fell back to " + md(u) + " in " + std::to_string(e.fallback) + of);
    }
    if (e.cycles) add("CDG cycle in " + std::to_string(e.cycles) + of);
    if (e.unchecked) add("CDG not checked in " + std::to_string(e.unchecked) + of);
    if (r.empty()) add("not valid in " + std::to_string(e.runs - e.valid) + of);
    if (e.first_invalid_year >= 0) r += ", from year " + std::to_string(e.first_invalid_year);
    if (e.valid > 0 && e.simulated)
      r += "; mean throughput " + fmt("%.4f", e.throughput) + " over its " + std::to_string(e.valid) + " valid runs";
    others += (others.empty() ? "" : "; ") + e.engine + " (" + r + ")";
  }
  const std::string span = "years 0-" + std::to_string(years);
  if (!best) {
    const LifetimeEngine* most = nullptr;
    for (const auto& e : engines)
      if (!most || e.valid * most->runs > most->valid * e.runs ||
          (e.valid * most->runs == most->valid * e.runs && e.first_invalid_year > most->first_invalid_year))
        most = &e;  // ties: the one that stayed valid longer
    rec.why = "No engine stays valid in every run of " + span + ".";
    if (most)
      rec.why += " The most often valid: " + most->engine + " (" + std::to_string(most->valid) + " of " +
                 std::to_string(most->runs) + " runs" +
                 (most->first_invalid_year >= 0 ? ", first invalid in year " + std::to_string(most->first_invalid_year) : "") +
                 ").";
    if (!others.empty()) rec.why += " Why: " + others + ".";
    return rec;
  }
  rec.engine = best->engine;
  std::ostringstream w;
  w << "**" << best->engine << "**: valid in " << best->valid << " of " << best->runs << " runs over " << span
    << " (every pair routed, no loop, CDG acyclic on " << best->vls << " VL" << (best->vls == 1 ? "" : "s") << ")";
  if (by_throughput) {
    w << ", mean throughput " << fmt("%.4f", best->throughput) << " flits/endpoint/cycle (year 0: "
      << fmt("%.4f", best->throughput_y0) << ", year " << years << ": " << fmt("%.4f", best->throughput_last);
    if (best->throughput_y0 > 0)
      w << ", " << fmt("%+.1f", 100 * (best->throughput_last / best->throughput_y0 - 1)) << " %";
    w << ")";
    if (second) {
      if (second->throughput > 0)
        w << ", " << fmt("%.1f", 100 * (best->throughput / second->throughput - 1)) << " % above " << second->engine
          << " (" << fmt("%.4f", second->throughput) << "), the next engine valid in every year"
          << (best->throughput < 1.01 * second->throughput ? " (within 1 %: practically a tie)" : "");
    } else {
      w << ", the only engine valid in every year";
    }
  } else {
    w << ", mean EFI max " << fmt("%.1f", best->efi_max) << " (no throughput simulated: the lowest EFI max wins)";
    if (second) w << " against " << fmt("%.1f", second->efi_max) << " for " << second->engine << ", the next valid engine";
    else w << ", the only engine valid in every year";
  }
  w << ".";
  if (!others.empty()) w << " Not chosen: " << others << ".";
  rec.why = w.str();
  return rec;
}

std::string lifetime_report(const std::vector<RunResult>& rows, const std::vector<std::string>& engines,
                            double link_gbytes) {
  std::vector<RunResult> life;
  for (const auto& r : rows)
    if (parse_year_level(r.key.link_failures, nullptr)) life.push_back(r);
  std::ostringstream o;
  if (life.empty()) {
    o << "no lifetime runs (run `ftroute campaign --years N` or `--case-study`)\n";
    return o.str();
  }
  std::vector<std::string> fabrics;
  for (const auto& r : life)
    if (std::find(fabrics.begin(), fabrics.end(), r.key.fabric) == fabrics.end()) fabrics.push_back(r.key.fabric);
  std::vector<std::string> order = engines;
  for (const auto& r : life)
    if (std::find(order.begin(), order.end(), r.key.engine) == order.end()) order.push_back(r.key.engine);
  for (const auto& fabric : fabrics) {
    std::vector<RunResult> fr;
    for (const auto& r : life)
      if (r.key.fabric == fabric) fr.push_back(r);
    int years = 0;
    std::set<int> seeds;
    for (const auto& r : fr) {
      int y = 0;
      parse_year_level(r.key.link_failures, &y);
      years = std::max(years, y);
      seeds.insert(r.key.seed);
    }
    o << "### " << md(fabric) << ": " << years << (years == 1 ? " year" : " years") << " in service, " << seeds.size() << " seed"
      << (seeds.size() == 1 ? "" : "s") << "\n\n";
    // failures of (year, seed): the same for every engine; from the first row that has them
    std::map<std::pair<int, int>, const RunResult*> fault_of;
    for (const auto& r : fr) {
      int y = 0;
      parse_year_level(r.key.link_failures, &y);
      auto k = std::make_pair(y, r.key.seed);
      if (!fault_of.count(k) && r.status != "error") fault_of[k] = &r;
    }
    auto range = [&](int y, int RunResult::*field) {
      double sum = 0;
      int n = 0, mn = 1 << 30, mx = -1;
      for (const auto& [k, r] : fault_of)
        if (k.first == y) sum += r->*field, ++n, mn = std::min(mn, r->*field), mx = std::max(mx, r->*field);
      if (!n) return std::string("-");
      std::string s = fmt("%.1f", sum / n);
      if (mn != mx) s += " (" + std::to_string(mn) + "-" + std::to_string(mx) + ")";
      return s;
    };
    o << "| year | failed switches | failed links | CAs lost | engine | valid | throughput | vs year 0 | EFI max | VLs "
         "| refused / fell back / not valid |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n";
    std::map<std::string, double> y0thr;
    for (int y = 0; y <= years; ++y) {
      bool first = true;
      for (const auto& e : order) {
        int n = 0, valid = 0, refused = 0, failed = 0, fb = 0, cycles = 0, unchecked = 0, nthr = 0, nok = 0, vls = 0;
        double thr = 0, efi = 0;
        std::set<std::string> used;
        for (const auto& r : fr) {
          int ry = 0;
          parse_year_level(r.key.link_failures, &ry);
          if (ry != y || r.key.engine != e) continue;
          ++n;
          if (r.status == "refused") ++refused;
          else if (r.status != "ok") ++failed;
          if (r.fallback) ++fb, used.insert(r.engine_used);
          if (r.status == "ok") {
            ++nok;
            efi += double(r.efi_max);
            if (r.deadlock_checked) vls = std::max(vls, r.vls_used);  // unchecked: the SLs are unknown
            if (!r.deadlock_checked) ++unchecked;
            else if (!r.cdg_acyclic) ++cycles;
          }
          if (lifetime_valid(r)) {
            ++valid;
            if (r.simulated) thr += r.sim_accepted, ++nthr;
          }
        }
        if (!n) continue;
        const double t = nthr ? thr / nthr : NAN;
        if (y == 0) y0thr[e] = t;
        std::string vs = "-";
        if (y > 0 && nthr && y0thr.count(e) && y0thr[e] > 0) vs = fmt("%+.1f", 100 * (t / y0thr[e] - 1)) + " %";
        std::string notes;
        auto add = [&](const std::string& s) { notes += (notes.empty() ? "" : ", ") + s; };
        if (refused) add(std::to_string(refused) + " refused");
        if (failed) add(std::to_string(failed) + " failed");
        if (fb) {
          std::string u;
          for (const auto& x : used) u += (u.empty() ? "" : "+") + x;
          add(std::to_string(fb) + " fell back → " + md(u));
        }
        if (cycles) add(std::to_string(cycles) + " CDG cycle");
        if (unchecked) add(std::to_string(unchecked) + " CDG not checked");
        o << "| " << (first ? std::to_string(y) : "") << " | " << (first ? range(y, &RunResult::switches_removed) : "")
          << " | " << (first ? range(y, &RunResult::links_removed) : "") << " | "
          << (first ? range(y, &RunResult::hosts_removed) : "") << " | " << e << " | " << valid << "/" << n << " | "
          << fmt("%.4f", t) << " | " << vs << " | " << (nok ? fmt("%.0f", efi / nok) : "-") << " | "
          << (!nok ? "-" : unchecked == nok ? "?" : std::to_string(vls)) << " | " << (notes.empty() ? "-" : notes) << " |\n";
        first = false;
      }
    }
    o << "\n";
    const auto le = lifetime_engines(fr, order);
    const auto rec = recommend_lifetime(le, years);
    o << "**Recommendation for " << md(fabric) << ":** "
      << (rec.engine.empty() ? "none. " : "run ") << rec.why << "\n\n";
  }
  o << "* failed switches / links / CAs lost: cumulative over the years (nothing repaired), mean over the seeds "
       "(range); CAs lost = hosts and aggregation nodes that hung off a failed switch. Every engine sees the same "
       "faulty fabric for a seed and year.\n"
       "* valid: runs where every CA reaches every CA and switch LID, with no loop, no LFT entry on a dead port, a "
       "channel dependency graph over (link, VL) checked acyclic, and (OpenSM) the engine asked for, not a "
       "fallback. throughput: mean over the valid runs (flitsim, flits per endpoint per cycle; a lifetime campaign "
       "simulates the valid runs only); vs year 0: change against the same engine's year 0. EFI max: mean over the "
       "runs that routed (valid or not); VLs: most VLs a routed run uses (? = its path SLs, hence its VLs, unknown: "
       "CDG not checked).\n"
       "* recommendation: among the engines valid in every run of every year, the highest mean throughput over "
       "the lifetime (without simulation: the lowest EFI max).\n\n";
  o << "#### Regression (seed 003 §V-B..D, `campaign-table --regression`)\n\n" << regression_table(life, order, link_gbytes);
  return o.str();
}

}  // namespace ftroute::campaign
