//===- Status.h - What a libcake_kmeans call reports ------------*- C++ -*-===//
//
// Part of CAKE. The libraries' shared results (lib/core/Errors.h) and the C
// API's status code of an Error (cake_kmeans.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Errors.h"
#include "lib/kmeans/cake_kmeans.h"

namespace cake::kmeans {

using cake::Error;
using cake::Ok;
using cake::Status;
using libcore::internal;
using libcore::invalid;
using libcore::notAvailable;
using libcore::unsupported;

/// The C API's status code of \p error.
inline cake_kmeans_status statusCode(const Error &error) {
  return static_cast<cake_kmeans_status>(libcore::statusCode(error));
}

static_assert(CAKE_KMEANS_INVALID_ARGUMENT == libcore::kInvalidArgument && CAKE_KMEANS_UNSUPPORTED == libcore::kUnsupported &&
                  CAKE_KMEANS_NOT_AVAILABLE == libcore::kNotAvailable && CAKE_KMEANS_NO_GPU == libcore::kNoGpu &&
                  CAKE_KMEANS_CUDA_ERROR == libcore::kCudaError && CAKE_KMEANS_TIMEOUT == libcore::kTimeout &&
                  CAKE_KMEANS_INTERNAL == libcore::kInternal,
              "cake_kmeans_status repeats lib/core/Errors.h's StatusCode");

} // namespace cake::kmeans
