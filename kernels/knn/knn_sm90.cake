// Brute-force L2 k nearest neighbours for Hopper: for each query, the k smallest
// ||q - x||^2 = ||q||^2 + ||x||^2 - 2 q . x over the database rows, ascending, with their ids.
// The Flash-KMeans assignment schedule (kernels/kmeans/assign_sm90.cake) with a top-k in place
// of the argmin: a query tile of 64 x WG rows stays resident while database tiles of BN rows
// stream through a TMA ring into wgmma; the distance matrix never leaves registers. Each compute
// warpgroup owns 64 queries and double-buffers its accumulator, so the selection of one tile
// overlaps the MMA of the next. The running top-k stays in per-lane sorted lists of KP entries
// (topk.fold: after the first tiles almost every distance costs one compare with the lane's
// KP-th), merged across the quad once per query tile (topk.finish); k <= KP.
// The database is split into S ranges of tiles (S = SK / KP, a size: one instantiation serves every
// split): work tile (s, m) keeps the KP nearest of range s in pv/pi[q, s * KP ...], and knn_merge keeps
// the k nearest of the S lists per query (kernels/knn/knn.manifest.json derives S for a call).
// The database norms travel in their own ring, padded with +inf to NP (a multiple of 2 BN S), so
// N need not be a multiple of the tile: padded rows never enter a list.
// The loop is peeled by hand as in the assignment kernel, so that no MMA or wgmma wait sits under
// a condition and no group is in flight across a back edge.
// Shared memory (defaults): 2 x 32 KiB (q) + 4 x 16 KiB (x) + 4 x 256 B (norms) = 129 KiB.
// Registers (defaults): 128 x 40 + 256 x 232; a compute thread holds 2 x 32 accumulators twice
// and 2 rows x KP keys and ids.
// the query and database tiles' width: D (a size, any multiple of 8 up to DP) is read through TMA boxes of
// DP columns, and the columns past D are zero-filled (as GEMM's ragged K is): zeros add nothing to q . x
param DP: int in {64, 128, 256, 512, 1024} = 128
param elem: elem in {bf16, fp16} = fp16
// compute warpgroups (64 queries each)
param WG: int in 1 .. 3 = 2
// database tile rows and ring stages
param BN: int in {64, 128} = 64
param XS: int in 2 .. 9 = 4
// entries of each lane's list (k <= KP)
param KP: int in {1, 2, 4, 8, 16, 32} = 16
// passes: knn_sm90 folds only what follows the last (key, id) of the pass before (topk.fold's after), so
// that pass p finds entries p KP .. of each list and any k runs in cdiv(k, KP) passes. A parameter, not
// always on: the bounds, the rows' (key, id) and the equal keys it admits cost the one-pass search 7 to 24%
// (2.98 -> 3.69 ms at Q = 4096, N = 2^20, D = 128, k = 10; bench/results/knn_h200.md)
param AFTER: bool = false
require KP == 32 || !AFTER
// the database norms from the tile in shared memory, not from knn_norms's pass over the database: each warp of
// the (one) compute warpgroup sums the squares of BN / 4 rows of the slot while its MMA runs, into nb (two
// buffers: a tile's norms are written one step before its fold reads them, one warpgroup barrier a step, just
// before the read, orders both). With one query tile (Q <= 64) the database is then read once instead of twice,
// but the search is not faster: 0.96x the two-pass one over 37 few-query shapes (five shuffles a row in the
// warps that also fold; bench/results/knn_h200.md), so no dispatch rule uses it
param FUSED: bool = false
require WG == 1 || !FUSED
require !AFTER || !FUSED
// two query stages while the tile fits; one at DP = 256
require DP <= 128 || WG == 1 || WIDE
// past 256 columns the query tile no longer stays resident beside the database ring: knn_wide splits D instead
// of knn_sm90 (below)
param WIDE: bool = false
require DP > 256 || !WIDE
require DP <= 256 || WIDE
require !FUSED || !WIDE
const BM = 64 * WG
const SW = math.min(2 * DP, 128)
const QS = math.select(DP <= 128, 2, 1)
// the tile's norms read before the next MMA is issued, so that the shared loads' latency overlaps the
// issue: 12% at k = 10 (3.21 -> 2.83 ms at Q = 4096, N = 2^20); at KP = 32 the norms' registers held
// across the issue spill (3.82 -> 5.39 ms; bench/results/knn_h200.md)
const EARLY = KP <= 16
if BN == 64 {
  const MMA = m64n64k16
} else {
  const MMA = m64n128k16
}

// ||q||^2 and ||x||^2 in fp32, one warp per row, NR rows a warp, four rows' loads in flight at a time: the
// first math.cdiv(Q, 8 NR) CTAs take the queries, the rest the database rows and its padding (rows N .. NP
// are +inf, so that they never enter a list). A row is read DP columns at a time, those past D (and rows past
// N) as zeros. One kernel for both: a launch less per call (the few-query calls are short). One row a warp
// and 8 a CTA left the database's norms at a quarter of DRAM bandwidth: 1.30 ms of a 1.95 ms search at
// Q = 4, N = 10M, D = 48 (torch profiler, bench/results/knn_h200.md).
const NR = 16
kernel knn_norms(
  q: global elem[Q, D] align(16),
  db: global elem[N, D] align(16),
  qn: global fp32[Q] align(16),
  xn: global fp32[NP] align(16),
  tail: global fp32[Q, KP],
  tail_id: global i32[Q, KP],
) target(sm_90a) grid(math.cdiv(Q, 8 * NR) + math.select(FUSED, 0, math.cdiv(NP, 8 * NR))) block(256) {
  // NP rounds N up to 2 BN S rows (knn_sm90): the four rows of a group are all below NP or none is
  assume D % 8 == 0, D <= DP, NP % 128 == 0
  role rows warps(0 .. 8) issue(warp) {
    // rows 0 .. qb are the queries' (the last CTA's past Q idle), the rest the database's
    let qb = math.cdiv(Q, 8 * NR) * 8 * NR
    let r0 = (cta.id(0) * 8 + self.warp()) * NR
    // the queries' rows (the database's warps find r >= Q at once)
    for i in 0 .. NR / 4 {
      let r = r0 + 4 * i
      if r < Q {
        let v0 = math.cast(ld.global(q[r, 0:DP], clip = true), fp32)
        let v1 = math.cast(ld.global(q[r + 1, 0:DP], clip = true), fp32)
        let v2 = math.cast(ld.global(q[r + 2, 0:DP], clip = true), fp32)
        let v3 = math.cast(ld.global(q[r + 3, 0:DP], clip = true), fp32)
        st.global(reduce.sum(v0 * v0, axis = 0), qn[r])
        if r + 1 < Q {
          st.global(reduce.sum(v1 * v1, axis = 0), qn[r + 1])
        }
        if r + 2 < Q {
          st.global(reduce.sum(v2 * v2, axis = 0), qn[r + 2])
        }
        if r + 3 < Q {
          st.global(reduce.sum(v3 * v3, axis = 0), qn[r + 3])
        }
        if AFTER {
          // pass 0 follows nothing: each list starts after (-inf, -1)
          for j in 0 .. 4 {
            if r + j < Q {
              st.global(-inf, tail[r + j, KP - 1])
              st.global(-1, tail_id[r + j, KP - 1])
            }
          }
        }
      }
    }
    if r0 >= qb {
      for i in 0 .. NR / 4 {
        // every rx < NP: the grid's database CTAs cover NP rows exactly (NP % 128 == 0). Four loads
        // before any use: their latencies overlap
        let rx = r0 - qb + 4 * i
        let w0 = math.cast(ld.global(db[rx, 0:DP], clip = true), fp32)
        let w1 = math.cast(ld.global(db[rx + 1, 0:DP], clip = true), fp32)
        let w2 = math.cast(ld.global(db[rx + 2, 0:DP], clip = true), fp32)
        let w3 = math.cast(ld.global(db[rx + 3, 0:DP], clip = true), fp32)
        st.global(math.select(rx < N, reduce.sum(w0 * w0, axis = 0), inf), xn[rx])
        st.global(math.select(rx + 1 < N, reduce.sum(w1 * w1, axis = 0), inf), xn[rx + 1])
        st.global(math.select(rx + 2 < N, reduce.sum(w2 * w2, axis = 0), inf), xn[rx + 2])
        st.global(math.select(rx + 3 < N, reduce.sum(w3 * w3, axis = 0), inf), xn[rx + 3])
      }
    }
  }
}

if !WIDE {
  kernel knn_sm90(
    q: global elem[Q, D] align(16),
    db: global elem[N, D] align(16),
    qn: global fp32[Q] align(16),
    xn: global fp32[NP] align(16),
    tail: global fp32[Q, KP],
    tail_id: global i32[Q, KP],
    pv: global fp32[Q, SK],
    pi: global i32[Q, SK],
  ) target(sm_90a) grid(persistent) block(128 * (WG + 1)) cluster(1) {
    // rows of whole 16-byte vectors (TMA strides), read DP columns at a time
    assume D % 8 == 0, D <= DP
    // SK = S * KP: the S partial lists of a query side by side (a size: one instantiation serves every S;
    // knn_merge's SK % 32 == 0 makes it a multiple of KP, and SK < KP makes the first fact's modulus 0,
    // which the launcher refuses); XT database tiles in each of the S ranges
    assume NP % (2 * BN * (SK / KP)) == 0, NP >= 2 * BN * (SK / KP)
    let S = SK / KP
    let XT = NP / BN / S
    let tiles = sched.tiles(s = S, m = math.cdiv(Q, BM))
    ring qs stages(QS) producer(load) consumer(compute) {
      q: shared elem[BM, DP] swizzle(SW)
    }
    ring xs stages(XS) producer(load) consumer(compute) {
      x: shared elem[BN, DP] swizzle(SW)
    }
    ring ns stages(XS) producer(load) consumer(compute) {
      xn: shared fp32[BN]
    }
    // FUSED: the norms of two database tiles (the one folded and the one whose MMA runs)
    var nb: shared fp32[2, BN]

    role load warpgroups(0) regs(40) issue(elect) {
      for t in tiles {
        let pq = qs.produce()
        tma.load(q[t.m * BM, 0], pq.q)
        qs.commit(pq)
        // the work tile's first database tile
        let t0 = t.s * XT
        for j in 0 .. XT {
          let px = xs.produce()
          tma.load(db[(t0 + j) * BN, 0], px.x)
          xs.commit(px)
          if !FUSED {
            let pn = ns.produce()
            tma.load(xn[(t0 + j) * BN], pn.xn)
            ns.commit(pn)
          }
        }
      }
    }

    role compute warpgroups(1 .. WG + 1) regs(232) issue(warpgroup) {
      let r0 = self.warpgroup() * 64
      var acc: reg fp32[2, 64, BN]
      var best: reg fp32[64, KP]
      var best_id: reg i32[64, KP]
      for t in tiles {
        let sq = qs.consume()
        let qq = ld.global(qn[t.m * BM + r0], like = acc[0], axis = 0, clip = true)
        if AFTER {
          // the last (key, id) of the pass before (knn_merge's list; -inf before the first): only what
          // follows it enters the lists, so that pass PASS finds entries PASS * KP .. of each query's list
          let lo = ld.global(tail[t.m * BM + r0, KP - 1], like = acc[0], axis = 0, clip = true)
          let lo_id = ld.global(tail_id[t.m * BM + r0, KP - 1], like = acc[0], axis = 0, clip = true)
        }
        // the work tile's first database tile
        let t0 = t.s * XT
        best = inf
        best_id = -1
        // tile 0 into acc[0]
        let s0 = xs.consume()
        wgmma.mma(sq.q[r0:r0 + 64, :], s0.x, acc[0], shape = MMA, accumulate = false)
        wgmma.commit()
        if FUSED {
          for i in 0 .. BN / 16 {
            let r = self.warp() * (BN / 4) + 4 * i
            let a0 = math.cast(ld.shared(s0.x[r, 0:DP]), fp32)
            let a1 = math.cast(ld.shared(s0.x[r + 1, 0:DP]), fp32)
            let a2 = math.cast(ld.shared(s0.x[r + 2, 0:DP]), fp32)
            let a3 = math.cast(ld.shared(s0.x[r + 3, 0:DP]), fp32)
            // lane l stores row r + l % 4 (lanes 4 .. 31 the same values again): one store of the four rows
            let n0 = reduce.sum(a0 * a0, axis = 0)
            let n1 = reduce.sum(a1 * a1, axis = 0)
            let n2 = reduce.sum(a2 * a2, axis = 0)
            let n3 = reduce.sum(a3 * a3, axis = 0)
            let l = self.lane() % 4
            let nl = math.select(l == 0, n0, math.select(l == 1, n1, math.select(l == 2, n2, n3)))
            st.shared(math.select(t0 * BN + r + l < N, nl, inf), nb[0, r + l])
          }
          fence.proxy_async(s0.x)
        }
        wgmma.wait(0)
        xs.release(s0)
        // pair p: the MMA of tile 2p + 1 (acc[1]) runs while tile 2p (acc[0]) is selected from, then
        // the MMA of tile 2p + 2 (acc[0]) while tile 2p + 1 (acc[1]) is. FUSED: a step begins with the
        // warpgroup barrier, reads the norms of the tile it folds (written the step before), then writes those
        // of the tile its MMA reads: each buffer's writes come before the barrier that precedes its reads, and
        // its reads before the barrier that precedes its next writes
        for p in 0 .. XT / 2 - 1 {
          if FUSED {
            bar.sync(warpgroup)
            let xn0 = ld.shared(nb[0, :], like = acc[0], axis = 1)
          } else {
            if EARLY {
              let n0 = ns.consume()
              let xn0 = ld.shared(n0.xn, like = acc[0], axis = 1)
            }
          }
          let s1 = xs.consume()
          wgmma.mma(sq.q[r0:r0 + 64, :], s1.x, acc[1], shape = MMA, accumulate = false)
          wgmma.commit()
          if !FUSED && !EARLY {
            let n0 = ns.consume()
            let xn0 = ld.shared(n0.xn, like = acc[0], axis = 1)
          }
          if FUSED {
            for i in 0 .. BN / 16 {
              let r = self.warp() * (BN / 4) + 4 * i
              let a0 = math.cast(ld.shared(s1.x[r, 0:DP]), fp32)
              let a1 = math.cast(ld.shared(s1.x[r + 1, 0:DP]), fp32)
              let a2 = math.cast(ld.shared(s1.x[r + 2, 0:DP]), fp32)
              let a3 = math.cast(ld.shared(s1.x[r + 3, 0:DP]), fp32)
              // lane l stores row r + l % 4 (lanes 4 .. 31 the same values again): one store of the four rows
              let n0 = reduce.sum(a0 * a0, axis = 0)
              let n1 = reduce.sum(a1 * a1, axis = 0)
              let n2 = reduce.sum(a2 * a2, axis = 0)
              let n3 = reduce.sum(a3 * a3, axis = 0)
              let l = self.lane() % 4
              let nl = math.select(l == 0, n0, math.select(l == 1, n1, math.select(l == 2, n2, n3)))
              st.shared(math.select((t0 + 2 * p + 1) * BN + r + l < N, nl, inf), nb[1, r + l])
            }
          }
          if AFTER {
            topk.fold(best, best_id, qq + xn0 - 2.0 * acc[0], offset = (t0 + 2 * p) * BN, after = lo, after_id = lo_id)
          } else {
            topk.fold(best, best_id, qq + xn0 - 2.0 * acc[0], offset = (t0 + 2 * p) * BN)
          }
          if !FUSED {
            fence.proxy_async(n0.xn)
            ns.release(n0)
          }
          if FUSED {
            fence.proxy_async(s1.x)
          }
          wgmma.wait(0)
          xs.release(s1)
          if FUSED {
            bar.sync(warpgroup)
            let xn1 = ld.shared(nb[1, :], like = acc[1], axis = 1)
          } else {
            if EARLY {
              let n1 = ns.consume()
              let xn1 = ld.shared(n1.xn, like = acc[1], axis = 1)
            }
          }
          let s2 = xs.consume()
          wgmma.mma(sq.q[r0:r0 + 64, :], s2.x, acc[0], shape = MMA, accumulate = false)
          wgmma.commit()
          if !FUSED && !EARLY {
            let n1 = ns.consume()
            let xn1 = ld.shared(n1.xn, like = acc[1], axis = 1)
          }
          if FUSED {
            for i in 0 .. BN / 16 {
              let r = self.warp() * (BN / 4) + 4 * i
              let a0 = math.cast(ld.shared(s2.x[r, 0:DP]), fp32)
              let a1 = math.cast(ld.shared(s2.x[r + 1, 0:DP]), fp32)
              let a2 = math.cast(ld.shared(s2.x[r + 2, 0:DP]), fp32)
              let a3 = math.cast(ld.shared(s2.x[r + 3, 0:DP]), fp32)
              // lane l stores row r + l % 4 (lanes 4 .. 31 the same values again): one store of the four rows
              let n0 = reduce.sum(a0 * a0, axis = 0)
              let n1 = reduce.sum(a1 * a1, axis = 0)
              let n2 = reduce.sum(a2 * a2, axis = 0)
              let n3 = reduce.sum(a3 * a3, axis = 0)
              let l = self.lane() % 4
              let nl = math.select(l == 0, n0, math.select(l == 1, n1, math.select(l == 2, n2, n3)))
              st.shared(math.select((t0 + 2 * p + 2) * BN + r + l < N, nl, inf), nb[0, r + l])
            }
          }
          if AFTER {
            topk.fold(best, best_id, qq + xn1 - 2.0 * acc[1], offset = (t0 + 2 * p + 1) * BN, after = lo, after_id = lo_id)
          } else {
            topk.fold(best, best_id, qq + xn1 - 2.0 * acc[1], offset = (t0 + 2 * p + 1) * BN)
          }
          if !FUSED {
            fence.proxy_async(n1.xn)
            ns.release(n1)
          }
          if FUSED {
            fence.proxy_async(s2.x)
          }
          wgmma.wait(0)
          xs.release(s2)
        }
        // the last pair: tile XT - 1 into acc[1] while tile XT - 2 is selected from
        if FUSED {
          bar.sync(warpgroup)
          let xn2 = ld.shared(nb[0, :], like = acc[0], axis = 1)
        } else {
          if EARLY {
            let n2 = ns.consume()
            let xn2 = ld.shared(n2.xn, like = acc[0], axis = 1)
          }
        }
        let s3 = xs.consume()
        wgmma.mma(sq.q[r0:r0 + 64, :], s3.x, acc[1], shape = MMA, accumulate = false)
        wgmma.commit()
        if !FUSED && !EARLY {
          let n2 = ns.consume()
          let xn2 = ld.shared(n2.xn, like = acc[0], axis = 1)
        }
        if FUSED {
          for i in 0 .. BN / 16 {
            let r = self.warp() * (BN / 4) + 4 * i
            let a0 = math.cast(ld.shared(s3.x[r, 0:DP]), fp32)
            let a1 = math.cast(ld.shared(s3.x[r + 1, 0:DP]), fp32)
            let a2 = math.cast(ld.shared(s3.x[r + 2, 0:DP]), fp32)
            let a3 = math.cast(ld.shared(s3.x[r + 3, 0:DP]), fp32)
            // lane l stores row r + l % 4 (lanes 4 .. 31 the same values again): one store of the four rows
            let n0 = reduce.sum(a0 * a0, axis = 0)
            let n1 = reduce.sum(a1 * a1, axis = 0)
            let n2 = reduce.sum(a2 * a2, axis = 0)
            let n3 = reduce.sum(a3 * a3, axis = 0)
            let l = self.lane() % 4
            let nl = math.select(l == 0, n0, math.select(l == 1, n1, math.select(l == 2, n2, n3)))
            st.shared(math.select((t0 + XT - 1) * BN + r + l < N, nl, inf), nb[1, r + l])
          }
        }
        if AFTER {
          topk.fold(best, best_id, qq + xn2 - 2.0 * acc[0], offset = (t0 + XT - 2) * BN, after = lo, after_id = lo_id)
        } else {
          topk.fold(best, best_id, qq + xn2 - 2.0 * acc[0], offset = (t0 + XT - 2) * BN)
        }
        if !FUSED {
          fence.proxy_async(n2.xn)
          ns.release(n2)
        }
        if FUSED {
          fence.proxy_async(s3.x)
        }
        wgmma.wait(0)
        xs.release(s3)
        qs.release(sq)
        if FUSED {
          bar.sync(warpgroup)
          let xn3 = ld.shared(nb[1, :], like = acc[1], axis = 1)
        } else {
          let n3 = ns.consume()
          let xn3 = ld.shared(n3.xn, like = acc[1], axis = 1)
        }
        if AFTER {
          topk.fold(best, best_id, qq + xn3 - 2.0 * acc[1], offset = (t0 + XT - 1) * BN, after = lo, after_id = lo_id)
        } else {
          topk.fold(best, best_id, qq + xn3 - 2.0 * acc[1], offset = (t0 + XT - 1) * BN)
        }
        if !FUSED {
          fence.proxy_async(n3.xn)
          ns.release(n3)
        }
        topk.finish(best, best_id)
        st.global(best, pv[t.m * BM + r0, t.s * KP], clip = true)
        st.global(best_id, pi[t.m * BM + r0, t.s * KP], clip = true)
      }
    }
  }
}

// The k nearest of a query's S partial lists, one warp per query: each lane folds its elements of the
// row, 32 at a time, into its own sorted list, and the warp's 32 lists are merged in five butterfly steps.
kernel knn_merge(
  pv: global fp32[Q, SK] align(16),
  pi: global i32[Q, SK] align(16),
  tail: global fp32[Q, KP],
  tail_id: global i32[Q, KP],
  dist: global fp32[Q, KOUT],
  ids: global i64[Q, KOUT],
  // the pass: this merge's list is entries PASS * KP .. of each query's
  PASS: param i32,
) target(sm_90a) grid(math.cdiv(Q, 8)) block(256) {
  // knn_merge reads a query's lists as rows of 32 elements, one a lane
  assume SK % 32 == 0
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    var best: reg fp32[KP]
    var best_id: reg i32[KP]
    if r < Q {
      best = inf
      best_id = -1
      for c in 0 .. SK / 32 {
        let kv = ld.global(pv[r, c * 32:c * 32 + 32])
        let ki = ld.global(pi[r, c * 32:c * 32 + 32])
        topk.fold(best, best_id, kv, ids = ki)
      }
      topk.finish(best, best_id)
      st.global(best, dist[r, PASS * KP], clip = true)
      st.global(best_id, ids[r, PASS * KP], clip = true)
      if AFTER {
        st.global(best, tail[r, 0])
        st.global(best_id, tail_id[r, 0])
      }
    }
  }
}

// D split (WIDE: D up to DP = 512 or 1024, any multiple of 8). A resident query tile of 128 x 1024 fp16 would be
// 256 KiB, so nothing stays resident: the main loop is the GEMM's (kernels/gemm/gemm_sm90_ws.cake), queries x
// database rows x D in chunks of 64 columns through a TMA ring of (query chunk, database chunk) stages into wgmma,
// and after a database tile's last chunk each compute warpgroup folds its 64 x BN distances into its lists
// (topk.fold) while the other warpgroup's MMAs run (kernels/kmeans/assign_wide.cake is the same loop with an
// argmin). The query tile is read again (from L2) for each database tile. The split over the database (S ranges,
// knn_merge) and the passes (AFTER) are knn_sm90's; NP need only be a multiple of BN S here (no tile pairs).
if WIDE {
  kernel knn_wide(
    q: global elem[Q, D] align(16),
    db: global elem[N, D] align(16),
    qn: global fp32[Q] align(16),
    xn: global fp32[NP] align(16),
    tail: global fp32[Q, KP],
    tail_id: global i32[Q, KP],
    pv: global fp32[Q, SK],
    pi: global i32[Q, SK],
  ) target(sm_90a) grid(persistent) block(128 * (WG + 1)) cluster(1) {
    // rows of whole 16-byte vectors (TMA strides); chunks past D are zero-filled
    assume D % 8 == 0, D <= DP
    assume NP % (BN * (SK / KP)) == 0, NP >= BN * (SK / KP)
    let S = SK / KP
    let XT = NP / BN / S
    let DT = math.cdiv(D, 64)
    let tiles = sched.tiles(s = S, m = math.cdiv(Q, BM))
    ring ab stages(XS) producer(load) consumer(compute) {
      q: shared elem[BM, 64] swizzle(128B)
      x: shared elem[BN, 64] swizzle(128B)
    }
    ring ns stages(2) producer(load) consumer(compute) {
      xn: shared fp32[BN]
    }

    role load warpgroups(0) regs(40) issue(elect) {
      for t in tiles {
        // the work tile's first database tile
        let t0 = t.s * XT
        for j in 0 .. XT {
          let pn = ns.produce()
          tma.load(xn[(t0 + j) * BN], pn.xn)
          ns.commit(pn)
          for c in 0 .. DT {
            let s = ab.produce()
            tma.load(q[t.m * BM, c * 64], s.q)
            tma.load(db[(t0 + j) * BN, c * 64], s.x)
            ab.commit(s)
          }
        }
      }
    }

    role compute warpgroups(1 .. WG + 1) regs(232) issue(warpgroup) {
      let r0 = self.warpgroup() * 64
      var acc: reg fp32[64, BN]
      var best: reg fp32[64, KP]
      var best_id: reg i32[64, KP]
      for t in tiles {
        let qq = ld.global(qn[t.m * BM + r0], like = acc, axis = 0, clip = true)
        if AFTER {
          // only what follows the last (key, id) of the pass before enters the lists (knn_sm90)
          let lo = ld.global(tail[t.m * BM + r0, KP - 1], like = acc, axis = 0, clip = true)
          let lo_id = ld.global(tail_id[t.m * BM + r0, KP - 1], like = acc, axis = 0, clip = true)
        }
        let t0 = t.s * XT
        best = inf
        best_id = -1
        for j in 0 .. XT {
          for c in 0 .. DT {
            let s = ab.consume()
            wgmma.mma(s.q[r0:r0 + 64, :], s.x, acc, shape = MMA, accumulate = c > 0)
            wgmma.commit()
            wgmma.wait(1)
            ab.release(s, after = wgmma.retired(1))
          }
          wgmma.wait(0)
          let n = ns.consume()
          let xv = ld.shared(n.xn, like = acc, axis = 1)
          if AFTER {
            topk.fold(best, best_id, qq + xv - 2.0 * acc, offset = (t0 + j) * BN, after = lo, after_id = lo_id)
          } else {
            topk.fold(best, best_id, qq + xv - 2.0 * acc, offset = (t0 + j) * BN)
          }
          fence.proxy_async(n.xn)
          ns.release(n)
        }
        topk.finish(best, best_id)
        st.global(best, pv[t.m * BM + r0, t.s * KP], clip = true)
        st.global(best_id, pi[t.m * BM + r0, t.s * KP], clip = true)
      }
    }
  }
}
