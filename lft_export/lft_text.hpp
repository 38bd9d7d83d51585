// The fixed text of the LFT formats, shared by lft_io.cpp (reader, write_lft_file, the reference
// writer) and lft_write.cpp (the streaming writer) (internal header).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "ftroute/lft_io.hpp"

namespace ftroute::detail {

// The switches in the order a dump lists them (opensm-lfts.dump: OpenSM's map order, by the
// byte-swapped GUID; the other formats: fabric order). A switch without a GUID is refused before
// any byte is written.
inline std::vector<int> lft_switch_order(const Fabric& f, LftFormat style) {
  std::vector<int> sws = f.switches();
  if (style == LftFormat::Opensm)
    std::stable_sort(sws.begin(), sws.end(), [&](int a, int b) { return __builtin_bswap64(f.node(a).guid) < __builtin_bswap64(f.node(b).guid); });
  for (int s : sws)
    if (!f.node(s).guid) throw FabricError("switch " + f.node_name(s) + " has no GUID: cannot write an LFT file for it");
  return sws;
}

// Table headers as OpenSM / dump_fts / the minimal form print them (no newline).
std::string header_opensm(const LftTable& t);
std::string header_dumpfts(const LftTable& t);
std::string header_minimal(const LftTable& t);

// dump_fts column headers (the trailing blank of the second is part of the format).
inline constexpr const char* kDumpFtsCol1 = "  Lid  Out   Destination";
inline constexpr const char* kDumpFtsCol2 = "       Port     Info ";

}  // namespace ftroute::detail
