//===- GpuTests.cpp - The runner on a real GPU ----------------------------===//
//
// Part of CAKE. Launches on a GPU: vector add with timing, parameter and
// launch checks, dynamic shared memory over 48 KiB, clusters, tensor-map
// encoding (2D to 5D, bf16/f16/f32, every swizzle) and a tensor map passed
// as a __grid_constant__ parameter (no TMA instruction), a TMA tile load
// with and without 128B swizzle, and the launch timeout (last: it wedges the
// runner). Exits 77 (ctest's SKIP_RETURN_CODE) when makeRunner reports no GPU.
//
// A small harness (GpuHarness.h) rather than GoogleTest, so that it builds on a
// GPU machine with nothing but a C++ compiler and the CUDA toolkit:
//
//   g++ -std=c++20 -O2 -I. -I/usr/local/cuda/include -DCAKE_HAVE_NVRTC=1
//       tests/gpu/GpuTests.cpp compiler/runner/*.cpp compiler/target/Target.cpp
//       diagnostics/*.cpp -L/usr/local/cuda/lib64 -lnvrtc -ldl -o gpu_tests
//
// (NoCuda.cpp excluded.) Run one test with `cake_gpu_tests NAME`.
//
//===----------------------------------------------------------------------===//
#include "compiler/runner/Build.h"
#include "tests/gpu/GpuHarness.h"
#include "compiler/runner/Runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace cake;
using namespace cake::runner;
using namespace cake::gputest;

namespace {



Runner *gpu = nullptr;

/// Builds \p source with NVRTC for the GPU's target and loads it.
ModuleId build(const std::string &source, const std::string &name = "test.cu") {
  SourceManager sm;
  FileId f = sm.addBuffer(name, source);
  BuildOptions o;
  o.target = *parseTarget(gpu->device().cakeTarget());
  BuildResult r = buildWithNvrtc(sm, f, o);
  if (!r.success) {
    std::cerr << currentTest << ": NVRTC failed:\n" << r.log << "\n";
    ++failures;
    return {};
  }
  auto m = gpu->loadModule(r.cubin);
  if (!m) {
    std::cerr << currentTest << ": " << m.error().message << "\n";
    ++failures;
    return {};
  }
  return *m;
}

// ---------------------------------------------------------------------------

const char *kVadd = R"(
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

void vectorAddWithTiming() {
  ModuleId m = build(kVadd);
  if (!m.value)
    return;
  const int n = 1 << 22;
  std::vector<float> a(n), b(n), c(n, -1);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = 0.5f * float(i % 1000);
  }
  auto da = gpu->alloc(n * 4), db = gpu->alloc(n * 4), dc = gpu->alloc(n * 4);
  REQUIRE_OK(da);
  REQUIRE_OK(db);
  REQUIRE_OK(dc);
  REQUIRE_OK(gpu->copyToDevice(*da, a.data(), n * 4));
  REQUIRE_OK(gpu->copyToDevice(*db, b.data(), n * 4));
  KernelParams p;
  p.add(*da).add(*db).add(*dc).add(int32_t(n));
  LaunchConfig cfg;
  cfg.grid.x = (n + 255) / 256;
  cfg.block.x = 256;
  REQUIRE_OK(gpu->launch(m, "vadd", cfg, p));
  REQUIRE_OK(gpu->synchronize(5));
  REQUIRE_OK(gpu->copyToHost(c.data(), *dc, n * 4));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += c[i] != a[i] + b[i];
  EXPECT(wrong == 0);

  auto attrs = gpu->kernelAttributes(m, "vadd");
  REQUIRE_OK(attrs);
  EXPECT(attrs->registers > 0);
  if (!attrs->paramSizes.empty())
    EXPECT((attrs->paramSizes == std::vector<size_t>{8, 8, 8, 4}));

  TimingOptions warm;
  warm.warmup = 3;
  warm.repetitions = 50; // more than one chunk of 32
  int progressed = 0;
  warm.progress = [&](int done) { progressed = done; };
  auto t = gpu->time(m, "vadd", cfg, p, warm);
  REQUIRE_OK(t);
  EXPECT(t->samplesMs.size() == 50);
  EXPECT(progressed == 53);
  EXPECT(t->medianMs > 0 && t->minMs <= t->medianMs && t->medianMs <= t->maxMs);
  TimingOptions cold = warm;
  cold.coldL2 = true;
  cold.repetitions = 20;
  auto tc = gpu->time(m, "vadd", cfg, p, cold);
  REQUIRE_OK(tc);
  EXPECT(tc->coldL2);
  // 48 MiB moved per launch: at most a few TB/s, so tens of microseconds at least.
  double gbs = 3.0 * n * 4 / (t->medianMs * 1e-3) / 1e9;
  std::printf("  vadd %d floats: warm median %.4f ms (spread %.1f%%, %.0f GB/s), cold median %.4f ms\n", n, t->medianMs,
              t->spreadPercent, gbs, tc->medianMs);
  EXPECT(gbs < 10000);
  for (DevicePtr ptr : {*da, *db, *dc})
    REQUIRE_OK(gpu->free(ptr));
}

void launchChecks() {
  ModuleId m = build(kVadd);
  if (!m.value)
    return;
  LaunchConfig cfg;
  auto attrs = gpu->kernelAttributes(m, "vadd");
  REQUIRE_OK(attrs);
  // Without cuFuncGetParamInfo the driver cannot say what the kernel takes, and
  // a short list would be read past its end: only checked where it can say.
  if (!attrs->paramSizes.empty()) {
    KernelParams three;
    three.add(DevicePtr(0)).add(DevicePtr(0)).add(DevicePtr(0));
    auto s = gpu->launch(m, "vadd", cfg, three);
    EXPECT(!s && s.error().kind == Error::InvalidArgument);
    EXPECT(!s && s.error().message.find("takes 4 parameters") != std::string::npos);
  } else {
    std::printf("  (the driver has no cuFuncGetParamInfo: parameter check not tested)\n");
  }
  KernelParams four;
  four.add(DevicePtr(0)).add(DevicePtr(0)).add(DevicePtr(0)).add(int32_t(0));
  auto missing = gpu->launch(m, "nope", cfg, four);
  EXPECT(!missing && missing.error().message.find("no kernel named 'nope'") != std::string::npos);
  cfg.block.x = 2048;
  auto big = gpu->launch(m, "vadd", cfg, four);
  EXPECT(!big && big.error().kind == Error::InvalidArgument);
  cfg.block.x = 128;
  cfg.dynamicShared = gpu->device().sharedPerBlockOptin + 1;
  auto smem = gpu->launch(m, "vadd", cfg, four);
  EXPECT(!smem && smem.error().kind == Error::InvalidArgument);
  REQUIRE_OK(gpu->synchronize(5));
}

void dynamicSharedOverDefault() {
  ModuleId m = build(R"(
extern "C" __global__ void smem(int *out, int words) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) buf[i] = i * 3;
  __syncthreads();
  int sum = 0;
  for (int i = threadIdx.x; i < words; i += blockDim.x) sum += buf[words - 1 - i] == (words - 1 - i) * 3;
  atomicAdd(out, sum);
}
)");
  if (!m.value)
    return;
  // 200 KiB (needs the opt-in over 48 KiB), or all an sm_80 part allows.
  const int words = int(std::min<uint32_t>(200 * 1024, gpu->device().sharedPerBlockOptin) / 4);
  auto out = gpu->alloc(4);
  REQUIRE_OK(out);
  REQUIRE_OK(gpu->fill(*out, 0, 4));
  KernelParams p;
  p.add(*out).add(int32_t(words));
  LaunchConfig cfg;
  cfg.block.x = 256;
  cfg.dynamicShared = words * 4;
  REQUIRE_OK(gpu->launch(m, "smem", cfg, p));
  int got = 0;
  REQUIRE_OK(gpu->copyToHost(&got, *out, 4));
  EXPECT(got == words);
  REQUIRE_OK(gpu->free(*out));
}

void clusterLaunch() {
  if (!gpu->device().clusters) {
    std::printf("  (no clusters on this GPU)\n");
    return;
  }
  ModuleId m = build(R"(
extern "C" __global__ void cluster(unsigned *out) {
  unsigned rank, size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = rank; out[2 * blockIdx.x + 1] = size; }
}
)");
  if (!m.value)
    return;
  auto out = gpu->alloc(16 * 8);
  REQUIRE_OK(out);
  KernelParams p;
  p.add(*out);
  LaunchConfig cfg;
  cfg.grid.x = 16;
  cfg.block.x = 32;
  cfg.cluster.x = 4;
  REQUIRE_OK(gpu->launch(m, "cluster", cfg, p));
  std::vector<unsigned> got(32);
  REQUIRE_OK(gpu->copyToHost(got.data(), *out, 16 * 8));
  for (int b = 0; b < 16; ++b) {
    EXPECT(got[2 * b] == unsigned(b % 4));
    EXPECT(got[2 * b + 1] == 4u);
  }
  cfg.grid.x = 15; // not a multiple of the cluster
  auto bad = gpu->launch(m, "cluster", cfg, p);
  EXPECT(!bad && bad.error().message.find("not a multiple of the cluster") != std::string::npos);
  REQUIRE_OK(gpu->free(*out));
}

// ---------------------------------------------------------------------------
// Tensor maps

bool hasTma() { return gpu->device().major >= 9; }

void tensorMapEncodeMatrix() {
  if (!hasTma()) {
    std::printf("  (no TMA on this GPU)\n");
    return;
  }
  auto buf = gpu->alloc(64 << 20);
  REQUIRE_OK(buf);
  int encoded = 0;
  for (TensorDType t : {TensorDType::BF16, TensorDType::F16, TensorDType::F32})
    for (Swizzle s : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
      for (uint32_t rank = 2; rank <= 5; ++rank) {
        TensorMapDesc d;
        d.dtype = t;
        d.rank = rank;
        d.address = *buf;
        d.swizzle = s;
        uint32_t span = s == Swizzle::B32 ? 32 : s == Swizzle::B64 ? 64 : 128;
        for (uint32_t i = 0; i < rank; ++i) {
          d.dims[i] = i == 0 ? 256 : 16;
          d.box[i] = i == 0 ? span / uint32_t(dtypeBytes(t)) : 4; // at most 64 KiB: a box lands in shared memory
        }
        d.setPackedStrides();
        auto map = gpu->encodeTensorMap(d);
        if (!map) {
          std::cerr << currentTest << ": " << dtypeName(t) << " " << swizzleName(s) << " rank " << rank << ": "
                    << map.error().message << "\n";
          ++failures;
          continue;
        }
        bool nonzero = false;
        for (uint64_t w : map->words)
          nonzero |= w != 0;
        EXPECT(nonzero);
        ++encoded;
      }
  EXPECT(encoded == 3 * 4 * 4);
  // Rejected before the driver sees it.
  TensorMapDesc bad;
  bad.dtype = TensorDType::BF16;
  bad.rank = 2;
  bad.address = *buf;
  bad.dims[0] = bad.dims[1] = 256;
  bad.setPackedStrides();
  bad.box[0] = 128; // 256 bytes > 128B swizzle span
  bad.box[1] = 8;
  auto rejected = gpu->encodeTensorMap(bad);
  EXPECT(!rejected && rejected.error().kind == Error::InvalidArgument);
  REQUIRE_OK(gpu->free(*buf));
}

// The device side of a tensor map: 128 opaque bytes, as CUDA 13's CUtensorMap
// (<cuda.h> cannot be included under NVRTC).
const char *kMapType = "struct alignas(64) Map { unsigned long long w[16]; };\n";

void tensorMapAsGridConstant() {
  if (!hasTma())
    return;
  ModuleId m = build(std::string(kMapType) + R"(
extern "C" __global__ void echo(const __grid_constant__ Map map, unsigned long long *out) {
  if (threadIdx.x < 16) out[threadIdx.x] = map.w[threadIdx.x];
}
)");
  if (!m.value)
    return;
  auto buf = gpu->alloc(1 << 20), out = gpu->alloc(128);
  REQUIRE_OK(buf);
  REQUIRE_OK(out);
  TensorMapDesc d;
  d.dtype = TensorDType::BF16;
  d.rank = 2;
  d.address = *buf;
  d.dims[0] = d.dims[1] = 512;
  d.setPackedStrides();
  d.box[0] = 64;
  d.box[1] = 64;
  auto map = gpu->encodeTensorMap(d);
  REQUIRE_OK(map);
  KernelParams p;
  p.add(*map).add(*out);
  LaunchConfig cfg;
  cfg.block.x = 32;
  REQUIRE_OK(gpu->launch(m, "echo", cfg, p));
  uint64_t got[16] = {};
  REQUIRE_OK(gpu->copyToHost(got, *out, 128));
  EXPECT(std::memcmp(got, map->words, 128) == 0);
  REQUIRE_OK(gpu->free(*buf));
  REQUIRE_OK(gpu->free(*out));
}

const char *kTmaLoad = R"(
extern "C" __global__ void tmaLoad(const __grid_constant__ Map map, unsigned short *out, int x, int y) {
  __shared__ __align__(1024) unsigned short tile[64 * 64];
  __shared__ __align__(8) unsigned long long bar;
  unsigned barAddr = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned tileAddr = (unsigned)__cvta_generic_to_shared(tile);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(barAddr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(barAddr), "r"(64 * 64 * 2)
                 : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(tileAddr), "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(barAddr)
                 : "memory");
  }
  unsigned done = 0;
  while (!done)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(barAddr), "r"(0) : "memory");
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) out[i] = tile[i];
}
)";

void tmaTileLoad() {
  if (!hasTma())
    return;
  ModuleId m = build(std::string(kMapType) + kTmaLoad);
  if (!m.value)
    return;
  const int rows = 256, cols = 256;
  std::vector<uint16_t> src(rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      src[r * cols + c] = uint16_t(r * 251 + c);
  auto buf = gpu->alloc(src.size() * 2), out = gpu->alloc(64 * 64 * 2);
  REQUIRE_OK(buf);
  REQUIRE_OK(out);
  REQUIRE_OK(gpu->copyToDevice(*buf, src.data(), src.size() * 2));
  const int x = 64, y = 128; // column, row of the tile's corner
  for (Swizzle s : {Swizzle::None, Swizzle::B128}) {
    TensorMapDesc d;
    d.dtype = TensorDType::BF16;
    d.rank = 2;
    d.address = *buf;
    d.dims[0] = cols;
    d.dims[1] = rows;
    d.setPackedStrides();
    d.box[0] = 64; // 128 bytes: the whole 128B swizzle span
    d.box[1] = 64;
    d.swizzle = s;
    auto map = gpu->encodeTensorMap(d);
    REQUIRE_OK(map);
    REQUIRE_OK(gpu->fill(*out, 0, 64 * 64 * 2));
    KernelParams p;
    p.add(*map).add(*out).add(int32_t(x)).add(int32_t(y));
    LaunchConfig cfg;
    cfg.block.x = 128;
    REQUIRE_OK(gpu->launch(m, "tmaLoad", cfg, p));
    std::vector<uint16_t> got(64 * 64);
    REQUIRE_OK(gpu->copyToHost(got.data(), *out, got.size() * 2));
    int wrong = 0;
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c) {
        // 128B swizzle: the 16-byte chunk c/8 of row r sits at chunk (c/8) ^ (r % 8).
        int col = s == Swizzle::None ? c : (((c / 8) ^ (r % 8)) * 8 + c % 8);
        wrong += got[r * 64 + col] != src[(y + r) * cols + x + c];
      }
    if (wrong)
      std::cerr << currentTest << ": swizzle " << swizzleName(s) << ": " << wrong << " of 4096 elements wrong\n";
    EXPECT(wrong == 0);
  }
  REQUIRE_OK(gpu->free(*buf));
  REQUIRE_OK(gpu->free(*out));
}

// ---------------------------------------------------------------------------

/// Last: a kernel that runs for 3 s against a 0.3 s timeout. The runner
/// reports Timeout and is wedged afterwards; the kernel then ends by itself.
void launchTimeout() {
  ModuleId m = build(R"(
extern "C" __global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}
)");
  if (!m.value)
    return;
  KernelParams p;
  p.add(uint64_t(3000000000ull));
  LaunchConfig cfg;
  REQUIRE_OK(gpu->launch(m, "spin", cfg, p));
  auto s = gpu->synchronize(0.3);
  EXPECT(!s && s.error().kind == Error::Timeout);
  auto after = gpu->alloc(16);
  EXPECT(!after && after.error().kind == Error::Wedged);
  if (!s)
    std::printf("  timeout reported: %s\n", s.error().message.c_str());
  if (!after)
    std::printf("  afterwards: %s\n", after.error().message.c_str());
}

const Test kTests[] = {
    {"VectorAddWithTiming", vectorAddWithTiming},
    {"LaunchChecks", launchChecks},
    {"DynamicSharedOverDefault", dynamicSharedOverDefault},
    {"ClusterLaunch", clusterLaunch},
    {"TensorMapEncodeMatrix", tensorMapEncodeMatrix},
    {"TensorMapAsGridConstant", tensorMapAsGridConstant},
    {"TmaTileLoad", tmaTileLoad},
    {"LaunchTimeout", launchTimeout}, // wedges the runner: keep it last
};

} // namespace

int main(int argc, char **argv) {
  auto made = makeRunner();
  if (!made) {
    std::printf("cake_gpu_tests: skipped: %s\n", describeNoGpu(made.error()).c_str());
    return made.error().noGpu() ? 77 : 1;
  }
  gpu = made->get();
  const DeviceInfo &d = gpu->device();
  std::printf("device: %s, compute capability %d.%d, %d SMs, L2 %u MiB, driver %d, %s\n", d.name.c_str(), d.major,
              d.minor, d.smCount, d.l2Bytes >> 20, d.driverVersion, nvrtcVersion().c_str());
  if (d.cakeTarget().empty()) {
    std::printf("cake_gpu_tests: skipped: CAKE has no target for compute capability %d.%d\n", d.major, d.minor);
    return 77;
  }
  int status = runTests(kTests, argc, argv);
  // After LaunchTimeout the runner is wedged: leave without touching the GPU.
  std::_Exit(status);
}
