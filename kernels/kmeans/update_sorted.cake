// KMeans update for Hopper through a counting sort of the rows by cluster (no fp32 reduction per
// row): c_new[b, k, :] = the mean of the rows x[b, n, :] with ids[b, n] = k, accumulated in fp32;
// an empty cluster keeps c_old[b, k, :]; shift[b] = the largest squared move of a stored centroid
// of batch b (0 when nothing moved). Five kernels, run in order:
//   kmeans_sort_zero     counts := 0, runs := 0
//   kmeans_sort_count    counts[b, k] = rows of cluster k, rank[b, n] = the row's place among
//                        them (integer atomics aggregated per warp: one atom per distinct cluster
//                        among a warp's 32 rows)
//   kmeans_sort_scan     one CTA per batch: sizes = counts, starts = their exclusive prefix sum,
//                        the chunks of R rows beyond the first of each cluster (xoff, emap,
//                        nextra); sums and ticket zeroed for those clusters, shift := 0
//   kmeans_sort_scatter  order[b, starts[k] + rank[n]] = n: the rows of batch b by cluster
//   kmeans_sort_means    one warp per (cluster, chunk of at most R rows): the chunk's rows read
//                        through order[] and summed in registers; a cluster of at most R rows
//                        writes its mean directly, a larger one adds its chunks into sums
//                        (red.global.add.v4.f32) and the chunk that arrives last writes the mean;
//                        an empty cluster keeps c_old
// No distribution of ids is slow: the atomics are one per distinct cluster per warp, the fp32
// reductions one row per chunk, and the rows of a big cluster are spread over many warps.
// D is a compile-time constant (a multiple of 32 whose bf16 row splits into whole 4-element
// chunks per lane: 128 here). B, N and K are sizes bound at launch (any values); ids must lie in
// [0, K) (the kernels do not check them).
// Each kernel may also run again on its own (cake run times each kernel of a pipeline alone,
// after the pipeline ran once) and does the same work: the count kernel counts its runs since
// the zero and the scan divides the counts by them, the scatter wraps ranks past a cluster's size,
// and the last chunk of a big cluster leaves its sums row and ticket zeroed.
// Traffic at B = 32, N = 65536, K = 1024, D = 128: x is read once, gathered by rows of 256 bytes
// (512 MiB); ids, rank and order twice each (48 MiB), c_old and c_new once (16 MiB).

const D = 128
// rows per chunk: one warp sums at most R rows of a cluster
const R = 128
// rows a warp of the means kernel keeps in flight
const U = 8

// counts[b, k] := 0, runs[b] := 0 (what the count kernel's atomics start from).
kernel kmeans_sort_zero(
  counts: global i32[B, K],
  runs: global i32[B],
) target(sm_90a) grid(math.cdiv(K, 256), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let k = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    if k < K {
      st.global(0, counts[b, k])
    }
    if k == 0 {
      st.global(0, runs[b])
    }
  }
}

// counts[b, ids[b, n]] += 1 and rank[b, n] = the count before, for every row; each lane takes 4
// rows 256 apart, their ids loaded first. runs[b] counts the launches since the zero.
kernel kmeans_sort_count(
  ids: global i32[B, N],
  counts: global i32[B, K],
  rank: global i32[B, N],
  runs: global i32[B],
) target(sm_90a) grid(math.cdiv(N, 1024), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let n0 = cta.id(0) * 1024 + self.warp() * 32 + self.lane()
    let n1 = n0 + 256
    let n2 = n0 + 512
    let n3 = n0 + 768
    let k0 = ld.global(ids[b, math.min(n0, N - 1)])
    let k1 = ld.global(ids[b, math.min(n1, N - 1)])
    let k2 = ld.global(ids[b, math.min(n2, N - 1)])
    let k3 = ld.global(ids[b, math.min(n3, N - 1)])
    if n0 < N {
      st.global(atomic.add(1, counts[b, k0], aggregate = warp), rank[b, n0])
    }
    if n1 < N {
      st.global(atomic.add(1, counts[b, k1], aggregate = warp), rank[b, n1])
    }
    if n2 < N {
      st.global(atomic.add(1, counts[b, k2], aggregate = warp), rank[b, n2])
    }
    if n3 < N {
      st.global(atomic.add(1, counts[b, k3], aggregate = warp), rank[b, n3])
    }
    if n0 == 0 {
      atomic.add(1, runs[b])
    }
  }
}

// Per batch: h = counts / runs (1 after one count), starts = the exclusive prefix sum of h over
// k, x = max(cdiv(h, R), 1) - 1 chunks beyond the first per cluster and xoff their exclusive
// prefix sum; emap[b, xoff[k] + i - 1] = k for the extra chunks i = 1 .. x of cluster k (at most
// N / R of them in all, nextra[b]). Warp w takes the clusters [w * 32 S, (w + 1) * 32 S), lane l
// the cluster 32 j + l of its step j; the warps' totals of h and x go through part (pass 1),
// then each warp scans its clusters from its base (pass 2). The loads of 4 steps overlap.
kernel kmeans_sort_scan(
  counts: global i32[B, K],
  runs: global i32[B],
  sizes: global i32[B, K],
  starts: global i32[B, K],
  xoff: global i32[B, K],
  emap: global i32[B, N],
  nextra: global i32[B],
  sums: global fp32[B, K, D] align(16),
  ticket: global i32[B, K],
  shift: global fp32[B],
) target(sm_90a) grid(B) block(1024) {
  var part: shared i32[2, 32]
  role prefix warps(0 .. 32) issue(warp) {
    let b = cta.id(0)
    let w = self.warp()
    let lane = self.lane()
    let m = math.max(ld.global(runs[b]), 1)
    let steps = math.cdiv(K, 1024)
    let first = w * 32 * steps
    // pass 1: this warp's rows and extra chunks
    var th: i32 = 0
    var tx: i32 = 0
    for j in 0 .. steps unroll(4) {
      let k = first + j * 32 + lane
      let h = math.select(k < K, ld.global(counts[b, math.min(k, K - 1)]), 0) / m
      th += h
      tx += math.max(math.cdiv(h, R), 1) - 1
    }
    for o in 0 .. 5 unroll {
      th += warp.shfl_xor(th, 1 << o)
      tx += warp.shfl_xor(tx, 1 << o)
    }
    if elect.one() {
      st.shared(th, part[0, w])
      st.shared(tx, part[1, w])
    }
    bar.sync(cta)
    // the warps before this one: its bases; all warps: the batch's extra chunks
    let ph = ld.shared(part[0, lane])
    let px = ld.shared(part[1, lane])
    var rbase: i32 = math.select(lane < w, ph, 0)
    var xbase: i32 = math.select(lane < w, px, 0)
    var xall: i32 = px
    for o in 0 .. 5 unroll {
      rbase += warp.shfl_xor(rbase, 1 << o)
      xbase += warp.shfl_xor(xbase, 1 << o)
      xall += warp.shfl_xor(xall, 1 << o)
    }
    // pass 2: inclusive scans over the lanes, 32 clusters per step
    for j in 0 .. steps unroll(4) {
      let k = first + j * 32 + lane
      let h = math.select(k < K, ld.global(counts[b, math.min(k, K - 1)]), 0) / m
      let x = math.max(math.cdiv(h, R), 1) - 1
      var ih: i32 = h
      var ix: i32 = x
      for o in 0 .. 5 unroll {
        let d = 1 << o
        let uh = warp.shfl(ih, math.max(lane - d, 0))
        let ux = warp.shfl(ix, math.max(lane - d, 0))
        if lane >= d {
          ih += uh
          ix += ux
        }
      }
      let x0 = xbase + ix - x
      if k < K {
        st.global(h, sizes[b, k])
        st.global(rbase + ih - h, starts[b, k])
        st.global(x0, xoff[b, k])
        for i in 0 .. x {
          st.global(k, emap[b, x0 + i])
        }
        if x > 0 {
          st.global(0, ticket[b, k])
        }
      }
      // the sums rows of the clusters with extra chunks, one warp-wide store each
      if warp.any(x > 0) {
        for q in 0 .. 32 {
          let kq = warp.shfl(k, q)
          if warp.shfl(x, q) > 0 {
            st.global(0.0, sums[b, kq, :])
          }
        }
      }
      rbase += warp.shfl(ih, 31)
      xbase += warp.shfl(ix, 31)
    }
    if w == 0 {
      st.global(xall, nextra[b])
      st.global(0.0, shift[b])
    }
  }
}

// order[b, starts[k] + rank[n]] = n for every row n of cluster k (rank modulo the cluster's size:
// ranks past it come from counts run again without the zero).
kernel kmeans_sort_scatter(
  ids: global i32[B, N],
  rank: global i32[B, N],
  sizes: global i32[B, K],
  starts: global i32[B, K],
  order: global i32[B, N],
) target(sm_90a) grid(math.cdiv(N, 1024), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    for i in 0 .. 4 unroll {
      let n = cta.id(0) * 1024 + i * 256 + self.warp() * 32 + self.lane()
      if n < N {
        let k = ld.global(ids[b, n])
        let r = ld.global(rank[b, n])
        let h = math.max(ld.global(sizes[b, k]), 1)
        st.global(n, order[b, ld.global(starts[b, k]) + math.select(r < h, r, r % h)])
      }
    }
  }
}

// One warp per chunk: warp w < K takes the first chunk of cluster w, warp K + e the extra chunk
// e of the batch, i.e. chunk i = e - xoff[k] + 1 of cluster k = emap[b, e]. The chunk's rows
// order[b, lo .. lo + rows) are loaded 32 indices at a time (one per lane) and U rows at a time,
// summed in fp32. The CTA's 8 squared moves meet in shared memory: one atomic.max per CTA.
kernel kmeans_sort_means(
  x: global bf16[B, N, D] align(16),
  c_old: global bf16[B, K, D] align(16),
  sizes: global i32[B, K],
  starts: global i32[B, K],
  xoff: global i32[B, K],
  emap: global i32[B, N],
  nextra: global i32[B],
  order: global i32[B, N],
  sums: global fp32[B, K, D] align(16),
  ticket: global i32[B, K],
  c_new: global bf16[B, K, D] align(16),
  shift: global fp32[B],
) target(sm_90a) grid(math.cdiv(K + math.cdiv(N, R), 8), B) block(256) {
  var moves: shared fp32[8]
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let w = cta.id(0) * 8 + self.warp()
    var moved: fp32 = 0.0
    var k: i32 = w
    var i: i32 = 0
    var live: bool = w < K
    if w >= K {
      let e = w - K
      if e < ld.global(nextra[b]) {
        k = ld.global(emap[b, e])
        i = e - ld.global(xoff[b, k]) + 1
        live = true
      }
    }
    if live {
      let cnt = ld.global(sizes[b, k])
      let lo = ld.global(starts[b, k]) + i * R
      let nrows = math.min(cnt - i * R, R)
      var acc: reg fp32[D] = 0.0
      for j in 0 .. math.cdiv(nrows, 32) {
        let here = math.min(nrows - j * 32, 32)
        let nv = ld.global(order[b, lo + j * 32 + math.min(self.lane(), here - 1)])
        for q in 0 .. here unroll(U) {
          let n = warp.shfl(nv, q)
          let xr = math.cast(ld.global(x[b, n, :], like = acc), fp32)
          acc = acc + xr
        }
      }
      let nch = math.max(math.cdiv(cnt, R), 1)
      var done: bool = nch == 1
      if nch > 1 {
        // a big cluster: add the chunk, then count it; the last chunk to arrive finishes
        atomic.add(acc, sums[b, k, :])
        fence.gpu()
        bar.sync(warp)
        var t: i32 = 0
        if elect.one() {
          t = atomic.add(1, ticket[b, k])
        }
        fence.gpu()
        bar.sync(warp)
        done = warp.shfl(t, 0) == nch - 1
        if done {
          let s = ld.global(sums[b, k, :])
          acc = s
          st.global(0.0, sums[b, k, :])
          if elect.one() {
            st.global(0, ticket[b, k])
          }
        }
      }
      if done {
        let old = math.cast(ld.global(c_old[b, k, :], like = acc), fp32)
        let mean = math.select(cnt > 0, acc / math.cast(math.max(cnt, 1), fp32), old)
        let c = math.cast(mean, bf16)
        st.global(c, c_new[b, k, :])
        let d = math.cast(c, fp32) - old
        moved = reduce.sum(d * d, axis = 0)
      }
    }
    if elect.one() {
      st.shared(moved, moves[self.warp()])
    }
    bar.sync(cta)
    if self.warp() == 0 {
      var most: fp32 = ld.shared(moves[self.lane() % 8])
      for o in 0 .. 3 unroll {
        most = math.max(most, warp.shfl_xor(most, 1 << o))
      }
      if elect.one() {
        if most > 0.0 {
          atomic.max(most, shift[b])
        }
      }
    }
  }
}
