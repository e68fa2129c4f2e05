// bar.race: each thread copies an element of a ring slot into nb, hands the slot back to TMA
// (fence.proxy_async after the generic reads, then the release) and reads another warp's element of nb
// with no barrier between. The handback fence publishes nothing of nb: the finding and its barrier belong
// at the read, not after that fence (knn_sm90's FUSED norms, found by the mutation gate).

kernel shift(
  x: global fp32[M, 32] align(16),
  out: global fp32[M] align(16),
) target(sm_90a) grid(math.cdiv(M, 4)) block(256) {
  ring xs stages(2) producer(load) consumer(compute) {
    t: shared fp32[4, 32]
  }
  var nb: shared fp32[128]
  role load warpgroups(0) issue(elect) {
    let p = xs.produce()
    tma.load(x[cta.id(0) * 4, 0], p.t)
    xs.commit(p)
  }
  role compute warpgroups(1) issue(warpgroup) {
    let s = xs.consume()
    let i = self.warp() * 32 + self.lane()
    // expected-note@+1:5 {{'st.shared' writes 'nb' on every thread here}}
    st.shared(ld.shared(s.t[self.warp(), self.lane()]), nb[i])
    fence.proxy_async(s.t)
    xs.release(s)
    // expected-error@+1:13 bar.race {{'ld.shared' reads 'nb' on every thread, but 'st.shared' writes 'nb' on every thread earlier with no barrier between}}
    let w = ld.shared(nb[(i + 32) % 128])
    st.global(w, out[math.min(cta.id(0) * 4 + self.warp(), M - 1)])
  }
}
