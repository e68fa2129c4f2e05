//===- Search.h - KNN search on the GPU -------------------------*- C++ -*-===//
//
// Part of CAKE. The C++ side of cake_knn_search (cake_knn.h): the arguments
// checked without a GPU, the instantiation dispatched (Dispatch.h), its
// pipeline (norms, the fused distance and selection over ranges of the
// database, the merge of the ranges' lists) prepared once per shape and
// enqueued on the caller's stream (lib/core/Launch.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Launch.h"
#include "lib/knn/Dispatch.h"

#include <memory>

namespace cake::knn {

/// How long the library's runner waits for a stream (search never waits).
inline constexpr const char *kTimeoutVariable = "CAKE_KNN_TIMEOUT_S";

/// Q, N, D, k in 1 .. 2^31 - 1, k <= N, a known dtype and metric, no tensor
/// past 2^48 bytes. Sets \p problem.
Status checkProblem(int64_t Q, int64_t N, int64_t D, int64_t k, int dtype, int metric, Problem &problem);

using PipelinePtr = std::shared_ptr<const libcore::Pipeline>;

/// The pipeline of \p p, prepared once per (shape, GPU, forcing, whether
/// the call returns the distances: without them the merge writes to
/// scratch): a repeated call dispatches and checks nothing again.
/// Pipelines point into the embedded files, which live as long as the
/// process.
Expected<PipelinePtr> pipelineFor(const Problem &p, bool distances);

/// cake_knn_search.
Status search(const void *q, const void *db, float *dist, int64_t *ids, int64_t Q, int64_t N, int64_t D, int64_t k,
              int dtype, int metric, void *stream);

} // namespace cake::knn
