// The fixed text of the LFT formats, shared by lft_io.cpp (reader, write_lft_file, the reference
// writer) and lft_write.cpp (the streaming writer) (internal header).
#pragma once

#include <string>

#include "ftroute/lft_io.hpp"

namespace ftroute::detail {

// Table headers as OpenSM / dump_fts / the minimal form print them (no newline).
std::string header_opensm(const LftTable& t);
std::string header_dumpfts(const LftTable& t);
std::string header_minimal(const LftTable& t);

// dump_fts column headers (the trailing blank of the second is part of the format).
inline constexpr const char* kDumpFtsCol1 = "  Lid  Out   Destination";
inline constexpr const char* kDumpFtsCol2 = "       Port     Info ";

}  // namespace ftroute::detail
