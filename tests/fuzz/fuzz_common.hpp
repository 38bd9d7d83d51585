// Shared helpers of the libFuzzer targets (issue #19; scripts/fuzz.sh, docs/HARNESS.md "Fuzzing").
// A target feeds the bytes to one reader and accepts only ftroute::Error (the reader's
// "file:line: message"); anything else (another exception, a crash, a leak, undefined
// behaviour under -fsanitize=address,undefined) is a finding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ftroute/error.hpp"
#include "ftroute/fabric.hpp"
#include "ftroute/netfile.hpp"

namespace fuzz {

// The small fabric the LFT / SL / SL2VL targets map their input onto (tests/data/lft/2sw4hca.net,
// with the LIDs OpenSM gave it: tests/data/lft/2sw4hca.opensm-lfts.dump).
inline const ftroute::Fabric& fabric() {
  static const ftroute::Fabric f = [] {
    ftroute::Fabric x = ftroute::read_net_file(std::string(FTROUTE_SOURCE_DIR) + "/tests/data/lft/2sw4hca.net");
    x.assign_lids(0);
    return x;
  }();
  return f;
}

inline std::string_view text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// Runs fn; an ftroute::Error is the expected way to refuse bad input.
template <class F>
int guarded(F&& fn) {
  try {
    fn();
  } catch (const ftroute::Error&) {
  }
  return 0;
}

}  // namespace fuzz
