// Flash-KMeans assignment for Hopper at wide rows (D past the 512 columns that assign_sm90.cake
// keeps resident): ids[b, n] = argmin_k (||c_k||^2 - 2 x_n . c_k), with D split. A 128 x 1024
// bf16 x tile is 256 KiB, more than shared memory, so nothing stays resident: the main loop is
// the GEMM's (kernels/gemm/gemm_sm90_ws.cake), points x centroids x D in chunks of BK columns,
// a TMA ring of (x chunk, centroid chunk) stages into wgmma, and the product never leaves
// registers: after the last chunk of a centroid tile, each compute warpgroup folds its 64 x BN
// distances into the running argmin (argmin.fold) while the other warpgroup's MMAs run.
// The x tile is read once per centroid tile, from L2 after the first (the ring order keeps a work
// tile's rows hot); at K <= BN it is read once. BN is the dispatcher's choice by K: 64 for few
// centroids (less padded MMA), 256 for many (half the x re-reads of 128).
// D is a size, any multiple of 8 (the TMA boxes past D are zero-filled: zeros add nothing to
// x . c), so the caller's tensors are used as they are; DP is only the row width of the norms and
// distance kernels, which read rows DP columns at a time clipped at D.
// The centroid norms travel in their own ring, padded with +inf to KP (a multiple of BN), so K
// need not be a multiple of the tile: padded columns never win.
// Shared memory: 4 x (16 KiB of x + 32 KiB of centroids) + 2 x 1 KiB (norms) = 194 KiB of 227 KiB
// at BN = 256. Registers: 128 x 40 + 256 x 232 = 64512 of 65536.

param DP: int in {768, 1024} = 1024
param elem: elem in {bf16, fp16} = bf16
// centroid tile rows (wgmma N)
param BN: int in {64, 128, 256} = 256
// ring stages of (x chunk, centroid chunk)
param ST: int in 2 .. 9 = 4

// x tile rows: two compute warpgroups of 64
const BM = 128
// D columns per stage: one 128-byte swizzle span
const BK = 64
if BN == 64 {
  const MMA = m64n64k16
} else {
  if BN == 128 {
    const MMA = m64n128k16
  } else {
    const MMA = m64n256k16
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

kernel kmeans_assign_wide(
  x: global elem[B, N, D] align(16),
  c: global elem[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
  ids: global i32[B, N],
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  assume KP % BN == 0, KP >= BN
  // rows of whole 16-byte vectors (TMA strides); D past DP would still be right, but the norms
  // kernel reads DP columns
  assume D % 8 == 0, D >= 1, D <= DP
  let CT = KP / BN
  let DT = math.cdiv(D, BK)
  let tiles = sched.tiles(b = B, m = math.cdiv(N, BM))

  ring ab stages(ST) producer(load) consumer(compute) {
    x: shared elem[BM, BK] swizzle(128B)
    c: shared elem[BN, BK] swizzle(128B)
  }
  ring ns stages(2) producer(load) consumer(compute) {
    cn: shared fp32[BN]
  }

  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      for j in 0 .. CT {
        let pn = ns.produce()
        tma.load(cn[t.b, j * BN], pn.cn)
        ns.commit(pn)
        for k in 0 .. DT {
          let s = ab.produce()
          tma.load(x[t.b, t.m * BM, k * BK], s.x)
          tma.load(c[t.b, j * BN, k * BK], s.c)
          ab.commit(s)
        }
      }
    }
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[64, BN]
    var best: reg fp32[64]
    var best_id: reg i32[64]
    for t in tiles {
      best = inf
      best_id = 0
      for j in 0 .. CT {
        for k in 0 .. DT {
          let s = ab.consume()
          wgmma.mma(s.x[r0:r0 + 64, :], s.c, acc, shape = MMA, accumulate = k > 0)
          wgmma.commit()
          wgmma.wait(1)
          ab.release(s, after = wgmma.retired(1))
        }
        wgmma.wait(0)
        let n = ns.consume()
        let cnv = ld.shared(n.cn, like = acc, axis = 1)
        argmin.fold(best, best_id, cnv - 2.0 * acc, offset = j * BN)
        fence.proxy_async(n.cn)
        ns.release(n)
      }
      argmin.finish(best, best_id)
      st.global(best_id, ids[t.b, t.m * BM + r0], clip = true)
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
