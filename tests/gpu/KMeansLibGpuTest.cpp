//===- KMeansLibGpuTest.cpp - libcake_kmeans.so on a real GPU -------------===//
//
// Part of CAKE. The C API of libcake_kmeans.so (lib/kmeans/cake_kmeans.h), the
// way a client calls it, on random inputs checked by the oracles of `cake run`
// (compiler/oracle/): assign at shapes from one row to the paper cell (ragged
// N and K included), argument errors that only a GPU can tell (host memory),
// repeated calls (modules cached, scratch from the pool) with a host-side
// time per call, and, when the build has the update kernels, update against
// the kmeans.update oracle and fit (the objective decreases, the returned ids
// belong to the returned centroids). Device memory comes from the runner
// (makeRunner, the primary context, like the CUDA runtime's); the library
// works on the legacy default stream (stream NULL).
//
// Exits 77 (ctest's SKIP_RETURN_CODE) without a GPU. `cake_kmeans_gpu_tests
// NAME` runs one test.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Oracles.h"
#include "compiler/oracle/Poison.h"
#include "compiler/oracle/Workload.h"
#include "compiler/runner/Runner.h"
#include "lib/kmeans/cake_kmeans.h"
#include "tests/gpu/GpuHarness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

using namespace cake;
using namespace cake::runner;
using namespace cake::gputest;

namespace {

Runner *gpu = nullptr;


/// A status of the C API: fails the test (and returns) unless it is OK.
#define REQUIRE_CAKE(call)                                                                                             \
  do {                                                                                                                 \
    int s_ = (call);                                                                                                   \
    if (s_ != CAKE_KMEANS_OK) {                                                                                        \
      ++failures;                                                                                                      \
      std::cerr << __FILE__ << ":" << __LINE__ << ": " << currentTest << ": " << cake_kmeans_status_name(s_) << ": "   \
                << cake_kmeans_last_error() << "\n";                                                                   \
      return;                                                                                                          \
    }                                                                                                                  \
  } while (0)


constexpr int64_t D = 128;

/// Host tensors of a workload and their device copies.
struct Problem {
  oracle::TensorMap host;
  std::map<std::string, DevicePtr> dev;
  ~Problem() {
    for (auto &[name, p] : dev)
      (void)gpu->free(p); // a destructor cannot report; the test process ends soon
  }
  void *ptr(const std::string &name) { return reinterpret_cast<void *>(uintptr_t(dev.at(name))); }
  /// Copies \p name back from the device (waits for the legacy stream's work).
  bool fetch(const std::string &name) {
    oracle::HostTensor &t = host.at(name);
    auto s = gpu->copyToHost(t.bytes.data(), dev.at(name), t.byteSize());
    if (!s)
      std::cerr << currentTest << ": copy of " << name << ": " << s.error().message << "\n";
    return bool(s);
  }
};

oracle::TensorSpec spec(std::string name, oracle::DType t, std::vector<std::string> shape, std::string init,
                        oracle::Role role = oracle::Role::Input) {
  oracle::TensorSpec s;
  s.name = std::move(name);
  s.dtype = t;
  s.shape = std::move(shape);
  s.init = std::move(init);
  s.role = role;
  return s;
}

/// Makes the tensors (inputs seeded, outputs poisoned) and copies them to the GPU.
bool make(Problem &p, std::map<std::string, int64_t> sizes, std::vector<oracle::TensorSpec> specs, uint64_t seed) {
  oracle::Workload w;
  w.sizes = std::move(sizes);
  w.tensors = std::move(specs);
  w.seed = seed;
  auto tensors = oracle::makeTensors(w);
  if (!tensors) {
    ++failures;
    std::cerr << currentTest << ": " << tensors.error().message << "\n";
    return false;
  }
  p.host = std::move(*tensors);
  for (auto &[name, t] : p.host) {
    auto d = gpu->alloc(t.byteSize());
    if (!d || !gpu->copyToDevice(*d, t.bytes.data(), t.byteSize())) {
      ++failures;
      std::cerr << currentTest << ": cannot allocate or fill " << name << "\n";
      return false;
    }
    p.dev[name] = *d;
  }
  return true;
}

bool check(const char *oracleName, const oracle::TensorMap &tensors, uint64_t seed, const std::string &what) {
  const oracle::Oracle *o = oracle::findOracle(oracleName);
  oracle::CheckOptions options = o->defaults;
  options.seed = seed;
  oracle::CheckReport r = o->check(tensors, options);
  if (r.ok)
    std::printf("  %s: ok: %s\n", what.c_str(), r.summary.c_str());
  else
    std::printf("  %s: MISMATCH (%lld mismatches, %lld unwritten): %s\n", what.c_str(), (long long)r.mismatches,
                (long long)r.unwritten, (r.firstMismatch.empty() ? r.summary : r.firstMismatch).c_str());
  if (!r.ok) {
    ++failures;
    std::cerr << currentTest << ": " << what << ": " << (r.firstMismatch.empty() ? r.summary : r.firstMismatch)
              << "\n";
  }
  return r.ok;
}

std::string shapeName(int64_t B, int64_t N, int64_t K) {
  return "B=" + std::to_string(B) + " N=" + std::to_string(N) + " K=" + std::to_string(K) + " D=128";
}

//===----------------------------------------------------------------------===//

void assignAgainstTheOracle() {
  struct Shape {
    int64_t B, N, K;
  };
  const Shape shapes[] = {{1, 1, 1},        {2, 300, 256},   {1, 1000, 100},   {3, 4097, 513},
                          {8, 16384, 1024}, {1, 65537, 1000}, {4, 200, 3000}, {32, 65536, 1024}};
  for (const Shape &s : shapes) {
    Problem p;
    uint64_t seed = uint64_t(s.B * 7 + s.N * 3 + s.K);
    if (!make(p, {{"B", s.B}, {"N", s.N}, {"K", s.K}},
              {spec("x", oracle::DType::BF16, {"B", "N", "128"}, "normal(0,1)"),
               spec("c", oracle::DType::BF16, {"B", "K", "128"}, "normal(0,1)"),
               spec("ids", oracle::DType::I32, {"B", "N"}, "", oracle::Role::Output)},
              seed))
      return;
    REQUIRE_CAKE(cake_kmeans_assign(p.ptr("x"), p.ptr("c"), static_cast<int32_t *>(p.ptr("ids")), s.B, s.N, s.K, D,
                                    CAKE_KMEANS_BF16, nullptr));
    if (!p.fetch("ids"))
      return;
    check("kmeans.assign", p.host, seed, "assign " + shapeName(s.B, s.N, s.K));
  }
}

/// cake_kmeans_assign_with_distance: ids and dist both judged by the
/// kmeans.assign oracle (dist: the distance of the returned centroid).
void assignWithDistance() {
  struct Shape {
    int64_t B, N, K;
  };
  for (const Shape &s : {Shape{2, 300, 256}, Shape{3, 4097, 513}, Shape{1, 65537, 1000}}) {
    Problem p;
    uint64_t seed = uint64_t(s.B * 5 + s.N + s.K);
    if (!make(p, {{"B", s.B}, {"N", s.N}, {"K", s.K}},
              {spec("x", oracle::DType::BF16, {"B", "N", "128"}, "normal(0,1)"),
               spec("c", oracle::DType::BF16, {"B", "K", "128"}, "normal(0,1)"),
               spec("ids", oracle::DType::I32, {"B", "N"}, "", oracle::Role::Output),
               spec("dist", oracle::DType::F32, {"B", "N"}, "", oracle::Role::Output)},
              seed))
      return;
    REQUIRE_CAKE(cake_kmeans_assign_with_distance(p.ptr("x"), p.ptr("c"), static_cast<int32_t *>(p.ptr("ids")),
                                                  static_cast<float *>(p.ptr("dist")), s.B, s.N, s.K, D,
                                                  CAKE_KMEANS_BF16, nullptr));
    if (!p.fetch("ids") || !p.fetch("dist"))
      return;
    check("kmeans.assign", p.host, seed, "assign with distances " + shapeName(s.B, s.N, s.K));
  }
}

void errorsOnTheGpu() {
  Problem p;
  if (!make(p, {{"B", 1}, {"N", 300}, {"K", 256}},
            {spec("x", oracle::DType::BF16, {"B", "N", "128"}, "normal(0,1)"),
             spec("c", oracle::DType::BF16, {"B", "K", "128"}, "normal(0,1)"),
             spec("ids", oracle::DType::I32, {"B", "N"}, "", oracle::Role::Output)},
            1))
    return;
  auto pinned = gpu->allocMapped(300 * 4);
  REQUIRE_OK(pinned);
  int s = cake_kmeans_assign(p.ptr("x"), p.ptr("c"), static_cast<int32_t *>(pinned->host), 1, 300, 256, D,
                             CAKE_KMEANS_BF16, nullptr);
  std::printf("  host memory as ids: %s: %s\n", cake_kmeans_status_name(s), cake_kmeans_last_error());
  EXPECT(s == CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT(std::string(cake_kmeans_last_error()).find("ids is host memory") != std::string::npos);
  static int32_t stack[300];
  s = cake_kmeans_assign(p.ptr("x"), p.ptr("c"), stack, 1, 300, 256, D, CAKE_KMEANS_BF16, nullptr);
  std::printf("  a host array as ids: %s: %s\n", cake_kmeans_status_name(s), cake_kmeans_last_error());
  EXPECT(s == CAKE_KMEANS_INVALID_ARGUMENT);
  s = cake_kmeans_assign(p.ptr("x"), static_cast<char *>(p.ptr("c")) + 8, static_cast<int32_t *>(p.ptr("ids")), 1,
                         300, 255, D, CAKE_KMEANS_BF16, nullptr);
  std::printf("  misaligned c: %s: %s\n", cake_kmeans_status_name(s), cake_kmeans_last_error());
  EXPECT(s == CAKE_KMEANS_INVALID_ARGUMENT);
  // past the widest kernel (1024): refused before any GPU work
  s = cake_kmeans_assign(p.ptr("x"), p.ptr("c"), static_cast<int32_t *>(p.ptr("ids")), 1, 30, 25, 1032,
                         CAKE_KMEANS_BF16, nullptr);
  std::printf("  D = 1032: %s: %s\n", cake_kmeans_status_name(s), cake_kmeans_last_error());
  EXPECT(s == CAKE_KMEANS_UNSUPPORTED);
  // nothing was written by the refused calls
  if (!p.fetch("ids"))
    return;
  EXPECT(oracle::countUnwritten(p.host.at("ids")).count == 300);
  // and the library still works
  REQUIRE_CAKE(cake_kmeans_assign(p.ptr("x"), p.ptr("c"), static_cast<int32_t *>(p.ptr("ids")), 1, 300, 256, D,
                                  CAKE_KMEANS_BF16, nullptr));
  if (p.fetch("ids"))
    check("kmeans.assign", p.host, 1, "assign after the refused calls");
  if (Status freed = gpu->freeMapped(*pinned); !freed)
    std::cerr << currentTest << ": " << freed.error().message << "\n", ++failures;
}

void repeatedCallsTimed() {
  const int64_t B = 32, N = 65536, K = 1024;
  Problem p;
  if (!make(p, {{"B", B}, {"N", N}, {"K", K}},
            {spec("x", oracle::DType::BF16, {"B", "N", "128"}, "normal(0,1)"),
             spec("c", oracle::DType::BF16, {"B", "K", "128"}, "normal(0,1)"),
             spec("ids", oracle::DType::I32, {"B", "N"}, "", oracle::Role::Output)},
            5))
    return;
  auto *ids = static_cast<int32_t *>(p.ptr("ids"));
  REQUIRE_CAKE(cake_kmeans_assign(p.ptr("x"), p.ptr("c"), ids, B, N, K, D, CAKE_KMEANS_BF16, nullptr));
  int32_t one = 0;
  REQUIRE_OK(gpu->copyToHost(&one, p.dev.at("ids"), sizeof one)); // waits
  const int calls = 50;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    REQUIRE_CAKE(cake_kmeans_assign(p.ptr("x"), p.ptr("c"), ids, B, N, K, D, CAKE_KMEANS_BF16, nullptr));
  auto enqueued = std::chrono::steady_clock::now();
  REQUIRE_OK(gpu->copyToHost(&one, p.dev.at("ids"), sizeof one));
  auto done = std::chrono::steady_clock::now();
  double enqueueUs = std::chrono::duration<double, std::micro>(enqueued - start).count() / calls;
  double perCallMs = std::chrono::duration<double, std::milli>(done - start).count() / calls;
  std::printf("  assign %s: %.3f ms per call over %d back-to-back calls (host-timed: cnorm + assign + launch "
              "overhead), %.1f us to enqueue one\n",
              shapeName(B, N, K).c_str(), perCallMs, calls, enqueueUs);
  if (p.fetch("ids"))
    check("kmeans.assign", p.host, 5, "assign after repeated calls");
}

void updateAgainstTheOracle() {
  if (!cake_kmeans_has_update()) {
    std::printf("  skipped: %s\n", cake_kmeans_build_info());
    return;
  }
  struct Shape {
    int64_t B, N, K;
  };
  // K = 1 is fit's (every id is 0); the generator's randint(0, K) needs K >= 2
  for (Shape s : {Shape{1, 2, 2}, {2, 300, 256}, {3, 4097, 513}, {32, 65536, 1024}, {2, 1000, 3000}}) {
    Problem p;
    uint64_t seed = uint64_t(s.B + s.N + s.K);
    if (!make(p, {{"B", s.B}, {"N", s.N}, {"K", s.K}},
              {spec("x", oracle::DType::BF16, {"B", "N", "128"}, "normal(0,1)"),
               spec("ids", oracle::DType::I32, {"B", "N"}, "randint(0,K)"),
               spec("c_old", oracle::DType::BF16, {"B", "K", "128"}, "normal(0,1)"),
               spec("c_new", oracle::DType::BF16, {"B", "K", "128"}, "", oracle::Role::Output)},
              seed))
      return;
    REQUIRE_CAKE(cake_kmeans_update(p.ptr("x"), static_cast<int32_t *>(p.ptr("ids")), p.ptr("c_old"),
                                    p.ptr("c_new"), s.B, s.N, s.K, D, CAKE_KMEANS_BF16, nullptr));
    if (!p.fetch("c_new"))
      return;
    check("kmeans.update", p.host, seed, "update " + shapeName(s.B, s.N, s.K));
  }
}

/// Sum over the sampled rows of min_k ||x - c_k||^2 (fp64).
double objective(const oracle::HostTensor &x, const oracle::HostTensor &c, int64_t B, int64_t N, int64_t K) {
  std::vector<double> xr(D), cr(size_t(K * D));
  double total = 0;
  for (int64_t b = 0; b < B; ++b) {
    oracle::decodeRange(c, b * K * D, K * D, cr.data());
    for (int64_t n = 0; n < N; n += std::max<int64_t>(1, N / 1024)) {
      oracle::decodeRange(x, (b * N + n) * D, D, xr.data());
      double best = std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < K; ++k) {
        double d = 0;
        for (int64_t i = 0; i < D; ++i)
          d += (xr[size_t(i)] - cr[size_t(k * D + i)]) * (xr[size_t(i)] - cr[size_t(k * D + i)]);
        best = std::min(best, d);
      }
      total += best;
    }
  }
  return total;
}

void fitConverges() {
  if (!cake_kmeans_has_update()) {
    std::printf("  skipped: %s\n", cake_kmeans_build_info());
    return;
  }
  struct Shape {
    int64_t B, N, K;
  };
  for (Shape s : {Shape{2, 5000, 100}, {1, 20000, 256}, {4, 3000, 1}}) {
    Problem p;
    uint64_t seed = uint64_t(s.N + s.K);
    if (!make(p, {{"B", s.B}, {"N", s.N}, {"K", s.K}},
              {spec("x", oracle::DType::BF16, {"B", "N", "128"}, "normal(0,1)"),
               spec("c", oracle::DType::BF16, {"B", "K", "128"}, "", oracle::Role::Output),
               spec("ids", oracle::DType::I32, {"B", "N"}, "", oracle::Role::Output)},
              seed))
      return;
    // initial centroids: the first K points of each batch
    oracle::HostTensor &x = p.host.at("x"), &c = p.host.at("c");
    for (int64_t b = 0; b < s.B; ++b)
      std::memcpy(c.bytes.data() + size_t(b * s.K * D * 2), x.bytes.data() + size_t(b * s.N * D * 2),
                  size_t(s.K * D * 2));
    REQUIRE_OK(gpu->copyToDevice(p.dev.at("c"), c.bytes.data(), c.byteSize()));
    double before = objective(x, c, s.B, s.N, s.K);
    int iters = -1;
    const int maxIters = 300;
    REQUIRE_CAKE(cake_kmeans_fit(p.ptr("x"), p.ptr("c"), static_cast<int32_t *>(p.ptr("ids")), s.B, s.N, s.K, D,
                                 CAKE_KMEANS_BF16, maxIters, 0.0f, &iters, nullptr));
    if (!p.fetch("c") || !p.fetch("ids"))
      return;
    double after = objective(x, c, s.B, s.N, s.K);
    std::printf("  fit %s: %d iterations, objective %.6g -> %.6g (sampled rows)\n", shapeName(s.B, s.N, s.K).c_str(),
                iters, before, after);
    EXPECT(iters >= 1 && iters <= maxIters);
    EXPECT(after <= before * (1 + 1e-3));
    if (s.K == 1)
      EXPECT(iters <= 2); // one cluster: its mean after the first update, then nothing moves
    // the returned ids are an assignment to the returned centroids
    check("kmeans.assign", p.host, seed, "fit's ids against its centroids");
    // converged (tol = 0: no centroid moved): the centroids are the means of their clusters
    if (iters < maxIters) {
      oracle::TensorMap fixed;
      fixed["x"] = x;
      fixed["ids"] = p.host.at("ids");
      fixed["c_old"] = c;
      fixed["c_new"] = c;
      fixed["c_new"].name = "c_new";
      check("kmeans.update", fixed, seed, "fit's centroids are the means of their clusters");
    } else {
      std::printf("  (not converged within %d iterations: the fixed-point check is skipped)\n", maxIters);
    }
  }
}

/// Small shapes of every operation, for compute-sanitizer (tests/gpu/kmeans_lib.sh).
void smallForSanitizers() {
  Problem p;
  if (!make(p, {{"B", 2}, {"N", 300}, {"K", 200}},
            {spec("x", oracle::DType::BF16, {"B", "N", "128"}, "normal(0,1)"),
             spec("c", oracle::DType::BF16, {"B", "K", "128"}, "normal(0,1)"),
             spec("ids", oracle::DType::I32, {"B", "N"}, "", oracle::Role::Output),
             spec("c_new", oracle::DType::BF16, {"B", "K", "128"}, "", oracle::Role::Output)},
            9))
    return;
  auto *ids = static_cast<int32_t *>(p.ptr("ids"));
  REQUIRE_CAKE(cake_kmeans_assign(p.ptr("x"), p.ptr("c"), ids, 2, 300, 200, D, CAKE_KMEANS_BF16, nullptr));
  if (!p.fetch("ids"))
    return;
  check("kmeans.assign", p.host, 9, "assign B=2 N=300 K=200");
  if (!cake_kmeans_has_update())
    return;
  REQUIRE_CAKE(cake_kmeans_update(p.ptr("x"), ids, p.ptr("c"), p.ptr("c_new"), 2, 300, 200, D, CAKE_KMEANS_BF16,
                                  nullptr));
  int iters = 0;
  REQUIRE_CAKE(cake_kmeans_fit(p.ptr("x"), p.ptr("c"), ids, 2, 300, 200, D, CAKE_KMEANS_BF16, 3, 0.0f, &iters,
                               nullptr));
  std::printf("  update and fit (%d iterations) B=2 N=300 K=200: ran\n", iters);
}

const Test kTests[] = {
    {"AssignAgainstTheOracle", assignAgainstTheOracle},
    {"AssignWithDistance", assignWithDistance},
    {"ErrorsOnTheGpu", errorsOnTheGpu},
    {"RepeatedCallsTimed", repeatedCallsTimed},
    {"UpdateAgainstTheOracle", updateAgainstTheOracle},
    {"FitConverges", fitConverges},
    {"SmallForSanitizers", smallForSanitizers},
};

} // namespace

int main(int argc, char **argv) {
  auto made = makeRunner();
  if (!made) {
    std::printf("cake_kmeans_gpu_tests: skipped: %s\n", describeNoGpu(made.error()).c_str());
    return made.error().noGpu() ? 77 : 1;
  }
  gpu = made->get();
  const DeviceInfo &d = gpu->device();
  std::printf("device: %s, compute capability %d.%d, %d SMs; %s\n", d.name.c_str(), d.major, d.minor, d.smCount,
              cake_kmeans_build_info());
  // 8.x: the Ampere assignment only (update and fit are sm_90a); others: refused, clearly
  const bool ampere = d.major == 8;
  if (!ampere && (d.major != 9 || d.minor != 0)) {
    auto x = gpu->alloc(1 << 20);
    if (!x)
      return 1;
    void *p = reinterpret_cast<void *>(uintptr_t(*x));
    int s = cake_kmeans_assign(p, static_cast<char *>(p) + 65536, reinterpret_cast<int32_t *>(static_cast<char *>(p) + 131072),
                               1, 16, 16, D, CAKE_KMEANS_BF16, nullptr);
    std::printf("cake_kmeans_gpu_tests: skipped (the kernels are built for sm_90a and sm_80); on this GPU assign "
                "answers %s: %s\n",
                cake_kmeans_status_name(s), cake_kmeans_last_error());
    return s == CAKE_KMEANS_UNSUPPORTED ? 77 : 1;
  }
  // 8.x: the assignment tests only
  return runTests(kTests, argc, argv, ampere ? +[](const Test &t) {
    return std::string_view(t.name).find("Assign") == std::string_view::npos;
  } : nullptr);
}
