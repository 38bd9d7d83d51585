// BookSim2 configuration files for `ftroute sim --booksim-config FILE` (docs/flitsim.md,
// "Validation against BookSim2"). The reader accepts BookSim2's syntax (`key = value;`, `//`
// comments, statements may span lines) and the keys whose meaning flitsim models; every other
// key is refused by name with file:line. Keys the file does not set take BookSim2's defaults
// (booksim_config.cpp of BookSim2 28f43299: torus, k 8, n 2, 16 VCs, 8-flit VC buffers,
// 1-flit packets, injection rate 0.1 packets/node/cycle, ...), so a file means to flitsim
// what it means to BookSim2.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/routing.hpp"

namespace ftroute::flitsim {

struct BookSimConfig {
  std::string file;  // for messages
  // topology / routing
  std::string topology = "torus";
  int k = 8, n = 2;
  std::string routing_function = "none";
  bool use_noc_latency = true;  // torus channels take 2 cycles (BookSim2 kncube.cpp)
  // router
  int num_vcs = 16, vc_buf_size = 8;
  int routing_delay = 1, vc_alloc_delay = 1, sw_alloc_delay = 1, st_prepare_delay = 0, st_final_delay = 1;
  int credit_delay = 0;
  bool wait_for_tail_credit = false;
  std::string vc_allocator = "islip", sw_allocator = "islip";
  int alloc_iters = 1;
  // traffic
  int packet_size = 1;
  std::string traffic = "uniform";
  double injection_rate = 0.1;
  bool injection_rate_uses_flits = false;
  // measurement
  int warmup_periods = 3, sample_period = 1000, max_samples = 10;
  long seed = 0;
  // keys the file set: key -> line (for messages of the mapping step)
  std::map<std::string, int> line_of;
  // run-control / output keys that were accepted but do not change the model (notes for the user)
  std::vector<std::string> ignored;

  // flits/node/cycle offered, as BookSim2 computes it (injection_rate is packets/node/cycle
  // unless injection_rate_uses_flits)
  double load_flits() const { return injection_rate_uses_flits ? injection_rate : injection_rate * packet_size; }
  int endpoints() const;
};

// Parses BookSim2 config text; `name` is used in messages. Throws ParseError ("name:line: ...")
// for a syntax error, an unknown key, a key flitsim does not model, or a value it does not model.
BookSimConfig parse_booksim_config(const std::string& text, const std::string& name);
// Reads and parses a file (ParseError "file: cannot open" when unreadable).
BookSimConfig read_booksim_config(const std::string& path);

// The fabric and routing BookSim2 would simulate: mesh/torus (n = 1 or 2) with dimension-order
// routing, k-ary n-tree with up/down routing (deterministic D-mod-k up ports; BookSim2's nca picks
// the up port at random per packet - a model difference, see docs/flitsim.md).
// random_choices: the random choices of BookSim2's routing functions, per packet - dim_order on a
// torus breaks a distance-k/2 tie at random per dimension, nca on a fattree picks each up port at
// random. An LFT cannot choose per packet, so the CAs get LMC = booksim_lmc(b) (a LID per
// combination of choices), route_dor / route_ntree take each choice from the LID offset, and the
// caller sets LidPolicy::Random (a LID at random per packet). false: LMC 0, torus ties go +,
// fattree up ports are D-mod-k (one up path per destination).
Fabric booksim_fabric(const BookSimConfig& b, bool random_choices = true);
Routing booksim_routing(const Fabric& f, const BookSimConfig& b, bool random_choices = true);
// LMC that random_choices uses: torus n (one tie bit per dimension), mesh 0, fattree
// log2(k) * (n - 1) (one base-k digit per up hop; k must be a power of two, LMC <= 7; throws
// OptionError otherwise).
int booksim_lmc(const BookSimConfig& b);
// Fills the simulator and traffic configuration (router, delays, packet size, pattern, load,
// warm-up and measurement window, seed; with random_choices and booksim_lmc(b) > 0 the LID
// policy Random that booksim_fabric / booksim_routing's random choices need).
void apply_booksim_config(const BookSimConfig& b, Config& c, TrafficSpec& t, bool random_choices = true);

}  // namespace ftroute::flitsim
