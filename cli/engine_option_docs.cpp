// Engine option defaults and meanings (engine_option_docs.hpp). Sources: each engine's option
// parsing and its doc (docs/ftree-misroute.md, kns.md, ftdrb.md, dqr.md, PLUGIN.md).
#include "engine_option_docs.hpp"

namespace ftroute::cli {

namespace {
const OptionDoc kDocs[] = {
    {"ftdrb", "max_alternatives", "4", "alternative paths (intermediate switches) per destination; extra LMC LIDs reuse them round-robin"},
    {"ftdrb", "max_vls", "8", "layers (VLs) the engine may use; more needed => refused"},
    {"ftdrb", "switch_sources", "false", "also layer paths that start at switches (switch-to-switch traffic)"},
    {"ftdrb", "spread_vls", "0", "0 = first fit onto the lowest layers; N > 0 = spread paths evenly over N VLs"},
    {"kns", "max_in", "2", "most intermediate routers a path around faults may use (0..2)"},
    {"kns", "xordet", "false", "XORDET destination classes (Penaranda): more VLs, less head-of-line blocking"},
    {"kns", "vls", "1 (2 with xordet)", "XORDET classes: 1, 2, 4 or 8"},
    {"kns", "max_vls", "8", "VLs the engine may use (1..15); more needed => refused"},
    {"kns", "k", "0 (recognise)", "expected routers per dimension; refused if the fabric differs"},
    {"kns", "n", "0 (recognise)", "expected dimensions; refused if the fabric differs"},
    {"kns", "lmc_alt", "true", "with LMC: per-source alternative trees on the extra LIDs"},
    {"kns", "switch_sources", "false", "also give switch-sourced paths deadlock-free SLs (needed for ibdmchk -a)"},
    {"ftree-misroute", "valley_leaf", "automatic", "leaf switch whose sub-trees hold the U-turns"},
    {"ftree-misroute", "check", "auto", "check the result (reachability, loops, CDG on VL0); auto = every fabric size"},
    {"ftree-misroute", "max_valleys", "8", "automatic valley-leaf candidates to try"},
    {"ftree-misroute", "free_uturns", "true", "last resort: U-turns anywhere, kept only if the CDG check finds no cycle"},
    {"ftree-misroute", "updn_fallback", "true", "last resort of all: Up*/Down* from one root on 1 VL (any connected fabric), CDG verified"},
    {"ftree-misroute", "root_guid_file", "none", "file of the top switches' node GUIDs (as OpenSM ftree's): ranks counted from them"},
    {"ftree-misroute", "io_guid_file", "none", "file of I/O CA GUIDs (storage, gateways): their switches are not leaves"},
    {"ftree-misroute", "threads", "0 (hardware)", "worker threads for the routing and the self-check (same LFTs for every count)"},
    {"ft-dor", "order", "xy / xyz", "dimension order (a permutation of x, y[, z])"},
    {"ft-dor", "max_vls", "8", "VLs a torus may use (2^dims layers needed); more needed => refused"},
    {"dqr", "base", "ft-dor / ft-minhop", "engine for the first routing and full re-routes (ft-dor on meshes and tori, else ft-minhop)"},
    {"dqr", "base.*", "-", "options passed to the base engine (base.max_vls=4, ...)"},
    {"dqr", "paths", "local", "local = repair near the fault ends first; e2e = every affected switch"},
    {"dqr", "turns", "all", "all = check a path's dependencies jointly; single = one at a time"},
    {"dqr", "plugin", "auto", "mesh turn-model plugin: auto (meshes), mesh, none"},
    {"dqr", "layers", "same", "same = keep path SLs; all = move flows to another virtual layer if needed"},
    {"dqr", "tlr", "false", "turn local reroute: all turns of the local reroute path (the paper's tlr; plugin=mesh: mesh-tlr)"},
    {"dqr", "switch_sources", "false", "switch-sourced traffic is deadlock-checked too"},
    {"dqr", "search_bound", "true", "lower bound that cuts long path searches"},
    {"dqr", "fallback", "true", "full CDG-checked re-route of the base engine when patching fails"},
    {"dqr", "precompute", "true", "build the channel list in the background after each sweep"},
    {"dqr", "staged", "true", "plugin: apply the repair stage by stage (false: OpenSM sends it at once)"},
    {"dqr", "stages", "packed", "plugin: packed = every LID's k-th group in stage k; hops = one stage per hop count"},
    {"dqr", "drain_ms", "lifetimes", "plugin: wait between stages (default: packet_life_time / HOQ lifetimes)"},
    {"dqr", "ack_timeout_ms", "2000", "plugin: longest wait for a stage's LFT answers (default from transaction_timeout)"},
    {"dqr", "stage_dump", "-", "plugin: write the acknowledged tables after each stage to DIR/stage-K.dump"},
    {"ft-lash", "max_vls", "8", "virtual layers (VLs) the engine may use (1..15); more needed => refused"},
    {"ft-lash", "check", "true", "check every layer's CDG of the finished routing"},
    {"ft-minhop", "balance", "true", "balance routes over equal-cost ports by route counters (false: lowest port)"},
    {"ft-minhop", "lmc_spread", "true", "the LIDs of one LMC range leave by different ports / neighbour switches"},
    {"ft-minhop", "count_switch_lids", "true", "switch LIDs count in the balance"},
    {"ft-minhop", "threads", "0 (auto)", "worker threads over switches (0: one per core from 4M LFT entries on, else 1; same LFTs for every count)"},
    {"lft-file", "file", "(required)", "LFT dump: opensm-lfts.dump or dump_fts"},
    {"lft-file", "sl", "none (SL 0)", "path-SL file (ibdmchk -c format)"},
    {"lft-file", "sl2vl", "none (identity)", "SL2VL file (ibdmchk -d or opensm-sl2vl.dump)"},
};
}  // namespace

const OptionDoc* find_option_doc(const std::string& engine, const std::string& key) {
  for (const auto& d : kDocs)
    if (engine == d.engine && key == d.key) return &d;
  return nullptr;
}

}  // namespace ftroute::cli
