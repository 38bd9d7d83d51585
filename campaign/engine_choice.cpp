// `ftroute compare`: run the candidates, check them, recommend one (ftroute/engine_choice.hpp).
#include "ftroute/engine_choice.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <unistd.h>
#include <set>

#include "ftroute/campaign.hpp"
#include "ftroute/engine_option_text.hpp"
#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/pipeline.hpp"
#include "ftroute/registry.hpp"

namespace ftroute::campaign {
namespace {

// Ctrl-C / SIGTERM while OpenSM runs: the run under way ends (ibsim and OpenSM run under
// timeout(1) in process groups of their own and are stopped by PID; a child that does die of the
// signal makes run_opensm_engine throw Interrupted after stopping them), then no further run
// starts and Interrupted is thrown. A second signal gets the default action.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_compare_signal(int sig) {
  g_stop = 1;
  std::signal(sig, SIG_DFL);
}
struct SignalGuard {
  void (*old_int)(int), (*old_term)(int);
  SignalGuard() : old_int(std::signal(SIGINT, on_compare_signal)), old_term(std::signal(SIGTERM, on_compare_signal)) {
    g_stop = 0;
  }
  ~SignalGuard() {
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
  }
};

// One line of text for a reason: newlines folded, control characters escaped, at most n chars.
std::string one_line(std::string s, size_t n = 240) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  s = escape_name(s);
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

// "\"A\"[1] vl0 -> \"B\"[2] vl0 -> ... -> \"A\"[1] vl0" shortened to its first channels.
std::string short_cycle(const std::string& text) {
  static const std::string arrow = " -> ";
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    size_t p = text.find(arrow, at);
    parts.push_back(text.substr(at, p == std::string::npos ? std::string::npos : p - at));
    if (p == std::string::npos) break;
    at = p + arrow.size();
  }
  if (parts.size() <= 6) return text;
  std::string out;
  for (size_t i = 0; i < 4; ++i) out += parts[i] + arrow;
  return out + "... (" + std::to_string(parts.size() - 1) + " channels)";
}

std::string plural(uint64_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string efi_text(const RankedEngine& e) {
  // the VLs to provision; where fewer carry routes (an empty layer), both, as the table shows the latter
  const std::string used = e.vls_used < e.vls ? ", routes on " + std::to_string(e.vls_used) : "";
  return plural(static_cast<uint64_t>(e.vls), "VL", "VLs") + used + ", EFI max " + std::to_string(e.efi_max);
}

}  // namespace

std::string EngineRow::conf_name() const {
  static const std::string prefix = "opensm:";
  if (source == Source::Opensm && name.rfind(prefix, 0) == 0) return name.substr(prefix.size());
  return name.substr(0, name.find('['));  // a variant NAME[k=v]: the engine (its options go to the plugin)
}

int fabric_lmc(const Fabric& f) {
  int lmc = 0;
  for (int c : f.cas())
    for (const Port& p : f.node(c).ports)
      if (p.base_lid) lmc = std::max(lmc, static_cast<int>(p.lmc));
  return lmc;
}

EngineOptions engine_options_for(const std::string& engine, const std::vector<std::string>& opts) {
  return ftroute::engine_options_for(engine, opts, false);  // the one [ENGINE:]k=v syntax
}

std::string unknown_opensm_engine(const std::string& n) {
  const auto& osm = opensm_engine_names();
  if (std::find(osm.begin(), osm.end(), n) != osm.end() || find_engine(n)) return "";
  std::string known;
  for (const auto& k : osm) known += (known.empty() ? "" : ",") + k;
  return "unknown engine '" + escape_name(n) + "' (OpenSM's: " + known + "; or an ftroute engine, run inside OpenSM by libftroute.so)";
}

std::vector<std::string> opensm_compare_names(const std::vector<std::string>& names) {
  if (names.empty()) throw OptionError("--opensm needs engine names (updn,ftree,minhop,dfsssp, ...)");
  for (const auto& n : names) {
    if (n == "file") throw OptionError("--opensm file: OpenSM's file engine needs an LFT dump; check one with --lfts NAME=FILE");
    if (const std::string why = unknown_opensm_engine(n); !why.empty()) throw OptionError("--opensm: " + why);
  }
  return names;
}

CompareScratch::CompareScratch(const std::string& keep, bool used)
    : dir_(!keep.empty() ? keep
                         : (std::filesystem::temp_directory_path() / ("ftroute-compare-" + std::to_string(getpid()))).string()),
      keep_(!keep.empty()),
      remove_(used && keep.empty()) {}

CompareScratch::~CompareScratch() {
  std::error_code ec;
  if (remove_) std::filesystem::remove(dir_, ec);  // empty once every run removed its own directory
}

void CompareScratch::apply(OpensmRunOptions& o) const {
  o.scratch_dir = dir_;
  o.keep_scratch = keep_;
}

namespace {

// The options of one in-process engine entry, NAME[k=v,..]: --opt's for NAME, then the brackets'
// over them; checked by the engine (unknown name or option, value out of range: OptionError).
CheckedOptions entry_options(const std::string& entry, const std::vector<std::string>& opts) {
  const EngineVariant variant = engine_variant(entry);
  EngineOptions eo = engine_options_for(variant.name, opts);
  for (const auto& [k, v] : variant.options.all()) eo.set(k, v);
  return make_engine(variant.name)->check_options(eo);
}

}  // namespace

void check_compare_options(const CompareOptions& o) {
  try {
    for (const auto& name : o.engines) entry_options(name, o.opts);
    for (const auto& name : o.opensm)
      if (find_engine(name)) make_engine(name)->check_options(engine_options_for(name, o.opts));
  } catch (const OptionError& e) {
    // an --opt without ENGINE: goes to every engine of the list: say how to aim it
    const bool bare = std::any_of(o.opts.begin(), o.opts.end(), [](const std::string& t) { return !split_engine_option(t); });
    if (!bare || std::string_view(e.what()).find("unknown option '") == std::string_view::npos) throw;
    throw OptionError(std::string(e.what()) + "; an --opt without 'ENGINE:' goes to every engine compared: give it as --opt ENGINE:KEY=VALUE");
  }
}

std::vector<EngineRow> compare_engines(const Fabric& fabric, const CompareOptions& o) {
  std::vector<EngineRow> rows;
  // the caller keeps `fabric` alive: rows share it without a copy
  const std::shared_ptr<const Fabric> shared(&fabric, [](const Fabric*) {});
  for (const auto& name : o.engines) {
    EngineRow row;
    row.name = name;
    row.source = EngineRow::Source::Engine;
    // NAME[k=v,..]: a variant of its own (campaign.hpp); its options over --opt's
    const CheckedOptions checked = entry_options(name, o.opts);  // unknown name or option: OptionError
    row.options = checked.options();
    row.fabric = shared;
    PipelineOptions po;  // the verdict is the full validation's, whose figures the row shows
    po.require_ok = false;
    po.validate = o.validate;
    RoutingPipeline pipeline(checked.engine(), row.options, po);
    try {
      RoutedStep step = pipeline.run(fabric);
      row.seconds = step.engine_cpu_ms / 1e3;  // the process: the engine's worker threads too
      row.needs_qos = step.routing.num_vls > 1;
      row.num_vls = step.routing.num_vls;
      row.report = std::move(*step.report);
    } catch (const EngineError& e) {
      row.status = "refused";
      row.message = e.reason();
    }
    rows.push_back(std::move(row));
  }
  if (!o.opensm.empty()) {
    SignalGuard guard;
    OpensmRunOptions osm = o.osm;
    osm.validate = o.validate;
    osm.lmc = fabric_lmc(fabric);
    for (const auto& name : o.opensm) {
      if (g_stop) throw Interrupted("interrupted before OpenSM engine '" + name + "'");
      if (o.progress) o.progress(name);
      EngineRow row;
      row.name = "opensm:" + name;
      row.source = EngineRow::Source::Opensm;
      if (find_engine(name)) {  // an ftroute engine inside OpenSM: its options go to event_plugin_options
        row.options = engine_options_for(name, o.opts);
        const std::string text = options_text(row.options);  // ftroute/pipeline.hpp
        osm.plugin_options = text.empty() ? "" : name + ":" + text;
      } else {
        osm.plugin_options.clear();
      }
      OpensmResult r = run_opensm_engine(fabric, name, osm);
      row.status = r.status;
      row.message = r.message;
      row.engine_used = r.engine_used;
      row.fallback = r.fallback;
      row.seconds = r.route_seconds;
      row.needs_qos = r.needs_qos;
      if (r.loaded) {
        row.needs_qos = row.needs_qos || r.loaded->routing.num_vls > 1;
        row.fabric = std::make_shared<const Fabric>(std::move(r.loaded->fabric));
      } else {
        row.fabric = shared;
      }
      row.report = std::move(r.report);
      rows.push_back(std::move(row));
    }
    if (g_stop) throw Interrupted("interrupted");
  }
  for (const auto& [name, file] : o.lfts) {  // LFTs dumped by OpenSM (opensm-lfts.dump) or ibroute/dump_fts
    LoadedRouting lr = load_routing(o.fabric_path, file);
    EngineRow row;
    row.name = name;
    row.source = EngineRow::Source::File;
    row.file = file;
    row.report = validate(lr.fabric, lr.routing, o.validate);
    row.fabric = std::make_shared<const Fabric>(std::move(lr.fabric));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> rejection_reasons(const EngineRow& row) {
  std::vector<std::string> why;
  if (row.status == "refused") return {"refused: " + one_line(row.message)};
  if (row.status != "ok") return {"OpenSM brought no subnet up: " + one_line(row.message)};
  const ValidationReport& r = row.report;
  if (row.fallback)
    why.push_back("OpenSM fell back to " + row.engine_used + " (" + row.conf_name() + " could not route this fabric)");
  if (r.unreachable)
    why.push_back(std::to_string(r.unreachable) + " of " + std::to_string(r.pairs) + " pairs unreachable" +
                  (r.unreachable_examples.empty() ? "" : " (e.g. " + one_line(r.unreachable_examples[0], 160) + ")"));
  if (r.looping)
    why.push_back(plural(r.looping, "pair loops", "pairs loop") +
                  (r.loop_examples.empty() ? "" : " (e.g. " + one_line(r.loop_examples[0], 160) + ")"));
  if (r.bad_entries)
    why.push_back(plural(r.bad_entries, "LFT entry", "LFT entries") + " on a missing or unlinked port" +
                  (r.bad_entry_examples.empty() ? "" : " (e.g. " + one_line(r.bad_entry_examples[0], 160) + ")"));
  if (!r.deadlock_checked)
    why.push_back("deadlock freedom not checked" + (row.message.empty() ? "" : " (" + one_line(row.message, 160) + ")"));
  else if (!r.cdg_acyclic)
    why.push_back("credit loop (CDG cycle): " + one_line(short_cycle(r.cycle_text), 400));
  return why;
}

const char* const kRankingRule =
    "passes every check (every pair reachable, no loop, no bad LFT entry, CDG acyclic per VL),\n"
    "then fewest VLs, then lowest EFI max, then ftroute's engines (inside OpenSM by libftroute.so) before OpenSM's";

Recommendation recommend(const std::vector<EngineRow>& rows, int lmc) {
  Recommendation rec;
  rec.lmc = lmc;
  struct Cand {
    RankedEngine e;
    size_t index;
    const EngineRow* row;
  };
  std::vector<Cand> pass;
  const EngineRow* minhop = nullptr;
  for (size_t i = 0; i < rows.size(); ++i) {
    const EngineRow& r = rows[i];
    if (r.source == EngineRow::Source::File) continue;
    // minhop's routing: its own row, else a row where OpenSM fell back to it
    if (r.source == EngineRow::Source::Opensm && r.status == "ok" &&
        (r.conf_name() == "minhop" || (r.engine_used == "minhop" && !minhop)))
      minhop = &r;
    std::vector<std::string> why = rejection_reasons(r);
    if (!why.empty()) {
      rec.rejected.emplace_back(r.name, std::move(why));
      continue;
    }
    RankedEngine e;
    e.name = r.name;
    e.conf_name = r.conf_name();
    e.ftroute = find_engine(e.conf_name) != nullptr;
    e.vls = std::max({1, static_cast<int>(r.report.vls_used.size()), r.num_vls});
    e.vls_used = std::max(1, static_cast<int>(r.report.vls_used.size()));
    e.efi_max = r.report.efi_max;
    e.needs_qos = r.needs_qos;
    pass.push_back({e, i, &r});
  }
  std::stable_sort(pass.begin(), pass.end(), [](const Cand& a, const Cand& b) {
    if (a.e.vls != b.e.vls) return a.e.vls < b.e.vls;
    if (a.e.efi_max != b.e.efi_max) return a.e.efi_max < b.e.efi_max;
    if (a.e.ftroute != b.e.ftroute) return a.e.ftroute;
    return a.index < b.index;
  });
  for (const Cand& c : pass) rec.passed.push_back(c.e);
  // builtin minhop: what OpenSM does when every engine of routing_engine fails
  if (!minhop) {
    rec.builtin_minhop = "minhop was not checked here (add it to --opensm)";
  } else {
    EngineRow own = *minhop;  // judged as minhop: a fallback to minhop is minhop's routing
    own.fallback = false;
    if (auto why = rejection_reasons(own); !why.empty())
      rec.builtin_minhop = "minhop" + (minhop->conf_name() == "minhop" ? std::string() : " (what " + minhop->name + " fell back to)") +
                           " fails here: " + why[0];
  }
  if (pass.empty()) return rec;

  // chain: the best, then the next passing ftroute engine, then the next passing OpenSM engine
  std::vector<const Cand*> chain{&pass[0]};
  for (int ftroute = 1; ftroute >= 0; --ftroute)
    for (size_t i = 1; i < pass.size(); ++i)
      if (pass[i].e.ftroute == (ftroute == 1) && pass[i].e.conf_name != pass[0].e.conf_name) {
        chain.push_back(&pass[i]);
        break;
      }
  std::set<std::string> seen;
  std::vector<std::string> plugin_tokens;
  for (const Cand* c : chain) {
    if (!seen.insert(c->e.conf_name).second) continue;
    rec.chain.push_back(c->e.conf_name);
    if (c->e.needs_qos) rec.qos_for.push_back(c->e.conf_name);
    if (c->e.ftroute) {
      rec.uses_plugin = true;
      const std::string kv = options_text(c->row->options);
      if (!kv.empty()) plugin_tokens.push_back(c->e.conf_name + ":" + kv);
    }
  }
  rec.best = rec.chain[0];
  for (const auto& t : plugin_tokens) rec.plugin_options += (rec.plugin_options.empty() ? "" : " ") + t;
  if (std::find(rec.chain.begin(), rec.chain.end(), "minhop") != rec.chain.end()) rec.builtin_minhop.clear();

  std::string line = "routing_engine ";
  for (size_t i = 0; i < rec.chain.size(); ++i) line += (i ? "," : "") + rec.chain[i];
  rec.conf.push_back(line);
  if (rec.uses_plugin) rec.conf.push_back("event_plugin_name ftroute");
  if (!rec.plugin_options.empty()) rec.conf.push_back("event_plugin_options " + rec.plugin_options);
  if (!rec.qos_for.empty()) {
    std::string who;
    for (const auto& q : rec.qos_for) who += (who.empty() ? "" : ", ") + q;
    rec.conf.push_back("# more than one VL or per-path SLs (" + who + "): OpenSM must program the SL2VL tables");
    rec.conf.push_back("qos TRUE");
  }
  if (lmc > 0) rec.conf.push_back("lmc " + std::to_string(lmc));
  if (!rec.builtin_minhop.empty())
    rec.conf.push_back("# when every engine above fails, OpenSM routes with its built-in minhop; " + rec.builtin_minhop);
  return rec;
}

std::string recommendation_text(const Recommendation& rec, bool opensm_checked) {
  std::string t = "\n";
  if (rec.best.empty()) {
    t += "Recommendation: none - no engine passes every check on this fabric:\n";
    for (const auto& [name, why] : rec.rejected)
      for (const auto& w : why) t += "  " + name + ": " + w + "\n";
    if (rec.rejected.empty()) t += "  (no engine was run)\n";
    t += "Do not deploy any of them as they are: fix the fabric (the reasons above name the switches and "
         "ports), give the engine what it needs (ftroute engines' options, `ftroute engines`), or try other engines";
    t += opensm_checked ? ".\n" : " (OpenSM's own engines were not checked: add --opensm updn,ftree,minhop,dfsssp).\n";
    return t;
  }
  t += "Recommendation: " + rec.best + "\n";
  std::string rule = kRankingRule;
  for (size_t p = rule.find('\n'); p != std::string::npos; p = rule.find('\n', p + 1)) rule.insert(p + 1, "         ");
  t += "  best = " + rule + "\n";
  std::string line = "  passed, best first:";
  for (size_t i = 0; i < rec.passed.size(); ++i) {
    const std::string item = " " + rec.passed[i].name + " (" + efi_text(rec.passed[i]) + ")" + (i + 1 < rec.passed.size() ? "," : "");
    if (line.size() + item.size() > 110) {
      t += line + "\n";
      line = "                     ";
    }
    line += item;
  }
  t += line + "\n";
  for (const auto& [name, why] : rec.rejected) {
    t += "  not usable: " + name + ": " + why[0];
    for (size_t i = 1; i < why.size(); ++i) t += "; " + why[i];
    t += "\n";
  }
  t += "  routing_engine chain (engines that passed: the best, the next of ftroute's, the next of OpenSM's):";
  for (size_t i = 0; i < rec.chain.size(); ++i) t += (i ? "," : " ") + rec.chain[i];
  t += "\n";
  if (!opensm_checked) t += "  (OpenSM's own engines were not checked: add --opensm updn,ftree,minhop,dfsssp)\n";
  t += "opensm.conf lines (checked on this fabric):\n";
  for (const auto& l : rec.conf) t += l + "\n";
  return t;
}

}  // namespace ftroute::campaign
