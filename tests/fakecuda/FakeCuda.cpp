//===- FakeCuda.cpp - A stand-in libcuda for testing `cake run` -----------===//
//
// Part of CAKE's tests. The driver entry points the runner uses, with no GPU
// behind them: one "CAKE fake GPU" (compute capability 9.0), device memory
// in host memory, launches that do nothing, and events that report fixed
// times. A kernel whose name contains "hang" never finishes: stream and event
// queries answer CUDA_ERROR_NOT_READY forever, which is how the runner's
// timeout and `cake run`'s exit code 3 are tested on a machine without a GPU.
//
// Loaded by `cake run` through CAKE_LIBCUDA (tests/lit/runner/fake-driver.test).
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::atomic<bool> hung{false};
std::atomic<int> eventsTimed{0};

struct FakeModule {
  std::string image;
};
struct FakeFunction {
  std::string name;
};

} // namespace

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = r == CUDA_ERROR_NOT_READY ? "CUDA_ERROR_NOT_READY" : r == CUDA_ERROR_NOT_FOUND ? "CUDA_ERROR_NOT_FOUND"
                                                                                       : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char **s) {
  *s = "fake driver error";
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice) {
  std::strncpy(name, "CAKE fake GPU", static_cast<size_t>(len));
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *v = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *v = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *v = 1 << 20; // small, so that the cold-L2 buffer is cheap
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *v = 232448;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    *v = 233472;
    break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    *v = 1980000;
    break;
  case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
    *v = 1;
    break;
  default:
    *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = size_t(80) << 30;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice) {
  static int context;
  *ctx = reinterpret_cast<CUcontext>(&context);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int, CUjit_option *, void **) {
  const char *bytes = static_cast<const char *>(image);
  size_t size = 0;
  if (std::memcmp(bytes, "\x7f"
                         "ELF",
                  4) == 0) {
    // e_shoff + e_shnum * e_shentsize bounds the ELF file.
    uint64_t shoff;
    uint16_t shentsize, shnum;
    std::memcpy(&shoff, bytes + 0x28, 8);
    std::memcpy(&shentsize, bytes + 0x3a, 2);
    std::memcpy(&shnum, bytes + 0x3c, 2);
    size = shoff + uint64_t(shentsize) * shnum;
  } else {
    size = std::strlen(bytes);
  }
  *m = reinterpret_cast<CUmodule>(new FakeModule{std::string(bytes, size)});
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) {
  delete reinterpret_cast<FakeModule *>(m);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  const std::string &image = reinterpret_cast<FakeModule *>(m)->image;
  if (image.find(std::string(name) + '\0') == std::string::npos && image.find(std::string(name) + '(') == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(new FakeFunction{name});
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction) {
  *v = a == CU_FUNC_ATTRIBUTE_NUM_REGS ? 16 : a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 0;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }

static CUresult launch(CUfunction f) {
  if (reinterpret_cast<FakeFunction *>(f)->name.find("hang") != std::string::npos)
    hung = true;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                        void **, void **) {
  return launch(f);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *, CUfunction f, void **, void **) { return launch(f); }

CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  *p = reinterpret_cast<CUdeviceptr>(std::calloc(1, bytes));
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFree(CUdeviceptr p) {
  std::free(reinterpret_cast<void *>(p));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream) {
  std::memset(reinterpret_cast<void *>(dst), value, bytes);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *s, unsigned int) {
  static int stream;
  *s = reinterpret_cast<CUstream>(&stream);
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream) { return hung ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent *e, unsigned int) {
  *e = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent e) {
  delete reinterpret_cast<int *>(e);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent) { return hung ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
/// 0.100, 0.101, ... 0.104 ms, repeating: a median of 0.102 ms.
CUresult cuEventElapsedTime(float *ms, CUevent, CUevent) {
  *ms = 0.1f + 0.001f * static_cast<float>(eventsTimed++ % 5);
  return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType, cuuint32_t rank, void *, const cuuint64_t *,
                                const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  std::memset(map, 0, sizeof *map);
  map->opaque[0] = rank;
  return CUDA_SUCCESS;
}

} // extern "C"
