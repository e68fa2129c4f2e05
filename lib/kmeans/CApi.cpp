//===- CApi.cpp - The C entry points of libcake_kmeans.so -----------------===//
//
// Part of CAKE. Each entry point runs the C++ operation (KMeans.h) through
// lib/core/CApi.h: the thread's last error cleared, a failure or any
// exception turned into a status code and a message; nothing escapes into C.
//
//===----------------------------------------------------------------------===//
#include "lib/kmeans/cake_kmeans.h"

#include "lib/core/CApi.h"
#include "lib/kmeans/Dispatch.h"
#include "lib/kmeans/Embedded.h"
#include "lib/kmeans/KMeans.h"
#include "lib/kmeans/Padding.h"

#include <optional>
#include <string>

namespace {

using cake::Status;

thread_local std::string lastError;

template <class Op> int call(const char *name, Op op) { return cake::libcore::guardedCall(lastError, name, op); }

/// The dispatcher's problem for the C API's arguments; nullopt (lastError set) on a bad dtype.
std::optional<cake::kmeans::Problem> problemOf(const char *fn, int update, int64_t B, int64_t N, int64_t K, int64_t D,
                                               int dtype, int sm_count) {
  if (dtype != CAKE_KMEANS_BF16 && dtype != CAKE_KMEANS_F16 && dtype != CAKE_KMEANS_F32) {
    lastError = std::string(fn) + ": unknown dtype " + std::to_string(dtype);
    return std::nullopt;
  }
  cake::kmeans::Problem p;
  p.op = update ? cake::kmeans::Op::Update : cake::kmeans::Op::Assign;
  p.B = B, p.N = N, p.K = K, p.D = cake::kmeans::kernelD(D); // the D it runs at (Padding.h)
  p.dtype = static_cast<cake::kmeans::DType>(dtype);
  p.smCount = sm_count;
  return p;
}

} // namespace

extern "C" {

int cake_kmeans_assign(const void *x, const void *c, int32_t *ids, int64_t B, int64_t N, int64_t K, int64_t D,
                       int dtype, void *stream) {
  return call("cake_kmeans_assign",
              [&] { return cake::kmeans::assign(x, c, ids, nullptr, B, N, K, D, dtype, stream); });
}

int cake_kmeans_assign_with_distance(const void *x, const void *c, int32_t *ids, float *dist, int64_t B, int64_t N,
                                     int64_t K, int64_t D, int dtype, void *stream) {
  return call("cake_kmeans_assign_with_distance", [&]() -> cake::kmeans::Status {
    if (!dist)
      return cake::kmeans::invalid("dist is a null pointer (cake_kmeans_assign takes no distances)");
    return cake::kmeans::assign(x, c, ids, dist, B, N, K, D, dtype, stream);
  });
}

int cake_kmeans_update(const void *x, const int32_t *ids, const void *c_old, void *c_new, int64_t B, int64_t N,
                       int64_t K, int64_t D, int dtype, void *stream) {
  return call("cake_kmeans_update",
              [&] { return cake::kmeans::update(x, ids, c_old, c_new, B, N, K, D, dtype, stream); });
}

int cake_kmeans_fit(const void *x, void *c_inout, int32_t *ids, int64_t B, int64_t N, int64_t K, int64_t D, int dtype,
                    int max_iters, float tol, int *iters_done, void *stream) {
  return call("cake_kmeans_fit", [&] {
    return cake::kmeans::fit(x, c_inout, ids, B, N, K, D, dtype, max_iters, tol, iters_done, stream);
  });
}

const char *cake_kmeans_last_error(void) { return lastError.c_str(); }

const char *cake_kmeans_status_name(int status) {
  switch (status) {
  case CAKE_KMEANS_OK:
    return "CAKE_KMEANS_OK";
  case CAKE_KMEANS_INVALID_ARGUMENT:
    return "CAKE_KMEANS_INVALID_ARGUMENT";
  case CAKE_KMEANS_UNSUPPORTED:
    return "CAKE_KMEANS_UNSUPPORTED";
  case CAKE_KMEANS_NOT_AVAILABLE:
    return "CAKE_KMEANS_NOT_AVAILABLE";
  case CAKE_KMEANS_NO_GPU:
    return "CAKE_KMEANS_NO_GPU";
  case CAKE_KMEANS_CUDA_ERROR:
    return "CAKE_KMEANS_CUDA_ERROR";
  case CAKE_KMEANS_TIMEOUT:
    return "CAKE_KMEANS_TIMEOUT";
  case CAKE_KMEANS_INTERNAL:
    return "CAKE_KMEANS_INTERNAL";
  default:
    return "unknown status";
  }
}

const char *cake_kmeans_build_info(void) {
  static const std::string info = [] {
    std::string s = "libcake_kmeans (CAKE " CAKE_VERSION "); kernels:";
    for (const cake::kmeans::EmbeddedFile &f : cake::kmeans::embeddedFiles())
      s += " " + std::string(f.path) + " (" + std::string(f.target) + (f.cubin.empty() ? ", did not build)" : ")");
    for (const cake::kmeans::Variant &v : cake::kmeans::variants())
      if (!cake::kmeans::findEmbedded(v.file))
        s += "; no " + std::string(cake::kmeans::opName(v.op)) + " kernels (kernels/kmeans/" + std::string(v.file) +
             ".cake was not there at build time)";
    return s;
  }();
  return info.c_str();
}

const char *cake_kmeans_explain(int update, int64_t B, int64_t N, int64_t K, int64_t D, int dtype, int sm_count) {
  lastError.clear();
  auto p = problemOf("cake_kmeans_explain", update, B, N, K, D, dtype, sm_count);
  if (!p)
    return nullptr;
  thread_local std::string text;
  text = cake::kmeans::explain(*p);
  return text.c_str();
}

const char *cake_kmeans_variant(int update, int64_t B, int64_t N, int64_t K, int64_t D, int dtype, int sm_count) {
  lastError.clear();
  auto problem = problemOf("cake_kmeans_variant", update, B, N, K, D, dtype, sm_count);
  if (!problem)
    return nullptr;
  const cake::kmeans::Problem &p = *problem;
  cake::kmeans::Dispatched d = cake::kmeans::dispatch(p);
  if (!d) {
    lastError = "cake_kmeans_variant: " + d.error().message;
    return nullptr;
  }
  return (*d)->name.data(); // a string of the embedded manifest (never destroyed)
}

int cake_kmeans_force_variant(const char *name) {
  return call("cake_kmeans_force_variant", [&] { return cake::kmeans::forceVariant(name ? name : ""); });
}

int cake_kmeans_has_update(void) {
  const cake::kmeans::EmbeddedFile *f = cake::kmeans::findEmbedded("update");
  return f && !f->cubin.empty() ? 1 : 0;
}

} // extern "C"
