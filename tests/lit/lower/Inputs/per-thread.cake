// per(thread) vectors (compiler/lower/PerThread.cpp), after KDA's prep: one channel (column) per thread.
// 1. the log-gate of each channel over a chunk of C tokens, its cumulative sum (scan.sum) and its exp
//    at the chunk's end; 2. T = (I + L)^-1 Diag(beta) by forward substitution, one column per thread.
const C = 64
const DK = 128
const GATE_LB = -5.0

kernel gate_solve(
  g: global bf16[NCH, C, DK] align(16),
  lm: global fp32[NCH, C, C] align(16),
  beta: global fp32[NCH, C] align(16),
  gcum: global fp32[NCH, C, DK] align(16),
  gam: global fp32[NCH, DK] align(16),
  tb: global bf16[NCH, C, C] align(16),
  lens: global i32[NCH],
  alog: param fp32,
) target(sm_90a) grid(NCH) block(128) {
  let c = cta.id(0)
  var gs: shared bf16[C, DK]
  var ls: shared fp32[C, C]

  role prep warpgroups(0) issue(warpgroup) {
    let ch = self.thread()
    let len = ld.global(lens[c])
    let graw = math.cast(ld.global(g[c, :, ch]), fp32)
    let live = tile.iota(like = graw, axis = 0) < len
    let glog = math.select(live, GATE_LB * math.sigmoid(alog * graw), 0.0)
    let gc = scan.sum(glog, axis = 0)
    st.global(gc, gcum[c, :, ch])
    st.global(math.exp(gc[C - 1]) + 0.0 * reduce.max(gc, axis = 0), gam[c, ch])
    if ch < C {
      var y: reg fp32[C] per(thread)
      for t in 0 .. C unroll {
        y[t] = math.select(ch == t, ld.global(beta[c, t]), 0.0)
      }
      for i in 0 .. C unroll {
        for t in i + 1 .. C unroll {
          y[t] -= ld.global(lm[c, t, i]) * y[i]
        }
      }
      st.global(math.cast(y, bf16), tb[c, :, ch])
    }
  }
}
