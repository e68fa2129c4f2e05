//===- TaskTest.cpp - `cake task`: expressions, candidates, the scorer's defences ===//
//
// The scorer (compiler/task/Score.h) runs here on a simulated GPU: a Runner
// whose memory is host memory and whose kernels are C++ functions. Each
// hack a published harness fell for is one such kernel, and each must be
// rejected with its reason named; the honest kernel must be accepted and
// timed against the baseline, interleaved. The same hacks run as real CUDA
// kernels on the device in tests/gpu/task_hacks.sh.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Tensor.h"
#include "compiler/task/Contender.h"
#include "compiler/task/CudaCandidate.h"
#include "compiler/task/Expr.h"
#include "compiler/task/Score.h"
#include "compiler/task/Task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

using namespace cake;
using namespace cake::task;

namespace {

//===-- Expressions -------------------------------------------------------===//

TEST(TaskExpr, EvaluatesOverSizes) {
  Sizes s{{"M", 1000}, {"N", 64}, {"K", 8}};
  EXPECT_EQ(*evalExpr("2*M*N*K", s), 2 * 1000 * 64 * 8);
  EXPECT_EQ(*evalExpr("cdiv(M, 128)", s), 8);
  EXPECT_EQ(*evalExpr("cdiv(M,128)*128 - M", s), 24);
  EXPECT_EQ(*evalExpr("min(M, N) + max(K, 3) % 5", s), 67);
  EXPECT_EQ(*evalExpr("-7 / 2", s), -4); // rounds down
  EXPECT_EQ(*evalExpr("(M + N) * 2", s), 2128);
}

TEST(TaskExpr, ErrorsSayWhere) {
  Sizes s{{"M", 4}};
  auto unknown = evalExpr("cdiv(Q, 2)", s);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("'Q' is not a size"), std::string::npos);
  EXPECT_FALSE(evalExpr("M / 0", s));
  EXPECT_FALSE(evalExpr("9223372036854775807 * 2", s));
  EXPECT_FALSE(evalExpr("(0 - 9223372036854775807 - 1) / (0 - 1)", s)); // INT64_MIN / -1: overflow, not SIGFPE
  EXPECT_FALSE(evalExpr("(0 - 9223372036854775807 - 1) % (0 - 1)", s));
  EXPECT_FALSE(evalExpr("M +", s));
  EXPECT_FALSE(evalExpr("frob(M, 2)", s));
  EXPECT_FALSE(evalExpr("1.5", s));
  EXPECT_FALSE(evalExpr(std::string(200, '(') + "1" + std::string(200, ')'), s)); // bounded nesting
  auto names = exprNames("cdiv(M, BN) * K");
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, (std::vector<std::string>{"M", "BN", "K"}));
}

//===-- The test task ------------------------------------------------------===//

Task gemmTask() {
  Task t;
  t.name = "gemm-sim";
  t.workload.oracle = "gemm";
  t.workload.check = oracle::findOracle("gemm")->defaults;
  t.workload.check.maxSamples = 0;
  auto tensor = [](std::string name, std::vector<std::string> shape, oracle::Role role) {
    oracle::TensorSpec s;
    s.name = std::move(name), s.dtype = oracle::DType::BF16, s.shape = std::move(shape), s.role = role;
    return s;
  };
  t.workload.tensors = {tensor("A", {"M", "K"}, oracle::Role::Input), tensor("B", {"N", "K"}, oracle::Role::Input),
                        tensor("C", {"M", "N"}, oracle::Role::Output)};
  t.params = {"A", "B", "C", "M", "N", "K"};
  t.flops = "2*M*N*K";
  t.publicShapes = {{{"M", 48}, {"N", 40}, {"K", 32}}};
  t.domain = {{"M", {{}, 16, 64, 1}}, {"N", {{}, 16, 64, 8}}, {"K", {{}, 16, 64, 8}}};
  t.heldoutCount = 2;
  t.adversarial = {{"large", {{"A", "uniform(-100000,100000)"}, {"B", "uniform(-100000,100000)"}}}};
  t.baseline = "baseline.cu";
  t.launchTimeoutSeconds = 1;
  t.timing = {2, 1, 3, false};
  return t;
}

TEST(TaskSpec, ValidateNamesTheField) {
  Task t = gemmTask();
  EXPECT_TRUE(validate(t));
  Task noParam = t;
  noParam.params = {"A", "B", "M", "N", "K"};
  auto s = validate(noParam);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("\"params\": tensor 'C'"), std::string::npos);
  Task badShape = t;
  badShape.publicShapes = {{{"M", 4}, {"N", 4}}};
  EXPECT_NE(validate(badShape).error().message.find("does not give size 'K'"), std::string::npos);
  Task badAdv = t;
  badAdv.adversarial = {{"x", {{"C", "uniform(0,1)"}}}};
  EXPECT_NE(validate(badAdv).error().message.find("not an input tensor"), std::string::npos);
  Task badFlops = t;
  badFlops.flops = "2*M*Q";
  EXPECT_NE(validate(badFlops).error().message.find("\"flops\""), std::string::npos);
  Task endless = t; // a task file cannot keep a GPU busy without end
  endless.timing.reps = 1000000;
  EXPECT_NE(validate(endless).error().message.find("\"timing\""), std::string::npos);
  Task manyShapes = t;
  manyShapes.heldoutCount = 100000;
  EXPECT_NE(validate(manyShapes).error().message.find("\"heldout\""), std::string::npos);
  Task noDomain = t;
  noDomain.domain.erase("K");
  EXPECT_NE(validate(noDomain).error().message.find("size 'K' has no domain"), std::string::npos);
}

TEST(TaskSpec, HeldoutShapesAreDrawnFromTheDomainBySeed) {
  Task t = gemmTask();
  auto a = drawHeldout(t, 5, 42), b = drawHeldout(t, 5, 42), c = drawHeldout(t, 5, 43);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
  for (const Sizes &s : *a) {
    EXPECT_NE(s, t.publicShapes[0]);
    EXPECT_GE(s.at("M"), 16);
    EXPECT_LE(s.at("M"), 64);
    EXPECT_EQ(s.at("N") % 8, 0);
    EXPECT_EQ(s.at("K") % 8, 0);
  }
  t.maxBytes = 1; // nothing fits: an error, not a hang
  EXPECT_FALSE(drawHeldout(t, 1, 1));
}

//===-- .cu candidates: the launch line and host code -----------------------===//

TEST(TaskCuda, ReadsTheLaunchLine) {
  Task t = gemmTask();
  SourceManager sm;
  FileId f = sm.addBuffer("k.cu", "// cake-task: kernel=gemm grid=cdiv(N, 64),cdiv(M,64) block=256 smem=4*K "
                                  "derive.MP=cdiv(M,64)*64\n__global__ void gemm() {}\n");
  auto line = readLaunchLine(sm, f, t);
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->kernel, "gemm");
  auto sizes = deriveSizes(*line, {{"M", 100}, {"N", 130}, {"K", 8}});
  ASSERT_TRUE(sizes);
  EXPECT_EQ(sizes->at("MP"), 128);
  auto dims = evalLaunch(*line, *sizes);
  ASSERT_TRUE(dims);
  EXPECT_EQ(dims->grid, (std::array<uint32_t, 3>{3, 2, 1}));
  EXPECT_EQ(dims->block[0], 256u);
  EXPECT_EQ(dims->smem, 32u);
}

TEST(TaskCuda, LaunchLineErrorsAreLocated) {
  Task t = gemmTask();
  auto errors = [&](const std::string &text) {
    SourceManager sm;
    FileId f = sm.addBuffer("k.cu", text);
    auto line = readLaunchLine(sm, f, t);
    EXPECT_FALSE(line) << text;
    return line ? std::vector<Diagnostic>{} : line.error().diagnostics;
  };
  auto none = errors("__global__ void k() {}\n");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].code, "task.launch");
  EXPECT_NE(none[0].message.find("no launch line"), std::string::npos);
  auto unknown = errors("// cake-task: kernel=k grid=cdiv(Q,2) block=32\n");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_NE(unknown[0].message.find("'Q' is not a size"), std::string::npos);
  EXPECT_EQ(unknown[0].range.begin, 23u); // the grid field
  auto missing = errors("// cake-task: kernel=k grid=1\n");
  EXPECT_NE(missing.at(0).message.find("'block'"), std::string::npos);
  auto twice = errors("// cake-task: kernel=k grid=1 block=1\n// cake-task: kernel=k grid=1 block=1\n");
  EXPECT_NE(twice.at(0).message.find("second"), std::string::npos);
  auto open = errors("// cake-task: kernel=k block=1 grid=cdiv(N,64),cdiv(M,64\n");
  EXPECT_NE(open.at(0).message.find("unbalanced parentheses"), std::string::npos);
  auto field = errors("// cake-task: kernel=k grid=1 block=1 stream=2\n");
  EXPECT_NE(field.at(0).message.find("unknown launch field 'stream'"), std::string::npos);
  // a block of 0 threads at some sizes is an error of that launch, not a crash
  SourceManager sm;
  FileId f = sm.addBuffer("k.cu", "// cake-task: kernel=k grid=1 block=M-48\n");
  auto line = readLaunchLine(sm, f, t);
  ASSERT_TRUE(line);
  EXPECT_FALSE(evalLaunch(*line, {{"M", 48}, {"N", 1}, {"K", 1}}));
}

TEST(TaskCuda, HostCodeIsRefusedWhereItIs) {
  SourceManager sm;
  FileId f = sm.addBuffer("hack.cu", R"(// cudaStreamCreate in a comment is fine
#include <cuda_runtime.h>
const char *s = "cudaMalloc";
__global__ void k(float *x) { cudaGridDependencySynchronize(); x[0] = 1; }
void launch(float *x) {
  cudaStream_t side;
  cudaStreamCreate(&side);
  k<<<1, 1, 0, side>>>(x);
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = 0.001f; return cudaSuccess; }
int main() { cuLaunchKernel(0); }
#define LAUNCH cudaLaunchDevice
int n = 1'000; void g() { cudaMalloc(0, 0); }
)");
  std::vector<Diagnostic> found = hostCodeFindings(sm, f);
  std::vector<std::string> what;
  for (const Diagnostic &d : found) {
    EXPECT_EQ(d.code, "task.host-code");
    what.push_back(std::string(sm.text(f).substr(d.range.begin, d.range.end - d.range.begin)));
  }
  EXPECT_EQ(what, (std::vector<std::string>{"cudaStream_t", "cudaStreamCreate", "<<<", "cudaError_t",
                                            "cudaEventElapsedTime", "cudaEvent_t", "cudaEvent_t", "cudaSuccess",
                                            "main", "cuLaunchKernel", "cudaLaunchDevice", "cudaMalloc"}));
  SourceManager clean;
  FileId g = clean.addBuffer("ok.cu", "#include <cuda_bf16.h>\n__device__ float f(cuda::std::size_t n);\n"
                                      "__global__ void k(CUtensorMap m, float *cute) { cute[0] = 1; }\n");
  EXPECT_TRUE(hostCodeFindings(clean, g).empty());
}

//===-- A simulated GPU --------------------------------------------------------===//

/// Host memory as device memory; kernels are functions over the packed
/// parameters. Times are fixed per kernel so that speedups are known.
class SimRunner : public runner::Runner {
public:
  using Kernel = std::function<void(SimRunner &, std::vector<void *> &)>;
  std::map<std::string, Kernel> kernels;
  std::map<std::string, double> ms;  ///< the time a launch of the kernel takes
  std::vector<std::string> timed;    ///< the kernels of the timings of 3 or more launches, in order
  int launches = 0;
  double launchMs = -1; ///< a kernel may say how long its launch took (else ms[kernel])

  SimRunner() {
    info_.name = "simulated GPU";
    info_.major = 9;
    info_.smCount = 4;
  }
  ~SimRunner() override {
    for (auto &[p, bytes] : memory_)
      std::free(reinterpret_cast<void *>(p));
  }

  template <class T> static T arg(std::vector<void *> &p, size_t i) {
    T v;
    std::memcpy(&v, p[i], sizeof(T));
    return v;
  }

  const runner::DeviceInfo &device() const override { return info_; }
  Expected<runner::ModuleId> loadModule(std::string_view) override { return runner::ModuleId{1}; }
  Status unloadModule(runner::ModuleId) override { return Ok{}; }
  Expected<runner::KernelAttributes> kernelAttributes(runner::ModuleId, std::string_view) override {
    return runner::KernelAttributes{};
  }
  Status launch(runner::ModuleId, std::string_view kernel, const runner::LaunchConfig &,
                runner::KernelParams &params) override {
    auto it = kernels.find(std::string(kernel));
    if (it == kernels.end())
      return Error(Error::Driver, "no kernel " + std::string(kernel));
    if (kernel == "hang")
      return Error(Error::Timeout, "kernel 'hang' did not finish within 1 s");
    ++launches;
    std::vector<void *> p = params.pointers();
    it->second(*this, p);
    return Ok{};
  }
  Status synchronize(double) override { return Ok{}; }
  Expected<runner::Timing> time(runner::ModuleId m, std::string_view kernel, const runner::LaunchConfig &config,
                                runner::KernelParams &params, const runner::TimingOptions &options) override {
    if (options.repetitions >= 3) // the batches' timings, not the warm-up and fresh launches around them
      timed.push_back(std::string(kernel));
    std::vector<double> samples;
    for (int i = 0; i < options.warmup + options.repetitions; ++i) {
      for (auto &[ptr, bytes] : options.poison)
        std::memset(reinterpret_cast<void *>(ptr), 0xFF, bytes);
      launchMs = -1;
      if (auto s = launch(m, kernel, config, params); !s)
        return s.error();
      if (i >= options.warmup)
        samples.push_back(launchMs >= 0 ? launchMs : ms[std::string(kernel)]);
    }
    runner::Timing t = runner::summarizeTimings(samples);
    t.wallMs = options.syncDevice ? t.medianMs * double(samples.size()) : 0;
    return t;
  }
  Expected<runner::DevicePtr> alloc(size_t bytes) override {
    void *p = std::malloc(bytes);
    memory_[reinterpret_cast<uintptr_t>(p)] = bytes;
    return reinterpret_cast<runner::DevicePtr>(p);
  }
  Status free(runner::DevicePtr p) override {
    memory_.erase(p);
    std::free(reinterpret_cast<void *>(p));
    return Ok{};
  }
  Expected<runner::MappedBuffer> allocMapped(size_t) override { return Error(Error::Unsupported, "sim"); }
  Status copyToDevice(runner::DevicePtr dst, const void *src, size_t bytes) override {
    std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
    return Ok{};
  }
  Status copyToHost(void *dst, runner::DevicePtr src, size_t bytes) override {
    std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
    return Ok{};
  }
  Status fill(runner::DevicePtr dst, uint8_t byte, size_t bytes) override {
    std::memset(reinterpret_cast<void *>(dst), byte, bytes);
    return Ok{};
  }
  Expected<runner::TensorMap> encodeTensorMap(const runner::TensorMapDesc &) override {
    return Error(Error::Unsupported, "sim");
  }
  void setDefaultTimeout(double) override {}
  Status checkStream(runner::Stream) override { return Error(Error::Unsupported, "sim"); }
  Status launchOn(runner::Stream, runner::ModuleId, std::string_view, const runner::LaunchConfig &,
                  runner::KernelParams &) override {
    return Error(Error::Unsupported, "sim");
  }
  Expected<runner::DevicePtr> allocOn(runner::Stream, size_t) override { return Error(Error::Unsupported, "sim"); }
  Status freeOn(runner::Stream, runner::DevicePtr) override { return Error(Error::Unsupported, "sim"); }
  Status fillOn(runner::Stream, runner::DevicePtr, uint8_t, size_t) override { return Error(Error::Unsupported, "sim"); }
  Status copyOn(runner::Stream, runner::DevicePtr, runner::DevicePtr, size_t) override {
    return Error(Error::Unsupported, "sim");
  }
  Status copy2DOn(runner::Stream, runner::DevicePtr, size_t, runner::DevicePtr, size_t, size_t, size_t) override {
    return Error(Error::Unsupported, "sim");
  }
  Status waitFor(runner::Stream) override { return Error(Error::Unsupported, "sim"); }
  Status freeMapped(runner::MappedBuffer) override { return Error(Error::Unsupported, "sim"); }

private:
  runner::DeviceInfo info_;
  std::map<uintptr_t, size_t> memory_;
};

using Bf16 = uint16_t;

/// C = A B^T of the task's parameters (A, B, C, M, N, K), with \p in applied
/// to every input value (a precision cut) and the result written through
/// \p store.
void gemm(std::vector<void *> &p, const std::function<float(float)> &in = [](float v) { return v; }) {
  auto *a = reinterpret_cast<const Bf16 *>(SimRunner::arg<uint64_t>(p, 0));
  auto *b = reinterpret_cast<const Bf16 *>(SimRunner::arg<uint64_t>(p, 1));
  auto *c = reinterpret_cast<Bf16 *>(SimRunner::arg<uint64_t>(p, 2));
  int M = SimRunner::arg<int32_t>(p, 3), N = SimRunner::arg<int32_t>(p, 4), K = SimRunner::arg<int32_t>(p, 5);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += in(oracle::bf16ToFloat(a[m * K + k])) * in(oracle::bf16ToFloat(b[n * K + k]));
      c[m * N + n] = oracle::floatToBf16(acc);
    }
}

float toHalfAndBack(float v) { return oracle::halfToFloat(oracle::floatToHalf(v)); }

struct Scored {
  Score score;
  std::vector<std::string> timed;
};

/// Scores kernel \p name of \p sim against the honest baseline at the task's
/// public shape and one held-out shape.
Scored scoreKernel(const std::string &name, const SimRunner::Kernel &kernel, double candidateMs = 0.5) {
  SimRunner sim;
  sim.kernels[name] = kernel;
  sim.kernels["baseline"] = [](SimRunner &, std::vector<void *> &p) { gemm(p); };
  sim.ms[name] = candidateMs;
  sim.ms["baseline"] = 1.0;
  Task task = gemmTask();
  LaunchLine line, baseLine;
  line.kernel = name;
  baseLine.kernel = "baseline";
  runner::BuildResult build;
  build.ptx = "simulated";
  auto candidate = cudaContender(task, line, build, Target::SM90a);
  auto baseline = cudaContender(task, baseLine, build, Target::SM90a);
  std::vector<ShapeToScore> shapes = {{task.publicShapes[0], "public"}, {{{"M", 24}, {"N", 16}, {"K", 24}}, "heldout"}};
  ScoreOptions options;
  options.seed = 7;
  auto score = scoreOnGpu(sim, task, shapes, *candidate, baseline.get(), options);
  EXPECT_TRUE(score) << (score ? "" : score.error().message);
  return {score ? *score : Score{}, sim.timed};
}

std::string reasons(const Score &s) {
  std::string out;
  for (const Rejection &r : s.rejections)
    out += (out.empty() ? "" : ", ") + r.reason;
  return out;
}

TEST(TaskScore, AnHonestKernelIsAcceptedAndTimedInterleaved) {
  Scored s = scoreKernel("honest", [](SimRunner &, std::vector<void *> &p) { gemm(p); });
  EXPECT_TRUE(s.score.accepted) << reasons(s.score);
  ASSERT_EQ(s.score.shapes.size(), 2u);
  for (const ShapeResult &r : s.score.shapes) {
    EXPECT_TRUE(r.correct);
    EXPECT_DOUBLE_EQ(r.candidateMs, 0.5);
    EXPECT_DOUBLE_EQ(r.baselineMs, 1.0);
    EXPECT_DOUBLE_EQ(r.speedup, 2.0);
    EXPECT_EQ(r.batchMs.size(), 2u);
    EXPECT_GT(r.floorMs, 0);
    EXPECT_DOUBLE_EQ(r.freshMs, 0.5); // one launch on new inputs takes what the repeats take
  }
  EXPECT_DOUBLE_EQ(s.score.geomeanSpeedup, 2.0);
  // ABBA per shape: candidate, baseline, then baseline, candidate
  EXPECT_EQ(s.timed, (std::vector<std::string>{"honest", "baseline", "baseline", "honest", "honest", "baseline",
                                               "baseline", "honest"}));
}

TEST(TaskScore, AKernelThatWritesNothingIsRejectedAsUnwritten) {
  Scored s = scoreKernel("nothing", [](SimRunner &, std::vector<void *> &) {});
  EXPECT_FALSE(s.score.accepted);
  EXPECT_EQ(reasons(s.score), "unwritten, unwritten");
  EXPECT_NE(s.score.rejections[0].message.find("poison"), std::string::npos);
}

TEST(TaskScore, AConstantOutputIsRejected) {
  Scored s = scoreKernel("constant", [](SimRunner &, std::vector<void *> &p) {
    auto *c = reinterpret_cast<Bf16 *>(SimRunner::arg<uint64_t>(p, 2));
    int M = SimRunner::arg<int32_t>(p, 3), N = SimRunner::arg<int32_t>(p, 4);
    for (int i = 0; i < M * N; ++i)
      c[i] = oracle::floatToBf16(1.0f);
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "constant-output");
}

TEST(TaskScore, ASeedIndependentOutputIsRejected) {
  // right for no input, and the same for every input: a pattern of the shape alone
  Scored s = scoreKernel("pattern", [](SimRunner &, std::vector<void *> &p) {
    auto *c = reinterpret_cast<Bf16 *>(SimRunner::arg<uint64_t>(p, 2));
    int M = SimRunner::arg<int32_t>(p, 3), N = SimRunner::arg<int32_t>(p, 4);
    for (int i = 0; i < M * N; ++i)
      c[i] = oracle::floatToBf16(float(i % 7) - 3.0f);
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "seed-independent");
}

TEST(TaskScore, AResultCachedByAddressIsRejected) {
  // computes once per input address, then returns the cached output for that address
  std::map<uint64_t, std::vector<Bf16>> cache;
  Scored s = scoreKernel("cached", [&](SimRunner &, std::vector<void *> &p) {
    uint64_t key = SimRunner::arg<uint64_t>(p, 0);
    auto *c = reinterpret_cast<Bf16 *>(SimRunner::arg<uint64_t>(p, 2));
    size_t n = size_t(SimRunner::arg<int32_t>(p, 3)) * size_t(SimRunner::arg<int32_t>(p, 4));
    if (auto it = cache.find(key); it != cache.end()) {
      std::memcpy(c, it->second.data(), n * sizeof(Bf16));
      return;
    }
    gemm(p);
    cache[key] = std::vector<Bf16>(c, c + n);
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "cached-by-address");
}

TEST(TaskScore, APrecisionCutIsCaughtByAdversarialInputs) {
  // fp16 inputs: right at uniform(-1, 1), infinite at the task's large magnitudes
  Scored s = scoreKernel("fp16", [](SimRunner &, std::vector<void *> &p) { gemm(p, toHalfAndBack); });
  EXPECT_EQ(s.score.rejections.at(0).reason, "adversarial");
  EXPECT_NE(s.score.rejections[0].message.find("'large'"), std::string::npos);
}

TEST(TaskScore, WorkSkippedWhileTimedIsCaughtAfterTheTiming) {
  // right for the checks (the first launches), then does nothing: a kernel that knows when it is timed
  int calls = 0;
  Scored s = scoreKernel("lazy", [&](SimRunner &, std::vector<void *> &p) {
    if (++calls <= 4)
      gemm(p);
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "stale-after-timing");
  EXPECT_NE(s.score.rejections[0].message.find("poisoned before each one"), std::string::npos);
}

TEST(TaskScore, WritingIntoAnInputIsRejected) {
  Scored s = scoreKernel("clobber", [](SimRunner &, std::vector<void *> &p) {
    gemm(p);
    auto *a = reinterpret_cast<Bf16 *>(SimRunner::arg<uint64_t>(p, 0));
    a[3] = 0;
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "inputs-modified");
}

TEST(TaskScore, WritingPastAnOutputIsRejected) {
  Scored s = scoreKernel("overflow", [](SimRunner &, std::vector<void *> &p) {
    gemm(p);
    auto *c = reinterpret_cast<Bf16 *>(SimRunner::arg<uint64_t>(p, 2));
    int M = SimRunner::arg<int32_t>(p, 3), N = SimRunner::arg<int32_t>(p, 4);
    c[M * N + 5] = 0;
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "out-of-bounds");
  EXPECT_NE(s.score.rejections[0].message.find("after tensor 'C'"), std::string::npos);
}

TEST(TaskScore, AHangIsATimeoutAndEndsTheScoring) {
  Scored s = scoreKernel("hang", [](SimRunner &, std::vector<void *> &) {});
  EXPECT_EQ(reasons(s.score), "timeout");
  EXPECT_EQ(s.score.shapes.size(), 1u); // the runner is wedged after a timeout: no further shape
  EXPECT_FALSE(s.score.accepted);
}

TEST(TaskScore, AWrongKernelIsAMismatch) {
  Scored s = scoreKernel("wrong", [](SimRunner &, std::vector<void *> &p) {
    gemm(p, [](float v) { return v * 1.01f; });
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "mismatch");
}

TEST(TaskScore, ABrokenBaselineIsNotTheCandidates) {
  SimRunner sim;
  sim.kernels["honest"] = [](SimRunner &, std::vector<void *> &p) { gemm(p); };
  sim.kernels["baseline"] = [](SimRunner &, std::vector<void *> &) {};
  Task task = gemmTask();
  LaunchLine line, baseLine;
  line.kernel = "honest";
  baseLine.kernel = "baseline";
  runner::BuildResult build;
  build.ptx = "simulated";
  auto candidate = cudaContender(task, line, build, Target::SM90a);
  auto baseline = cudaContender(task, baseLine, build, Target::SM90a);
  auto score = scoreOnGpu(sim, task, {{task.publicShapes[0], "public"}}, *candidate, baseline.get(), {});
  ASSERT_TRUE(score);
  EXPECT_TRUE(score->rejections.empty());
  EXPECT_NE(score->baselineError.find("outputs unwritten"), std::string::npos);
  EXPECT_TRUE(score->accepted); // judged on its own checks
  EXPECT_EQ(score->shapes.at(0).speedup, 0);
  EXPECT_EQ(score->geomeanSpeedup, 0);
}

TEST(TaskScore, AResultKeptByContentIsCaughtByItsTime) {
  // computes when the inputs' content changes (a fingerprint of A), else copies the kept result: right on every
  // launch, and its repeats cost a copy
  uint32_t fingerprint = 0;
  std::vector<Bf16> kept;
  Scored s = scoreKernel("fingerprint", [&](SimRunner &sim, std::vector<void *> &p) {
    auto *a = reinterpret_cast<const uint32_t *>(SimRunner::arg<uint64_t>(p, 0));
    auto *c = reinterpret_cast<Bf16 *>(SimRunner::arg<uint64_t>(p, 2));
    size_t n = size_t(SimRunner::arg<int32_t>(p, 3)) * size_t(SimRunner::arg<int32_t>(p, 4));
    if (a[0] != fingerprint || kept.size() != n) {
      gemm(p);
      kept.assign(c, c + n);
      fingerprint = a[0];
      sim.launchMs = 1.0;
      return;
    }
    std::memcpy(c, kept.data(), n * sizeof(Bf16));
    sim.launchMs = 0.05;
  });
  EXPECT_EQ(reasons(s.score), "repeat-faster, repeat-faster");
  EXPECT_NE(s.score.rejections[0].message.find("inputs it had seen"), std::string::npos);
}

TEST(TaskScore, InputsAreCheckedAfterEveryBatchNotOnlyTheFirst) {
  // leaves its inputs alone on the first launch at an address, rewrites them on later ones
  std::map<uint64_t, int> seen;
  Scored s = scoreKernel("later", [&](SimRunner &, std::vector<void *> &p) {
    gemm(p);
    uint64_t a = SimRunner::arg<uint64_t>(p, 0);
    if (seen[a]++ > 0)
      reinterpret_cast<Bf16 *>(a)[0] = 0;
  });
  EXPECT_EQ(s.score.rejections.at(0).reason, "inputs-modified");
}

TEST(TaskScore, Detectors) {
  oracle::HostTensor a = oracle::HostTensor::zeros("a", oracle::DType::F32, {4});
  EXPECT_TRUE(isConstant(a));
  a.set(2, 1.0);
  EXPECT_FALSE(isConstant(a));
  oracle::HostTensor one = oracle::HostTensor::zeros("one", oracle::DType::F32, {1});
  EXPECT_FALSE(isConstant(one)); // a single element is no evidence
  EXPECT_FALSE(sameBytes(one, one));
  EXPECT_TRUE(sameBytes(a, a));
}

} // namespace
