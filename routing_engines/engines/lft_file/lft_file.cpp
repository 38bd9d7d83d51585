// lft-file engine: see lft_file.hpp.
#include "lft_file/lft_file.hpp"

#include <algorithm>
#include <filesystem>

#include "ftroute/cdg.hpp"
#include "ftroute/verdict.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/lft_io.hpp"

namespace ftroute {

std::vector<OptionSpec> LftFileEngine::option_specs() const {
  return {
      OptionSpec::required_text("file", "LFT dump: opensm-lfts.dump or dump_fts"),
      OptionSpec::text("sl", "", "path-SL file (ibdmchk -c format; default: SL 0)"),
      OptionSpec::text("sl2vl", "", "SL2VL file (ibdmchk -d or opensm-sl2vl.dump; default: identity)"),
  };
}

Routing LftFileEngine::compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting&) {
  const std::string path = options.get(option_spec("file"));  // required: checked with the keys
  for (const std::string& key : {std::string("file"), std::string("sl"), std::string("sl2vl")}) {
    const std::string p = options.get(option_spec(key));
    if (!p.empty() && !std::filesystem::is_regular_file(p))
      throw OptionError("option " + key + "=" + p + " for engine 'lft-file': no such file");
  }
  if (fabric.max_lid() == 0) throw EngineError(kName, "the fabric has no LIDs to map the tables of " + path + " onto");
  // ParseError (file:line) for a malformed file, an unknown switch, a LID without a portguid
  auto fast = fast_read_map_lfts(path, LftFormat::Auto, fabric);
  LftMapResult m = fast ? std::move(*fast) : map_lfts(read_lft_file(path), fabric);
  Routing r;
  r.engine = kName;
  r.lfts = std::move(m.lfts);
  for (int s : fabric.switches()) {
    const std::vector<uint8_t>& t = r.lfts.table(s);
    if (std::all_of(t.begin(), t.end(), [](uint8_t p) { return p == kNoPath; }))
      throw EngineError(kName, path + " has no table for switch " + fabric.node_name(s) + " (node GUID not in the file)");
  }
  for (const std::string& w : m.warnings) r.notes.push_back("lft-file: " + w);
  // The VLs the routing needs are those its SLs reach: an SL2VL file maps all 16 SLs (`route
  // --sl2vl-out` writes SL s -> VL s for every s), most of them unused, and VL 15 drops. Counting
  // them all would ask every port for 16 VLs and refuse a 4-VL routing on 8-VL hardware.
  uint16_t used = 1;  // SL 0: every pair the SL file does not list
  const std::string sl = options.get(option_spec("sl")), sl2vl = options.get(option_spec("sl2vl"));
  if (!sl.empty()) r.path_sl = read_path_sl(sl, fabric, &used);
  if (!sl2vl.empty()) r.sl2vl = read_sl2vl(sl2vl, fabric);
  int top = 0;
  for (int s = 0; s < 16; s++) {
    if (!(used >> s & 1)) continue;
    if (r.sl2vl.empty()) top = std::max(top, s);  // identity
    for (const auto& [k, t] : r.sl2vl.raw())
      if (t[static_cast<size_t>(s)] != 15) top = std::max<int>(top, t[static_cast<size_t>(s)]);
  }
  r.num_vls = top + 1;
  // Only tables that route this very fabric: every pair delivered, no loop.
  CdgBuildOptions co;
  co.collect_loads = false;
  co.max_examples = 1;
  const Verdict v = verdict_of(build_cdg(fabric, r, co), kName, false);  // ftroute/verdict.hpp
  if (v.looping() > 0)
    throw EngineError(kName, "the tables of " + path + " loop on this fabric: " + v.first_of(DropKind::Loop));
  if (v.dropped() > 0)
    throw EngineError(kName, "the tables of " + path + " do not route this fabric (" + std::to_string(v.dropped()) +
                                 " of " + std::to_string(v.walks) + " pairs undelivered, e.g. " + v.first_problem() +
                                 "); were they dumped for another fabric, or before a link failed?");
  r.notes.push_back("lft-file: tables of " + path + (r.path_sl ? " with path SLs" : "") +
                    (r.sl2vl.empty() ? "" : ", SL2VL tables"));
  return r;
}

}  // namespace ftroute
