// One syntax for a generated fabric, used by every command that takes one (`ftroute gen SPEC`,
// `campaign --gen SPEC`, `route/compare/sim --gen SPEC`, `ftdrb-eval --topos SPEC,..`,
// `kns-size/kns-faults SPEC`):
//
//   SPEC  = KIND ":" ARGS
//   ARGS  = [VALUE {"," VALUE}] {"," KEY "=" VALUE}     positional values first, then keywords
//
// e.g. fattree:4,3  mesh:8x8  torus:4x4x4,2  torus:4x4,hosts=2,radix=8  kns:10,3  kns:4,2,p=2
//      fattree2:8,4,8  fattree3:8  ctree:leaves=8,spines=4,hosts=4/4/0/2.
// Every parameter of a kind has a name (the KEY, and the `ftroute gen KIND --KEY V` option of the
// legacy spelling); the first `positional` of them may also be given by position. The table of
// kinds (fabric_kinds(), fabric_spec.cpp) is the one place a kind is defined: its name, its
// argument grammar, its help lines and its generator.
#pragma once

#include <climits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/fabric.hpp"

namespace ftroute::topo {

// A spec that does not parse (unknown kind or keyword, bad number, missing value). what() names
// the offending token and the spec, e.g. "unknown keyword 'host' in 'mesh:4x4,host=2' (mesh takes
// dims, hosts, radix)". The CLI reports it as a usage error (exit 2).
class SpecError : public OptionError {
 public:
  using OptionError::OptionError;
};

// The parsed arguments of one spec, handed to the kind's generator.
class SpecArgs {
 public:
  std::string kind;
  std::string text;                                         // the spec as written
  std::vector<std::pair<std::string, std::string>> values;  // parameter name -> value text
  // The parameters the generator used, normalised as legacy options (" --k 4 --n 3"): the same
  // text for every spelling of the same fabric (`gen` writes it into the .net header).
  std::string used;

  std::optional<std::string> get(const std::string& name) const;
  // Integer parameter: default `def` (kRequired: must be given), must be in [lo, hi]. Appends
  // " --name V" to `used` (also for a default value, as `ftroute gen` always did).
  int integer(const std::string& name, long def, long lo, long hi);
  static constexpr long kRequired = LONG_MIN;
  [[noreturn]] void fail(const std::string& what) const;  // throws SpecError "<what> in '<text>'"
  // Values given but never read by the generator (a table entry whose params list more than
  // its build reads); build_fabric() rejects them.
  std::vector<std::string> unread() const;

 private:
  mutable std::set<std::string> read_;
};

struct FabricKind {
  const char* name;
  const char* grammar;  // positional form after "KIND:", e.g. "K,N" (what a usage line shows)
  const char* summary;
  const char* help;                 // parameter lines for `ftroute gen --help`, indented by two blanks
  std::vector<std::string> params;  // every parameter name (the KEYs), positional ones first
  size_t positional;                // how many of params may be given by position
  Fabric (*build)(SpecArgs& a);     // reads a.values (integer() etc.), returns the fabric
  // A list kind: all positional values form one comma list, the value of params[0]
  // (xgft:H,M1..MH,W1..WH[,HOSTS]); `positional` is then 1.
  bool variadic = false;
};

// Every kind, in help order.
const std::vector<FabricKind>& fabric_kinds();
const FabricKind* find_fabric_kind(const std::string& name);

// Parses SPEC (see above); throws SpecError naming the offending token. Legacy names
// (legacy_fabric_spec) are accepted too.
SpecArgs parse_fabric_spec(const std::string& text);
// Builds the fabric (no LIDs). Throws SpecError for a bad value, FabricError/OptionError from
// the generator (too large, ...).
Fabric build_fabric(SpecArgs& a);
Fabric build_fabric_spec(const std::string& text);

// Legacy names of ftdrb-eval: "4ary3tree" -> "fattree:4,3", "torus8x8" -> "torus:8x8",
// "mesh4x4x4" -> "mesh:4x4x4"; anything else -> "".
std::string legacy_fabric_spec(const std::string& text);
// A comma-separated list of specs (ftdrb-eval --topos): an item starts a new spec when it has a
// ':' or is a legacy name; other items (values, KEY=V) continue the spec before them.
// "torus:8x8,2,fattree:4,3,4ary3tree" -> {"torus:8x8,2", "fattree:4,3", "4ary3tree"}.
std::vector<std::string> split_spec_list(const std::string& text);
// One line per kind, "  KIND:GRAMMAR  summary" (for --help texts).
std::string fabric_spec_summary();

}  // namespace ftroute::topo
