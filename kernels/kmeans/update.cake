// KMeans update for Hopper: c_new[b, k, :] = the mean of the rows x[b, n, :] with ids[b, n] = k,
// accumulated in fp32; an empty cluster keeps c_old[b, k, :]. Three kernels, run in order:
//   kmeans_update_zero   sums, counts and shift := 0 (they are scratch: a Lloyd loop can instead
//                        zero them once and let the previous iteration leave them zero)
//   kmeans_update_sums   one pass over x: each warp adds 4 rows at a time into sums[b, ids, :]
//                        with red.global.add.v4.f32 and counts them (lane 0, red.global.add.s32)
//   kmeans_update_means  c_new = sums / counts (c_old when the count is 0), rounded to elem, and
//                        shift[b] = max over k of ||c_new - c_old||^2 of the stored centroids
//                        (fp32 atomic.max): 0 exactly when no centroid of batch b moved.
// The row width DP and the element type are parameters (the library builds the instantiations of
// kernels/kmeans/kmeans.manifest.json): DP is a multiple of 32 whose row splits into whole chunks
// (32, 64, 128, 256, 512). D (any multiple of 8 up to DP), B, N and K are sizes bound at launch;
// rows of x and the centroids are read and written DP columns at a time, clipped at D (the sums
// past D stay 0), so the caller's tensors are used as they are. ids must lie in [0, K) (the
// kernels do not check them).
// The same source serves compute capability 8.x: the manifest's update_sm80_* instantiations build it
// with --target sm_80 (PTX), where a row's reduction lowers to scalar red.global.add.f32 (the .v4 form
// is sm_90; compiler/lower/runtime/cake_device.cuh).
// Traffic at B = 32, N = 65536, K = 1024, D = 128: x is read once (512 MiB), the reductions
// (1 GiB of fp32 adds) stay in L2, where sums (16 MiB) lives.

param DP: int in {32, 64, 128, 256, 512, 1024} = 128
param elem: elem in {bf16, fp16} = bf16
// rows a warp loads before it issues their reductions (the loads of a batch overlap)
const RW = 4
// batches per warp: a CTA of 8 warps covers 8 x RW x STEPS rows
const STEPS = 2
const ROWS = 8 * RW * STEPS

// sums[b, k, :] = 0, counts[b, k] = 0, shift[b] = 0; one warp per centroid row.
kernel kmeans_update_zero(
  sums: global fp32[B, K, DP] align(16),
  counts: global i32[B, K],
  shift: global fp32[B],
) target(sm_90a) grid(math.cdiv(K, 8), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let k = cta.id(0) * 8 + self.warp()
    if k < K {
      st.global(0.0, sums[b, k, :])
      if elect.one() {
        st.global(0, counts[b, k])
      }
    }
    if k == 0 {
      if elect.one() {
        st.global(0.0, shift[b])
      }
    }
  }
}

// sums[b, ids[b, n], :] += x[b, n, :] and counts[b, ids[b, n]] += 1 for every row n. Each warp
// takes RW consecutive rows per step: it loads their ids and rows first, then issues the
// reductions (reductions are ordered after every earlier load of the thread, so loading a
// batch first keeps RW rows in flight). The rows past N take the guarded path.
kernel kmeans_update_sums(
  x: global elem[B, N, D] align(16),
  ids: global i32[B, N],
  sums: global fp32[B, K, DP] align(16),
  counts: global i32[B, K],
) target(sm_90a) grid(math.cdiv(N, ROWS), B) block(256) {
  assume D % 8 == 0, D <= DP
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    for s in 0 .. STEPS {
      let n = cta.id(0) * ROWS + (s * 8 + self.warp()) * RW
      if n + RW <= N {
        let k0 = ld.global(ids[b, n])
        let k1 = ld.global(ids[b, n + 1])
        let k2 = ld.global(ids[b, n + 2])
        let k3 = ld.global(ids[b, n + 3])
        let x0 = math.cast(ld.global(x[b, n, 0:DP], clip = true), fp32)
        let x1 = math.cast(ld.global(x[b, n + 1, 0:DP], clip = true), fp32)
        let x2 = math.cast(ld.global(x[b, n + 2, 0:DP], clip = true), fp32)
        let x3 = math.cast(ld.global(x[b, n + 3, 0:DP], clip = true), fp32)
        atomic.add(x0, sums[b, k0, :])
        atomic.add(x1, sums[b, k1, :])
        atomic.add(x2, sums[b, k2, :])
        atomic.add(x3, sums[b, k3, :])
        if elect.one() {
          atomic.add(1, counts[b, k0])
          atomic.add(1, counts[b, k1])
          atomic.add(1, counts[b, k2])
          atomic.add(1, counts[b, k3])
        }
      } else {
        for i in 0 .. RW {
          if n + i < N {
            let k = ld.global(ids[b, n + i])
            let xi = math.cast(ld.global(x[b, n + i, 0:DP], clip = true), fp32)
            atomic.add(xi, sums[b, k, :])
            if elect.one() {
              atomic.add(1, counts[b, k])
            }
          }
        }
      }
    }
  }
}

// c_new[b, k, :] = sums[b, k, :] / counts[b, k], or c_old[b, k, :] when the cluster is empty;
// shift[b] = max over k of ||c_new[b, k, :] - c_old[b, k, :]||^2 (of the values stored).
// One warp per centroid row; c_old is loaded in the fp32 row's layout (like = s).
kernel kmeans_update_means(
  c_old: global elem[B, K, D] align(16),
  sums: global fp32[B, K, DP] align(16),
  counts: global i32[B, K],
  c_new: global elem[B, K, D] align(16),
  shift: global fp32[B],
) target(sm_90a) grid(math.cdiv(K, 8), B) block(256) {
  assume D % 8 == 0, D <= DP
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let k = cta.id(0) * 8 + self.warp()
    if k < K {
      let n = ld.global(counts[b, k])
      let s = ld.global(sums[b, k, :])
      let old = math.cast(ld.global(c_old[b, k, 0:DP], like = s, clip = true), fp32)
      let mean = math.select(n > 0, s / math.cast(math.max(n, 1), fp32), old)
      let c = math.cast(mean, elem)
      st.global(c, c_new[b, k, 0:DP], clip = true)
      let d = math.cast(c, fp32) - old
      let moved = reduce.sum(d * d, axis = 0)
      if elect.one() {
        atomic.max(moved, shift[b])
      }
    }
  }
}
