// The campaign's recorded settings (DIR/campaign.conf): see ftroute/campaign.hpp.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "ftroute/campaign.hpp"
#include "ftroute/error.hpp"

namespace fs = std::filesystem;

namespace ftroute::campaign {
namespace {

const char* const kKeys[] = {"pattern",          "sim_msg_packets", "shift_order", "sim_load",    "sim_cycles",
                             "sim_packet",       "sim_buffer",      "sim_link_latency",
                             "allow_disconnect", "host_links",      "lids",        "link_rate",   "switch_rate",
                             "failure_counts"};

// What a directory recorded before these keys existed ran with (flitsim's defaults then).
const char* assumed_default(const std::string& key) {
  if (key == "shift_order") return "index";
  if (key == "sim_packet") return "16";
  if (key == "sim_buffer") return "64";
  if (key == "sim_link_latency") return "1";
  return nullptr;
}

std::string g(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

const std::string* find(const Settings& s, const std::string& key) {
  for (const auto& [k, v] : s)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace

Settings campaign_settings(const Config& cfg) {
  const bool sim = !cfg.pattern.empty();
  const bool shiftx = cfg.pattern == "shift-exchange";
  bool files = false;  // the LID setting applies to --fabric files only
  for (const auto& f : cfg.fabrics) files = files || !f.net_path.empty();
  const bool life = cfg.lifetime.years > 0;
  return {{"pattern", sim ? cfg.pattern : "none"},
          {"shift_order", shiftx ? shift_order_name(cfg.shift_order) : "-"},
          {"sim_msg_packets", shiftx ? std::to_string(cfg.sim_msg_packets) : "-"},
          {"sim_load", sim && !shiftx ? g(cfg.sim_load) : "-"},
          {"sim_cycles", sim && !shiftx ? std::to_string(cfg.sim_measure) : "-"},
          {"sim_packet", sim ? std::to_string(cfg.sim_packet_flits) : "-"},
          {"sim_buffer", sim ? std::to_string(cfg.sim_buffer_flits) : "-"},
          {"sim_link_latency", sim ? std::to_string(cfg.sim_link_latency) : "-"},
          {"allow_disconnect", cfg.keep_connected ? "0" : "1"},
          {"host_links", cfg.host_links ? "1" : "0"},
          {"lids", files ? (cfg.file_lids ? "file" : "assign") : "-"},
          // a lifetime campaign's annual rates (the run key only has the year)
          {"link_rate", !life ? "-" : cfg.lifetime.links_per_switch > 0 ? g(cfg.lifetime.links_per_switch) + "/switch"
                                                                          : g(cfg.lifetime.link_rate)},
          {"switch_rate", life ? g(cfg.lifetime.switch_rate) : "-"},
          {"failure_counts", life ? (cfg.lifetime.expected_counts ? "expected" : "binomial") : "-"}};
}

std::string campaign_settings_text(const Settings& s) {
  std::string t =
      "# ftroute campaign settings of this directory (docs/campaign.md); a resumed or extended campaign\n"
      "# must use the same ones. \"-\" = does not apply to the pattern.\n";
  for (const auto& [k, v] : s) t += k + " " + v + "\n";
  return t;
}

Settings parse_campaign_settings(const std::string& text, const std::string& filename) {
  Settings s;
  std::istringstream in(text);
  std::string line;
  int ln = 0;
  std::set<std::string> seen;
  while (std::getline(in, line)) {
    ++ln;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string k, v, extra;
    if (!(ls >> k >> v) || (ls >> extra)) throw ParseError(filename, ln, "expected 'key value', got '" + line + "'");
    bool known = false;
    for (const char* key : kKeys) known = known || k == key;
    if (!known) throw ParseError(filename, ln, "unknown setting '" + k + "'");
    if (!seen.insert(k).second) throw ParseError(filename, ln, "setting '" + k + "' given twice");
    s.emplace_back(k, v);
  }
  return s;
}

std::string campaign_settings_path(const std::string& dir_or_csv) {
  std::error_code ec;  // a directory (existing or not) unless the path names a file
  if (!fs::is_regular_file(dir_or_csv, ec)) return (fs::path(dir_or_csv) / "campaign.conf").string();
  fs::path parent = fs::path(dir_or_csv).parent_path();
  return (parent.empty() ? fs::path("campaign.conf") : parent / "campaign.conf").string();
}

bool read_campaign_settings(const std::string& dir_or_csv, Settings* out) {
  const std::string path = campaign_settings_path(dir_or_csv);
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  *out = parse_campaign_settings(ss.str(), path);
  return true;
}

std::string setting_option(const std::string& key) {
  if (key == "link_rate") return "--link-rate / --link-ratio";
  if (key == "failure_counts") return "--expected-counts";
  std::string o = "--" + key;
  for (char& c : o)
    if (c == '_') c = '-';
  return o;
}

std::string settings_summary(const Settings& s) {
  std::string out;
  for (const auto& [k, v] : s) {
    if (v == "-") continue;
    std::string name = k;
    for (char& c : name)
      if (c == '_') c = ' ';
    out += (out.empty() ? "" : ", ") + name + " " + v;
  }
  return out;
}

bool compare_campaign_settings(const Settings* recorded, const Settings& requested, SettingMismatch* m) {
  for (const auto& [k, v] : requested) {
    const std::string* r = recorded ? find(*recorded, k) : nullptr;
    std::string rv;
    bool assumed = false;
    if (r) {
      rv = *r;
    } else if (const char* d = assumed_default(k); d && v != "-") {
      rv = d;  // a directory from before the key was recorded
      assumed = true;
    } else if (k == "lids" && v != "-") {
      rv = "assign";  // a directory from before the LIDs of files were kept
      assumed = true;
    } else {
      continue;
    }
    // lids "-": no --fabric file on that side, so no run whose LIDs could differ
    if (k == "lids" && (rv == "-" || v == "-")) continue;
    // "-" on one side only: the pattern differs too, and that key comes first
    if (rv != v) {
      *m = {k, rv, v, assumed};
      return true;
    }
  }
  return false;
}

Settings merge_settings(const std::vector<std::string>& parts, std::string* from) {
  Settings ref;
  std::string ref_from;
  for (const auto& p : parts) {
    Settings s;
    if (read_campaign_settings(p, &s) && ref_from.empty()) ref = s, ref_from = p;
  }
  for (const auto& p : parts) {
    Settings s;
    const bool have = read_campaign_settings(p, &s);
    if (p == ref_from) continue;
    SettingMismatch m;
    // compared both ways: a key missing on one side is not compared (shift_order: index)
    bool differ = !ref_from.empty() && compare_campaign_settings(have ? &s : nullptr, ref, &m);
    if (differ) {
      std::swap(m.recorded, m.requested);
    } else if (have && compare_campaign_settings(ref_from.empty() ? nullptr : &ref, s, &m)) {
      differ = true;
    }
    if (differ)
      throw Error("cannot merge " + (ref_from.empty() ? std::string("a directory without campaign.conf") : ref_from) +
                  " (" + m.key + " " + m.recorded + ") with " + p + " (" + m.key + " " + m.requested + ", " +
                  setting_option(m.key) + "): their results would mix");
  }
  *from = ref_from;
  return ref;
}

}  // namespace ftroute::campaign
