#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <unistd.h>

#include "cli.hpp"
#include "json_out.hpp"
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

std::optional<std::string> Args::value(const std::string& name, const std::string& alias) {
  std::optional<std::string> result;
  for (size_t i = 0; i < argv_.size(); i++) {
    if (used_[i]) continue;
    const std::string& a = argv_[i];
    if (a.rfind("--" + name + "=", 0) == 0) {
      used_[i] = true;
      result = a.substr(name.size() + 3);
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
  if (!v) return def;
  char* end = nullptr;
  long x = std::strtol(v->c_str(), &end, 0);
  if (v->empty() || *end) throw UsageError("--" + name + " expects an integer, got '" + *v + "'");
  return x;
}

double Args::double_or(const std::string& name, double def, const std::string& alias) {
  auto v = value(name, alias);
  if (!v) return def;
  char* end = nullptr;
  double x = std::strtod(v->c_str(), &end);
  if (v->empty() || *end) throw UsageError("--" + name + " expects a number, got '" + *v + "'");
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

void write_file_atomic(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::cout << content;
    std::cout.flush();
    return;
  }
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path tmp = p;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error("cannot write " + tmp.string());
    out << content;
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw Error("cannot write " + path);
    }
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace ftroute::cli

using namespace ftroute::cli;

static void print_main_help() {
  std::printf(
      "ftroute - fault-tolerant routing for InfiniBand (OpenSM plugin, offline tools, flit simulator)\n\n"
      "usage: ftroute <command> [options]    (ftroute <command> --help for details)\n"
      "       ftroute --version\n\ncommands:\n");
  auto cmds = registry();
  std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
  for (const auto& c : cmds) std::printf("  %-14s %s\n", c.name.c_str(), c.summary.c_str());
}

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V")) {
    std::printf("ftroute %s\n", FTROUTE_VERSION_STRING);
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
        if (std::find(ok.begin(), ok.end(), name) == ok.end()) {
          std::fprintf(stderr, "ftroute %s: --json is not supported here (JSON output: %s)\n", name.c_str(), list.c_str());
          return 2;
        }
        if (a != "--json") {
          std::fprintf(stderr, "ftroute %s: --json takes no value ('%s'); it writes JSON to stdout\n", name.c_str(), a.c_str());
          return 2;
        }
      }
    Args args(rest);
    try {
      return c.run(args);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "ftroute %s: %s\n\n%s\n", name.c_str(), e.what(), c.help.c_str());
      return 2;
    } catch (const ftroute::Error& e) {
      std::fprintf(stderr, "ftroute %s: %s\n", name.c_str(), e.what());
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
      std::fprintf(stderr, "ftroute %s: internal error: %s%s\n", name.c_str(), e.what(),
                   f.empty() ? "" : (" (after reading " + f + ")").c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "ftroute: unknown command '%s'\n\n", name.c_str());
  print_main_help();
  return 2;
}
