// res.tmem near miss: 64 columns, a power of two within the 512 of an SM.

kernel tmem_read(
  y: global fp32[M, 64] align(16),
) target(sm_100a) grid(math.cdiv(M, 128)) block(128) {
  var acc: tmem fp32[128, 64] owner(epi)

  role epi warpgroups(0) issue(warp) {
    let q = self.warp() * 32
    let r = tcgen05.ld(acc[q:q + 32, :], shape = t32x32b)
    tcgen05.wait_ld()
    st.global(r, y[cta.id(0) * 128 + q, 0], clip = true)
  }
}
