// Near misses: the `<` tail guard, a clipped tile, an index clamped with math.min, an else branch
// of a full-batch guard, and an unguarded index the facts prove (N is a multiple of 8).
const D = 128
const BM = 128

kernel row_norms(
  x: global bf16[N, D] align(16),
  out: global fp32[N],
) target(sm_80) grid(math.cdiv(N, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if n < N {
      let v = math.cast(ld.global(x[n, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[n])
    }
    let first = ld.global(x[math.min(n, N - 1), 0])
    if n + 4 <= N {
      st.global(0.0, out[n])
    } else {
      if n < N {
        st.global(math.cast(first, fp32), out[n])
      }
    }
  }
}

kernel store_tile(
  C: global bf16[M, N] align(16),
) target(sm_80) grid(math.cdiv(N, 64), math.cdiv(M, BM)) block(128) {
  let m0 = cta.id(1) * BM
  role main warps(0 .. 4) issue(warp) {
    var acc: reg fp32[32, 64]
    acc = 0.0
    st.global(math.cast(acc, bf16), C[m0 + self.warp() * 32, cta.id(0) * 64], clip = true)
  }
}

kernel exact(
  out: global i32[N],
) target(sm_80) grid(N / 8) block(256) {
  assume N % 8 == 0
  role rows warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if elect.one() {
      st.global(0, out[n])
    }
  }
}

// A var assigned before the access: its value is not known, nothing is reported.
kernel var_assigned(
  ids: global i32[N],
) target(sm_80) grid(1) block(128) {
  role main warps(0 .. 4) issue(warp) {
    var best: reg i32[16]
    best = 0
    var pm: i32 = math.cdiv(N, 64)
    for t in 0 .. math.cdiv(N, 64) {
      pm = t
      st.global(best, ids[pm * 64 + self.warp() * 16], clip = true)
    }
  }
}
