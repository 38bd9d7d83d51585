// Files for ibutils' `ibdmchk` (verification mode) and the path-SL / SL2VL files of a routing.
//
//   ibdmchk -s <subnet.lst> -f <fdbs> -m <mcfdbs> [-c <path-sl file>] [-d <sl2vl file>] [-l lmc]
//
// opensm-subnet.lst (OpenSM 3.3.23 dump_topology_node): one line per connected port, nodes in
//   OpenSM's map order (cl_qmap keyed by the GUID in network byte order, i.e. sorted by the
//   byte-swapped GUID), ports ascending:
//   { CA-SM Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001
//     VenID:000000 DevID:0000 Rev:000000A1 {Hca1} LID:0001 PN:01 } { SW Ports:08 ... VenID:00000000
//     ... {Switch1} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=2.5          (one line in the file)
//   "-SM" marks the master SM's port; a switch port shows the switch's port-0 LID.
// opensm.fdbs (dump_ucast_routes): per switch in the same map order
//   dump_ucast_routes: Switch 0x0000000000200000
//   LID    : Port : Hops : Optimal
//   0x0001 : 001  : 01   : yes          (or "UNREACHABLE", or "No 2 hop path possible via port 3!")
//   Hops are the shortest distance through the chosen port, as OpenSM's hop matrix gives them.
// opensm.mcfdbs: written empty of groups (ibdmchk needs the file).
//
// Path-SL file (ibdmchk -c, "src_node_guid dlid sl"), one line per source node and DLID:
//   0x0000000000100000 4 1
//   GUID in hex (0x...), DLID and SL in decimal: ibdm's parser (IBFabric::parsePSLFile) matches
//   "0x([0-9a-z]+) ([0-9]+) ([0-9]+)" and silently skips anything else. Our reader also accepts
//   0x-prefixed DLIDs; '#' starts a comment.
//   all_pairs (what `route --sl-out` and `export --to ibdmchk` write): one line per source node
//   and every LID of every end port, SL 0 included. ibdmchk needs this: a pair it traces without
//   a line is "SL to destination is unassigned" and it then gives no credit-loop verdict.
//   switch_sources adds the switches as source nodes (ibdmchk -a traces switch-to-switch paths).
//   Without all_pairs only pairs with SL != 0 are written (our reader treats a missing pair as SL 0).
//   A source *node* GUID cannot tell the ports of a multi-port CA apart: the SL of the first port
//   (lowest port number) is written.
// SL2VL file (ibdmchk -d, "swguid iport oport 0x(sl0)(sl1) 0x(sl2)(sl3) ..."):
//   0x0000000000200000 1 3 0x00 0x00 0x11 0x00 0x00 0x00 0x00 0x00
//   one line per switch, input port 0..N, output port 1..N (connected outputs only), the 16 VLs as
//   8 bytes of two lowercase hex nibbles each (ibdm's regex wants exactly "0x([0-9a-f])([0-9a-f])"). CA injection tables cannot be expressed and are identity.
//   The reader also accepts OpenSM's own opensm-sl2vl.dump (which ibdmchk -d reads too):
//     Switch 0x0000000000200000, base LID 2, "S1"        (or "Channel Adapter 0x<port guid>, ...")
//     #in out : 0  1  2 ...                               comment lines
//     1   3   : 0  1  0  0 ...                            <in> <out> : 16 VLs, decimal
//   CA rows ("0 0 : ...") give the port's injection table; switch rows with out port 0 are skipped.
#pragma once

#include <string>
#include <string_view>
#include <functional>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"
#include "ftroute/text_out.hpp"

namespace ftroute {

struct SubnetLstOptions {
  Lid sm_lid = 0;            // base LID of the master SM's port ("-SM"); 0 = none
  uint32_t vendor_id = 0, device_id = 0, revision = 0;  // ibsim reports revision 0xA1
};
std::string write_subnet_lst(const Fabric& f, const SubnetLstOptions& opt = {});
// Reads opensm-subnet.lst back into a Fabric (node ids = descriptions, GUIDs and LIDs as listed;
// the LMC is not in the file, pass it). Throws ParseError(file:line).
Fabric parse_subnet_lst(std::string_view text, const std::string& filename, uint8_t lmc = 0);
Fabric read_subnet_lst(const std::string& path, uint8_t lmc = 0);

std::string write_fdbs(const Fabric& f, const Lfts& lfts);
void write_fdbs(const Fabric& f, const Lfts& lfts, TextOut& out);  // streaming, same bytes; no flush
std::string write_mcfdbs_empty();

struct PathSlWriteOptions {
  bool all_pairs = false;       // every (source node, DLID), SL 0 included (ibdmchk -c needs them)
  bool switch_sources = false;  // switches as source nodes too (ibdmchk -a)
};
std::string write_path_sl(const Fabric& f, const Routing& r, const PathSlWriteOptions& opt = {});
void write_path_sl(const Fabric& f, const Routing& r, TextOut& out, const PathSlWriteOptions& opt = {});  // streaming
// Reads a path-SL file into a path_sl function (captures the table by value; src LID -> node).
// Throws ParseError(file:line) for malformed lines, unknown GUIDs, SL > 15. *used_sls (if given)
// gets bit s set for every SL s the file names (pairs it does not list are SL 0).
std::function<uint8_t(Lid, Lid)> parse_path_sl(std::string_view text, const std::string& filename, const Fabric& f,
                                               uint16_t* used_sls = nullptr);
std::function<uint8_t(Lid, Lid)> read_path_sl(const std::string& path, const Fabric& f, uint16_t* used_sls = nullptr);
// The line libftroute.so's path-SL dump (plugin option path_sl_dump) ends with, a comment to
// every other reader: "# end: P pairs, M without path parameters, D with an SL other than their
// CA's first port". Written last, so a file without it is cut short.
struct PathSlDumpEnd {
  bool found = false;
  long pairs = 0, missing = 0, disagree = 0;
};
std::string path_sl_dump_end_line(const PathSlDumpEnd& e);  // with its newline
PathSlDumpEnd path_sl_dump_end(std::string_view text);      // found = false if the last line is not one

std::string write_sl2vl(const Fabric& f, const Sl2Vl& t);
void write_sl2vl(const Fabric& f, const Sl2Vl& t, TextOut& out);  // streaming, same bytes; no flush
Sl2Vl parse_sl2vl(std::string_view text, const std::string& filename, const Fabric& f);
Sl2Vl read_sl2vl(const std::string& path, const Fabric& f);

}  // namespace ftroute
