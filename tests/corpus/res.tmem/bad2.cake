// res.tmem: two buffers of 96 columns are 192 columns, not a power of two; 2 x 128 = 256 is.

kernel tmem_read(
  y: global fp32[M, 64] align(16),
) target(sm_100a) grid(math.cdiv(M, 128)) block(128) {
  // expected-error@+1:30-32 res.tmem {{var 'acc' takes 2 x 96 = 192 columns}}
  var acc: tmem fp32[2, 128, 96] owner(epi)

  role epi warpgroups(0) issue(warp) {
    let q = self.warp() * 32
    let r = tcgen05.ld(acc[0, q:q + 32, 0:32], shape = t32x32b)
    tcgen05.wait_ld()
    st.global(r, y[cta.id(0) * 128 + q, 0], clip = true)
  }
}
