// Linear forwarding table files: OpenSM's `opensm-lfts.dump` and infiniband-diags'
// `dump_fts` / `ibroute` output, read and written byte-exactly, mapped onto a Fabric.
//
// Formats (as printed by OpenSM 3.3.23 `dump_ucast_lfts` and infiniband-diags 44 `dump_fts`):
//
//   opensm-lfts.dump (written with log flag 0x40, e.g. -D 0x43; loaded by `-R file -U <file>`):
//     Unicast lids [0-6] of switch Lid 2 guid 0x0000000000200000 ('Switch1'):
//     0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'
//     0x0007 002 # unknown node and type
//     6 lids dumped                                   <- the switch's top LID, not a count
//
//   dump_fts / ibroute (two column-header lines, trailing blanks are part of the format):
//     Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 (Switch1):
//       Lid  Out   Destination
//            Port     Info 
//     0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')
//     0x0003 005 : (path #2 out of 2: portguid 0x0000000000100001)      <- 2nd LID of an LMC range
//     6 valid lids dumped 
//
//   minimal (hand-written; what OpenSM's file engine needs):
//     Unicast lids [0-6] of switch guid 0x0000000000200001 :
//     0x0001 005
//
// Reading keeps every header field (LID, GUID, description, DR path), every destination comment
// and the lines between tables, so write_lft_file(parse_lft_file(x)) == x for files written by
// those tools (tested against real OpenSM/dump_fts output in tests/data/lft/).
//
// Mapping onto a Fabric: tables are matched by switch node GUID, falling back to the node
// description / id when the GUID is unknown (a renumbered fabric). LIDs are remapped through the
// `portguid` of each destination comment (file LID - first file LID of that port + the port's base
// LID in the fabric), like OpenSM's file engine does; entries without a portguid keep their LID.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"
#include "ftroute/text_out.hpp"

namespace ftroute {

enum class LftFormat { Auto, Opensm, DumpFts, Minimal };
const char* lft_format_name(LftFormat f);                 // "opensm", "dump_fts", "minimal", "auto"
std::optional<LftFormat> parse_lft_format(std::string_view name);  // also "opensm-lfts", "ibroute"

struct LftEntry {
  Lid lid = 0;
  uint8_t port = 0;
  // Everything after the port column, verbatim: " # Channel Adapter portguid 0x...: 'H1'",
  // " : (path #2 out of 2: portguid 0x...)", "" for minimal files.
  std::string info;
  uint64_t portguid = 0;      // destination port GUID found in `info` (0 = none)
  int path_index = 0;         // dump_fts "path #k": k (1 = base LID, 0 = not a path line)
  int line = 0;               // line number in the source file (0 = generated)
  std::vector<std::string> before;  // verbatim blank/comment lines just before this entry
};

struct LftTable {
  LftFormat style = LftFormat::Minimal;
  uint64_t guid = 0;          // switch node GUID from the header
  std::string desc;           // node description from the header ('...' or (...)), may be empty
  std::string addr;           // "Lid 2" (opensm: from "switch Lid 2"), "DR path slid 0; dlid 0; 0,1"
  uint32_t lid_lo = 0, lid_hi = 0;   // header range
  bool hex_range = false;     // "[0x0-0x6]" (dump_fts) vs "[0-6]"
  std::string header;         // verbatim header line (used for styles the writer cannot rebuild)
  std::vector<std::string> leading;  // verbatim lines before the header (comments, blank lines)
  std::vector<std::string> columns;  // dump_fts column-header lines, verbatim
  std::vector<LftEntry> entries;
  std::vector<std::string> before_footer;  // verbatim blank/comment lines before the footer
  std::string footer;         // verbatim footer line ("" = none, minimal files)
  int line = 0;               // header line number
};

struct LftFile {
  std::string filename;       // for messages
  LftFormat format = LftFormat::Minimal;  // style of the first table
  std::vector<LftTable> tables;
  std::vector<std::string> trailing;     // verbatim lines after the last table
  bool final_newline = true;
  std::vector<std::string> warnings;     // "file:line: ..." (identical duplicate entries)
};

// Parses LFT text. format Auto detects per table. Throws ParseError(file:line) for malformed
// lines, entries outside a table, bad hex/decimal numbers, multicast sections, binary data,
// lines over 4096 characters, and a LID listed twice in one table with different ports (naming
// both lines; the same port twice is a warning in `warnings`). read_lft_file also rejects a file
// without any table (empty, /dev/null, a directory) and bounds the file size (input_file.hpp).
LftFile parse_lft(std::string_view text, const std::string& filename, LftFormat format = LftFormat::Auto);
LftFile read_lft_file(const std::string& path, LftFormat format = LftFormat::Auto);

// infiniband-diags 44 `dump_fts` / `ibroute` (dump_unicast_tables) read the LFT blocks
// lo/64 .. ALIGN(top, 64)/64 - 1 with top = the switch's LinearFDBTop, so when top is a non-zero
// multiple of 64 the block holding LID top is never read and that LID is missing from the
// output although the switch forwards it (docs/HARNESS.md, "dump_fts skips LID LinearFDBTop").
// Returns that LID for a dump_fts/ibroute table (hex header range) whose range ends on a multiple
// of 64 and which has no entry for it; 0 otherwise (OpenSM's own dumps are not affected).
Lid dump_fts_unread_lid(const LftTable& t);

// Writes the file back; byte-exact for files produced by OpenSM / dump_fts. Always ends with a
// newline (OpenSM's file engine rejects a last line without one).
std::string write_lft_file(const LftFile& file);

// ---- Fabric <-> file ----

struct LftMapResult {
  Lfts lfts;
  std::vector<std::string> warnings;  // switches missing from the file, description fallbacks, ...
};

// Sets the Fabric's LIDs (base LID + LMC per port) from the `portguid` comments of the file:
// for the check of a topology file without LIDs against LFTs dumped from a live subnet.
// Throws ParseError(file:line) for a portguid the fabric does not have.
// Returns the number of end ports given a LID.
int adopt_lids(const LftFile& file, Fabric& fabric);

// Maps the tables onto the fabric (see the file comment). Throws ParseError(file:line) for an
// unknown switch, a port beyond the switch's port count, a table given twice, a LID that cannot
// be remapped. Switches missing from the file get no routes (warning). dump_fts tables that miss
// their top LID (dump_fts_unread_lid) are named in one warning.
LftMapResult map_lfts(const LftFile& file, const Fabric& fabric);

// Fast path of load_routing and the lft-file engine (lft_fast.cpp): reads the LFT file in large
// blocks straight into Lfts, without an LftFile (no string per line), and does adopt_lids (adopt:
// the fabric's LIDs from the file) + map_lfts. Same Lfts and warnings as the full reader for
// well-formed files; returns nullopt (fabric untouched unless adopt) as soon as anything is not
// plainly well formed, and the caller then runs the full reader, which names the problem
// (file:line) as before. FTROUTE_SLOW_LFT_READER=1 in the environment forces the full reader.
std::optional<LftMapResult> fast_read_map_lfts(const std::string& path, LftFormat format, Fabric& fabric, bool adopt,
                                               int* adopted = nullptr);
std::optional<LftMapResult> fast_read_map_lfts(const std::string& path, LftFormat format, const Fabric& fabric);

// Builds the file OpenSM (style Opensm), dump_fts (DumpFts, addressed by "Lid N") or the minimal
// form would print for these LFTs. Opensm: switches in OpenSM's map order (sorted by the byte-swapped node GUID), range [0-max_lid],
// entries for every LID whose port exists (ports > num_ports and 255 are skipped), destination
// comments from the fabric. DumpFts: switches in Fabric::switches() order, LMC ranges as
// "path #k out of n: portguid". Every destination comment carries the portguid, so OpenSM's file
// engine remaps LIDs. Throws FabricError if a switch has no GUID.
LftFile make_lft_file(const Fabric& fabric, const Lfts& lfts, LftFormat style);
// Streams the text write_lft_file(make_lft_file(fabric, lfts, style)) gives, byte for byte, without
// building the LftFile (lft_write.cpp): each LID's whole line ("0xLLLL PPP" + its destination
// comment + newline) is rendered once per dump, not once per switch, and copied into the output
// chunk with the port digits filled in, so memory stays O(LIDs) beyond the output chunk. Throws
// FabricError (before writing anything) if a switch has no GUID. Does not flush `out`.
void write_lfts(const Fabric& fabric, const Lfts& lfts, LftFormat style, TextOut& out);
std::string write_lfts(const Fabric& fabric, const Lfts& lfts, LftFormat style = LftFormat::Opensm);
// The previous streaming writer (issue 15: the comment of each LID formatted once, each entry's
// fields put one by one): same bytes, 5-7x slower at radix 56. Kept as the reference of write_lfts for
// tests/unit/lft_export/lft_write_test.cpp and as the in-run baseline of bench/bench_lftwrite.cpp.
void write_lfts_reference(const Fabric& fabric, const Lfts& lfts, LftFormat style, TextOut& out);

// "Channel Adapter", "Switch", "Router" (ib_get_node_type_str)
const char* ib_node_type_str(NodeType t);

}  // namespace ftroute

// ---- loading a routing from files (used by `ftroute check` / `ftroute export`) ----
namespace ftroute {

// Reads a fabric: ibsim/ibnetdiscover .net, or OpenSM's opensm-subnet.lst (recognised by a first
// non-blank character '{'); lmc applies to subnet.lst only (the file does not carry it).
Fabric read_fabric_file(const std::string& path, uint8_t lmc = 0);

struct LoadedRouting {
  Fabric fabric;
  Routing routing;
  LftFile file;                       // the parsed file; only its filename when the fast reader read it
  bool lids_from_file = false;        // the fabric had no LIDs: taken from the LFT file's portguids
  std::vector<std::string> warnings;
};

// Fabric + LFT file (+ optional path-SL and SL2VL files in the ibdmchk -c / -d formats, see
// ibdmchk_io.hpp). LIDs: taken from the LFT file when the fabric has none or lids_from_file is set,
// else the file's LIDs are remapped onto the fabric's through the portguid comments.
LoadedRouting load_routing(const std::string& fabric_path, const std::string& lfts_path,
                           LftFormat format = LftFormat::Auto, const std::string& sl_path = "",
                           const std::string& sl2vl_path = "", bool lids_from_file = false, uint8_t lmc = 0);

// The optional SL files of a routing read from files (empty path: not read): path SLs (ibdmchk
// -c format) into r.path_sl, SL2VL tables (ibdmchk -d format) into r.sl2vl and r.num_vls. A
// path-SL dump of libftroute.so whose end line counts pairs without an SL (or CA ports that
// disagree) adds one line to *warnings (those pairs are judged on SL 0).
void read_sl_files(const Fabric& fabric, const std::string& sl_path, const std::string& sl2vl_path, Routing& r,
                   std::vector<std::string>* warnings = nullptr);

}  // namespace ftroute
