//===- Validate.h - The C API's argument checks, without a GPU -*- C++ -*-===//
//
// Part of CAKE. What can be said about a call before touching the GPU: sizes
// in range (each at least 1 and a 32-bit index, byte counts that do not
// overflow), a known dtype, fit's iteration count and tolerance; the
// pointers (non-null, aligned, outputs not overlapping inputs) with
// lib/core/Args.h. Where the
// pointers lie (device memory of which GPU) is the runner's question, asked
// later (Device.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Args.h"
#include "lib/kmeans/Dispatch.h"

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace cake::kmeans {

using libcore::Arg;
using libcore::checkArgs;

/// B, N, K, D and dtype: each size 1 .. 2^31 - 1, dtype one of
/// cake_kmeans_dtype, and no tensor of more than 2^48 bytes. Sets \p problem.
Status checkProblem(Op op, int64_t B, int64_t N, int64_t K, int64_t D, int dtype, Problem &problem);

/// The bytes of x, c and ids for \p p.
uint64_t xBytes(const Problem &p);
uint64_t cBytes(const Problem &p);
uint64_t idsBytes(const Problem &p);

/// fit: max_iters >= 0, tol >= 0 (not NaN).
Status checkFit(int maxIters, float tol);

} // namespace cake::kmeans
