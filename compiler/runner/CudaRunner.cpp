//===- CudaRunner.cpp - The Runner on the CUDA driver API -----------------===//
//
// Part of CAKE. The driver is loaded at run time (dlopen of libcuda.so.1)
// rather than linked: a binary linked against the toolkit's stub libcuda
// would not even start on a machine without a driver, and every command of
// `cake`, not just `cake run`, would fail there. The entry points are looked
// up by the versioned names cuda.h maps them to (cuMemAlloc -> cuMemAlloc_v2),
// so the calls below have exactly the ABI of the header they are compiled
// against.
//
//===----------------------------------------------------------------------===//
#include "compiler/runner/Build.h"
#include "compiler/runner/Runner.h"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

namespace cake::runner {
namespace {

#define CAKE_CU_STR2(x) #x
#define CAKE_CU_STR(x) CAKE_CU_STR2(x)

// Entry points without which there is no runner.
#define CAKE_CU_REQUIRED(X)                                                                                            \
  X(cuInit)                                                                                                            \
  X(cuDriverGetVersion)                                                                                                \
  X(cuGetErrorName)                                                                                                    \
  X(cuGetErrorString)                                                                                                  \
  X(cuDeviceGetCount)                                                                                                  \
  X(cuDeviceGet)                                                                                                       \
  X(cuDeviceGetName)                                                                                                   \
  X(cuDeviceGetAttribute)                                                                                              \
  X(cuDeviceTotalMem)                                                                                                  \
  X(cuDevicePrimaryCtxRetain)                                                                                          \
  X(cuDevicePrimaryCtxRelease)                                                                                         \
  X(cuCtxSetCurrent)                                                                                                   \
  X(cuModuleLoadDataEx)                                                                                                \
  X(cuModuleUnload)                                                                                                    \
  X(cuModuleGetFunction)                                                                                               \
  X(cuFuncGetAttribute)                                                                                                \
  X(cuFuncSetAttribute)                                                                                                \
  X(cuLaunchKernel)                                                                                                    \
  X(cuMemAlloc)                                                                                                        \
  X(cuMemFree)                                                                                                         \
  X(cuMemcpyHtoD)                                                                                                      \
  X(cuMemcpyDtoH)                                                                                                      \
  X(cuMemsetD8Async)                                                                                                   \
  X(cuStreamCreate)                                                                                                    \
  X(cuStreamDestroy)                                                                                                   \
  X(cuStreamQuery)                                                                                                     \
  X(cuEventCreate)                                                                                                     \
  X(cuEventDestroy)                                                                                                    \
  X(cuEventRecord)                                                                                                     \
  X(cuEventQuery)                                                                                                      \
  X(cuEventElapsedTime)

// Entry points of newer drivers; a feature that needs one reports its absence.
#define CAKE_CU_OPTIONAL(X)                                                                                            \
  X(cuLaunchKernelEx)                                                                                                  \
  X(cuTensorMapEncodeTiled)                                                                                            \
  X(cuFuncGetParamInfo)                                                                                                \
  X(cuMemHostAlloc)                                                                                                    \
  X(cuMemHostGetDevicePointer)                                                                                         \
  X(cuMemFreeHost)                                                                                                     \
  X(cuCtxGetCurrent)                                                                                                   \
  X(cuCtxSynchronize)                                                                                                  \
  X(cuStreamGetCtx)                                                                                                    \
  X(cuPointerGetAttribute)                                                                                             \
  X(cuPointerGetAttributes)                                                                                            \
  X(cuMemPoolCreate)                                                                                                   \
  X(cuMemPoolSetAttribute)                                                                                             \
  X(cuMemPoolDestroy)                                                                                                  \
  X(cuMemAllocFromPoolAsync)                                                                                           \
  X(cuMemFreeAsync)                                                                                                    \
  X(cuMemcpyAsync)                                                                                                     \
  X(cuMemcpy2DAsync)

struct Driver {
  void *handle = nullptr;
  std::string library;
#define CAKE_CU_MEMBER(name) decltype(&::name) name = nullptr;
  CAKE_CU_REQUIRED(CAKE_CU_MEMBER)
  CAKE_CU_OPTIONAL(CAKE_CU_MEMBER)
#undef CAKE_CU_MEMBER

  std::string errorText(CUresult r) const {
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName)
      cuGetErrorName(r, &name);
    if (cuGetErrorString)
      cuGetErrorString(r, &text);
    // The stub library answers nothing, not even for its own error.
    if (!name && r == CUDA_ERROR_STUB_LIBRARY)
      name = "CUDA_ERROR_STUB_LIBRARY";
    std::string out = name ? name : "CUresult " + std::to_string(static_cast<int>(r));
    if (text)
      out += std::string(" (") + text + ")";
    return out;
  }
};

/// Loads the driver and runs cuInit once per process.
Expected<Driver *> loadDriver() {
  static std::once_flag once;
  static Driver driver;
  static Error failure;
  static bool ok = false;
  std::call_once(once, [] {
    // Before the driver reads it: NVRTC's compute cache, shared with the
    // driver, would skip ptxas and its report (see Build.cpp).
    setenv("CUDA_CACHE_DISABLE", "1", /*overwrite=*/0);
    const char *override = std::getenv("CAKE_LIBCUDA");
    driver.library = override && *override ? override : "libcuda.so.1";
    driver.handle = dlopen(driver.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!driver.handle) {
      const char *why = dlerror();
      failure = {Error::NoDriver, "the CUDA driver is not installed: " + std::string(why ? why : driver.library)};
      return;
    }
#define CAKE_CU_LOAD(name)                                                                                             \
  driver.name = reinterpret_cast<decltype(driver.name)>(dlsym(driver.handle, CAKE_CU_STR(name)));
    CAKE_CU_REQUIRED(CAKE_CU_LOAD)
    CAKE_CU_OPTIONAL(CAKE_CU_LOAD)
#undef CAKE_CU_LOAD
    // Drivers before CUDA 12.8 have only the first version, with the same
    // signature.
    if (!driver.cuEventElapsedTime)
      driver.cuEventElapsedTime =
          reinterpret_cast<decltype(driver.cuEventElapsedTime)>(dlsym(driver.handle, "cuEventElapsedTime"));
#define CAKE_CU_CHECK(name)                                                                                            \
  if (!driver.name) {                                                                                                  \
    failure = {Error::NoDriver, "the CUDA driver " + driver.library +                                                  \
                                    " lacks " CAKE_CU_STR(name) "; CAKE needs a driver for CUDA 12.4 or newer"};       \
    return;                                                                                                            \
  }
    CAKE_CU_REQUIRED(CAKE_CU_CHECK)
#undef CAKE_CU_CHECK
    CUresult r = driver.cuInit(0);
    if (r == CUDA_ERROR_STUB_LIBRARY) {
      failure = {Error::NoDriver, "cuInit failed with " + driver.errorText(r) + ": " + driver.library +
                                      " is the CUDA toolkit's stub library, not a driver"};
      return;
    }
    if (r != CUDA_SUCCESS) {
      failure = {Error::NoDevice, "cuInit failed with " + driver.errorText(r)};
      return;
    }
    ok = true;
  });
  if (!ok)
    return failure;
  return &driver;
}

bool isStickyError(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return true;
  default:
    return false;
  }
}

using Clock = std::chrono::steady_clock;

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

std::string dims(const Dim3 &d) { return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z); }

class CudaRunner final : public Runner {
public:
  CudaRunner(Driver &d, CUdevice dev, CUcontext ctx, CUstream stream, DeviceInfo info, bool guest)
      : d_(d), dev_(dev), ctx_(ctx), stream_(stream), info_(std::move(info)), guest_(guest) {}

  ~CudaRunner() override {
    Scope scope(*this);
    // After a timeout a kernel may still run: touching the context could
    // block, so everything is left to the end of the process.
    if (wedged_ || !ready() || !waitStream(defaultTimeout_, "the last launch"))
      return;
    if (pool_)
      d_.cuMemPoolDestroy(pool_);
    for (CUevent e : events_)
      d_.cuEventDestroy(e);
    if (scratch_)
      d_.cuMemFree(scratch_);
    for (CUmodule m : modules_)
      if (m)
        d_.cuModuleUnload(m);
    if (stream_)
      d_.cuStreamDestroy(stream_);
    d_.cuDevicePrimaryCtxRelease(dev_);
  }

  const DeviceInfo &device() const override { return info_; }

  void setDefaultTimeout(double s) override { defaultTimeout_ = s > 0 ? s : defaultTimeout_; }

  Expected<ModuleId> loadModule(std::string_view image) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s.error();
    std::string copy(image); // PTX must end in NUL; std::string provides one
    char errorLog[8192] = {}, infoLog[8192] = {};
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                           CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog, reinterpret_cast<void *>(uintptr_t(sizeof errorLog)), infoLog,
                      reinterpret_cast<void *>(uintptr_t(sizeof infoLog))};
    CUmodule module = nullptr;
    CUresult r = d_.cuModuleLoadDataEx(&module, copy.c_str(), 4, keys, values);
    if (r != CUDA_SUCCESS) {
      Error e = fail(r, "cuModuleLoadDataEx");
      if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        e.message += "; the module was built for another GPU or a newer CUDA than this driver (device " +
                     std::to_string(info_.major) + "." + std::to_string(info_.minor) + ", driver " +
                     std::to_string(info_.driverVersion) + ")";
      if (errorLog[0])
        e.message += ": " + std::string(errorLog);
      return e;
    }
    modules_.push_back(module);
    return ModuleId{static_cast<uint32_t>(modules_.size())};
  }

  Status unloadModule(ModuleId id) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    CUmodule *m = moduleSlot(id);
    if (!m || !*m)
      return Error{Error::InvalidArgument, "no such module"};
    if (auto s = waitStream(defaultTimeout_, "the launches before unloading a module"); !s)
      return s;
    // the module's handles may be reused by a later module: forget what was learned of them
    for (auto it = functions_.begin(); it != functions_.end();) {
      if (it->first.first != id.value) {
        ++it;
        continue;
      }
      facts_.erase(it->second);
      it = functions_.erase(it);
    }
    CUresult r = d_.cuModuleUnload(*m);
    *m = nullptr;
    return check(r, "cuModuleUnload");
  }

  Expected<KernelAttributes> kernelAttributes(ModuleId module, std::string_view kernel) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s.error();
    auto f = function(module, kernel);
    if (!f)
      return f.error();
    KernelAttributes a;
    struct {
      CUfunction_attribute attr;
      int *out;
    } queries[] = {{CU_FUNC_ATTRIBUTE_NUM_REGS, &a.registers},
                   {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &a.staticShared},
                   {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &a.localBytes},
                   {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &a.constBytes},
                   {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a.maxThreadsPerBlock},
                   {CU_FUNC_ATTRIBUTE_PTX_VERSION, &a.ptxVersion},
                   {CU_FUNC_ATTRIBUTE_BINARY_VERSION, &a.binaryVersion}};
    for (auto &q : queries)
      if (CUresult r = d_.cuFuncGetAttribute(q.out, q.attr, *f); r != CUDA_SUCCESS)
        return fail(r, "cuFuncGetAttribute");
    a.paramSizes = paramSizes(*f);
    return a;
  }

  Status launch(ModuleId module, std::string_view kernel, const LaunchConfig &config, KernelParams &params) override {
    return launchOn(Stream{stream_}, module, kernel, config, params);
  }

  Status synchronize(double timeoutSeconds) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    return waitStream(timeoutSeconds < 0 ? defaultTimeout_ : timeoutSeconds, "the launched kernels");
  }

  Expected<Timing> time(ModuleId module, std::string_view kernel, const LaunchConfig &config, KernelParams &params,
                        const TimingOptions &options) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s.error();
    if (options.repetitions < 1)
      return Error{Error::InvalidArgument, "timing needs at least one repetition"};
    auto f = function(module, kernel);
    if (!f)
      return f.error();
    if (auto s = prepare(*f, kernel, config, params); !s)
      return s.error();
    std::string what = "kernel '" + baseName(kernel) + "'";
    if (options.coldL2)
      if (auto s = ensureScratch(); !s)
        return s.error();
    if (options.syncDevice && !d_.cuCtxSynchronize)
      return Error{Error::Unsupported, "this driver has no cuCtxSynchronize"};
    auto poison = [&]() -> Status {
      for (const auto &[ptr, bytes] : options.poison)
        if (CUresult r = d_.cuMemsetD8Async(static_cast<CUdeviceptr>(ptr), 0xFF, bytes, stream_); r != CUDA_SUCCESS)
          return fail(r, "cuMemsetD8Async (poisoning the outputs)");
      return Ok{};
    };
    for (int i = 0; i < options.warmup; ++i) {
      if (auto s = poison(); !s)
        return s.error();
      if (auto s = enqueue(*f, config, params); !s)
        return s.error();
      if (auto s = waitStream(options.timeoutSeconds, what + " (warm-up launch)"); !s)
        return s.error();
      if (options.progress)
        options.progress(i + 1);
    }
    // Launches are enqueued in chunks, back to back, so that the GPU does not
    // wait for the host between them; each stop event is waited for with the
    // per-launch timeout, counted from the moment the previous one completed.
    constexpr int kChunk = 32;
    if (auto s = ensureEvents(2 * kChunk); !s)
      return s.error();
    std::vector<double> samples;
    // the whole context before and after: a kernel's work that some other
    // stream carries still ends inside the wall-clock region
    auto syncContext = [&](const char *when) -> Status {
      if (!options.syncDevice)
        return Ok{};
      if (CUresult r = d_.cuCtxSynchronize(); r != CUDA_SUCCESS)
        return fail(r, std::string("cuCtxSynchronize (") + when + " the timed launches)");
      return Ok{};
    };
    if (auto s = syncContext("before"); !s)
      return s.error();
    auto wallStart = std::chrono::steady_clock::now();
    for (int done = 0; done < options.repetitions;) {
      int n = std::min(kChunk, options.repetitions - done);
      for (int i = 0; i < n; ++i) {
        if (auto s = poison(); !s)
          return s.error();
        if (options.coldL2)
          if (CUresult r = d_.cuMemsetD8Async(scratch_, static_cast<unsigned char>(done + i), scratchBytes_, stream_);
              r != CUDA_SUCCESS)
            return fail(r, "cuMemsetD8Async (L2 flush)");
        if (CUresult r = d_.cuEventRecord(events_[2 * i], stream_); r != CUDA_SUCCESS)
          return fail(r, "cuEventRecord");
        if (auto s = enqueue(*f, config, params); !s)
          return s.error();
        if (CUresult r = d_.cuEventRecord(events_[2 * i + 1], stream_); r != CUDA_SUCCESS)
          return fail(r, "cuEventRecord");
      }
      for (int i = 0; i < n; ++i) {
        if (auto s = waitEvent(events_[2 * i + 1], options.timeoutSeconds, what); !s)
          return s.error();
        float ms = 0;
        if (CUresult r = d_.cuEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]); r != CUDA_SUCCESS)
          return fail(r, "cuEventElapsedTime");
        samples.push_back(ms);
        if (options.progress)
          options.progress(options.warmup + static_cast<int>(samples.size()));
      }
      done += n;
    }
    if (auto s = syncContext("after"); !s)
      return s.error();
    double wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wallStart).count();
    Timing t = summarizeTimings(std::move(samples));
    t.coldL2 = options.coldL2;
    if (options.syncDevice)
      t.wallMs = wallMs;
    return t;
  }

  Expected<DevicePtr> alloc(size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s.error();
    CUdeviceptr p = 0;
    if (CUresult r = d_.cuMemAlloc(&p, bytes ? bytes : 1); r != CUDA_SUCCESS)
      return fail(r, "cuMemAlloc of " + std::to_string(bytes) + " bytes");
    return static_cast<DevicePtr>(p);
  }

  Expected<MappedBuffer> allocMapped(size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s.error();
    if (!d_.cuMemHostAlloc || !d_.cuMemHostGetDevicePointer)
      return Error{Error::Unsupported, "the driver lacks cuMemHostAlloc (mapped host memory)"};
    MappedBuffer m;
    if (CUresult r = d_.cuMemHostAlloc(&m.host, bytes ? bytes : 1, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
        r != CUDA_SUCCESS)
      return fail(r, "cuMemHostAlloc of " + std::to_string(bytes) + " bytes");
    std::memset(m.host, 0, bytes ? bytes : 1);
    CUdeviceptr p = 0;
    if (CUresult r = d_.cuMemHostGetDevicePointer(&p, m.host, 0); r != CUDA_SUCCESS)
      return fail(r, "cuMemHostGetDevicePointer");
    m.device = static_cast<DevicePtr>(p);
    return m;
  }

  Status free(DevicePtr ptr) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (auto s = waitStream(defaultTimeout_, "the launches before cuMemFree"); !s)
      return s;
    return check(d_.cuMemFree(static_cast<CUdeviceptr>(ptr)), "cuMemFree");
  }

  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (auto s = waitStream(defaultTimeout_, "the launches before a copy"); !s)
      return s;
    return check(d_.cuMemcpyHtoD(static_cast<CUdeviceptr>(dst), src, bytes), "cuMemcpyHtoD");
  }

  Status copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (auto s = waitStream(defaultTimeout_, "the launches before a copy"); !s)
      return s;
    return check(d_.cuMemcpyDtoH(dst, static_cast<CUdeviceptr>(src), bytes), "cuMemcpyDtoH");
  }

  Status fill(DevicePtr dst, uint8_t byte, size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (CUresult r = d_.cuMemsetD8Async(static_cast<CUdeviceptr>(dst), byte, bytes, stream_); r != CUDA_SUCCESS)
      return fail(r, "cuMemsetD8Async");
    return waitStream(defaultTimeout_, "cuMemsetD8Async");
  }

  Expected<TensorMap> encodeTensorMap(const TensorMapDesc &desc) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s.error();
    if (std::string why = validateTensorMap(desc); !why.empty())
      return Error{Error::InvalidArgument, "invalid tensor map: " + why};
    if (!d_.cuTensorMapEncodeTiled)
      return Error{Error::Unsupported, "the CUDA driver has no cuTensorMapEncodeTiled (it needs CUDA 12.0 or newer)"};
    if (info_.major < 9)
      return Error{Error::Unsupported, "tensor maps (TMA) need compute capability 9.0 or newer; this GPU is " +
                                           std::to_string(info_.major) + "." + std::to_string(info_.minor)};
    CUtensorMapDataType type = desc.dtype == TensorDType::BF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                               : desc.dtype == TensorDType::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    CUtensorMapSwizzle swizzle = desc.swizzle == Swizzle::B32    ? CU_TENSOR_MAP_SWIZZLE_32B
                                 : desc.swizzle == Swizzle::B64  ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : desc.swizzle == Swizzle::B128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                                                 : CU_TENSOR_MAP_SWIZZLE_NONE;
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elementStrides[5];
    for (uint32_t i = 0; i < desc.rank; ++i) {
      dims[i] = desc.dims[i];
      box[i] = desc.box[i];
      elementStrides[i] = desc.elementStrides[i];
      if (i > 0)
        strides[i - 1] = desc.strides[i];
    }
    static_assert(sizeof(CUtensorMap) == sizeof(TensorMap) && alignof(CUtensorMap) <= alignof(TensorMap));
    TensorMap map;
    CUresult r = d_.cuTensorMapEncodeTiled(
        reinterpret_cast<CUtensorMap *>(&map), type, desc.rank, reinterpret_cast<void *>(desc.address), dims, strides,
        box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
        desc.l2Promotion128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B : CU_TENSOR_MAP_L2_PROMOTION_NONE,
        desc.oobFillNan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      Error e = fail(r, "cuTensorMapEncodeTiled");
      e.kind = Error::InvalidArgument;
      return e;
    }
    return map;
  }

  //===-- Work on the caller's stream ---------------------------------------===//

  Status checkStream(Stream stream) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    auto handle = reinterpret_cast<uintptr_t>(stream.handle);
    if (handle == 0 || handle == reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY) ||
        handle == reinterpret_cast<uintptr_t>(CU_STREAM_PER_THREAD) || !d_.cuStreamGetCtx)
      return Ok{};
    CUcontext owner = nullptr;
    if (CUresult r = d_.cuStreamGetCtx(cu(stream), &owner); r != CUDA_SUCCESS)
      return Error{Error::InvalidArgument, "the stream is not a CUDA stream (cuStreamGetCtx failed with " +
                                               d_.errorText(r) + ")"};
    if (owner != ctx_)
      return Error{Error::InvalidArgument,
                   "the stream belongs to another CUDA context than the primary context of GPU " +
                       std::to_string(info_.ordinal) + ", where the data lies; pass a stream of that GPU's primary "
                                                       "context (the one the CUDA runtime and PyTorch use)"};
    return Ok{};
  }

  Status launchOn(Stream stream, ModuleId module, std::string_view kernel, const LaunchConfig &config,
                  KernelParams &params) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    auto f = function(module, kernel);
    if (!f)
      return f.error();
    if (auto s = prepare(*f, kernel, config, params); !s)
      return s;
    return enqueue(*f, config, params, cu(stream));
  }

  Expected<DevicePtr> allocOn(Stream stream, size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s.error();
    if (auto s = ensurePool(); !s)
      return s.error();
    CUdeviceptr p = 0;
    if (CUresult r = d_.cuMemAllocFromPoolAsync(&p, bytes ? bytes : 1, pool_, cu(stream)); r != CUDA_SUCCESS)
      return fail(r, "cuMemAllocFromPoolAsync of " + std::to_string(bytes) + " bytes");
    return static_cast<DevicePtr>(p);
  }

  Status freeOn(Stream stream, DevicePtr ptr) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (!d_.cuMemFreeAsync)
      return Error{Error::Unsupported, "the CUDA driver has no cuMemFreeAsync (it needs CUDA 11.2 or newer)"};
    return check(d_.cuMemFreeAsync(static_cast<CUdeviceptr>(ptr), cu(stream)), "cuMemFreeAsync");
  }

  Status fillOn(Stream stream, DevicePtr dst, uint8_t byte, size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    return check(d_.cuMemsetD8Async(static_cast<CUdeviceptr>(dst), byte, bytes, cu(stream)), "cuMemsetD8Async");
  }

  Status copyOn(Stream stream, DevicePtr dst, DevicePtr src, size_t bytes) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (!d_.cuMemcpyAsync)
      return Error{Error::Unsupported, "the CUDA driver has no cuMemcpyAsync"};
    return check(d_.cuMemcpyAsync(static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src), bytes, cu(stream)),
                 "cuMemcpyAsync");
  }

  Status copy2DOn(Stream stream, DevicePtr dst, size_t dstPitch, DevicePtr src, size_t srcPitch, size_t rowBytes,
                  size_t rows) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (!d_.cuMemcpy2DAsync)
      return Error{Error::Unsupported, "the CUDA driver has no cuMemcpy2DAsync"};
    CUDA_MEMCPY2D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = static_cast<CUdeviceptr>(src);
    copy.srcPitch = srcPitch;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = static_cast<CUdeviceptr>(dst);
    copy.dstPitch = dstPitch;
    copy.WidthInBytes = rowBytes;
    copy.Height = rows;
    return check(d_.cuMemcpy2DAsync(&copy, cu(stream)), "cuMemcpy2DAsync");
  }

  Status waitFor(Stream stream) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    CUevent e = nullptr;
    if (CUresult r = d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING); r != CUDA_SUCCESS)
      return fail(r, "cuEventCreate");
    Status waited = check(d_.cuEventRecord(e, cu(stream)), "cuEventRecord");
    if (waited)
      waited = waitEvent(e, defaultTimeout_, "the work on the stream");
    // After a timeout the event may still be pending: it is left alone.
    if (!wedged_)
      d_.cuEventDestroy(e);
    return waited;
  }

  Status freeMapped(MappedBuffer buffer) override {
    Scope scope(*this);
    if (auto s = ready(); !s)
      return s;
    if (!buffer.host)
      return Ok{};
    if (!d_.cuMemFreeHost)
      return Error{Error::Unsupported, "the driver lacks cuMemFreeHost"};
    return check(d_.cuMemFreeHost(buffer.host), "cuMemFreeHost");
  }

private:
  /// In a guest runner, the calling thread's current context is restored
  /// when the public call that made the runner's current returns.
  class Scope {
  public:
    explicit Scope(CudaRunner &r) : r_(r) {
      if (r.guest_ && r.d_.cuCtxGetCurrent && r.d_.cuCtxGetCurrent(&previous_) == CUDA_SUCCESS)
        restore_ = previous_ != r.ctx_;
    }
    ~Scope() {
      if (restore_)
        r_.d_.cuCtxSetCurrent(previous_);
    }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    CudaRunner &r_;
    CUcontext previous_ = nullptr;
    bool restore_ = false;
  };

  static CUstream cu(Stream s) { return static_cast<CUstream>(s.handle); }

  /// The runner's memory pool for allocOn: it keeps what it was given
  /// (release threshold: unlimited), so that a library's scratch buffers
  /// cost no driver allocation after the first calls.
  Status ensurePool() {
    if (pool_)
      return Ok{};
    if (!d_.cuMemPoolCreate || !d_.cuMemPoolSetAttribute || !d_.cuMemAllocFromPoolAsync || !d_.cuMemFreeAsync)
      return Error{Error::Unsupported, "the CUDA driver has no stream-ordered memory pools (CUDA 11.2 or newer)"};
    int supported = 0;
    d_.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev_);
    if (!supported)
      return Error{Error::Unsupported, "GPU " + std::to_string(info_.ordinal) + " (" + info_.name +
                                           ") does not support stream-ordered memory pools"};
    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = info_.ordinal;
    CUmemoryPool pool = nullptr;
    if (CUresult r = d_.cuMemPoolCreate(&pool, &props); r != CUDA_SUCCESS)
      return fail(r, "cuMemPoolCreate");
    cuuint64_t keep = ~cuuint64_t(0);
    if (CUresult r = d_.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep); r != CUDA_SUCCESS) {
      d_.cuMemPoolDestroy(pool);
      return fail(r, "cuMemPoolSetAttribute(RELEASE_THRESHOLD)");
    }
    pool_ = pool;
    return Ok{};
  }

  /// Fails when the runner is wedged; makes the context current.
  Status ready() {
    if (wedged_)
      return Error{Error::Wedged, wedgedWhy_};
    if (CUresult r = d_.cuCtxSetCurrent(ctx_); r != CUDA_SUCCESS)
      return fail(r, "cuCtxSetCurrent");
    return Ok{};
  }

  Error fail(CUresult r, const std::string &what) {
    Error e{Error::Driver, what + " failed with " + d_.errorText(r)};
    if (isStickyError(r)) {
      wedged_ = true;
      wedgedWhy_ = "an earlier error left the CUDA context unusable (" + e.message + "); start a new process";
      e.message += "; the CUDA context is unusable from now on";
    }
    return e;
  }

  Status check(CUresult r, const std::string &what) {
    if (r == CUDA_SUCCESS)
      return Ok{};
    return fail(r, what);
  }

  /// Polls \p query until it stops saying CUDA_ERROR_NOT_READY, at most
  /// \p timeout seconds.
  template <class Query> Status poll(Query query, double timeout, const std::string &what) {
    auto start = Clock::now();
    auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout));
    for (int spins = 0;; ++spins) {
      CUresult r = query();
      if (r == CUDA_SUCCESS)
        return Ok{};
      if (r != CUDA_ERROR_NOT_READY)
        return fail(r, what);
      if (Clock::now() >= deadline) {
        wedged_ = true;
        wedgedWhy_ = what + " ran past its " + seconds(timeout) +
                     " timeout and may still be running; a running kernel cannot be stopped from inside the "
                     "process, so this runner is unusable: run launches in a child process (cake run does)";
        return Error{Error::Timeout, what + " did not finish within " + seconds(timeout)};
      }
      // Spin briefly (short kernels), then back off to at most 1 ms.
      if (spins < 200)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 10 * (spins - 199))));
    }
  }

  Status waitStream(double timeout, const std::string &what) {
    return poll([&] { return d_.cuStreamQuery(stream_); }, timeout, what);
  }

  Status waitEvent(CUevent e, double timeout, const std::string &what) {
    return poll([&] { return d_.cuEventQuery(e); }, timeout, what);
  }

  CUmodule *moduleSlot(ModuleId id) {
    if (id.value == 0 || id.value > modules_.size())
      return nullptr;
    return &modules_[id.value - 1];
  }

  Expected<CUfunction> function(ModuleId id, std::string_view kernel) {
    auto key = std::make_pair(id.value, std::string(kernel));
    if (auto it = functions_.find(key); it != functions_.end())
      return it->second;
    CUmodule *m = moduleSlot(id);
    if (!m || !*m)
      return Error{Error::InvalidArgument, "no such module (was it unloaded?)"};
    CUfunction f = nullptr;
    CUresult r = d_.cuModuleGetFunction(&f, *m, key.second.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      return Error{Error::InvalidArgument, "the module has no kernel named '" + key.second +
                                               "' (C++ kernels have mangled names: declare the kernel extern \"C\" "
                                               "or pass its mangled name)"};
    if (r != CUDA_SUCCESS)
      return fail(r, "cuModuleGetFunction");
    functions_[key] = f;
    return f;
  }

  std::vector<size_t> paramSizes(CUfunction f) {
    std::vector<size_t> sizes;
    if (!d_.cuFuncGetParamInfo)
      return sizes;
    for (size_t i = 0;; ++i) {
      size_t offset = 0, size = 0;
      if (d_.cuFuncGetParamInfo(f, i, &offset, &size) != CUDA_SUCCESS)
        break;
      sizes.push_back(size);
    }
    return sizes;
  }

  /// What the driver says of a function that does not change while its
  /// module is loaded, asked once: a library's repeated launches then make
  /// no driver call but the launch.
  struct FunctionFacts {
    std::vector<size_t> paramSizes;
    int staticShared = 0;
    uint32_t optedShared = 0; ///< the dynamic shared memory opted into so far
  };

  FunctionFacts &factsOf(CUfunction f) {
    auto [it, fresh] = facts_.try_emplace(f);
    if (fresh) {
      it->second.paramSizes = paramSizes(f);
      d_.cuFuncGetAttribute(&it->second.staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    }
    return it->second;
  }

  /// Checks the configuration and parameters against the kernel and the
  /// device; opts the kernel into large dynamic shared memory and clusters.
  Status prepare(CUfunction f, std::string_view kernel, const LaunchConfig &c, KernelParams &params) {
    // built only for a message: a launch that is fine allocates nothing here
    auto k = [&] { return "kernel '" + baseName(kernel) + "'"; };
    if (c.grid.count() == 0 || c.block.count() == 0 || c.cluster.count() == 0)
      return Error{Error::InvalidArgument, k() + ": grid, block and cluster dimensions must be at least 1"};
    if (c.block.count() > 1024)
      return Error{Error::InvalidArgument, k() + ": a block has at most 1024 threads, not " +
                                               std::to_string(c.block.count()) + " (" + dims(c.block) + ")"};
    if (c.grid.x % c.cluster.x || c.grid.y % c.cluster.y || c.grid.z % c.cluster.z)
      return Error{Error::InvalidArgument,
                   k() + ": the grid " + dims(c.grid) + " is not a multiple of the cluster " + dims(c.cluster)};
    // A kernel the driver reports no parameters for is not checked: old
    // drivers and some images cannot say.
    FunctionFacts &facts = factsOf(f);
    const std::vector<size_t> &expected = facts.paramSizes;
    if (!expected.empty()) {
      bool same = expected.size() == params.count();
      for (size_t i = 0; same && i < expected.size(); ++i)
        same = expected[i] == params.size(i);
      if (!same) {
        auto list = [](auto sizeAt, size_t n) {
          std::string s;
          for (size_t i = 0; i < n; ++i)
            s += (i ? ", " : "") + std::to_string(sizeAt(i));
          return s;
        };
        return Error{Error::InvalidArgument, k() + " takes " + std::to_string(expected.size()) + " parameters of " +
                                                 list([&](size_t i) { return expected[i]; }, expected.size()) +
                                                 " bytes; " + std::to_string(params.count()) + " were given, of " +
                                                 list([&](size_t i) { return params.size(i); }, params.count()) +
                                                 " bytes"};
      }
    }
    const int staticShared = facts.staticShared;
    if (uint64_t(c.dynamicShared) + uint64_t(staticShared) > info_.sharedPerBlockOptin)
      return Error{Error::InvalidArgument, k() + " asks for " + std::to_string(c.dynamicShared) +
                                               " bytes of dynamic shared memory plus " + std::to_string(staticShared) +
                                               " static; this GPU allows " + std::to_string(info_.sharedPerBlockOptin) +
                                               " per block"};
    if (c.dynamicShared > 48 * 1024 && c.dynamicShared > facts.optedShared) {
      if (CUresult r = d_.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             static_cast<int>(c.dynamicShared));
          r != CUDA_SUCCESS)
        return fail(r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
      facts.optedShared = c.dynamicShared;
    }
    if (c.cluster.count() > 1) {
      if (!info_.clusters || !d_.cuLaunchKernelEx)
        return Error{Error::Unsupported, k() + ": this GPU or driver cannot launch clusters (compute capability 9.0 "
                                             "and CUDA 12 are needed)"};
      if (c.cluster.count() > 8)
        if (CUresult r = d_.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
            r != CUDA_SUCCESS)
          return fail(r, "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
    }
    return Ok{};
  }

  Status enqueue(CUfunction f, const LaunchConfig &c, KernelParams &params) { return enqueue(f, c, params, stream_); }

  Status enqueue(CUfunction f, const LaunchConfig &c, KernelParams &params, CUstream stream) {
    std::vector<void *> args = params.pointers();
    void **argv = args.empty() ? nullptr : args.data();
    if (d_.cuLaunchKernelEx) {
      CUlaunchAttribute attr{};
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = c.cluster.x;
      attr.value.clusterDim.y = c.cluster.y;
      attr.value.clusterDim.z = c.cluster.z;
      CUlaunchConfig cfg{};
      cfg.gridDimX = c.grid.x;
      cfg.gridDimY = c.grid.y;
      cfg.gridDimZ = c.grid.z;
      cfg.blockDimX = c.block.x;
      cfg.blockDimY = c.block.y;
      cfg.blockDimZ = c.block.z;
      cfg.sharedMemBytes = c.dynamicShared;
      cfg.hStream = stream;
      cfg.attrs = c.cluster.count() > 1 ? &attr : nullptr;
      cfg.numAttrs = c.cluster.count() > 1 ? 1 : 0;
      return check(d_.cuLaunchKernelEx(&cfg, f, argv, nullptr), "cuLaunchKernelEx");
    }
    return check(d_.cuLaunchKernel(f, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, c.dynamicShared,
                                   stream, argv, nullptr),
                 "cuLaunchKernel");
  }

  Status ensureEvents(size_t n) {
    while (events_.size() < n) {
      CUevent e = nullptr;
      if (CUresult r = d_.cuEventCreate(&e, CU_EVENT_DEFAULT); r != CUDA_SUCCESS)
        return fail(r, "cuEventCreate");
      events_.push_back(e);
    }
    return Ok{};
  }

  /// A buffer of twice the L2 size (at least 8 MiB) that each cold-L2 launch
  /// is preceded by a write of, which evicts the previous launch's lines.
  Status ensureScratch() {
    if (scratch_)
      return Ok{};
    size_t bytes = std::max<size_t>(size_t(2) * info_.l2Bytes, size_t(8) << 20);
    if (CUresult r = d_.cuMemAlloc(&scratch_, bytes); r != CUDA_SUCCESS)
      return fail(r, "cuMemAlloc of the L2 flush buffer");
    scratchBytes_ = bytes;
    return Ok{};
  }

  Driver &d_;
  CUdevice dev_;
  CUcontext ctx_;
  CUstream stream_;
  DeviceInfo info_;
  std::vector<CUmodule> modules_;
  std::map<std::pair<uint32_t, std::string>, CUfunction> functions_;
  std::map<CUfunction, FunctionFacts> facts_;
  std::vector<CUevent> events_;
  CUdeviceptr scratch_ = 0;
  size_t scratchBytes_ = 0;
  double defaultTimeout_ = 10;
  bool guest_ = false;
  CUmemoryPool pool_ = nullptr;
  bool wedged_ = false;
  std::string wedgedWhy_;
};

} // namespace

namespace {

Expected<std::unique_ptr<Runner>> openRunner(int ordinal, bool guest) {
  auto loaded = loadDriver();
  if (!loaded)
    return loaded.error();
  Driver &d = **loaded;
  int count = 0;
  if (CUresult r = d.cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return Error{Error::NoDevice, "cuDeviceGetCount failed with " + d.errorText(r)};
  if (count == 0)
    return Error{Error::NoDevice, "the CUDA driver sees no GPU"};
  if (ordinal < 0 || ordinal >= count)
    return Error{Error::NoDevice,
                 "there is no GPU " + std::to_string(ordinal) + "; the CUDA driver sees " + std::to_string(count)};
  CUdevice dev = 0;
  if (CUresult r = d.cuDeviceGet(&dev, ordinal); r != CUDA_SUCCESS)
    return Error{Error::NoDevice, "cuDeviceGet failed with " + d.errorText(r)};

  DeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  d.cuDeviceGetName(name, sizeof name, dev);
  info.name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    d.cuDeviceGetAttribute(&v, a, dev);
    return v;
  };
  info.major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.smCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2Bytes = static_cast<uint32_t>(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  info.sharedPerBlockOptin = static_cast<uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  info.sharedPerSm = static_cast<uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  info.clockKHz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info.clusters = attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  size_t total = 0;
  d.cuDeviceTotalMem(&total, dev);
  info.globalMemoryBytes = total;
  d.cuDriverGetVersion(&info.driverVersion);

  CUcontext ctx = nullptr;
  if (CUresult r = d.cuDevicePrimaryCtxRetain(&ctx, dev); r != CUDA_SUCCESS)
    return Error{Error::NoDevice, "cuDevicePrimaryCtxRetain failed with " + d.errorText(r) +
                                      " (is the GPU in exclusive-process mode and busy?)"};
  // A guest creates no stream and leaves the thread's current context alone.
  if (guest)
    return std::unique_ptr<Runner>(new CudaRunner(d, dev, ctx, nullptr, std::move(info), true));
  if (CUresult r = d.cuCtxSetCurrent(ctx); r != CUDA_SUCCESS) {
    d.cuDevicePrimaryCtxRelease(dev);
    return Error{Error::Driver, "cuCtxSetCurrent failed with " + d.errorText(r)};
  }
  CUstream stream = nullptr;
  if (CUresult r = d.cuStreamCreate(&stream, CU_STREAM_DEFAULT); r != CUDA_SUCCESS) {
    d.cuDevicePrimaryCtxRelease(dev);
    return Error{Error::Driver, "cuStreamCreate failed with " + d.errorText(r)};
  }
  return std::unique_ptr<Runner>(new CudaRunner(d, dev, ctx, stream, std::move(info), false));
}

} // namespace

Expected<std::unique_ptr<Runner>> makeRunner(int ordinal) { return openRunner(ordinal, false); }

Expected<std::unique_ptr<Runner>> makeGuestRunner(int ordinal) { return openRunner(ordinal, true); }

Expected<int> deviceOfAddress(DevicePtr address) {
  auto loaded = loadDriver();
  if (!loaded)
    return loaded.error();
  Driver &d = **loaded;
  if (!d.cuPointerGetAttribute)
    return Error{Error::Unsupported, "the CUDA driver lacks cuPointerGetAttribute"};
  if (address == 0)
    return Error{Error::InvalidArgument, "is a null pointer"};
  auto ptr = static_cast<CUdeviceptr>(address);
  if (d.cuPointerGetAttributes) {
    // the common case in one driver call (a library call checks every tensor); anything but plain
    // device memory takes the path below, which tells the cases apart
    CUpointer_attribute asked[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned int memoryType = 0;
    int ordinal = -1;
    void *answers[] = {&memoryType, &ordinal};
    if (d.cuPointerGetAttributes(2, asked, answers, ptr) == CUDA_SUCCESS && memoryType == CU_MEMORYTYPE_DEVICE &&
        ordinal >= 0)
      return ordinal;
  }
  unsigned int type = 0;
  CUresult r = d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr);
  if (r == CUDA_ERROR_INVALID_CONTEXT && d.cuCtxGetCurrent) {
    // Some drivers answer only with a current context: borrow the primary
    // context of GPU 0 for the question (kept retained: the runner that
    // follows retains it anyway).
    static CUcontext primary = [&] {
      CUdevice dev = 0;
      CUcontext ctx = nullptr;
      if (d.cuDeviceGet(&dev, 0) != CUDA_SUCCESS || d.cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
        return CUcontext(nullptr);
      return ctx;
    }();
    CUcontext previous = nullptr;
    if (primary && d.cuCtxGetCurrent(&previous) == CUDA_SUCCESS && d.cuCtxSetCurrent(primary) == CUDA_SUCCESS) {
      r = d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr);
      d.cuCtxSetCurrent(previous);
    }
  }
  if (r == CUDA_ERROR_INVALID_VALUE)
    return Error{Error::InvalidArgument, "is not memory that CUDA knows (a host pointer?); pass device memory"};
  if (r != CUDA_SUCCESS)
    return Error{Error::InvalidArgument, "cannot be located: cuPointerGetAttribute failed with " + d.errorText(r)};
  if (type == CU_MEMORYTYPE_HOST)
    return Error{Error::InvalidArgument, "is host memory (pinned or registered); pass device memory"};
  int ordinal = -1;
  if (CUresult o = d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr); o != CUDA_SUCCESS)
    return Error{Error::InvalidArgument, "cannot be located: cuPointerGetAttribute(DEVICE_ORDINAL) failed with " +
                                             d.errorText(o)};
  return ordinal;
}

} // namespace cake::runner
