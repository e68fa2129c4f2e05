// Compile test of compiler/lower/runtime/cake_device.cuh: every primitive the
// target has is called from a small kernel, with operands taken from kernel
// parameters, so every instruction form reaches ptxas. Built with nvcc -c for
// sm_80, sm_90a and sm_100a by tests/CMakeLists.txt (runtime.nvcc.*); nothing
// runs. Each kernel body is guarded by the capability macro of its family, so
// the kernels exist on every target and are empty where the family is absent.
#include "cake_device.cuh"

using namespace cake::rt;

// --- Types --------------------------------------------------------------------------

// The CUtensorMap of <cuda.h> (nvcc) or the header's own declaration (NVRTC):
// the same size and alignment (128 in CUDA 13), so kernel parameter layouts match.
static_assert(sizeof(CUtensorMap) == 128 && alignof(CUtensorMap) >= 64);
#if __CUDACC_VER_MAJOR__ >= 13
static_assert(alignof(CUtensorMap) == 128);
#endif

// --- Descriptor encodings, checked at compile time -------------------------------

// 128B-swizzled K-major bf16 tile at 0x1000: LBO 16 (ignored for swizzled
// K-major), SBO 1024 (8 rows x 128 B).
static_assert(wgmma_desc(0x1000, 16, 1024, Swizzle::B128) ==
              ((0x1000ull >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62)));
static_assert(wgmma_desc(0x400, 128, 256, Swizzle::None) == ((0x400ull >> 4) | (8ull << 16) | (16ull << 32)));
static_assert(wgmma_swizzle_code(Swizzle::B64) == 2 && wgmma_swizzle_code(Swizzle::B32) == 3);
static_assert(tcgen05_smem_desc(0x1000, 16, 1024, Swizzle::B128) ==
              ((0x1000ull >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 46) | (2ull << 61)));
static_assert(tcgen05_swizzle_code(Swizzle::B64) == 4 && tcgen05_swizzle_code(Swizzle::B32) == 6);
static_assert(smem_desc_advance(wgmma_desc(0x1000, 16, 1024, Swizzle::B128), 32) ==
              wgmma_desc(0x1020, 16, 1024, Swizzle::B128));
// wgmma_desc_advance is wgmma_desc of the advanced address (a 32-bit add to the start-address field),
// up to the last 16 bytes of the 256 KiB the field addresses, without carrying into LBO
static_assert(wgmma_desc_advance(wgmma_desc(0x1000, 16, 1024, Swizzle::B128), 32) ==
              wgmma_desc(0x1020, 16, 1024, Swizzle::B128));
static_assert(wgmma_desc_advance(wgmma_desc(0x20400, 16, 1024, Swizzle::B128), 16384 + 96) ==
              wgmma_desc(0x20400 + 16384 + 96, 16, 1024, Swizzle::B128));
static_assert(wgmma_desc_advance(wgmma_desc(0x3FF00, 128, 256, Swizzle::None), 0xF0) ==
              wgmma_desc(0x3FFF0, 128, 256, Swizzle::None));
// m128n256k16, bf16 inputs, f32 accumulator, both K-major.
static_assert(tcgen05_idesc_f16(128, 256, true, true, false, false) ==
              ((1u << 4) | (1u << 7) | (1u << 10) | (32u << 17) | (8u << 24)));
static_assert(tcgen05_idesc_f16(64, 8, false, false, true, true) == ((1u << 15) | (1u << 16) | (1u << 17) | (4u << 24)));

// --- Identity and helpers ----------------------------------------------------------

__global__ void k_identity(u32* out, float* fin) {
  __shared__ u32 word;
  u32 i = threadIdx.x;
  out[i] = lane_id() + 32 * warp_id() + 1024 * warpgroup_id() + (elect_one() ? 1u << 20 : 0u);
  out[i] += smem_addr(&word);
  if (lane_id() == first_active_lane())
    st_shared_u32(smem_addr(&word), out[i]);
  __syncthreads();
  out[i] += ld_shared_u32(smem_addr(&word));
  out[i] ^= pack_bf16x2(fin[0], fin[1]) ^ pack_bf16x2(make_float2(fin[2], fin[3])) ^ pack_f16x2(fin[0], fin[2]) ^
            to_tf32(fin[3]);
#if CAKE_RT_SM90
  out[i] += elect_sync(0xffffffffu) ? 1u : 0u;
  out[i] += cluster_ctarank() + cluster_nctarank() + cluster_id(0) + cluster_id(1) + cluster_id(2);
  out[i] += mapa_shared(smem_addr(&word), out[0]);
#endif
}

// --- mbarrier, named barriers, fences -------------------------------------------

__global__ void k_mbarrier(u32* out, u32 parity, u32 spins, u32 peer) {
  __shared__ __align__(8) u64 bars[4];
  const u32 b0 = smem_addr(&bars[0]);
  const u32 b1 = smem_addr(&bars[1]);
  if (threadIdx.x == 0) {
    mbarrier_init(b0, 1);
    mbarrier_init(b1, blockDim.x);
  }
#if CAKE_RT_SM90
  fence_mbarrier_init();
#endif
  bar_sync_cta();

  // sm_80 style: arrive, then test_wait on the returned state or the parity.
  u64 state = mbarrier_arrive(b1);
  while (!mbarrier_test_wait(b1, state)) {
  }
  out[threadIdx.x] = mbarrier_test_wait_parity(b1, parity) ? 1 : 0;
  cp_async_mbarrier_arrive_noinc(b1);

#if CAKE_RT_SM90
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(b0, 4096);
    mbarrier_expect_tx(b0, 1024);
    (void)mbarrier_arrive(b0, 2);
    mbarrier_arrive_remote(b0, peer);
  }
  out[threadIdx.x] += mbarrier_try_wait_parity(b0, parity) ? 2 : 0;
  out[threadIdx.x] += mbarrier_try_wait_parity_cluster(b0, parity) ? 8 : 0;
  mbarrier_wait_parity_cluster(b0, parity ^ 1);
#endif
  mbarrier_wait_parity(b0, parity);
  out[threadIdx.x] += mbarrier_wait_parity_bounded(b0, parity ^ 1, spins) ? 4 : 0;

  bar_arrive(1, 64);
  bar_sync(2, 128);
  syncwarp();
  syncwarp(0x0000ffffu);
  fence_acq_rel_cta();
  fence_acq_rel_gpu();
  fence_acq_rel_sys();
#if CAKE_RT_SM90
  fence_proxy_async_shared();
  cluster_arrive_release();
  cluster_wait_acquire();
  cluster_arrive_relaxed();
  cluster_wait_acquire();
  cluster_sync();
#endif
}

// --- Atomics ------------------------------------------------------------------------

__global__ void k_atomics(float* f, int* i, u32* u, float v, int n) {
  red_global_add_f32(f, v);
  red_global_add_f32<Scope::Cta>(f + 1, v);
  red_global_add_f32<Scope::Sys>(f + 2, v);
#if CAKE_RT_SM90
  red_global_add_v2_f32(f + 4, v, v);
  red_global_add_v4_f32(f + 8, v, v, v, v);
  red_global_add_v4_f32<Scope::Cta>(f + 12, v, v, v, v);
#endif
  red_global_add_s32(i, n);
  red_global_add_u32(u, u32(n));
  red_global_max_s32(i + 1, n);
  red_global_min_s32(i + 2, n);
  red_global_max_u32(u + 1, u32(n));
  red_global_min_u32(u + 2, u32(n));
  red_global_max_f32(f + 16, v);
  red_global_min_f32<Scope::Sys>(f + 17, v);
  float a = atom_global_add_f32(f + 18, v) + atom_global_max_f32(f + 19, v) + atom_global_min_f32(f + 20, v);
  int b = atom_global_add_s32(i + 3, n) + atom_global_max_s32(i + 4, n) + atom_global_min_s32<Scope::Cta>(i + 5, n);
  u32 c = atom_global_add_u32(u + 3, u32(n)) + atom_global_max_u32(u + 4, u32(n)) + atom_global_min_u32(u + 5, u32(n)) +
          atom_global_exch_b32(u + 6, u32(n)) + atom_global_cas_b32(u + 7, 0u, u32(n));
  f[21] = a + round_bf16(v) + round_f16(v);
  i[6] = b;
  u[8] = c;
}

// --- TMA ------------------------------------------------------------------------

__global__ void k_tma(const __grid_constant__ CUtensorMap map, int x, int y, u16 mask, u32* out) {
#if CAKE_RT_SM90
  __shared__ __align__(1024) unsigned char tile[4096];
  __shared__ __align__(8) u64 bar;
  const u32 dst = smem_addr(tile);
  const u32 b = smem_addr(&bar);
  if (threadIdx.x == 0) {
    prefetch_tensormap(&map);
    mbarrier_init(b, 1);
    fence_mbarrier_init();
    mbarrier_arrive_expect_tx(b, 4096);
    tma_load_1d(dst, b, &map, x);
    tma_load_2d(dst, b, &map, x, y);
    tma_load_3d(dst, b, &map, x, y, 1);
    tma_load_4d(dst, b, &map, x, y, 1, 2);
    tma_load_5d(dst, b, &map, x, y, 1, 2, 3);
#if CAKE_RT_TMA_MULTICAST
    tma_load_multicast_1d(dst, b, mask, &map, x);
    tma_load_multicast_2d(dst, b, mask, &map, x, y);
    tma_load_multicast_3d(dst, b, mask, &map, x, y, 1);
    tma_load_multicast_4d(dst, b, mask, &map, x, y, 1, 2);
    tma_load_multicast_5d(dst, b, mask, &map, x, y, 1, 2, 3);
#endif
    mbarrier_wait_parity(b, 0);

    tma_store_1d(&map, dst, x);
    tma_store_2d(&map, dst, x, y);
    tma_store_3d(&map, dst, x, y, 1);
    tma_store_4d(&map, dst, x, y, 1, 2);
    tma_store_5d(&map, dst, x, y, 1, 2, 3);
    bulk_commit_group();
    tma_reduce_1d<ReduceOp::Add>(&map, dst, x);
    tma_reduce_2d<ReduceOp::Min>(&map, dst, x, y);
    tma_reduce_3d<ReduceOp::Max>(&map, dst, x, y, 1);
    tma_reduce_4d<ReduceOp::Add>(&map, dst, x, y, 1, 2);
    tma_reduce_5d<ReduceOp::Min>(&map, dst, x, y, 1, 2, 3);
    tma_reduce_2d<ReduceOp::Add>(&map, dst, x, y);
    tma_reduce_2d<ReduceOp::Max>(&map, dst, x, y);
    bulk_commit_group();
    bulk_wait_group_read<1>();
    bulk_wait_group<0>();

    tma_prefetch_1d(&map, x);
    tma_prefetch_2d(&map, x, y);
    tma_prefetch_3d(&map, x, y, 1);
    tma_prefetch_4d(&map, x, y, 1, 2);
    tma_prefetch_5d(&map, x, y, 1, 2, 3);
  }
  out[threadIdx.x] = tile[threadIdx.x];
#endif
}

// --- cp.async ---------------------------------------------------------------------

__global__ void k_cp_async(const uint4* src, u32 valid, u32* out) {
  __shared__ __align__(16) uint4 buf[128];
  __shared__ __align__(8) u64 bar;
  const u32 dst = smem_addr(&buf[threadIdx.x % 32]);
  cp_async_ca<4>(dst, src + threadIdx.x);
  cp_async_ca<8>(dst, src + threadIdx.x, valid);
  cp_async_ca<16>(dst, src + threadIdx.x, 0);
  cp_async_cg(dst, src + threadIdx.x);
  cp_async_cg<16>(dst, src + threadIdx.x, valid);
  cp_async_commit_group();
  cp_async_wait_group<1>();
  cp_async_wait_group<0>();
  cp_async_wait_all();
  cp_async_mbarrier_arrive_noinc(smem_addr(&bar));
  out[threadIdx.x] = buf[threadIdx.x % 32].x;
}

// --- ldmatrix / stmatrix / mma.sync ------------------------------------------------

__global__ void k_matrix(u32* out) {
  __shared__ __align__(128) unsigned short tile[64 * 64];
  const u32 addr = smem_addr(&tile[lane_id() * 64]);
  u32 r1[1], r2[2], r4[4], t1[1], t2[2], t4[4];
  ldmatrix_x1(r1, addr);
  ldmatrix_x2(r2, addr);
  ldmatrix_x4(r4, addr);
  ldmatrix_x1<true>(t1, addr);
  ldmatrix_x2<true>(t2, addr);
  ldmatrix_x4<true>(t4, addr);

  float d[4] = {0, 0, 0, 0};
  int di[4] = {0, 0, 0, 0};
  const u32 b[2] = {r2[0], t2[1]};
  mma_m16n8k16_bf16(d, r4, b);
  mma_m16n8k16_f16(d, t4, b);
  mma_m16n8k8_tf32(d, r4, r2);
  mma_m16n8k32_s8(di, t4, t2);

#if CAKE_RT_SM90
  stmatrix_x1(addr, r1);
  stmatrix_x2(addr, r2);
  stmatrix_x4(addr, r4);
  stmatrix_x1<true>(addr, t1);
  stmatrix_x2<true>(addr, t2);
  stmatrix_x4<true>(addr, t4);
#endif
  out[threadIdx.x] = r1[0] + t1[0] + __float_as_uint(d[0] + d[1] + d[2] + d[3]) + di[0] + di[1] + di[2] + di[3];
}

// --- wgmma, setmaxnreg ----------------------------------------------------------------

template <int N>
__device__ void wgmma_case(float* out, u32 a_smem, u32 b_smem, bool accumulate) {
#if CAKE_RT_SM90A
  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc[i] = 0.0f;
  const u64 da = wgmma_desc(a_smem, 16, 1024, Swizzle::B128);
  const u64 db = wgmma_desc(b_smem, 16, 1024, Swizzle::B128);
  u32 afrag[4];
  ldmatrix_x4(afrag, a_smem + lane_id() * 16);
  wgmma_fence();
  wgmma_m64nNk16_f32_bf16<N>(acc, da, db, accumulate);
  wgmma_m64nNk16_f32_bf16<N, 1, 1>(acc, smem_desc_advance(da, 32), smem_desc_advance(db, 32), true);
  wgmma_m64nNk16_f32_bf16<N, 0, 0, -1, 1>(acc, da, db, true);
  wgmma_m64nNk16_f32_bf16_areg<N>(acc, afrag, db, true);
  wgmma_m64nNk16_f32_bf16_areg<N, 1, 1, -1>(acc, afrag, db, true);
  wgmma_commit_group();
  wgmma_wait_group<1>();
  wgmma_wait_group<0>();
  fence_operands(acc);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) out[threadIdx.x * (N / 2) + i] = acc[i];
#endif
}

__global__ void k_wgmma(float* out, bool accumulate) {
  __shared__ __align__(1024) unsigned short a[64 * 64];
  __shared__ __align__(1024) unsigned short b[256 * 64];
  wgmma_case<64>(out, smem_addr(a), smem_addr(b), accumulate);
  wgmma_case<128>(out, smem_addr(a), smem_addr(b), accumulate);
  wgmma_case<256>(out, smem_addr(a), smem_addr(b), accumulate);
}

// setmaxnreg needs a known register count at entry: ptxas ignores it (C7508)
// unless the kernel has __launch_bounds__ with a minimum of 1 block.
__global__ void __launch_bounds__(384, 1) k_setmaxnreg(u32* out) {
#if CAKE_RT_SETMAXNREG
  if (warpgroup_id() == 0) {
    setmaxnreg_dec<40>();
    out[threadIdx.x] = 1;
  } else {
    setmaxnreg_inc<232>();
    out[threadIdx.x] = 2;
  }
#endif
}

// --- tcgen05 ----------------------------------------------------------------------------

template <int N>
__device__ void tmem_ld_st_case(u32 taddr, u32* out) {
#if CAKE_RT_SM100A
  u32 r[N];
  tcgen05_ld_32x32b<N>(r, taddr);
  tcgen05_wait_ld();
  fence_operands(r);
  u32 sum = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) sum += r[i];
  out[threadIdx.x] += sum;
  tcgen05_st_32x32b<N>(taddr, r);
  tcgen05_wait_st();
#endif
}

__global__ void k_tcgen05(u32* out, bool accumulate, u16 mask) {
#if CAKE_RT_SM100A
  __shared__ __align__(1024) unsigned short a[128 * 64];
  __shared__ __align__(1024) unsigned short b[256 * 64];
  __shared__ __align__(8) u64 bar;
  __shared__ u32 tmem_base;
  if (warp_id() == 0) {
    tcgen05_alloc(smem_addr(&tmem_base), 512);
    tcgen05_relinquish_alloc_permit();
  }
  if (threadIdx.x == 0) {
    mbarrier_init(smem_addr(&bar), 1);
    fence_mbarrier_init();
  }
  tcgen05_fence_before_thread_sync();
  bar_sync_cta();
  tcgen05_fence_after_thread_sync();
  const u32 tmem = tmem_base;

  if (threadIdx.x == 0) {
    const u32 idesc = tcgen05_idesc_f16(128, 256, true, true, false, false);
    const u64 da = tcgen05_smem_desc(smem_addr(a), 16, 1024, Swizzle::B128);
    const u64 db = tcgen05_smem_desc(smem_addr(b), 16, 1024, Swizzle::B128);
    tcgen05_mma_f16(tmem, da, db, idesc, accumulate);
    tcgen05_mma_f16(tmem, smem_desc_advance(da, 32), smem_desc_advance(db, 32), idesc, true);
    tcgen05_mma_f16_tmem_a(tmem + 256, tmem, db, idesc, true);
    tcgen05_cp_128x256b(tmem + 384, da);
    tcgen05_commit(smem_addr(&bar));
    tcgen05_commit_multicast(smem_addr(&bar), mask);
  }
  mbarrier_wait_parity(smem_addr(&bar), 0);
  tcgen05_fence_after_thread_sync();

  const u32 lane_base = (warp_id() % 4) * 32;
  const u32 taddr = tmem + (lane_base << 16);
  out[threadIdx.x] = 0;
  tmem_ld_st_case<1>(taddr, out);
  tmem_ld_st_case<2>(taddr, out);
  tmem_ld_st_case<4>(taddr, out);
  tmem_ld_st_case<8>(taddr, out);
  tmem_ld_st_case<16>(taddr, out);
  tmem_ld_st_case<32>(taddr, out);

  tcgen05_fence_before_thread_sync();
  bar_sync_cta();
  if (warp_id() == 0) tcgen05_dealloc(tmem, 512);
#endif
}
