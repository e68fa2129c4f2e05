// fold.offset: a split-K KMeans assignment (work tile (s, m) folds centroid tiles s * CT ..
// (s + 1) * CT - 1 into partials) written with the unsplit kernel's offset, j * BN: every split
// numbers its centroids from 0, so the merge of the partials picks ids of the first split's range
// (the KMeans assignment's split-K fold offset, issue #21). No fix-it: the first row of the tile is
// the schedule's to say; good.cake has it.
const BM = 64
const BN = 128
const D = 64

kernel assign_split(
  x: global bf16[N, D] align(16),
  c: global bf16[K, D] align(16),
  cn: global fp32[K] align(16),
  pv: global fp32[S, N],
  pi: global i32[S, N],
) target(sm_90a) grid(persistent) block(256) {
  assume K % (S * BN) == 0, K >= S * BN
  let CT = K / (S * BN)
  let tiles = sched.tiles(s = S, m = math.cdiv(N, BM))

  ring xs stages(2) producer(load) consumer(compute) {
    x: shared bf16[BM, D] swizzle(128B)
  }
  ring cs stages(3) producer(load) consumer(compute) {
    c: shared bf16[BN, D] swizzle(128B)
    cn: shared fp32[BN]
  }

  role load warpgroups(0) issue(elect) {
    for t in tiles {
      let px = xs.produce()
      tma.load(x[t.m * BM, 0], px.x)
      xs.commit(px)
      for j in 0 .. CT {
        let pc = cs.produce()
        // expected-note@+1:18 {{role 'load' loads the folded tile from here; its row depends on tile axis 's'}}
        tma.load(c[(t.s * CT + j) * BN, 0], pc.c)
        tma.load(cn[(t.s * CT + j) * BN], pc.cn)
        cs.commit(pc)
      }
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[64, BN]
    var best: reg fp32[64]
    var best_id: reg i32[64]
    for t in tiles {
      let sx = xs.consume()
      best = inf
      best_id = 0
      for j in 0 .. CT {
        let s = cs.consume()
        wgmma.mma(sx.x, s.c, acc, shape = m64n128k16, accumulate = false)
        wgmma.commit()
        wgmma.wait(0)
        let cnj = ld.shared(s.cn, like = acc, axis = 1)
        // expected-error@+1:62 fold.offset {{this offset ('j * BN') does not depend on tile axis 's'}}
        argmin.fold(best, best_id, cnj - 2.0 * acc, offset = j * BN)
        fence.proxy_async(s.cn)
        cs.release(s)
      }
      xs.release(sx)
      argmin.finish(best, best_id)
      st.global(best, pv[t.s, t.m * BM], clip = true)
      st.global(best_id, pi[t.s, t.m * BM], clip = true)
    }
  }
}
