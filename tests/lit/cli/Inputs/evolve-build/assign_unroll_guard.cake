// Replay input (issue #21): kernels/kmeans/assign_sm90.cake as it was before commit c86f118, whose MMA sat
// under the guard of a loop unrolled by two (`for j in 0 .. CT + 1 unroll(2) { if j < CT { wgmma ... } }`):
// ptxas serialized its wgmma pipeline (C7518). Nothing static saw it; the timing did.
// Flash-KMeans assignment for Hopper: ids[b, n] = argmin_k (||c_k||^2 - 2 x_n . c_k).
// The x tile (128 rows) stays resident while centroid tiles of 128 stream through a TMA ring
// into wgmma; the distance matrix never leaves registers. Each compute warpgroup owns 64 rows
// and double-buffers its accumulator, so the argmin of tile j - 1 overlaps the MMA of tile j.
// The centroid norms travel in their own ring, consumed one tile later than the centroids.
// Shared memory: 2 x 32 KiB (x) + 4 x 32 KiB (c) + 4 x 512 B (norms) = 194 KiB of 227 KiB.
// Registers: 128 x 40 + 256 x 232 = 64512 of 65536.

const BM = 128
const BN = 128
const D = 128

// ||c_k||^2 in fp32, one warp per centroid row (run once per Lloyd iteration).
kernel kmeans_cnorm(
  c: global bf16[B, K, D] align(16),
  cn: global fp32[B, K] align(16),
) target(sm_90a) grid(math.cdiv(K, 8), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      let x = math.cast(ld.global(c[b, r, :]), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[b, r])
    }
  }
}

kernel kmeans_assign_sm90(
  x: global bf16[B, N, D] align(16),
  c: global bf16[B, K, D] align(16),
  cn: global fp32[B, K] align(16),
  ids: global i32[B, N],
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  assume K % BN == 0, K >= BN
  let CT = K / BN
  let tiles = sched.tiles(b = B, m = math.cdiv(N, BM))

  ring xs stages(2) producer(load) consumer(compute) {
    x: shared bf16[BM, D] swizzle(128B)
  }
  ring cs stages(4) producer(load) consumer(compute) {
    c: shared bf16[BN, D] swizzle(128B)
  }
  ring ns stages(4) producer(load) consumer(compute) {
    cn: shared fp32[BN]
  }

  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      let px = xs.produce()
      tma.load(x[t.b, t.m * BM, 0], px.x)
      xs.commit(px)
      for j in 0 .. CT {
        let pc = cs.produce()
        tma.load(c[t.b, j * BN, 0], pc.c)
        cs.commit(pc)
        let pn = ns.produce()
        tma.load(cn[t.b, j * BN], pn.cn)
        ns.commit(pn)
      }
    }
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[2, 64, BN]
    var best: reg fp32[64]
    var best_id: reg i32[64]
    for t in tiles {
      let sx = xs.consume()
      best = inf
      best_id = 0
      // iteration j issues the MMA of tile j and folds tile j - 1 into the running argmin
      for j in 0 .. CT + 1 unroll(2) {
        if j < CT {
          let sc = cs.consume()
          wgmma.mma(sx.x[r0:r0 + 64, :], sc.c, acc[j % 2], shape = m64n128k16, accumulate = false)
          wgmma.commit()
          wgmma.wait(1)
          cs.release(sc, after = wgmma.retired(1))
        } else {
          wgmma.wait(0)
        }
        if j > 0 {
          let sn = ns.consume()
          let norms = ld.shared(sn.cn, like = acc[(j + 1) % 2], axis = 1)
          fence.proxy_async(sn.cn)
          ns.release(sn)
          let v, i = reduce.argmin(norms - 2.0 * acc[(j + 1) % 2], axis = 1)
          let better = v < best
          best = math.select(better, v, best)
          best_id = math.select(better, i + (j - 1) * BN, best_id)
        }
      }
      xs.release(sx)
      st.global(best_id, ids[t.b, t.m * BM + r0], clip = true)
    }
  }
}
