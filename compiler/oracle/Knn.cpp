//===- Knn.cpp - The knn oracle: brute-force L2 k nearest neighbours ------===//
//
// Part of CAKE. README section 2. For each sampled query, the fp64 squared
// distances to every database row, and their k smallest. Per query:
//   - every id is in [0, N) and appears once;
//   - dist is ascending (within tolerance);
//   - dist[q, j] equals the j-th smallest reference distance, and the true
//     distance of ids[q, j] equals dist[q, j]: ids may then differ from the
//     reference only among equal distances.
// Tolerance rtol * |ref| + atol * (||q||^2 + max ||x||^2): the atol term
// covers fp32 cancellation in ||q||^2 + ||x||^2 - 2 q.x.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/OracleSupport.h"
#include "compiler/oracle/Parallel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>

namespace cake::oracle {

namespace {

/// ||a - b||^2 in four interleaved partial sums (they vectorize; one fixed order).
double squaredDistance(const double *a, const double *b, int64_t n) {
  double acc[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; ++l) {
      double diff = a[i + l] - b[i + l];
      acc[l] += diff * diff;
    }
  for (; i < n; ++i)
    acc[0] += (a[i] - b[i]) * (a[i] - b[i]);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

} // namespace

CheckReport compareKnn(const TensorMap &tensors, const CheckOptions &options) {
  const HostTensor &q = *find(tensors, "q"), &db = *find(tensors, "db");
  const HostTensor &dist = *find(tensors, "dist"), &ids = *find(tensors, "ids");
  for (const HostTensor *t : {&q, &db, &dist})
    if (Status s = expectFloat(*t); !s)
      return failure(s.error().message);
  if (Status s = expectInt(ids); !s)
    return failure(s.error().message);
  if (Status s = expectRank(q, 2, "[Q, D]"); !s)
    return failure(s.error().message);
  if (Status s = expectRank(dist, 2, "[Q, k]"); !s)
    return failure(s.error().message);
  int64_t Q = q.shape[0], D = q.shape[1], k = dist.shape[1];
  if (Status s = expectRank(db, 2, "[N, D]"); !s)
    return failure(s.error().message);
  int64_t N = db.shape[0];
  if (Status s = expectShape(db, {N, D}, "[N, D]"); !s)
    return failure(s.error().message);
  if (Status s = expectShape(dist, {Q, k}, "[Q, k]"); !s)
    return failure(s.error().message);
  if (Status s = expectShape(ids, {Q, k}, "[Q, k]"); !s)
    return failure(s.error().message);
  if (k == 0)
    return failure("dist has shape " + shapeString(dist.shape) + ": k is 0");
  if (k > N)
    return failure("k = " + std::to_string(k) + " exceeds the database's " + std::to_string(N) + " rows");

  // The largest ||x||^2 of the database, for the cancellation slack.
  std::vector<double> rowMax(size_t((N + 4095) / 4096), 0);
  parallelChunks(static_cast<int64_t>(rowMax.size()), [&](int64_t c) {
    std::vector<double> xr(static_cast<size_t>(D));
    for (int64_t n = c * 4096; n < std::min(N, (c + 1) * 4096); ++n) {
      decodeRange(db, n * D, D, xr.data());
      rowMax[size_t(c)] = std::max(rowMax[size_t(c)], std::inner_product(xr.begin(), xr.end(), xr.begin(), 0.0));
    }
  });
  double dbNormMax = rowMax.empty() ? 0 : *std::max_element(rowMax.begin(), rowMax.end());

  auto checkQuery = [&](int64_t qi, std::span<const double> qr, std::span<const double> d, Tally &tally) {
    double slack = options.atol * (std::inner_product(qr.begin(), qr.end(), qr.begin(), 0.0) + dbNormMax);
    std::vector<double> ref(d.begin(), d.end());
    std::nth_element(ref.begin(), ref.begin() + (k - 1), ref.end());
    std::sort(ref.begin(), ref.begin() + k);

    std::vector<int64_t> seen;
    double previous = -INFINITY;
    for (int64_t j = 0; j < k; ++j) {
      int64_t flat = qi * k + j;
      bool distWritten = !isPoisonAt(dist, flat), idWritten = !isPoisonAt(ids, flat);
      double got = dist.at(flat), want = ref[size_t(j)];
      double tol = options.rtol * std::fabs(want) + slack, scale = want > 0 ? want : 1;
      if (distWritten) {
        tally.compare(got, want, tol, scale, dist, flat);
        tally.record(got >= previous - tol, 0, 0, [&] {
          return "dist" + dist.indexString(flat) + " = " + num(got) + " is below dist" + dist.indexString(flat - 1) +
                 " = " + num(previous) + ": not ascending";
        });
        previous = got;
      }
      if (!idWritten)
        continue;
      int64_t id = static_cast<int64_t>(ids.at(flat));
      if (id < 0 || id >= N) {
        tally.fail("ids" + ids.indexString(flat) + " = " + std::to_string(id) + " is out of range [0, " +
                   std::to_string(N) + ")");
        continue;
      }
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) {
        tally.fail("ids" + ids.indexString(flat) + " = " + std::to_string(id) + " is returned twice");
        continue;
      }
      seen.push_back(id);
      if (!distWritten)
        continue;
      double true_ = d[size_t(id)], err = std::fabs(true_ - got);
      tally.record(err <= tol, err, err / scale, [&] {
        return "ids" + ids.indexString(flat) + " = " + std::to_string(id) + " is at distance " + num(true_) +
               ", but dist" + dist.indexString(flat) + " = " + num(got);
      });
    }
  };
  std::vector<int64_t> queries = sampleIndices(Q, sampleCount(Q, N * D, options, 4), options.seed, {0, Q - 1});
  std::vector<Tally> tallies(queries.size());
  // Blocks of queries share one pass over the database, so that each row is
  // decoded once per block, not once per query.
  constexpr size_t kBlock = 32;
  for (size_t first = 0; first < queries.size(); first += kBlock) {
    size_t nq = std::min(kBlock, queries.size() - first);
    std::vector<double> qs(nq * size_t(D)), dists(nq * size_t(N));
    for (size_t i = 0; i < nq; ++i)
      decodeRange(q, queries[first + i] * D, D, qs.data() + i * size_t(D));
    parallelFor(N, 2048, [&](int64_t begin, int64_t end) {
      std::vector<double> xr(static_cast<size_t>(D));
      for (int64_t n = begin; n < end; ++n) {
        decodeRange(db, n * D, D, xr.data());
        for (size_t i = 0; i < nq; ++i) {
          const double *qr = qs.data() + i * size_t(D);
          dists[i * size_t(N) + size_t(n)] = squaredDistance(qr, xr.data(), D);
        }
      }
    });
    parallelChunks(static_cast<int64_t>(nq), [&](int64_t i) {
      checkQuery(queries[first + size_t(i)], std::span<const double>(qs.data() + size_t(i * D), size_t(D)),
                 std::span<const double>(dists.data() + size_t(i * N), size_t(N)), tallies[first + size_t(i)]);
    });
  }
  Tally total;
  for (const Tally &t : tallies)
    total.merge(t);
  CheckReport r;
  total.into(r);
  r.summary = std::to_string(queries.size()) + " of " + std::to_string(Q) + " queries checked against " +
              std::to_string(N) + " rows, k = " + std::to_string(k);
  return r;
}

} // namespace cake::oracle
