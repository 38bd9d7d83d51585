#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "ftroute/atomic_file.hpp"
#include "cli.hpp"
#include "json_out.hpp"
#include "ftroute/fabric_spec.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute_version.hpp"  // generated (cmake/ftroute_version.cmake)

namespace ftroute::cli {

std::vector<Subcommand>& registry() {
  static std::vector<Subcommand> r;
  return r;
}

static bool matches(const std::string& a, const std::string& name, const std::string& alias) {
  return a == "--" + name || (!alias.empty() && a == alias);
}

// A one-letter alias with its value attached: "-fFILE" (or "-f=FILE", as --fabric=FILE) for alias "-f".
static bool attached(const std::string& a, const std::string& alias) {
  return alias.size() == 2 && alias[0] == '-' && alias[1] != '-' && a.size() > 2 && a.compare(0, 2, alias) == 0;
}
static std::string attached_value(const std::string& a) { return a.substr(a[2] == '=' ? 3 : 2); }

std::optional<std::string> Args::value(const std::string& name, const std::string& alias) {
  std::optional<std::string> result;
  for (size_t i = 0; i < argv_.size(); i++) {
    if (used_[i]) continue;
    const std::string& a = argv_[i];
    if (a.rfind("--" + name + "=", 0) == 0) {
      used_[i] = true;
      result = a.substr(name.size() + 3);
    } else if (attached(a, alias)) {  // -fVALUE
      used_[i] = true;
      result = attached_value(a);
    } else if (matches(a, name, alias)) {
      if (i + 1 >= argv_.size()) throw UsageError("option " + a + " needs a value");
      used_[i] = used_[i + 1] = true;
      result = argv_[++i];
    }
  }
  return result;
}

std::string Args::value_or(const std::string& name, const std::string& def, const std::string& alias) {
  auto v = value(name, alias);
  return v ? *v : def;
}

long Args::int_or(const std::string& name, long def, const std::string& alias) {
  auto v = value(name, alias);
  return v ? parse_int(name, *v) : def;
}

long Args::parse_int(const std::string& name, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  long x = std::strtol(v.c_str(), &end, 0);
  if (v.empty() || *end) throw UsageError("--" + name + " expects an integer, got '" + v + "'");
  if (errno == ERANGE) throw UsageError("--" + name + " " + v + " out of range");
  return x;
}

double Args::double_or(const std::string& name, double def, const std::string& alias) {
  auto v = value(name, alias);
  if (!v) return def;
  char* end = nullptr;
  double x = std::strtod(v->c_str(), &end);
  if (v->empty() || *end || !std::isfinite(x)) throw UsageError("--" + name + " expects a number, got '" + *v + "'");
  return x;
}

long Args::int_in(const std::string& name, long def, long lo, long hi, const std::string& alias) {
  const auto v = value(name, alias);
  if (!v) return def;  // (a default outside lo..hi means "not given")
  const long x = parse_int(name, *v);
  if (x < lo || x > hi)
    throw UsageError("--" + name + " " + std::to_string(x) + " out of range (" + std::to_string(lo) + ".." +
                     std::to_string(hi) + ")");
  return x;
}

double Args::double_in(const std::string& name, double def, double lo, double hi, const std::string& alias) {
  const double x = double_or(name, def, alias);
  if (!(x >= lo && x <= hi)) {
    char b[96];
    std::snprintf(b, sizeof b, " %g out of range (%g..%g)", x, lo, hi);
    throw UsageError("--" + name + b);
  }
  return x;
}

std::vector<std::string> Args::values(const std::string& name, const std::string& alias) {
  std::vector<std::string> r;
  for (size_t i = 0; i < argv_.size(); i++) {
    if (used_[i]) continue;
    const std::string& a = argv_[i];
    if (a.rfind("--" + name + "=", 0) == 0) {
      used_[i] = true;
      r.push_back(a.substr(name.size() + 3));
    } else if (attached(a, alias)) {  // -fVALUE
      used_[i] = true;
      r.push_back(attached_value(a));
    } else if (matches(a, name, alias)) {
      if (i + 1 >= argv_.size()) throw UsageError("option " + a + " needs a value");
      used_[i] = used_[i + 1] = true;
      r.push_back(argv_[++i]);
    }
  }
  return r;
}

bool Args::flag(const std::string& name, const std::string& alias) {
  bool found = false;
  for (size_t i = 0; i < argv_.size(); i++)
    if (!used_[i] && matches(argv_[i], name, alias)) used_[i] = true, found = true;
  return found;
}

std::vector<std::string> Args::positionals() {
  std::vector<std::string> r;
  for (size_t i = 0; i < argv_.size(); i++) {
    if (used_[i]) continue;
    const std::string& a = argv_[i];
    if (a.size() > 1 && a[0] == '-' ) throw UsageError("unknown option '" + a + "'");
    r.push_back(a);
  }
  return r;
}

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

FabricArg fabric_options(Args& a, bool gen_ok) {
  FabricArg f;
  f.file = a.value_or("fabric", "", "-f");
  if (gen_ok) f.gen = a.value_or("gen", "");
  if (!f.file.empty() && !f.gen.empty()) throw UsageError("give one fabric: --fabric FILE or --gen SPEC, not both");
  return f;
}

void fabric_positional(FabricArg& f, std::vector<std::string>& pos, bool gen_ok) {
  const std::string forms = gen_ok ? "FABRIC, --fabric FILE or --gen SPEC" : "FABRIC or --fabric FILE";
  if (f.file.empty() && f.gen.empty()) {
    if (pos.empty()) throw UsageError("give the fabric: " + forms);
    f.file = pos.front();
    pos.erase(pos.begin());
  } else if (!pos.empty()) {
    throw UsageError("unexpected argument '" + pos.front() + "' (the fabric is given by --" +
                     (f.file.empty() ? "gen" : "fabric") + ")");
  }
}

Fabric load_fabric(const FabricArg& f, const std::function<Fabric(const std::string&)>& read_file) {
  if (!f.gen.empty()) return topo::build_fabric_spec(f.gen);
  return read_file(f.file);
}

namespace {

std::string errno_text(int e) { return std::strerror(e); }  // e captured right after the failing call

// Directory a file path lives in ("." for a bare name).
std::string dir_of(const std::string& path) {
  std::filesystem::path p(path);
  std::filesystem::path d = p.parent_path();
  return d.empty() ? std::string(".") : d.string();
}

void check_writable_dir(const std::string& path, const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int e = errno;
    throw Error("cannot write " + path + ": directory " + dir + ": " + errno_text(e));
  }
  if (!S_ISDIR(st.st_mode)) throw Error("cannot write " + path + ": " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    const int e = errno;
    throw Error("cannot write " + path + ": directory " + dir + ": " + errno_text(e));
  }
}

void check_output_path(const std::string& path) {
  if (path.empty() || path == "-") return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error("cannot write " + path + ": is a directory");
    if (!S_ISREG(st.st_mode)) return;  // a device or FIFO (/dev/null, a pipe): written in place
  }
  check_writable_dir(path, dir_of(path));
}

}  // namespace

void check_output_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> seen;
  for (const auto& p : paths) {
    if (p.empty()) continue;
    check_output_path(p);
    if (p == "-") continue;
    std::error_code ec;
    std::string key = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec).lexically_normal().string();
    if (ec) key = std::filesystem::path(p).lexically_normal().string();
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw Error("cannot write " + p + ": given for two outputs");
    seen.push_back(key);
  }
}

void check_output_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw Error("cannot write into " + dir + ": not a directory");
    check_writable_dir(dir + "/", dir);
    return;
  }
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  // the nearest existing ancestor must be a writable directory (create_directories makes the rest)
  std::filesystem::path p = std::filesystem::path(d).parent_path();
  while (!p.empty() && ::stat(p.c_str(), &st) != 0) p = p.parent_path();
  check_writable_dir(dir, p.empty() ? std::string(".") : p.string());
}

void OutputFiles::add(const std::string& path, std::string content) {
  if (!path.empty()) files_.emplace_back(path, std::move(content));
}

void OutputFiles::commit() {
  std::vector<std::string> paths;
  for (auto& f : files_) paths.push_back(f.first);
  check_output_paths(paths);
  // Every file goes to its temp file first (AtomicFile: a device or FIFO is written in place),
  // then all are renamed; an error before the renames removes every temp file.
  std::vector<std::unique_ptr<AtomicFile>> out;
  for (auto& [path, content] : files_) {
    if (path == "-") continue;
    out.push_back(std::make_unique<AtomicFile>(path));
    out.back()->write(content);
  }
  for (auto& f : out) f->commit();
  for (auto& [path, content] : files_)
    if (path == "-") {
      std::cout << content;
      std::cout.flush();
    }
  files_.clear();
}

void write_file_atomic(const std::string& path, const std::string& content) {
  OutputFiles o;
  o.add(path, content);
  o.commit();
}

}  // namespace ftroute::cli

using namespace ftroute::cli;

// An error message with control characters (names from the command line or a file, terminal
// escape sequences) escaped as \xNN; line breaks and tabs kept.
static std::string printable(const std::string& m) {
  std::string r;
  size_t a = 0;
  while (a <= m.size()) {
    size_t b = m.find_first_of("\n\t", a);
    if (b == std::string::npos) b = m.size();
    r += ftroute::escape_name(std::string_view(m).substr(a, b - a));
    if (b < m.size()) r += m[b];
    a = b + 1;
  }
  return r;
}

// A usage error: its one line, then where the help is; exit status 2 (every subcommand).
static int usage_error(const std::string& cmd, const std::string& what) {
  std::fprintf(stderr, "ftroute %s: %s\nsee 'ftroute %s --help'\n", cmd.c_str(), printable(what).c_str(), cmd.c_str());
  return 2;
}

// The command's exit status, or 1 with a message where its stdout could not be written (a full
// disk, a file system error): output lost must not look like success.
static int stdout_written(const std::string& cmd, int rc) {
  std::cout.flush();
  errno = 0;
  const bool ok = std::fflush(stdout) == 0 && !std::ferror(stdout) && !std::cout.fail();
  const int e = errno;
  if (ok) return rc;
  std::fprintf(stderr, "ftroute %s: cannot write stdout%s%s\n", cmd.c_str(), e ? ": " : "", e ? std::strerror(e) : "");
  return rc ? rc : 1;
}

static void print_main_help() {
  std::printf(
      "ftroute - fault-tolerant routing for InfiniBand (OpenSM plugin, offline tools, flit simulator)\n\n"
      "usage: ftroute <command> [options]    (ftroute <command> --help for details)\n"
      "       ftroute --version\n\ncommands:\n");
  auto cmds = registry();
  std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
  // Two spaces at least between a name and its summary, also after the longest name: help2man
  // (the man pages) reads a list entry only there, and joined the list into one paragraph when
  // `campaign-merge` left one space.
  int width = 0;
  for (const auto& c : cmds) width = std::max(width, static_cast<int>(c.name.size()));
  for (const auto& c : cmds) std::printf("  %-*s  %s\n", width, c.name.c_str(), c.summary.c_str());
}

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V")) {
    // the OpenSM the plugin of this build is built for: a plugin loads only into that version
    if (*FTROUTE_OPENSM_VERSION)
      std::printf("ftroute %s, plugin built for OpenSM %s\n", FTROUTE_VERSION_STRING, FTROUTE_OPENSM_VERSION);
    else
      std::printf("ftroute %s, no OpenSM plugin in this build\n", FTROUTE_VERSION_STRING);
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    print_main_help();
    return argc < 2 ? 2 : 0;
  }
  std::string name = argv[1];
  for (const auto& c : registry()) {
    if (c.name != name) continue;
    std::vector<std::string> rest(argv + 2, argv + argc);
    if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
        std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
      std::printf("%s\n", c.help.c_str());
      return 0;
    }
    // --json: only where a JSON document exists (docs/JSON.md); one line, exit 2 otherwise
    for (const auto& a : rest)
      if (a == "--json" || a.rfind("--json=", 0) == 0) {
        const auto& ok = kJsonCommands;
        std::string list;
        for (const auto& c2 : ok) list += (list.empty() ? "" : ", ") + c2;
        if (std::find(ok.begin(), ok.end(), name) == ok.end())
          return usage_error(name, "--json is not supported here (JSON output: " + list + ")");
        if (a != "--json") return usage_error(name, "--json takes no value ('" + a + "'); it writes JSON to stdout");
      }
    Args args(rest);
    try {
      return stdout_written(name, c.run(args));
    } catch (const UsageError& e) {
      return usage_error(name, e.what());
    } catch (const ftroute::topo::SpecError& e) {  // a bad fabric spec is a usage error too
      return usage_error(name, e.what());
    } catch (const ftroute::Error& e) {
      std::fprintf(stderr, "ftroute %s: %s\n", name.c_str(), printable(e.what()).c_str());
      return 1;
    } catch (const std::bad_alloc&) {
      // never a bare "std::bad_alloc": name the input being read (input sizes are bounded, so
      // this is a fabric or routing too large for this machine)
      const std::string& f = ftroute::last_input_file();
      std::fprintf(stderr, "ftroute %s: out of memory%s\n", name.c_str(),
                   f.empty() ? "" : (" (after reading " + f + ")").c_str());
      return 1;
    } catch (const std::exception& e) {
      const std::string& f = ftroute::last_input_file();
      std::fprintf(stderr, "ftroute %s: internal error: %s%s\n", name.c_str(), printable(e.what()).c_str(),
                   f.empty() ? "" : (" (after reading " + f + ")").c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "ftroute: unknown command '%s'\nsee 'ftroute --help'\n", printable(name).c_str());
  return 2;
}
