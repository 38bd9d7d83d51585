// The FT-DRB evaluation (seed 000, docs/ftdrb.md "Evaluation"; `ftroute ftdrb-eval`): saturation
// throughput and light-load latency of FT-DRB vs single path + re-route, relative to the
// fault-free fabric, with static link faults. See flitsim/ftdrb_eval.cpp for the methods.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/flitsim.hpp"

namespace ftroute::flitsim {

struct FtdrbEvalOptions {
  std::vector<std::string> topos;     // fabric specs (torus:8x8, fattree:4,3) or torusAxB | meshAxB | KaryNtree
  std::vector<std::string> patterns;  // flitsim patterns
  std::vector<std::string> methods;   // of ftdrb_eval_methods()
  std::vector<double> faults;         // failed switch links in %, the first one 0 (the reference)
  std::vector<double> loads;          // swept in order until saturation; the first is the "light load"
  int lmc = 2;                        // LIDs per CA = 2^lmc (lowered when ftdrb needs > 15 VLs)
  bool spread = true;                 // spread every routing of a topology over the same VLs
  int64_t warmup = 1000, measure = 4000;
  uint64_t seed = 1;
  long jobs = 1;                      // parallel simulations; results do not depend on it
};

// The method names ftdrb_eval() knows: single, ftdrb, ftdrb-static, single-static, ftree.
const std::vector<std::string>& ftdrb_eval_methods();

// A topology name or a pattern that does not fit a topology (the command reports it as a usage
// error).
class FtdrbEvalInputError : public OptionError {
 public:
  using OptionError::OptionError;
};

struct FtdrbEvalTables {
  std::string markdown;  // the tables of docs/ftdrb.md
  std::string csv;       // one line per (run, method)
};

// Runs the evaluation; progress lines go to stderr.
FtdrbEvalTables ftdrb_eval(const FtdrbEvalOptions& options);

}  // namespace ftroute::flitsim
