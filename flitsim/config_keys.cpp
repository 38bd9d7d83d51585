// flitsim's options as data: one table of the Config fields an option sets, by the name
// `ftroute sim --NAME` gives it (Config::set, config_keys()). The CLI and the BookSim2 config
// reader both set fields through it, so a name, its values and its range are written once.
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim_impl.hpp"

namespace ftroute::flitsim {

namespace {

long parse_long(const std::string& key, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v.c_str(), &end, 0);
  if (v.empty() || *end) throw OptionError("--" + key + " expects an integer, got '" + v + "'");
  if (errno == ERANGE) throw OptionError("--" + key + " " + v + " out of range");
  return x;
}

long int_in(const ConfigKey& k, const std::string& v) {
  const long x = parse_long(k.name, v);
  if (x < k.lo || x > k.hi)
    throw OptionError("--" + k.name + " " + std::to_string(x) + " out of range (" + std::to_string(k.lo) + ".." +
                      std::to_string(k.hi) + ")");
  return x;
}

double real_in(const ConfigKey& k, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(x)) throw OptionError("--" + k.name + " expects a number, got '" + v + "'");
  if (!(x >= k.dlo && x <= k.dhi)) {
    char b[96];
    std::snprintf(b, sizeof b, " %g out of range (%g..%g)", x, k.dlo, k.dhi);
    throw OptionError("--" + k.name + b);
  }
  return x;
}

// the position of v among k's values; the error lists them as k.values_text
size_t choice(const ConfigKey& k, const std::string& v) {
  for (size_t i = 0; i < k.values.size(); i++)
    if (k.values[i] == v) return i;
  throw OptionError("--" + k.name + " must be " + k.values_text);
}

void need_booksim(const Config& c, const std::string& key) {
  if (c.model != RouterModel::BookSim) throw OptionError("--" + key + " needs --model booksim");
}

std::vector<ConfigKey> make_keys() {
  using K = ConfigKey;
  auto integer = [](std::string n, long lo, long hi, std::function<void(Config&, long)> f) {
    K k;
    k.name = std::move(n), k.kind = K::Int, k.lo = lo, k.hi = hi;
    k.apply = [f = std::move(f)](Config& c, const K& self, const std::string& v) { f(c, int_in(self, v)); };
    return k;
  };
  auto real = [](std::string n, double lo, double hi, std::function<void(Config&, double)> f) {
    K k;
    k.name = std::move(n), k.kind = K::Real, k.dlo = lo, k.dhi = hi;
    k.apply = [f = std::move(f)](Config& c, const K& self, const std::string& v) { f(c, real_in(self, v)); };
    return k;
  };
  auto pick = [](std::string n, std::vector<std::string> values, std::string text,
                 std::function<void(Config&, size_t)> f) {
    K k;
    k.name = std::move(n), k.kind = K::Choice, k.values = std::move(values), k.values_text = std::move(text);
    k.apply = [f = std::move(f)](Config& c, const K& self, const std::string& v) { f(c, choice(self, v)); };
    return k;
  };
  auto flag = [](std::string n, std::function<void(Config&)> f) {
    K k;
    k.name = std::move(n), k.kind = K::Flag;
    k.apply = [f = std::move(f)](Config& c, const K& self, const std::string& v) {
      if (v != "true" && v != "1") throw OptionError("--" + self.name + " is a flag (no value)");
      f(c);
    };
    return k;
  };
  // In the order they are applied: the router model first (it resets what it sets), then a flag
  // before the option that overrides it (--islip then --allocator, --hold then --fault-policy).
  return {
      pick("model", {"ib", "booksim"}, "ib or booksim",
           [](Config& c, size_t i) { c.set_model(i ? RouterModel::BookSim : RouterModel::Ib); }),
      integer("vcs", 0, 16, [](Config& c, long x) { c.num_vcs = static_cast<int>(x); }),
      integer("buffer", 1, 1048576, [](Config& c, long x) { c.buffer_flits = static_cast<int>(x); }),
      integer("packet", 1, 65535, [](Config& c, long x) { c.packet_flits = static_cast<int>(x); }),
      integer("link-latency", 1, 100000, [](Config& c, long x) { c.link_latency = static_cast<int>(x); }),
      integer("routing-delay", 0, 100000, [](Config& c, long x) { c.routing_delay = static_cast<int>(x); }),
      integer("alloc-delay", 0, 100000, [](Config& c, long x) { c.alloc_delay = static_cast<int>(x); }),
      integer("xbar-delay", 0, 100000, [](Config& c, long x) { c.xbar_delay = static_cast<int>(x); }),
      integer("credit-delay", 0, 100000,
              [](Config& c, long x) {
                if (x == 0 && c.model != RouterModel::BookSim)
                  throw OptionError("--credit-delay 0 needs --model booksim (ib model: 1..100000, a credit is a "
                                    "flow-control packet on the reverse link)");
                c.credit_delay = static_cast<int>(x);
              }),
      integer("vc-alloc-delay", 1, 100000, [](Config& c, long x) { c.vc_alloc_delay = static_cast<int>(x); }),
      flag("wait-tail-credit", [](Config& c) { c.wait_tail_credit = true; }),
      pick("va-grants", {"port", "vc"}, "port or vc",
           [](Config& c, size_t i) { need_booksim(c, "va-grants"), c.va_per_vc = i == 1; }),
      pick("eject-vcs", {"class", "any"}, "class or any",
           [](Config& c, size_t i) { need_booksim(c, "eject-vcs"), c.eject_any_vc = i == 1; }),
      flag("wormhole", [](Config& c) { c.switching = Switching::Wormhole; }),
      flag("islip", [](Config& c) { c.allocator = Allocator::ISlip; }),
      pick("allocator", {"separable", "islip"}, "separable or islip",
           [](Config& c, size_t i) { c.allocator = i ? Allocator::ISlip : Allocator::Separable; }),
      integer("islip-iters", 1, 64, [](Config& c, long x) { c.islip_iterations = static_cast<int>(x); }),
      integer("hop-limit", 1, 65535, [](Config& c, long x) { c.hop_limit = static_cast<int>(x); }),
      flag("hold", [](Config& c) { c.fault_policy = FaultPolicy::Hold; }),
      pick("fault-policy", {"drop", "hold", "escape", "escape-drop", "escape-hold"},
           "drop, hold, escape (= escape-drop) or escape-hold",
           [](Config& c, size_t i) {
             c.fault_policy = i == 0 ? FaultPolicy::Drop : i == 1 ? FaultPolicy::Hold : FaultPolicy::Escape;
             if (i == 4) c.escape_fallback = FaultPolicy::Hold;
           }),
      flag("nac", [](Config& c) { c.nac = true; }),
      integer("nac-tf", 1, 1000000000, [](Config& c, long x) { c.nac_tf = static_cast<int>(x); }),
      integer("nac-period", 1, 1000000000, [](Config& c, long x) { c.nac_period = static_cast<int>(x); }),
      integer("nac-start", 0, 1000000000000L, [](Config& c, long x) { c.nac_start = x; }),
      integer("deadlock-timeout", 1, 1000000000000L, [](Config& c, long x) { c.deadlock_timeout = x; }),
      integer("seed", LONG_MIN, LONG_MAX, [](Config& c, long x) { c.seed = static_cast<uint64_t>(x); }),
      integer("threads", 0, 64, [](Config& c, long x) { c.threads = static_cast<int>(x); }),
      pick("lid-policy", {"base", "random", "hash", "rr", "roundrobin", "ftdrb"}, "base, random, hash, rr or ftdrb",
           [](Config& c, size_t i) {
             static const LidPolicy p[] = {LidPolicy::Base,       LidPolicy::Random,     LidPolicy::Hash,
                                           LidPolicy::RoundRobin, LidPolicy::RoundRobin, LidPolicy::FtDrb};
             c.lid_policy = p[i];
           }),
      integer("sl-spread", 1, 16, [](Config& c, long x) { c.sl_spread = static_cast<int>(x); }),
      real("ftdrb-ewma", 1e-9, 1, [](Config& c, double x) { c.ftdrb_ewma = x; }),
      integer("ftdrb-thl", 0, 1000000000, [](Config& c, long x) { c.ftdrb_thl = static_cast<int>(x); }),
      integer("ftdrb-tol", 0, 1000000000, [](Config& c, long x) { c.ftdrb_tol = static_cast<int>(x); }),
      integer("ftdrb-probe", 0, 1000000000, [](Config& c, long x) { c.ftdrb_probe_every = static_cast<int>(x); }),
      integer("ftdrb-permanent", 1, 1000000000, [](Config& c, long x) { c.ftdrb_permanent_after = static_cast<int>(x); }),
      integer("ftdrb-notify-hop", 0, 1000000000, [](Config& c, long x) { c.ftdrb_notify_hop_cycles = static_cast<int>(x); }),
      flag("ftdrb-notify-all", [](Config& c) { c.ftdrb_notify_all = true; }),
  };
}

}  // namespace

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = make_keys();
  return keys;
}

void Config::set(const std::string& key, const std::string& value) {
  for (const ConfigKey& k : config_keys())
    if (k.name == key) return k.apply(*this, k, value);
  throw OptionError("unknown flitsim option '" + key + "'");
}

}  // namespace ftroute::flitsim
