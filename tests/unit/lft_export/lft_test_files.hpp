// The captured OpenSM files of tests/data/lft/ (made by tests/data/lft/capture.sh) and byte
// comparisons with the first differing line named: shared by lft_io_test and ibdmchk_io_test.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace lft_test_files {

inline const std::string kDir = std::string(FTROUTE_SOURCE_DIR) + "/tests/data/lft/";

inline std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// First differing line, for readable failures.
inline std::string first_diff(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string la, lb;
  for (int n = 1;; n++) {
    bool ga = static_cast<bool>(std::getline(x, la)), gb = static_cast<bool>(std::getline(y, lb));
    if (!ga && !gb) return a == b ? "" : "(differs in the final newline)";
    if (!ga || !gb || la != lb) return "line " + std::to_string(n) + ":\n  got:  '" + la + "'\n  want: '" + lb + "'";
  }
}

}  // namespace lft_test_files
