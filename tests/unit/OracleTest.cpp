//===- OracleTest.cpp - Oracles, generators, poison, conversions ----------===//
//
// Each oracle accepts a result computed here independently (naive loops in
// double) and rejects deliberately wrong ones: one wrong element, one
// unwritten element, a lost k-tile, a swapped id, a wrong centroid, an empty
// cluster overwritten, a wrong gate. Generators are deterministic per seed
// (whatever the thread count) and never all zero; bf16/fp16 conversions are
// checked bit by bit.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Generate.h"
#include "compiler/oracle/Oracles.h"
#include "compiler/oracle/Parallel.h"
#include "compiler/oracle/Poison.h"
#include "compiler/oracle/Workload.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace cake::oracle;

namespace {

HostTensor uniform(const std::string &name, DType dtype, std::vector<int64_t> shape, uint64_t seed, double lo = -1,
                   double hi = 1) {
  HostTensor t = HostTensor::zeros(name, dtype, std::move(shape));
  EXPECT_TRUE(fillUniform(t, lo, hi, seed));
  return t;
}

CheckReport check(std::string_view oracle, const TensorMap &tensors, CheckOptions options) {
  const Oracle *o = findOracle(oracle);
  EXPECT_NE(o, nullptr);
  return o->check(tensors, options);
}

CheckReport check(std::string_view oracle, const TensorMap &tensors) {
  return check(oracle, tensors, findOracle(oracle)->defaults);
}

TensorMap byName(std::vector<HostTensor> ts) {
  TensorMap m;
  for (HostTensor &t : ts)
    m.emplace(t.name, std::move(t));
  return m;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

TEST(OracleTensor, Bf16RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBf16(-2.0f), 0xC000);
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f), 0x3F80);            // tie, 1.0 is even
  EXPECT_EQ(floatToBf16(1.0f + 3 * 0x1p-8f), 0x3F82);        // tie, 1 + 2^-7 is odd: up
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81); // above the tie
  EXPECT_EQ(floatToBf16(INFINITY), 0x7F80);
  EXPECT_EQ(floatToBf16(-INFINITY), 0xFF80);
  EXPECT_EQ(floatToBf16(std::numeric_limits<float>::max()), 0x7F80); // rounds up to infinity
  EXPECT_EQ(floatToBf16(0x1p-133f), 0x0001);                         // the smallest subnormal
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
  // A NaN whose payload lies in the dropped bits must not become infinity.
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::bit_cast<float>(0x7F800001u)))));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = bf16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(f))));
    else
      ASSERT_EQ(floatToBf16(f), h) << std::hex << h;
  }
}

TEST(OracleTensor, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00); // the tie rounds to the odd side's neighbour: infinity
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * 0x1p-11f), 0x3C02);
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);     // tie with 0: even
  EXPECT_EQ(floatToHalf(3 * 0x1p-25f), 0x0002); // 1.5 ulps: up to even
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xFC00);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
    else
      ASSERT_EQ(floatToHalf(f), h) << std::hex << h;
  }
}

TEST(OracleTensor, DoubleRoundsOnce) {
  // Just above a bf16 tie, but within half a float ulp of it: double -> float
  // -> bf16 with two nearest-even roundings would give 1.0.
  double x = 1.0 + 0x1p-8 + 0x1p-30;
  EXPECT_EQ(roundTo(DType::BF16, x), 1.0 + 0x1p-7);
  EXPECT_EQ(roundTo(DType::F16, 1.0 + 0x1p-11 + 0x1p-40), 1.0 + 0x1p-10);
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + 0x1p-8), 1.0);
  EXPECT_TRUE(std::isinf(roundTo(DType::BF16, 1e300)));
  HostTensor t = HostTensor::zeros("t", DType::BF16, {2, 3});
  t.set(4, x);
  EXPECT_EQ(t.at(4), 1.0 + 0x1p-7);
  EXPECT_EQ(t.indexString(4), "[1, 1]");
  EXPECT_EQ(t.byteSize(), 12u);
}

TEST(OracleTensor, DTypeNames) {
  EXPECT_EQ(parseDType("bf16"), DType::BF16);
  EXPECT_EQ(parseDType("fp16"), DType::F16);
  EXPECT_EQ(parseDType("float32"), DType::F32);
  EXPECT_EQ(parseDType("int32"), DType::I32);
  EXPECT_EQ(parseDType("i64"), DType::I64);
  EXPECT_FALSE(parseDType("fp8"));
  for (DType t : {DType::BF16, DType::F16, DType::F32, DType::I32, DType::I64})
    EXPECT_EQ(parseDType(dtypeName(t)), t);
}

//===----------------------------------------------------------------------===//
// Generators
//===----------------------------------------------------------------------===//

TEST(OracleGenerate, DeterministicPerSeedWhateverTheThreads) {
  std::vector<int64_t> shape = {3 * kGenerateChunk + 17};
  for (const char *init : {"uniform(-1,1)", "normal(0,1)", "randint(-5,5)"}) {
    InitSpec spec = *parseInit(init);
    HostTensor a = HostTensor::zeros("a", DType::BF16, shape), b = a, c = a;
    setWorkerCount(1);
    ASSERT_TRUE(fill(a, spec, 42));
    setWorkerCount(3);
    ASSERT_TRUE(fill(b, spec, 42));
    ASSERT_TRUE(fill(c, spec, 43));
    setWorkerCount(0);
    EXPECT_EQ(a.bytes, b.bytes) << init;
    EXPECT_NE(a.bytes, c.bytes) << init;
  }
}

TEST(OracleGenerate, Distributions) {
  HostTensor u = uniform("u", DType::F32, {100000}, 1, 2, 3);
  HostTensor n = HostTensor::zeros("n", DType::F32, {100000});
  ASSERT_TRUE(fillNormal(n, 1, 2, 1));
  HostTensor r = HostTensor::zeros("r", DType::I32, {100000});
  ASSERT_TRUE(fillRandInt(r, -3, 4, 1));
  double su = 0, sn = 0, sn2 = 0;
  std::vector<int> hits(7);
  for (int64_t i = 0; i < 100000; ++i) {
    ASSERT_GE(u.at(i), 2);
    ASSERT_LE(u.at(i), 3);
    su += u.at(i);
    sn += n.at(i);
    sn2 += (n.at(i) - 1) * (n.at(i) - 1);
    ASSERT_GE(r.at(i), -3);
    ASSERT_LT(r.at(i), 4);
    ++hits[static_cast<size_t>(r.at(i) + 3)];
  }
  EXPECT_NEAR(su / 1e5, 2.5, 0.01);
  EXPECT_NEAR(sn / 1e5, 1.0, 0.03);
  EXPECT_NEAR(std::sqrt(sn2 / 1e5), 2.0, 0.03);
  for (int h : hits)
    EXPECT_NEAR(h, 100000 / 7, 600);
}

TEST(OracleGenerate, NeverAllZero) {
  EXPECT_FALSE(parseInit("uniform(0,0)"));
  EXPECT_FALSE(parseInit("normal(0, 0)"));
  EXPECT_FALSE(parseInit("randint(0,1)"));
  EXPECT_FALSE(parseInit("0"));
  EXPECT_FALSE(parseInit("0.0"));
  HostTensor t = HostTensor::zeros("t", DType::I32, {1});
  EXPECT_FALSE(fillRandInt(t, 0, 1, 7));
  EXPECT_FALSE(fill(t, {InitSpec::Constant, 0, 0}, 7));
  // A one-element randint(-1, 1) is zero half the time: it is redrawn.
  for (uint64_t seed = 0; seed < 200; ++seed) {
    HostTensor one = HostTensor::zeros("one", DType::I32, {1});
    ASSERT_TRUE(fillRandInt(one, -1, 1, seed));
    ASSERT_FALSE(allZero(one));
    EXPECT_EQ(one.at(0), -1);
  }
  // Values that round to zero in fp16 cannot make a nonzero tensor.
  HostTensor tiny = HostTensor::zeros("tiny", DType::F16, {64});
  Status s = fillUniform(tiny, -1e-9, 1e-9, 3);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("only zeros in f16"), std::string::npos) << s.error().message;
}

TEST(OracleGenerate, ParsesInits) {
  std::map<std::string, int64_t> sizes = {{"K", 17}};
  auto r = parseInit(" randint( 0 , K ) ", sizes);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->kind, InitSpec::RandInt);
  EXPECT_EQ(r->b, 17);
  auto n = parseInit("normal(0,+0.5)");
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(n->b, 0.5);
  auto c = parseInit("1.5");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, InitSpec::Constant);
  EXPECT_NE(parseInit("randint(0,Q)", sizes).error().message.find("'Q' is neither a number nor a size"), std::string::npos);
  EXPECT_FALSE(parseInit("gauss(0,1)"));
  EXPECT_FALSE(parseInit("uniform(1)"));
  EXPECT_FALSE(parseInit("uniform(1,0)"));
  EXPECT_FALSE(parseInit("randint(0,2.5)"));
  EXPECT_FALSE(parseInit("normal(0,-1)"));
}

TEST(OracleGenerate, HundredMillionBf16IsFast) {
  HostTensor t = HostTensor::zeros("big", DType::BF16, {100'000'000});
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(fillUniform(t, -1, 1, 5));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);
  EXPECT_NE(t.at(99'999'999), t.at(0));
}

//===----------------------------------------------------------------------===//
// Poison
//===----------------------------------------------------------------------===//

TEST(OraclePoison, CountsExactPattern) {
  for (DType dt : {DType::BF16, DType::F16, DType::F32, DType::I32, DType::I64}) {
    HostTensor t = HostTensor::zeros("t", dt, {5, 7});
    poison(t);
    Unwritten u = countUnwritten(t);
    EXPECT_EQ(u.count, 35);
    EXPECT_EQ(u.first, 0);
    for (int64_t i = 0; i < 35; ++i)
      if (i != 12 && i != 30)
        t.set(i, 1.0);
    u = countUnwritten(t);
    EXPECT_EQ(u.count, 2);
    EXPECT_EQ(u.first, 12);
    if (isFloat(dt))
      EXPECT_TRUE(std::isnan(t.at(12)));
    else
      EXPECT_EQ(t.at(12), -1);
  }
  // Another NaN is a written value, not poison.
  HostTensor b = HostTensor::zeros("b", DType::BF16, {2});
  poison(b);
  b.data<uint16_t>()[0] = 0x7FC0;
  b.data<uint16_t>()[1] = 0xFFFE;
  EXPECT_EQ(countUnwritten(b).count, 0);
  EXPECT_EQ(countUnwritten(b).first, -1);
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

TEST(OracleRegistry, ListsEveryOracle) {
  std::vector<std::string> names;
  for (const Oracle &o : allOracles()) {
    names.emplace_back(o.name);
    EXPECT_FALSE(o.summary.empty());
    EXPECT_GT(o.defaults.rtol, 0);
    EXPECT_EQ(findOracle(o.name), &o);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"gemm", "kmeans.assign", "kmeans.update", "knn", "kda.fwd"}));
  EXPECT_EQ(findOracle("conv"), nullptr);
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

/// C = A B^T in double, optionally without the k-tile [skipBegin, skipEnd).
HostTensor naiveGemm(const HostTensor &A, const HostTensor &B, DType out, int64_t skipBegin = 0, int64_t skipEnd = 0) {
  int64_t M = A.shape[0], K = A.shape[1], N = B.shape[0];
  HostTensor C = HostTensor::zeros("C", out, {M, N});
  std::vector<double> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(N * K));
  for (int64_t i = 0; i < M * K; ++i)
    a[size_t(i)] = A.at(i);
  for (int64_t i = 0; i < N * K; ++i)
    b[size_t(i)] = B.at(i);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        if (k < skipBegin || k >= skipEnd)
          acc += a[size_t(i * K + k)] * b[size_t(j * K + k)];
      C.set(i * N + j, acc);
    }
  return C;
}

TensorMap gemmCase(int64_t M, int64_t N, int64_t K, DType in, DType out) {
  HostTensor A = uniform("A", in, {M, K}, 1), B = uniform("B", in, {N, K}, 2);
  HostTensor C = naiveGemm(A, B, out);
  return byName({std::move(A), std::move(B), std::move(C)});
}

TEST(OracleGemm, AcceptsCorrectRejectsOneWrongElement) {
  for (DType out : {DType::BF16, DType::F32, DType::F16}) {
    TensorMap t = gemmCase(67, 45, 200, out == DType::F16 ? DType::F16 : DType::BF16, out);
    CheckReport r = check("gemm", t);
    EXPECT_TRUE(r.ok) << r.summary;
    EXPECT_EQ(r.checked, 67 * 45);
    EXPECT_EQ(r.mismatches, 0);
    HostTensor &C = t["C"];
    C.set(17 * 45 + 3, C.at(17 * 45 + 3) + 0.5);
    r = check("gemm", t);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.mismatches, 1);
    EXPECT_EQ(r.firstMismatch.rfind("C[17, 3] = ", 0), 0u) << r.firstMismatch;
    EXPECT_NE(r.summary.find("FAILED"), std::string::npos);
  }
}

TEST(OracleGemm, RejectsOneUnwrittenElement) {
  TensorMap t = gemmCase(32, 40, 64, DType::BF16, DType::BF16);
  t["C"].data<uint16_t>()[31 * 40 + 39] = 0xFFFF;
  CheckReport r = check("gemm", t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.unwritten, 1);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_NE(r.firstMismatch.find("C[31, 39] was not written"), std::string::npos) << r.firstMismatch;
}

TEST(OracleGemm, RejectsALostKTileEvenWhenSampled) {
  const int64_t M = 200, N = 136, K = 4096;
  HostTensor A = uniform("A", DType::BF16, {M, K}, 3), B = uniform("B", DType::BF16, {N, K}, 4);
  TensorMap good = byName({A, B, naiveGemm(A, B, DType::BF16)});
  TensorMap lost = byName({A, B, naiveGemm(A, B, DType::BF16, K - 64, K)});
  CheckOptions o = findOracle("gemm")->defaults;
  o.maxSamples = 2000;
  CheckReport r = check("gemm", good, o);
  EXPECT_TRUE(r.ok) << r.summary;
  EXPECT_LT(r.checked, M * N);
  EXPECT_GE(r.checked, 2000);
  EXPECT_NE(r.summary.find("(sampled)"), std::string::npos);
  EXPECT_LT(r.maxRelError, 1e-3);
  r = check("gemm", lost, o);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.mismatches, r.checked * 9 / 10) << r.summary;
}

TEST(OracleGemm, SampleAlwaysHoldsTheLastRowAndColumn) {
  const int64_t M = 300, N = 260, K = 32;
  TensorMap t = gemmCase(M, N, K, DType::BF16, DType::F32);
  HostTensor &C = t["C"];
  for (int64_t j = 0; j < N; ++j) // a ragged last M tile written with garbage
    C.set((M - 1) * N + j, 0.25 + C.at((M - 1) * N + j));
  CheckOptions o = findOracle("gemm")->defaults;
  o.maxSamples = 1024;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    o.seed = seed;
    CheckReport r = check("gemm", t, o);
    EXPECT_FALSE(r.ok);
    EXPECT_GT(r.mismatches, 20);
  }
}

TEST(OracleGemm, ReportsShapeErrors) {
  TensorMap t = gemmCase(8, 8, 16, DType::BF16, DType::BF16);
  t["C"].shape = {8, 4};
  CheckReport r = check("gemm", t);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.summary.find("'C' has shape [8, 4], expected [M, N] = [8, 8]"), std::string::npos) << r.summary;
  t.erase("B");
  r = check("gemm", t);
  EXPECT_NE(r.summary.find("tensor 'B' [N, K] is missing"), std::string::npos) << r.summary;
}

//===----------------------------------------------------------------------===//
// kmeans.assign
//===----------------------------------------------------------------------===//

/// Squared distances of every row of x to every centroid, in double.
std::vector<double> distances(const HostTensor &x, const HostTensor &c, int64_t b, int64_t n) {
  int64_t N = x.shape[1], D = x.shape[2], K = c.shape[1];
  std::vector<double> d(static_cast<size_t>(K));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < D; ++i) {
      double diff = x.at((b * N + n) * D + i) - c.at((b * K + k) * D + i);
      d[size_t(k)] += diff * diff;
    }
  return d;
}

struct AssignCase {
  TensorMap t;
  int64_t B = 2, N = 300, K = 17, D = 24;
  AssignCase() {
    HostTensor x = uniform("x", DType::BF16, {B, N, D}, 5), c = uniform("c", DType::BF16, {B, K, D}, 6);
    HostTensor ids = HostTensor::zeros("ids", DType::I32, {B, N}), dist = HostTensor::zeros("dist", DType::F32, {B, N});
    for (int64_t b = 0; b < B; ++b)
      for (int64_t n = 0; n < N; ++n) {
        std::vector<double> d = distances(x, c, b, n);
        auto best = std::min_element(d.begin(), d.end());
        ids.set(b * N + n, static_cast<double>(best - d.begin()));
        dist.set(b * N + n, *best);
      }
    t = byName({std::move(x), std::move(c), std::move(ids), std::move(dist)});
  }
};

TEST(OracleKMeansAssign, AcceptsCorrectIdsAndDistances) {
  AssignCase a;
  CheckReport r = check("kmeans.assign", a.t);
  EXPECT_TRUE(r.ok) << r.summary;
  EXPECT_EQ(r.checked, 2 * a.B * a.N); // ids and dist
  // The fast form drops ||x||^2 from dist: accepted too.
  HostTensor &dist = a.t["dist"];
  const HostTensor &x = a.t["x"];
  for (int64_t row = 0; row < a.B * a.N; ++row) {
    double xx = 0;
    for (int64_t i = 0; i < a.D; ++i)
      xx += x.at(row * a.D + i) * x.at(row * a.D + i);
    dist.set(row, dist.at(row) - xx);
  }
  r = check("kmeans.assign", a.t);
  EXPECT_TRUE(r.ok) << r.summary;
  a.t.erase("dist");
  r = check("kmeans.assign", a.t);
  EXPECT_TRUE(r.ok) << r.summary;
  EXPECT_EQ(r.checked, a.B * a.N);
}

TEST(OracleKMeansAssign, RejectsASwappedId) {
  AssignCase a;
  a.t.erase("dist");
  std::vector<double> d = distances(a.t["x"], a.t["c"], 1, 123);
  int64_t farthest = std::max_element(d.begin(), d.end()) - d.begin();
  a.t["ids"].set(a.N + 123, static_cast<double>(farthest));
  CheckReport r = check("kmeans.assign", a.t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.firstMismatch.rfind("ids[1, 123] = " + std::to_string(farthest) + ": its distance", 0), 0u)
      << r.firstMismatch;
  a.t["ids"].set(a.N + 123, a.K); // out of range
  r = check("kmeans.assign", a.t);
  EXPECT_NE(r.firstMismatch.find("out of range [0, 17)"), std::string::npos) << r.firstMismatch;
  a.t["ids"].set(a.N + 123, -1); // poison: unwritten
  r = check("kmeans.assign", a.t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.unwritten, 1);
  EXPECT_EQ(r.mismatches, 0);
}

TEST(OracleKMeansAssign, AcceptsANearTieEitherWay) {
  AssignCase a;
  a.t.erase("dist");
  // Make centroid 1 of batch 0 a copy of centroid 0: rows nearest to either may return both.
  HostTensor &c = a.t["c"];
  for (int64_t i = 0; i < a.D; ++i)
    c.set(a.D + i, c.at(i));
  HostTensor &ids = a.t["ids"];
  int64_t flipped = 0;
  for (int64_t n = 0; n < a.N; ++n) {
    std::vector<double> d = distances(a.t["x"], c, 0, n);
    int64_t best = std::min_element(d.begin(), d.end()) - d.begin();
    ids.set(n, static_cast<double>(best));
    if (best == 0 || best == 1) {
      ids.set(n, static_cast<double>(1 - best));
      ++flipped;
    }
  }
  ASSERT_GT(flipped, 0);
  CheckReport r = check("kmeans.assign", a.t);
  EXPECT_TRUE(r.ok) << r.summary;
}

TEST(OracleKMeansAssign, RejectsAWrongDistance) {
  AssignCase a;
  a.t["dist"].set(7, a.t["dist"].at(7) * 1.01);
  CheckReport r = check("kmeans.assign", a.t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.firstMismatch.rfind("dist[0, 7] = ", 0), 0u) << r.firstMismatch;
}

//===----------------------------------------------------------------------===//
// kmeans.update
//===----------------------------------------------------------------------===//

struct UpdateCase {
  TensorMap t;
  int64_t B = 2, N = 500, K = 9, D = 12;
  explicit UpdateCase(DType out) {
    HostTensor x = uniform("x", DType::BF16, {B, N, D}, 8), cOld = uniform("c_old", DType::F32, {B, K, D}, 9);
    HostTensor ids = HostTensor::zeros("ids", DType::I32, {B, N});
    EXPECT_TRUE(fillRandInt(ids, 0, K - 1, 10)); // cluster K - 1 is empty in every batch
    HostTensor cNew = HostTensor::zeros("c_new", out, {B, K, D});
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t i = 0; i < D; ++i) {
          double s = 0;
          int64_t n = 0;
          for (int64_t r = 0; r < N; ++r)
            if (ids.at(b * N + r) == k) {
              s += x.at((b * N + r) * D + i);
              ++n;
            }
          int64_t flat = (b * K + k) * D + i;
          cNew.set(flat, n ? s / double(n) : cOld.at(flat));
        }
    t = byName({std::move(x), std::move(ids), std::move(cOld), std::move(cNew)});
  }
};

TEST(OracleKMeansUpdate, AcceptsCorrectMeans) {
  for (DType out : {DType::F32, DType::BF16}) {
    UpdateCase u(out);
    CheckReport r = check("kmeans.update", u.t);
    EXPECT_TRUE(r.ok) << r.summary;
    EXPECT_EQ(r.checked, u.B * u.K * u.D);
  }
}

TEST(OracleKMeansUpdate, RejectsAWrongCentroid) {
  UpdateCase u(DType::F32);
  HostTensor &c = u.t["c_new"];
  c.set(3 * u.D + 5, c.at(3 * u.D + 5) + 0.01);
  CheckReport r = check("kmeans.update", u.t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.firstMismatch.rfind("c_new[0, 3, 5] = ", 0), 0u) << r.firstMismatch;
}

TEST(OracleKMeansUpdate, RejectsAMeanMissingOneRow) {
  UpdateCase u(DType::F32);
  const HostTensor &x = u.t["x"], &ids = u.t["ids"];
  HostTensor &c = u.t["c_new"];
  // Recompute cluster ids[0] of batch 0 without its first row.
  int64_t k = static_cast<int64_t>(ids.at(0));
  for (int64_t i = 0; i < u.D; ++i) {
    double s = 0;
    int64_t n = 0;
    for (int64_t r = 1; r < u.N; ++r)
      if (ids.at(r) == k) {
        s += x.at(r * u.D + i);
        ++n;
      }
    c.set(k * u.D + i, s / double(n));
  }
  CheckReport r = check("kmeans.update", u.t);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.mismatches, u.D / 2);
}

TEST(OracleKMeansUpdate, RejectsAnEmptyClusterOverwritten) {
  UpdateCase u(DType::F32);
  HostTensor &c = u.t["c_new"];
  for (int64_t i = 0; i < u.D; ++i) // cluster K - 1 of batch 1 is empty: zeroed instead of kept
    c.set(((1 * u.K) + u.K - 1) * u.D + i, 0);
  CheckReport r = check("kmeans.update", u.t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, u.D);
  EXPECT_NE(r.firstMismatch.find("is empty: it keeps c_old"), std::string::npos) << r.firstMismatch;
}

//===----------------------------------------------------------------------===//
// knn
//===----------------------------------------------------------------------===//

struct KnnCase {
  TensorMap t;
  int64_t Q = 20, N = 500, D = 16, k = 8;
  KnnCase() {
    HostTensor q = uniform("q", DType::F16, {Q, D}, 11), db = uniform("db", DType::F16, {N, D}, 12);
    for (int64_t i = 0; i < D; ++i) // rows 1 and 2 are equal: ties
      db.set(2 * D + i, db.at(D + i));
    for (int64_t i = 0; i < D; ++i) // and query 0 sits right next to them
      q.set(i, db.at(D + i) + 1.0 / 64);
    HostTensor dist = HostTensor::zeros("dist", DType::F32, {Q, k}), ids = HostTensor::zeros("ids", DType::I32, {Q, k});
    for (int64_t a = 0; a < Q; ++a) {
      std::vector<std::pair<double, int64_t>> d;
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t i = 0; i < D; ++i)
          s += (q.at(a * D + i) - db.at(n * D + i)) * (q.at(a * D + i) - db.at(n * D + i));
        d.emplace_back(s, n);
      }
      std::sort(d.begin(), d.end());
      for (int64_t j = 0; j < k; ++j) {
        dist.set(a * k + j, d[size_t(j)].first);
        ids.set(a * k + j, static_cast<double>(d[size_t(j)].second));
      }
    }
    t = byName({std::move(q), std::move(db), std::move(dist), std::move(ids)});
  }
};

TEST(OracleKnn, AcceptsCorrectAndTiesInEitherOrder) {
  KnnCase c;
  CheckReport r = check("knn", c.t);
  EXPECT_TRUE(r.ok) << r.summary;
  HostTensor &ids = c.t["ids"];
  ASSERT_TRUE((ids.at(0) == 1 && ids.at(1) == 2) || (ids.at(0) == 2 && ids.at(1) == 1));
  double first = ids.at(0);
  ids.set(0, ids.at(1));
  ids.set(1, first);
  r = check("knn", c.t);
  EXPECT_TRUE(r.ok) << r.summary;
}

TEST(OracleKnn, RejectsSwappedIdsAndWrongDistances) {
  KnnCase c;
  HostTensor &ids = c.t["ids"];
  double a = ids.at(5 * c.k + 2);
  ids.set(5 * c.k + 2, ids.at(5 * c.k + 6));
  ids.set(5 * c.k + 6, a);
  CheckReport r = check("knn", c.t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 2);
  EXPECT_EQ(r.firstMismatch.rfind("ids[5, 2] = ", 0), 0u) << r.firstMismatch;

  KnnCase d;
  d.t["ids"].set(3 * d.k + 7, 499); // not among the nearest: its distance is wrong
  d.t["dist"].set(3 * d.k + 7, 0.0);
  r = check("knn", d.t);
  EXPECT_FALSE(r.ok);
  EXPECT_GE(r.mismatches, 2); // the k-th distance, ascending order, the id's distance

  KnnCase e;
  e.t["ids"].set(4 * e.k + 4, e.t["ids"].at(4 * e.k + 3)); // twice
  r = check("knn", e.t);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.firstMismatch.find("is returned twice"), std::string::npos) << r.firstMismatch;
}

TEST(OracleKnn, SamplesQueriesButScansEveryOutput) {
  KnnCase c;
  c.t["dist"].data<uint32_t>()[13 * c.k + 1] = 0xFFFFFFFFu;
  CheckOptions o = findOracle("knn")->defaults;
  o.maxSamples = 4;
  CheckReport r = check("knn", c.t, o);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.unwritten, 1);
  EXPECT_NE(r.summary.find("4 of 20 queries"), std::string::npos) << r.summary;
}

//===----------------------------------------------------------------------===//
// kda.fwd
//===----------------------------------------------------------------------===//

/// The README's recurrence, in double, with explicit matrices:
/// S_t = (I - beta k k^T) Diag(alpha) S_{t-1} + beta k v^T, o_t = scale S_t^T q_t.
void naiveKda(TensorMap &t, double lowerBound, const std::vector<int64_t> &cuSeqlens = {}) {
  const HostTensor &q = t["q"], &k = t["k"], &v = t["v"], &g = t["g"], &beta = t["beta"], &aLog = t["A_log"],
                   &dtBias = t["dt_bias"];
  HostTensor &o = t["o"];
  int64_t B = q.shape[0], T = q.shape[1], H = q.shape[2], K = q.shape[3], V = v.shape[3];
  double scale = 1 / std::sqrt(double(K));
  std::vector<std::array<int64_t, 3>> segs; // row, begin, end
  if (cuSeqlens.empty())
    for (int64_t b = 0; b < B; ++b)
      segs.push_back({b, 0, T});
  else
    for (size_t i = 0; i + 1 < cuSeqlens.size(); ++i)
      segs.push_back({0, cuSeqlens[i], cuSeqlens[i + 1]});
  for (size_t s = 0; s < segs.size(); ++s)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<std::vector<double>> S(size_t(K), std::vector<double>(size_t(V), 0.0));
      if (t.count("h0"))
        for (int64_t a = 0; a < K; ++a)
          for (int64_t e = 0; e < V; ++e)
            S[size_t(a)][size_t(e)] = t["h0"].at(((int64_t(s) * H + h) * V + e) * K + a);
      for (int64_t tt = segs[s][1]; tt < segs[s][2]; ++tt) {
        int64_t tok = (segs[s][0] * T + tt) * H + h;
        std::vector<double> qn(static_cast<size_t>(K)), kn(static_cast<size_t>(K)), alpha(static_cast<size_t>(K));
        double qq = 0, kk = 0;
        for (int64_t a = 0; a < K; ++a) {
          qq += q.at(tok * K + a) * q.at(tok * K + a);
          kk += k.at(tok * K + a) * k.at(tok * K + a);
        }
        for (int64_t a = 0; a < K; ++a) {
          qn[size_t(a)] = q.at(tok * K + a) / std::sqrt(qq + 1e-6);
          kn[size_t(a)] = k.at(tok * K + a) / std::sqrt(kk + 1e-6);
          double x = std::exp(aLog.at(h)) * (g.at(tok * K + a) + dtBias.at(h * K + a));
          alpha[size_t(a)] = std::exp(lowerBound / (1 + std::exp(-x)));
        }
        double b = 1 / (1 + std::exp(-beta.at(tok)));
        // M = (I - b k k^T) Diag(alpha)
        std::vector<std::vector<double>> next(size_t(K), std::vector<double>(size_t(V), 0.0));
        for (int64_t a = 0; a < K; ++a)
          for (int64_t c = 0; c < K; ++c) {
            double m = ((a == c) - b * kn[size_t(a)] * kn[size_t(c)]) * alpha[size_t(c)];
            if (m != 0)
              for (int64_t e = 0; e < V; ++e)
                next[size_t(a)][size_t(e)] += m * S[size_t(c)][size_t(e)];
          }
        for (int64_t a = 0; a < K; ++a)
          for (int64_t e = 0; e < V; ++e)
            next[size_t(a)][size_t(e)] += b * kn[size_t(a)] * v.at(tok * V + e);
        S = next;
        for (int64_t e = 0; e < V; ++e) {
          double acc = 0;
          for (int64_t a = 0; a < K; ++a)
            acc += S[size_t(a)][size_t(e)] * qn[size_t(a)];
          o.set(tok * V + e, scale * acc);
        }
      }
      if (t.count("ht"))
        for (int64_t a = 0; a < K; ++a)
          for (int64_t e = 0; e < V; ++e)
            t["ht"].set(((int64_t(s) * H + h) * V + e) * K + a, S[size_t(a)][size_t(e)]);
    }
}

TensorMap kdaInputs(int64_t B, int64_t T, int64_t H, int64_t K) {
  std::vector<HostTensor> ts;
  for (const char *name : {"q", "k", "v"})
    ts.push_back(uniform(name, DType::BF16, {B, T, H, K}, tensorSeed(1, name)));
  HostTensor g = HostTensor::zeros("g", DType::BF16, {B, T, H, K}),
             beta = HostTensor::zeros("beta", DType::BF16, {B, T, H});
  EXPECT_TRUE(fillNormal(g, 0, 1, 21));
  EXPECT_TRUE(fillNormal(beta, 0, 1, 22));
  ts.push_back(std::move(g));
  ts.push_back(std::move(beta));
  ts.push_back(uniform("A_log", DType::F32, {H}, 23));
  ts.push_back(uniform("dt_bias", DType::F32, {H, K}, 24));
  ts.push_back(HostTensor::zeros("o", DType::BF16, {B, T, H, K}));
  return byName(std::move(ts));
}

TEST(OracleKda, AcceptsTheRecurrenceRejectsAWrongGate) {
  TensorMap t = kdaInputs(2, 48, 3, 32);
  naiveKda(t, -5);
  CheckReport r = check("kda.fwd", t);
  EXPECT_TRUE(r.ok) << r.summary;
  EXPECT_EQ(r.checked, 6); // every (sequence, head)
  EXPECT_LT(r.maxRelError, 5e-3);
  naiveKda(t, -1); // the gate without the safe lower bound of -5
  r = check("kda.fwd", t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 6);
  EXPECT_NE(r.firstMismatch.find("relative L2 error"), std::string::npos) << r.firstMismatch;
}

TEST(OracleKda, OneHeadWrongOrOneElementUnwritten) {
  TensorMap t = kdaInputs(1, 32, 4, 32);
  naiveKda(t, -5);
  HostTensor &o = t["o"];
  for (int64_t tt = 0; tt < 32; ++tt) // head 2 scaled by 1.05
    for (int64_t e = 0; e < 32; ++e)
      o.set((tt * 4 + 2) * 32 + e, 1.05 * o.at((tt * 4 + 2) * 32 + e));
  CheckReport r = check("kda.fwd", t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.firstMismatch.rfind("o of sequence 0, head 2", 0), 0u) << r.firstMismatch;
  naiveKda(t, -5);
  o.data<uint16_t>()[100] = 0xFFFF;
  r = check("kda.fwd", t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.unwritten, 1);
  EXPECT_EQ(r.mismatches, 0);
}

TEST(OracleKda, VarlenWithInitialAndFinalState) {
  const int64_t T = 40, H = 2, K = 32;
  TensorMap t = kdaInputs(1, T, H, K);
  std::vector<int64_t> cu = {0, 7, 25, 40};
  HostTensor seqlens = HostTensor::zeros("cu_seqlens", DType::I64, {4});
  for (int64_t i = 0; i < 4; ++i)
    seqlens.set(i, double(cu[size_t(i)]));
  t.emplace("cu_seqlens", std::move(seqlens));
  t.emplace("h0", uniform("h0", DType::F32, {3, H, K, K}, 30, -0.5, 0.5));
  t.emplace("ht", HostTensor::zeros("ht", DType::F32, {3, H, K, K}));
  naiveKda(t, -5, cu);
  CheckReport r = check("kda.fwd", t);
  EXPECT_TRUE(r.ok) << r.summary;
  EXPECT_EQ(r.checked, 12); // o and ht of 3 sequences x 2 heads
  // Carrying the state across sequence boundaries is a bug.
  naiveKda(t, -5, {0, 40});
  r = check("kda.fwd", t);
  EXPECT_FALSE(r.ok);
}

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

Workload gemmWorkload() {
  Workload w;
  w.kernel = "gemm_bf16";
  w.oracle = "gemm";
  w.sizes = {{"M", 48}, {"N", 40}, {"K", 96}};
  w.tensors = {{"A", DType::BF16, {"M", "K"}, Role::Input, "normal(0,1)"},
               {"B", DType::BF16, {"N", "K"}, Role::Input, ""},
               {"C", DType::BF16, {"M", "N"}, Role::Output, ""}};
  w.check = findOracle("gemm")->defaults;
  w.seed = 9;
  return w;
}

TEST(OracleWorkload, BuildsFillsPoisonsAndChecks) {
  Workload w = gemmWorkload();
  ASSERT_TRUE(validate(w));
  auto tensors = makeTensors(w);
  ASSERT_TRUE(tensors) << tensors.error().message;
  TensorMap &t = *tensors;
  EXPECT_EQ(t["A"].shape, (std::vector<int64_t>{48, 96}));
  EXPECT_EQ(countUnwritten(t["C"]).count, 48 * 40);
  EXPECT_FALSE(allZero(t["A"]));
  EXPECT_NE(t["A"].bytes, t["B"].bytes);
  EXPECT_EQ(makeTensors(w)->at("A").bytes, t["A"].bytes); // same seed, same inputs
  CheckReport r = findOracle(w.oracle)->check(t, w.check);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.unwritten, 48 * 40);
  t["C"] = naiveGemm(t["A"], t["B"], DType::BF16);
  r = findOracle(w.oracle)->check(t, w.check);
  EXPECT_TRUE(r.ok) << r.summary;
}

TEST(OracleWorkload, ClearErrors) {
  Workload w = gemmWorkload();
  w.sizes.erase("K");
  auto t = makeTensors(w);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message, "tensor 'A': size 'K' of its shape is not defined in sizes");
  w = gemmWorkload();
  w.tensors[1].init = "uniform(0,0)";
  EXPECT_NE(makeTensors(w).error().message.find("tensor 'B': init 'uniform(0,0)'"), std::string::npos);
  w = gemmWorkload();
  w.tensors.pop_back();
  EXPECT_EQ(validate(w).error().message, "oracle 'gemm' needs tensor 'C' [M, N]");
  w = gemmWorkload();
  w.tensors[0].role = Role::Output;
  EXPECT_NE(validate(w).error().message.find("'A' must be an input"), std::string::npos);
  w.oracle = "conv";
  EXPECT_NE(validate(w).error().message.find("unknown oracle 'conv'"), std::string::npos);
  TensorSpec ids{"ids", DType::I32, {"4"}, Role::Input, ""};
  EXPECT_NE(makeTensor(ids, w).error().message.find("without an init"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Speed at the README's largest shapes (run with --gtest_also_run_disabled_tests)
//===----------------------------------------------------------------------===//

/// Seconds one check of \p oracle takes on \p tensors, printed with its summary.
double timeCheck(std::string_view oracle, const TensorMap &tensors) {
  auto start = std::chrono::steady_clock::now();
  CheckReport r = check(oracle, tensors);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.2f s  %s\n", seconds, r.summary.substr(0, 160).c_str());
  return seconds;
}

TEST(OracleSpeed, DISABLED_LargestShapes) {
  {
    TensorMap t = byName({uniform("A", DType::BF16, {8192, 8192}, 1), uniform("B", DType::BF16, {8192, 8192}, 2),
                          uniform("C", DType::BF16, {8192, 8192}, 3)});
    EXPECT_LT(timeCheck("gemm", t), 5);
  }
  {
    TensorMap t =
        byName({uniform("x", DType::BF16, {32, 65536, 128}, 1), uniform("c", DType::BF16, {32, 1024, 128}, 2),
                uniform("c_old", DType::F32, {32, 1024, 128}, 3), uniform("c_new", DType::F32, {32, 1024, 128}, 4)});
    HostTensor ids = HostTensor::zeros("ids", DType::I32, {32, 65536});
    ASSERT_TRUE(fillRandInt(ids, 0, 1024, 5));
    t.emplace("ids", std::move(ids));
    EXPECT_LT(timeCheck("kmeans.assign", t), 5);
    EXPECT_LT(timeCheck("kmeans.update", t), 5);
  }
  {
    TensorMap t = byName({uniform("q", DType::F16, {4096, 128}, 1), uniform("db", DType::F16, {1 << 20, 128}, 2),
                          uniform("dist", DType::F32, {4096, 10}, 3)});
    HostTensor ids = HostTensor::zeros("ids", DType::I32, {4096, 10});
    ASSERT_TRUE(fillRandInt(ids, 0, 1 << 20, 5));
    t.emplace("ids", std::move(ids));
    EXPECT_LT(timeCheck("knn", t), 5);
  }
  {
    TensorMap t = kdaInputs(1, 8192, 32, 128);
    EXPECT_LT(timeCheck("kda.fwd", t), 5);
  }
}

} // namespace
