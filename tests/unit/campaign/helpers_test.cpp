// Where the campaign finds scripts/ftsim.sh, ftroute-pathsl and libftroute.so
// (campaign/helpers.cpp, table in ftroute/helpers.hpp): the environment override wins, even
// for a path that does not exist; an empty override does not count; without one, the lookup is
// relative to the running binary (this test binary, build/tests/) and never names a missing file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "ftroute/helpers.hpp"

using namespace ftroute;
namespace fs = std::filesystem;

namespace {

// Sets (or unsets) an environment variable for one scope, restoring the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

const std::string kBuild = FTROUTE_BINARY_DIR;

// What the lookup must answer for a file that is where the build tree puts it, or "".
std::string expected_at(const std::string& path) {
  return fs::is_regular_file(path) ? fs::weakly_canonical(path).string() : std::string();
}

}  // namespace

TEST(Helpers, SelfExeDirIsTheRunningBinarysFolder) {
  const std::string d = self_exe_dir();
  ASSERT_FALSE(d.empty());
  EXPECT_TRUE(fs::path(d).is_absolute()) << d;
  EXPECT_TRUE(fs::is_regular_file(fs::path(d) / "campaign_tests")) << d;
  EXPECT_TRUE(fs::equivalent(d, kBuild + "/tests")) << d;
}

TEST(Helpers, EnvironmentOverrideWinsEvenForAMissingPath) {
  {
    ScopedEnv e("FTROUTE_FTSIM", "/nonexistent/ftsim.sh");
    EXPECT_EQ(locate_ftsim_script(), "/nonexistent/ftsim.sh");
  }
  {
    ScopedEnv e("FTROUTE_PATHSL", "relative/ftroute-pathsl");
    EXPECT_EQ(locate_pathsl_tool(), "relative/ftroute-pathsl");
  }
  {
    ScopedEnv e("FTROUTE_PLUGIN_DIR", "/opt/plugins");
    EXPECT_EQ(locate_plugin_dir(), "/opt/plugins");
  }
}

// The build tree mirrors the installed layout for ftsim.sh (build/libexec/ftroute/ftsim.sh, a
// configure-time copy), so a binary in build/tests/ finds it; an empty override is no override.
TEST(Helpers, FtsimScriptFoundBesideTheBuildTree) {
  const std::string want = fs::weakly_canonical(kBuild + "/libexec/ftroute/ftsim.sh").string();
  ASSERT_TRUE(fs::is_regular_file(want)) << want << " (made by campaign/CMakeLists.txt)";
  {
    ScopedEnv e("FTROUTE_FTSIM", std::nullopt);
    EXPECT_EQ(locate_ftsim_script(), want);
  }
  {
    ScopedEnv e("FTROUTE_FTSIM", "");
    EXPECT_EQ(locate_ftsim_script(), want);
  }
}

// ftroute-pathsl and libftroute.so are optional targets (libibmad, OpenSM headers): found in the
// build tree's campaign/ and plugin/ folders when built, "" otherwise, never a path that is not there.
TEST(Helpers, PathslToolAndPluginDirFoundOnlyWhenBuilt) {
  ScopedEnv a("FTROUTE_PATHSL", std::nullopt), b("FTROUTE_PLUGIN_DIR", std::nullopt);
  const std::string pathsl = locate_pathsl_tool();
  EXPECT_EQ(pathsl, expected_at(kBuild + "/campaign/ftroute-pathsl"));
  if (!pathsl.empty()) {
    EXPECT_TRUE(fs::is_regular_file(pathsl)) << pathsl;
  }

  const std::string so = expected_at(kBuild + "/plugin/libftroute.so");
  const std::string dir = locate_plugin_dir();
  EXPECT_EQ(dir, so.empty() ? std::string() : fs::path(so).parent_path().string());
  if (!dir.empty()) {
    EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / "libftroute.so")) << dir;
  }
}
