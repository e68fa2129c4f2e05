//===- CApi.cpp - The C entry points of libcake_knn.so --------------------===//
//
// Part of CAKE. Each entry point runs the C++ operation (Search.h, Dispatch.h)
// through lib/core/CApi.h: the thread's last error cleared, a failure or any
// exception turned into a status code and a message; nothing escapes into C.
//
//===----------------------------------------------------------------------===//
#include "lib/knn/cake_knn.h"

#include "lib/core/CApi.h"
#include "lib/knn/Dispatch.h"
#include "lib/knn/Embedded.h"
#include "lib/knn/Search.h"

#include <optional>
#include <string>

static_assert(CAKE_KNN_INVALID_ARGUMENT == cake::libcore::kInvalidArgument &&
                  CAKE_KNN_UNSUPPORTED == cake::libcore::kUnsupported &&
                  CAKE_KNN_NOT_AVAILABLE == cake::libcore::kNotAvailable && CAKE_KNN_NO_GPU == cake::libcore::kNoGpu &&
                  CAKE_KNN_CUDA_ERROR == cake::libcore::kCudaError && CAKE_KNN_TIMEOUT == cake::libcore::kTimeout &&
                  CAKE_KNN_INTERNAL == cake::libcore::kInternal,
              "cake_knn_status repeats lib/core/Errors.h's status codes");
static_assert(int(cake::knn::DType::BF16) == CAKE_KNN_BF16 && int(cake::knn::DType::F16) == CAKE_KNN_F16,
              "cake::knn::DType repeats cake_knn_dtype");

namespace {

using cake::Status;

thread_local std::string lastError;

template <class Op> int call(const char *name, Op op) { return cake::libcore::guardedCall(lastError, name, op); }

/// The dispatcher's problem for the C API's arguments; nullopt (lastError set) when they are not one.
std::optional<cake::knn::Problem> problemOf(const char *fn, int64_t Q, int64_t N, int64_t D, int64_t k, int dtype,
                                            int sm_count) {
  cake::knn::Problem p;
  if (auto f = cake::knn::checkProblem(Q, N, D, k, dtype, CAKE_KNN_L2, p); !f) {
    lastError = std::string(fn) + ": " + f.error().message;
    return std::nullopt;
  }
  p.smCount = sm_count;
  return p;
}

} // namespace

extern "C" {

int cake_knn_search(const void *q, const void *db, float *dist, int64_t *ids, int64_t Q, int64_t N, int64_t D,
                    int64_t k, int dtype, int metric, void *stream) {
  return call("cake_knn_search",
              [&] { return cake::knn::search(q, db, dist, ids, Q, N, D, k, dtype, metric, stream); });
}

const char *cake_knn_last_error(void) { return lastError.c_str(); }

const char *cake_knn_status_name(int status) {
  switch (status) {
  case CAKE_KNN_OK:
    return "CAKE_KNN_OK";
  case CAKE_KNN_INVALID_ARGUMENT:
    return "CAKE_KNN_INVALID_ARGUMENT";
  case CAKE_KNN_UNSUPPORTED:
    return "CAKE_KNN_UNSUPPORTED";
  case CAKE_KNN_NOT_AVAILABLE:
    return "CAKE_KNN_NOT_AVAILABLE";
  case CAKE_KNN_NO_GPU:
    return "CAKE_KNN_NO_GPU";
  case CAKE_KNN_CUDA_ERROR:
    return "CAKE_KNN_CUDA_ERROR";
  case CAKE_KNN_TIMEOUT:
    return "CAKE_KNN_TIMEOUT";
  case CAKE_KNN_INTERNAL:
    return "CAKE_KNN_INTERNAL";
  default:
    return "unknown status";
  }
}

const char *cake_knn_build_info(void) {
  static const std::string info = [] {
    std::string s = "libcake_knn (CAKE " CAKE_VERSION "); kernels:";
    for (const cake::knn::EmbeddedFile &f : cake::knn::embeddedFiles())
      s += " " + std::string(f.name) + " (" + std::string(f.target) + (f.cubin.empty() ? ", did not build)" : ")");
    return s;
  }();
  return info.c_str();
}

const char *cake_knn_variant(int64_t Q, int64_t N, int64_t D, int64_t k, int dtype, int sm_count) {
  lastError.clear();
  auto p = problemOf("cake_knn_variant", Q, N, D, k, dtype, sm_count);
  if (!p)
    return nullptr;
  auto choice = cake::knn::dispatch(*p);
  if (!choice) {
    lastError = "cake_knn_variant: " + choice.error().message;
    return nullptr;
  }
  return choice->instance->name.c_str(); // a string of the embedded manifest (never destroyed)
}

const char *cake_knn_explain(int64_t Q, int64_t N, int64_t D, int64_t k, int dtype, int sm_count) {
  lastError.clear();
  auto p = problemOf("cake_knn_explain", Q, N, D, k, dtype, sm_count);
  if (!p)
    return nullptr;
  thread_local std::string text;
  text = cake::knn::explain(*p);
  return text.c_str();
}

int cake_knn_force_variant(const char *name) {
  return call("cake_knn_force_variant", [&] { return cake::knn::forceVariant(name ? name : ""); });
}

} // extern "C"
