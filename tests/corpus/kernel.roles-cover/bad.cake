// kernel.roles-cover: warp 4 belongs to no role; it is launched and idles for the whole kernel.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
  // expected-warning@+1:40-50 kernel.roles-cover {{warp 4 of block(256) runs no role}}
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  role lo warps(0 .. 4) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }

  role hi warps(5 .. 8) {
    let r = cta.id(0) * 8 + 5 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}
