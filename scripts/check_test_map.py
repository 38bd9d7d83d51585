#!/usr/bin/env python3
"""Every library source file that holds logic has a test (docs/ARCHITECTURE.md, "Tests").

Library files: every .cpp under the top-level folders except tests/, cli/, bench/ and cmake/
(and build folders: top-level folders named build*, any folder holding a CMakeCache.txt), so a
new component folder is checked as soon as it has a source file. A library file passes when

  1. it has a test file named after it in its component's unit-test folder,
     tests/unit/<component>/<name>_test.cpp, defining at least one test; or
  2. a gtest suite under tests/unit/ is named after it (TEST(RouteWalk, ...) for route_walk.cpp;
     compared without underscores and case, so FtDrb counts for ftdrb.cpp, MinHop for minhop.cpp);
  3. or it has an entry in EXCEPTIONS below.

<name> is the file's stem, the stem prefixed with its component (flitsim/traffic.cpp:
flitsim_traffic_test.cpp, suite FlitsimTraffic) or, in a sub-folder, prefixed with that folder
(routing_engines/engines/dqr/repair.cpp: suite DqrRepair).

An exception entry says which tests cover the file ("tests": test files, tests/unit/...,
tests/integration/... or tests/cli/...; "suites": "Suite" or "Suite.Test"; "calls": names the
file defines or reads that those tests use), or why the file holds no logic ("no_logic"), or that
it has no direct test yet ("untested": printed as a warning, not a failure). The table cannot rot:
every named source file, test file and suite must exist, a named .cpp test file must define a test,
every "calls" name must occur in the source file and in one of the covering files, and an entry
for a file that already has a test or suite of its own name is an error (remove it).

Prints one line per failure, "file: ...", the warnings, then a summary; exit 1 on any failure.

usage: check_test_map.py [--list] [REPO_ROOT]   (ctest: architecture.test_map, label unit)
       check_test_map.py --self-test            (ctest: architecture.test_map_catches)
  --list prints how each library file is covered.
  --self-test builds a small tree in a temporary folder with one case of each rule and exits 0
  only if exactly the planted problems are reported.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import project_tree  # noqa: E402  (the project's directories, shared with the other lint script)

NOT_LIBRARIES = {".git", "tests", "cli", "bench", "cmake", "third_party"}

# Library files covered by tests not named after them, or holding no logic. Keep it short: a new
# file with logic gets tests/unit/<component>/<stem>_test.cpp or a suite of its name instead.
EXCEPTIONS = {
    # fabric
    "fabric/input_file.cpp": {
        "tests": ["tests/unit/fabric/bad_input_test.cpp", "tests/unit/fabric/netfile_fast_test.cpp",
                  "tests/unit/fabric/node_names_test.cpp"],
        "suites": ["BadInput.EndlessLineAndSizeLimit", "BadInput.TableReadersRejectNonText", "BadInput.EscapeName",
                   "NodeNames.HostileDescriptionIsEscaped"],
        "calls": ["read_input_file", "read_input_text", "net_input_limits", "escape_name", "has_control_chars",
                  "quote_name"],
        "why": "input limits, binary/control-byte checks and name escaping, tested where the readers use them",
    },
    "fabric/netfile_write.cpp": {
        "tests": ["tests/unit/fabric/netfile_test.cpp"],
        "suites": ["NetFile.WriterReproducesNonDefaultGuidsAndLids", "NetFile.WriterRejectsWhatIbsimCannotLoad",
                   "NetFile.MakeIbsimLoadableKeepsEveryNodeLinkAndLid", "NetFile.FabricDiffFindsDifferences",
                   "NetFile.GeneratedTopologiesRoundTrip"],
        "calls": ["write_net", "make_ibsim_loadable", "fabric_diff"],
        "why": "the .net writer, split out of netfile.cpp; its tests stay with the reader's (round trips)",
    },
    "fabric/routing.cpp": {
        "suites": ["Lfts", "Sl2Vl"],
        "calls": ["Lfts", "Sl2Vl", "identity"],
        "why": "the Lfts and Sl2Vl tables it defines have suites of their own (fabric_test.cpp)",
    },
    # check
    "check/cdg_build.cpp": {
        "tests": ["tests/unit/check/cdg_test.cpp", "tests/unit/check/cdg_fast_test.cpp"],
        "suites": ["Cdg.MatchesNaivePerPairWalkOnRandomRoutings", "CdgFast.MatchesPerSourceWalkOnRandomRoutings"],
        "calls": ["build_cdg", "CdgBuild"],
        "why": "build_cdg(), the Cdg suite's entry point, checked against naive per-pair walks",
    },
    # routing_engines: DQR
    "routing_engines/engines/dqr/reconfigure.cpp": {
        "tests": ["tests/unit/routing_engines/dqr_reconf_test.cpp", "tests/unit/routing_engines/dqr_scale_test.cpp"],
        "suites": ["DqrReconf", "DqrScale"],
        "calls": ["dqr_reconfigure", "dqr_routing", "dqr_apply"],
        "why": "dqr_reconfigure()/dqr_routing(): the DqrReconf suite (reconf = reconfigure)",
    },
    "routing_engines/engines/dqr/layer_moves.cpp": {
        "tests": ["tests/unit/routing_engines/dqr_reconf_test.cpp"],
        "suites": ["DqrReconf.LayerMovesRepairWhatTheOwnLayersCannot"],
        "calls": ["Layers::All"],
        "why": "layers=all's moves, asserted to repair what the own layers cannot without a new VL",
    },
    # routing_engines: ftree-misroute (internal parts of the engine, reached through it)
    "routing_engines/engines/ftree_misroute/fattree.cpp": {
        "tests": ["tests/unit/routing_engines/ftree_misroute_test.cpp", "tests/unit/routing_engines/ftree_shapes_test.cpp",
                  "tests/unit/routing_engines/ftree_real_shapes_test.cpp"],
        "suites": ["FtreeRecognition", "FtreeShapes.NonTreesAreRefusedNamingSwitchAndPort",
                   "FtreeShapes.RootAndIoGuidFilesSettleHostsOnCores", "GeneralisedFatTree.ShowTreeExplainsTheRecognition"],
        "calls": ["recognize_fat_tree", "explain_fat_tree", "read_guid_file"],
        "why": "fat-tree recognition: the FtreeRecognition suite and the shapes tests",
    },
    "routing_engines/engines/ftree_misroute/dest_index.cpp": {
        "tests": ["tests/unit/routing_engines/ftree_misroute_test.cpp", "tests/unit/routing_engines/ftree_real_shapes_test.cpp",
                  "tests/unit/routing_engines/ftree_lft_pin_test.cpp"],
        "suites": ["FtreeMisroute.FaultFreeIsMinimalUpDownAndBalanced", "FtreeMisroute.ShiftPermutationIsContentionFree",
                   "FtreeMisroute.LmcLidsTakeDifferentUpPorts", "AggregationNodes.OwnIndexSpreadsAnAndSwitchLid",
                   "DirectorPresets.BalancedNoWorseThanFtMinhop", "LftPin.SameLftsAsBeforeTheSpeedWork"],
        "why": "the engine's private d-mod-k numbering: balance, contention-free shifts and LMC spread are "
               "asserted on the routed tables, and the LFT pins change with any change of an index",
    },
    "routing_engines/engines/ftree_misroute/updn_fallback.cpp": {
        "tests": ["tests/unit/routing_engines/ftree_misroute_test.cpp", "tests/unit/routing_engines/ftree_real_shapes_test.cpp"],
        "suites": ["FtreeMisroute.UpDownLastResortRoutesEveryConnectedFaultSet",
                   "GeneralisedFatTree.UpDownLastResortServesTheStormFaultSet"],
        "calls": ["updn_fallback"],
        "why": "the engine's private last resort, asserted Up*/Down* and complete on every connected fault set",
    },
    # routing_engines: KNS
    "routing_engines/engines/kns/kns.cpp": {
        "tests": ["tests/unit/routing_engines/kns_engine_test.cpp"],
        "suites": ["KnsEngine", "KnsRecognize"],
        "calls": ["recognize_kns", "KnsEngine"],
        "why": "the KNS engine and its recognition: suites KnsEngine, KnsRecognize",
    },
    "routing_engines/engines/kns/kns_model.cpp": {
        "tests": ["tests/unit/routing_engines/kns_engine_test.cpp"],
        "suites": ["KnsFaults.ThesisLemmasOnSmallNetworks", "KnsFaults.TreesNeverClaimMoreThanTheThesisCriterion",
                   "KnsFaults.LmcAlternativeTreesReachTheThesisCriterion", "KnsFaults.ThesisInsAreTheBestPathOfDorLegs"],
        "calls": ["thesis_tolerance", "tree_tolerance", "build_lid_trees", "xordet_class", "random_link_faults",
                  "thesis_ins", "faulty_dor_pairs"],
        "why": "the thesis model (kns::Model, trees, tolerance): the KnsFaults suite",
    },
    "routing_engines/engines/kns/fault_stats.cpp": {
        "tests": ["tests/unit/routing_engines/kns_engine_test.cpp"],
        "suites": ["KnsFaults.FaultDrawModels"],
        "calls": ["fault_stats", "parse_draw", "draw_link_faults"],
        "why": "`ftroute kns-faults` statistics: the KnsFaults suite",
    },
    # ibsim_topologies: generators of seed 003's Table III (their header is fip_topologies.hpp)
    "ibsim_topologies/dragonfly.cpp": {
        "tests": ["tests/unit/ibsim_topologies/fip_topologies_test.cpp"],
        "suites": ["FipTopologies.DragonflyTableIII", "FipTopologies.DragonflyArrangements"],
        "calls": ["dragonfly", "parse_dragonfly_arrangement", "dragonfly_arrangement_name"],
        "why": "the FipTopologies suite, named after the generators' shared header",
    },
    "ibsim_topologies/kautz.cpp": {
        "tests": ["tests/unit/ibsim_topologies/fip_topologies_test.cpp"],
        "suites": ["FipTopologies.KautzTableIII", "FipTopologies.KautzArcsAreShifts"],
        "calls": ["kautz"],
        "why": "the FipTopologies suite, named after the generators' shared header",
    },
    "ibsim_topologies/random_topology.cpp": {
        "tests": ["tests/unit/ibsim_topologies/fip_topologies_test.cpp"],
        "suites": ["FipTopologies.RandomTableIII"],
        "calls": ["random_topology"],
        "why": "the FipTopologies suite, named after the generators' shared header",
    },
    "ibsim_topologies/xgft.cpp": {
        "tests": ["tests/unit/ibsim_topologies/fip_topologies_test.cpp"],
        "suites": ["FipTopologies.XgftTableIII", "FipTopologies.XgftTwoLevelsIsAFatTree",
                   "FipTopologies.CampaignSpecsBuildThePaperFabrics"],
        "calls": ["xgft"],
        "why": "the FipTopologies suite, named after the generators' shared header; parse_xgft through the "
               "campaign specs, bad ones included",
    },
    "ibsim_topologies/kns.cpp": {
        "tests": ["tests/unit/ibsim_topologies/kns_topology_test.cpp"],
        "suites": ["KnsTopology"],
        "calls": ["make_kns", "kns_formula_size", "kns_count_size"],
        "why": "the KNS generator: kns_topology_test (its header is kns_topology.hpp)",
    },
    # flitsim: the parts of Simulator::Impl, exercised by every simulation
    "flitsim/sim.cpp": {
        "tests": ["tests/unit/flitsim/flitsim_test.cpp", "tests/unit/flitsim/flitsim_analytic_test.cpp",
                  "tests/unit/flitsim/flitsim_threads_test.cpp"],
        "suites": ["FlitsimZeroLoad", "FlitsimConservation", "FlitsimThroughput", "FlitsimAnalytic", "FlitsimThreads"],
        "calls": ["Simulator"],
        "why": "the simulator's core loop: zero-load latency, conservation, analytic bounds, thread counts",
    },
    "flitsim/network.cpp": {
        "tests": ["tests/unit/flitsim/flitsim_test.cpp", "tests/unit/flitsim/flitsim_faults_test.cpp"],
        "suites": ["FlitsimConservation.NoLossNoDuplicatesCreditsNonNegative", "FlitsimVl.PacketsOnAMissingVlAreDroppedWithAReason",
                   "FlitsimZeroLoad.LatencyIsHopsTimesPipelinePlusSerialization"],
        "why": "Simulator::Impl::build() and the SL2VL cache: channels and VLs asserted through every run",
    },
    "flitsim/deadlock_report.cpp": {
        "tests": ["tests/unit/flitsim/flitsim_faults_test.cpp", "tests/unit/flitsim/flitsim_test.cpp"],
        "suites": ["FlitsimWormhole.OneVlTorusDeadlockIsReportedAsAChannelCycle",
                   "FlitsimDeadlock.TornadoRingDeadlocksWithoutNacAndCompletesWithNac"],
        "calls": ["cycle_channels"],
        "why": "the wait-for cycle of a deadlock, asserted closed channel by channel",
    },
    "flitsim/ftdrb_select.cpp": {
        "tests": ["tests/unit/flitsim/flitsim_ftdrb_test.cpp"],
        "suites": ["FlitsimFtDrb"],
        "calls": ["LidPolicy::FtDrb"],
        "why": "FT-DRB's source-side selection (LidPolicy::FtDrb): the FlitsimFtDrb suite",
    },
    "flitsim/report.cpp": {
        "tests": ["tests/unit/flitsim/flitsim_test.cpp"],
        "suites": ["FlitsimSweep.CsvAndSvg"],
        "calls": ["parse_sweep", "sweep_csv", "sweep_svg", "format_result"],
        "why": "sweeps, CSV and SVG: the FlitsimSweep suite",
    },
    "flitsim/testnets.cpp": {
        "tests": ["tests/unit/flitsim/flitsim_test.cpp", "tests/unit/flitsim/flitsim_model_test.cpp"],
        "suites": ["FlitsimCheck", "FlitsimZeroLoad", "FlitsimThroughput.TornadoOnRingReachesLinkBound"],
        "calls": ["make_mesh", "route_dor", "make_kary_ntree", "route_ntree", "route_minhop"],
        "why": "the simulator's test networks and their routings: every flitsim test routes on them and "
               "checks the routes (FlitsimCheck) and the latencies they imply",
    },
    "flitsim/endpoints.cpp": {
        "tests": ["tests/unit/flitsim/flitsim_ftdrb_test.cpp", "tests/unit/flitsim/booksim_config_test.cpp"],
        "suites": ["FlitsimFtDrb.EngineGivesFourLidsPerCa"],
        "calls": ["endpoints_of"],
        "why": "a 20-line loop numbering the connected CA ports; its count and LMC asserted",
    },
    # campaign
    "campaign/run.cpp": {
        "tests": ["tests/unit/campaign/campaign_test.cpp", "tests/unit/campaign/campaign_lifetime_test.cpp"],
        "suites": ["Campaign.RunOneFaultsAreSeededAndValidated", "Campaign.PlanAndShardsPartitionTheRuns",
                   "Campaign.FailureCounts", "Campaign.Torus2QosConfForGeneratedGrids", "Campaign.PathSlOutputParsing"],
        "calls": ["run_one", "plan", "failures_count", "torus2qos_conf", "parse_pathsl_output", "parse_fabric_source"],
        "why": "one campaign run and its plan: the Campaign suite",
    },
    "campaign/report.cpp": {
        "tests": ["tests/unit/campaign/campaign_test.cpp", "tests/cli/campaign_csv_test.sh"],
        "suites": ["Campaign.CsvRoundTripQuotesAndRejectsDamage", "Campaign.RunsResumeAndMerge",
                   "Campaign.SummaryShowsMedianAndWorstChangeVsFaultFree", "Campaign.PlotMarksRefusedRuns"],
        "calls": ["parse_csv", "csv_row", "merge", "summary_table", "plot_svg", "csv_complete_prefix"],
        "why": "CSV, merge, plots and summary: the Campaign suite and cli/campaign_csv_test.sh",
    },
    "campaign/settings.cpp": {
        "tests": ["tests/unit/campaign/campaign_test.cpp", "tests/cli/campaign_settings_test.sh"],
        "suites": ["Campaign.SettingsRecordShiftOrderAndRoundTrip", "Campaign.SettingsCompareMissingShiftOrderMeansIndex",
                   "Campaign.ResumeWithOtherShiftOrderIsRefused"],
        "calls": ["campaign_settings", "parse_campaign_settings", "compare_campaign_settings", "read_campaign_settings"],
        "why": "campaign.conf: the Campaign suite; merge_settings through cli/campaign_settings_test.sh",
    },
    "campaign/opensm.cpp": {
        "tests": ["tests/unit/campaign/campaign_test.cpp", "tests/unit/campaign/campaign_compare_test.cpp",
                  "tests/unit/campaign/engine_choice_test.cpp", "tests/cli/compare_opensm_test.sh"],
        "suites": ["Campaign.OpenSmRunUnderIbsim", "ComparisonCampaign.FtroutePluginAndOpensmFtreeUnderIbsim",
                   "EngineChoice.SimulatorMissingIsNamed", "EngineChoice.OpensmNamesAndTheScratchDirectory"],
        "calls": ["opensm_sim_missing", "opensm_engine_names"],
        "why": "OpenSM under ibsim: run by the ibsim-labelled Campaign/ComparisonCampaign tests and "
               "integration.compare_opensm; the names and the missing-simulator message by EngineChoice",
    },
    "campaign/pathsl/ftroute_pathsl.cpp": {
        "tests": ["tests/unit/campaign/campaign_test.cpp"],
        "suites": ["Campaign.OpenSmPathSlsMakeTheCdgAcyclic"],
        "why": "the ftroute-pathsl tool (SA PathRecord queries) needs a running SA: the ibsim-labelled "
               "campaign test takes lash's path SLs from it (no plugin) and checks the CDG acyclic",
    },
    # report
    "report/tree_levels.cpp": {
        "tests": ["tests/unit/report/fabric_svg_test.cpp"],
        "suites": ["FabricSvg.LevelsOfARecognisedTree", "FabricSvg.BfsLevelsWhenNotATree",
                   "FabricSvg.MissingAndUnusedCablesAreMarked", "FabricSvg.ABundleShortOfACableAndATopCableMissing"],
        "calls": ["tree_levels", "missing_cables"],
        "why": "the picture's levels (fabric_svg.hpp declares them): the FabricSvg suite",
    },
    # plugin: the OpenSM side of libftroute.so, only testable with OpenSM (its adapter is unit-tested)
    "plugin/osm_plugin.cpp": {
        "tests": ["tests/integration/plugin_test.cpp", "tests/integration/smoke_test.cpp"],
        "suites": ["Plugin.FtMinhopConfiguresFatTreeAndMatchesOffline", "Plugin.EveryEngineRegistered",
                   "Plugin.BadOptionFailsCleanlyAndOpensmFallsBack", "Plugin.OwnHopMatricesEqualOpenSms"],
        "why": "OpenSM's callbacks: the integration tests run OpenSM with the plugin under ibsim",
    },
    "plugin/osm_stage.cpp": {
        "tests": ["tests/integration/dqr_stage_test.cpp"],
        "suites": ["DqrStage"],
        "why": "DQR's staged transition on the wire: the DqrStage integration tests under ibsim",
    },
    "plugin/osm_pathsl.cpp": {
        "tests": ["tests/integration/path_sl_dump_test.cpp", "tests/integration/dor_plugin_test.cpp"],
        "suites": ["PathSlDump", "DorPlugin.TorusRoutedWithEcubeLayersAndSaSls"],
        "why": "the path-SL dump asks OpenSM's SA code: the PathSlDump integration tests compare it with "
               "saquery's answers under ibsim",
    },
}

TEST_RE = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)


def squash(name):
    return name.replace("_", "").lower()


def library_sources(root):
    """Relative paths of the library .cpp files, sorted."""
    found = []
    for dirpath, rel_dir, filenames in project_tree.walk(root, NOT_LIBRARIES):
        if rel_dir == ".":
            continue  # top-level files are no component's
        for fn in filenames:
            if fn.endswith(".cpp"):
                found.append(os.path.relpath(os.path.join(dirpath, fn), root).replace(os.sep, "/"))
    return sorted(found)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def test_index(root):
    """{relative test file: [(suite, test), ...]} for every .cpp under tests/unit and tests/integration."""
    index = {}
    for sub in ("tests/unit", "tests/integration"):
        for dirpath, _, filenames in os.walk(os.path.join(root, sub)):
            for fn in filenames:
                if fn.endswith(".cpp"):
                    path = os.path.join(dirpath, fn)
                    index[os.path.relpath(path, root).replace(os.sep, "/")] = TEST_RE.findall(read(path))
    return index


def own_names(src):
    """The names a test file or suite of src may carry: stem, component_stem, subfolder_stem."""
    parts = src.split("/")
    stem = parts[-1][:-len(".cpp")]
    names = [stem, parts[0] + "_" + stem]
    if len(parts) > 2 and parts[-2] != parts[0]:
        names.append(parts[-2] + "_" + stem)
    return names


def has_word(text, word):
    return re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text) is not None


def check(root, exceptions):
    """(failures, warnings, rows): rows are (source, kind, detail) with kind one of
    'test file', 'suite', 'covered', 'no logic', 'untested', 'MISSING'."""
    sources = library_sources(root)
    tests = test_index(root)
    unit_suites = {}  # squashed suite name -> suite name, unit tests only
    all_tests = {}  # "Suite" and "Suite.Test" -> files defining it
    for path, found in tests.items():
        for suite, name in found:
            if path.startswith("tests/unit/"):
                unit_suites.setdefault(squash(suite), suite)
            all_tests.setdefault(suite, set()).add(path)
            all_tests.setdefault(suite + "." + name, set()).add(path)
    failures, warnings, rows = [], [], []

    def own_test(src):
        comp = src.split("/")[0]
        for n in own_names(src):
            rel = f"tests/unit/{comp}/{n}_test.cpp"
            if tests.get(rel):
                return "test file", rel
        for n in own_names(src):
            if squash(n) in unit_suites:
                return "suite", unit_suites[squash(n)]
        return None

    for src in sources:
        own = own_test(src)
        entry = exceptions.get(src)
        if own and entry is not None:
            failures.append(f"{src}: has its own {own[0]} {own[1]}; remove its entry from the exception table")
        if own:
            rows.append((src, own[0], own[1]))
            continue
        if entry is None:
            comp, stem = src.split("/")[0], own_names(src)[0]
            camel = "".join(w.capitalize() for w in stem.split("_"))
            failures.append(f"{src}: no test: add tests/unit/{comp}/{stem}_test.cpp or a suite {camel}, "
                            "or an entry in scripts/check_test_map.py's exception table")
            rows.append((src, "MISSING", ""))
            continue
        if "untested" in entry:
            warnings.append(f"{src}: no direct test yet ({entry['untested']})")
            rows.append((src, "untested", entry["untested"]))
        elif "no_logic" in entry:
            rows.append((src, "no logic", entry["no_logic"]))
        else:
            rows.append((src, "covered", ", ".join(entry.get("tests", []) + entry.get("suites", []))))

    for src, entry in sorted(exceptions.items()):
        src_path = os.path.join(root, src)
        if not os.path.isfile(src_path):
            failures.append(f"{src}: exception entry for a file that does not exist")
            continue
        if src not in sources:
            failures.append(f"{src}: exception entry for a file that is not a library source")
            continue
        kinds = [k for k in ("untested", "no_logic") if k in entry]
        covering = entry.get("tests", []) + entry.get("suites", [])
        if len(kinds) > 1 or (kinds and covering) or (not kinds and not covering):
            failures.append(f"{src}: an exception entry needs tests/suites, or no_logic, or untested (one of them)")
            continue
        if not kinds and not entry.get("why"):
            failures.append(f"{src}: exception entry without a 'why'")
        cover_files = set()
        for t in entry.get("tests", []):
            path = os.path.join(root, t)
            if not t.startswith("tests/") or not os.path.isfile(path):
                failures.append(f"{src}: exception names test file {t}, which does not exist")
            elif t.endswith(".cpp") and not tests.get(t):
                failures.append(f"{src}: exception names test file {t}, which defines no test")
            else:
                cover_files.add(t)
        for s in entry.get("suites", []):
            if s not in all_tests:
                failures.append(f"{src}: exception names suite {s}, which no test under tests/ defines")
            else:
                cover_files |= all_tests[s]
        if entry.get("calls"):
            src_text = read(src_path)
            cover_text = "\n".join(read(os.path.join(root, f)) for f in sorted(cover_files))
            for name in entry["calls"]:
                if not has_word(src_text, name):
                    failures.append(f"{src}: exception lists '{name}', which the file does not contain")
                elif not has_word(cover_text, name):
                    failures.append(f"{src}: exception lists '{name}', which none of its covering tests uses")
    return failures, warnings, rows


def summary(rows):
    count = {}
    for _, kind, _ in rows:
        count[kind] = count.get(kind, 0) + 1
    order = ["test file", "suite", "covered", "no logic", "untested", "MISSING"]
    names = {"test file": "own-named test file", "suite": "own-named suite", "covered": "covered by other tests (table)",
             "no logic": "no logic (table)", "untested": "no direct test yet (table)", "MISSING": "without a test"}
    return f"check_test_map: {len(rows)} library files: " + ", ".join(f"{count.get(k, 0)} {names[k]}" for k in order)


def run(root, exceptions, listing=False):
    failures, warnings, rows = check(root, exceptions)
    if listing:
        for src, kind, detail in rows:
            print(f"{src}: {kind}" + (f": {detail}" if detail else ""))
    for f in failures:
        print(f)
    for w in warnings:
        print("warning: " + w)
    print(summary(rows))
    return failures, warnings


def self_test():
    def write(root, rel, text):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    test = "#include <gtest/gtest.h>\nTEST({}, Works) {{ EXPECT_EQ(1, 1); }}\n"
    with tempfile.TemporaryDirectory() as root:
        write(root, "check/route_walk.cpp", "int walk_routes() { return 1; }\n")      # own test file
        write(root, "tests/unit/check/route_walk_test.cpp", test.format("Anything"))
        write(root, "check/cdg.cpp", "int cdg() { return 1; }\n")                      # own suite (other file)
        write(root, "tests/unit/check/graphs_test.cpp", test.format("Cdg"))
        write(root, "engines/dqr/repair.cpp", "int repair() { return 1; }\n")          # subfolder-prefixed suite
        write(root, "tests/unit/engines/dqr_parts_test.cpp", test.format("DqrRepair"))
        write(root, "sim/traffic.cpp", "int pattern() { return 1; }\n")                # component-prefixed file
        write(root, "tests/unit/sim/sim_traffic_test.cpp", test.format("Flows"))
        write(root, "check/empty.cpp", "int x;\n")                                     # test file without a test
        write(root, "tests/unit/check/empty_test.cpp", "// nothing yet\n")
        write(root, "check/lonely.cpp", "int lonely() { return 1; }\n")                # no test at all
        write(root, "check/covered.cpp", "int build_graph() { return 1; }\n")          # table: covered, valid
        write(root, "tests/unit/check/graph_test.cpp", test.format("Graph") + "int y = build_graph();\n")
        write(root, "check/stale.cpp", "int stale() { return 1; }\n")                  # table: missing test file
        write(root, "check/ghost_suite.cpp", "int ghost() { return 1; }\n")            # table: missing suite
        write(root, "check/no_call.cpp", "int not_called() { return 1; }\n")           # table: name unused by tests
        write(root, "check/tables.cpp", "const int kTable[] = {1, 2};\n")              # table: no logic
        write(root, "check/later.cpp", "int later() { return 1; }\n")                  # table: untested (warning)
        write(root, "check/redundant.cpp", "int r() { return 1; }\n")                  # table, but has own suite
        write(root, "tests/unit/check/more_test.cpp", test.format("Redundant"))
        write(root, "cli/main.cpp", "int main() {}\n")                                 # not library files
        write(root, "bench/bench_x.cpp", "int main() {}\n")
        write(root, "tests/unit/check/helper.cpp", "int h;\n")
        write(root, "build/gen/generated.cpp", "int g;\n")
        write(root, "out/CMakeCache.txt", "\n")
        write(root, "out/gen/generated.cpp", "int g;\n")
        table = {
            "check/covered.cpp": {"tests": ["tests/unit/check/graph_test.cpp"], "suites": ["Graph.Works"],
                                  "calls": ["build_graph"], "why": "w"},
            "check/stale.cpp": {"tests": ["tests/unit/check/gone_test.cpp"], "why": "w"},
            "check/ghost_suite.cpp": {"suites": ["Ghost"], "why": "w"},
            "check/no_call.cpp": {"tests": ["tests/unit/check/graph_test.cpp"], "calls": ["not_called"], "why": "w"},
            "check/tables.cpp": {"no_logic": "data only"},
            "check/later.cpp": {"untested": "w"},
            "check/redundant.cpp": {"no_logic": "w"},
            "check/removed.cpp": {"no_logic": "w"},
        }
        failures, warnings = run(root, table, listing=True)
    want = [
        "check/empty.cpp: no test",
        "check/ghost_suite.cpp: exception names suite Ghost",
        "check/lonely.cpp: no test",
        "check/no_call.cpp: exception lists 'not_called', which none of its covering tests uses",
        "check/redundant.cpp: has its own suite Redundant",
        "check/removed.cpp: exception entry for a file that does not exist",
        "check/stale.cpp: exception names test file tests/unit/check/gone_test.cpp, which does not exist",
    ]
    got = sorted(failures)
    ok = len(got) == len(want) and all(g.startswith(w) for g, w in zip(got, want))
    ok = ok and len(warnings) == 1 and warnings[0].startswith("check/later.cpp: no direct test yet")
    print(f"check_test_map --self-test: {'OK' if ok else 'FAIL'} (want failures starting {want} and one warning "
          f"for check/later.cpp; got {got}, warnings {warnings})")
    return 0 if ok else 1


def main(argv):
    args = list(argv)
    if args[:1] == ["--self-test"]:
        return self_test()
    listing = bool(args[:1] == ["--list"])
    if listing:
        args = args[1:]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    failures, _ = run(root, EXCEPTIONS, listing)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
