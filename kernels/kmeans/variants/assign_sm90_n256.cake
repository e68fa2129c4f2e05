// Variant of kernels/kmeans/assign_sm90.cake: centroid tiles of 256 (wgmma m64n256k16) into one
// accumulator per warpgroup. A warpgroup's fold does not overlap its own MMA; the two compute
// warpgroups overlap each other's. Half the x-operand shared-memory reads of the 128-wide tile.

const BM = 128
const BN = 256
const D = 128

// ||c_k||^2 in fp32, one warp per centroid row (run once per Lloyd iteration); rows K .. KP
// of the padded norms are +inf.
kernel kmeans_cnorm(
  c: global bf16[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
) target(sm_90a) grid(math.cdiv(KP, 8), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      let x = math.cast(ld.global(c[b, r, :]), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[b, r])
    }
    if r >= K {
      if r < KP {
        st.global(inf, cn[b, r])
      }
    }
  }
}

kernel kmeans_assign_n256(
  x: global bf16[B, N, D] align(16),
  c: global bf16[B, K, D] align(16),
  cn: global fp32[B, KP] align(16),
  ids: global i32[B, N],
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  assume KP % BN == 0, KP >= BN
  let CT = KP / BN
  assume CT >= 1
  let tiles = sched.tiles(b = B, m = math.cdiv(N, BM))

  ring xs stages(2) producer(load) consumer(compute) {
    x: shared bf16[BM, D] swizzle(128B)
  }
  ring cs stages(2) producer(load) consumer(compute) {
    c: shared bf16[BN, D] swizzle(128B)
  }
  ring ns stages(2) producer(load) consumer(compute) {
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
    var acc: reg fp32[64, BN]
    var best: reg fp32[64]
    var best_id: reg i32[64]
    for t in tiles {
      let sx = xs.consume()
      best = inf
      best_id = 0
      for j in 0 .. CT {
        let s = cs.consume()
        wgmma.mma(sx.x[r0:r0 + 64, :], s.c, acc, shape = m64n256k16, accumulate = false)
        wgmma.commit()
        wgmma.wait(0)
        cs.release(s)
        let n = ns.consume()
        let cnr = ld.shared(n.cn, like = acc, axis = 1)
        argmin.fold(best, best_id, cnr - 2.0 * acc, offset = j * BN)
        fence.proxy_async(n.cn)
        ns.release(n)
      }
      xs.release(sx)
      argmin.finish(best, best_id)
      st.global(best_id, ids[t.b, t.m * BM + r0], clip = true)
    }
  }
}
