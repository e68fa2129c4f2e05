// res.tmem: tensor memory exists only on sm_100a; the fix retargets the kernel.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
  // expected-note@+1:3 {{the kernel's target is declared here}}
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  // expected-error@+1:12-16 res.tmem {{tensor memory needs sm_100a; sm_90a has none}}
  var acc: tmem fp32[128, 64] owner(lo)

  role lo warps(0 .. 4) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }

  role hi warps(4 .. 8) {
    let r = cta.id(0) * 8 + 4 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}
