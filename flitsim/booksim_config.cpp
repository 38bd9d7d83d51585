// BookSim2 configuration reader for `ftroute sim --booksim-config FILE` (see the header and
// docs/flitsim.md "Validation against BookSim2"). Written from BookSim2's documented syntax and
// key list (src/booksim_config.cpp, src/config.l of BookSim2 28f43299); no BookSim2 code.
#include "ftroute/booksim_config.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "ftroute/error.hpp"
#include "ftroute/flitsim_testnets.hpp"

namespace ftroute::flitsim {

namespace {

// Every key BookSim2 28f43299 knows (booksim_config.cpp), so an unknown key and a known key that
// flitsim does not model get different messages.
const std::set<std::string>& booksim_keys() {
  static const std::set<std::string> keys = {
      "channel_file", "subnets", "topology", "k", "n", "c", "routing_function", "use_noc_latency", "x", "y", "xr",
      "yr", "link_failures", "fail_seed", "in_ports", "out_ports", "router", "output_delay", "credit_delay",
      "internal_speedup", "output_buffer_size", "noq", "speculative", "spec_check_elig", "spec_check_cred",
      "spec_mask_by_reqs", "spec_sw_allocator", "num_vcs", "vc_buf_size", "buf_size", "buffer_policy",
      "private_bufs", "private_buf_size", "private_buf_start_vc", "private_buf_end_vc", "max_held_slots",
      "feedback_aging_scale", "feedback_offset", "wait_for_tail_credit", "vc_busy_when_full",
      "vc_prioritize_empty", "vc_priority_donation", "vc_shuffle_requests", "hold_switch_for_packet",
      "input_speedup", "output_speedup", "routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_prepare_delay",
      "st_final_delay", "vct", "vc_allocator", "sw_allocator", "arb_type", "alloc_iters", "classes", "traffic",
      "class_priority", "perm_seed", "injection_rate", "injection_rate_uses_flits", "packet_size",
      "packet_size_rate", "injection_process", "burst_alpha", "burst_beta", "burst_r1", "priority", "batch_size",
      "batch_count", "max_outstanding_requests", "use_read_write", "write_fraction", "read_request_begin_vc",
      "read_request_end_vc", "write_request_begin_vc", "write_request_end_vc", "read_reply_begin_vc",
      "read_reply_end_vc", "write_reply_begin_vc", "write_reply_end_vc", "read_request_subnet",
      "read_reply_subnet", "write_request_subnet", "write_reply_subnet", "read_request_size",
      "write_request_size", "read_reply_size", "write_reply_size", "sim_type", "warmup_periods", "sample_period",
      "max_samples", "measure_stats", "pair_stats", "latency_thres", "warmup_thres", "acc_warmup_thres",
      "stopping_thres", "acc_stopping_thres", "sim_count", "include_queuing", "seed", "print_activity",
      "print_csv_results", "deadlock_warn_timeout", "viewer_trace", "watch_file", "watch_flits", "watch_packets",
      "watch_transactions", "watch_out", "stats_out", "sent_packets_out", "sim_power", "power_output_file",
      "tech_file", "channel_width", "channel_sweep", "network_file"};
  return keys;
}

// Keys that only steer BookSim2's run control or its output; they do not change the model.
// flitsim accepts them and says it ignores them (its measurement window is fixed).
const std::set<std::string>& ignored_keys() {
  static const std::set<std::string> keys = {
      "latency_thres", "warmup_thres", "acc_warmup_thres", "stopping_thres", "acc_stopping_thres",
      "print_activity", "print_csv_results", "deadlock_warn_timeout", "viewer_trace", "watch_file", "watch_flits",
      "watch_packets", "watch_transactions", "watch_out", "stats_out", "x", "y", "power_output_file"};
  return keys;
}

// Keys accepted only with the value flitsim models (BookSim2's default in every case).
const std::map<std::string, std::string>& fixed_keys() {
  static const std::map<std::string, std::string> keys = {
      {"router", "iq"},          {"c", "1"},
      {"subnets", "1"},          {"classes", "1"},
      {"speculative", "0"},      {"input_speedup", "1"},
      {"output_speedup", "1"},   {"internal_speedup", "1.0"},
      {"hold_switch_for_packet", "0"}, {"buffer_policy", "private"},
      {"buf_size", "-1"},        {"vc_busy_when_full", "0"},
      {"vc_prioritize_empty", "0"}, {"vc_shuffle_requests", "0"},
      {"vc_priority_donation", "0"}, {"noq", "0"},
      {"output_buffer_size", "-1"}, {"include_queuing", "1"},
      {"injection_process", "bernoulli"}, {"priority", "none"},
      {"sim_count", "1"},        {"use_read_write", "0"},
      {"measure_stats", "1"},    {"pair_stats", "0"},
      {"sim_type", "latency"},   {"link_failures", "0"},
      {"arb_type", "round_robin"}, {"output_delay", "0"},
      {"sim_power", "0"},        {"xr", "1"},
      {"yr", "1"},               {"vct", "0"}};
  return keys;
}

struct Token {
  std::string text;
  int line;
};

std::vector<Token> tokenize(const std::string& text, const std::string& name) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  auto is_sep = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '=' || ch == ';'; };
  while (i < text.size()) {
    char ch = text[i];
    if (ch == '\n') {
      line++, i++;
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r') {
      i++;
      continue;
    }
    if (ch == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') i++;
      continue;
    }
    if (ch == '=' || ch == ';') {
      out.push_back({std::string(1, ch), line});
      i++;
      continue;
    }
    size_t j = i;
    while (j < text.size() && !is_sep(text[j]) && !(text[j] == '/' && j + 1 < text.size() && text[j + 1] == '/')) {
      unsigned char u = static_cast<unsigned char>(text[j]);
      if (u < 0x20 || u >= 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", u);
        throw ParseError(name, line, std::string("unexpected byte ") + hex + " (BookSim2 config files are ASCII)");
      }
      j++;
    }
    out.push_back({text.substr(i, j - i), line});
    i = j;
  }
  return out;
}

bool valid_key(const std::string& k) {
  if (k.empty() || !(std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_')) return false;
  for (char ch : k)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return true;
}

struct Reader {
  BookSimConfig& b;
  const std::string& name;

  [[noreturn]] void fail(int line, const std::string& m) const { throw ParseError(name, line, m); }

  long as_int(const std::string& key, const std::string& v, int line, long lo, long hi) const {
    errno = 0;
    char* end = nullptr;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno == ERANGE)
      fail(line, key + " = " + v + ": expected an integer");
    if (x < lo || x > hi)
      fail(line, key + " = " + v + ": out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return x;
  }
  double as_double(const std::string& key, const std::string& v, int line, double lo, double hi) const {
    errno = 0;
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(x))
      fail(line, key + " = " + v + ": expected a number");
    if (x < lo || x > hi) {
      std::ostringstream m;
      m << key << " = " << v << ": out of range (" << lo << ".." << hi << ")";
      fail(line, m.str());
    }
    return x;
  }
  bool as_bool(const std::string& key, const std::string& v, int line) const {
    return as_int(key, v, line, 0, 1) != 0;
  }

  void assign(const std::string& key, const std::string& v, int line) {
    if (!v.empty() && v.front() == '{')
      fail(line, key + " = " + v + ": per-class value lists are not supported by ftroute sim (one traffic class)");
    b.line_of[key] = line;
    if (key == "topology") {
      if (v != "mesh" && v != "torus" && v != "fattree")
        fail(line, "topology = " + v + " is not supported by ftroute sim (supported: mesh, torus, fattree)");
      b.topology = v;
    } else if (key == "k") {
      b.k = static_cast<int>(as_int(key, v, line, 2, 64));
    } else if (key == "n") {
      b.n = static_cast<int>(as_int(key, v, line, 1, 8));
    } else if (key == "routing_function") {
      b.routing_function = v;
    } else if (key == "use_noc_latency") {
      b.use_noc_latency = as_bool(key, v, line);
    } else if (key == "num_vcs") {
      b.num_vcs = static_cast<int>(as_int(key, v, line, 1, 16));
    } else if (key == "vc_buf_size") {
      b.vc_buf_size = static_cast<int>(as_int(key, v, line, 1, 1048576));
    } else if (key == "routing_delay") {
      b.routing_delay = static_cast<int>(as_int(key, v, line, 0, 100000));
    } else if (key == "vc_alloc_delay") {
      b.vc_alloc_delay = static_cast<int>(as_int(key, v, line, 1, 100000));  // BookSim2: 0 is an error
    } else if (key == "sw_alloc_delay") {
      b.sw_alloc_delay = static_cast<int>(as_int(key, v, line, 1, 100000));
    } else if (key == "st_prepare_delay") {
      b.st_prepare_delay = static_cast<int>(as_int(key, v, line, 0, 100000));
    } else if (key == "st_final_delay") {
      b.st_final_delay = static_cast<int>(as_int(key, v, line, 0, 100000));
    } else if (key == "credit_delay") {
      b.credit_delay = static_cast<int>(as_int(key, v, line, 0, 100000));
    } else if (key == "wait_for_tail_credit") {
      b.wait_for_tail_credit = as_bool(key, v, line);
    } else if (key == "vc_allocator") {
      if (v != "islip" && v != "separable_input_first")
        fail(line, key + " = " + v + " is not modelled by flitsim (supported: islip, separable_input_first)");
      b.vc_allocator = v;
    } else if (key == "sw_allocator") {  // the BookSim model's switch allocation is iSLIP
      if (v != "islip") fail(line, key + " = " + v + " is not modelled by flitsim (supported: islip)");
      b.sw_allocator = v;
    } else if (key == "alloc_iters") {
      b.alloc_iters = static_cast<int>(as_int(key, v, line, 1, 64));
    } else if (key == "packet_size") {
      b.packet_size = static_cast<int>(as_int(key, v, line, 1, 65535));
    } else if (key == "traffic") {
      static const std::set<std::string> ok = {"uniform", "transpose", "bitrev", "tornado", "shuffle", "bitcomp"};
      if (!ok.count(v))
        fail(line, "traffic = " + v +
                       " is not supported by ftroute sim (supported: uniform, transpose, bitrev, tornado, shuffle, bitcomp)");
      b.traffic = v;
    } else if (key == "injection_rate") {
      b.injection_rate = as_double(key, v, line, 0.0, 1.0);
    } else if (key == "injection_rate_uses_flits") {
      b.injection_rate_uses_flits = as_bool(key, v, line);
    } else if (key == "warmup_periods") {
      b.warmup_periods = static_cast<int>(as_int(key, v, line, 0, 1000000));
    } else if (key == "sample_period") {
      b.sample_period = static_cast<int>(as_int(key, v, line, 1, 1000000000));
    } else if (key == "max_samples") {
      b.max_samples = static_cast<int>(as_int(key, v, line, 1, 1000000));
    } else if (key == "seed") {
      b.seed = as_int(key, v, line, 0, 2147483647L);  // "time" is refused: runs must be reproducible
    } else if (auto f = fixed_keys().find(key); f != fixed_keys().end()) {
      bool same = v == f->second;
      if (!same && key == "internal_speedup") same = as_double(key, v, line, 0, 1e9) == 1.0;
      if (!same)
        fail(line, key + " = " + v + " is not modelled by flitsim (only " + key + " = " + f->second + ";)");
    } else if (ignored_keys().count(key)) {
      b.ignored.push_back(key);
    } else if (booksim_keys().count(key)) {
      fail(line, "BookSim2 key '" + key + "' is not supported by ftroute sim --booksim-config (docs/flitsim.md lists the keys that map)");
    } else {
      fail(line, "unknown BookSim2 key '" + key + "'");
    }
  }
};

int line_of(const BookSimConfig& b, const std::string& key) {
  auto it = b.line_of.find(key);
  return it == b.line_of.end() ? 0 : it->second;
}

int ipow(int k, int n) {
  long r = 1;
  for (int i = 0; i < n; i++) r *= k;
  return static_cast<int>(r);
}

}  // namespace

int BookSimConfig::endpoints() const { return ipow(k, n); }

BookSimConfig parse_booksim_config(const std::string& text, const std::string& name) {
  BookSimConfig b;
  b.file = name;
  std::vector<Token> tok = tokenize(text, name);
  Reader r{b, name};
  // BookSim2's grammar needs at least one statement
  if (tok.empty()) r.fail(0, "empty file (no key = value; statement)");
  size_t i = 0;
  while (i < tok.size()) {
    const Token& key = tok[i];
    if (key.text == "=" || key.text == ";") r.fail(key.line, "expected a key, got '" + key.text + "'");
    if (!valid_key(key.text)) r.fail(key.line, "'" + key.text + "' is not a key (expected key = value;)");
    if (i + 1 >= tok.size() || tok[i + 1].text != "=")
      r.fail(i + 1 < tok.size() ? tok[i + 1].line : key.line, "expected '=' after '" + key.text + "'");
    if (i + 2 >= tok.size() || tok[i + 2].text == ";" || tok[i + 2].text == "=")
      r.fail(i + 2 < tok.size() ? tok[i + 2].line : key.line, "missing value for '" + key.text + "'");
    const Token& val = tok[i + 2];
    if (i + 3 >= tok.size() || tok[i + 3].text != ";")
      r.fail(i + 3 < tok.size() ? tok[i + 3].line : val.line,
             "expected ';' after '" + key.text + " = " + val.text + "'");
    r.assign(key.text, val.text, key.line);
    i += 4;
  }
  // Cross-key checks (BookSim2 would fail on these too, or flitsim cannot build the fabric).
  const bool grid = b.topology == "mesh" || b.topology == "torus";
  const int topo_line = line_of(b, "topology");
  if (b.routing_function == "none")
    r.fail(line_of(b, "routing_function"),
           "routing_function is not set (BookSim2's default 'none' names no routing function; use dim_order for "
           "mesh/torus, nca for fattree)");
  if (grid) {
    if (b.routing_function != "dim_order" && b.routing_function != "dor")
      r.fail(line_of(b, "routing_function"), "routing_function = " + b.routing_function + " on a " + b.topology +
                                                 " is not supported by ftroute sim (supported: dim_order, dor)");
    if (b.n > 2)
      r.fail(line_of(b, "n") ? line_of(b, "n") : topo_line,
             "n = " + std::to_string(b.n) + ": ftroute sim builds 1-D and 2-D meshes/tori only");
    if (b.topology == "torus" && b.num_vcs < 2)
      r.fail(line_of(b, "num_vcs") ? line_of(b, "num_vcs") : topo_line,
             "dim_order on a torus needs num_vcs >= 2 (two dateline VC classes, as in BookSim2)");
  } else {  // fattree
    if (b.routing_function != "nca")
      r.fail(line_of(b, "routing_function"), "routing_function = " + b.routing_function +
                                                 " on a fattree is not supported by ftroute sim (supported: nca)");
    if (b.k > 18)
      r.fail(line_of(b, "k") ? line_of(b, "k") : topo_line,
             "fattree k = " + std::to_string(b.k) + ": switches of 2k ports, at most 36");
  }
  if (static_cast<double>(b.endpoints()) > 65536.0 || ipow(b.k, b.n) <= 1)
    r.fail(line_of(b, "n") ? line_of(b, "n") : line_of(b, "k"),
           "k^n = " + std::to_string(b.k) + "^" + std::to_string(b.n) + " endpoints is out of range (2..65536)");
  if (b.traffic == "transpose" || b.traffic == "bitrev" || b.traffic == "shuffle" || b.traffic == "bitcomp") {
    int N = b.endpoints();
    if ((N & (N - 1)) != 0)
      r.fail(line_of(b, "traffic"), "traffic = " + b.traffic + " needs a power-of-two number of nodes (k^n = " +
                                        std::to_string(N) + ")");
    if (b.traffic == "transpose") {
      int bits = 0;
      while ((1 << bits) < N) bits++;
      if (bits % 2)
        r.fail(line_of(b, "traffic"), "traffic = transpose needs an even number of address bits (k^n = " +
                                          std::to_string(N) + ")");
    }
  }
  if (b.load_flits() > 1.0) {
    std::ostringstream m;
    m << "injection_rate = " << b.injection_rate << " packets of " << b.packet_size << " flits is "
      << b.load_flits() << " flits/node/cycle, more than a link carries (1)";
    r.fail(line_of(b, "injection_rate"), m.str());
  }
  if (b.max_samples <= b.warmup_periods)
    r.fail(line_of(b, "max_samples") ? line_of(b, "max_samples") : line_of(b, "warmup_periods"),
           "max_samples = " + std::to_string(b.max_samples) + " leaves no sample period after warmup_periods = " +
               std::to_string(b.warmup_periods));
  return b;
}

BookSimConfig read_booksim_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, "cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.find('\0') != std::string::npos) {
    int line = 1;
    for (char ch : text.substr(0, text.find('\0')))
      if (ch == '\n') line++;
    throw ParseError(path, line, "NUL byte (BookSim2 config files are text)");
  }
  return parse_booksim_config(text, path);
}

int booksim_lmc(const BookSimConfig& b) {
  if (b.topology == "torus") return b.n;
  if (b.topology != "fattree" || b.n < 2) return 0;
  int bits = 0;
  while ((1 << bits) < b.k) bits++;
  if ((1 << bits) != b.k || bits * (b.n - 1) > 7)
    throw OptionError("random up ports on a fattree need k a power of two and log2(k) * (n - 1) <= 7 (LMC); k = " +
                      std::to_string(b.k) + ", n = " + std::to_string(b.n) + " (use deterministic routing)");
  return bits * (b.n - 1);
}

Fabric booksim_fabric(const BookSimConfig& b, bool random_choices) {
  Fabric f;
  if (b.topology == "fattree") f = make_kary_ntree(b.k, b.n);
  else f = b.n == 1 ? make_mesh(b.k, 1, b.topology == "torus") : make_mesh(b.k, b.k, b.topology == "torus");
  if (random_choices && booksim_lmc(b) > 0) f.assign_lids(static_cast<uint8_t>(booksim_lmc(b)));
  return f;
}

Routing booksim_routing(const Fabric& f, const BookSimConfig& b, bool random_choices) {
  if (b.topology == "fattree") return route_ntree(f, b.k, b.n, random_choices);
  const bool torus = b.topology == "torus";
  return route_dor(f, b.k, b.n == 1 ? 1 : b.k, torus, false, torus && random_choices);
}

void apply_booksim_config(const BookSimConfig& b, Config& c, TrafficSpec& t, bool random_choices) {
  // BookSim2's router (docs/flitsim.md "Router models"): VC allocation per packet, switch
  // allocation per flit, its pipeline, credit timing and self traffic.
  // Every field through flitsim's option table (Config::set: the CLI's names, values and ranges);
  // an error names the BookSim2 key it came from.
  auto put = [&](const char* key, const std::string& value, const char* from) {
    try {
      c.set(key, value);
    } catch (const OptionError& e) {
      throw OptionError(std::string(from) + " = " + value + ": " + e.what());
    }
  };
  auto num = [](long x) { return std::to_string(x); };
  put("model", "booksim", "router");
  put("vcs", num(b.num_vcs), "num_vcs");
  put("buffer", num(b.vc_buf_size), "vc_buf_size");
  put("packet", num(b.packet_size), "packet_size");
  // BookSim2 torus channels take 2 cycles unless use_noc_latency = 0 (kncube.cpp); mesh and
  // fattree channels 1; injection/ejection channels 1 in both simulators.
  put("link-latency", (b.topology == "torus" && b.use_noc_latency) ? "2" : "1", "use_noc_latency");
  put("routing-delay", num(b.routing_delay), "routing_delay");
  put("vc-alloc-delay", num(b.vc_alloc_delay), "vc_alloc_delay");
  put("alloc-delay", num(b.sw_alloc_delay), "sw_alloc_delay");  // the switch-allocation stage in this model
  put("xbar-delay", num(b.st_prepare_delay + b.st_final_delay), "st_prepare_delay + st_final_delay");
  put("credit-delay", num(b.credit_delay), "credit_delay");  // cycles after the credit channel, as in BookSim2
  if (b.wait_for_tail_credit) put("wait-tail-credit", "true", "wait_for_tail_credit");
  // VC allocation: islip = BookSim2's iSLIP over input VCs x output VCs (va_per_vc);
  // separable_input_first = the port-level separable allocator (one VC per input port, then
  // one input per output port), the closest flitsim has
  const bool islip = b.vc_allocator == "islip";
  put("va-grants", islip ? "vc" : "port", "vc_allocator");
  put("allocator", islip ? "islip" : "separable", "vc_allocator");
  put("islip-iters", num(b.alloc_iters), "alloc_iters");
  put("seed", num(b.seed), "seed");
  if (random_choices && booksim_lmc(b) > 0) c.lid_policy = LidPolicy::Random;  // booksim_routing's choices
  t.self_traffic = true;  // uniform includes the source, permutation fixed points send to themselves

  static const std::map<std::string, std::string> pattern = {{"uniform", "uniform"},   {"transpose", "transpose"},
                                                             {"bitrev", "bitrev"},     {"tornado", "tornado"},
                                                             {"shuffle", "shuffle"},   {"bitcomp", "complement"}};
  t.pattern = pattern.at(b.traffic);
  t.load = b.load_flits();
  t.dims.assign(static_cast<size_t>(b.n), b.k);
  t.warmup = static_cast<int64_t>(b.warmup_periods) * b.sample_period;
  // BookSim2 measures until three consecutive sample periods change latency and throughput by less
  // than stopping_thres (at least 3 periods, at most max_samples - warmup_periods); flitsim measures
  // a fixed window of those 3 periods (what BookSim2 does with stopping thresholds that always pass,
  // as scripts/validate_booksim.sh sets them).
  t.measure = static_cast<int64_t>(std::min(3, b.max_samples - b.warmup_periods)) * b.sample_period;
}

}  // namespace ftroute::flitsim
