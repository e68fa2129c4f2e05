// Kimi Delta Attention forward (prefill) for Hopper, chunked WY form, chunks of C = 64 tokens.
// Per head, with state S (DK x DV), per-channel gate alpha_t = exp(g_t) and beta_t:
//   S_t = (I - beta_t k_t k_t^T) Diag(alpha_t) S_{t-1} + beta_t k_t v_t^T,  o_t = scale S_t^T q_t.
// Within a chunk, G = cumsum(g) and gamma = exp(G_last). Then, with T = (I + L)^-1 Diag(beta),
// L = Diag(beta) strict_lower(Akk) and Akk[t, s] = sum_k k_t k_s exp(G_t - G_s):
//   W = T (k * exp(G)),  U' = T V,  U = U' - W S,
//   O = scale ((q * exp(G)) S + lower(Aqk) U),  S <- Diag(gamma) S + (k * exp(G_last - G))^T U.
// kda_prep computes the chunk-local factors for every (chunk, head) in parallel; kda_fwd runs
// the serial chain over the chunks of one sequence, one CTA per (sequence, head, DV / 64 slice).
// Variable-length batches: cu_seqlens (B = 1); chunk_start[n] is the index of sequence n's first
// chunk and chunk_seq[c] the sequence of chunk c (both prefix tables built on the host).

const C = 64
const DK = 128
const DV = 128
const BV = 64
const GATE_LB = -5.0

// Chunk-parallel prep: gate, cumulative gate, L2 norms, intra-chunk matrices, (I + L)^-1.
// Akk and Aqk are exact and overflow-free: the row block of 16 tokens that starts at token r
// uses k_t exp(G_t - G_r) and columns k_s exp(G_r - G_s); with g >= -5 both factors stay
// within exp(+-80) (the "safe gate"), and rows past the block are masked before the exp.
// Shared memory: 64.5 KiB inputs + 128 KiB work buffers = 192.75 KiB of 227 KiB.
kernel kda_prep(
  q: global bf16[T, H, DK] align(16),
  k: global bf16[T, H, DK] align(16),
  v: global bf16[T, H, DV] align(16),
  g: global bf16[T, H, DK] align(16),
  beta: global bf16[T, H],
  a_log: global fp32[H],
  dt_bias: global fp32[H, DK] align(16),
  cu_seqlens: global i64[NS1],
  chunk_seq: global i32[NCH],
  chunk_start: global i32[NS1],
  wq: global bf16[H, NCH, C, DK] align(16),
  wk: global bf16[H, NCH, C, DK] align(16),
  ww: global bf16[H, NCH, C, DK] align(16),
  wu: global bf16[H, NCH, C, DV] align(16),
  wa: global bf16[H, NCH, C, C] align(16),
  wgam: global fp32[H, NCH, DK] align(16),
) target(sm_90a) grid(NCH, H) block(128) {
  let c = cta.id(0)
  let h = cta.id(1)
  let n = ld.global(chunk_seq[c])
  let t0 = math.cast(ld.global(cu_seqlens[n]), i32) + (c - ld.global(chunk_start[n])) * C
  let len = math.min(C, math.cast(ld.global(cu_seqlens[n + 1]), i32) - t0)
  let alog = math.exp(ld.global(a_log[h]))

  ring inq stages(1) producer(prep) consumer(prep) {
    q: shared bf16[C, DK] swizzle(128B)
    k: shared bf16[C, DK] swizzle(128B)
    v: shared bf16[C, DV] swizzle(128B)
    g: shared bf16[C, DK] swizzle(128B)
    dtb: shared fp32[DK]
  }
  var gcum: shared fp32[C, DK] swizzle(128B)
  var kt: shared bf16[C, DK] swizzle(128B)
  var kc: shared bf16[2, C, DK] swizzle(128B)
  var aq: shared bf16[C, C] swizzle(128B)
  var lm: shared fp32[C, C] swizzle(128B)
  var bs: shared fp32[C]
  var tb: shared bf16[C, C] swizzle(128B)
  var us: shared bf16[C, DV] swizzle(128B)

  role prep warpgroups(0) issue(warpgroup) {
    let p = inq.produce()
    if elect.one() {
      tma.load(q[t0:t0 + C, h, :], p.q)
      tma.load(k[t0:t0 + C, h, :], p.k)
      tma.load(v[t0:t0 + C, h, :], p.v)
      tma.load(g[t0:t0 + C, h, :], p.g)
      tma.load(dt_bias[h, :], p.dtb)
    }
    inq.commit(p)
    let s = inq.consume()

    // 1. log-gate and its cumulative sum over the chunk: one channel per thread
    let ch = self.thread()
    let graw = math.cast(ld.shared(s.g[:, ch]), fp32) + ld.shared(s.dtb[ch])
    let live = tile.iota(like = graw, axis = 0) < len
    let glog = math.select(live, GATE_LB * math.sigmoid(alog * graw), 0.0)
    let gc = scan.sum(glog, axis = 0)
    st.shared(gc, gcum[:, ch])
    st.global(math.exp(gc[C - 1]), wgam[h, c, ch])
    bar.sync(warpgroup)

    // 2. normalized q and k in the wgmma A layout; warp w holds rows 16 w .. 16 w + 15
    let w = self.warp()
    let qa = math.cast(ld.matrix(s.q, operand = a), fp32)
    let ka = math.cast(ld.matrix(s.k, operand = a), fp32)
    let row = tile.iota(like = qa, axis = 0)
    let qn = qa * tile.expand(math.rsqrt(reduce.sum(qa * qa, axis = 1) + 1e-6), 1)
    let kn0 = ka * tile.expand(math.rsqrt(reduce.sum(ka * ka, axis = 1) + 1e-6), 1)
    let kn = math.select(tile.expand(row < len, 1), kn0, 0.0)
    let gt = ld.shared(gcum, like = qa)
    let gref = ld.shared(gcum[16 * w, :], like = qa, axis = 1)
    let glast = ld.shared(gcum[C - 1, :], like = qa, axis = 1)
    let qr = math.cast(qn * math.exp(gt - gref), bf16)
    let kr = math.cast(kn * math.exp(gt - gref), bf16)
    bar.sync(warpgroup)
    st.matrix(math.cast(qn * math.exp(gt), bf16), s.q)
    st.matrix(math.cast(kn * math.exp(glast - gt), bf16), s.k)
    st.matrix(math.cast(kn * math.exp(gt), bf16), kt)
    fence.proxy_async(s.q)
    fence.proxy_async(s.k)
    fence.proxy_async(kt)
    bar.sync(warpgroup)
    if elect.one() {
      tma.store(s.q, wq[h, c, :, :])
      tma.store(s.k, wk[h, c, :, :])
    }

    // 3. Aqk and Akk: row block i against the columns of blocks 0 .. i, relative to G[16 i]
    var aqk: reg fp32[C, C]
    var akk: reg fp32[C, C]
    for i in 0 .. C / 16 unroll {
      let gi = ld.shared(gcum[16 * i, :], like = qa, axis = 1)
      let cols = math.select(tile.expand(row < 16 * i + 16, 1), kn * math.exp(gi - gt), 0.0)
      wgmma.wait(1)
      bar.sync(warpgroup)
      st.matrix(math.cast(cols, bf16), kc[i % 2])
      fence.proxy_async(kc[i % 2])
      bar.sync(warpgroup)
      let mine = w == i
      wgmma.mma(math.select(mine, qr, 0.0), kc[i % 2], aqk, shape = m64n64k16, accumulate = i > 0)
      wgmma.mma(math.select(mine, kr, 0.0), kc[i % 2], akk, shape = m64n64k16, accumulate = i > 0)
      wgmma.commit()
    }
    wgmma.wait(0)

    // 4. masks: Aqk keeps s <= t; L = Diag(beta) Akk keeps s < t
    let ti = tile.expand(tile.iota(like = aqk, axis = 0), 1)
    let si = tile.iota(like = aqk, axis = 1)
    let tv = tile.iota(like = aqk, axis = 0) < len
    let braw = ld.global(beta[t0:t0 + C, h], like = aqk, axis = 0, mask = tv)
    let bt = math.select(tv, math.sigmoid(math.cast(braw, fp32)), 0.0)
    st.matrix(math.cast(math.select(si <= ti, aqk, 0.0), bf16), aq)
    st.shared(math.select(si < ti, tile.expand(bt, 1) * akk, 0.0), lm)
    st.shared(bt, bs)
    fence.proxy_async(aq)
    bar.sync(warpgroup)
    if elect.one() {
      tma.store(aq, wa[h, c, :, :])
    }

    // 5. T = (I + L)^-1 Diag(beta) by forward substitution, one column per thread (fp32)
    if ch < C {
      var y: reg fp32[C] per(thread)
      for t in 0 .. C unroll {
        y[t] = math.select(ch == t, ld.shared(bs[t]), 0.0)
      }
      for i in 0 .. C unroll {
        for t in i + 1 .. C unroll {
          y[t] -= ld.shared(lm[t, i]) * y[i]
        }
      }
      st.shared(math.cast(y, bf16), tb[:, ch])
    }
    fence.proxy_async(tb)
    bar.sync(warpgroup)

    // 6. W = T (k * exp(G)) and U' = T V
    var wacc: reg fp32[C, DK]
    var uacc: reg fp32[C, DV]
    wgmma.mma(tb, tile.t(kt), wacc, shape = m64n128k16, accumulate = false)
    wgmma.mma(tb, tile.t(s.v), uacc, shape = m64n128k16, accumulate = false)
    wgmma.commit()
    wgmma.wait(0)
    st.matrix(math.cast(wacc, bf16), s.g)
    st.matrix(math.cast(uacc, bf16), us)
    fence.proxy_async(s.g)
    fence.proxy_async(us)
    bar.sync(warpgroup)
    if elect.one() {
      tma.store(s.g, ww[h, c, :, :])
      tma.store(us, wu[h, c, :, :])
      tma.store_wait(0)
    }
    bar.sync(warpgroup)
    inq.release(s)
  }
}

// Serial chain over the chunks of one sequence for one head and one DV slice of 64.
// The state is kept transposed, S^T (BV x DK), in fp32 registers of the chain warpgroup; each
// chunk stages it in bf16 as the B operand of W S and Q~ S. The input initial state h0 and the
// final state ht are [NS, H, DV, DK] fp32 (pass zeros for no initial state).
// Shared memory: 2 x 64.5 KiB + 24 KiB = 153 KiB of 227 KiB. Registers: 128 x 40 + 128 x 232.
kernel kda_fwd(
  wq: global bf16[H, NCH, C, DK] align(16),
  wk: global bf16[H, NCH, C, DK] align(16),
  ww: global bf16[H, NCH, C, DK] align(16),
  wu: global bf16[H, NCH, C, DV] align(16),
  wa: global bf16[H, NCH, C, C] align(16),
  wgam: global fp32[H, NCH, DK] align(16),
  cu_seqlens: global i64[NS1],
  chunk_start: global i32[NS1],
  h0: global fp32[NS, H, DV, DK] align(16),
  o: global bf16[T, H, DV] align(16),
  ht: global fp32[NS, H, DV, DK] align(16),
  scale: param fp32,
) target(sm_90a) grid(NS, H, DV / BV) block(256) {
  assume NS1 == NS + 1
  let n = cta.id(0)
  let h = cta.id(1)
  let v0 = cta.id(2) * BV
  let bos = math.cast(ld.global(cu_seqlens[n]), i32)
  let eos = math.cast(ld.global(cu_seqlens[n + 1]), i32)
  let c0 = ld.global(chunk_start[n])
  let nc = math.cdiv(eos - bos, C)

  ring wy stages(2) producer(load) consumer(chain) {
    qd: shared bf16[C, DK] swizzle(128B)
    kb: shared bf16[C, DK] swizzle(128B)
    w: shared bf16[C, DK] swizzle(128B)
    up: shared bf16[C, BV] swizzle(128B)
    aq: shared bf16[C, C] swizzle(128B)
    gam: shared fp32[DK]
  }
  var ss: shared bf16[BV, DK] swizzle(128B)
  var us: shared bf16[C, BV] swizzle(128B)

  role load warpgroups(0) regs(40) issue(elect) {
    for i in 0 .. nc {
      let p = wy.produce()
      tma.load(wq[h, c0 + i, :, :], p.qd)
      tma.load(wk[h, c0 + i, :, :], p.kb)
      tma.load(ww[h, c0 + i, :, :], p.w)
      tma.load(wu[h, c0 + i, :, v0:v0 + BV], p.up)
      tma.load(wa[h, c0 + i, :, :], p.aq)
      tma.load(wgam[h, c0 + i, :], p.gam)
      wy.commit(p)
    }
  }

  role chain warpgroups(1) regs(232) issue(warpgroup) {
    var state: reg fp32[BV, DK]
    var u: reg fp32[C, BV]
    var acc: reg fp32[C, BV]
    state = ld.global(h0[n, h, v0:v0 + BV, :], like = state)
    for i in 0 .. nc {
      let s = wy.consume()
      // S^T in bf16: the B operand of this chunk's products
      st.matrix(math.cast(state, bf16), ss)
      fence.proxy_async(ss)
      bar.sync(warpgroup)
      // U = U' - W S and O = Q~ S
      u = ld.shared(s.up, like = u)
      wgmma.mma(s.w, ss, u, shape = m64n64k16, scale_a = -1)
      wgmma.mma(s.qd, ss, acc, shape = m64n64k16, accumulate = false)
      wgmma.commit()
      wgmma.wait(0)
      st.matrix(math.cast(u, bf16), us)
      fence.proxy_async(us)
      bar.sync(warpgroup)
      // O += lower(Aqk) U and S^T <- S^T Diag(gamma) + U^T K-bar
      state = state * ld.shared(s.gam, like = state, axis = 1)
      wgmma.mma(s.aq, tile.t(us), acc, shape = m64n64k16)
      wgmma.mma(tile.t(us), tile.t(s.kb), state, shape = m64n128k16)
      wgmma.commit()
      fence.proxy_async(s.up)
      fence.proxy_async(s.gam)
      wgmma.wait(0)
      wy.release(s)
      let t0 = bos + i * C
      let live = tile.expand(tile.iota(like = acc, axis = 0) < eos - t0, 1)
      st.global(math.cast(acc * scale, bf16), o[t0:t0 + C, h, v0:v0 + BV], mask = live)
    }
    st.global(state, ht[n, h, v0:v0 + BV, :])
  }
}
