// Role predicates and CTA barriers (bar.uniform), named barriers' ids (bar.ids) and the threads that reach
// them (bar.count). Each kernel is one case; roles.test names the lines.
#include <cstdint>

__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}

// __syncthreads() in the first warp only: the other three warps never arrive
__global__ void __launch_bounds__(128) first_warp_sync(float *out) {
  __shared__ float s[32];
  if (threadIdx.x < 32) {
    s[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
  }
}

// the same code in a block of one warp: every thread takes the branch (decided over the block: clean)
__global__ void __launch_bounds__(32) one_warp_block(float *out) {
  __shared__ float s[32];
  if (threadIdx.x < 32) {
    s[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
  }
}

// a producer and a consumer warpgroup handing data over a named barrier: clean
__global__ void __launch_bounds__(256) producer_consumer(float *out) {
  __shared__ float s[128];
  const int warp = threadIdx.x / 32;
  if (warp < 4) {
    s[threadIdx.x] = out[threadIdx.x];
    named_sync(1, 256);
  } else {
    named_sync(1, 256);
    out[threadIdx.x] = s[threadIdx.x - 128];
  }
}

// no launch bounds: the warps agree only in blocks of at most 128 threads (a note, not decided)
__global__ void unsized(float *out) {
  if (threadIdx.x / 32 < 4) {
    __syncthreads();
    out[threadIdx.x] = 0;
  }
}

// a grid-stride loop: each thread runs it a different number of times
__global__ void __launch_bounds__(128) strided(float *out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[i] = 0;
    __syncthreads();
  }
}

// named barrier 1 with two counts, a count that is not whole warps, a barrier that does not exist, an id that
// is not a constant
__global__ void __launch_bounds__(256) counts(float *out) {
  const int warp = threadIdx.x / 32;
  if (warp < 4)
    named_sync(1, 256);
  else
    named_sync(1, 128);
  named_sync(2, 100);
  named_sync(16, 256);
  named_sync(3 + warp / 4, 128);
  out[threadIdx.x] = 0;
}

// a 32x4 block: threadIdx.x spans blockDim.x, not the block's 128 threads; whether every thread takes the
// branch depends on the launch's shape (a note, not decided)
__global__ void __launch_bounds__(128) two_dimensional(float *out) {
  __shared__ float s[128];
  if (threadIdx.x < 32) {
    s[threadIdx.y * 32 + threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x];
  }
}

__device__ __forceinline__ void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(threads) : "memory");
}

// bar.count: the threads that use an id, over all its uses, against its count. Warps 0-1 (64 threads) sync on
// a barrier of 128; both halves of the block sync on barrier 7 of 128 each (256 threads: the halves mix); the
// arrive of warps 0-3 and the sync of warps 4-7 on barrier 9 are 256 of 256 (clean), as are barriers 10 and 11
// of one warpgroup each (an id each thread computes).
__global__ void __launch_bounds__(256) thread_counts(float *out) {
  const int warp = threadIdx.x / 32;
  if (warp < 2)
    named_sync(6, 128);
  if (warp < 4)
    named_sync(7, 128);
  else
    named_sync(7, 128);
  if (warp < 4)
    named_arrive(9, 256);
  else
    named_sync(9, 256);
  named_sync(10 + warp / 4, 128);
  out[threadIdx.x] = 0;
}

// a named barrier one lane of each warp reaches (bar.uniform); the warps past an early return do not count
__global__ void __launch_bounds__(256) lanes_and_exits(float *out) {
  if (threadIdx.x % 32 == 0)
    named_sync(1, 256);
  if (threadIdx.x >= 128)
    return;
  named_sync(2, 128);
  out[threadIdx.x] = 0;
}

// an id read from memory: which barrier each thread uses is not decided (a note), and no count is compared
__global__ void __launch_bounds__(128) data_id(const int *ids, float *out) {
  named_sync(ids[0], 128);
  if (threadIdx.x < 64)
    named_sync(3, 128);
  out[threadIdx.x] = 0;
}
