//===- Parallel.cpp - Fixed-chunk parallel loops --------------------------===//
//
// Part of CAKE.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace cake::oracle {

namespace {
std::atomic<unsigned> configuredWorkers{0};
} // namespace

unsigned workerCount() {
  unsigned n = configuredWorkers.load();
  if (n == 0)
    n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

void setWorkerCount(unsigned n) { configuredWorkers = n; }

void parallelChunks(int64_t chunks, const std::function<void(int64_t)> &body) {
  if (chunks <= 0)
    return;
  unsigned threads = static_cast<unsigned>(std::min<int64_t>(workerCount(), chunks));
  if (threads <= 1) {
    for (int64_t c = 0; c < chunks; ++c)
      body(c);
    return;
  }
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t c; (c = next.fetch_add(1)) < chunks;)
      body(c);
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i)
    pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool)
    t.join();
}

void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &body) {
  grain = std::max<int64_t>(grain, 1);
  parallelChunks((n + grain - 1) / grain, [&](int64_t c) { body(c * grain, std::min(n, (c + 1) * grain)); });
}

} // namespace cake::oracle
