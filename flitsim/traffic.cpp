// flitsim traffic: patterns (permutations, hotspots, tornado) and trace files.
#include "sim_impl.hpp"

#include <algorithm>

#include "ftroute/input_file.hpp"

namespace ftroute::flitsim {

void Simulator::Impl::setup_traffic() {
  int N = static_cast<int>(eps.size());
  const std::string& p = tr.pattern;
  perm.assign(static_cast<size_t>(N), -1);
  int b = 0;
  while ((1 << b) < N) b++;
  auto need_pow2 = [&] {
    if (!pow2(N))
      throw OptionError("traffic pattern '" + p + "' needs a power-of-two number of endpoints (have " +
                        std::to_string(N) + ")");
  };
  if (p == "uniform" || p == "hotspot" || p == "trace") {
  } else if (p == "bitrev" || p == "bit-reversal") {
    need_pow2();
    for (int s = 0; s < N; s++) {
      int d = 0;
      for (int i = 0; i < b; i++)
        if (s & (1 << i)) d |= 1 << (b - 1 - i);
      perm[s] = d;
    }
  } else if (p == "shuffle" || p == "perfect-shuffle") {
    need_pow2();
    for (int s = 0; s < N; s++) perm[s] = b ? ((s << 1) | (s >> (b - 1))) & (N - 1) : s;
  } else if (p == "butterfly") {
    need_pow2();
    for (int s = 0; s < N; s++) {
      int lo = s & 1, hi = (s >> (b - 1)) & 1;
      int d = s & ~1 & ~(1 << (b - 1));
      perm[s] = d | hi | (lo << (b - 1));
    }
  } else if (p == "transpose") {
    need_pow2();
    if (b % 2) throw OptionError("transpose needs an even number of address bits (endpoints = 4^k)");
    int h = b / 2;
    for (int s = 0; s < N; s++) perm[s] = ((s << h) | (s >> h)) & (N - 1);
  } else if (p == "complement") {
    need_pow2();
    for (int s = 0; s < N; s++) perm[s] = ~s & (N - 1);
  } else if (p == "randperm") {  // a random permutation drawn from the run's seed (every shard the same)
    if (N < 2) throw OptionError("traffic pattern 'randperm' needs at least 2 endpoints");
    Rng pick(cfg.seed * 0xa0761d6478bd642fULL + 0xe7037ed1a0b428dbULL);
    for (bool fixed = true; fixed;) {  // uniform over the derangements: redrawn while one sends to itself
      for (int i = 0; i < N; i++) perm[static_cast<size_t>(i)] = i;
      for (size_t i = perm.size(); i > 1; i--) std::swap(perm[i - 1], perm[static_cast<size_t>(pick.below(i))]);
      fixed = false;
      for (int i = 0; i < N; i++) fixed = fixed || perm[static_cast<size_t>(i)] == i;
    }
  } else if (p == "tornado") {
    std::vector<int> dims = tr.dims.empty() ? std::vector<int>{N} : tr.dims;
    long prod = 1;
    for (int k : dims) prod *= k;
    if (prod != N)
      throw OptionError("tornado: dims multiply to " + std::to_string(prod) + ", but there are " +
                        std::to_string(N) + " endpoints");
    for (int s = 0; s < N; s++) {
      int rem = s, d = 0, mul = 1;
      for (int k : dims) {
        int c = rem % k;
        rem /= k;
        d += ((c + (k + 1) / 2 - 1) % k) * mul;
        mul *= k;
      }
      perm[s] = d;
    }
  } else {
    throw OptionError("unknown traffic pattern '" + escape_name(p) + "' (known: " + known_patterns_text() + ")");
  }
  for (int h : tr.hotspots)
    if (h < 0 || h >= N) throw OptionError("hotspot endpoint " + std::to_string(h) + " out of range");
  if (p == "trace") load_trace();
  pkt_prob = tr.load / cfg.packet_flits;
  hot_src.clear(), hot_ep.clear();
  if (tr.hot_sources != 0) {
    if (p != "hotspot") throw OptionError("hot sources need the hotspot pattern");
    if (!(tr.hot_sources > 0 && tr.hot_sources < 1))
      throw OptionError("hot sources: the share of endpoints must be in (0, 1), not " + std::to_string(tr.hot_sources));
    const double hl = tr.hot_load < 0 ? tr.load : tr.hot_load;
    if (!(hl >= 0 && hl <= 1.0)) throw OptionError("hot load " + std::to_string(hl) + " out of range 0..1");
    hot_prob = hl / cfg.packet_flits;
    hot_ep.assign(static_cast<size_t>(N), 0);
    for (int h : tr.hotspots.empty() ? std::vector<int>{0} : tr.hotspots) hot_ep[static_cast<size_t>(h)] = 1;
    // the hot sources: a share of the other endpoints, drawn with the run's seed (every shard the same)
    std::vector<int> cand;
    for (int i = 0; i < N; i++)
      if (!hot_ep[static_cast<size_t>(i)]) cand.push_back(i);
    Rng pick(cfg.seed * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL);
    for (size_t i = cand.size(); i > 1; i--) std::swap(cand[i - 1], cand[static_cast<size_t>(pick.below(i))]);
    const size_t want = static_cast<size_t>(std::llround(tr.hot_sources * N));
    if (want < 1 || want + 1 > cand.size())
      throw OptionError("hot sources: " + std::to_string(want) + " of " + std::to_string(N) +
                        " endpoints leave no background or no hot source");
    hot_src.assign(static_cast<size_t>(N), 0);
    for (size_t i = 0; i < want; i++) hot_src[static_cast<size_t>(cand[i])] = 1;
  }
  if (!(tr.load >= 0 && tr.load <= 1.0))
    throw OptionError("load " + std::to_string(tr.load) +
                      " out of range: offered flits/endpoint/cycle must be 0..1 (a link carries 1 flit/cycle)");
}

namespace {
const std::vector<std::string> kPatterns = {"uniform", "randperm",   "bitrev",  "transpose", "shuffle",
                                            "butterfly", "complement", "tornado", "hotspot",   "trace"};
}  // namespace

const std::string& known_patterns_text() {
  static const std::string t = [] {
    std::string s;
    for (const auto& p : kPatterns) s += (s.empty() ? "" : ", ") + p;
    return s;
  }();
  return t;
}

bool known_pattern(const std::string& p) {
  return p == "bit-reversal" || p == "perfect-shuffle" || std::find(kPatterns.begin(), kPatterns.end(), p) != kPatterns.end();
}

void Simulator::Impl::load_trace() {
  if (tr.trace_file.empty()) throw OptionError("pattern 'trace' needs a trace file");
  // the checked reader: a directory, binary data (/dev/zero), absurd lines or sizes fail naming the file
  const std::string text = read_input_file(tr.trace_file, table_input_limits());
  std::map<std::string, int> by_id;
  for (size_t i = 0; i < eps.size(); i++) {
    by_id[f.node(eps[i].node).id] = static_cast<int>(i);
    by_id[f.node(eps[i].node).id + "[" + std::to_string(eps[i].port) + "]"] = static_cast<int>(i);
  }
  auto endpoint = [&](const std::string& t, int line) {
    char* end = nullptr;
    long v = std::strtol(t.c_str(), &end, 10);
    if (!t.empty() && *end == 0) {
      if (v < 0 || v >= static_cast<long>(eps.size()))
        throw ParseError(tr.trace_file, line, "endpoint index " + t + " out of range (0.." + std::to_string(eps.size() - 1) + ")");
      return static_cast<int>(v);
    }
    auto it = by_id.find(t);
    if (it == by_id.end()) throw ParseError(tr.trace_file, line, "unknown endpoint '" + t + "'");
    return it->second;
  };
  int ln = 0;
  int64_t last = -1;
  for (const std::string_view l : split_lines(text)) {
    std::string line(l);
    ln++;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ss(line);
    std::string a, s, d, fl;
    if (!(ss >> a)) continue;
    if (!(ss >> s >> d)) throw ParseError(tr.trace_file, ln, "expected 'cycle src dst [flits]'");
    char* end = nullptr;
    long long cyc = std::strtoll(a.c_str(), &end, 10);
    if (*end || cyc < 0) throw ParseError(tr.trace_file, ln, "bad cycle '" + a + "'");
    if (cyc < last) throw ParseError(tr.trace_file, ln, "cycles must not decrease");
    last = cyc;
    int flits = cfg.packet_flits;
    if (ss >> fl) {
      long x = std::strtol(fl.c_str(), &end, 10);
      if (*end || x < 1 || x > 65535) throw ParseError(tr.trace_file, ln, "bad flit count '" + fl + "'");
      if (cfg.switching == Switching::VirtualCutThrough && x > cfg.buffer_flits)
        throw ParseError(tr.trace_file, ln, "packet of " + fl + " flits does not fit a " +
                                                 std::to_string(cfg.buffer_flits) + "-flit buffer (VCT)");
      flits = static_cast<int>(x);
    }
    std::string extra;
    if (ss >> extra) throw ParseError(tr.trace_file, ln, "unexpected '" + extra + "'");
    trace.push_back({cyc, endpoint(s, ln), endpoint(d, ln), flits});
  }
}

}  // namespace ftroute::flitsim
