// A parametric kernel with a mistake only some instantiations see: the split path (S > 1)
// misspells n0. The require allows fp16 with S = 1 only.
param S: int in 1 .. 4 = 1
param E: elem in {bf16, fp16} = bf16
require S == 1 || E == bf16

kernel k(x: global E[N], pv: global fp32[S, N] when(S > 1)) target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    let n0 = cta.id(0)
    st.global(math.cast(1.0, E), x[n0])
    if S > 1 {
      st.global(2.0, pv[0, no])
    }
  }
}
