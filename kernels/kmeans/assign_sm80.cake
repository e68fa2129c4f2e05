// Flash-KMeans assignment for Ampere (sm_80 and later): ids[b, n] = argmin_k (||c_k||^2 - 2 x_n . c_k)
// with cp.async, ldmatrix and mma.sync. A CTA of 4 warps takes 64 rows of x (resident in shared
// memory) and streams centroid tiles of 64 (with their norms) through a 3-stage cp.async ring; each
// warp multiplies its 16 rows by the tile into a [16, 64] fp32 accumulator and folds it into its
// running argmin (argmin.fold: per-lane partial chains, the quad reduced once at the end), so the
// distance matrix never leaves registers. One role does everything: the rings are produced and
// consumed by the same warps, so they lower to cp.async groups and a role barrier per stage.
// The x tile is committed before the centroid prologue and consumed after it (its wait covers
// both), so the two rings' cp.async groups stay in order.
// Norms come from kmeans_cnorm, padded with +inf to KP (a multiple of BN): padded columns never win.
// Shared memory: 16 KiB (x) + 3 x (16 KiB + 256 B) (centroids, norms) = 65 KiB of 163 KiB.
// The library builds the instantiations of kernels/kmeans/kmeans.manifest.json (DP = 32, 64, 128,
// 256; bf16 and fp16); DP = 512 does not fit three stages beside its x tile on sm_80.
// D is a size (any multiple of 8 up to DP): rows are copied DP columns at a time, the chunks past D
// zero-filled (cp.async's src-size), so the caller's tensors are read as they are.

param DP: int in {32, 64, 128, 256} = 128
param elem: elem in {bf16, fp16} = bf16

const BM = 64
const BN = 64
// rows narrower than the 128-byte swizzle span take their own span (tma.box)
const SW = math.min(2 * DP, 128)
const STAGES = 3

// ||c_k||^2 in fp32, one warp per centroid row; rows K .. KP of the padded norms are +inf.
kernel kmeans_cnorm(
  c: global elem[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
) target(sm_80) grid(math.cdiv(KP, 8), B) block(256) {
  assume D % 8 == 0, D <= DP
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      let x = math.cast(ld.global(c[b, r, 0:DP], clip = true), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[b, r])
    }
    if r >= K {
      if r < KP {
        st.global(inf, cn[b, r])
      }
    }
  }
}

kernel kmeans_assign_sm80(
  x: global elem[B, N, D] align(16),
  c: global elem[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
  ids: global i32[B, N],
) target(sm_80) grid(math.cdiv(N, BM), B) block(128) {
  assume KP % BN == 0, KP >= BN
  assume D % 8 == 0, D <= DP
  let CT = KP / BN
  let b = cta.id(1)
  let m0 = cta.id(0) * BM

  ring xs stages(1) producer(main) consumer(main) {
    x: shared elem[BM, DP] swizzle(SW)
  }
  ring cs stages(STAGES) producer(main) consumer(main) {
    c: shared elem[BN, DP] swizzle(SW)
    cn: shared fp32[1, BN]
  }

  role main warps(0 .. 4) issue(warp) {
    let wm = self.warp() * 16
    var acc: reg fp32[16, BN]
    var best: reg fp32[16]
    var best_id: reg i32[16]
    best = inf
    best_id = 0
    let px = xs.produce()
    cp.async(x[b, m0, 0], px.x, by = main, clip = true)
    xs.commit(px)
    // prologue: STAGES - 1 centroid tiles in flight
    for j in 0 .. STAGES - 1 unroll {
      if j < CT {
        let p = cs.produce()
        cp.async(c[b, j * BN, 0], p.c, by = main, clip = true)
        cp.async(cn[b, j * BN], p.cn, by = main)
        cs.commit(p)
      }
    }
    let sx = xs.consume()
    for j in 0 .. CT {
      let s = cs.consume()
      acc = 0.0
      for kk in 0 .. DP / 16 unroll {
        let fa = ld.matrix(sx.x[wm:wm + 16, kk * 16:kk * 16 + 16], operand = a)
        let fb = ld.matrix(s.c[0:BN, kk * 16:kk * 16 + 16], operand = b)
        mma.sync(fa, fb, acc, shape = m16n8k16)
      }
      let cnj = ld.shared(s.cn[0, :], like = acc, axis = 1)
      argmin.fold(best, best_id, cnj - 2.0 * acc, offset = j * BN)
      cs.release(s)
      // refill the slot released one iteration ago
      if j + STAGES - 1 < CT {
        let p = cs.produce()
        cp.async(c[b, (j + STAGES - 1) * BN, 0], p.c, by = main, clip = true)
        cp.async(cn[b, (j + STAGES - 1) * BN], p.cn, by = main)
        cs.commit(p)
      }
    }
    xs.release(sx)
    argmin.finish(best, best_id)
    st.global(best_id, ids[b, m0 + wm], clip = true)
  }
}

// dist[b, n] = ||x[b, n] - c[b, ids[b, n]]||^2 in fp32, one warp per row: the distance to the
// assigned centroid, in full and from the inputs (not the fast form's ||c||^2 - 2 x.c), for
// callers that ask for it (run after the assignment).
kernel kmeans_distance(
  x: global elem[B, N, D] align(16),
  c: global elem[B, K, D] align(16),
  ids: global i32[B, N],
  dist: global fp32[B, N],
) target(sm_80) grid(math.cdiv(N, 8), B) block(256) {
  assume D % 8 == 0, D <= DP
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let n = cta.id(0) * 8 + self.warp()
    if n < N {
      let k = ld.global(ids[b, n])
      let xr = math.cast(ld.global(x[b, n, 0:DP], clip = true), fp32)
      let cr = math.cast(ld.global(c[b, k, 0:DP], clip = true), fp32)
      st.global(reduce.sum((xr - cr) * (xr - cr), axis = 0), dist[b, n])
    }
  }
}
