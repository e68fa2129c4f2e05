//===- Validate.cpp - The C API's argument checks, without a GPU ----------===//
#include "lib/kmeans/Validate.h"

#include <cmath>
#include <string>
#include <vector>

namespace cake::kmeans {

namespace {

uint64_t product(std::initializer_list<uint64_t> factors) { return libcore::tensorBytes(factors); }

} // namespace

uint64_t xBytes(const Problem &p) { return product({uint64_t(p.B), uint64_t(p.N), uint64_t(p.D), dtypeBytes(p.dtype)}); }
uint64_t cBytes(const Problem &p) { return product({uint64_t(p.B), uint64_t(p.K), uint64_t(p.D), dtypeBytes(p.dtype)}); }
uint64_t idsBytes(const Problem &p) { return product({uint64_t(p.B), uint64_t(p.N), 4}); }

Status checkProblem(Op op, int64_t B, int64_t N, int64_t K, int64_t D, int dtype, Problem &p) {
  for (auto [name, v] : {std::pair{"B", B}, {"N", N}, {"K", K}, {"D", D}})
    if (v < 1 || v > INT32_MAX)
      return invalid(std::string(name) + " = " + std::to_string(v) + " is outside 1 .. 2^31 - 1");
  if (dtype != CAKE_KMEANS_BF16 && dtype != CAKE_KMEANS_F16 && dtype != CAKE_KMEANS_F32)
    return invalid("dtype " + std::to_string(dtype) + " is not one of CAKE_KMEANS_BF16 (0), CAKE_KMEANS_F16 (1), "
                                                     "CAKE_KMEANS_F32 (2)");
  p = Problem{};
  p.op = op;
  p.B = B, p.N = N, p.K = K, p.D = D;
  p.dtype = DType(dtype);
  if (!xBytes(p) || !cBytes(p) || !idsBytes(p))
    return invalid("the tensors of B = " + std::to_string(B) + ", N = " + std::to_string(N) + ", K = " +
                   std::to_string(K) + ", D = " + std::to_string(D) + " would exceed 2^48 bytes");
  return Ok{};
}

Status checkFit(int maxIters, float tol) {
  if (maxIters < 0)
    return invalid("max_iters = " + std::to_string(maxIters) + " is negative");
  if (!(tol >= 0))
    return invalid("tol = " + std::to_string(tol) + " must be a non-negative number");
  return Ok{};
}

} // namespace cake::kmeans
