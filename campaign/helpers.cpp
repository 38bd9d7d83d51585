// Helper lookup relative to the running binary (see ftroute/helpers.hpp).
#include "ftroute/helpers.hpp"

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <system_error>

#ifndef FTROUTE_REL_PLUGIN_DIR
#define FTROUTE_REL_PLUGIN_DIR "lib"  // relative to the install prefix; set by campaign/CMakeLists.txt
#endif

namespace ftroute {
namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
std::string first_existing(std::initializer_list<std::string> rels, const std::string& file) {
  const std::string d = self_exe_dir();
  if (d.empty()) return "";
  for (const std::string& rel : rels) {
    std::error_code ec;
    fs::path p = fs::path(d) / rel / file;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return "";
}
}  // namespace

std::string self_exe_dir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

std::string locate_ftsim_script() {
  if (auto e = env("FTROUTE_FTSIM"); !e.empty()) return e;
  return first_existing({"../libexec/ftroute", "../../libexec/ftroute"}, "ftsim.sh");
}

std::string locate_pathsl_tool() {
  if (auto e = env("FTROUTE_PATHSL"); !e.empty()) return e;
  return first_existing({".", "../libexec/ftroute", "../campaign", "../../campaign"}, "ftroute-pathsl");
}

std::string locate_plugin_dir() {
  if (auto e = env("FTROUTE_PLUGIN_DIR"); !e.empty()) return e;
  std::string so = first_existing({std::string("../") + FTROUTE_REL_PLUGIN_DIR, "../plugin", "../../plugin"}, "libftroute.so");
  return so.empty() ? "" : fs::path(so).parent_path().string();
}

}  // namespace ftroute
