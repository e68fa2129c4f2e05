//===- KMeans.cpp - The kmeans.assign and kmeans.update oracles -----------===//
//
// Part of CAKE. README section 1. Distances and means in fp64 from the same
// low-precision inputs the kernel read.
//
// assign: ids[b, n] = k is right when
//   ||x - c_k||^2 - dmin <= rtol * dmin + atol * (||x||^2 + ||c_k||^2)
// where dmin is the true minimum: near ties may flip. The atol term covers
// the cancellation of the fast form ||c||^2 - 2 x.c in fp32 (about D * 2^-24
// of the norms at worst). `dist`, when given, must hold the distance of the
// returned centroid, either in full or without the per-row constant ||x||^2
// (the fast form drops it), within the same tolerance.
//
// update: c_new[b, k, d] = mean of x[b, n, d] over ids[b, n] = k, or c_old
// when the cluster is empty; tolerance u(c_new) |mean| + rtol * mean|x| over
// the cluster (the size of an fp32 sum's error), + atol.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/OracleSupport.h"
#include "compiler/oracle/Parallel.h"

#include <cmath>
#include <limits>

namespace cake::oracle {

namespace {

struct KMeansShape {
  int64_t B = 0, N = 0, K = 0, D = 0;
};

/// x [B, N, D], c [B, K, D], ids [B, N]: the sizes, or why not.
Expected<KMeansShape> kmeansShape(const HostTensor &x, const HostTensor &c, const HostTensor &ids) {
  for (const HostTensor *t : {&x, &c})
    if (Status s = expectFloat(*t); !s)
      return s.error();
  if (Status s = expectInt(ids); !s)
    return s.error();
  if (Status s = expectRank(x, 3, "[B, N, D]"); !s)
    return s.error();
  if (Status s = expectRank(c, 3, "[B, K, D]"); !s)
    return s.error();
  KMeansShape k{x.shape[0], x.shape[1], c.shape[1], x.shape[2]};
  if (Status s = expectShape(c, {k.B, k.K, k.D}, "[B, K, D]"); !s)
    return s.error();
  if (Status s = expectShape(ids, {k.B, k.N}, "[B, N]"); !s)
    return s.error();
  return k;
}

std::vector<float> decodeAll(const HostTensor &t) {
  std::vector<float> out(static_cast<size_t>(t.elements()));
  parallelFor(t.elements(), 1 << 20,
              [&](int64_t begin, int64_t end) { decodeRange(t, begin, end - begin, out.data() + begin); });
  return out;
}

} // namespace

CheckReport compareKMeansAssign(const TensorMap &tensors, const CheckOptions &options) {
  const HostTensor &x = *find(tensors, "x"), &c = *find(tensors, "c"), &ids = *find(tensors, "ids");
  const HostTensor *dist = find(tensors, "dist");
  auto shape = kmeansShape(x, c, ids);
  if (!shape)
    return failure(shape.error().message);
  auto [B, N, K, D] = *shape;
  if (dist)
    if (Status s = expectShape(*dist, {B, N}, "[B, N]"); !s)
      return failure(s.error().message);

  std::vector<float> cs = decodeAll(c);
  std::vector<double> cnorm(static_cast<size_t>(B * K));
  for (int64_t r = 0; r < B * K; ++r) {
    double s = 0;
    for (int64_t d = 0; d < D; ++d)
      s += double(cs[size_t(r * D + d)]) * cs[size_t(r * D + d)];
    cnorm[size_t(r)] = s;
  }
  std::vector<int64_t> always;
  for (int64_t b = 0; b < B && always.size() < 256; ++b)
    always.insert(always.end(), {b * N, b * N + N - 1});
  std::vector<int64_t> rows =
      sampleIndices(B * N, sampleCount(B * N, K * D, options, 64), options.seed, std::move(always));

  constexpr int64_t kChunk = 64;
  int64_t chunks = (static_cast<int64_t>(rows.size()) + kChunk - 1) / kChunk;
  std::vector<Tally> tallies(static_cast<size_t>(chunks));
  parallelChunks(chunks, [&](int64_t chunk) {
    std::vector<double> xr(static_cast<size_t>(D)), dk(static_cast<size_t>(K));
    Tally &tally = tallies[size_t(chunk)];
    size_t end = std::min(rows.size(), size_t((chunk + 1) * kChunk));
    for (size_t s = size_t(chunk * kChunk); s < end; ++s) {
      int64_t row = rows[s], b = row / N;
      bool idWritten = !isPoisonAt(ids, row), distWritten = dist && !isPoisonAt(*dist, row);
      if (!idWritten && !distWritten)
        continue;
      decodeRange(x, row * D, D, xr.data());
      double xnorm = 0;
      for (double v : xr)
        xnorm += v * v;
      double dmin = std::numeric_limits<double>::infinity();
      int64_t kmin = 0;
      for (int64_t k = 0; k < K; ++k) {
        const float *ck = cs.data() + (b * K + k) * D;
        double acc = 0;
        for (int64_t d = 0; d < D; ++d) {
          double diff = xr[size_t(d)] - double(ck[d]);
          acc += diff * diff;
        }
        dk[size_t(k)] = acc;
        if (acc < dmin) {
          dmin = acc;
          kmin = k;
        }
      }
      int64_t id = static_cast<int64_t>(ids.at(row));
      if (id < 0 || id >= K) {
        if (idWritten)
          tally.fail("ids" + ids.indexString(row) + " = " + std::to_string(id) + " is out of range [0, " +
                     std::to_string(K) + ")");
        continue;
      }
      double slack = options.atol * (xnorm + cnorm[size_t(b * K + id)]);
      double tol = options.rtol * dmin + slack;
      double scale = dmin > 0 ? dmin : 1;
      if (idWritten) {
        double excess = dk[size_t(id)] - dmin;
        tally.record(excess <= tol, excess, excess / scale, [&] {
          return "ids" + ids.indexString(row) + " = " + std::to_string(id) + ": its distance " + num(dk[size_t(id)]) +
                 " exceeds the minimum " + num(dmin) + " (centroid " + std::to_string(kmin) + ") by " + num(excess) +
                 " > tolerance " + num(tol);
        });
      }
      if (distWritten) {
        double got = dist->at(row), full = dk[size_t(id)];
        // Either form: pick the one the kernel chose, judged against the full distance's tolerance.
        double want = std::fabs(got - full) <= std::fabs(got - (full - xnorm)) ? full : full - xnorm;
        tally.compare(got, want, options.rtol * full + slack, full > 0 ? full : 1, *dist, row);
      }
    }
  });
  Tally total;
  for (const Tally &t : tallies)
    total.merge(t);
  CheckReport r;
  total.into(r);
  r.summary = std::to_string(rows.size()) + " of " + std::to_string(B * N) + " rows checked against " +
              std::to_string(K) + " centroids";
  return r;
}

CheckReport compareKMeansUpdate(const TensorMap &tensors, const CheckOptions &options) {
  const HostTensor &x = *find(tensors, "x"), &ids = *find(tensors, "ids");
  const HostTensor &cOld = *find(tensors, "c_old"), &cNew = *find(tensors, "c_new");
  auto shape = kmeansShape(x, cOld, ids);
  if (!shape)
    return failure(shape.error().message);
  auto [B, N, K, D] = *shape;
  if (Status s = expectFloat(cNew); !s)
    return failure(s.error().message);
  if (Status s = expectShape(cNew, {B, K, D}, "[B, K, D]"); !s)
    return failure(s.error().message);

  // Sums over every row, one accumulator per (batch, row chunk), reduced in
  // chunk order: the result does not depend on the thread count.
  constexpr int64_t kRows = 8192;
  int64_t chunksPerBatch = (N + kRows - 1) / kRows;
  Tally total;
  std::vector<double> sum, sumAbs;
  std::vector<int64_t> count;
  for (int64_t b = 0; b < B; ++b) {
    struct Part {
      std::vector<double> sum, sumAbs;
      std::vector<int64_t> count;
      int64_t badRow = -1;
    };
    std::vector<Part> parts(static_cast<size_t>(chunksPerBatch));
    parallelChunks(chunksPerBatch, [&](int64_t chunk) {
      Part &p = parts[size_t(chunk)];
      p.sum.assign(size_t(K * D), 0);
      p.sumAbs.assign(size_t(K * D), 0);
      p.count.assign(size_t(K), 0);
      std::vector<double> xr(static_cast<size_t>(D));
      for (int64_t n = chunk * kRows; n < std::min(N, (chunk + 1) * kRows); ++n) {
        int64_t id = static_cast<int64_t>(ids.at(b * N + n));
        if (id < 0 || id >= K) {
          p.badRow = p.badRow < 0 ? b * N + n : p.badRow;
          continue;
        }
        decodeRange(x, (b * N + n) * D, D, xr.data());
        double *s = p.sum.data() + id * D, *a = p.sumAbs.data() + id * D;
        for (int64_t d = 0; d < D; ++d) {
          s[d] += xr[size_t(d)];
          a[d] += std::fabs(xr[size_t(d)]);
        }
        ++p.count[size_t(id)];
      }
    });
    sum.assign(size_t(K * D), 0);
    sumAbs.assign(size_t(K * D), 0);
    count.assign(size_t(K), 0);
    for (const Part &p : parts) {
      if (p.badRow >= 0)
        return failure("input ids" + ids.indexString(p.badRow) + " = " + num(ids.at(p.badRow)) +
                       " is out of range [0, " + std::to_string(K) + ")");
      for (size_t i = 0; i < sum.size(); ++i) {
        sum[i] += p.sum[i];
        sumAbs[i] += p.sumAbs[i];
      }
      for (size_t k = 0; k < count.size(); ++k)
        count[k] += p.count[k];
    }
    double u = unitRoundoff(cNew.dtype);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t d = 0; d < D; ++d) {
        int64_t flat = (b * K + k) * D + d;
        if (isPoisonAt(cNew, flat))
          continue;
        size_t i = size_t(k * D + d);
        int64_t n = count[size_t(k)];
        double want = n ? sum[i] / double(n) : cOld.at(flat);
        double scale = n ? sumAbs[i] / double(n) : std::fabs(want);
        double tol = options.atol + u * std::fabs(want) + (n ? options.rtol * scale : 0);
        if (!total.compare(cNew.at(flat), want, tol, scale, cNew, flat) && total.mismatches == 1 && !n)
          total.firstMismatch += " (cluster " + std::to_string(k) + " is empty: it keeps c_old)";
      }
  }
  CheckReport r;
  total.into(r);
  r.summary = std::to_string(r.checked) + " centroid elements checked (" + std::to_string(B * K) +
              " centroids, means over " + std::to_string(B * N) + " rows)";
  return r;
}

} // namespace cake::oracle
