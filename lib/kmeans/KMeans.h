//===- KMeans.h - assign, update and fit ------------------------*- C++ -*-===//
//
// Part of CAKE. The three operations of the C API (cake_kmeans.h), in C++:
// each checks its arguments (Validate.h), asks the dispatcher for a variant
// (Dispatch.h), prepares its pipeline (Pipeline.h), then on the tensors' GPU
// (Device.h) enqueues it on the caller's stream with stream-ordered scratch.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/kmeans/Status.h"

#include <cstdint>

namespace cake::kmeans {

/// \p dist may be null; when given it receives ||x - c[id]||^2 of each row.
Status assign(const void *x, const void *c, int32_t *ids, float *dist, int64_t B, int64_t N, int64_t K, int64_t D,
              int dtype, void *stream);

Status update(const void *x, const int32_t *ids, const void *cOld, void *cNew, int64_t B, int64_t N, int64_t K,
              int64_t D, int dtype, void *stream);

Status fit(const void *x, void *c, int32_t *ids, int64_t B, int64_t N, int64_t K, int64_t D, int dtype, int maxIters,
           float tol, int *itersDone, void *stream);

} // namespace cake::kmeans
