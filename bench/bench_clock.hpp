// Timers shared by the benchmarks: wall seconds between two steady_clock points, and this
// process's CPU time (the machine is shared, so wall time is noisy; the benches are single-threaded).
#pragma once

#include <chrono>
#include <ctime>

namespace ftroute::bench {

using Clock = std::chrono::steady_clock;

inline double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

inline double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace ftroute::bench
