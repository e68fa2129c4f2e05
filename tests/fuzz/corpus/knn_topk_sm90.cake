// Brute-force L2 KNN for Hopper: for each query, the KP smallest ||q - x||^2 with their ids.
// A tile of 128 queries is loaded once per work tile and kept in registers as the wgmma A
// operand; database tiles of 64 rows stream through a TMA ring. Each compute warpgroup owns
// 64 queries, double-buffers its accumulator and merges tile j - 1 into a per-query top-k kept
// in registers while the MMA of tile j runs. ||q||^2 is added at the end (constant per row).
// k <= KP; instantiate KP in {16, 32, 64}. bf16 shown; fp16 is the same with the type changed.
// Shared memory: 2 x 32 KiB (q) + 6 x 16 KiB (x) + 6 x 256 B (norms) = 161.5 KiB of 227 KiB.
// Registers: 128 x 40 + 256 x 232 = 64512 of 65536.

const BM = 128
const BN = 64
const D = 128
const KP = 32

// ||r||^2 in fp32 for every row of a matrix, one warp per row (queries and database).
kernel knn_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}

kernel knn_topk_sm90(
  q: global bf16[Q, D] align(16),
  x: global bf16[N, D] align(16),
  qn: global fp32[Q],
  xn: global fp32[N] align(16),
  dist: global fp32[Q, KOUT],
  ids: global i32[Q, KOUT],
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  assume KOUT >= 1, KOUT <= KP
  let XT = math.cdiv(N, BN)
  let tiles = sched.tiles(m = math.cdiv(Q, BM))

  ring qs stages(2) producer(load) consumer(compute) {
    q: shared bf16[BM, D] swizzle(128B)
  }
  ring xs stages(6) producer(load) consumer(compute) {
    x: shared bf16[BN, D] swizzle(128B)
  }
  ring ns stages(6) producer(load) consumer(compute) {
    xn: shared fp32[BN]
  }

  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      let pq = qs.produce()
      tma.load(q[t.m * BM, 0], pq.q)
      qs.commit(pq)
      for j in 0 .. XT {
        let px = xs.produce()
        tma.load(x[j * BN, 0], px.x)
        xs.commit(px)
        let pn = ns.produce()
        tma.load(xn[j * BN], pn.xn)
        ns.commit(pn)
      }
    }
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[2, 64, BN]
    var best: reg fp32[64, KP]
    var best_id: reg i32[64, KP]
    for t in tiles {
      let sq = qs.consume()
      let qa = ld.matrix(sq.q[r0:r0 + 64, :], operand = a)
      fence.proxy_async(sq.q)
      qs.release(sq)
      best = inf
      best_id = -1
      // iteration j issues the MMA of tile j and merges tile j - 1 into the top-k
      for j in 0 .. XT + 1 unroll(2) {
        if j < XT {
          let sx = xs.consume()
          wgmma.mma(qa, sx.x, acc[j % 2], shape = m64n64k16, accumulate = false)
          wgmma.commit()
          wgmma.wait(1)
          xs.release(sx, after = wgmma.retired(1))
        } else {
          wgmma.wait(0)
        }
        if j > 0 {
          let sn = ns.consume()
          let norms = ld.shared(sn.xn, like = acc[(j + 1) % 2], axis = 1)
          fence.proxy_async(sn.xn)
          ns.release(sn)
          let col = tile.iota(like = acc[(j + 1) % 2], axis = 1) + (j - 1) * BN
          let d = math.select(col < N, norms - 2.0 * acc[(j + 1) % 2], inf)
          best, best_id = topk.merge(best, best_id, d, col)
        }
      }
      let qq = ld.global(qn[t.m * BM + r0], like = best, axis = 0, clip = true)
      let out = math.max(best + tile.expand(qq, 1), 0.0)
      st.global(out, dist[t.m * BM + r0, 0], clip = true)
      st.global(best_id, ids[t.m * BM + r0, 0], clip = true)
    }
  }
}
