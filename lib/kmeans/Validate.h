//===- Validate.h - The C API's argument checks, without a GPU -*- C++ -*-===//
//
// Part of CAKE. What can be said about a call before touching the GPU: sizes
// in range (each at least 1 and a 32-bit index, byte counts that do not
// overflow), a known dtype, non-null and aligned pointers, outputs that do
// not overlap inputs, fit's iteration count and tolerance. Where the
// pointers lie (device memory of which GPU) is the runner's question, asked
// later (Device.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/kmeans/Dispatch.h"

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace cake::kmeans {

/// A tensor argument of a call: its name in messages and in the IR
/// ("x", "c", "ids", "c_old", "c_new"), its address and its bytes.
struct Arg {
  std::string_view name;
  const void *address = nullptr;
  uint64_t bytes = 0;
  bool output = false;
  uint64_t align = 16; ///< x and c: TMA reads them; ids: 4
};

/// B, N, K, D and dtype: each size 1 .. 2^31 - 1, dtype one of
/// cake_kmeans_dtype, and no tensor of more than 2^48 bytes. Sets \p problem.
Status checkProblem(Op op, int64_t B, int64_t N, int64_t K, int64_t D, int dtype, Problem &problem);

/// The bytes of x, c and ids for \p p.
uint64_t xBytes(const Problem &p);
uint64_t cBytes(const Problem &p);
uint64_t idsBytes(const Problem &p);

/// Every pointer non-null and aligned, and no output overlapping another
/// argument.
Status checkArgs(std::initializer_list<Arg> args);

/// fit: max_iters >= 0, tol >= 0 (not NaN).
Status checkFit(int maxIters, float tol);

} // namespace cake::kmeans
