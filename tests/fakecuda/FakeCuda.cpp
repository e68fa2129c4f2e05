//===- FakeCuda.cpp - A stand-in libcuda for testing `cake run` -----------===//
//
// Part of CAKE's tests. The driver entry points the runner uses, with no GPU
// behind them: one "CAKE fake GPU" (compute capability 9.0), device memory
// in host memory, launches that do nothing, and events that report fixed
// times. A kernel whose name contains "hang" never finishes: stream and event
// queries answer CUDA_ERROR_NOT_READY forever, which is how the runner's
// timeout and `cake run`'s exit code 3 are tested on a machine without a GPU.
// With CAKE_FAKE_HANG_SITE=N such a launch also fills the run's hang record
// (the 40-byte mapped host allocation `cake run --watch-hangs` makes) as a
// watched wait at site N would, so run.hang and what it names are tested too.
// With CAKE_FAKE_HANG_DEVICE=V every launch hangs in a process whose
// CUDA_VISIBLE_DEVICES is V: one broken GPU of several (tests/lit/cli/bench-gpus.test).
//
// Loaded by `cake run` through CAKE_LIBCUDA (tests/lit/runner/fake-driver.test),
// and by libcake_kmeans.so in its host-path test (tests/unit/KMeansLibTest.cpp):
// memory it handed out is device memory of GPU 0 to cuPointerGetAttribute,
// anything else is unknown; the stream kForeignStream belongs to another
// context.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <mutex>
#include <string>

namespace {

std::atomic<bool> hung{false};
void *hangRecord = nullptr; // the newest mapped host allocation the size of cake::rt::HangRecord
std::atomic<int> eventsTimed{0};

struct FakeModule {
  std::string image;
};
struct FakeFunction {
  std::string name;
};

// Every allocation: address -> (bytes, host memory?).
std::mutex memoryMutex;
std::map<uintptr_t, std::pair<size_t, bool>> memory;

void *allocate(size_t bytes, bool host) {
  void *p = std::calloc(1, bytes ? bytes : 1);
  if (p) {
    std::lock_guard lock(memoryMutex);
    memory[reinterpret_cast<uintptr_t>(p)] = {bytes, host};
  }
  return p;
}
void release(void *p) {
  {
    std::lock_guard lock(memoryMutex);
    memory.erase(reinterpret_cast<uintptr_t>(p));
  }
  std::free(p);
}
/// 0: unknown, 1: device, 2: host.
int memoryType(uintptr_t p) {
  std::lock_guard lock(memoryMutex);
  auto it = memory.upper_bound(p);
  if (it == memory.begin())
    return 0;
  --it;
  if (p >= it->first + std::max<size_t>(it->second.first, 1))
    return 0;
  return it->second.second ? 2 : 1;
}

int primaryContext, otherContext;
thread_local CUcontext current = nullptr;
const CUstream kForeignStream = reinterpret_cast<CUstream>(uintptr_t(0xf0e1));

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
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
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
  *ctx = reinterpret_cast<CUcontext>(&primaryContext);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext ctx) {
  current = ctx;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *ctx) {
  *ctx = current;
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream s, CUcontext *ctx) {
  *ctx = reinterpret_cast<CUcontext>(s == kForeignStream ? &otherContext : &primaryContext);
  return CUDA_SUCCESS;
}
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr p) {
  int type = memoryType(p);
  if (!type)
    return CUDA_ERROR_INVALID_VALUE;
  if (a == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
    *static_cast<unsigned int *>(data) = type == 2 ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
  else if (a == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
    *static_cast<int *>(data) = 0;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

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

/// Whether this process's GPU is the broken one: CAKE_FAKE_HANG_DEVICE names a CUDA_VISIBLE_DEVICES value whose
/// every launch hangs (a GPU that stopped answering; `cake bench --gpus` moves its work elsewhere).
static bool brokenDevice() {
  const char *broken = std::getenv("CAKE_FAKE_HANG_DEVICE"), *visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return broken && visible && std::string(broken) == visible;
}

static CUresult launch(CUfunction f) {
  if (reinterpret_cast<FakeFunction *>(f)->name.find("hang") == std::string::npos && !brokenDevice())
    return CUDA_SUCCESS;
  hung = true;
  if (const char *site = std::getenv("CAKE_FAKE_HANG_SITE"); site && hangRecord) {
    // cake::rt::HangRecord: hung, site, parity, block x/y/z, thread, barrier (u32), then waited ns (u64)
    uint32_t fields[8] = {1, uint32_t(std::atoi(site)), 0, 0, 0, 0, 0, 0};
    uint64_t waited = 200000000;
    std::memcpy(hangRecord, fields, sizeof(fields));
    std::memcpy(static_cast<char *>(hangRecord) + sizeof(fields), &waited, sizeof(waited));
  }
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                        void **, void **) {
  return launch(f);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *, CUfunction f, void **, void **) { return launch(f); }

CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  *p = reinterpret_cast<CUdeviceptr>(allocate(bytes, false));
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFree(CUdeviceptr p) {
  release(reinterpret_cast<void *>(p));
  return CUDA_SUCCESS;
}
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int) {
  *p = allocate(bytes, true);
  if (*p && bytes == 8 * sizeof(uint32_t) + sizeof(uint64_t))
    hangRecord = *p;
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemHostGetDevicePointer(CUdeviceptr *d, void *p, unsigned int) {
  *d = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
CUresult cuMemFreeHost(void *p) {
  release(p);
  return CUDA_SUCCESS;
}
CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *) {
  static int fakePool;
  *pool = reinterpret_cast<CUmemoryPool>(&fakePool);
  return CUDA_SUCCESS;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void *) { return CUDA_SUCCESS; }
CUresult cuMemPoolDestroy(CUmemoryPool) { return CUDA_SUCCESS; }
// The pool keeps what it is given (as the runner's does, its release
// threshold unlimited): a block freed on a stream is handed out again for the
// next allocation of the same size, at the same address, as the driver's pool
// does for a library that allocates and frees the same scratch every call.
std::mutex poolMutex;
std::set<uintptr_t> fromPool;
std::multimap<size_t, uintptr_t> poolFree;
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t bytes, CUmemoryPool, CUstream) {
  {
    std::lock_guard lock(poolMutex);
    if (auto it = poolFree.find(bytes); it != poolFree.end()) {
      *p = it->second;
      poolFree.erase(it);
      std::lock_guard memoryLock(memoryMutex);
      memory[*p] = {bytes, false};
      return CUDA_SUCCESS;
    }
  }
  *p = reinterpret_cast<CUdeviceptr>(allocate(bytes, false));
  if (!*p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard lock(poolMutex);
  fromPool.insert(*p);
  return CUDA_SUCCESS;
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream) {
  std::lock_guard lock(poolMutex);
  if (fromPool.count(p)) {
    std::lock_guard memoryLock(memoryMutex);
    auto it = memory.find(p);
    if (it == memory.end())
      return CUDA_ERROR_INVALID_VALUE; // freed twice
    poolFree.emplace(it->second.first, p);
    memory.erase(it);
    return CUDA_SUCCESS;
  }
  release(reinterpret_cast<void *>(p));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) {
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *c, CUstream) {
  for (size_t r = 0; r < c->Height; ++r)
    std::memcpy(reinterpret_cast<char *>(c->dstDevice) + r * c->dstPitch,
                reinterpret_cast<const char *>(c->srcDevice) + r * c->srcPitch, c->WidthInBytes);
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
CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }
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
