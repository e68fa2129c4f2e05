// The database is split into S = SK / KP ranges of XT tiles, and the consumer takes them in pairs, peeled:
// one, XT / 2 - 1 pairs, one. That balances only for an even XT, which the fact on NP must keep; written
// without the 2 it allows an odd XT (knn_sm90, issue #17: the history's odd trip count in a ring). The
// modulus uses another size (SK), so the count is odd only at sizes that satisfy it together.
const KP = 16
const BN = 64

kernel split_pairs(
  db: global bf16[NP, 64] align(16),
  pv: global fp32[Q, SK],
) target(sm_90a) grid(persistent) block(256) cluster(1) {
  assume NP % (BN * (SK / KP)) == 0, NP >= 2 * BN * (SK / KP), SK % KP == 0, SK >= KP
  let S = SK / KP
  let XT = NP / BN / S
  let tiles = sched.tiles(s = S, m = math.cdiv(Q, 64))
  ring xs stages(4) producer(load) consumer(compute) {
    x: shared bf16[BN, 64] swizzle(128B)
  }
  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      // expected-note@+1:7 {{role 'load' produces 'xs' here}}
      for j in 0 .. XT {
        let p = xs.produce()
        tma.load(db[(t.s * XT + j) * BN, 0], p.x)
        xs.commit(p)
      }
    }
  }
  role compute warpgroups(1) regs(232) issue(warpgroup) {
    // expected-note@+1:5 {{role 'compute' consumes 'xs' here}}
    for t in tiles {
      // expected-error@+1:15 ring.balance {{is produced 9 times by role 'load' but consumed 6 times by role 'compute' when XT = 3}}
      let a = xs.consume()
      xs.release(a)
      for p in 0 .. XT / 2 - 1 {
        let b = xs.consume()
        xs.release(b)
        let c = xs.consume()
        xs.release(c)
      }
      let d = xs.consume()
      xs.release(d)
    }
  }
}
