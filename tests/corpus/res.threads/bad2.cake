// res.threads: block(264) is not whole warps; the roles cover 8 warps, so the fix is block(256).

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
  // expected-error@+1:46 res.threads {{block(264) is not a multiple of 32 threads; the roles use warps 0 .. 8 (256 threads)}}
) target(sm_90a) grid(math.cdiv(R, 8)) block(264) {
  role lo warps(0 .. 4) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }

  // expected-note@+1:11 {{the last warp of role 'hi' is warp 7}}
  role hi warps(4 .. 8) {
    let r = cta.id(0) * 8 + 4 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}
