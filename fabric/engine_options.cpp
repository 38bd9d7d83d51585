#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "ftroute/engine.hpp"
#include "ftroute/engine_option_text.hpp"

namespace ftroute {

namespace {
std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// Whole-string integer (base 0); nullopt if not a number or out of long's range.
std::optional<long> to_long(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 0);
  if (*end || errno == ERANGE) return std::nullopt;
  return v;
}

}  // namespace

std::string OptionSpec::range() const {
  if (kind == Kind::Int) return std::to_string(lo) + ".." + std::to_string(hi);
  if (kind == Kind::Bool) return "bool";
  if (kind == Kind::Choice) {
    std::string r;
    for (const auto& v : values) r += (r.empty() ? "" : "|") + v;
    return r;
  }
  return "";
}

const OptionSpec& find_option_spec(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const auto& s : specs)
    if (s.name == name) return s;
  throw std::logic_error("option '" + name + "' is not declared (OptionSpec)");
}

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
  auto v = to_long(it->second);
  if (!v) throw OptionError("option " + key + "=" + it->second + " is not an integer (or out of range)");
  return *v;
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

namespace {
const OptionSpec& typed(const OptionSpec& spec, OptionSpec::Kind kind) {
  const bool text_like = kind == OptionSpec::Kind::Text && spec.kind == OptionSpec::Kind::Choice;  // read as text
  if (spec.kind != kind && !text_like) throw std::logic_error("option '" + spec.name + "' read as another kind than declared");
  if (kind != OptionSpec::Kind::Text && spec.def.empty()) throw std::logic_error("option '" + spec.name + "' has no default: check has() first");
  return spec;
}
}  // namespace

long EngineOptions::get_int(const OptionSpec& spec) const {
  typed(spec, OptionSpec::Kind::Int);
  auto def = to_long(spec.def);
  if (!def) throw std::logic_error("option '" + spec.name + "': default '" + spec.def + "' is not an integer");
  return get_int(spec.name, *def);
}

bool EngineOptions::get_bool(const OptionSpec& spec) const {
  typed(spec, OptionSpec::Kind::Bool);
  EngineOptions d;
  d.set(spec.name, spec.def);
  return has(spec.name) ? get_bool(spec.name, false) : d.get_bool(spec.name, false);
}

std::string EngineOptions::get(const OptionSpec& spec) const {
  typed(spec, OptionSpec::Kind::Text);
  return get(spec.name, spec.def);
}

void EngineOptions::check_known(const std::string& engine, const std::vector<OptionSpec>& specs) const {
  for (const auto& [k, v] : kv_) {
    auto it = std::find_if(specs.begin(), specs.end(),
                           [&k = k](const OptionSpec& s) { return s.kind != OptionSpec::Kind::Prefix && s.name == k; });
    if (it != specs.end()) {
      const std::string what = "option " + k + "=" + v + " for engine '" + engine + "'";
      if (it->kind == OptionSpec::Kind::Int) {
        auto x = to_long(v);
        if (!x) throw OptionError(what + ": not an integer (" + it->range() + ")");
        if (*x < it->lo || *x > it->hi) throw OptionError(what + ": must be " + it->range());
      } else if (it->kind == OptionSpec::Kind::Bool) {
        get_bool(k, false);  // throws for anything but 1/0, true/false, yes/no, on/off
      } else if (it->kind == OptionSpec::Kind::Choice) {
        if (std::find(it->values.begin(), it->values.end(), v) == it->values.end())
          throw OptionError(what + ": must be " + it->range());
      }
      continue;
    }
    // "prefix.*" accepts every key that starts with "prefix." (options passed on to another engine)
    if (std::any_of(specs.begin(), specs.end(), [&k = k](const OptionSpec& sp) {
          const std::string& s = sp.name;
          return sp.kind == OptionSpec::Kind::Prefix && s.size() > 2 && s.ends_with(".*") && k.size() > s.size() - 1 && k.starts_with(s.substr(0, s.size() - 1));
        }))
      continue;
    std::string list;
    for (const auto& s : specs) list += (list.empty() ? "" : ", ") + s.name;
    throw OptionError("unknown option '" + k + "' for engine '" + engine + "' (known: " +
                      (list.empty() ? "none" : list) + ")");
  }
  for (const auto& s : specs)
    if (s.required && get(s.name, "").empty())
      throw OptionError("engine '" + engine + "' needs option " + s.name + "=VALUE (" + s.doc + ")");
}

EngineOptions EngineOptions::with_prefix(const std::string& prefix) const {
  EngineOptions o;
  const std::string p = prefix + ".";
  for (const auto& [k, v] : kv_)
    if (k.size() > p.size() && k.starts_with(p)) o.set(k.substr(p.size()), v);
  return o;
}

std::optional<std::pair<std::string, std::string>> split_engine_option(const std::string& text) {
  const size_t colon = text.find(':'), eq = text.find('=');
  if (colon != std::string::npos && (eq == std::string::npos || colon < eq))
    return std::make_pair(text.substr(0, colon), text.substr(colon + 1));
  return std::nullopt;
}

EngineOptions engine_options_for(const std::string& engine, const std::vector<std::string>& texts, bool only_engine) {
  EngineOptions eo;
  for (const auto& t : texts) {
    const auto named = split_engine_option(t);
    if (named && named->first != engine) {
      if (only_engine) throw OptionError("--opt '" + t + "' is for engine '" + named->first + "', not '" + engine + "'");
      continue;
    }
    const EngineOptions parsed = EngineOptions::parse(named ? named->second : t);
    for (const auto& [k, v] : parsed.all()) eo.set(k, v);
  }
  return eo;
}

}  // namespace ftroute
