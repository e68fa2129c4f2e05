//===- Runner.h - Running kernels on a GPU ---------------------*- C++ -*-===//
//
// Part of CAKE. The only code of CAKE that touches a GPU (architecture
// invariant 9). A Runner owns one device: it loads modules (cubin or PTX),
// launches kernels with grid, block, cluster and dynamic shared memory,
// moves memory, encodes TMA tensor maps and times launches with events.
//
// makeRunner() returns the CUDA implementation (CudaRunner.cpp, the driver
// API loaded at run time from libcuda.so.1) or an Error saying, in one
// sentence, why there is no GPU: no driver, a stub driver, no device.
//
// Timeouts. Every wait (synchronize, copies, timing) polls the stream with a
// deadline and reports Error::Timeout when a kernel runs past it; the process
// never blocks forever on the GPU. A kernel that does not finish cannot be
// stopped from inside the process, though: after a timeout the Runner is
// wedged (every call fails with Error::Wedged) and only the end of the process
// frees the GPU. That is why `cake run` launches in a child process and kills
// it from a watchdog (cli/RunCommand.cpp, docs/runner.md).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include "diagnostics/Expected.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace cake::runner {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// The project's one result type (diagnostics/Expected.h): the runner's
// errors are the machine's kinds (NoDriver, NoDevice, Driver, Timeout,
// Wedged) and the caller's (InvalidArgument, Unsupported).
using cake::Error;
using cake::Expected;
using cake::Ok;
using cake::Status;

//===----------------------------------------------------------------------===//
// Device, modules, launches
//===----------------------------------------------------------------------===//

struct DeviceInfo {
  int ordinal = 0;
  std::string name;         ///< "NVIDIA H200"
  int major = 0, minor = 0; ///< compute capability
  int smCount = 0;
  uint64_t globalMemoryBytes = 0;
  uint32_t l2Bytes = 0;
  uint32_t sharedPerBlockOptin = 0; ///< largest dynamic shared memory a kernel may opt into
  uint32_t sharedPerSm = 0;
  int clockKHz = 0;
  int driverVersion = 0; ///< 13000 for CUDA 13.0
  bool clusters = false; ///< cluster launch supported

  /// "sm_90a" for 9.0, "sm_100a" for 10.0, "sm_80" for 8.x: the CAKE target
  /// to build for this device; empty when CAKE has none.
  std::string cakeTarget() const;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  friend bool operator==(const Dim3 &, const Dim3 &) = default;
};

struct LaunchConfig {
  Dim3 grid, block;
  Dim3 cluster;               ///< 1x1x1: no cluster attribute
  uint32_t dynamicShared = 0; ///< bytes; over 48 KiB the runner opts the kernel in
};

/// A device address (CUdeviceptr).
using DevicePtr = uint64_t;

/// Host memory the device can address (Runner::allocMapped).
struct MappedBuffer {
  void *host = nullptr;
  DevicePtr device = 0;
};

/// A stream of the caller's (a CUstream, which is also a cudaStream_t), for
/// the *On methods of a runner inside someone else's process
/// (makeGuestRunner). Null is the legacy default stream of the runner's
/// context.
struct Stream {
  void *handle = nullptr;
};

/// A loaded module (index into the Runner's table).
struct ModuleId {
  uint32_t value = 0;
};

/// What the driver says about a loaded kernel (cuFuncGetAttribute).
struct KernelAttributes {
  int registers = 0;
  int staticShared = 0;
  int localBytes = 0;
  int constBytes = 0;
  int maxThreadsPerBlock = 0;
  int ptxVersion = 0, binaryVersion = 0;
  /// Parameter sizes (cuFuncGetParamInfo); empty when the driver cannot say.
  std::vector<size_t> paramSizes;
};

/// The parameters of one launch: each value is stored at its natural
/// alignment, as the kernel's parameter list lays them out.
class KernelParams {
public:
  template <class T> KernelParams &add(const T &value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel parameters are copied bytewise");
    return addBytes(&value, sizeof(T), alignof(T));
  }
  KernelParams &addBytes(const void *data, size_t size, size_t align);

  size_t count() const { return offsets_.size(); }
  size_t size(size_t i) const { return sizes_[i]; }
  /// One pointer per parameter, into storage this object owns (for
  /// cuLaunchKernel's kernelParams). Valid until the next add.
  std::vector<void *> pointers();
  /// The packed buffer (natural alignment), e.g. for a parameter dump.
  const std::byte *data() const { return reinterpret_cast<const std::byte *>(storage_.data()); }
  size_t bytes() const { return end_; }

private:
  struct alignas(128) Chunk {
    std::byte b[128];
  };
  std::vector<Chunk> storage_;
  std::vector<size_t> offsets_, sizes_;
  size_t end_ = 0;
};

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

struct TimingOptions {
  int warmup = 3;             ///< untimed launches first
  int repetitions = 20;       ///< timed launches, one event pair each
  bool coldL2 = false;        ///< before each launch, write a scratch buffer of twice the L2 size
  double timeoutSeconds = 10; ///< per launch
  /// Called after each launch completes (warm-up ones too) with the number
  /// completed so far; `cake run` feeds its watchdog from it.
  std::function<void(int)> progress;
  /// Device ranges filled with 0xFF bytes before every launch, warm-up ones
  /// too, outside the events: the outputs poisoned, so that a launch that
  /// writes nothing leaves them unwritten for the check after the timing
  /// (`cake task`, docs/tasks.md).
  std::vector<std::pair<DevicePtr, size_t>> poison;
  /// Synchronize the whole context (every stream, cuCtxSynchronize) before
  /// the first and after the last timed launch, and measure the host's wall
  /// clock over them (Timing::wallMs): work the events do not see still ends
  /// inside the timed region.
  bool syncDevice = false;
};

struct Timing {
  std::vector<double> samplesMs; ///< in launch order
  double medianMs = 0, minMs = 0, maxMs = 0, meanMs = 0, stddevMs = 0;
  double p10Ms = 0, p90Ms = 0;
  /// (p90 - p10) / median, in percent: how much launches disagree.
  double spreadPercent = 0;
  bool coldL2 = false;
  /// With TimingOptions::syncDevice: the host's wall-clock time from the
  /// context synchronized before the first timed launch to the context
  /// synchronized after the last (poison fills and L2 flushes included).
  double wallMs = 0;
};

/// Median, percentiles (nearest rank on the sorted samples, interpolated),
/// mean, standard deviation and spread of \p samplesMs.
Timing summarizeTimings(std::vector<double> samplesMs);

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

enum class TensorDType { BF16, F16, F32 };
enum class Swizzle { None, B32, B64, B128 };

size_t dtypeBytes(TensorDType t);
std::string_view dtypeName(TensorDType t);
std::string_view swizzleName(Swizzle s);

/// A tiled TMA descriptor request (cuTensorMapEncodeTiled), innermost
/// dimension first, as the driver takes it.
struct TensorMapDesc {
  TensorDType dtype = TensorDType::BF16;
  uint32_t rank = 2;        ///< 2 to 5
  DevicePtr address = 0;    ///< 16-byte aligned (32 with interleave)
  uint64_t dims[5] = {};    ///< elements per dimension
  uint64_t strides[5] = {}; ///< bytes; strides[0] is the element size (ignored),
                            ///< strides[i] for i >= 1: multiple of 16, < 2^40
  uint32_t box[5] = {};     ///< box (tile) elements per dimension, 1 to 256
  uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  Swizzle swizzle = Swizzle::B128;
  bool l2Promotion128 = true; ///< CU_TENSOR_MAP_L2_PROMOTION_L2_128B, else none
  bool oobFillNan = false;    ///< out-of-bounds elements read as NaN, else zero

  /// Row-major strides (innermost contiguous) from dims and the element size.
  void setPackedStrides();
};

/// The 128-byte opaque CUtensorMap (128-byte aligned since CUDA 13), passed
/// to kernels by value (`const __grid_constant__ CUtensorMap`).
struct alignas(128) TensorMap {
  uint64_t words[16] = {};
};

/// The driver's rules for cuTensorMapEncodeTiled, checked without a GPU: an
/// empty string when \p desc is valid, else what is wrong, in one sentence.
std::string validateTensorMap(const TensorMapDesc &desc);

//===----------------------------------------------------------------------===//
// The runner
//===----------------------------------------------------------------------===//

class Runner {
public:
  virtual ~Runner() = default;

  virtual const DeviceInfo &device() const = 0;

  /// Loads a cubin, fatbin or PTX image (PTX is JIT-compiled; its errors are
  /// in the message).
  virtual Expected<ModuleId> loadModule(std::string_view image) = 0;
  virtual Status unloadModule(ModuleId module) = 0;
  virtual Expected<KernelAttributes> kernelAttributes(ModuleId module, std::string_view kernel) = 0;

  /// Enqueues one launch of \p kernel (its symbol name: mangled for C++
  /// kernels, plain for extern "C") on the runner's stream. Opts the kernel
  /// into config.dynamicShared when it is over 48 KiB, and into non-portable
  /// cluster sizes over 8. Returns before the kernel finishes.
  virtual Status launch(ModuleId module, std::string_view kernel, const LaunchConfig &config, KernelParams &params) = 0;
  /// Waits for everything enqueued, at most \p timeoutSeconds (< 0: the
  /// default timeout, setDefaultTimeout).
  virtual Status synchronize(double timeoutSeconds = -1) = 0;

  /// options.warmup launches, then options.repetitions launches, each between
  /// two events; each is waited for with options.timeoutSeconds.
  virtual Expected<Timing> time(ModuleId module, std::string_view kernel, const LaunchConfig &config,
                                KernelParams &params, const TimingOptions &options) = 0;

  virtual Expected<DevicePtr> alloc(size_t bytes) = 0;
  virtual Status free(DevicePtr ptr) = 0;
  /// Pinned host memory mapped into the device's address space, zeroed: the
  /// GPU writes it directly and the host can read it even after a kernel
  /// trapped and left the context unusable (the hang watchdog's record).
  /// Freed with the Runner's context.
  virtual Expected<MappedBuffer> allocMapped(size_t bytes) = 0;
  /// Copies wait (with the default timeout) for the launches before them.
  virtual Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) = 0;
  virtual Status copyToHost(void *dst, DevicePtr src, size_t bytes) = 0;
  virtual Status fill(DevicePtr dst, uint8_t byte, size_t bytes) = 0;

  /// Validates \p desc (validateTensorMap), then encodes it with
  /// cuTensorMapEncodeTiled.
  virtual Expected<TensorMap> encodeTensorMap(const TensorMapDesc &desc) = 0;

  /// The timeout of waits that take none (copies, synchronize()); 10 s at first.
  virtual void setDefaultTimeout(double seconds) = 0;

  //===-- Work on the caller's stream ---------------------------------------===//
  // For a library running inside someone else's process (libcake_kmeans):
  // each call enqueues on the caller's stream and returns; only waitFor
  // waits.

  /// Checks that \p stream belongs to this runner's context (the legacy and
  /// per-thread default streams always do).
  virtual Status checkStream(Stream stream) = 0;
  /// launch() on \p stream.
  virtual Status launchOn(Stream stream, ModuleId module, std::string_view kernel, const LaunchConfig &config,
                          KernelParams &params) = 0;
  /// Stream-ordered device memory from the runner's own memory pool
  /// (cuMemAllocFromPoolAsync, the pool keeps what it was given): usable by
  /// work enqueued on \p stream after this call, and by other streams once
  /// they are ordered after it. Given back with freeOn.
  virtual Expected<DevicePtr> allocOn(Stream stream, size_t bytes) = 0;
  /// cuMemFreeAsync: the memory is reused only after the work enqueued on
  /// \p stream before this call.
  virtual Status freeOn(Stream stream, DevicePtr ptr) = 0;
  /// cuMemsetD8Async on \p stream.
  virtual Status fillOn(Stream stream, DevicePtr dst, uint8_t byte, size_t bytes) = 0;
  /// cuMemcpyAsync between two addresses of the unified address space: device
  /// memory, or the device address of a MappedBuffer (to read results on the
  /// host after waitFor).
  virtual Status copyOn(Stream stream, DevicePtr dst, DevicePtr src, size_t bytes) = 0;
  /// cuMemcpy2DAsync of \p rows rows of \p rowBytes bytes between device
  /// addresses whose rows lie \p dstPitch and \p srcPitch bytes apart (e.g.
  /// rows copied into a wider, zero-padded buffer).
  virtual Status copy2DOn(Stream stream, DevicePtr dst, size_t dstPitch, DevicePtr src, size_t srcPitch,
                          size_t rowBytes, size_t rows) = 0;
  /// Waits, with the default timeout, until the work enqueued on \p stream
  /// so far has finished (an event recorded now and polled).
  virtual Status waitFor(Stream stream) = 0;
  /// Frees an allocMapped buffer (cuMemFreeHost).
  virtual Status freeMapped(MappedBuffer buffer) = 0;
};

/// The CUDA runner on device \p ordinal, or why there is none. The driver is
/// libcuda.so.1, or the library named by the environment variable
/// CAKE_LIBCUDA (for tests and unusual installs).
Expected<std::unique_ptr<Runner>> makeRunner(int ordinal = 0);

/// A runner for a library inside someone else's process (libcake_kmeans.so):
/// on the primary context of device \p ordinal, the one the CUDA runtime and
/// the frameworks built on it (PyTorch) use. It creates no stream (its own
/// copies and synchronize() use the legacy default stream; the caller's work
/// goes on the streams passed to the *On methods), and every call leaves the
/// calling thread's current context as it found it.
Expected<std::unique_ptr<Runner>> makeGuestRunner(int ordinal);

/// The ordinal of the GPU whose memory \p address lies in; an InvalidArgument
/// error saying what it is instead (host memory, an address CUDA does not
/// know), or a noGpu() error when there is no driver or GPU.
Expected<int> deviceOfAddress(DevicePtr address);

/// "no CUDA GPU is available on this machine (<what the driver said>)": the
/// one-sentence form of an Error whose noGpu() is true.
std::string describeNoGpu(const Error &error);

} // namespace cake::runner
