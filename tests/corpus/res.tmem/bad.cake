// res.tmem: tcgen05.alloc takes a power of two from 32 to 512 columns; 48 is not one. The fix
// grows the allocation to 64 columns.

kernel tmem_read(
  y: global fp32[M, 64] align(16),
) target(sm_100a) grid(math.cdiv(M, 128)) block(128) {
  // expected-error@+1:27-29 res.tmem {{var 'acc' takes 48 columns; a tensor-memory allocation must be a power of two from 32 to 512 columns}}
  var acc: tmem fp32[128, 48] owner(epi)

  role epi warpgroups(0) issue(warp) {
    let q = self.warp() * 32
    let r = tcgen05.ld(acc[q:q + 32, 0:32], shape = t32x32b)
    tcgen05.wait_ld()
    st.global(r, y[cta.id(0) * 128 + q, 0], clip = true)
  }
}
