// Elementwise math functions (language.md 10.9) on scalars and on a warp's row (the blocked layout):
// hardware approximations unless precise = true. A softplus of each row weighted by a sigmoid gate.
param PRECISE: bool = false
kernel gated_softplus(
  x: global fp32[M, 64] align(16),
  g: global fp32[M] align(16),
  n: global i32[M] align(16),
  out: global fp32[M] align(16),
) target(sm_90a) grid(math.cdiv(M, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < M {
      let a = math.sigmoid(ld.global(g[r]), precise = PRECISE)
      let v = ld.global(x[r, 0:64])
      let e = math.log(1.0 + math.exp(v, precise = PRECISE), precise = PRECISE) * a
      let s = reduce.sum(math.fma(e, e, math.sqrt(math.abs(v), precise = true)), axis = 0)
      let k = math.abs(ld.global(n[r]))
      st.global(s + math.exp2(a) + math.log2(a) + math.rsqrt(a) + math.tanh(a) + math.cast(math.fma(k, k, 1), fp32), out[r])
    }
  }
}
