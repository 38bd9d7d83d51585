// `ftroute export`: convert LFTs between OpenSM's dump, dump_fts and the files ibdmchk reads; write
// an ibsim-loadable .net of any fabric dump (--to ibsim).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "ftroute/atomic_file.hpp"
#include "cli.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"

namespace {

using namespace ftroute;

// --to ibsim: the fabric of any dump (ibnetdiscover output, a .net file, opensm-subnet.lst) as a
// .net file ibsim 0.10 loads (make_ibsim_loadable), every node, link and LID kept.
int export_ibsim(const std::string& fabric, const std::string& out, uint8_t lmc) {
  cli::check_output_paths({out});
  std::vector<std::string> warnings;
  Fabric f;
  char first = 0;
  {  // opensm-subnet.lst starts with '{' (read_fabric_file's test); everything else is a .net file
    std::ifstream in(fabric, std::ios::binary);
    while (in.get(first) && (first == ' ' || first == '\t' || first == '\n' || first == '\r')) {
    }
  }
  if (first == '{') {
    f = read_fabric_file(fabric, lmc);
  } else {
    NetReadOptions ro;
    ro.warnings = &warnings;
    f = read_net_file(fabric, ro);
  }
  for (const auto& w : warnings) std::fprintf(stderr, "ftroute export: warning: %s\n", w.c_str());
  const std::vector<std::string> changes = make_ibsim_loadable(f);
  for (const auto& c : changes) std::fprintf(stderr, "ftroute export: changed for ibsim: %s\n", c.c_str());
  NetWriteOptions o;
  o.comment = "ibsim-loadable copy of " + escape_name(fabric) + " (ftroute export --to ibsim)";
  for (const auto& c : changes) o.comment += "\nchanged for ibsim: " + c;
  const std::string text = write_net(f, o);  // throws (nothing written) if a node cannot be expressed
  cli::write_file_atomic(out, text);
  if (out != "-")
    std::fprintf(stderr,
                 "wrote %s: %zu switches, %zu CAs, %d links; load it with `ibsim -s %s` (beyond 2048 nodes or 256 "
                 "switches with -N/-S/-P, as scripts/ftsim.sh start does)\n",
                 escape_name(out).c_str(), f.switches().size(), f.cas().size(), f.num_links(), escape_name(out).c_str());
  return 0;
}

int run_export(cli::Args& a) {
  cli::FabricArg fab = cli::fabric_options(a, false);
  const std::string lfts = a.value_or("lfts", "", "-l");
  const std::string fmt_name = a.value_or("format", "auto");
  const std::string to = a.value_or("to", "");
  const std::string out = a.value_or("out", "", "-o");
  const std::string sl = a.value_or("sl", "");
  const std::string sl2vl = a.value_or("sl2vl", "");
  const long lmc = a.int_in("lmc", 0, 0, 7);
  const long sm_lid = a.int_or("sm-lid", 0);
  const bool lids_from_file = a.flag("lids-from-file");
  auto pos = a.positionals();
  cli::fabric_positional(fab, pos, false);
  if (!pos.empty()) throw cli::UsageError("unexpected argument '" + pos[0] + "'");
  const std::string& fabric = fab.file;
  if (out.empty()) throw cli::UsageError("-o OUT is required");
  if (to == "ibsim") {  // the fabric alone: no LFTs, no SL files
    if (!lfts.empty() || !sl.empty() || !sl2vl.empty() || lids_from_file || sm_lid || fmt_name != "auto")
      throw cli::UsageError("--to ibsim writes the fabric alone (--lfts, --format, --sl, --sl2vl, --sm-lid and "
                            "--lids-from-file do not apply)");
    return export_ibsim(fabric, out, static_cast<uint8_t>(lmc));
  }
  if (lfts.empty()) throw cli::UsageError("--lfts FILE is required");
  auto in_fmt = parse_lft_format(fmt_name);
  if (!in_fmt || *in_fmt == LftFormat::Minimal)
    throw cli::UsageError("--format must be auto, opensm or dump_fts, got '" + fmt_name + "'");
  if (sm_lid < 0 || sm_lid > kMaxUnicastLid) throw cli::UsageError("--sm-lid out of range");
  LftFormat ofmt = LftFormat::Opensm;
  if (to == "opensm-lfts" || to == "opensm") ofmt = LftFormat::Opensm;
  else if (to == "dump_fts" || to == "ibroute") ofmt = LftFormat::DumpFts;
  else if (to == "minimal") ofmt = LftFormat::Minimal;
  else if (to != "ibdmchk")
    throw cli::UsageError("--to must be opensm-lfts, dump_fts, minimal, ibdmchk or ibsim, got '" + to + "'");
  if (to == "ibdmchk") cli::check_output_dir(out);  // before any work: all or none is written
  else cli::check_output_paths({out});

  LoadedRouting lr = load_routing(fabric, lfts, *in_fmt, sl, sl2vl, lids_from_file, static_cast<uint8_t>(lmc));
  for (const auto& w : lr.warnings) std::fprintf(stderr, "ftroute export: warning: %s\n", w.c_str());
  const Fabric& f = lr.fabric;

  if (to == "ibdmchk") {
    // -o is a directory: opensm-subnet.lst, opensm.fdbs, opensm.mcfdbs (+ path_sl.txt, sl2vl.txt)
    SubnetLstOptions so;
    so.sm_lid = static_cast<Lid>(sm_lid);
    PathSlWriteOptions po;  // every pair ibdmchk (-a) traces, SL 0 included
    po.all_pairs = true;
    po.switch_sources = true;
    std::error_code ec;
    const bool existed = std::filesystem::exists(out, ec);
    std::filesystem::create_directories(out, ec);
    if (ec || !std::filesystem::is_directory(out))
      throw Error("cannot create directory " + out + (ec ? ": " + ec.message() : ""));
    const std::string d = out + "/";
    // A directory this command created goes again on any error (declared before the files, so their
    // temp files are removed first).
    struct RemoveIfCreated {
      std::string dir;
      bool armed;
      ~RemoveIfCreated() {
        std::error_code e;
        if (armed) std::filesystem::remove_all(dir, e);
      }
    } created_dir{out, !existed};
    // Every file streamed into its temp file first, then all renamed: nothing half-written.
    AtomicFile lst(d + "opensm-subnet.lst"), fdbs(d + "opensm.fdbs"), mcfdbs(d + "opensm.mcfdbs");
    lst.write(write_subnet_lst(f, so));
    {
      TextOut o(fdbs.sink());
      write_fdbs(f, lr.routing.lfts, o);
      o.flush();
    }
    mcfdbs.write(write_mcfdbs_empty());
    std::string cmd = "ibdmchk -s " + d + "opensm-subnet.lst -f " + d + "opensm.fdbs -m " + d + "opensm.mcfdbs";
    std::optional<AtomicFile> psl, slvl;
    if (!sl.empty()) {
      psl.emplace(d + "path_sl.txt");
      TextOut o(psl->sink());
      write_path_sl(f, lr.routing, o, po);
      o.flush();
      cmd += " -c " + d + "path_sl.txt";
    }
    if (!sl2vl.empty()) {
      slvl.emplace(d + "sl2vl.txt");
      TextOut o(slvl->sink());
      write_sl2vl(f, lr.routing.sl2vl, o);
      o.flush();
      cmd += " -d " + d + "sl2vl.txt";
    }
    lst.commit();
    fdbs.commit();
    mcfdbs.commit();
    if (psl) psl->commit();
    if (slvl) slvl->commit();
    created_dir.armed = false;
    uint8_t max_lmc = 0;
    for (const EndPort& e : f.end_ports()) max_lmc = std::max(max_lmc, e.lmc);
    if (max_lmc) cmd += " -l " + std::to_string(max_lmc);
    std::fprintf(stderr, "wrote %s{opensm-subnet.lst,opensm.fdbs,opensm.mcfdbs}; check with:\n  %s\n", d.c_str(),
                 cmd.c_str());
    return 0;
  }
  AtomicFile file(out);  // streamed: the dump never exists as one string
  TextOut o(file.sink());
  write_lfts(f, lr.routing.lfts, ofmt, o);
  o.flush();
  file.commit();
  return 0;
}

}  // namespace

FTROUTE_SUBCOMMAND(export, "convert LFTs: opensm-lfts.dump, dump_fts, ibdmchk files; a fabric dump for ibsim",
                   R"(usage: ftroute export [--fabric] FABRIC --lfts IN --to FORMAT -o OUT [options]
       ftroute export [--fabric] FABRIC --to ibsim -o OUT.net

Reads the LFTs in IN (opensm-lfts.dump or dump_fts / ibroute output), maps them onto FABRIC by
switch GUID and writes them as FORMAT:
  opensm-lfts   OpenSM's opensm-lfts.dump; loadable by OpenSM's file engine
                (`opensm -R file -U OUT`), every entry carries the destination portguid so OpenSM
                remaps LIDs if they changed
  dump_fts      infiniband-diags dump_fts format (switches addressed as "Lid N")
  minimal       bare "0xLID PORT # portguid 0x..." lines under "Unicast lids" headers
  ibdmchk       OUT is a directory; writes opensm-subnet.lst, opensm.fdbs and an empty
                opensm.mcfdbs (plus path_sl.txt / sl2vl.txt with --sl / --sl2vl) for
                `ibdmchk -s OUT/opensm-subnet.lst -f OUT/opensm.fdbs -m OUT/opensm.mcfdbs`
  ibsim         no --lfts: FABRIC itself (ibnetdiscover output of a real fabric, any .net file, or
                opensm-subnet.lst) as a .net file ibsim loads (`ibsim -s OUT.net`, or
                `scripts/ftsim.sh start OUT.net`, `demo.sh --net OUT.net`): every node, link, LID,
                width and speed kept, SHARP aggregation nodes included; node descriptions kept
                but made safe for ibsim ('"' -> ', control characters -> ?, at most 63
                characters); switches of a director chassis that share the chassis GUID as their
                node GUID are written with their own port GUIDs; nodes whose port GUIDs, as ibsim
                derives them (CA port p = node GUID + p), would collide move to fresh GUIDs.
                Each change is named on stderr and in the file's header.
Every file is written atomically; nothing is written if reading or mapping fails.

  -f, --fabric FILE      ibsim/ibnetdiscover .net file, or OpenSM's opensm-subnet.lst (or positional)
  -l, --lfts FILE        input LFTs
  --format F             input format: auto (default), opensm, dump_fts
  --to FORMAT            output format (see above)
  -o, --out OUT          output file ('-' = stdout), or directory for --to ibdmchk
  --sl FILE, --sl2vl FILE  path-SL / SL2VL files (ibdmchk -c / -d formats) to pass through;
                         with --to ibdmchk path_sl.txt lists every (source node, DLID) pair
                         ibdmchk -a traces, SL 0 included (docs/ibdmchk.md)
  --sm-lid N             LID of the SM port, marked "-SM" in opensm-subnet.lst
  --lids-from-file       take LIDs from IN's portguid comments even if FABRIC has LIDs
  --lmc N                LMC of the CA ports when FABRIC is an opensm-subnet.lst

Example:
  ftroute export -f fabric.net -l fts.txt --to opensm-lfts -o opensm-lfts.dump
  ftroute export -f fabric.net -l opensm-lfts.dump --to ibdmchk -o chk/
  ibnetdiscover > fabric.txt && ftroute export fabric.txt --to ibsim -o fabric.net)",
                   run_export);
