// The pinned-LFT tests' hash (ftree_lft_pin_test, kns_pin_test): FNV-1a 64 over every switch
// table in node order (switch index, then its table), to which a test adds what else it pins.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ftroute/fabric.hpp"
#include "ftroute/routing.hpp"

namespace ftroute::lft_pin {

inline constexpr uint64_t kBasis = 14695981039346656037ULL;  // FNV-1a 64's offset basis

inline uint64_t fnv(uint64_t h, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

inline uint64_t hash_tables(const Fabric& f, const Routing& r) {
  uint64_t h = kBasis;
  for (int s : f.switches()) {
    const auto& t = r.lfts.table(s);
    h = fnv(h, &s, sizeof s);
    h = fnv(h, t.data(), t.size());
  }
  return h;
}

}  // namespace ftroute::lft_pin
