// How much of a heavy randomized or exhaustive unit test runs.
//
// The normal build runs every round. The sanitizer build (scripts/test.sh step 4: clang -O1,
// AddressSanitizer + UndefinedBehaviorSanitizer) runs the same tests 5-10x slower, and is there to
// find memory errors and undefined behaviour, which a sample of the rounds reaches as well: there
// these tests run one round in `divisor` (docs/HARNESS.md, "Sanitizers"). Detected at compile
// time, so no flag or environment variable can make the normal build skip rounds.
#pragma once

#include <algorithm>
#include <cstddef>

namespace ftroute::test_scale {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

// `full` rounds normally, full / divisor (at least 1) in the sanitizer build.
constexpr int rounds(int full, int divisor = 8) {
  return kSanitizerBuild ? std::max(1, full / divisor) : full;
}

// Whether the i-th item of an exhaustive loop runs: all of them normally, every divisor-th one
// (the first included) in the sanitizer build.
constexpr bool sampled(size_t i, size_t divisor = 8) { return !kSanitizerBuild || i % divisor == 0; }

}  // namespace ftroute::test_scale
