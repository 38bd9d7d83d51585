// ibsim / ibnetdiscover ".net" topology files: reader and writer.
//
// The reader accepts what ibsim 0.10 (sim_net.c) loads, both the hand-written format of
// /usr/share/doc/ibsim-utils/net-examples and `ibnetdiscover` output, and gives every node
// and port the GUID ibsim assigns for the same file, so an offline Fabric and the simulated
// one can be matched by GUID.
//
// Format (one node record after another, a record ends at a blank line):
//
//   switchguid=0x200000(200000)                 # optional GUID base, see below
//   Switch  8 "S1"   # "desc" base port 0 lid 3 lmc 0
//   [1]     "H1"[1](100001)   # "H1" lid 1 4xQDR   ibnetdiscover style
//   [2]     "S2"[5]   w=3 s=7                    hand-written style, ibsim options
//
//   caguid=0x100000
//   Hca     2 "H1"    # "host one"               ("Ca" is a synonym, "Rt" is a router)
//   [1](100001)  "S1"[1]   # lid 1 lmc 0 "S1" lid 3 4xQDR
//
// Node header: `Switch|Hca|Ca|Rt <nports> "id" [# "desc" | # desc] [... lid N lmc M]`.
//   The desc defaults to the id; a quoted desc ends at the last '"' of the line (ibnetdiscover
//   prints NodeDescriptions as they are, '"' included). For switches "lid N lmc M" after the desc gives the LID of
//   port 0. Node ids may not contain '#' or '@' and are at most 64 characters (ibsim limits).
// Port line: `[p] "remote"[rp]` with optional `(guid)` after `[p]` or `[rp]` (ignored, as in
//   ibsim: port GUIDs are derived from the node GUID), optional options `w=` (enabled-width
//   mask 1..31), `s=` (enabled-speed mask 1..7), `e=` (extended speed 0..7, read and ignored),
//   and an optional comment. A missing `[rp]` means remote port 1 (ibsim's default). The
//   `(guid)` of a CA port is used only with NetReadOptions::port_guids_from_file; some dumps put
//   `(N)` after every switch port (`[37](37) "S-.."[1]`), read and ignored the same way.
//   Comments in ibnetdiscover form are understood: on a CA/router port line the first
//   `lid N lmc M` is that port's LID/LMC; the trailing `lid N <W>x<SPEED>` sets width/speed
//   (width 1, 2, 4, 8, 12; SDR/DDR/QDR/FDR10 speed s=, FDR/EDR/HDR/NDR also the extended speed
//   e= as ibsim enables it: FDR 1, EDR 3, HDR and NDR 7, ibsim 0.10 knowing nothing above HDR).
// Directives (at the start of a line, matched by prefix like ibsim does):
//   switchguid= / caguid= / hcaguids= / rtguid=   GUID base for the following nodes of that
//     type ("=X" absolute, "+N" relative to the last absolute base; "0x..(..)" accepted);
//   vendid= devid= sysimgguid= pdebug=  read, checked, ignored;
//   extspeed=       default extended speed (e=) for the ports of the following nodes;
//   width= speed=   default enabled width/speed for the ports of the following nodes;
//   include "file"  relative names are looked up next to the including file, then in the
//                   current directory (ibsim itself only uses the current directory);
//   do <command>    ibsim console command at load time: `do Guid "node" 0x..` sets the node
//                   GUID (port GUIDs follow it, as the SM sees them in ibsim); the port form
//                   `do Guid "ca"[p] ..` is rejected because ibsim 0.10 ignores it in NodeInfo;
//                   commands that change the topology or LIDs (Link, Unlink, ReLink, Clear,
//                   Baselid), Quit and `!file` are rejected; the others (Dump, Verbose, ...)
//                   are ignored.
//   Lines starting with '#' or whitespace are comments.
// Console captures: a node header whose blank was lost (`Switch41 "S-.."`, as ibsim reads it)
//   is read; in a terminal session log (a PuTTY log header line `=~=~=~=~... PuTTY log DATE ...`,
//   or script(1)'s `Script started on` / `Script done on` lines, each skipped) any other text
//   before the first node record or after the last (prompts, the command) is skipped with a
//   warning naming its line. Elsewhere such text stays an error.
//
// GUIDs (as ibsim 0.10 assigns them, in file order): switches from 0x200000, one GUID each,
// every switch port carries the node GUID; CAs from 0x100000, node GUID G, port p gets G+p,
// the next CA starts at G+nports+1; routers like CAs but their counter starts at 0 (so the
// first router of a file without `rtguid=` gets node GUID 0 - ibsim really does this).
//
// Shared node GUIDs (director chassis): in some dumps every switch ASIC of a chassis reports the
// chassis GUID as its node GUID, `switchguid=0xSAME(portguid)` with a distinct port GUID in the
// parentheses on each. The reader keeps such switches apart: when a switch's node GUID is already
// taken by another switch and both have a port GUID of their own on their `switchguid=` line,
// each takes that port GUID as its GUID (Node::guid; its ports carry it), and the shared one is
// kept as Node::reported_guid. One warning per file names how many switches and shared GUIDs
// (NetReadOptions::warnings). Two nodes with one node GUID and no port GUID of their own to
// fall back on (CAs, routers, switches without the parentheses) are an error naming both.
// ibsim refuses such a file (node GUIDs must be unique): `ftroute export --to ibsim` writes one
// it loads (make_ibsim_loadable).
//
// Where this reader is deliberately different from ibsim (all documented choices):
//  * Links listed on one end only are ACCEPTED (hand-written files often list a cable once).
//    ibsim 0.10 itself rejects them at start-up ("remote port N in node X is not connected to
//    node Y port M"); write_net() always writes both ends.
//  * Mistakes ibsim silently ignores or misreads are errors here: a record not ended by a blank
//    line (ibsim swallows the next line), a port line outside a record, `"X" [3]` with a blank
//    before the remote port (ibsim reads port 1), a port listed twice, unknown keywords, a
//    port count ibsim would read differently (it starts reading at the 4th/7th character),
//    lines longer than 254 characters (ibsim splits them), port aliases ('@'), `module=`
//    prefixes.
//  * LIDs: switch LIDs (header) and CA port LIDs (port-line comment) are set on the Fabric with
//    their LMC; a stated LID 0 means "none". Overlapping LID ranges are errors.
//
// Every error is a ParseError "<file>:<line>: <message>"; nothing is returned half-built.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ftroute/fabric.hpp"

namespace ftroute {

// Reads a .net file (ibsim or ibnetdiscover format). Throws ParseError (file:line) for
// malformed input and for files that cannot be opened (line 0).
Fabric read_net_file(const std::string& path);

// Parses .net text; `filename` is used in error messages and to resolve relative includes.
Fabric parse_net(std::string_view text, const std::string& filename);

struct NetReadOptions {
  // Take CA/router port GUIDs from ibnetdiscover's "[p](guid)" instead of ibsim's node GUID + p.
  // For dumps of real fabrics (e.g. ConnectX-4 and later report port 1 GUID = node GUID), so
  // that GUID-keyed outputs (lfts "portguid") match the real ports. Such a fabric cannot be
  // written back for ibsim if a port GUID differs from node GUID + p (write_net throws).
  bool port_guids_from_file = false;
  // Where the reader's warnings go, one line each ("<file>:<line>: ..."): appended here when set,
  // else written to stderr as "ftroute: warning: ...". Today: node GUIDs shared by several
  // switches (see "Shared node GUIDs" above), one warning per file read.
  std::vector<std::string>* warnings = nullptr;
};
Fabric read_net_file(const std::string& path, const NetReadOptions& opt);
Fabric parse_net(std::string_view text, const std::string& filename, const NetReadOptions& opt);

// Fast path of parse_net/read_net_file (netfile_fast.cpp, issue 15): the regular subset of the
// format (what `ftroute gen` and write_net() produce: Switch/Hca/Ca records with quoted ids,
// `[p] "id"[rp]` port lines with w=/s=/e=, `# lid L lmc M` LID comments, GUID base and
// width=/speed= directives) in one pass without per-line allocation. Returns nullopt for
// anything else and for every error, and parse_net then runs the full parser on the same text,
// so errors are the full parser's. FTROUTE_SLOW_NET_READER=1 in the environment disables it.
// When it returns a Fabric, that Fabric equals the full parser's (fabric_diff; netfile_fast_test).
std::optional<Fabric> fast_parse_net(std::string_view text);

struct NetWriteOptions {
  std::string comment;      // written as '#' lines at the top (may contain newlines)
  bool write_lids = true;   // write LIDs/LMC of switches (header) and CA ports (port comment)
  // Switches with a reported GUID (Node::reported_guid) are written as ibnetdiscover shows them,
  // `switchguid=0xREPORTED(GUID)`, so the reader gives back the same fabric; ibsim refuses the
  // file when a reported GUID is shared. Off (the default): only the unique GUIDs, for ibsim.
  bool reported_guids = false;
  // Descriptions written as make_ibsim_loadable() makes them ('"' -> '\'', control characters ->
  // '?', 63 characters), the fabric's own left as they are: for OpenSM runs under ibsim, where a
  // description names nothing the results are read back by (GUIDs do).
  bool ibsim_descriptions = false;
};

// Writes an ibsim-loadable .net text: a comment header, then switches (in the order of
// Fabric::switches()), then CAs and routers (node order), each port listed on both ends.
// GUID directives (switchguid=/caguid=/rtguid=) are written only where ibsim's own counters
// would give a different node GUID, so ibsim reproduces every GUID of the Fabric (GUID 0 is
// written as such; ibsim gives it to the first router). A fabric with no GUID at all is written
// without directives and ibsim numbers it (Fabric::assign_default_guids() gives the same GUIDs). If some port's width is not 4x a `width=3` directive (1x|4x enabled)
// is written so every link has a common width in ibsim; extended speeds as `e=`. read(write(f))
// equals f (fabric_diff), reported GUIDs included when NetWriteOptions::reported_guids is set.
// Throws FabricError if the fabric cannot be expressed (id with '"', '#', '@' or longer than 64
// characters, desc with '"' unless NetWriteOptions::ibsim_descriptions, a switch port GUID different from the node GUID, a CA/router port
// GUID other than node GUID + port (ibsim derives port GUIDs that way), an unsupported
// width, a line longer than 255 characters).
std::string write_net(const Fabric& f, const NetWriteOptions& opt = {});

// What `ftroute export --to ibsim` changes in a fabric read from any dump so that ibsim 0.10
// loads it and OpenSM brings it up (node ids, links, LIDs, widths and speeds stay):
//  * node descriptions: '"' becomes '\'', other control characters and tabs '?', cut to the 63
//    characters ibsim keeps (its NodeDescription buffer is 64 bytes with the terminating NUL);
//  * reported GUIDs are dropped: every node keeps its unique GUID (Node::guid);
//  * port GUIDs become what ibsim derives (switch ports: the node GUID; CA/router port p: node
//    GUID + p); a CA or router whose derived port GUIDs would collide with another node's port
//    GUID gets a fresh GUID block above every GUID in use.
// Returns one line per kind of change made (counts and a first example), for warnings.
std::vector<std::string> make_ibsim_loadable(Fabric& f);

// Structural comparison: node order, types, ids, descs, GUIDs (node, reported and port), port
// counts, links, LIDs/LMC, width/speed/extended speed of connected ports. Returns "" when equal,
// else a description of the first difference (e.g. "node 3 \"H1\": port 1 links to \"S1\"[2] vs \"S1\"[3]").
std::string fabric_diff(const Fabric& a, const Fabric& b);

}  // namespace ftroute
