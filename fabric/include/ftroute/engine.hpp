// Routing engine interface. An engine turns a Fabric into a Routing, or throws
// EngineError with the reason it cannot serve that fabric (the plugin turns that into a
// negative return code so OpenSM falls back).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

namespace ftroute {

// key=value options. Parsed from "k1=v1,k2=v2" (CLI --opt, OpenSM event_plugin_options).
// Engines declare the keys they accept; an unknown key is an OptionError naming it.
// "max_vls=1..15" -> "max_vls" (option_keys() entries carry ranges).
std::string option_key_name(const std::string& spec);

class EngineOptions {
 public:
  EngineOptions() = default;
  static EngineOptions parse(const std::string& text);  // throws OptionError on "k" without '='
  void set(const std::string& key, const std::string& value) { kv_[key] = value; }
  bool has(const std::string& key) const { return kv_.count(key) != 0; }
  std::string get(const std::string& key, const std::string& def) const;
  long get_int(const std::string& key, long def) const;        // throws OptionError if not a number
  double get_double(const std::string& key, double def) const;
  bool get_bool(const std::string& key, bool def) const;       // 1/0, true/false, yes/no, on/off
  // Throws OptionError("unknown option 'x' for engine 'e' (known: a, b)") for keys not in known;
  // a known entry "p.*" accepts every key "p.<something>". A known entry "key=LO..HI" also
  // requires an integer in that range, "key=bool" a boolean (so the CLI and the plugin reject
  // out-of-range values where the options are parsed, before any routing).
  void check_known(const std::string& engine, const std::vector<std::string>& known) const;
  const std::map<std::string, std::string>& all() const { return kv_; }
  // The options whose keys start with "prefix." (e.g. "base."), with the prefix removed.
  EngineOptions with_prefix(const std::string& prefix) const;

 private:
  std::map<std::string, std::string> kv_;
};

// Information from the previous routing pass, for engines that patch instead of recompute (DQR)
// or keep state across sweeps (FT-DRB keeps multipath).
struct PreviousRouting {
  const Fabric* fabric = nullptr;   // fabric the previous routing was computed for
  const Routing* routing = nullptr;
};

class Engine;

// Options an engine has checked (keys and ranges, EngineOptions::check_known against its
// option_keys()): only Engine::check_options() makes one, so a routing step that holds one has
// checked its options exactly once (the routing pipeline checks them when it is made, before the
// fabric is even read, and routes with them on every sweep).
class CheckedOptions {
 public:
  const EngineOptions& options() const { return options_; }
  const std::string& engine() const { return engine_; }

 private:
  friend class Engine;
  CheckedOptions(std::string engine, EngineOptions options) : engine_(std::move(engine)), options_(std::move(options)) {}
  std::string engine_;
  EngineOptions options_;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Option keys this engine accepts (listed by `ftroute engines`; documented in the engine's
  // docs/<engine>.md, see README.md "Engines"), with the range of numeric ones: "max_vls=1..15";
  // "flag=bool" (see EngineOptions::check_known, option_key_name).
  virtual std::vector<std::string> option_keys() const { return {}; }
  // Checks the options (OptionError naming the key, its range or the known keys).
  CheckedOptions check_options(const EngineOptions& options) const {
    options.check_known(name(), option_keys());
    return CheckedOptions(name(), options);
  }
  // Compute a routing. Throws EngineError when the fabric does not fit. `previous` is empty on
  // the first sweep. With EngineOptions the options are checked first; CheckedOptions were
  // checked when they were made (by this engine: another engine's are an OptionError).
  Routing route(const Fabric& fabric, const CheckedOptions& options, const PreviousRouting& previous) {
    if (options.engine() != name())
      throw OptionError("options checked for engine '" + options.engine() + "' given to engine '" + name() + "'");
    return compute(fabric, options.options(), previous);
  }
  Routing route(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) {
    return route(fabric, check_options(options), previous);
  }
  Routing route(const Fabric& fabric, const EngineOptions& options = {}) {
    return route(fabric, options, PreviousRouting{});
  }

 protected:
  // The engine's algorithm, with options already checked.
  virtual Routing compute(const Fabric& fabric, const EngineOptions& options, const PreviousRouting& previous) = 0;
};

}  // namespace ftroute
