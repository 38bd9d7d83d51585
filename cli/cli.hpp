// Subcommand registry of the `ftroute` command. A subcommand file does:
//
//   static int run_gen(ftroute::cli::Args& a) { ... return 0; }
//   FTROUTE_SUBCOMMAND(gen, "generate ibsim .net topologies", R"(usage: ftroute gen ...)", run_gen);
//
// Args gives the arguments after the subcommand name. Errors: throw ftroute::Error (or
// subclasses); main() prints "ftroute <cmd>: <what>" and exits 1. Usage errors: throw
// cli::UsageError (or topo::SpecError): one line plus "see 'ftroute <cmd> --help'", exit 2.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/fabric.hpp"

namespace ftroute::cli {

class UsageError : public Error {
 public:
  using Error::Error;
};

// Runs f(); an E (a library's check of an option value: OptionError unless told) becomes a
// UsageError with the same text.
template <class E = OptionError, class F>
decltype(auto) usage_errors(F&& f) {
  try {
    return f();
  } catch (const E& e) {
    throw UsageError(e.what());
  }
}

// Simple GNU-style option parser over the subcommand's argv.
class Args {
 public:
  explicit Args(std::vector<std::string> argv) : argv_(std::move(argv)), used_(argv_.size(), false) {}
  // --name VALUE or --name=VALUE (also a short alias: -o VALUE or -oVALUE). Throws UsageError if the
  // value is missing. (The parser stays hand-written: docs/ARCHITECTURE.md "Command line".)
  std::optional<std::string> value(const std::string& name, const std::string& alias = "");
  std::string value_or(const std::string& name, const std::string& def, const std::string& alias = "");
  long int_or(const std::string& name, long def, const std::string& alias = "");
  double double_or(const std::string& name, double def, const std::string& alias = "");
  // Same, and a value given must be in [lo, hi] (UsageError "--name V out of range (lo..hi)"); the
  // default is returned as it is (one outside [lo, hi] can mean "not given").
  long int_in(const std::string& name, long def, long lo, long hi, const std::string& alias = "");
  double double_in(const std::string& name, double def, double lo, double hi, const std::string& alias = "");
  std::vector<std::string> values(const std::string& name, const std::string& alias = "");  // repeated
  bool flag(const std::string& name, const std::string& alias = "");                         // --name present
  // Remaining positional arguments; throws UsageError for any unconsumed "--option".
  // Call after all value()/flag() calls.
  std::vector<std::string> positionals();

 private:
  static long parse_int(const std::string& name, const std::string& v);  // strtol, base 0, whole text
  std::vector<std::string> argv_;
  std::vector<bool> used_;
};

// The fabric of a command, taken the same way by every subcommand that takes one: a .net /
// opensm-subnet.lst file as the positional FABRIC or with --fabric/-f (either, not both), or
// where gen_ok, a generated fabric --gen SPEC (fabric_spec.hpp). Two steps, because Args wants
// every option read before positionals(): fabric_options() reads the options, then
// fabric_positional() takes the first positional when no option named the fabric.
struct FabricArg {
  std::string file;  // a path, or "" for a generated fabric
  std::string gen;   // the spec of --gen
  const std::string& label() const { return file.empty() ? gen : file; }
};
FabricArg fabric_options(Args& a, bool gen_ok);
// Removes the fabric from `pos`; throws UsageError when no fabric or two are given.
void fabric_positional(FabricArg& f, std::vector<std::string>& pos, bool gen_ok);
// The fabric of `f`: read_file(path) for a file, the generator for --gen (no LIDs).
Fabric load_fabric(const FabricArg& f, const std::function<Fabric(const std::string&)>& read_file);

struct Subcommand {
  std::string name, summary, help;
  std::function<int(Args&)> run;
};

std::vector<Subcommand>& registry();
struct Registrar {
  Registrar(const char* name, const char* summary, const char* help, std::function<int(Args&)> run) {
    registry().push_back({name, summary, help, std::move(run)});
  }
};

// "a,b,,c" -> {"a", "b", "c"} (empty items dropped), for list-valued options.
std::vector<std::string> split_list(const std::string& s, char sep = ',');

// Writes `content` to `path` atomically (temp file + rename): a failed command leaves no
// partial output behind. "-" writes to stdout.
void write_file_atomic(const std::string& path, const std::string& content);

// Checks, before any work, that every non-empty path can be written: not an existing
// directory, its directory exists and is writable, no path given twice. "-" (stdout) passes.
// Throws Error("cannot write PATH: <reason>"). Call right after the options are parsed.
void check_output_paths(const std::vector<std::string>& paths);
// Same for an output directory (campaign --out, export --to ibdmchk -o): an existing
// writable directory, or a path whose parent exists and is writable (it is created later).
void check_output_dir(const std::string& dir);

// Several output files of one command, committed all or none: add() stages them, commit()
// checks every path, writes each to a temp file beside it (removing all temps on any failure),
// then renames them into place. Empty paths are skipped; "-" goes to stdout at commit.
class OutputFiles {
 public:
  void add(const std::string& path, std::string content);
  void commit();

 private:
  std::vector<std::pair<std::string, std::string>> files_;
};

}  // namespace ftroute::cli

#define FTROUTE_SUBCOMMAND(name, summary, help, fn) \
  static ::ftroute::cli::Registrar ftroute_subcommand_##name(#name, summary, help, fn)
