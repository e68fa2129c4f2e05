// mma.uninit: one buffer of a double-buffered accumulator (the KMeans assignment's acc[0]) made
// to accumulate after its previous product was folded into the argmin: the previous centroid
// tile's distances are added into this one's. The fix restores accumulate = false (the buffer is
// consumed after every product, so no other reading is defined).
const BM = 192
const BN = 128
const D = 128

kernel kmeans_assign_sm90(
  x: global bf16[B, N, D] align(16),
  c: global bf16[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
  ids: global i32[B, N],
) target(sm_90a) grid(persistent) block(512) cluster(1) {
  assume KP % (2 * BN) == 0, KP >= 2 * BN
  let CT = KP / BN
  assume CT >= 2, CT % 2 == 0
  let tiles = sched.tiles(b = B, m = math.cdiv(N, BM))

  ring xs stages(2) producer(load) consumer(compute) {
    x: shared bf16[BM, D] swizzle(128B)
  }
  ring cs stages(3) producer(load) consumer(compute) {
    c: shared bf16[BN, D] swizzle(128B)
  }
  ring ns stages(3) producer(load) consumer(compute) {
    cn: shared fp32[BN]
  }

  role load warpgroups(0) regs(24) issue(elect) {
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
        tma.load(c[t.b, j * BN, 0], pc.c)
        cs.commit(pc)
        let pn = ns.produce()
        tma.load(cn[t.b, j * BN], pn.cn)
        ns.commit(pn)
      }
    }
  }

  role compute warpgroups(1 .. 4) regs(160) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[2, 64, BN]
    var best: reg fp32[64]
    var best_id: reg i32[64]
    // the work tile whose last centroid tile is still to fold; initially one past the end of
    // batch 0 (every row clipped), so the first fold (of acc[1] before any MMA wrote it, against
    // the dummy norms slot) and its store write nothing
    var pb: i32 = 0
    var pm: i32 = math.cdiv(N, BM)
    best = inf
    best_id = 0
    for t in tiles {
      let sx = xs.consume()
      // tile 0 into acc[0] while the previous work tile's last tile (acc[1]) folds and its ids
      // are stored: no MMA waits on the epilogue between work tiles
      let s0 = cs.consume()
      wgmma.mma(sx.x[r0:r0 + 64, :], s0.c, acc[0], shape = m64n128k16, accumulate = false)
      wgmma.commit()
      let nl = ns.consume()
      let cnl = ld.shared(nl.cn, like = acc[1], axis = 1)
      argmin.fold(best, best_id, cnl - 2.0 * acc[1], offset = (CT - 1) * BN)
      fence.proxy_async(nl.cn)
      ns.release(nl)
      argmin.finish(best, best_id)
      st.global(best_id, ids[pb, pm * BM + r0], clip = true)
      best = inf
      best_id = 0
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
        wgmma.mma(sx.x[r0:r0 + 64, :], s1.c, acc[1], shape = m64n128k16, accumulate = false)
        wgmma.commit()
        let n0 = ns.consume()
        let cn0 = ld.shared(n0.cn, like = acc[0], axis = 1)
        argmin.fold(best, best_id, cn0 - 2.0 * acc[0], offset = 2 * p * BN)
        fence.proxy_async(n0.cn)
        ns.release(n0)
        wgmma.wait(0)
        cs.release(s1)
        let s2 = cs.consume()
        // expected-error@+1:46 mma.uninit {{this accumulates into 'acc[0]', whose value was already read since the MMA that wrote it}}
        wgmma.mma(sx.x[r0:r0 + 64, :], s2.c, acc[0], shape = m64n128k16, accumulate = true)
        wgmma.commit()
        let n1 = ns.consume()
        let cn1 = ld.shared(n1.cn, like = acc[1], axis = 1)
        argmin.fold(best, best_id, cn1 - 2.0 * acc[1], offset = (2 * p + 1) * BN)
        fence.proxy_async(n1.cn)
        ns.release(n1)
        wgmma.wait(0)
        cs.release(s2)
      }
      // the last pair: tile CT - 1 into acc[1] while tile CT - 2 folds; tile CT - 1 folds in the
      // next work tile (or after the loop)
      let s3 = cs.consume()
      wgmma.mma(sx.x[r0:r0 + 64, :], s3.c, acc[1], shape = m64n128k16, accumulate = false)
      wgmma.commit()
      let n2 = ns.consume()
      let cn2 = ld.shared(n2.cn, like = acc[0], axis = 1)
      argmin.fold(best, best_id, cn2 - 2.0 * acc[0], offset = (CT - 2) * BN)
      fence.proxy_async(n2.cn)
      ns.release(n2)
      wgmma.wait(0)
      cs.release(s3)
      xs.release(sx)
    }
    let nl = ns.consume()
    let cnl = ld.shared(nl.cn, like = acc[1], axis = 1)
    argmin.fold(best, best_id, cnl - 2.0 * acc[1], offset = (CT - 1) * BN)
    fence.proxy_async(nl.cn)
    ns.release(nl)
    argmin.finish(best, best_id)
    st.global(best_id, ids[pb, pm * BM + r0], clip = true)
  }
}
