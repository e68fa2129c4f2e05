// The CUDA C++ APIs come down to the operations the rules read: cuda::ptx's wrappers, cooperative_groups'
// block sync and cuda::barrier (apis.test prints what the checker sees with --cuda-events).
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void __launch_bounds__(128) ptx_wrappers(float *out) {
  __shared__ uint64_t bar;
  __shared__ float tile[128];
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  cg::this_thread_block().sync();
  tile[threadIdx.x] = 1.0f;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  out[threadIdx.x] = tile[threadIdx.x];
}

__global__ void __launch_bounds__(128) library_barrier(float *out) {
  __shared__ __align__(16) unsigned char storage[sizeof(block_barrier)];
  block_barrier &b = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0)
    init(&b, 128);
  __syncthreads();
  auto token = b.arrive();
  b.wait(std::move(token));
  out[threadIdx.x] = 0;
}
