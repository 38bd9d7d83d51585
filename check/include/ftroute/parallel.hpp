// A minimal parallel loop for the per-destination passes (ftree-misroute's routing, build_cdg's
// switch-level pass, the verdict's entry scan and digest). Items are handed out in order from an atomic
// counter; callers keep per-worker state (indexed by the worker number) and make the result
// independent of which worker did which item, so it is the same for every thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ftroute {

// threads <= 0: std::thread::hardware_concurrency(); never more than `items`, at most 64.
inline int resolve_threads(long threads, long items) {
  long t = threads > 0 ? threads : static_cast<long>(std::thread::hardware_concurrency());
  t = std::clamp<long>(t, 1, 64);
  return static_cast<int>(std::max<long>(1, std::min(t, items)));
}

// Calls fn(worker, item) for item = 0..items-1 on `workers` threads (the calling thread is
// worker 0). The first exception thrown by fn stops the hand-out and is rethrown here.
template <class Fn>
void parallel_for(int workers, long items, long chunk, Fn&& fn) {
  if (workers <= 1 || items <= chunk) {
    for (long i = 0; i < items; i++) fn(0, i);
    return;
  }
  std::atomic<long> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr err;
  std::mutex mu;
  auto body = [&](int w) {
    try {
      for (;;) {
        if (stop.load(std::memory_order_relaxed)) return;
        const long a = next.fetch_add(chunk, std::memory_order_relaxed);
        if (a >= items) return;
        const long b = std::min(items, a + chunk);
        for (long i = a; i < b; i++) fn(w, i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lk(mu);
      if (!err) err = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> th;
  th.reserve(static_cast<size_t>(workers - 1));
  for (int w = 1; w < workers; w++) th.emplace_back(body, w);
  body(0);
  for (auto& t : th) t.join();
  if (err) std::rethrow_exception(err);
}

}  // namespace ftroute
