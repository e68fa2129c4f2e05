//===- cake_device.cuh - CAKE device runtime ------------------------------===//
//
// The primitives that lowered CAKE kernels call: one small inline function per
// PTX instruction form, written in inline PTX. Header-only, no dependencies
// beyond the CUDA builtins (and <cuda.h> for CUtensorMap under nvcc), so it
// works under nvcc and NVRTC alike.
//
// Conventions (docs/runtime.md):
//   - Shared-memory addresses are u32 values in the .shared::cta window, as
//     returned by smem_addr(); TMEM addresses are u32 as written by
//     tcgen05_alloc(); global addresses are ordinary pointers.
//   - Names follow the PTX instruction: mbarrier_arrive_expect_tx is
//     mbarrier.arrive.expect_tx, bulk_wait_group_read<N> is
//     cp.async.bulk.wait_group.read N. Operands come in PTX order
//     (destination first), except that TMA coordinates always come last,
//     innermost dimension first.
//   - Counts that PTX wants as immediates (wait_group N, setmaxnreg, ldmatrix
//     .trans, wgmma shapes) are template parameters.
//   - Every function exists in the host pass (so kernel bodies parse there);
//     in a device pass it exists only when the target has the instruction.
//     The CAKE_RT_* macros below say which groups a target has.
//
//===----------------------------------------------------------------------===//
#pragma once

// --- Target capabilities -----------------------------------------------------
//
// CAKE_RT_SM80     cp.async, mbarrier (no tx), ldmatrix, mma.sync, bf16 cvt
// CAKE_RT_SM90     + elect.sync, mbarrier tx / try_wait, clusters, TMA, stmatrix,
//                    fence.proxy.async (sm_90, sm_90a, sm_100a, ...)
// CAKE_RT_SM90A    + wgmma                                (sm_90a only)
// CAKE_RT_SETMAXNREG  setmaxnreg                          (sm_90a, sm_100a)
// CAKE_RT_TMA_MULTICAST  TMA .multicast::cluster           (sm_90a, sm_100a; on
//                    plain sm_90 ptxas flags it as slow on future parts)
// CAKE_RT_SM100A   + tcgen05 / tensor memory              (sm_100a)
//
// In the host pass (no __CUDA_ARCH__) every macro is 1: the host compiler sees
// declarations only and generates no device code.
#if !defined(__CUDA_ARCH__)
#define CAKE_RT_SM80 1
#define CAKE_RT_SM90 1
#define CAKE_RT_SM90A 1
#define CAKE_RT_SETMAXNREG 1
#define CAKE_RT_TMA_MULTICAST 1
#define CAKE_RT_SM100A 1
#else
#if __CUDA_ARCH__ < 800
#error "cake_device.cuh needs sm_80 or newer"
#endif
#define CAKE_RT_SM80 1
#if __CUDA_ARCH__ >= 900
#define CAKE_RT_SM90 1
#else
#define CAKE_RT_SM90 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CAKE_RT_SM90A 1
#else
#define CAKE_RT_SM90A 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define CAKE_RT_SM100A 1
#else
#define CAKE_RT_SM100A 0
#endif
#if CAKE_RT_SM90A || CAKE_RT_SM100A
#define CAKE_RT_SETMAXNREG 1
#define CAKE_RT_TMA_MULTICAST 1
#else
#define CAKE_RT_SETMAXNREG 0
#define CAKE_RT_TMA_MULTICAST 0
#endif
#endif

// --- CUtensorMap ---------------------------------------------------------------
//
// TMA instructions take the address of a 128-byte tensor map that the host
// encodes (cuTensorMapEncodeTiled) and passes as a __grid_constant__ kernel
// parameter. NVRTC cannot include <cuda.h>, so there we declare the type with
// the same name, size and alignment. The alignment follows the toolkit's
// <cuda.h> (128 from CUDA 13, 64 before; TMA needs 64), so a kernel's
// parameter layout is the same whichever way it was compiled. Define
// CAKE_RT_NO_CUTENSORMAP to provide the type yourself.
#if !defined(CAKE_RT_NO_CUTENSORMAP)
#if defined(__CUDACC_RTC__) || !defined(__has_include)
#define CAKE_RT_DECLARE_CUTENSORMAP 1
#elif __has_include(<cuda.h>)
#include <cuda.h>
#else
#define CAKE_RT_DECLARE_CUTENSORMAP 1
#endif
#if defined(CAKE_RT_DECLARE_CUTENSORMAP) && !defined(__cuda_cuda_h__)
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 13
#define CAKE_RT_TENSORMAP_ALIGN 128
#else
#define CAKE_RT_TENSORMAP_ALIGN 64
#endif
struct alignas(CAKE_RT_TENSORMAP_ALIGN) CUtensorMap {
  unsigned long long opaque[16];
};
#endif
#endif

namespace cake::rt {

using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;

// ============================================================================
// Small helpers
// ============================================================================

/// cvta.to.shared.u64 + cvt.u32.u64: a generic pointer into shared memory as a
/// 32-bit .shared::cta address, the form every shared-memory operand below takes.
__device__ __forceinline__ u32 smem_addr(const void* p) {
  u32 addr;
  asm("{\n.reg .u64 s;\ncvta.to.shared.u64 s, %1;\ncvt.u32.u64 %0, s;\n}\n" : "=r"(addr) : "l"(p));
  return addr;
}

/// cvt.rn.bf16x2.f32: two floats to packed bf16x2, `lo` in bits 0-15.
__device__ __forceinline__ u32 pack_bf16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

/// cvt.rn.bf16x2.f32: float2 {x, y} to packed bf16x2, x in bits 0-15.
__device__ __forceinline__ u32 pack_bf16x2(float2 v) { return pack_bf16x2(v.x, v.y); }

/// cvt.rn.f16x2.f32: two floats to packed f16x2, `lo` in bits 0-15.
__device__ __forceinline__ u32 pack_f16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

/// cvt.rna.tf32.f32: round a float to tf32 (the mma.sync tf32 operand format).
__device__ __forceinline__ u32 to_tf32(float x) {
  u32 r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

/// Empty asm that claims to read and write each register: keeps the compiler
/// from moving uses of asynchronously written registers (wgmma accumulators,
/// tcgen05.ld results) across the wait that makes them valid.
template <int N>
__device__ __forceinline__ void fence_operands(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

/// As above for 32-bit integer registers.
template <int N>
__device__ __forceinline__ void fence_operands(u32 (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// ============================================================================
// Identity
// ============================================================================

/// mov.u32 %laneid: the lane within the warp, 0..31.
__device__ __forceinline__ u32 lane_id() {
  u32 lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

/// shfl.sync.idx: the warp's index in the (1-D) CTA, threadIdx.x / 32, broadcast
/// from lane 0 so the compiler knows it is warp-uniform.
__device__ __forceinline__ u32 warp_id() { return __shfl_sync(0xffffffffu, threadIdx.x / 32, 0); }

/// The lowest lane of the warp that executes this call (the lane that stores
/// an element replicated over the warp, even under a branch lane 0 skipped).
__device__ __forceinline__ u32 first_active_lane() { return __ffs(__activemask()) - 1; }

/// The warpgroup's index in the CTA (4 aligned warps = 128 threads).
__device__ __forceinline__ u32 warpgroup_id() { return warp_id() / 4; }

#if CAKE_RT_SM90
/// elect.sync: true on exactly one active lane of `mask` (sm_90+).
__device__ __forceinline__ bool elect_sync(u32 mask = 0xffffffffu) {
  u32 elected;
  asm volatile(
      "{\n.reg .pred p;\n"
      "elect.sync _|p, %1;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(elected)
      : "r"(mask));
  return elected != 0;
}
#endif

/// One thread of a fully active warp: elect.sync on sm_90+, lane 0 on sm_80.
__device__ __forceinline__ bool elect_one() {
#if CAKE_RT_SM90
  return elect_sync();
#else
  return lane_id() == 0;
#endif
}

#if CAKE_RT_SM90
/// mov.u32 %cluster_ctarank: this CTA's rank in its cluster.
__device__ __forceinline__ u32 cluster_ctarank() {
  u32 r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// mov.u32 %cluster_nctarank: the number of CTAs in the cluster.
__device__ __forceinline__ u32 cluster_nctarank() {
  u32 r;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

/// mov.u32 %clusterid.{x,y,z}: the cluster's index in the grid along `dim`.
__device__ __forceinline__ u32 cluster_id(int dim) {
  u32 r;
  if (dim == 0)
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(r));
  else if (dim == 1)
    asm("mov.u32 %0, %%clusterid.y;" : "=r"(r));
  else
    asm("mov.u32 %0, %%clusterid.z;" : "=r"(r));
  return r;
}

/// mapa.shared::cluster.u32: the address of the same shared variable in the CTA
/// of rank `cta_rank` in this cluster.
__device__ __forceinline__ u32 mapa_shared(u32 addr, u32 cta_rank) {
  u32 r;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(cta_rank));
  return r;
}
#endif

// ============================================================================
// mbarrier
// ============================================================================
//
// `bar` is the u32 shared address of a 64-bit mbarrier object. The compiler
// derives every count, phase parity and byte count (language.md section 8.3);
// these functions only issue the instructions.

/// mbarrier.init.shared::cta.b64: set the expected arrival count of a barrier.
__device__ __forceinline__ void mbarrier_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

/// mbarrier.arrive.shared::cta.b64: one arrival; returns the phase state token
/// (needed only by mbarrier_test_wait).
__device__ __forceinline__ u64 mbarrier_arrive(u32 bar) {
  u64 state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
  return state;
}

/// mbarrier.test_wait.shared::cta.b64: has the phase of `state` (from
/// mbarrier_arrive) completed? Non-blocking.
__device__ __forceinline__ bool mbarrier_test_wait(u32 bar, u64 state) {
  u32 done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "l"(state)
      : "memory");
  return done != 0;
}

/// mbarrier.test_wait.parity.shared::cta.b64: has the phase with parity
/// `parity` completed? Non-blocking; the sm_80 form of a parity wait.
__device__ __forceinline__ bool mbarrier_test_wait_parity(u32 bar, u32 parity) {
  u32 done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

/// cp.async.mbarrier.arrive.noinc.shared::cta.b64: arrive on `bar` when all of
/// this thread's earlier cp.async copies complete. .noinc: the arrival counts
/// against the barrier's initial count (one per producer thread).
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc(u32 bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

#if CAKE_RT_SM90
/// fence.mbarrier_init.release.cluster: make preceding mbarrier.init visible to
/// the cluster (async proxy included) before the barrier that publishes them.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// mbarrier.arrive.shared::cta.b64 with a count: `count` arrivals at once.
__device__ __forceinline__ u64 mbarrier_arrive(u32 bar, u32 count) {
  u64 state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(bar), "r"(count) : "memory");
  return state;
}

/// mbarrier.arrive.expect_tx.shared::cta.b64: add `bytes` to the phase's
/// expected transaction count, then arrive once (a TMA producer's commit).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile(
      "{\n.reg .b64 state;\n"
      "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

/// mbarrier.expect_tx.relaxed.cta.shared::cta.b64: add `bytes` to the expected
/// transaction count without arriving.
__device__ __forceinline__ void mbarrier_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

/// mbarrier.try_wait.parity.shared::cta.b64: wait (for a hardware-chosen time)
/// for the phase with parity `parity` to complete; false if it has not yet.
__device__ __forceinline__ bool mbarrier_try_wait_parity(u32 bar, u32 parity) {
  u32 done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

/// mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64: as
/// mbarrier_try_wait_parity, acquiring at cluster scope: the wait that pairs
/// with mbarrier_arrive_remote releases from peer CTAs (cluster rings).
__device__ __forceinline__ bool mbarrier_try_wait_parity_cluster(u32 bar, u32 parity) {
  u32 done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

/// Spin on mbarrier_try_wait_parity_cluster.
__device__ __forceinline__ void mbarrier_wait_parity_cluster(u32 bar, u32 parity) {
  while (!mbarrier_try_wait_parity_cluster(bar, parity)) {
  }
}

/// mapa.shared::cluster.u32 + mbarrier.arrive.release.cluster.shared::cluster.b64:
/// one arrival on the barrier at the same address in CTA `cta_rank` of the
/// cluster (a cluster ring's release to a peer CTA).
__device__ __forceinline__ void mbarrier_arrive_remote(u32 bar, u32 cta_rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(cta_rank)
      : "memory");
}
#endif  // CAKE_RT_SM90

/// Spin until the phase with parity `parity` completes:
/// mbarrier.try_wait.parity on sm_90+, mbarrier.test_wait.parity on sm_80.
__device__ __forceinline__ void mbarrier_wait_parity(u32 bar, u32 parity) {
#if CAKE_RT_SM90
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
#else
  while (!mbarrier_test_wait_parity(bar, parity)) {
  }
#endif
}

/// As mbarrier_wait_parity, but gives up after `spin_limit` polls and returns
/// false (the hang watchdog reports which barrier and parity stalled).
__device__ __forceinline__ bool mbarrier_wait_parity_bounded(u32 bar, u32 parity, u32 spin_limit) {
  for (u32 i = 0; i < spin_limit; ++i) {
#if CAKE_RT_SM90
    if (mbarrier_try_wait_parity(bar, parity)) return true;
#else
    if (mbarrier_test_wait_parity(bar, parity)) return true;
#endif
  }
  return false;
}

// ============================================================================
// Support for generated code (compiler/lower/)
// ============================================================================

/// ld.shared.u32 at a .shared address.
__device__ __forceinline__ u32 ld_shared_u32(u32 addr) {
  u32 v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

/// st.shared.u32 at a .shared address.
__device__ __forceinline__ void st_shared_u32(u32 addr, u32 v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

/// st.shared.u16 at a .shared address.
__device__ __forceinline__ void st_shared_u16(u32 addr, u16 v) {
  asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(v) : "memory");
}

/// Copies `Bytes` (2, 4, 8 or 16, naturally aligned) from a .shared address into registers: a warp's chunk of
/// a row of a shared tile (ld.shared of a row, lowering.md). Volatile with a memory clobber as the other shared
/// accesses, so that it stays after the ring wait that made the tile visible.
template <int Bytes, typename T>
__device__ __forceinline__ void ld_shared_bytes(T* dst, u32 addr) {
  static_assert(Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16, "ld_shared_bytes: 2, 4, 8 or 16 bytes");
  if constexpr (Bytes == 16) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr) : "memory");
    *reinterpret_cast<uint4*>(dst) = v;
  } else if constexpr (Bytes == 8) {
    uint2 v;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(addr) : "memory");
    *reinterpret_cast<uint2*>(dst) = v;
  } else if constexpr (Bytes == 4) {
    *reinterpret_cast<u32*>(dst) = ld_shared_u32(addr);
  } else {
    u16 v;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(addr) : "memory");
    *reinterpret_cast<u16*>(dst) = v;
  }
}

/// ld.shared.v2.f32 at a .shared address (8-byte aligned).
__device__ __forceinline__ float2 ld_shared_f32x2(u32 addr) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr) : "memory");
  return v;
}

/// An fp16 bit pattern as a float (exact).
__device__ __forceinline__ float f16_to_f32(u16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}

/// A bf16 bit pattern as a float (exact).
__device__ __forceinline__ float bf16_to_f32(u16 h) { return __uint_as_float(static_cast<u32>(h) << 16); }

/// Copies `Bytes` (2, 4, 8 or 16, naturally aligned) from global memory into registers.
template <int Bytes, class T>
__device__ __forceinline__ void ld_global_bytes(T* dst, const void* src) {
  static_assert(Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16, "ld_global_bytes: 2, 4, 8 or 16 bytes");
  if constexpr (Bytes == 16) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (Bytes == 8) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
  } else if constexpr (Bytes == 4) {
    *reinterpret_cast<u32*>(dst) = *reinterpret_cast<const u32*>(src);
  } else {
    *reinterpret_cast<u16*>(dst) = *reinterpret_cast<const u16*>(src);
  }
}

/// Copies `Bytes` (2, 4, 8 or 16, naturally aligned) from registers into global memory.
template <int Bytes, class T>
__device__ __forceinline__ void st_global_bytes(void* dst, const T* src) {
  static_assert(Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16, "st_global_bytes: 2, 4, 8 or 16 bytes");
  if constexpr (Bytes == 16) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (Bytes == 8) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
  } else if constexpr (Bytes == 4) {
    *reinterpret_cast<u32*>(dst) = *reinterpret_cast<const u32*>(src);
  } else {
    *reinterpret_cast<u16*>(dst) = *reinterpret_cast<const u16*>(src);
  }
}

/// Ceiling division of non-negative integers.
__host__ __device__ __forceinline__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }

/// The canonical shared-memory swizzle (docs/language.md 4.5) applied to an
/// absolute .shared address inside a tile aligned to its swizzle repeat: the
/// 16-byte chunk index is XORed with the row within each 8-row atom.
template <int Bytes>
__device__ __forceinline__ u32 swizzle(u32 addr) {
  static_assert(Bytes == 0 || Bytes == 32 || Bytes == 64 || Bytes == 128, "swizzle: 0, 32, 64 or 128 bytes");
  if constexpr (Bytes == 0) {
    return addr;
  } else {
    constexpr u32 mask = Bytes == 128 ? 7u : Bytes == 64 ? 3u : 1u;
    return addr ^ (((addr >> 7) & mask) << 4);
  }
}

/// What a watched barrier wait that timed out leaves for the host (host-mapped
/// memory, readable after the kernel traps). `site` indexes the lowering's
/// table of wait sites (LoweredKernel::waits), which names the IR operation.
struct HangRecord {
  u32 hung;   ///< 0 until a wait times out; then 1 (the first one wins)
  u32 site;
  u32 parity;
  u32 block_x, block_y, block_z;
  u32 thread;
  u32 barrier; ///< .shared address of the barrier
  u64 waited_ns;
};

/// %globaltimer: nanoseconds.
__device__ __forceinline__ u64 global_timer_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Records the first timed-out wait (the first thread wins) and traps. Out of
/// line and noreturn, with four 32-bit arguments: the watched path must cost a role
/// at its setmaxnreg ceiling no registers. An inline copy per wait site made
/// ptxas spill (1.2 KB in the KMeans assignment) and serialize its wgmma; a
/// call that may return makes it keep every live register across the call by
/// the ABI, which fails register allocation (C7600 at regs(232) in the
/// warp-specialized GEMM consumer). Both measured with ptxas 13.0 (issue #14).
__device__ __noinline__ __attribute__((noreturn)) void hang_trap(HangRecord* record, u32 site_parity, u32 bar, u32 start) {
  if (atomicCAS(&record->hung, 0u, 1u) == 0u) {
    record->site = site_parity >> 1;
    record->parity = site_parity & 1u;
    record->block_x = blockIdx.x;
    record->block_y = blockIdx.y;
    record->block_z = blockIdx.z;
    record->thread = threadIdx.x;
    record->barrier = bar;
    record->waited_ns = u64(static_cast<u32>(global_timer_ns() >> 10) - start) << 10;
    __threadfence_system();
  }
  asm volatile("trap;");
  __builtin_unreachable();
}

/// mbarrier_wait_parity with a deadline: after `timeout_ns` the first thread
/// to give up records where it waited and every giving-up thread traps, so a
/// schedule that would hang ends the launch with a located report instead.
/// The fast path is one try_wait, as in the unwatched build; the clock is read
/// only once the barrier has not completed, and the slow loop keeps one
/// register of state (its start, in units of 1024 ns, 32 bits: it wraps after
/// 73 minutes).
__device__ __forceinline__ void watched_wait(u32 bar, u32 parity, HangRecord* record, u32 site, u64 timeout_ns) {
#if CAKE_RT_SM90
  if (mbarrier_try_wait_parity(bar, parity)) return;
#else
  if (mbarrier_test_wait_parity(bar, parity)) return;
#endif
  const u32 limit = static_cast<u32>(timeout_ns >> 10);
  const u32 start = static_cast<u32>(global_timer_ns() >> 10);
  while (true) {
#if CAKE_RT_SM90
    if (mbarrier_try_wait_parity(bar, parity)) return;
#else
    if (mbarrier_test_wait_parity(bar, parity)) return;
#endif
    if (static_cast<u32>(global_timer_ns() >> 10) - start > limit) hang_trap(record, site << 1 | (parity & 1u), bar, start);
  }
}

// ============================================================================
// Atomics and reductions (language.md 10.12)
// ============================================================================
//
// red.* when the old value is not needed (an atomic used as a statement),
// atom.* when it is. Every form is .relaxed at the scope `S` (the language's
// defaults: scope = gpu, sem = relaxed); the generated code passes the scope
// as a template argument. Vector forms (.v2/.v4.f32) exist on sm_90+ and need
// an address aligned to the vector's bytes. PTX has no fp32 min/max atomics:
// red/atom_global_{min,max}_f32 order the bit patterns as integers (sign bit
// clear: signed max/min; sign bit set: unsigned min/max), which is exact for
// every non-NaN float, -0.0 included.

/// The scope of an atomic: .cta, .gpu or .sys.
enum class Scope { Cta, Gpu, Sys };

// asm volatile(HEAD ".cta" TAIL OPERANDS) for the scope S (one asm per scope:
// PTX wants the qualifier in the instruction text).
#define CAKE_RT_SCOPED_ASM(S, HEAD, TAIL, ...)                                        \
  do {                                                                              \
    if constexpr ((S) == ::cake::rt::Scope::Cta) asm volatile(HEAD ".cta" TAIL __VA_ARGS__); \
    else if constexpr ((S) == ::cake::rt::Scope::Gpu) asm volatile(HEAD ".gpu" TAIL __VA_ARGS__); \
    else asm volatile(HEAD ".sys" TAIL __VA_ARGS__);                                \
  } while (0)

/// red.relaxed.S.global.add.f32: *p += v.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_add_f32(float* p, float v) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.add.f32 [%0], %1;", ::"l"(p), "f"(v) : "memory");
}

#if CAKE_RT_SM90
/// red.relaxed.S.global.add.v2.f32: p[0] += a, p[1] += b (p 8-byte aligned).
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_add_v2_f32(float* p, float a, float b) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.add.v2.f32 [%0], {%1, %2};", ::"l"(p), "f"(a), "f"(b) : "memory");
}

/// red.relaxed.S.global.add.v4.f32: p[0..3] += a, b, c, d (p 16-byte aligned).
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_add_v4_f32(float* p, float a, float b, float c, float d) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.add.v4.f32 [%0], {%1, %2, %3, %4};", ::"l"(p), "f"(a), "f"(b),
                     "f"(c), "f"(d)
                     : "memory");
}
#endif  // CAKE_RT_SM90

/// red.relaxed.S.global.add.s32: *p += v.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_add_s32(int* p, int v) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.add.s32 [%0], %1;", ::"l"(p), "r"(v) : "memory");
}

/// red.relaxed.S.global.add.u32: *p += v.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_add_u32(u32* p, u32 v) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.add.u32 [%0], %1;", ::"l"(p), "r"(v) : "memory");
}

/// red.relaxed.S.global.max.s32: *p = max(*p, v).
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_max_s32(int* p, int v) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.max.s32 [%0], %1;", ::"l"(p), "r"(v) : "memory");
}

/// red.relaxed.S.global.min.s32: *p = min(*p, v).
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_min_s32(int* p, int v) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.min.s32 [%0], %1;", ::"l"(p), "r"(v) : "memory");
}

/// red.relaxed.S.global.max.u32: *p = max(*p, v).
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_max_u32(u32* p, u32 v) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.max.u32 [%0], %1;", ::"l"(p), "r"(v) : "memory");
}

/// red.relaxed.S.global.min.u32: *p = min(*p, v).
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_min_u32(u32* p, u32 v) {
  CAKE_RT_SCOPED_ASM(S, "red.relaxed", ".global.min.u32 [%0], %1;", ::"l"(p), "r"(v) : "memory");
}

/// fp32 *p = max(*p, v) through integer reductions on the bit patterns (exact
/// for non-NaN values): red.global.max.s32 when v's sign bit is clear, else
/// red.global.min.u32.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_max_f32(float* p, float v) {
  if (__float_as_uint(v) >> 31)
    red_global_min_u32<S>(reinterpret_cast<u32*>(p), __float_as_uint(v));
  else
    red_global_max_s32<S>(reinterpret_cast<int*>(p), __float_as_int(v));
}

/// fp32 *p = min(*p, v) as above: red.global.min.s32 when v's sign bit is
/// clear, else red.global.max.u32.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ void red_global_min_f32(float* p, float v) {
  if (__float_as_uint(v) >> 31)
    red_global_max_u32<S>(reinterpret_cast<u32*>(p), __float_as_uint(v));
  else
    red_global_min_s32<S>(reinterpret_cast<int*>(p), __float_as_int(v));
}

/// atom.relaxed.S.global.add.f32: *p += v; returns the old value.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ float atom_global_add_f32(float* p, float v) {
  float old;
  CAKE_RT_SCOPED_ASM(S, "atom.relaxed", ".global.add.f32 %0, [%1], %2;", : "=f"(old) : "l"(p), "f"(v) : "memory");
  return old;
}

// atom.relaxed.S.global.OP.TYPE on 32-bit integers: *p = OP(*p, v); returns the old value.
#define CAKE_RT_ATOM_INT(NAME, OP, T, PTX)                                                                  \
  template <Scope S = Scope::Gpu>                                                                           \
  __device__ __forceinline__ T NAME(T* p, T v) {                                                            \
    T old;                                                                                                  \
    CAKE_RT_SCOPED_ASM(S, "atom.relaxed", ".global." OP "." PTX " %0, [%1], %2;", : "=r"(old) : "l"(p), "r"(v) \
                       : "memory");                                                                         \
    return old;                                                                                             \
  }
/// atom.global.add.s32 / .u32, .max/.min.s32 / .u32, .exch.b32 (old value returned).
CAKE_RT_ATOM_INT(atom_global_add_s32, "add", int, "s32")
CAKE_RT_ATOM_INT(atom_global_add_u32, "add", u32, "u32")
CAKE_RT_ATOM_INT(atom_global_max_s32, "max", int, "s32")
CAKE_RT_ATOM_INT(atom_global_min_s32, "min", int, "s32")
CAKE_RT_ATOM_INT(atom_global_max_u32, "max", u32, "u32")
CAKE_RT_ATOM_INT(atom_global_min_u32, "min", u32, "u32")
CAKE_RT_ATOM_INT(atom_global_exch_b32, "exch", u32, "b32")
#undef CAKE_RT_ATOM_INT

/// fp32 max with the old value, as red_global_max_f32.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ float atom_global_max_f32(float* p, float v) {
  u32 old = (__float_as_uint(v) >> 31)
                ? atom_global_min_u32<S>(reinterpret_cast<u32*>(p), __float_as_uint(v))
                : u32(atom_global_max_s32<S>(reinterpret_cast<int*>(p), __float_as_int(v)));
  return __uint_as_float(old);
}

/// fp32 min with the old value, as red_global_min_f32.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ float atom_global_min_f32(float* p, float v) {
  u32 old = (__float_as_uint(v) >> 31)
                ? atom_global_max_u32<S>(reinterpret_cast<u32*>(p), __float_as_uint(v))
                : u32(atom_global_min_s32<S>(reinterpret_cast<int*>(p), __float_as_int(v)));
  return __uint_as_float(old);
}

/// atom.relaxed.S.global.cas.b32: if *p == expected then *p = v; returns the old value.
template <Scope S = Scope::Gpu>
__device__ __forceinline__ u32 atom_global_cas_b32(u32* p, u32 expected, u32 v) {
  u32 old;
  CAKE_RT_SCOPED_ASM(S, "atom.relaxed", ".global.cas.b32 %0, [%1], %2, %3;", : "=r"(old) : "l"(p), "r"(expected),
                     "r"(v)
                     : "memory");
  return old;
}

/// cvt.rn.bf16.f32 and back: v rounded to the nearest bf16 (ties to even), as a float.
// math.* approximations (language.md 10.9, compiler/lower/Math.cpp): one MUFU instruction each.
__device__ __forceinline__ float ex2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float sqrt_approx(float x) {
  float y;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// sigmoid(x) = (1 + tanh(x / 2)) / 2 on one tanh.approx: absolute error about 2^-12
__device__ __forceinline__ float sigmoid_approx(float x) { return fmaf(0.5f, tanh_approx(0.5f * x), 0.5f); }
// math.abs and math.fma: integer where every operand is (the overloads below win over the templates), else fp32
__device__ __forceinline__ int math_abs(int x) { return x < 0 ? -x : x; }
__device__ __forceinline__ long long math_abs(long long x) { return x < 0 ? -x : x; }
template <class T>
__device__ __forceinline__ float math_abs(T x) { return fabsf(float(x)); }
__device__ __forceinline__ int math_fma(int a, int b, int c) { return a * b + c; }
__device__ __forceinline__ long long math_fma(long long a, long long b, long long c) { return a * b + c; }
template <class A, class B, class C>
__device__ __forceinline__ float math_fma(A a, B b, C c) { return fmaf(float(a), float(b), float(c)); }

__device__ __forceinline__ float round_bf16(float v) { return __uint_as_float(pack_bf16x2(v, 0.f) << 16); }

/// cvt.rn.f16.f32 and back: v rounded to the nearest fp16 (ties to even), as a float.
__device__ __forceinline__ float round_f16(float v) { return f16_to_f32(u16(pack_f16x2(v, 0.f) & 0xffffu)); }

// ============================================================================
// Named barriers, warp sync
// ============================================================================

/// bar.sync id, threads: wait at hardware barrier `id` (0..15) until `threads`
/// threads (a multiple of 32) have arrived. Counts whole warps.
__device__ __forceinline__ void bar_sync(u32 id, u32 threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// bar.arrive id, threads: arrive at barrier `id` without waiting (pairs with
/// bar_sync of the same id and count on the consumer side).
__device__ __forceinline__ void bar_arrive(u32 id, u32 threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// bar.sync 0: the whole CTA (every thread must reach it).
__device__ __forceinline__ void bar_sync_cta() { asm volatile("bar.sync 0;" ::: "memory"); }

/// bar.warp.sync (__syncwarp): converge the lanes of `mask` and order their
/// memory accesses.
__device__ __forceinline__ void syncwarp(u32 mask = 0xffffffffu) { __syncwarp(mask); }

// ============================================================================
// Fences and cluster barriers
// ============================================================================

/// fence.acq_rel.cta: order this thread's memory accesses at CTA scope.
__device__ __forceinline__ void fence_acq_rel_cta() { asm volatile("fence.acq_rel.cta;" ::: "memory"); }

/// fence.acq_rel.gpu: order this thread's memory accesses at GPU scope.
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

/// fence.acq_rel.sys: order this thread's memory accesses at system scope.
__device__ __forceinline__ void fence_acq_rel_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

#if CAKE_RT_SM90
/// fence.proxy.async.shared::cta: order this thread's generic-proxy shared
/// memory accesses with later async-proxy ones (TMA, wgmma, tcgen05), and back.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/// barrier.cluster.arrive.release.aligned: arrive at the cluster barrier,
/// releasing this thread's earlier accesses to the cluster.
__device__ __forceinline__ void cluster_arrive_release() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

/// barrier.cluster.arrive.relaxed.aligned: arrive without release semantics.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

/// barrier.cluster.wait.acquire.aligned: wait until every thread of every CTA
/// in the cluster arrived, acquiring their released accesses.
__device__ __forceinline__ void cluster_wait_acquire() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/// barrier.cluster.arrive.release + barrier.cluster.wait.acquire.
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive_release();
  cluster_wait_acquire();
}
#endif  // CAKE_RT_SM90

// ============================================================================
// TMA: cp.async.bulk.tensor (sm_90+)
// ============================================================================
//
// `map` points at a CUtensorMap in param, const or global space (a
// __grid_constant__ kernel parameter). Coordinates are element offsets of the
// box corner, innermost dimension first (c0 is the contiguous one). Loads
// signal `bar` with complete_tx of the box bytes; stores and reductions form
// bulk groups (bulk_commit_group / bulk_wait_group*).

#if CAKE_RT_SM90

/// The generic address of a tensor map, the form TMA operands take.
__device__ __forceinline__ u64 tensor_map_addr(const CUtensorMap* map) { return reinterpret_cast<u64>(map); }

/// prefetch.tensormap: bring a tensor map into the cache ahead of first use.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(tensor_map_addr(map)) : "memory");
}

/// cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
__device__ __forceinline__ void tma_load_1d(u32 dst, u32 bar, const CUtensorMap* map, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3}], [%2];"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0)
               : "memory");
}

/// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
__device__ __forceinline__ void tma_load_2d(u32 dst, u32 bar, const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1)
               : "memory");
}

/// cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
__device__ __forceinline__ void tma_load_3d(u32 dst, u32 bar, const CUtensorMap* map, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5}], [%2];"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
__device__ __forceinline__ void tma_load_4d(u32 dst, u32 bar, const CUtensorMap* map, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5, %6}], [%2];"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}

/// cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
__device__ __forceinline__ void tma_load_5d(u32 dst, u32 bar, const CUtensorMap* map, int c0, int c1, int c2, int c3,
                                            int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}

#if CAKE_RT_TMA_MULTICAST
/// cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster:
/// the box lands at `dst` and signals `bar` in every CTA whose bit is set in `cta_mask`.
__device__ __forceinline__ void tma_load_multicast_1d(u32 dst, u32 bar, u16 cta_mask,
                                                       const CUtensorMap* map, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4}], [%2], %3;"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "h"(cta_mask), "r"(c0)
               : "memory");
}

/// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster:
/// the box lands at `dst` and signals `bar` in every CTA whose bit is set in `cta_mask`.
__device__ __forceinline__ void tma_load_multicast_2d(u32 dst, u32 bar, u16 cta_mask,
                                                       const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1)
               : "memory");
}

/// cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster:
/// the box lands at `dst` and signals `bar` in every CTA whose bit is set in `cta_mask`.
__device__ __forceinline__ void tma_load_multicast_3d(u32 dst, u32 bar, u16 cta_mask,
                                                       const CUtensorMap* map, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5, %6}], [%2], %3;"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster:
/// the box lands at `dst` and signals `bar` in every CTA whose bit is set in `cta_mask`.
__device__ __forceinline__ void tma_load_multicast_4d(u32 dst, u32 bar, u16 cta_mask,
                                                       const CUtensorMap* map, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5, %6, %7}], [%2], %3;"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}

/// cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster:
/// the box lands at `dst` and signals `bar` in every CTA whose bit is set in `cta_mask`.
__device__ __forceinline__ void tma_load_multicast_5d(u32 dst, u32 bar, u16 cta_mask,
                                                       const CUtensorMap* map, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5, %6, %7, %8}], [%2], %3;"
               :
               : "r"(dst), "l"(tensor_map_addr(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
                 "r"(c4)
               : "memory");
}
#endif  // CAKE_RT_TMA_MULTICAST

/// cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group: store the box at `src` (clipped at
/// the tensor bounds).
__device__ __forceinline__ void tma_store_1d(const CUtensorMap* map, u32 src, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group"
               " [%0, {%2}], [%1];"
               :
               : "l"(tensor_map_addr(map)), "r"(src), "r"(c0)
               : "memory");
}

/// cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group: store the box at `src` (clipped at
/// the tensor bounds).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, u32 src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
               " [%0, {%2, %3}], [%1];"
               :
               : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1)
               : "memory");
}

/// cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group: store the box at `src` (clipped at
/// the tensor bounds).
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, u32 src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"
               " [%0, {%2, %3, %4}], [%1];"
               :
               : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group: store the box at `src` (clipped at
/// the tensor bounds).
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, u32 src, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group"
               " [%0, {%2, %3, %4, %5}], [%1];"
               :
               : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}

/// cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group: store the box at `src` (clipped at
/// the tensor bounds).
__device__ __forceinline__ void tma_store_5d(const CUtensorMap* map, u32 src, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group"
               " [%0, {%2, %3, %4, %5, %6}], [%1];"
               :
               : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}

/// The element-wise operation of a TMA reduction.
enum class ReduceOp { Add, Min, Max };

/// cp.reduce.async.bulk.tensor.1d.global.shared::cta.{add,min,max}.tile.bulk_group: combine the
/// box at `src` into the tensor.
template <ReduceOp Op>
__device__ __forceinline__ void tma_reduce_1d(const CUtensorMap* map, u32 src, int c0) {
  if constexpr (Op == ReduceOp::Add) {
    asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group"
                 " [%0, {%2}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Min) {
    asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.min.tile.bulk_group"
                 " [%0, {%2}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Max) {
    asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.max.tile.bulk_group"
                 " [%0, {%2}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0)
                 : "memory");
  }
}

/// cp.reduce.async.bulk.tensor.2d.global.shared::cta.{add,min,max}.tile.bulk_group: combine the
/// box at `src` into the tensor.
template <ReduceOp Op>
__device__ __forceinline__ void tma_reduce_2d(const CUtensorMap* map, u32 src, int c0, int c1) {
  if constexpr (Op == ReduceOp::Add) {
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
                 " [%0, {%2, %3}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Min) {
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group"
                 " [%0, {%2, %3}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Max) {
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group"
                 " [%0, {%2, %3}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1)
                 : "memory");
  }
}

/// cp.reduce.async.bulk.tensor.3d.global.shared::cta.{add,min,max}.tile.bulk_group: combine the
/// box at `src` into the tensor.
template <ReduceOp Op>
__device__ __forceinline__ void tma_reduce_3d(const CUtensorMap* map, u32 src, int c0, int c1, int c2) {
  if constexpr (Op == ReduceOp::Add) {
    asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group"
                 " [%0, {%2, %3, %4}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Min) {
    asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.min.tile.bulk_group"
                 " [%0, {%2, %3, %4}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Max) {
    asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.max.tile.bulk_group"
                 " [%0, {%2, %3, %4}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
  }
}

/// cp.reduce.async.bulk.tensor.4d.global.shared::cta.{add,min,max}.tile.bulk_group: combine the
/// box at `src` into the tensor.
template <ReduceOp Op>
__device__ __forceinline__ void tma_reduce_4d(const CUtensorMap* map, u32 src, int c0, int c1, int c2, int c3) {
  if constexpr (Op == ReduceOp::Add) {
    asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group"
                 " [%0, {%2, %3, %4, %5}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Min) {
    asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta.min.tile.bulk_group"
                 " [%0, {%2, %3, %4, %5}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Max) {
    asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta.max.tile.bulk_group"
                 " [%0, {%2, %3, %4, %5}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
  }
}

/// cp.reduce.async.bulk.tensor.5d.global.shared::cta.{add,min,max}.tile.bulk_group: combine the
/// box at `src` into the tensor.
template <ReduceOp Op>
__device__ __forceinline__ void tma_reduce_5d(const CUtensorMap* map, u32 src, int c0, int c1, int c2, int c3, int c4) {
  if constexpr (Op == ReduceOp::Add) {
    asm volatile("cp.reduce.async.bulk.tensor.5d.global.shared::cta.add.tile.bulk_group"
                 " [%0, {%2, %3, %4, %5, %6}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Min) {
    asm volatile("cp.reduce.async.bulk.tensor.5d.global.shared::cta.min.tile.bulk_group"
                 " [%0, {%2, %3, %4, %5, %6}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
                 : "memory");
  } else if constexpr (Op == ReduceOp::Max) {
    asm volatile("cp.reduce.async.bulk.tensor.5d.global.shared::cta.max.tile.bulk_group"
                 " [%0, {%2, %3, %4, %5, %6}], [%1];"
                 :
                 : "l"(tensor_map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
                 : "memory");
  }
}

/// cp.async.bulk.prefetch.tensor.1d.L2.global.tile: prefetch the box into L2.
__device__ __forceinline__ void tma_prefetch_1d(const CUtensorMap* map, int c0) {
  asm volatile("cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%0, {%1}];"
               :
               : "l"(tensor_map_addr(map)), "r"(c0)
               : "memory");
}

/// cp.async.bulk.prefetch.tensor.2d.L2.global.tile: prefetch the box into L2.
__device__ __forceinline__ void tma_prefetch_2d(const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
               :
               : "l"(tensor_map_addr(map)), "r"(c0), "r"(c1)
               : "memory");
}

/// cp.async.bulk.prefetch.tensor.3d.L2.global.tile: prefetch the box into L2.
__device__ __forceinline__ void tma_prefetch_3d(const CUtensorMap* map, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];"
               :
               : "l"(tensor_map_addr(map)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// cp.async.bulk.prefetch.tensor.4d.L2.global.tile: prefetch the box into L2.
__device__ __forceinline__ void tma_prefetch_4d(const CUtensorMap* map, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%0, {%1, %2, %3, %4}];"
               :
               : "l"(tensor_map_addr(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}

/// cp.async.bulk.prefetch.tensor.5d.L2.global.tile: prefetch the box into L2.
__device__ __forceinline__ void tma_prefetch_5d(const CUtensorMap* map, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.prefetch.tensor.5d.L2.global.tile [%0, {%1, %2, %3, %4, %5}];"
               :
               : "l"(tensor_map_addr(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}

/// cp.async.bulk.commit_group: close this thread's pending bulk stores and
/// reductions into one bulk group.
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

/// cp.async.bulk.wait_group.read N: wait until at most N of this thread's bulk
/// groups still read their shared-memory source (the source may be reused).
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/// cp.async.bulk.wait_group N: wait until at most N of this thread's bulk
/// groups are incomplete (their global writes done).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

#endif  // CAKE_RT_SM90

// ============================================================================
// cp.async (sm_80+)
// ============================================================================
//
// `dst` is a shared address, `src` a global pointer. `src_bytes` < Bytes reads
// only that many bytes and zero-fills the rest (0: all zeros, for clipped
// vectors); it defaults to a full copy.

/// cp.async.ca.shared::cta.global [dst], [src], Bytes, src_bytes: Bytes = 4, 8
/// or 16, cached in L1 and L2.
template <int Bytes>
__device__ __forceinline__ void cp_async_ca(u32 dst, const void* src, u32 src_bytes = Bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared::cta.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(src), "n"(Bytes), "r"(src_bytes)
               : "memory");
}

/// cp.async.cg.shared::cta.global [dst], [src], 16, src_bytes: cached in L2
/// only; PTX allows only 16-byte copies with .cg.
template <int Bytes = 16>
__device__ __forceinline__ void cp_async_cg(u32 dst, const void* src, u32 src_bytes = Bytes) {
  static_assert(Bytes == 16, "cp.async.cg copies 16 bytes");
  asm volatile("cp.async.cg.shared::cta.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(src), "n"(Bytes), "r"(src_bytes)
               : "memory");
}

/// cp.async.commit_group: close this thread's pending cp.async copies into a group.
__device__ __forceinline__ void cp_async_commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }

/// cp.async.wait_group N: wait until at most N of this thread's groups are pending.
template <int N>
__device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/// cp.async.wait_all: wait for every pending cp.async of this thread.
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// ============================================================================
// ldmatrix (sm_75+) / stmatrix (sm_90+)
// ============================================================================
//
// Warp-collective 8x8 b16 matrix moves. For xN, lanes 8i..8i+7 give the row
// addresses of matrix i; register i of each lane holds its part of matrix i.

/// ldmatrix.sync.aligned.m8n8.x1{.trans}.shared.b16
template <bool Trans = false>
__device__ __forceinline__ void ldmatrix_x1(u32 (&r)[1], u32 addr) {
  if constexpr (Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr) : "memory");
}

/// ldmatrix.sync.aligned.m8n8.x2{.trans}.shared.b16
template <bool Trans = false>
__device__ __forceinline__ void ldmatrix_x2(u32 (&r)[2], u32 addr) {
  if constexpr (Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr)
                 : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr)
                 : "memory");
}

/// ldmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16
template <bool Trans = false>
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 addr) {
  if constexpr (Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

#if CAKE_RT_SM90
/// stmatrix.sync.aligned.m8n8.x1{.trans}.shared.b16
template <bool Trans = false>
__device__ __forceinline__ void stmatrix_x1(u32 addr, const u32 (&r)[1]) {
  if constexpr (Trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
}

/// stmatrix.sync.aligned.m8n8.x2{.trans}.shared.b16
template <bool Trans = false>
__device__ __forceinline__ void stmatrix_x2(u32 addr, const u32 (&r)[2]) {
  if constexpr (Trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]), "r"(r[1])
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]), "r"(r[1])
                 : "memory");
}

/// stmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16
template <bool Trans = false>
__device__ __forceinline__ void stmatrix_x4(u32 addr, const u32 (&r)[4]) {
  if constexpr (Trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
}
#endif  // CAKE_RT_SM90

// ============================================================================
// mma.sync (sm_80+)
// ============================================================================
//
// Warp-synchronous D = A * B + D with A row-major [M, K] and B column-major
// [K, N] (that is, B stored [N, K]); fragments in the PTX ISA layouts.

/// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 (operands from to_tf32)
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (wrapping int32 accumulation)
__device__ __forceinline__ void mma_m16n8k32_s8(int (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// ============================================================================
// Shared-memory matrix descriptors (wgmma sm_90a, tcgen05 sm_100a)
// ============================================================================
//
// A descriptor names a K-major or MN-major operand tile in shared memory: its
// start address, the leading- and stride-dimension byte offsets (LBO, SBO:
// the distance between core matrices along the leading dimension and between
// 8-row groups), and the swizzle mode the tile was written with (by TMA).
// Addresses and offsets are encoded >> 4 in 14-bit fields, so tiles lie in the
// first 256 KiB of shared memory and offsets are multiples of 16 bytes. The
// base-offset field stays 0: stages are aligned to their swizzle repeat.

/// The shared-memory swizzle of an operand tile (language.md 4.5).
enum class Swizzle { None, B32, B64, B128 };

/// The 2-bit layout code of a wgmma descriptor (bits 62-63).
__host__ __device__ constexpr u64 wgmma_swizzle_code(Swizzle s) {
  return s == Swizzle::B128 ? 1 : s == Swizzle::B64 ? 2 : s == Swizzle::B32 ? 3 : 0;
}

/// wgmma matrix descriptor: start >> 4 in bits 0-13, LBO >> 4 in 16-29,
/// SBO >> 4 in 32-45, base offset 0 in 49-51, swizzle in 62-63.
__host__ __device__ constexpr u64 wgmma_desc(u32 smem, u32 lbo_bytes, u32 sbo_bytes, Swizzle swizzle) {
  return static_cast<u64>((smem & 0x3FFFFu) >> 4) | static_cast<u64>((lbo_bytes & 0x3FFFFu) >> 4) << 16 |
         static_cast<u64>((sbo_bytes & 0x3FFFFu) >> 4) << 32 | wgmma_swizzle_code(swizzle) << 62;
}

/// \p desc (a wgmma_desc) advanced by \p bytes (a multiple of 16) within its
/// tile: a 32-bit add to the start-address field (bits 0-13), which cannot
/// carry out while the address stays in the first 256 KiB. The k-steps of one
/// wgmma.mma advance one descriptor by constants: one uniform add each, where
/// a wgmma_desc per step cost four (mask, shift, or, add; ncu on the KNN
/// search: a quarter of its instructions were uniform descriptor math).
__host__ __device__ constexpr u64 wgmma_desc_advance(u64 desc, u32 bytes) {
  return (desc & 0xFFFFFFFF00000000ull) | static_cast<u32>(static_cast<u32>(desc) + (bytes >> 4));
}

/// The 3-bit layout code of a tcgen05 descriptor (bits 61-63).
__host__ __device__ constexpr u64 tcgen05_swizzle_code(Swizzle s) {
  return s == Swizzle::B128 ? 2 : s == Swizzle::B64 ? 4 : s == Swizzle::B32 ? 6 : 0;
}

/// tcgen05 shared-memory descriptor: as wgmma's, plus the fixed version
/// 0b001 in bits 46-48, and the swizzle in bits 61-63.
__host__ __device__ constexpr u64 tcgen05_smem_desc(u32 smem, u32 lbo_bytes, u32 sbo_bytes, Swizzle swizzle) {
  return static_cast<u64>((smem & 0x3FFFFu) >> 4) | static_cast<u64>((lbo_bytes & 0x3FFFFu) >> 4) << 16 |
         static_cast<u64>((sbo_bytes & 0x3FFFFu) >> 4) << 32 | u64{1} << 46 | tcgen05_swizzle_code(swizzle) << 61;
}

/// Move a descriptor's start address by `bytes` (a multiple of 16): the
/// per-instruction K step inside a swizzled tile.
__host__ __device__ constexpr u64 smem_desc_advance(u64 desc, u32 bytes) { return desc + (bytes >> 4); }

// ============================================================================
// wgmma (sm_90a)
// ============================================================================
//
// Warpgroup-collective, asynchronous. Sequence per group: wgmma_fence() (when
// the accumulator or A registers were written since the last wgmma), the
// wgmma_* calls, wgmma_commit_group(), later wgmma_wait_group<n>() and
// fence_operands(acc) before the accumulator is touched again.

#if CAKE_RT_SM90A
/// wgmma.fence.sync.aligned: order earlier register writes of the accumulator
/// and A fragments before the next wgmma.mma_async.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

/// wgmma.commit_group.sync.aligned: close the pending wgmma ops into a group.
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

/// wgmma.wait_group.sync.aligned N: wait until at most N wgmma groups are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 (.f16.f16 when F16), both
/// operands in shared memory: acc (+)= A[64, 16] * B[16, N], N in {16, 32, 64, 128, 256}. `accumulate`
/// false (the scale-d predicate) overwrites acc. TransA/TransB = 1 for
/// MN-major tiles; ScaleA/ScaleB = 1 or -1. acc holds N / 2 floats per thread
/// in the wgmma accumulator layout.
// The shared-shared wgmma of one N, its operand type (bf16 or f16) as a string literal.
#define CAKE_RT_WGMMA_SS_N16(TY) \
  asm volatile( \
  "{\n.reg .pred p;\n" \
  "setp.ne.b32 p, %10, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n16k16.f32." TY "." TY " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7" \
  "}, %8, %9, p, %11, %12, %13, %14;\n}\n" \
  : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), \
  "+f"(acc[6]), "+f"(acc[7]) \
  : "l"(desc_a), "l"(desc_b), "r"(static_cast<u32>(accumulate)), "n"(ScaleA), "n"(ScaleB), \
  "n"(TransA), "n"(TransB) \
  : "memory")
#define CAKE_RT_WGMMA_SS_N32(TY) \
  asm volatile( \
  "{\n.reg .pred p;\n" \
  "setp.ne.b32 p, %18, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n32k16.f32." TY "." TY " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
  "}, %16, %17, p, %19, %20, %21, %22;\n}\n" \
  : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), \
  "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]), \
  "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]) \
  : "l"(desc_a), "l"(desc_b), "r"(static_cast<u32>(accumulate)), "n"(ScaleA), "n"(ScaleB), \
  "n"(TransA), "n"(TransB) \
  : "memory")
#define CAKE_RT_WGMMA_SS_N64(TY) \
  asm volatile( \
  "{\n.reg .pred p;\n" \
  "setp.ne.b32 p, %34, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}, %32, %33, p, %35, %36, %37, %38;\n}\n" \
  : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), \
  "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]), \
  "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]), \
  "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), \
  "+f"(acc[24]), "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]), \
  "+f"(acc[30]), "+f"(acc[31]) \
  : "l"(desc_a), "l"(desc_b), "r"(static_cast<u32>(accumulate)), "n"(ScaleA), "n"(ScaleB), \
  "n"(TransA), "n"(TransB) \
  : "memory")
#define CAKE_RT_WGMMA_SS_N128(TY) \
  asm volatile( \
  "{\n.reg .pred p;\n" \
  "setp.ne.b32 p, %66, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}, %64, %65, p, %67, %68, %69, %70;\n}\n" \
  : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), \
  "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]), \
  "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]), \
  "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), \
  "+f"(acc[24]), "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]), \
  "+f"(acc[30]), "+f"(acc[31]), "+f"(acc[32]), "+f"(acc[33]), "+f"(acc[34]), "+f"(acc[35]), \
  "+f"(acc[36]), "+f"(acc[37]), "+f"(acc[38]), "+f"(acc[39]), "+f"(acc[40]), "+f"(acc[41]), \
  "+f"(acc[42]), "+f"(acc[43]), "+f"(acc[44]), "+f"(acc[45]), "+f"(acc[46]), "+f"(acc[47]), \
  "+f"(acc[48]), "+f"(acc[49]), "+f"(acc[50]), "+f"(acc[51]), "+f"(acc[52]), "+f"(acc[53]), \
  "+f"(acc[54]), "+f"(acc[55]), "+f"(acc[56]), "+f"(acc[57]), "+f"(acc[58]), "+f"(acc[59]), \
  "+f"(acc[60]), "+f"(acc[61]), "+f"(acc[62]), "+f"(acc[63]) \
  : "l"(desc_a), "l"(desc_b), "r"(static_cast<u32>(accumulate)), "n"(ScaleA), "n"(ScaleB), \
  "n"(TransA), "n"(TransB) \
  : "memory")
#define CAKE_RT_WGMMA_SS_N256(TY) \
  asm volatile( \
  "{\n.reg .pred p;\n" \
  "setp.ne.b32 p, %130, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63," \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95," \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111," \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}, %128, %129, p, %131, %132, %133, %134;\n}\n" \
  : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), \
  "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]), \
  "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]), \
  "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), \
  "+f"(acc[24]), "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]), \
  "+f"(acc[30]), "+f"(acc[31]), "+f"(acc[32]), "+f"(acc[33]), "+f"(acc[34]), "+f"(acc[35]), \
  "+f"(acc[36]), "+f"(acc[37]), "+f"(acc[38]), "+f"(acc[39]), "+f"(acc[40]), "+f"(acc[41]), \
  "+f"(acc[42]), "+f"(acc[43]), "+f"(acc[44]), "+f"(acc[45]), "+f"(acc[46]), "+f"(acc[47]), \
  "+f"(acc[48]), "+f"(acc[49]), "+f"(acc[50]), "+f"(acc[51]), "+f"(acc[52]), "+f"(acc[53]), \
  "+f"(acc[54]), "+f"(acc[55]), "+f"(acc[56]), "+f"(acc[57]), "+f"(acc[58]), "+f"(acc[59]), \
  "+f"(acc[60]), "+f"(acc[61]), "+f"(acc[62]), "+f"(acc[63]), "+f"(acc[64]), "+f"(acc[65]), \
  "+f"(acc[66]), "+f"(acc[67]), "+f"(acc[68]), "+f"(acc[69]), "+f"(acc[70]), "+f"(acc[71]), \
  "+f"(acc[72]), "+f"(acc[73]), "+f"(acc[74]), "+f"(acc[75]), "+f"(acc[76]), "+f"(acc[77]), \
  "+f"(acc[78]), "+f"(acc[79]), "+f"(acc[80]), "+f"(acc[81]), "+f"(acc[82]), "+f"(acc[83]), \
  "+f"(acc[84]), "+f"(acc[85]), "+f"(acc[86]), "+f"(acc[87]), "+f"(acc[88]), "+f"(acc[89]), \
  "+f"(acc[90]), "+f"(acc[91]), "+f"(acc[92]), "+f"(acc[93]), "+f"(acc[94]), "+f"(acc[95]), \
  "+f"(acc[96]), "+f"(acc[97]), "+f"(acc[98]), "+f"(acc[99]), "+f"(acc[100]), "+f"(acc[101]), \
  "+f"(acc[102]), "+f"(acc[103]), "+f"(acc[104]), "+f"(acc[105]), "+f"(acc[106]), "+f"(acc[107]), \
  "+f"(acc[108]), "+f"(acc[109]), "+f"(acc[110]), "+f"(acc[111]), "+f"(acc[112]), "+f"(acc[113]), \
  "+f"(acc[114]), "+f"(acc[115]), "+f"(acc[116]), "+f"(acc[117]), "+f"(acc[118]), "+f"(acc[119]), \
  "+f"(acc[120]), "+f"(acc[121]), "+f"(acc[122]), "+f"(acc[123]), "+f"(acc[124]), "+f"(acc[125]), \
  "+f"(acc[126]), "+f"(acc[127]) \
  : "l"(desc_a), "l"(desc_b), "r"(static_cast<u32>(accumulate)), "n"(ScaleA), "n"(ScaleB), \
  "n"(TransA), "n"(TransB) \
  : "memory")

template <int N, int TransA = 0, int TransB = 0, int ScaleA = 1, int ScaleB = 1, bool F16 = false>
__device__ __forceinline__ void wgmma_m64nNk16_f32_bf16(float (&acc)[N / 2], u64 desc_a, u64 desc_b, bool accumulate) {
  static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 256,
                "wgmma_m64nNk16_f32_bf16: N is 16, 32, 64, 128 or 256");
  static_assert((TransA == 0 || TransA == 1) && (TransB == 0 || TransB == 1), "transpose flags are 0 or 1");
  static_assert((ScaleA == 1 || ScaleA == -1) && (ScaleB == 1 || ScaleB == -1), "scales are 1 or -1");
    if constexpr (N == 16) {
      if constexpr (F16) CAKE_RT_WGMMA_SS_N16("f16"); else CAKE_RT_WGMMA_SS_N16("bf16");
    } else if constexpr (N == 32) {
      if constexpr (F16) CAKE_RT_WGMMA_SS_N32("f16"); else CAKE_RT_WGMMA_SS_N32("bf16");
    } else if constexpr (N == 64) {
      if constexpr (F16)
        CAKE_RT_WGMMA_SS_N64("f16");
      else
        CAKE_RT_WGMMA_SS_N64("bf16");
    } else if constexpr (N == 128) {
      if constexpr (F16) CAKE_RT_WGMMA_SS_N128("f16"); else CAKE_RT_WGMMA_SS_N128("bf16");
    } else if constexpr (N == 256) {
      if constexpr (F16) CAKE_RT_WGMMA_SS_N256("f16"); else CAKE_RT_WGMMA_SS_N256("bf16");
    }
}

/// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 with A from registers
/// (4 x bf16x2 per thread, the wgmma A fragment, e.g. from ldmatrix_x4) and B
/// in shared memory.
template <int N, int TransB = 0, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_m64nNk16_f32_bf16_areg(float (&acc)[N / 2], const u32 (&a)[4], u64 desc_b,
                                                             bool accumulate) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma_m64nNk16_f32_bf16_areg: N is 64, 128 or 256");
  static_assert(TransB == 0 || TransB == 1, "transpose flag is 0 or 1");
  static_assert((ScaleA == 1 || ScaleA == -1) && (ScaleB == 1 || ScaleB == -1), "scales are 1 or -1");
    if constexpr (N == 64) {
      asm volatile(
          "{\n.reg .pred p;\n"
          "setp.ne.b32 p, %37, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
          "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
          "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
          "}, {%32, %33, %34, %35}, %36, p, %38, %39, %40;\n}\n"
          : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]),
            "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]),
            "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]),
            "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]),
            "+f"(acc[24]), "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]),
            "+f"(acc[30]), "+f"(acc[31])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<u32>(accumulate)),
            "n"(ScaleA), "n"(ScaleB), "n"(TransB)
          : "memory");
    } else if constexpr (N == 128) {
      asm volatile(
          "{\n.reg .pred p;\n"
          "setp.ne.b32 p, %69, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
          "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
          "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
          "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
          "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
          "}, {%64, %65, %66, %67}, %68, p, %70, %71, %72;\n}\n"
          : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]),
            "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]),
            "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]),
            "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]),
            "+f"(acc[24]), "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]),
            "+f"(acc[30]), "+f"(acc[31]), "+f"(acc[32]), "+f"(acc[33]), "+f"(acc[34]), "+f"(acc[35]),
            "+f"(acc[36]), "+f"(acc[37]), "+f"(acc[38]), "+f"(acc[39]), "+f"(acc[40]), "+f"(acc[41]),
            "+f"(acc[42]), "+f"(acc[43]), "+f"(acc[44]), "+f"(acc[45]), "+f"(acc[46]), "+f"(acc[47]),
            "+f"(acc[48]), "+f"(acc[49]), "+f"(acc[50]), "+f"(acc[51]), "+f"(acc[52]), "+f"(acc[53]),
            "+f"(acc[54]), "+f"(acc[55]), "+f"(acc[56]), "+f"(acc[57]), "+f"(acc[58]), "+f"(acc[59]),
            "+f"(acc[60]), "+f"(acc[61]), "+f"(acc[62]), "+f"(acc[63])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<u32>(accumulate)),
            "n"(ScaleA), "n"(ScaleB), "n"(TransB)
          : "memory");
    } else if constexpr (N == 256) {
      asm volatile(
          "{\n.reg .pred p;\n"
          "setp.ne.b32 p, %133, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
          "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
          "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
          "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
          "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
          "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
          "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
          "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
          "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
          "}, {%128, %129, %130, %131}, %132, p, %134, %135, %136;\n}\n"
          : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]),
            "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]),
            "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]),
            "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]),
            "+f"(acc[24]), "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]),
            "+f"(acc[30]), "+f"(acc[31]), "+f"(acc[32]), "+f"(acc[33]), "+f"(acc[34]), "+f"(acc[35]),
            "+f"(acc[36]), "+f"(acc[37]), "+f"(acc[38]), "+f"(acc[39]), "+f"(acc[40]), "+f"(acc[41]),
            "+f"(acc[42]), "+f"(acc[43]), "+f"(acc[44]), "+f"(acc[45]), "+f"(acc[46]), "+f"(acc[47]),
            "+f"(acc[48]), "+f"(acc[49]), "+f"(acc[50]), "+f"(acc[51]), "+f"(acc[52]), "+f"(acc[53]),
            "+f"(acc[54]), "+f"(acc[55]), "+f"(acc[56]), "+f"(acc[57]), "+f"(acc[58]), "+f"(acc[59]),
            "+f"(acc[60]), "+f"(acc[61]), "+f"(acc[62]), "+f"(acc[63]), "+f"(acc[64]), "+f"(acc[65]),
            "+f"(acc[66]), "+f"(acc[67]), "+f"(acc[68]), "+f"(acc[69]), "+f"(acc[70]), "+f"(acc[71]),
            "+f"(acc[72]), "+f"(acc[73]), "+f"(acc[74]), "+f"(acc[75]), "+f"(acc[76]), "+f"(acc[77]),
            "+f"(acc[78]), "+f"(acc[79]), "+f"(acc[80]), "+f"(acc[81]), "+f"(acc[82]), "+f"(acc[83]),
            "+f"(acc[84]), "+f"(acc[85]), "+f"(acc[86]), "+f"(acc[87]), "+f"(acc[88]), "+f"(acc[89]),
            "+f"(acc[90]), "+f"(acc[91]), "+f"(acc[92]), "+f"(acc[93]), "+f"(acc[94]), "+f"(acc[95]),
            "+f"(acc[96]), "+f"(acc[97]), "+f"(acc[98]), "+f"(acc[99]), "+f"(acc[100]), "+f"(acc[101]),
            "+f"(acc[102]), "+f"(acc[103]), "+f"(acc[104]), "+f"(acc[105]), "+f"(acc[106]), "+f"(acc[107]),
            "+f"(acc[108]), "+f"(acc[109]), "+f"(acc[110]), "+f"(acc[111]), "+f"(acc[112]), "+f"(acc[113]),
            "+f"(acc[114]), "+f"(acc[115]), "+f"(acc[116]), "+f"(acc[117]), "+f"(acc[118]), "+f"(acc[119]),
            "+f"(acc[120]), "+f"(acc[121]), "+f"(acc[122]), "+f"(acc[123]), "+f"(acc[124]), "+f"(acc[125]),
            "+f"(acc[126]), "+f"(acc[127])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<u32>(accumulate)),
            "n"(ScaleA), "n"(ScaleB), "n"(TransB)
          : "memory");
    }
}
#endif  // CAKE_RT_SM90A

// ============================================================================
// setmaxnreg (sm_90a, sm_100a)
// ============================================================================

#if CAKE_RT_SETMAXNREG
/// setmaxnreg.inc.sync.aligned.u32 Regs: raise this warp's register limit
/// (warpgroup-uniform; 24..256, a multiple of 8).
template <int Regs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(Regs >= 24 && Regs <= 256 && Regs % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

/// setmaxnreg.dec.sync.aligned.u32 Regs: release registers down to Regs.
template <int Regs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(Regs >= 24 && Regs <= 256 && Regs % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
#endif  // CAKE_RT_SETMAXNREG

// ============================================================================
// tcgen05 and tensor memory (sm_100a)
// ============================================================================
//
// TMEM addresses: lane in bits 16-31, column in bits 0-15, as tcgen05_alloc
// writes them. alloc/dealloc/relinquish and ld/st/wait are warp-collective;
// mma, cp and commit are issued by one thread. Only cta_group::1 is covered.

/// The instruction descriptor of tcgen05.mma .kind::f16: D format (f32 or f16)
/// in bits 4-5, A and B format (bf16 or f16) in 7-9 and 10-12, A and B major
/// (1 = MN-major) in 15 and 16, N >> 3 in 17-22, M >> 4 in 24-28. Dense, no
/// negation, no saturation.
__host__ __device__ constexpr u32 tcgen05_idesc_f16(u32 m, u32 n, bool ab_bf16, bool d_f32, bool a_mn_major,
                                                     bool b_mn_major) {
  return (d_f32 ? 1u : 0u) << 4 | (ab_bf16 ? 1u : 0u) << 7 | (ab_bf16 ? 1u : 0u) << 10 |
         (a_mn_major ? 1u : 0u) << 15 | (b_mn_major ? 1u : 0u) << 16 | (n >> 3) << 17 | (m >> 4) << 24;
}

#if CAKE_RT_SM100A
/// tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32: allocate `ncols`
/// TMEM columns (a power of 2, 32..512); the TMEM address is written to the
/// shared word at `dst_smem`. Warp-collective.
__device__ __forceinline__ void tcgen05_alloc(u32 dst_smem, u32 ncols) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem), "r"(ncols)
               : "memory");
}

/// tcgen05.dealloc.cta_group::1.sync.aligned.b32: free an allocation (same
/// address and column count). Warp-collective.
__device__ __forceinline__ void tcgen05_dealloc(u32 taddr, u32 ncols) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

/// tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned: this CTA will not
/// allocate again (lets other CTAs' allocations proceed).
__device__ __forceinline__ void tcgen05_relinquish_alloc_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}

/// tcgen05.mma.cta_group::1.kind::f16 [d_tmem], a_desc, b_desc, idesc, p:
/// D (+)= A * B with A and B in shared memory; `accumulate` false overwrites D.
__device__ __forceinline__ void tcgen05_mma_f16(u32 d_tmem, u64 a_desc, u64 b_desc, u32 idesc, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
      "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(static_cast<u32>(accumulate))
      : "memory");
}

/// tcgen05.mma.cta_group::1.kind::f16 [d_tmem], [a_tmem], b_desc, idesc, p:
/// as tcgen05_mma_f16 with A in tensor memory.
__device__ __forceinline__ void tcgen05_mma_f16_tmem_a(u32 d_tmem, u32 a_tmem, u64 b_desc, u32 idesc,
                                                       bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}\n" ::"r"(d_tmem),
      "r"(a_tmem), "l"(b_desc), "r"(idesc), "r"(static_cast<u32>(accumulate))
      : "memory");
}

/// tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64: one
/// arrival on `bar` when all of this thread's earlier tcgen05 ops complete.
__device__ __forceinline__ void tcgen05_commit(u32 bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
}

/// tcgen05.commit...multicast::cluster.b64: as tcgen05_commit, arriving at `bar`
/// in every CTA of the cluster whose bit is set in `cta_mask`.
__device__ __forceinline__ void tcgen05_commit_multicast(u32 bar, u16 cta_mask) {
  asm volatile(
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(bar),
      "h"(cta_mask)
      : "memory");
}

/// tcgen05.cp.cta_group::1.128x256b [taddr], s_desc: copy a 128-row x 256-bit
/// shared-memory tile (described by a tcgen05_smem_desc) into TMEM.
__device__ __forceinline__ void tcgen05_cp_128x256b(u32 taddr, u64 s_desc) {
  asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(taddr), "l"(s_desc) : "memory");
}

/// tcgen05.ld.sync.aligned.32x32b.xN.b32: each lane of the warp reads N
/// consecutive 32-bit columns of its TMEM lane (the warp's 32-lane quadrant).
/// N in {1, 2, 4, 8, 16, 32}. The values are valid only after
/// tcgen05_wait_ld() (then fence_operands(r)).
template <int N>
__device__ __forceinline__ void tcgen05_ld_32x32b(u32 (&r)[N], u32 taddr) {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "tcgen05_ld_32x32b: N is 1, 2, 4, 8, 16 or 32");
    if constexpr (N == 1) {
      asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {"
                   "%0"
                   "}, [%1];"
                   : "=r"(r[0])
                   : "r"(taddr)
                   : "memory");
    } else if constexpr (N == 2) {
      asm volatile("tcgen05.ld.sync.aligned.32x32b.x2.b32 {"
                   "%0, %1"
                   "}, [%2];"
                   : "=r"(r[0]), "=r"(r[1])
                   : "r"(taddr)
                   : "memory");
    } else if constexpr (N == 4) {
      asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {"
                   "%0, %1, %2, %3"
                   "}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(taddr)
                   : "memory");
    } else if constexpr (N == 8) {
      asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {"
                   "%0, %1, %2, %3, %4, %5, %6, %7"
                   "}, [%8];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                   : "r"(taddr)
                   : "memory");
    } else if constexpr (N == 16) {
      asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.b32 {"
                   "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
                   "}, [%16];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                     "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
                   : "r"(taddr)
                   : "memory");
    } else if constexpr (N == 32) {
      asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
                   "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
                   "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                   "}, [%32];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                     "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
                     "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
                     "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
                   : "r"(taddr)
                   : "memory");
    }
}

/// tcgen05.st.sync.aligned.32x32b.xN.b32: the inverse of tcgen05_ld_32x32b.
/// Wait with tcgen05_wait_st() before TMEM is read by later tcgen05 ops.
template <int N>
__device__ __forceinline__ void tcgen05_st_32x32b(u32 taddr, const u32 (&r)[N]) {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "tcgen05_st_32x32b: N is 1, 2, 4, 8, 16 or 32");
    if constexpr (N == 1) {
      asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {"
                   "%1"
                   "};"
                   :
                   : "r"(taddr), "r"(r[0])
                   : "memory");
    } else if constexpr (N == 2) {
      asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {"
                   "%1, %2"
                   "};"
                   :
                   : "r"(taddr), "r"(r[0]), "r"(r[1])
                   : "memory");
    } else if constexpr (N == 4) {
      asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {"
                   "%1, %2, %3, %4"
                   "};"
                   :
                   : "r"(taddr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                   : "memory");
    } else if constexpr (N == 8) {
      asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {"
                   "%1, %2, %3, %4, %5, %6, %7, %8"
                   "};"
                   :
                   : "r"(taddr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7])
                   : "memory");
    } else if constexpr (N == 16) {
      asm volatile("tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {"
                   "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16"
                   "};"
                   :
                   : "r"(taddr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
                     "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15])
                   : "memory");
    } else if constexpr (N == 32) {
      asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {"
                   "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16,"
                   "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32"
                   "};"
                   :
                   : "r"(taddr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
                     "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]),
                     "r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]), "r"(r[23]),
                     "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]), "r"(r[30]), "r"(r[31])
                   : "memory");
    }
}

/// tcgen05.wait::ld.sync.aligned: wait for this thread's tcgen05.ld ops.
__device__ __forceinline__ void tcgen05_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }

/// tcgen05.wait::st.sync.aligned: wait for this thread's tcgen05.st ops.
__device__ __forceinline__ void tcgen05_wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }

/// tcgen05.fence::before_thread_sync: order earlier tcgen05 ops before a
/// following thread synchronization (barrier, mbarrier arrive).
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}

/// tcgen05.fence::after_thread_sync: order later tcgen05 ops after a preceding
/// thread synchronization (barrier, mbarrier wait).
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}
#endif  // CAKE_RT_SM100A

}  // namespace cake::rt
