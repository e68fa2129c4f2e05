//===- Gemm.cpp - The gemm oracle: C = A B^T ------------------------------===//
//
// Part of CAKE. The reference is the fp64 dot product of the low-precision
// inputs (exact products, fp64 sum). Tolerance of C[i, j]:
//
//   atol + u(C) |ref| + rtol * sqrt(sum_k (A[i,k] B[j,k])^2)
//
// u(C) |ref| is the final rounding to C's dtype. The second term scales with
// the product norm, the natural size of an fp32 accumulation's error (a
// random walk of roundings, any summation order, split-K included): a
// correct kernel stays near 1e-6 of it. A kernel that drops or repeats one
// k-tile of 64 misses a sum of 64 products, about sqrt(64 / K) of the norm:
// 0.088 at K = 8192, still 0.031 at K = 65536, far above rtol = 5e-3.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/OracleSupport.h"
#include "compiler/oracle/Parallel.h"

#include <cmath>

namespace cake::oracle {

namespace {

/// The flat indices of C to compare: everything for small C, else a seeded
/// sample that always holds the four corners, the last row and the last
/// column (where ragged M and N tiles go wrong).
std::vector<int64_t> pickElements(int64_t M, int64_t N, int64_t K, const CheckOptions &options) {
  int64_t count = sampleCount(M * N, K, options, 1024);
  std::vector<int64_t> always = {0, N - 1, (M - 1) * N, M * N - 1};
  int64_t edge = std::max<int64_t>(count / 8, 1); // at most a quarter of the sample on the edges
  for (int64_t j = 0; j < N; j += std::max<int64_t>(N / edge, 1))
    always.push_back((M - 1) * N + j);
  for (int64_t i = 0; i < M; i += std::max<int64_t>(M / edge, 1))
    always.push_back(i * N + N - 1);
  return sampleIndices(M * N, count, options.seed, std::move(always));
}

} // namespace

CheckReport compareGemm(const TensorMap &tensors, const CheckOptions &options) {
  const HostTensor &A = *find(tensors, "A"), &B = *find(tensors, "B"), &C = *find(tensors, "C");
  for (const HostTensor *t : {&A, &B, &C})
    if (Status s = expectFloat(*t); !s)
      return failure(s.error().message);
  if (Status s = expectRank(A, 2, "[M, K]"); !s)
    return failure(s.error().message);
  int64_t M = A.shape[0], K = A.shape[1];
  if (Status s = expectRank(B, 2, "[N, K]"); !s)
    return failure(s.error().message);
  int64_t N = B.shape[0];
  if (Status s = expectShape(B, {N, K}, "[N, K]"); !s)
    return failure(s.error().message);
  if (Status s = expectShape(C, {M, N}, "[M, N]"); !s)
    return failure(s.error().message);

  std::vector<int64_t> picked = pickElements(M, N, K, options);
  double u = unitRoundoff(C.dtype);
  // Chunks of the sorted sample share A rows; one Tally per chunk, merged in order.
  constexpr int64_t kChunk = 256;
  int64_t chunks = (static_cast<int64_t>(picked.size()) + kChunk - 1) / kChunk;
  std::vector<Tally> tallies(static_cast<size_t>(chunks));
  parallelChunks(chunks, [&](int64_t c) {
    std::vector<double> a(static_cast<size_t>(K)), b(static_cast<size_t>(K));
    int64_t row = -1;
    Tally &tally = tallies[static_cast<size_t>(c)];
    size_t end = std::min(picked.size(), static_cast<size_t>((c + 1) * kChunk));
    for (size_t s = static_cast<size_t>(c * kChunk); s < end; ++s) {
      int64_t flat = picked[s], i = flat / N, j = flat % N;
      if (isPoisonAt(C, flat))
        continue;
      if (i != row) {
        decodeRange(A, i * K, K, a.data());
        row = i;
      }
      decodeRange(B, j * K, K, b.data());
      double ref = 0, norm2 = 0;
      for (int64_t k = 0; k < K; ++k) {
        double p = a[static_cast<size_t>(k)] * b[static_cast<size_t>(k)];
        ref += p;
        norm2 += p * p;
      }
      double scale = std::sqrt(norm2);
      double tol = options.atol + u * std::fabs(ref) + options.rtol * scale;
      double got = C.at(flat), err = std::fabs(got - ref);
      // The relative error is what is left after the output rounding, per product norm: what rtol bounds.
      double rel = scale > 0 ? std::max(0.0, err - u * std::fabs(ref)) / scale : 0;
      tally.record(err <= tol, err, rel, [&] {
        return "C" + C.indexString(flat) + " = " + num(got) + ", expected " + num(ref) + " (error " + num(err) +
               " > tolerance " + num(tol) + ")";
      });
    }
  });
  Tally total;
  for (const Tally &t : tallies)
    total.merge(t);
  CheckReport r;
  total.into(r);
  r.summary = std::to_string(r.checked) + " of " + std::to_string(M * N) + " elements of C checked" +
              (static_cast<int64_t>(picked.size()) < M * N ? " (sampled)" : "") + ", K = " + std::to_string(K);
  return r;
}

} // namespace cake::oracle
