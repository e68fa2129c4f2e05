//===- CApi.h - What every C entry point of a library does -----*- C++ -*-===//
//
// Part of CAKE. A C entry point clears the calling thread's last error, runs
// the C++ operation and turns its failure, or any exception, into a status
// code (lib/core/Errors.h) and a message prefixed with the entry point's
// name: nothing escapes into C. Each library keeps its own thread-local
// message (cake_kmeans_last_error, cake_knn_last_error).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Errors.h"

#include <exception>
#include <new>
#include <string>

namespace cake::libcore {

template <class Op> int guardedCall(std::string &lastError, const char *name, Op op) {
  lastError.clear();
  try {
    Status r = op();
    if (r)
      return kOk;
    lastError = std::string(name) + ": " + r.error().message;
    return statusCode(r.error());
  } catch (const std::bad_alloc &) {
    lastError = std::string(name) + ": out of host memory";
  } catch (const std::exception &e) {
    lastError = std::string(name) + ": internal error: " + e.what();
  } catch (...) {
    lastError = std::string(name) + ": internal error (an unknown exception)";
  }
  return kInternal;
}

} // namespace cake::libcore
