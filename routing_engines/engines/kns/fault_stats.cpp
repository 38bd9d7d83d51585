// KNS fault statistics (seed 002, thesis §5.5.2 and Table 6.1; `ftroute kns-faults`).
#include "ftroute/kns/fault_stats.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace ftroute::kns {

Draw parse_draw(const std::string& s) {
  if (s == "distinct") return Draw::distinct;
  if (s == "replace") return Draw::replace;
  if (s == "no-isolated") return Draw::no_isolated;
  if (s == "no-double") return Draw::no_double;
  if (s == "router-count") return Draw::router_count;
  throw std::invalid_argument("fault draw must be distinct, replace, no-isolated, no-double or router-count: " + s);
}

const char* draw_name(Draw d) {
  switch (d) {
    case Draw::distinct: return "distinct";
    case Draw::replace: return "replace";
    case Draw::no_isolated: return "no-isolated";
    case Draw::no_double: return "no-double";
    case Draw::router_count: return "router-count";
  }
  return "?";
}

namespace {
int most_failed_links_of_a_router(const Model& m) {
  int worst = 0;
  for (long R = 0; R < m.K; R++) {
    int b = 0;
    for (int d = 0; d < m.n; d++) b += m.link_bad[static_cast<size_t>(R * m.n + d)];
    worst = std::max(worst, b);
  }
  return worst;
}
}  // namespace

long draw_link_faults(Model& m, int faults, Draw draw, std::mt19937_64& rng, bool* router_hit_n_times) {
  if (router_hit_n_times) *router_hit_n_times = false;
  if (draw == Draw::replace || draw == Draw::router_count) {
    std::fill(m.link_bad.begin(), m.link_bad.end(), 0);
    std::fill(m.xbar_dead.begin(), m.xbar_dead.end(), 0);
    std::uniform_int_distribution<long> pick(0, m.K * m.n - 1);
    std::vector<int> hits(static_cast<size_t>(m.K), 0);  // draws per router (links R * n .. R * n + n - 1)
    for (int i = 0; i < faults; i++) {
      const long l = pick(rng);
      m.link_bad[static_cast<size_t>(l)] = 1;
      if (++hits[static_cast<size_t>(l / m.n)] >= m.n && router_hit_n_times) *router_hit_n_times = true;
    }
    return 0;
  }
  const int limit = draw == Draw::no_double ? 1 : draw == Draw::no_isolated ? m.n - 1 : m.n;
  if (draw == Draw::no_double && faults > m.K)
    throw std::invalid_argument("no-double: more faults than routers, no such set exists");
  for (long rejected = 0;; rejected++) {
    random_link_faults(m, faults, rng);
    if (draw == Draw::distinct || most_failed_links_of_a_router(m) <= limit) return rejected;
    if (rejected > 100000000) throw std::runtime_error("fault draw: no acceptable set found in 1e8 tries");
  }
}

FaultStats fault_stats(Model& m, int faults, int max_in, long samples, long tree_samples, int lmc, uint64_t seed,
                       Draw draw) {
  std::mt19937_64 rng(seed + static_cast<uint64_t>(faults) * 1000003u);
  long ok = 0, tok = 0, tree_only_fail = 0, lok = 0, fail_two_bad = 0;
  double p1 = 0, p2 = 0;
  long redrawn = 0, count_isolated = 0;
  for (long s = 0; s < samples; s++) {
    bool hit_n = false;
    redrawn += draw_link_faults(m, faults, draw, rng, &hit_n);
    kns::Tolerance t = kns::thesis_tolerance(m, max_in);
    const bool counted_off = draw == Draw::router_count && hit_n && t.tolerated();  // a router counted as cut off
    count_isolated += counted_off;
    const bool tol = t.tolerated() && !counted_off;
    ok += tol;
    if (!t.tolerated())  // does the set contain a router with at least two failed links?
      fail_two_bad += most_failed_links_of_a_router(m) >= 2;
    p1 += static_cast<double>(t.in1) / static_cast<double>(t.pairs);
    p2 += static_cast<double>(t.in2) / static_cast<double>(t.pairs);
    if (s < tree_samples) {  // same fault set under the engine's destination trees
      // trees serve a subset of what the thesis criterion serves (KnsFaults tests), and the
      // LMC trees include the base tree: check only what can change
      bool tt = tol && kns::tree_tolerance(m, max_in, true).tolerated();
      bool lt = tt || (tol && lmc > 0 && kns::tree_tolerance(m, max_in, true, 1 << lmc).tolerated());
      tok += tt;
      lok += lt;
      tree_only_fail += tol && !lt;
    }
  }
  FaultStats st;
  st.ok = ok, st.tree_ok = tok, st.lmc_ok = lok, st.tree_only_fail = tree_only_fail, st.fail_two_bad = fail_two_bad;
  st.p1 = p1, st.p2 = p2;
  st.redrawn = redrawn, st.count_isolated = count_isolated;
  return st;
}

}  // namespace ftroute::kns
