#include "ftroute/kns/kns_model.hpp"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace ftroute::kns {

Model::Model(int k_, int n_) : k(k_), n(n_) {
  K = 1;
  for (int i = 0; i < n; i++) K *= k;
  lines = K / k;
  link_bad.assign(static_cast<size_t>(K * n), 0);
  xbar_dead.assign(static_cast<size_t>(n * lines), 0);
}

int Model::coord(long R, int d) const {
  for (int i = 0; i < d; i++) R /= k;
  return static_cast<int>(R % k);
}

long Model::with_coord(long R, int d, int v) const {
  long w = 1;
  for (int i = 0; i < d; i++) w *= k;
  return R + (v - (R / w) % k) * w;
}

long Model::line(long R, int d) const {
  long w = 1;
  for (int i = 0; i < d; i++) w *= k;
  // remove digit d: low part + high part shifted down one digit
  return R % w + (R / (w * k)) * w;
}

int Model::diff(long X, long Y) const {
  int c = 0;
  for (int j = 0; j < n; j++, X /= k, Y /= k) c += (X % k) != (Y % k);
  return c;
}

bool Model::dor_ok(long X, long Y) const {
  long cur = X;
  for (int j = 0; j < n; j++) {
    int yj = coord(Y, j);
    if (coord(cur, j) == yj) continue;
    long nxt = with_coord(cur, j, yj);
    if (!up(cur, j) || !up(nxt, j)) return false;
    cur = nxt;
  }
  return true;
}

namespace {

// Router of line `ln` of dimension d with coordinate d = 0.
long line_base(const Model& m, int d, long ln) {
  long base = 0, w = 1, rest = ln;
  for (int i = 0; i < m.n; i++) {
    if (i == d) {
      w *= m.k;
      continue;
    }
    base += (rest % m.k) * w;
    rest /= m.k;
    w *= m.k;
  }
  return base;
}

}  // namespace

Tree build_tree(const Model& m, long dest, int last_dim) {
  // rank of a dimension in the order used to count restarts (n = "deliver", after everything)
  auto rank = [&](int d) {
    if (last_dim < 0 || d >= m.n) return d;
    if (d == last_dim) return m.n - 1;
    return d < last_dim ? d : d - 1;
  };
  const long N = m.num_nodes();
  Tree t;
  t.succ.assign(static_cast<size_t>(N), -1);
  t.restarts.assign(static_cast<size_t>(N), 0);
  t.hops.assign(static_cast<size_t>(N), 0);
  std::vector<char> done(static_cast<size_t>(N), 0);
  // key: restarts (high) | hops | tie-break. Routers prefer, among equal labels, the HIGHER
  // first dimension (fewer restarts for the routers that feed them); crossbars the exit found
  // first (lowest coordinate, deterministic).
  auto rkey = [](uint64_t rs, uint64_t h, uint64_t tie) { return (rs << 40) | (h << 16) | tie; };
  std::vector<uint64_t> key(static_cast<size_t>(N), UINT64_MAX);
  using QE = std::pair<uint64_t, long>;
  std::priority_queue<QE, std::vector<QE>, std::greater<QE>> pq;
  auto offer = [&](long v, uint64_t rs, uint64_t h, uint64_t tie, int succ) {
    uint64_t kk = rkey(rs, h, tie);
    if (done[static_cast<size_t>(v)] || kk >= key[static_cast<size_t>(v)]) return;
    key[static_cast<size_t>(v)] = kk;
    t.succ[static_cast<size_t>(v)] = static_cast<int16_t>(succ);
    t.restarts[static_cast<size_t>(v)] = static_cast<uint8_t>(std::min<uint64_t>(rs, 255));
    t.hops[static_cast<size_t>(v)] = static_cast<uint16_t>(h);
    pq.push({kk, v});
  };
  if (dest < m.K) {
    offer(dest, 0, 0, 0, m.n);
  } else {
    long x = dest - m.K;
    if (m.xbar_dead[static_cast<size_t>(x)]) return t;
    offer(dest, 0, 0, 0, m.k);
  }
  while (!pq.empty()) {
    auto [kk, v] = pq.top();
    pq.pop();
    if (done[static_cast<size_t>(v)] || kk != key[static_cast<size_t>(v)]) continue;
    done[static_cast<size_t>(v)] = 1;
    const uint64_t rs = t.restarts[static_cast<size_t>(v)], h = t.hops[static_cast<size_t>(v)];
    if (v < m.K) {
      const int f = t.succ[static_cast<size_t>(v)];  // first dimension of v's path (n = none)
      for (int d = 0; d < m.n; d++) {
        if (!m.up(v, d)) continue;
        long x = m.xbar_id(d, m.line(v, d));
        offer(x, rs + (rank(f) <= rank(d) ? 1 : 0), h + 1, 0, m.coord(v, d));
      }
    } else {
      long x = v - m.K;
      int d = static_cast<int>(x / m.lines);
      long ln = x % m.lines;
      const long base = line_base(m, d, ln);
      for (int c = 0; c < m.k; c++) {
        long R = m.with_coord(base, d, c);
        if (!m.up(R, d)) continue;
        offer(R, rs, h + 1, static_cast<uint64_t>(255 - rank(d)), d);
      }
    }
  }
  return t;
}

namespace {

struct Bits {
  std::vector<uint64_t> w;
  explicit Bits(long n = 0) : w(static_cast<size_t>((n + 63) / 64), 0) {}
  void set(long i) { w[static_cast<size_t>(i >> 6)] |= 1ULL << (i & 63); }
  bool intersects(const Bits& o) const {
    for (size_t i = 0; i < w.size(); i++)
      if (w[i] & o.w[i]) return true;
    return false;
  }
  void or_with(const Bits& o) {
    for (size_t i = 0; i < w.size(); i++) w[i] |= o.w[i];
  }
};

}  // namespace

// Ordered router pairs (S, D) whose Hybrid-DOR path uses the dimension-d link of router R:
// at the dimension-d step the packet is at <D_0..D_{d-1}, S_d..S_{n-1}> and moves to the router
// with coordinate d = D_d; the link is used when R is either end (spec §3.2).
static void pairs_using_link(const Model& m, long R, int d, std::vector<std::pair<long, long>>& out) {
  long wd = 1;
  for (int i = 0; i < d; i++) wd *= m.k;
  const long low = wd, high = m.K / (wd * m.k);  // combinations of dims < d and > d
  const int rd = m.coord(R, d);
  const long Rlow = R % wd, Rhigh = R / (wd * m.k);
  for (long a = 0; a < low; a++)        // free low digits
    for (long b = 0; b < high; b++)     // free high digits
      for (int v = 0; v < m.k; v++) {
        if (v == rd) continue;
        // R = current router: S = <a (low), rd, Rhigh>, D = <Rlow, v, b>
        out.push_back({a + rd * wd + Rhigh * wd * m.k, Rlow + v * wd + b * wd * m.k});
        // R = next router: S = <a, v, Rhigh>, D = <Rlow, rd, b>
        out.push_back({a + v * wd + Rhigh * wd * m.k, Rlow + rd * wd + b * wd * m.k});
      }
}

std::vector<std::pair<long, long>> faulty_dor_pairs(const Model& m) {
  std::vector<std::pair<long, long>> bad;
  for (long R = 0; R < m.K; R++)
    for (int d = 0; d < m.n; d++)
      if (!m.up(R, d)) pairs_using_link(m, R, d, bad);
  std::sort(bad.begin(), bad.end());
  bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
  return bad;
}

std::optional<std::vector<long>> thesis_ins(const Model& m, long S, long D, int max_in, InTies ties,
                                            std::mt19937_64& rng, InLength length) {
  if (S == D || m.dor_ok(S, D)) return std::vector<long>{};
  const int minimal = m.diff(S, D);
  // A path's rank, lower is better: (hops, INs) for Shortest; (0 if minimal else 1, INs) for
  // MinimalFirst. Both grow with the hops, so a lower bound on the hops bounds the rank.
  auto rank = [&](int hops, int ins) {
    return std::pair(length == InLength::Shortest ? hops : (hops > minimal ? 1 : 0), ins);
  };
  std::pair<int, int> best{1 << 30, 9};  // the rank of the best path so far
  std::vector<long> pick;       // its INs
  long equal = 0;               // paths found with the best rank (Random: reservoir)
  auto offer = [&](std::pair<int, int> r, std::vector<long>&& ins) {
    if (r < best) {
      best = r, pick = std::move(ins), equal = 1;
    } else if (r == best) {
      equal++;
      if (ties == InTies::Random && std::uniform_int_distribution<long>(0, equal - 1)(rng) == 0) pick = std::move(ins);
    }
  };
  std::vector<long> from_s;     // routers reachable from S by one fault-free DOR leg
  for (long I = 0; I < m.K; I++)
    if (I != S && m.dor_ok(S, I)) from_s.push_back(I);
  if (max_in >= 1)
    for (long I : from_s)
      if (I != D && m.dor_ok(I, D)) offer(rank(m.diff(S, I) + m.diff(I, D), 1), {I});
  if (max_in >= 2 && best > rank(minimal, 2)) {  // a minimal path with two INs beats a longer one with one
    std::vector<long> to_d;
    for (long I = 0; I < m.K; I++)
      if (I != D && m.dor_ok(I, D)) to_d.push_back(I);
    for (long I1 : from_s) {
      const int h1 = m.diff(S, I1);
      if (rank(h1 + m.diff(I1, D), 2) > best) continue;  // legs I1 -> I2 -> D cross at least diff(I1, D)
      for (long I2 : to_d) {
        if (I2 == I1 || I2 == S) continue;
        const auto r = rank(h1 + m.diff(I1, I2) + m.diff(I2, D), 2);
        if (r > best) continue;  // (offer() would refuse it too)
        if (m.dor_ok(I1, I2)) offer(r, {I1, I2});
      }
    }
  }
  if (pick.empty()) return std::nullopt;
  return pick;
}

Tolerance thesis_tolerance(const Model& m, int max_in, bool stop_early) {
  const long K = m.K;
  const std::vector<std::pair<long, long>> bad = faulty_dor_pairs(m);
  std::vector<Bits> trs(static_cast<size_t>(K), Bits(K)), td(static_cast<size_t>(K), Bits(K));
  for (long i = 0; i < K; i++) {
    std::fill(trs[static_cast<size_t>(i)].w.begin(), trs[static_cast<size_t>(i)].w.end(), ~0ULL);
    std::fill(td[static_cast<size_t>(i)].w.begin(), td[static_cast<size_t>(i)].w.end(), ~0ULL);
  }
  auto clear = [](Bits& b, long i) { b.w[static_cast<size_t>(i >> 6)] &= ~(1ULL << (i & 63)); };
  for (long i = K; i < static_cast<long>(trs[0].w.size()) * 64; i++)
    for (long j = 0; j < K; j++) clear(trs[static_cast<size_t>(j)], i), clear(td[static_cast<size_t>(j)], i);
  for (auto [S, D] : bad) clear(trs[static_cast<size_t>(S)], D), clear(td[static_cast<size_t>(D)], S);
  auto ok = [&](long S, long D) { return (trs[static_cast<size_t>(S)].w[static_cast<size_t>(D >> 6)] >> (D & 63)) & 1; };
  Tolerance r;
  r.pairs = K * (K - 1);
  r.dor = r.pairs - static_cast<long>(bad.size());
  std::vector<Bits> td1(static_cast<size_t>(K));
  std::vector<char> td1_built(static_cast<size_t>(K), 0);
  for (auto [S, D] : bad) {
    if (max_in >= 1 && trs[static_cast<size_t>(S)].intersects(td[static_cast<size_t>(D)])) {
      r.in1++;
      continue;
    }
    if (max_in >= 2) {
      if (!td1_built[static_cast<size_t>(D)]) {
        td1[static_cast<size_t>(D)] = Bits(K);
        for (long Y = 0; Y < K; Y++)
          if (ok(Y, D)) td1[static_cast<size_t>(D)].or_with(td[static_cast<size_t>(Y)]);
        td1_built[static_cast<size_t>(D)] = 1;
      }
      if (trs[static_cast<size_t>(S)].intersects(td1[static_cast<size_t>(D)])) {
        r.in2++;
        continue;
      }
    }
    r.failed++;
    if (stop_early) return r;
  }
  return r;
}

namespace {

// Recounts restarts/hops of every node's path in t (routers as sources arriving from their host,
// crossbars arriving on their dimension); 255 restarts = the walk does not reach the destination.
void recount(const Model& m, Tree& t) {
  const long N = m.num_nodes();
  for (long v = 0; v < N; v++) {
    if (t.succ[static_cast<size_t>(v)] < 0) continue;
    long cur = v;
    int a = v < m.K ? -1 : static_cast<int>((v - m.K) / m.lines);
    int rs = 0, h = 0;
    bool ok = false;
    for (long guard = 0; guard < 4 * N; guard++) {
      const int s = t.succ[static_cast<size_t>(cur)];
      if (s < 0) break;
      if (cur < m.K) {
        if (s >= m.n) {
          ok = true;
          break;
        }
        if (a >= 0 && s <= a) rs++;
        cur = m.xbar_id(s, m.line(cur, s));
        a = s;
      } else {
        if (s >= m.k) {
          ok = true;
          break;
        }
        const int d = static_cast<int>((cur - m.K) / m.lines);
        cur = m.with_coord(line_base(m, d, (cur - m.K) % m.lines), d, s);
      }
      h++;
    }
    t.restarts[static_cast<size_t>(v)] = static_cast<uint8_t>(ok ? std::min(rs, 254) : 255);
    t.hops[static_cast<size_t>(v)] = static_cast<uint16_t>(h);
  }
}

// Best path from source router S to router dest in the (router, arrival dimension) state graph,
// where pinned nodes must keep t.succ. Pins it into t and returns true when it needs at most
// max_in restarts and visits no node twice with different next hops.
bool pin_best_path(const Model& m, Tree& t, std::vector<char>& pinned, long dest, long S, int max_in) {
  const int n = m.n;
  const long RS = m.K * (n + 1);                 // router states (R, a), a = -1..n-1
  const long NS = RS + n * m.lines;              // + crossbar states
  auto rstate = [&](long R, int a) { return R * (n + 1) + (a + 1); };
  std::vector<uint64_t> dist(static_cast<size_t>(NS), UINT64_MAX);
  std::vector<int16_t> nxt(static_cast<size_t>(NS), -1);
  std::vector<char> done(static_cast<size_t>(NS), 0);
  using QE = std::pair<uint64_t, long>;
  std::priority_queue<QE, std::vector<QE>, std::greater<QE>> pq;
  auto offer = [&](long st, uint64_t dd, int nx) {
    if (done[static_cast<size_t>(st)] || dd >= dist[static_cast<size_t>(st)]) return;
    dist[static_cast<size_t>(st)] = dd;
    nxt[static_cast<size_t>(st)] = static_cast<int16_t>(nx);
    pq.push({dd, st});
  };
  for (int a = -1; a < n; a++) offer(rstate(dest, a), 0, n);
  const long goal = rstate(S, -1);
  while (!pq.empty()) {
    auto [dd, u] = pq.top();
    pq.pop();
    if (done[static_cast<size_t>(u)] || dd != dist[static_cast<size_t>(u)]) continue;
    done[static_cast<size_t>(u)] = 1;
    if (u == goal) break;
    if (u < RS) {
      const long R = u / (n + 1);
      const int a = static_cast<int>(u % (n + 1)) - 1;
      if (a < 0 || !m.up(R, a)) continue;  // from the host: a source state, no predecessor
      const long x = m.xbar_id(a, m.line(R, a));
      const int c = m.coord(R, a);
      if (pinned[static_cast<size_t>(x)] && t.succ[static_cast<size_t>(x)] != c) continue;
      offer(RS + (x - m.K), dd + 1, c);
    } else {
      const long xi = u - RS;
      const int d = static_cast<int>(xi / m.lines);
      const long base = line_base(m, d, xi % m.lines);
      for (int c = 0; c < m.k; c++) {
        const long R = m.with_coord(base, d, c);
        if (R == dest || !m.up(R, d)) continue;
        if (pinned[static_cast<size_t>(R)] && t.succ[static_cast<size_t>(R)] != d) continue;
        for (int a = -1; a < n; a++) {
          if (a == d) continue;  // back into the crossbar it came from
          offer(rstate(R, a), dd + 1 + (a >= 0 && d <= a ? (1ULL << 32) : 0), d);
        }
      }
    }
  }
  if (dist[static_cast<size_t>(goal)] == UINT64_MAX || static_cast<int>(dist[static_cast<size_t>(goal)] >> 32) > max_in)
    return false;
  // Walk the path forward and collect the pins; reject a node visited with two next hops.
  std::vector<std::pair<long, int>> pins;
  std::unordered_map<long, int> seen;
  long R = S;
  int a = -1;
  for (int guard = 0; guard < 4 * m.K && R != dest; guard++) {
    const int f = nxt[static_cast<size_t>(rstate(R, a))];
    const long x = m.xbar_id(f, m.line(R, f));
    const int c = nxt[static_cast<size_t>(RS + (x - m.K))];
    for (auto [node, s] : {std::pair<long, int>{R, f}, std::pair<long, int>{x, c}}) {
      auto [it, fresh] = seen.emplace(node, s);
      if (!fresh && it->second != s) return false;
      pins.push_back({node, s});
    }
    R = m.with_coord(R, f, c);
    a = f;
  }
  if (R != dest) return false;
  for (auto [node, s] : pins) {
    t.succ[static_cast<size_t>(node)] = static_cast<int16_t>(s);
    pinned[static_cast<size_t>(node)] = 1;
  }
  return true;
}

}  // namespace

LidTrees build_lid_trees(const Model& m, long dest, int max_in, int num_trees) {
  LidTrees lt;
  lt.trees.push_back(build_tree(m, dest));
  const Tree& t0 = lt.trees[0];
  std::vector<long> need;
  for (long R = 0; R < m.K; R++)
    if (R != dest && t0.succ[static_cast<size_t>(R)] >= 0 && t0.restarts[static_cast<size_t>(R)] > max_in) need.push_back(R);
  for (int j = 1; j < num_trees && !need.empty(); j++) {
    Tree t = t0;
    std::vector<char> pinned(static_cast<size_t>(m.num_nodes()), 0);
    pinned[static_cast<size_t>(dest)] = 1;
    std::vector<long> rest;
    for (long S : need)
      if (!pin_best_path(m, t, pinned, dest, S, max_in)) rest.push_back(S);
    if (rest.size() == need.size()) break;  // this tree could hold none: more trees will not help
    recount(m, t);
    lt.trees.push_back(std::move(t));
    need.swap(rest);
  }
  lt.choice.assign(static_cast<size_t>(m.K), 0);
  lt.best.assign(static_cast<size_t>(m.K), 255);
  for (size_t j = 0; j < lt.trees.size(); j++)
    for (long R = 0; R < m.K; R++) {
      const Tree& t = lt.trees[j];
      const uint8_t rs = t.succ[static_cast<size_t>(R)] < 0 ? 255 : t.restarts[static_cast<size_t>(R)];
      if (rs < lt.best[static_cast<size_t>(R)]) lt.best[static_cast<size_t>(R)] = rs, lt.choice[static_cast<size_t>(R)] = static_cast<uint8_t>(j);
    }
  return lt;
}

Tolerance tree_tolerance(const Model& m, int max_in, bool stop_early, int num_trees) {
  Tolerance r;
  for (long D = 0; D < m.K; D++) {
    LidTrees lt;
    if (num_trees > 1) {
      lt = build_lid_trees(m, D, max_in, num_trees);
    } else {
      lt.trees.push_back(build_tree(m, D));
      lt.best.resize(static_cast<size_t>(m.K));
      for (long S = 0; S < m.K; S++)
        lt.best[static_cast<size_t>(S)] = lt.trees[0].succ[static_cast<size_t>(S)] < 0 ? 255 : lt.trees[0].restarts[static_cast<size_t>(S)];
    }
    for (long S = 0; S < m.K; S++) {
      if (S == D) continue;
      r.pairs++;
      const int rs = lt.best[static_cast<size_t>(S)];
      if (rs > max_in) {
        r.failed++;
        if (stop_early) return r;
        continue;
      }
      if (rs == 0) r.dor++;
      else if (rs == 1) r.in1++;
      else r.in2++;
    }
  }
  return r;
}

void random_link_faults(Model& m, int faults, std::mt19937_64& rng) {
  std::fill(m.link_bad.begin(), m.link_bad.end(), 0);
  std::fill(m.xbar_dead.begin(), m.xbar_dead.end(), 0);
  const long pop = m.K * m.n;
  std::uniform_int_distribution<long> pick(0, pop - 1);
  int placed = 0;
  while (placed < faults && placed < pop) {
    long l = pick(rng);
    if (m.link_bad[static_cast<size_t>(l)]) continue;
    m.link_bad[static_cast<size_t>(l)] = 1;
    placed++;
  }
}

int xordet_class(uint64_t id, int nbits, int classes) {
  int l = 0;
  while ((1 << l) < classes) l++;
  if (l == 0) return 0;
  int out = 0;
  for (int i = 0; i < nbits; i++) out ^= static_cast<int>((id >> i) & 1) << (i % l);
  return out;
}

}  // namespace ftroute::kns
