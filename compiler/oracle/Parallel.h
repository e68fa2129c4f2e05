//===- Parallel.h - Fixed-chunk parallel loops ------------------*- C++ -*-===//
//
// Part of CAKE. The oracle library's one threading helper. Work is cut into
// chunks whose boundaries depend only on the problem size, never on the
// number of threads, so that anything computed per chunk (a generator's
// seed, a partial sum) is the same on every machine.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>

namespace cake::oracle {

/// Threads the loops below use: the hardware's count unless set.
unsigned workerCount();
/// Sets the thread count (0: the hardware's); tests use it to show that
/// results do not depend on it.
void setWorkerCount(unsigned n);

/// Calls \p body(chunk) for every chunk in [0, chunks), spread over
/// workerCount() threads; chunks are taken in increasing order by whichever
/// thread is free.
void parallelChunks(int64_t chunks, const std::function<void(int64_t chunk)> &body);

/// parallelChunks over [0, n) cut into ranges of \p grain: \p body(begin, end).
void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &body);

} // namespace cake::oracle
