#include "adapter.hpp"

#include "ftroute/engine_option_text.hpp"
#include "ftroute/parallel.hpp"
#include "ftroute/route_walk.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftroute/atomic_file.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/lft_io.hpp"

namespace ftroute::plugin {

// ---------------------------------------------------------------- options

PluginOptions PluginOptions::parse(const std::string& text, const std::vector<EngineInfo>& known_engines) {
  PluginOptions po;
  std::istringstream in(text);
  std::string tok;
  auto engine_known = [&](const std::string& n) -> const EngineInfo* {
    for (const auto& e : known_engines)
      if (e.name == n) return &e;
    return nullptr;
  };
  // log=FILE, path_sl_dump=FILE: a file the plugin will write; a name with control characters is a
  // typo or garbage, never a file to create
  auto file_name = [&](const std::string& key, const std::string& value, const char* example, const char* refused,
                       std::string& dest) {
    if (value.empty()) po.errors.push_back(key + "= needs a file name (" + key + "=" + example + ")");
    else if (has_control_chars(value))
      po.errors.push_back(key + "='" + escape_name(value) + "': the file name contains control characters; " + refused);
    else dest = value;
  };
  while (in >> tok) {
    const size_t eq = tok.find('=');
    // ENGINE:k=v[,k=v]: the one syntax of engine options (also the CLI's --opt)
    if (const auto named = split_engine_option(tok)) {
      const std::string& name = named->first;
      const std::string& rest = named->second;
      const EngineInfo* info = engine_known(name);
      if (!info) {
        std::string list;
        for (const auto& e : known_engines) list += (list.empty() ? "" : ", ") + e.name;
        po.errors.push_back("option '" + tok + "': unknown engine '" + name + "' (known: " + list + ")");
        continue;
      }
      try {
        EngineOptions parsed = EngineOptions::parse(rest);
        if (parsed.all().empty()) throw OptionError("option '" + tok + "' sets nothing (use " + name + ":key=value)");
        EngineOptions& dst = po.engine[name];
        for (const auto& [k, v] : parsed.all()) dst.set(k, v);
      } catch (const Error& e) {
        po.errors.push_back(e.what());
      }
      continue;
    }
    if (eq == std::string::npos || eq == 0) {
      po.errors.push_back("option '" + tok + "' is neither ENGINE:key=value nor key=value");
      continue;
    }
    const std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
    if (key == "log") {
      file_name(key, value, "/path/to/trace", "no trace file", po.log_path);
    } else if (key == "path_sl_dump") {
      file_name(key, value, "/path/to/path_sl.txt", "no dump", po.path_sl_dump);
    } else if (key == "lid_matrices") {
      if (value != "own" && value != "opensm")
        po.errors.push_back("option 'lid_matrices=" + escape_name(value) + "': expected own or opensm");
      else
        po.opensm_lid_matrices = value == "opensm";
    } else {
      po.errors.push_back("unknown plugin option '" + escape_name(key) + "' (known: log, lid_matrices, path_sl_dump; engine options are ENGINE:key=value)");
    }
  }
  // early warning for misspelt keys, values out of range and missing required options, once all
  // tokens are in (an engine's options may come in several); the engine fails on them when it runs
  for (const auto& [name, eo] : po.engine) try {
      eo.check_known(name, engine_known(name)->create()->option_specs());
    } catch (const OptionError& e) {
      po.errors.push_back(e.what());
    }
  return po;
}

std::string fallback_text(const std::string& routing_engine_names, const std::string& engine) {
  std::vector<std::string> list;
  std::string item;
  std::istringstream in(routing_engine_names);
  while (std::getline(in, item, ',')) {
    const size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    if (a != std::string::npos) list.push_back(item.substr(a, b - a + 1));
  }
  const bool no_fallback = std::find(list.begin(), list.end(), "no_fallback") != list.end();
  auto self = std::find(list.begin(), list.end(), engine);
  if (self != list.end())
    for (auto it = self + 1; it != list.end(); ++it)
      if (*it != "no_fallback") return "OpenSM tries the next engine '" + *it + "'";
  if (no_fallback)
    return "no fallback ('no_fallback' in routing_engine): this pass routes nothing, OpenSM retries next sweep";
  return "OpenSM falls back to its built-in minhop";
}

EngineOptions PluginOptions::for_engine(const std::string& name) const {
  auto it = engine.find(name);
  return it == engine.end() ? EngineOptions{} : it->second;
}

// ---------------------------------------------------------------- validation

int route_hops(const Fabric& f, const Lfts& lfts, int sw, Lid lid) {
  auto owner = f.owner(lid);
  if (!owner) return -1;
  // the one walk and loop bound (ftroute/route_walk.hpp): switch-to-switch links = switches - 1
  const PathWalk w = walk_path(f, lfts, sw, lid, owner->node, owner->port, [](int, const RouteHop&) {});
  return w.end == PathWalk::Delivered ? w.switches - 1 : -1;
}

void switch_hops_to(const Fabric& f, const Lfts& lfts, Lid lid, std::vector<int>& hops) {
  RouteWalker walker(f, lfts);
  switch_hops_to(walker, f, lid, hops);
}

void switch_hops_to(RouteWalker& walker, const Fabric& f, Lid lid, std::vector<int>& hops) {
  hops.assign(static_cast<size_t>(f.size()), -1);
  auto owner = f.owner(lid);
  if (!owner) return;
  // the one memoised walk (ftroute/route_walk.hpp): a walk stops where an earlier one of this LID
  // passed (Joined: its hops are known), at the delivering switch (0), or at a drop or a loop
  // (every switch of the walk has no route)
  walker.begin(lid, owner->node, owner->port);
  for (int s : f.switches()) {
    if (walker.known(s)) continue;
    const RouteWalker::Walk w = walker.walk(s);
    const std::vector<int>& path = walker.path();
    int val = -1;
    if (w.end == RouteWalker::End::Delivered) val = 0;
    else if (w.end == RouteWalker::End::Joined && hops[static_cast<size_t>(w.sw)] >= 0) val = hops[static_cast<size_t>(w.sw)] + 1;
    // path ends with the delivering switch (Delivered) or the switch before the joined one
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      hops[static_cast<size_t>(*it)] = val;
      if (val >= 0) val++;
    }
  }
}

std::vector<uint16_t> switch_distance_matrix(const std::vector<std::vector<int>>& adj, int threads) {
  const size_t n = adj.size();
  std::vector<uint16_t> d(n * n, kFarSwitch);
  const long batches = static_cast<long>((n + 63) / 64);
  const int workers = resolve_threads(threads, batches);
  struct Scratch {
    std::vector<uint64_t> seen, front, next;
  };
  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  parallel_for(workers, batches, 1, [&](int w, long b) {
    Scratch& sc = scratch[static_cast<size_t>(w)];
    sc.seen.assign(n, 0);
    sc.front.assign(n, 0);
    sc.next.resize(n);
    const size_t s0 = static_cast<size_t>(b) * 64, m = std::min<size_t>(64, n - s0);
    for (size_t k = 0; k < m; k++) {
      sc.seen[s0 + k] = sc.front[s0 + k] = uint64_t{1} << k;
      d[(s0 + k) * n + s0 + k] = 0;
    }
    for (uint16_t level = 1; level < kFarSwitch; level++) {
      bool any = false;
      for (size_t y = 0; y < n; y++) {
        uint64_t x = 0;
        for (int v : adj[y]) x |= sc.front[static_cast<size_t>(v)];
        x &= ~sc.seen[y];
        sc.next[y] = x;
        if (!x) continue;
        any = true;
        sc.seen[y] |= x;
        uint16_t* row = &d[y * n + s0];
        for (; x; x &= x - 1) row[__builtin_ctzll(x)] = level;
      }
      if (!any) break;
      sc.front.swap(sc.next);
    }
  });
  return d;
}

// ---------------------------------------------------------------- engine slot

EngineSlot::EngineSlot(std::string name, std::unique_ptr<Engine> engine, EngineOptions options)
    : name_(std::move(name)), engine_(std::move(engine)), options_(std::move(options)) {
  if (!engine_) throw Error("EngineSlot " + name_ + ": no engine");
}

std::shared_ptr<const Snapshot> EngineSlot::run(Fabric fabric, const std::function<void(const Snapshot&)>& accept) {
  runs_++;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    // the options are checked once, by the first run (a bad key fails every run: OpenSM falls back)
    if (!pipeline_) pipeline_.emplace(std::move(engine_), options_);  // ftroute/pipeline.hpp
    std::shared_ptr<const Snapshot> prev = from_scratch_.exchange(false) ? nullptr : last();
    PreviousRouting pr;
    if (prev) pr = PreviousRouting{&prev->fabric, &prev->routing};
    auto snap = std::make_shared<Snapshot>();
    snap->fabric = std::move(fabric);
    static_cast<RoutedStep&>(*snap) = pipeline_->run(snap->fabric, pr);
    if (accept) accept(*snap);
    snap->millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard<std::mutex> lk(mu_);
    last_ = snap;
    return snap;
  } catch (...) {
    failures_++;
    throw;
  }
}

std::shared_ptr<const Snapshot> EngineSlot::last() const {
  std::lock_guard<std::mutex> lk(mu_);
  return last_;
}

uint8_t EngineSlot::path_sl(uint8_t hint, Lid slid, Lid dlid) const {
  auto s = last();
  if (!s || !s->routing.path_sl) return hint;
  try {
    return static_cast<uint8_t>(s->routing.sl(slid, dlid) & 0x0f);
  } catch (...) {
    return hint;
  }
}

std::string describe(const std::string& engine, const Snapshot& s, const EventCounters& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "ftroute: %s routed %d switches, %d LIDs, %ld LFT entries in %.2f ms (VLs %d, heavy sweep %llu, traps %llu)",
                engine.c_str(), s.switches, s.lids, s.entries, s.millis, s.routing.num_vls,
                static_cast<unsigned long long>(c.heavy_sweeps.load()), static_cast<unsigned long long>(c.traps.load()));
  return buf;
}

// ---- struct layout check ----
std::optional<long> find_pointer_word(const void* base, size_t want_off, size_t window, const void* value) {
  const char* b = static_cast<const char*>(base);
  auto at = [&](long d) {
    const void* word;
    std::memcpy(&word, b + static_cast<long>(want_off) + d, sizeof word);
    return word == value;
  };
  if (at(0)) return 0L;
  for (long d = static_cast<long>(sizeof(void*)); d <= static_cast<long>(window); d += static_cast<long>(sizeof(void*))) {
    if (at(d)) return d;
    if (static_cast<size_t>(d) <= want_off && at(-d)) return -d;
  }
  return std::nullopt;
}

namespace {
std::string shift_text(const LayoutFacts& f) {
  if (!f.subn_shift) return "osm_subn_t not found where OpenSM keeps it (unknown layout)";
  const long d = *f.subn_shift;
  if (d == 0) return "osm_subn_t " + std::to_string(f.subn_bytes) + " bytes in both";
  return "osm_subn_t " + std::to_string(static_cast<long>(f.subn_bytes) + d) + " bytes in the running OpenSM, " +
         std::to_string(f.subn_bytes) + " in the headers ftroute was built with";
}
}  // namespace

std::string layout_refusal(const LayoutFacts& f) {
  const std::string both = "plugin built for " + (f.built_for.empty() ? std::string("(unknown)") : f.built_for) +
                           ", running " + (f.running.empty() ? std::string("(unknown)") : f.running);
  const char* tail = "; no engines registered (docs/INSTALL.md, \"The version-mismatch log line\")";
  if (f.built_for != f.running)
    return "ftroute: OpenSM version mismatch: " + both + ": struct layouts differ (" + shift_text(f) +
           "); install the ftroute build for " + (f.running.empty() ? std::string("that OpenSM") : f.running) +
           " or rebuild it against that OpenSM's headers" + tail;
  std::string what;
  if (!f.subn_shift || *f.subn_shift != 0)
    what = shift_text(f);
  else if (!f.log_found)
    what = "osm_opensm_t differs after osm_sm_t (osm->log not where the headers put it)";
  else if (!f.plugin_name_found)
    what = "osm_subn_opt_t differs (event_plugin_name does not name ftroute)";
  else
    return "";
  return "ftroute: struct layout check failed: " + both + ", but " + what +
         ": plugin built against other OpenSM headers (osm_config.h not included first, or OpenSM configured "
         "with other options); rebuild against this OpenSM's headers" + tail;
}

std::string layout_ok_text(const LayoutFacts& f) {
  return "ftroute: built for " + f.built_for + ", running " + f.running + ": struct layout check passed (osm_subn_t " +
         std::to_string(f.subn_bytes) + " bytes, osm->sm and osm->log where the headers put them)";
}

// ---------------------------------------------------------------- staged transitions

double ib_lifetime_ms(unsigned v) {
  if (v >= 20) return -1;
  return 4.096e-3 * std::ldexp(1.0, static_cast<int>(v));
}

DrainTime drain_time(unsigned packet_life_time, unsigned hoq_lifetime, unsigned leaf_hoq_lifetime, long override_ms) {
  DrainTime d;
  char buf[256];
  if (override_ms >= 0) {
    d.ms = static_cast<double>(override_ms);
    d.why = "drain_ms=" + std::to_string(override_ms);
    return d;
  }
  const struct {
    const char* name;
    unsigned v;
  } lt[] = {{"packet_life_time", packet_life_time},
            {"head_of_queue_lifetime", hoq_lifetime},
            {"leaf_head_of_queue_lifetime", leaf_hoq_lifetime}};
  bool any = false;
  for (const auto& x : lt) {
    const double ms = ib_lifetime_ms(x.v);
    if (ms >= 0) {
      std::snprintf(buf, sizeof buf, "%s%s %u = %.1f ms", d.why.empty() ? "" : ", ", x.name, x.v, ms);
      d.ms = std::max(d.ms, ms);
      any = true;
    } else {
      std::snprintf(buf, sizeof buf, "%s%s %u = infinite", d.why.empty() ? "" : ", ", x.name, x.v);
    }
    d.why += buf;
  }
  if (!any) {
    d.ms = kDrainWhenInfiniteMs;
    std::snprintf(buf, sizeof buf, "; all infinite, %.0f ms used (set dqr:drain_ms)", kDrainWhenInfiniteMs);
    d.why += buf;
  }
  return d;
}

TransitionPlan::TransitionPlan(const Lfts& final_lfts, const LftTransition& t, const std::string& engine)
    : t_(t), state_(final_lfts) {
  for (const LftTransition::Stage& st : t_.stages)
    for (const LftTransition::Entry& e : st.entries) {
      if (e.sw < 0 || e.sw >= state_.num_nodes() || state_.table(e.sw).empty())
        throw EngineError(engine, "transition names node " + std::to_string(e.sw) + ", which has no LFT");
    }
  // put the old ports back, last stage first (an entry changed twice ends at its first old port)
  for (auto st = t_.stages.rbegin(); st != t_.stages.rend(); ++st)
    for (auto e = st->entries.rbegin(); e != st->entries.rend(); ++e) state_.set(e->sw, e->lid, e->old_port);
  // every stage applied in order must give the final tables
  Lfts check = state_;
  for (const LftTransition::Stage& st : t_.stages)
    for (const LftTransition::Entry& e : st.entries) check.set(e.sw, e.lid, e.new_port);
  if (!(check == final_lfts)) throw EngineError(engine, "the transition's stages do not end at the routing's tables");
}

std::vector<std::pair<int, unsigned>> TransitionPlan::apply_next() {
  std::vector<std::pair<int, unsigned>> blocks;
  if (next_ >= t_.stages.size()) return blocks;
  for (const LftTransition::Entry& e : t_.stages[next_].entries) {
    if (state_.get(e.sw, e.lid) == e.new_port) continue;
    state_.set(e.sw, e.lid, e.new_port);
    blocks.emplace_back(e.sw, static_cast<unsigned>(e.lid) / kBlock);
  }
  next_++;
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  return blocks;
}

std::string stage_dump_dir_problem(const std::string& dir) {
  if (dir.empty()) return "no directory given";
  if (has_control_chars(dir)) return "the directory name contains control characters";
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return "no such directory";
  if (!std::filesystem::is_directory(dir, ec)) return "not a directory";
  const std::string probe = dir + "/.ftroute-stage-probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

FILE* open_trace_file(const std::string& path, std::string* why) {
  // O_NONBLOCK: opening a FIFO for writing without a reader fails at once (ENXIO) instead of
  // waiting for one
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    *why = errno == ENXIO ? "a FIFO without a reader" : std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
    ::close(fd);
    *why = "not a regular file (a FIFO or socket could stall OpenSM)";
    return nullptr;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FILE* f = ::fdopen(fd, "a");
  if (!f) {
    *why = std::strerror(errno);
    ::close(fd);
  }
  return f;
}

std::string stage_dump_path(const std::string& dir, size_t k) { return dir + "/stage-" + std::to_string(k) + ".dump"; }

int remove_stage_dumps(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() < 12 || name.rfind("stage-", 0) != 0 || name.substr(name.size() - 5) != ".dump") continue;
    const std::string num = name.substr(6, name.size() - 11);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code rm;
    if (std::filesystem::remove(it->path(), rm)) n++;
  }
  return n;
}

void write_stage_dump(const std::string& path, const Fabric& fabric, const Lfts& lfts) {
  AtomicFile out(path);
  TextOut text(out.sink());
  write_lfts(fabric, lfts, LftFormat::Opensm, text);
  text.flush();
  out.commit();
}

}  // namespace ftroute::plugin
