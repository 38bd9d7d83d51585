#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "ftroute/engine.hpp"

namespace ftroute {

namespace {
std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}
}  // namespace

EngineOptions EngineOptions::parse(const std::string& text) {
  EngineOptions o;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    // also accept whitespace-separated items ("a=1 b=2"), as OpenSM passes one string
    std::istringstream words(item);
    std::string w;
    while (words >> w) {
      auto eq = w.find('=');
      if (eq == std::string::npos || eq == 0)
        throw OptionError("option '" + w + "' is not of the form key=value");
      o.kv_[trim(w.substr(0, eq))] = trim(w.substr(eq + 1));
    }
  }
  return o;
}

std::string EngineOptions::get(const std::string& key, const std::string& def) const {
  auto it = kv_.find(key);
  return it == kv_.end() ? def : it->second;
}

long EngineOptions::get_int(const std::string& key, long def) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) return def;
  char* end = nullptr;
  long v = std::strtol(it->second.c_str(), &end, 0);
  if (it->second.empty() || *end) throw OptionError("option " + key + "=" + it->second + " is not an integer");
  return v;
}

double EngineOptions::get_double(const std::string& key, double def) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) return def;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end) throw OptionError("option " + key + "=" + it->second + " is not a number");
  return v;
}

bool EngineOptions::get_bool(const std::string& key, bool def) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) return def;
  std::string v = it->second;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  throw OptionError("option " + key + "=" + it->second + " is not a boolean (use true/false)");
}

void EngineOptions::check_known(const std::string& engine, const std::vector<std::string>& known) const {
  for (const auto& [k, v] : kv_) {
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    // "prefix.*" accepts every key that starts with "prefix." (options passed on to another engine)
    if (std::any_of(known.begin(), known.end(), [&k = k](const std::string& s) {
          return s.size() > 2 && s.ends_with(".*") && k.size() > s.size() - 1 && k.starts_with(s.substr(0, s.size() - 1));
        }))
      continue;
    std::string list;
    for (const auto& s : known) list += (list.empty() ? "" : ", ") + s;
    throw OptionError("unknown option '" + k + "' for engine '" + engine + "' (known: " +
                      (list.empty() ? "none" : list) + ")");
  }
}

EngineOptions EngineOptions::with_prefix(const std::string& prefix) const {
  EngineOptions o;
  const std::string p = prefix + ".";
  for (const auto& [k, v] : kv_)
    if (k.size() > p.size() && k.starts_with(p)) o.set(k.substr(p.size()), v);
  return o;
}

}  // namespace ftroute
