//===- Status.h - What a libcake_kmeans call reports ------------*- C++ -*-===//
//
// Part of CAKE. Inside the library a failure is a status code of the C API
// (cake_kmeans.h) and one sentence; CApi.cpp hands both to the caller.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/kmeans/cake_kmeans.h"

#include <optional>
#include <string>

namespace cake::kmeans {

struct Failure {
  cake_kmeans_status code = CAKE_KMEANS_INTERNAL;
  std::string message;
};

/// Nothing on success, else the failure.
using Result = std::optional<Failure>;

inline Failure invalid(std::string message) { return {CAKE_KMEANS_INVALID_ARGUMENT, std::move(message)}; }
inline Failure unsupported(std::string message) { return {CAKE_KMEANS_UNSUPPORTED, std::move(message)}; }
inline Failure internal(std::string message) { return {CAKE_KMEANS_INTERNAL, std::move(message)}; }

} // namespace cake::kmeans
