// lft-file: a routing read from files instead of computed - LFTs dumped by OpenSM
// (opensm-lfts.dump, written with log flag 0x40, e.g. `-D 0x43`; or by `ftroute route -o`) or by
// dump_fts,
// and optionally the path SLs and SL2VL tables that go with them. Its purpose is to let DQR patch
// a routing that some other engine made: `dqr` with `base=lft-file,base.file=opensm-lfts.dump`
// (docs/dqr.md, "Engine dqr"), e.g. OpenSM's lash or updn tables.
//
// The tables are mapped onto the fabric by GUID (lft_io.hpp map_lfts): switches by node GUID, and
// LIDs through the portguid destination comments, so a dump from an earlier OpenSM run whose LIDs
// differ still applies. Only a file that routes this fabric is accepted: every switch of the
// fabric must be in the file, and every pair must be delivered without a loop (a dump made before
// a link failed is refused on the faulty fabric, naming an undelivered pair). Deadlock freedom is
// not checked here (DQR's channel list refuses a cyclic routing with the cycle).
//
// Options (LftFileEngine::option_specs, lft_file.cpp): file (required; format recognised:
// OpenSM dump, dump_fts, minimal), sl (the ibdmchk -c format `ftroute route --sl-out` writes),
// sl2vl (the ibdmchk -d / opensm-sl2vl.dump format).
// The routing's VL count (Routing::num_vls, what the plugin asks of every port) is 1 + the highest
// VL that an SL of the SL file (SL 0 without one) maps to, VL 15 (drop) aside.
#pragma once

#include "ftroute/engine.hpp"

namespace ftroute {

class LftFileEngine : public Engine {
 public:
  static constexpr const char* kName = "lft-file";
  std::string name() const override { return kName; }
  std::vector<OptionSpec> option_specs() const override;
  using Engine::route;
 protected:
  Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) override;

 public:
};

}  // namespace ftroute
