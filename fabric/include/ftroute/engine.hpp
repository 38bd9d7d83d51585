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

// What an engine accepts: each engine declares its options once, as data (Engine::option_specs):
// name, kind and range, default, one line of meaning. EngineOptions::check_known enforces the
// kinds and ranges where the options are parsed, the engines read their defaults from them
// (EngineOptions::get_int(spec), ...), and `ftroute engines` (text and --json) prints them.
struct OptionSpec {
  enum class Kind {
    Text,    // any value; the engine checks it (a file name, a dimension order, ...)
    Choice,  // one of `values` ("local", "e2e"), checked where the options are parsed
    Int,     // an integer in lo..hi
    Bool,    // 1/0, true/false, yes/no, on/off
    Prefix,  // name "p.*": every key "p.<something>" (options passed on to another engine)
  };
  std::string name;
  Kind kind = Kind::Text;
  long lo = 0, hi = 0;  // Int
  // The value the engine uses when the key is not given, as text ("8", "true", "local"); empty
  // when the engine derives it (the doc then says how) or the option has none.
  std::string def;
  std::string doc;  // one line: what the option does
  std::vector<std::string> values;  // Choice: the accepted values
  bool required = false;             // the engine cannot run without it (checked with the keys)

  static OptionSpec integer(std::string name, long lo, long hi, std::string def, std::string doc) {
    return {std::move(name), Kind::Int, lo, hi, std::move(def), std::move(doc), {}};
  }
  static OptionSpec boolean(std::string name, std::string def, std::string doc) {
    return {std::move(name), Kind::Bool, 0, 0, std::move(def), std::move(doc), {}};
  }
  static OptionSpec text(std::string name, std::string def, std::string doc) {
    return {std::move(name), Kind::Text, 0, 0, std::move(def), std::move(doc), {}};
  }
  // A Text option the engine cannot run without: a missing or empty value is an OptionError where
  // the options are checked, before any work.
  static OptionSpec required_text(std::string name, std::string doc) {
    OptionSpec s = text(std::move(name), "", std::move(doc));
    s.required = true;
    return s;
  }
  static OptionSpec prefix(std::string name, std::string doc) {
    return {std::move(name), Kind::Prefix, 0, 0, "", std::move(doc), {}};
  }
  static OptionSpec choice(std::string name, std::vector<std::string> values, std::string def, std::string doc) {
    return {std::move(name), Kind::Choice, 0, 0, std::move(def), std::move(doc), std::move(values)};
  }
  // "1..15" (Int), "bool" (Bool), "local|e2e" (Choice), "" (Text, Prefix)
  std::string range() const;
};

// The spec named `name` in specs; std::logic_error if there is none (an engine reading an option
// it does not declare is a programming error).
const OptionSpec& find_option_spec(const std::vector<OptionSpec>& specs, const std::string& name);

// key=value options. Parsed from "k1=v1,k2=v2" (CLI --opt, OpenSM event_plugin_options).
// Engines declare the keys they accept (OptionSpec); an unknown key is an OptionError naming it.
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
  // The same with the spec's default (std::logic_error if the spec has another kind, or is an
  // Int/Bool without a default: the engine must then decide with has()). A Text spec without a
  // default reads as "".
  long get_int(const OptionSpec& spec) const;
  bool get_bool(const OptionSpec& spec) const;
  std::string get(const OptionSpec& spec) const;  // Text, Choice
  // Throws OptionError("unknown option 'x' for engine 'e' (known: a, b)") for keys not in known;
  // a Prefix spec "p.*" accepts every key "p.<something>". An Int spec also requires an integer
  // in its range ("option k=v for engine 'e': must be LO..HI"), a Bool spec a boolean, a Choice
  // spec one of its values ("must be local|e2e"), so the CLI and the plugin reject out-of-range
  // values where the options are parsed, before any routing.
  void check_known(const std::string& engine, const std::vector<OptionSpec>& known) const;
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
// option_specs()): only Engine::check_options() makes one, so a routing step that holds one has
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
  // The options this engine accepts, declared once in the engine's own file (listed by
  // `ftroute engines`; explained in the engine's docs/<engine>.md, see README.md "Engines").
  virtual std::vector<OptionSpec> option_specs() const { return {}; }
  // The spec of option `key` (std::logic_error if the engine does not declare it).
  OptionSpec option_spec(const std::string& key) const { return find_option_spec(option_specs(), key); }
  // Checks the options against option_specs() (OptionError naming the key, its range or the
  // known keys).
  CheckedOptions check_options(const EngineOptions& options) const {
    options.check_known(name(), option_specs());
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
