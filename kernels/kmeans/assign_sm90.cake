// Flash-KMeans assignment for Hopper: ids[b, n] = argmin_k (||c_k||^2 - 2 x_n . c_k).
// The x tile (64 x WG rows) stays resident while centroid tiles of BN stream through a TMA ring
// into wgmma; the distance matrix never leaves registers. Each of the WG compute warpgroups owns
// 64 rows and double-buffers its accumulator, so the argmin of one tile overlaps the MMA of the
// next (and the warpgroups overlap each other); the last tile of a work tile folds, and its ids
// are stored, while the first MMA of the next work tile runs.
// The running argmin stays in per-lane partial chains (one fminf per distance: argmin.fold),
// reduced across the quad once per work tile (argmin.finish).
// The loop is peeled by hand (tile 0 before it, the last pair after it) so no MMA or wgmma
// wait sits under a condition and no group is in flight across a back edge: ptxas then keeps
// the wgmma pipeline asynchronous (no C7514/C7518).
// The centroid norms travel in their own ring, padded with +inf to KP (a multiple of 2 BN S),
// so K need not be a multiple of the tile: padded columns never win.
// Split-K (S > 1), for problems whose B x ceil(N / BM) work tiles leave most SMs idle (1 x 4096
// points: 32 tiles on 132 SMs): work tile (s, b, m) folds one of S ranges of centroid tiles into
// partials (value, id), and kmeans_argmin_merge keeps the smallest per row.
// The library builds the instantiations of kernels/kmeans/kmeans.manifest.json. The defaults
// are the paper's cell (D = 128, bf16, three compute warpgroups).
// D is a size: any multiple of 8 up to the tile width DP. x and the centroids are read through
// TMA boxes of DP columns and the columns past D are zero-filled (zeros add nothing to x . c), so
// a problem of D = 48 runs at DP = 64 on the caller's tensors, without a padded copy; the norms
// and distance kernels read rows DP columns at a time, clipped at D.
// Shared memory: 2 x 48 KiB (x) + 3 x 32 KiB (c) + 3 x 512 B (norms) = 194 KiB of 227 KiB.
// Registers: 128 x 24 + 384 x 160 = 64512 of 65536.

param DP: int in {32, 64, 128, 256, 512} = 128
param elem: elem in {bf16, fp16} = bf16
// compute warpgroups (64 rows of x each) and centroid tile rows
param WG: int in 1 .. 4 = 3
// (16: the small-K tile, K padded to a multiple of 32 instead of 256)
param BN: int in {16, 64, 128} = 128
// ring stages: x tiles, centroid tiles (and their norms)
param XS: int in 1 .. 3 = 2
param CS: int in 2 .. 5 = 3
// splits of the centroid range (1: none)
param S: int in 1 .. 9 = 1
// a 64-row x tile of DP = 512 is 64 KiB: one compute warpgroup
require WG == 1 || DP <= 256

const BM = 64 * WG
// rows narrower than the 128-byte swizzle span take their own span (tma.box)
const SW = math.min(2 * DP, 128)
// three compute warpgroups leave 160 registers a thread; fewer, 232
const LOAD_REGS = math.select(WG == 3, 24, 40)
const COMPUTE_REGS = math.select(WG == 3, 160, 232)
if BN == 16 {
  const MMA = m64n16k16
} else {
  if BN == 64 {
    const MMA = m64n64k16
  } else {
    const MMA = m64n128k16
  }
}

// ||c_k||^2 in fp32, one warp per centroid row (run once per Lloyd iteration); rows K .. KP
// of the padded norms are +inf.
kernel kmeans_cnorm(
  c: global elem[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
) target(sm_90a) grid(math.cdiv(KP, 8), B) block(256) {
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

kernel kmeans_assign_sm90(
  x: global elem[B, N, D] align(16),
  c: global elem[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
  ids: global i32[B, N] when(S == 1),
  pv: global fp32[S, B, N] when(S > 1),
  pi: global i32[S, B, N] when(S > 1),
) target(sm_90a) grid(persistent) block(128 * (WG + 1)) cluster(1) {
  if S == 1 {
    assume KP % (2 * BN) == 0, KP >= 2 * BN
    let CT = KP / BN
  } else {
    // split-K: work tile (s, b, m) folds centroid tiles s * CT .. (s + 1) * CT - 1 into partials
    assume KP % (2 * BN * S) == 0, KP >= 2 * BN * S
    let CT = KP / BN / S
  }
  assume CT >= 2, CT % 2 == 0
  // rows of whole 16-byte vectors (TMA strides), read DP columns at a time
  assume D % 8 == 0, D <= DP
  if S == 1 {
    let tiles = sched.tiles(b = B, m = math.cdiv(N, BM))
  } else {
    let tiles = sched.tiles(s = S, b = B, m = math.cdiv(N, BM))
  }

  // cake: accept perf.stages -- one x stage (XS = 1: DP = 256 and 512) stalls once per work tile:
  // measured at D = 256, it beats 64-wide centroid tiles with two (bench/results/kmeans/variants_h200.md);
  // at DP = 512 a second 64 KiB x stage does not fit beside two centroid stages of 64 x 512
  ring xs stages(XS) producer(load) consumer(compute) {
    x: shared elem[BM, DP] swizzle(SW)
  }
  ring cs stages(CS) producer(load) consumer(compute) {
    c: shared elem[BN, DP] swizzle(SW)
  }
  ring ns stages(CS) producer(load) consumer(compute) {
    cn: shared fp32[BN]
  }

  role load warpgroups(0) regs(LOAD_REGS) issue(elect) {
    // one norms slot ahead of the tiles: the compute role folds "the previous work tile's last
    // centroid tile" first in every work tile, and before the first there is none (see below)
    let pd = ns.produce()
    tma.load(cn[0, 0], pd.cn)
    ns.commit(pd)
    for t in tiles {
      let px = xs.produce()
      tma.load(x[t.b, t.m * BM, 0], px.x)
      xs.commit(px)
      for j in 0 .. CT {
        let pc = cs.produce()
        if S == 1 {
          tma.load(c[t.b, j * BN, 0], pc.c)
        } else {
          tma.load(c[t.b, (t.s * CT + j) * BN, 0], pc.c)
        }
        cs.commit(pc)
        let pn = ns.produce()
        if S == 1 {
          tma.load(cn[t.b, j * BN], pn.cn)
        } else {
          tma.load(cn[t.b, (t.s * CT + j) * BN], pn.cn)
        }
        ns.commit(pn)
      }
    }
  }

  role compute warpgroups(1 .. WG + 1) regs(COMPUTE_REGS) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[2, 64, BN]
    var best: reg fp32[64]
    var best_id: reg i32[64]
    // the work tile whose last centroid tile is still to fold; initially one past the end of
    // batch 0 (every row clipped), so the first fold (of acc[1] before any MMA wrote it, against
    // the dummy norms slot) and its store write nothing
    if S > 1 {
      var ps: i32 = 0
    }
    var pb: i32 = 0
    var pm: i32 = math.cdiv(N, BM)
    best = inf
    best_id = 0
    for t in tiles {
      let sx = xs.consume()
      // tile 0 into acc[0] while the previous work tile's last tile (acc[1]) folds and its ids
      // are stored: no MMA waits on the epilogue between work tiles
      let s0 = cs.consume()
      wgmma.mma(sx.x[r0:r0 + 64, :], s0.c, acc[0], shape = MMA, accumulate = false)
      wgmma.commit()
      let nl = ns.consume()
      let cnl = ld.shared(nl.cn, like = acc[1], axis = 1)
      if S == 1 {
        argmin.fold(best, best_id, cnl - 2.0 * acc[1], offset = (CT - 1) * BN)
      } else {
        argmin.fold(best, best_id, cnl - 2.0 * acc[1], offset = (ps * CT + CT - 1) * BN)
      }
      fence.proxy_async(nl.cn)
      ns.release(nl)
      argmin.finish(best, best_id)
      if S == 1 {
        st.global(best_id, ids[pb, pm * BM + r0], clip = true)
      } else {
        st.global(best, pv[ps, pb, pm * BM + r0], clip = true)
        st.global(best_id, pi[ps, pb, pm * BM + r0], clip = true)
      }
      best = inf
      best_id = 0
      if S > 1 {
        ps = t.s
      }
      pb = t.b
      pm = t.m
      wgmma.wait(0)
      cs.release(s0)
      // pair p: the MMA of tile 2p + 1 (acc[1]) runs while tile 2p (acc[0]) folds, then the
      // MMA of tile 2p + 2 (acc[0]) while tile 2p + 1 (acc[1]) folds. Each iteration ends with
      // no wgmma in flight: ptxas cannot follow a group across the loop's back edge and would
      // serialize the pipeline (C7514).
      for p in 0 .. CT / 2 - 1 {
        let s1 = cs.consume()
        wgmma.mma(sx.x[r0:r0 + 64, :], s1.c, acc[1], shape = MMA, accumulate = false)
        wgmma.commit()
        let n0 = ns.consume()
        let cn0 = ld.shared(n0.cn, like = acc[0], axis = 1)
        if S == 1 {
          argmin.fold(best, best_id, cn0 - 2.0 * acc[0], offset = 2 * p * BN)
        } else {
          argmin.fold(best, best_id, cn0 - 2.0 * acc[0], offset = (t.s * CT + 2 * p) * BN)
        }
        fence.proxy_async(n0.cn)
        ns.release(n0)
        wgmma.wait(0)
        cs.release(s1)
        let s2 = cs.consume()
        wgmma.mma(sx.x[r0:r0 + 64, :], s2.c, acc[0], shape = MMA, accumulate = false)
        wgmma.commit()
        let n1 = ns.consume()
        let cn1 = ld.shared(n1.cn, like = acc[1], axis = 1)
        if S == 1 {
          argmin.fold(best, best_id, cn1 - 2.0 * acc[1], offset = (2 * p + 1) * BN)
        } else {
          argmin.fold(best, best_id, cn1 - 2.0 * acc[1], offset = (t.s * CT + 2 * p + 1) * BN)
        }
        fence.proxy_async(n1.cn)
        ns.release(n1)
        wgmma.wait(0)
        cs.release(s2)
      }
      // the last pair: tile CT - 1 into acc[1] while tile CT - 2 folds; tile CT - 1 folds in the
      // next work tile (or after the loop)
      let s3 = cs.consume()
      wgmma.mma(sx.x[r0:r0 + 64, :], s3.c, acc[1], shape = MMA, accumulate = false)
      wgmma.commit()
      let n2 = ns.consume()
      let cn2 = ld.shared(n2.cn, like = acc[0], axis = 1)
      if S == 1 {
        argmin.fold(best, best_id, cn2 - 2.0 * acc[0], offset = (CT - 2) * BN)
      } else {
        argmin.fold(best, best_id, cn2 - 2.0 * acc[0], offset = (t.s * CT + CT - 2) * BN)
      }
      fence.proxy_async(n2.cn)
      ns.release(n2)
      wgmma.wait(0)
      cs.release(s3)
      xs.release(sx)
    }
    let nl = ns.consume()
    let cnl = ld.shared(nl.cn, like = acc[1], axis = 1)
    if S == 1 {
      argmin.fold(best, best_id, cnl - 2.0 * acc[1], offset = (CT - 1) * BN)
    } else {
      argmin.fold(best, best_id, cnl - 2.0 * acc[1], offset = (ps * CT + CT - 1) * BN)
    }
    fence.proxy_async(nl.cn)
    ns.release(nl)
    argmin.finish(best, best_id)
    if S == 1 {
      st.global(best_id, ids[pb, pm * BM + r0], clip = true)
    } else {
      st.global(best, pv[ps, pb, pm * BM + r0], clip = true)
      st.global(best_id, pi[ps, pb, pm * BM + r0], clip = true)
    }
  }
}

if S > 1 {
  // ids[b, n] = the partial with the smallest value over the S splits (ties: the smaller split,
  // whose centroid ids are smaller); one thread per row.
  kernel kmeans_argmin_merge(
    pv: global fp32[S, B, N],
    pi: global i32[S, B, N],
    ids: global i32[B, N],
  ) target(sm_90a) grid(math.cdiv(N, 256), B) block(256) {
    role rows warps(0 .. 8) issue(warp) {
      let b = cta.id(1)
      let n = cta.id(0) * 256 + self.warp() * 32 + self.lane()
      if n < N {
        var bv: fp32 = inf
        var bi: i32 = 0
        for s in 0 .. S {
          let v = ld.global(pv[s, b, n])
          let i = ld.global(pi[s, b, n])
          if v < bv {
            bv = v
            bi = i
          }
        }
        st.global(bi, ids[b, n])
      }
    }
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
) target(sm_90a) grid(math.cdiv(N, 8), B) block(256) {
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
