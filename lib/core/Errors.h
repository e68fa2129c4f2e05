//===- Errors.h - What a call of a CAKE library reports ---------*- C++ -*-===//
//
// Part of CAKE. Inside the libraries (libcake_kmeans, libcake_knn) a call
// returns the project's one result type (diagnostics/Expected.h); each C API
// turns an Error into its status code with statusCode below, whose numbers
// every library's header repeats (CAKE_KMEANS_UNSUPPORTED == CAKE_KNN_UNSUPPORTED
// == 2, checked by a static_assert in each CApi.cpp) and its one sentence.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Expected.h"

#include <string>

namespace cake::libcore {

using cake::Error;
using cake::Ok;
using cake::Status;

inline Error invalid(std::string message) { return Error(Error::InvalidArgument, std::move(message)); }
inline Error unsupported(std::string message) { return Error(Error::Unsupported, std::move(message)); }
inline Error notAvailable(std::string message) { return Error(Error::NotAvailable, std::move(message)); }
inline Error internal(std::string message) { return Error(Error::Internal, std::move(message)); }

/// The status codes of the libraries' C APIs (cake_kmeans.h, cake_knn.h).
inline constexpr int kOk = 0;
inline constexpr int kInvalidArgument = 1; ///< a bad shape, a null, misaligned or host pointer, a stream of another GPU
inline constexpr int kUnsupported = 2;     ///< no kernel for this problem (the dispatcher says which exist)
inline constexpr int kNotAvailable = 3;    ///< this build of the library lacks the kernels
inline constexpr int kNoGpu = 4;           ///< no CUDA driver or no GPU
inline constexpr int kCudaError = 5;       ///< a CUDA driver call failed (the message names it)
inline constexpr int kTimeout = 6;         ///< a wait went past the timeout; the GPU is unusable from now on
inline constexpr int kInternal = 7;        ///< a bug of the library (the message says where)

/// The C APIs' status code of \p error.
inline int statusCode(const Error &error) {
  switch (error.kind) {
  case Error::NoDriver:
  case Error::NoDevice:
    return kNoGpu;
  case Error::Timeout:
    return kTimeout;
  case Error::Driver:
  case Error::Wedged:
    return kCudaError;
  case Error::InvalidArgument:
  case Error::Io:
  case Error::Source:
  case Error::Mismatch:
    return kInvalidArgument;
  case Error::Unsupported:
    return kUnsupported;
  case Error::NotAvailable:
    return kNotAvailable;
  case Error::Internal:
    break;
  }
  return kInternal;
}

} // namespace cake::libcore
