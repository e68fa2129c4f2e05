//===- Status.h - What a libcake_kmeans call reports ------------*- C++ -*-===//
//
// Part of CAKE. Inside the library a call returns the project's one result
// type (diagnostics/Expected.h); CApi.cpp turns an Error into a status code of
// the C API (cake_kmeans.h, statusCode below) and its one sentence.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Expected.h"
#include "lib/kmeans/cake_kmeans.h"

#include <string>

namespace cake::kmeans {

using cake::Error;
using cake::Ok;
using cake::Status;

inline Error invalid(std::string message) { return Error(Error::InvalidArgument, std::move(message)); }
inline Error unsupported(std::string message) { return Error(Error::Unsupported, std::move(message)); }
inline Error notAvailable(std::string message) { return Error(Error::NotAvailable, std::move(message)); }
inline Error internal(std::string message) { return Error(Error::Internal, std::move(message)); }

/// The C API's status code of \p error.
inline cake_kmeans_status statusCode(const Error &error) {
  switch (error.kind) {
  case Error::NoDriver:
  case Error::NoDevice:
    return CAKE_KMEANS_NO_GPU;
  case Error::Timeout:
    return CAKE_KMEANS_TIMEOUT;
  case Error::Driver:
  case Error::Wedged:
    return CAKE_KMEANS_CUDA_ERROR;
  case Error::InvalidArgument:
  case Error::Io:
  case Error::Source:
  case Error::Mismatch:
    return CAKE_KMEANS_INVALID_ARGUMENT;
  case Error::Unsupported:
    return CAKE_KMEANS_UNSUPPORTED;
  case Error::NotAvailable:
    return CAKE_KMEANS_NOT_AVAILABLE;
  case Error::Internal:
    break;
  }
  return CAKE_KMEANS_INTERNAL;
}

} // namespace cake::kmeans
