// Fail-in-place campaigns (Domke, Hoefler, Matsuoka; seed 003, spec docs/specs/fattree_fip_dqr.md part B).
//
// A campaign is the cross product fabric x engine x link failures x switch failures x seed. One
// run: copy the intact fabric, inject seeded faults (topo::inject_faults; keep_connected by default
// like the paper's "non-bisecting" faults), take the file's LIDs or assign them (Config::file_lids), route, validate (unreachable pairs, loops,
// CDG cycle over (link, VL), VLs used, edge forwarding index, hops), and optionally simulate
// throughput with flitsim (short run).
//
// Engines: any ftroute engine name (in-process, ftroute::make_engine), or "opensm:<engine>" which
// runs the faulty fabric through ibsim + a real OpenSM (run_opensm_engine, ftroute/opensm_run.hpp:
// scripts/ftsim.sh, the LFTs read back from OpenSM's dump and mapped onto the Fabric by GUID, the
// SL2VL tables, per-path SLs from the SA for dfsssp, lash, nue and torus-2QoS). The engine OpenSM
// really used is read from its log, so a silent fallback to minhop is visible (column engine_used
// / fallback); "deadlock_checked" says 0 when the per-path SLs could not be read. torus-2QoS on a
// generated mesh/torus gets a torus-2QoS.conf (torus2qos_conf).
//
// Results: one CSV row per run keyed by (fabric, engine, link_failures, switch_failures, seed),
// appended (flushed) as soon as the run finishes; existing keys are skipped on re-run (resume).
//
// Lifetime campaigns (Config::lifetime, seed 003 §V-D, ftroute/campaign_lifetime.hpp): instead of
// fixed failure levels, the failures of a fabric kept in place over `years` years at annual
// rates, drawn per seed year by year and accumulated; the runs of year Y have the level "yY" in
// both failure columns.
#pragma once

#include "ftroute/engine.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/fabric.hpp"

namespace ftroute::campaign {

// Ctrl-C / SIGTERM reached a child (ibsim, OpenSM): the run is not recorded and the campaign stops
// (std::system ignores SIGINT in this process while a child runs, so the child's status tells).
class Interrupted : public Error {
 public:
  using Error::Error;
};

// A fabric of the campaign: a .net / opensm-subnet.lst file, or a generator spec:
//   fattree:K,N  (k-ary n-tree)          fattree2:LEAVES,SPINES,HOSTS_PER_LEAF
//   fattree3:RADIX[,PODS]                mesh:4x4[,HOSTS]   torus:4x4x4[,HOSTS]
//   ctree:KEY=V,..  (cluster-shaped fat trees, ftroute/cluster_tree.hpp)
struct FabricSource {
  std::string name;      // key in the CSV: the spec text or the file path
  std::string net_path;  // set for files
  std::string gen_spec;  // set for generators
};
FabricSource parse_fabric_source(const std::string& text, bool is_file);
Fabric build_fabric(const FabricSource& src);  // throws OptionError / ParseError

// "4" (count) or "1%" / "0.5%" (of the candidate links: switch-to-switch links, plus host links
// with host_links; of the switches for switch failures). Rounded to the nearest count.
int failures_count(const std::string& spec, int candidates);
double failures_x(const std::string& spec);  // numeric value for plots (4 or 1 for "1%"; 3 for year "y3")

// torus-2QoS.conf for a generated grid ("mesh:4x4[,H]" / "torus:3x3x3[,H]"; topo::grid names and
// ports) after faults: "torus|mesh X Y Z" (missing dimensions = 1) and one seed (xp/yp/zp_link,
// plus xm/ym/zm_link on a torus) at the first surviving switch whose seed links are all up.
// Returns "" for other specs or when no switch qualifies (torus-2QoS then falls back).
std::string torus2qos_conf(const Fabric& faulty, const std::string& gen_spec);

// Output of ftroute-pathsl ("slid dlid sl" lines, "- sguid dguid" for pairs without a path
// record, counted in *missing) as a map (slid << 16 | dlid) -> SL. Throws Error on other lines.
std::unordered_map<uint32_t, uint8_t> parse_pathsl_output(const std::string& text, size_t* missing);

// A fail-in-place lifetime (seed 003 §V-D, TSUBAME2.0: about 1 % of the links and 1 % of the
// switches fail per year, 13 switch-to-switch links per failed switch; nothing is repaired).
struct Lifetime {
  int years = 0;                 // 0: not a lifetime campaign (the failure levels apply)
  double link_rate = 0.01;       // fraction of the candidate links that fails per year
  double switch_rate = 0.01;     // fraction of the switches that fails per year
  double links_per_switch = 0;   // > 0: link failures per switch failure in expectation (13 for
                                 // 1:13); the link rate is then derived from it (effective_link_rate)
  bool expected_counts = false;  // failures per year = the rounded cumulative expectation instead of
                                 // a binomial draw of every surviving component
};

struct Config {
  std::vector<FabricSource> fabrics;
  std::vector<std::string> engines;
  std::vector<std::string> link_failures{"0"};
  std::vector<std::string> switch_failures{"0"};
  int seeds = 10;               // seeds 1..seeds
  int jobs = 1;
  int shard_index = 0, shard_count = 1;  // run every shard_count-th run starting at shard_index
  bool keep_connected = true;   // paper: faults never disconnect the fabric
  bool host_links = false;      // random link failures may hit switch-CA links
  // LIDs of in-process runs on --fabric files: true = the file's LIDs (ibnetdiscover output carries
  // OpenSM's), as `route` and `compare` use them; files without LIDs and generated fabrics get
  // 1.. like OpenSM (Fabric::assign_lids) either way. false (--lids assign) = every run renumbered
  // (what campaigns did before). opensm:<engine> runs always use the LIDs OpenSM assigns.
  bool file_lids = true;
  // flitsim (empty pattern = no simulation)
  std::string pattern;          // shift-exchange | shift | exchange | uniform | any flitsim pattern
  int sim_msg_packets = 1;      // shift-exchange: packets per message (per source and shift)
  // shift-exchange: the order of the endpoints the shifts run over (--shift-order): flitsim's
  // node order, a permutation drawn from the run's seed, or the nearest-neighbour order of
  // distance_endpoint_order()
  enum class ShiftOrder { Index, Random, Distance };
  ShiftOrder shift_order = ShiftOrder::Index;
  double sim_load = 0.9;
  int64_t sim_warmup = 500, sim_measure = 3000;
  // flitsim's link and buffer model (--sim-packet, --sim-buffer, --sim-link-latency): flits per
  // packet, input buffer per VL in flits, cycles per link. The defaults are flitsim's own; the
  // seed 003 paper's OMNeT++ model is about 32 / 206 / 3 (docs/REPRODUCTION.md, "Simulator model and HCA order").
  int sim_packet_flits = 16, sim_buffer_flits = 64, sim_link_latency = 1;
  // OpenSM
  int opensm_timeout = 120;     // seconds per OpenSM run
  std::string ftsim_script;     // default: <source dir>/scripts/ftsim.sh
  std::string scratch_dir;      // default: <out_dir>/scratch (workdirs removed after each run)
  bool keep_scratch = false;
  std::string pathsl_tool;      // default: the built ftroute-pathsl ("" if not built: SL engines unchecked)
  long path_sl_max_pairs = 0;   // > 0: no SA query above this many pairs (CDG then not checked)
  Lifetime lifetime;            // years > 0: a lifetime campaign (link/switch_failures unused)
  std::string out_dir;
};

// The paper's shift-exchange (B.8, Eq. 7) as a flitsim trace: N endpoints ordered by `order`
// (order[k] = flitsim endpoint index of position k; empty = flitsim order), shifts +1, -1, +2, -2,
// ... up to +-N/2 over the positions (N even: +N/2 once, it equals -N/2; N odd: up to
// +-(N-1)/2), every source sends `packets` packets per shift, all queued at cycle 0 in shift
// order. Lines "0 SRC DST".
std::string shift_exchange_trace(int n, int packets, const std::vector<int>& order = {});
// A random order of n endpoints for --shift-order random: Fisher-Yates with mt19937_64(seed) and
// topo::uniform_index(), the same on every platform.
std::vector<int> random_endpoint_order(int n, uint64_t seed);
// --shift-order distance, the seed 003 paper's "distance matrix" order (§IV-A: "each HCA sends
// first to the closest neighbors with a shift of s = 1 and s = -1"): starting from the first
// endpoint, always the nearest one not placed yet, by switch hops between the switches the two
// are cabled to on f as it is (failed links absent; unreachable = farthest), ties to the lower
// position. members: flitsim endpoint indices; returns positions into members, as
// random_endpoint_order does.
std::vector<int> distance_endpoint_order(const Fabric& f, const std::vector<int>& members);
// "index", "random", "distance" (campaign.conf's shift_order, --shift-order).
const char* shift_order_name(Config::ShiftOrder o);

// One entry of --engines: an engine name, "opensm:<engine>", or an ftroute engine with options
// as a variant of its own, "NAME[k=v,k=v]" (ftree-misroute[vls=2]): the whole entry is the run
// key's engine, so a campaign compares an engine with itself under other options.
struct EngineVariant {
  std::string name;       // ftroute engine or opensm:<engine>
  EngineOptions options;  // empty without brackets
};
// OptionError for a bad bracket, an unknown engine or option, or brackets on opensm:<engine>.
EngineVariant engine_variant(const std::string& entry);
// --engines split at the commas outside brackets.
std::vector<std::string> split_engines(const std::string& list);

struct RunKey {
  std::string fabric, engine, link_failures, switch_failures;
  int seed = 1;
  std::string id() const;  // "fabric|engine|lf|sf|seed"
};

struct RunResult {
  RunKey key;
  std::string status = "ok";   // ok | refused | failed (routing error) | error (infrastructure)
  std::string engine_used;     // ftroute engine, or the engine OpenSM reported
  bool fallback = false;       // OpenSM used a different engine than asked for
  int links_removed = 0, switches_removed = 0, hosts_removed = 0;
  int switches = 0, cas = 0, links = 0;
  uint64_t pairs = 0, unreachable = 0, looping = 0, bad_entries = 0;
  bool deadlock_checked = false, cdg_acyclic = true;
  int vls_used = 0;
  uint64_t efi_max = 0;
  double efi_avg = 0, hops_avg = 0;
  int hops_max = 0;
  double route_seconds = 0;    // in-process: CPU seconds of engine->route; OpenSM: wall s of `opensm -o`
  bool simulated = false;
  double sim_offered = 0, sim_accepted = 0, sim_latency = 0;
  double sim_net_latency = 0;  // flitsim avg_network_latency: head injected -> tail ejected (no source queue)
  // Steady-injection patterns: min, quartiles and max over the endpoints of the flits/cycle each
  // one consumed in the window (seed 003's Fig. 4 statistic); empty otherwise.
  std::vector<double> sim_hca;
  uint64_t sim_dropped = 0;
  bool sim_deadlock = false;
  std::string message;         // refusal reason / error / notes (quoted in the CSV, RFC 4180)
  // Connections lost before re-routing (seed 003 Eq. 6, ftroute/campaign_lost.hpp): routes of the
  // engine's routing of the intact fabric that this run's faults cut, and Eq. 6's estimate.
  // -1 / NaN: unknown (a results.csv from before they were recorded, no intact routing).
  int64_t lost_routes = -1;
  double lost_eq6 = std::numeric_limits<double>::quiet_NaN();
  bool routing_ok() const { return status == "ok" && unreachable == 0 && looping == 0 && cdg_acyclic; }
};

// Every run of the campaign in a fixed order (fabrics, engines, switch failures, link failures,
// seeds; lifetime: fabrics, engines, years 0..N, seeds); with sharding only the runs with
// index % shard_count == shard_index.
std::vector<RunKey> plan(const Config& cfg);
// `campaign --shard I/N` into cfg.shard_index, shard_count: OptionError unless 0 <= I < N.
void parse_shard(const std::string& text, Config& cfg);

// True when the in-process runs on `fabric` keep the LIDs of its file (Config::file_lids, a file
// fabric that carries LIDs); check_file_lids throws FabricError naming the first switch or CA port
// without a LID in such a file (the campaign checks it before the first run).
bool keeps_file_lids(const Config& cfg, const std::string& fabric, const Fabric& intact);
void check_file_lids(const Config& cfg, const FabricSource& src, const Fabric& intact);

// One run on a copy of `intact` (which must not have faults yet). Never throws for routing or
// OpenSM problems: they go to status/message. The lost routes are counted on the engine's routing
// of `intact` from `routings` (a campaign's shared cache, ftroute/campaign_lost.hpp), or on one
// computed for this run alone when it is null.
class IntactRoutings;
RunResult run_one(const Config& cfg, const Fabric& intact, const RunKey& key, IntactRoutings* routings = nullptr);

// ---- CSV ----
std::string csv_header();
std::string csv_row(const RunResult& r);
// Parses a results CSV (RFC 4180: fields with commas, quotes or line breaks in double quotes,
// quotes doubled; header required); throws ParseError "<file>:<line>: ..." on bad rows.
std::vector<RunResult> parse_csv(const std::string& text, const std::string& filename);
std::vector<RunResult> read_csv(const std::string& path);  // missing file -> empty
// Length of the complete records at the start of a results CSV: all of it unless the last record
// lacks its end of line (an interrupted append), which a resume drops.
size_t csv_complete_prefix(const std::string& text);
// Reads each campaign directory (its results.csv) or results.csv file given, one part each;
// throws Error "<path>: no such file" for a missing one (campaign-merge, campaign-table).
std::vector<std::vector<RunResult>> read_result_parts(const std::vector<std::string>& paths);
// Merges rows; later duplicates of a key are dropped (counted in *duplicates).
std::vector<RunResult> merge(const std::vector<std::vector<RunResult>>& parts, int* duplicates = nullptr);

// ---- recorded settings (DIR/campaign.conf) ----
// The options that change a run's result but are not part of its key (fabric, engine, failures,
// seed): a resumed or extended campaign in the same directory must use the same ones, or its new
// rows would mix silently with the old. Keys in this order (the values of settings that do not
// apply to the pattern are "-", so they never cause a mismatch):
//   pattern           --pattern (none = no simulation)
//   shift_order       --shift-order index|random (shift-exchange only)
//   sim_msg_packets   --sim-msg-packets (shift-exchange only)
//   sim_load          --sim-load (simulated patterns other than shift-exchange)
//   sim_cycles        --sim-cycles (idem)
//   sim_packet        --sim-packet (every simulated pattern; a directory without it: 16)
//   sim_buffer        --sim-buffer (idem; 64)
//   sim_link_latency  --sim-link-latency (idem; 1)
//   allow_disconnect  --allow-disconnect (0/1)
//   host_links        --host-links (0/1)
//   link_rate         --link-rate / --link-ratio of a lifetime campaign ("0.01", "13/switch"; - otherwise)
//   switch_rate       --switch-rate (lifetime; - otherwise)
//   failure_counts    binomial | expected (--expected-counts; lifetime; - otherwise)
// File format: "# comment" lines and "key value" lines (campaign_settings_text).
using Settings = std::vector<std::pair<std::string, std::string>>;
Settings campaign_settings(const Config& cfg);
std::string campaign_settings_text(const Settings& s);
// Throws ParseError "<file>:<line>: ..." on a bad line, an unknown or repeated key.
Settings parse_campaign_settings(const std::string& text, const std::string& filename);
// DIR/campaign.conf (or the campaign.conf beside a results.csv path); false if there is none
// (a directory written before ftroute recorded its settings).
bool read_campaign_settings(const std::string& dir_or_csv, Settings* out);
std::string campaign_settings_path(const std::string& dir_or_csv);
// The command-line option of a key ("--shift-order") and one line "pattern shift-exchange, shift
// order index, ..." of the settings that apply (no "-" values).
std::string setting_option(const std::string& key);
std::string settings_summary(const Settings& s);
struct SettingMismatch {
  std::string key, recorded, requested;
  bool assumed = false;  // recorded value is the default of a directory without that key
};
// First setting whose values differ. A key missing from `recorded` (or no record at all:
// recorded == nullptr) is not compared, except shift_order, which then means "index" (campaigns
// before --shift-order was recorded ran in index order unless told otherwise), and the simulator
// model's keys, which then mean flitsim's defaults of that time (sim_packet 16, sim_buffer 64,
// sim_link_latency 1).
bool compare_campaign_settings(const Settings* recorded, const Settings& requested, SettingMismatch* m);
// `campaign-merge`: the parts (directories or results.csv files) must have run with the same
// settings. Returns the first recorded part's settings (*from = that part; empty when no part
// has a campaign.conf: parts from before they were recorded, shift-exchange in index order, the
// rest unknown). Throws Error "cannot merge A (key value) with B (key value, --option): their
// results would mix" at the first part that differs (keys missing on one side are not compared).
Settings merge_settings(const std::vector<std::string>& parts, std::string* from);

// ---- plots ----
struct Metric {
  std::string name, label;
  std::function<double(const RunResult&)> value;
  std::string ylabel;   // y-axis label with unit
  double ymax = 0;      // fixed top of the y axis (100 for a percentage); 0 = from the data
  // A box per run (min, q1, median, q3, max over something inside the run: the HCAs' consumption
  // bandwidth, seed 003 Fig. 4), empty if none: the plot then draws the mean box over the seeds
  // instead of the quartiles of `value` over the seeds.
  std::function<std::vector<double>(const RunResult&)> box = nullptr;
};
const std::vector<Metric>& metrics();
// One SVG per (fabric, metric): x = failures (link failures, or switch failures if only those
// vary), y = mean over seeds (min..max as a band), one line per engine with its own marker shape
// and a small x offset so coinciding lines stay distinguishable; a point where OpenSM fell back to
// another engine is ringed and labelled "fell back n/m"; y axis labelled with its unit, from 0 to
// the metric's fixed top (100 % for percentages) or a rounded-up data maximum.
std::string plot_svg(const std::vector<RunResult>& rows, const std::string& fabric, const Metric& m);
// The p-quantile of values (0.5: the median; linear between the two nearest ranks, R's and NumPy's
// default: v[h] + (h - floor h)(v[h+1] - v[h]), h = (n - 1) p over the sorted values); NaN if empty.
double quantile(std::vector<double> v, double p);
// Plain-text summary table: mean per (fabric, engine, failures).
std::string summary_table(const std::vector<RunResult>& rows);

// ---- driver ----
struct Progress {
  size_t done = 0, total = 0, skipped = 0, failed = 0;
  double elapsed = 0;
};
// Runs the campaign into cfg.out_dir: results.csv (appended, resumable), plots/<fabric>_<metric>.svg,
// summary.txt. `progress` is called after every run (from worker threads, serialized).
// Returns all rows of results.csv after the campaign.
std::vector<RunResult> run_campaign(const Config& cfg, const std::function<void(const Progress&)>& progress = {});
// Writes plots + summary for the rows into out_dir (used by run_campaign and campaign-merge).
void write_reports(const std::vector<RunResult>& rows, const std::string& out_dir);

}  // namespace ftroute::campaign
