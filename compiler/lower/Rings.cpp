//===- Rings.cpp - Ring cursors, tokens and deferred releases -------------===//
//
// Part of CAKE. Lowers R.produce / R.commit / R.consume / R.release as
// language.md 8.3 derives them:
//
//  * Barrier rings: `full[S]` and `empty[S]` mbarriers. Each role keeps a
//    (stage, phase) cursor per ring and side, carried through all its loops.
//    produce waits on empty[stage] with parity phase ^ 1 (the first pass does
//    not block); commit is one arrive.expect_tx on full[stage] with the bytes
//    of the copies issued into the slot since produce (a complete-tx that
//    lands first leaves the tx-count negative until then, which PTX allows);
//    consume waits on full[stage] with parity phase; release arrives on
//    empty[stage] once per consumer warp, now or, with `after =
//    wgmma.retired(n)`, at the first wgmma.wait that retires the slot's group
//    (a queue of (stage, group) pairs in registers).
//  * Same-role cp.async rings: commit is cp.async.commit_group, consume is
//    cp.async.wait_group(d - 1) plus a barrier over the role, where d is the
//    produce-ahead distance; release and produce need no instruction.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include "compiler/syntax/Walk.h"

#include <limits>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

/// Entries of a ring's deferred-release queue: depth + 1 for releases after
/// `wgmma.retired(depth)`, which ring.retire checks are drained by a wait that
/// retires them before the next release. (Not proven for every schedule the
/// verifier accepts: `stages` entries would be a safe bound, at the cost of a
/// longer drain per wait; kept at depth + 1, the form measured on the GPU.)
int64_t queueCapacity(const Lowerer &L, const Ring &r) {
  if (!L.role)
    return 1;
  auto it = L.role->retiredDepth.find(r.name);
  return (it == L.role->retiredDepth.end() ? 0 : it->second) + 1;
}

std::string cursor(const Ring &r, bool produce, const char *what) {
  return r.name + (produce ? "_p" : "_c") + what;
}

/// The ring a ring operation is called on (`ab.produce()` -> ab).
const Ring *ringOf(Lowerer &L, const Expr &call) { return sema::ringOf(call, L.k); }

const RingLayout &layoutOf(Lowerer &L, const Ring &r) { return *L.smem.ring(r.name); }

void advance(Lowerer &L, const Ring &r, bool produce) {
  std::string stage = cursor(r, produce, "stage"), phase = cursor(r, produce, "phase");
  L.w.line("if (++" + stage + " == " + std::to_string(r.stages.value_or(1)) + ") { " + stage + " = 0; " + phase +
           " ^= 1u; }");
}

/// `if (one thread of the unit)` for an arrive the unit makes once.
std::string oneOfUnit(const Lowerer &L) {
  switch (L.role->role->issue) {
  case IssueMode::Elect:
    return "";
  case IssueMode::Warp:
    return "if (cake::rt::lane_id() == 0) ";
  case IssueMode::Warpgroup:
    return "if (threadIdx.x % 128 == 0) ";
  }
  return "";
}

/// The barrier over a whole role, for same-role cp.async rings.
void roleBarrier(Lowerer &L, const Expr &consume) {
  const Role &r = *L.role->role;
  if (L.threadsOf(r) == L.out.block)
    L.w.line("__syncthreads();");
  else
    L.w.line("cake::rt::bar_sync(" + std::to_string(L.barrierId(consume)) + ", " +
             std::to_string(L.threadsOf(r)) + ");");
}

Val token(Lowerer &L, const Ring &r, bool produce) {
  Val t;
  t.kind = Val::Token;
  t.ring = &r;
  t.writeToken = produce;
  t.stage = L.temp(produce ? "put" : "get");
  t.cxx = t.stage;
  L.w.line("const int " + t.stage + " = " + cursor(r, produce, "stage") + ";");
  return t;
}

std::optional<Val> lowerProduce(Lowerer &L, const Expr &call) {
  const Ring *r = ringOf(L, call);
  Val t = token(L, *r, true);
  const RingLayout &rl = layoutOf(L, *r);
  if (rl.usesBarriers)
    L.waitParity(L.barrierAddress(rl, false, t.stage), cursor(*r, true, "phase") + " ^ 1u", call.range,
                 "ring '" + r->name + "': empty barrier (the producer waits for a free slot)");
  if (rl.tmemColumns) // the consumers' tcgen05.ld of the slot before this unit's tcgen05.mma
    L.w.line("cake::rt::tcgen05_fence_after_thread_sync();");
  advance(L, *r, true);
  L.txLoopDepth[t.cxx] = L.loopDepth;
  return t;
}

std::optional<Val> lowerCommit(Lowerer &L, const Expr &call) {
  const Ring *r = ringOf(L, call);
  auto args = positionalArgs(call);
  auto t = L.value(*args[0]);
  if (!t || t->kind != Val::Token)
    return std::nullopt;
  const RingLayout &rl = layoutOf(L, *r);
  if (!rl.usesBarriers) {
    L.w.line("cake::rt::cp_async_commit_group();");
    return Val{};
  }
  if (rl.tmemColumns) {
    // the accumulator is ready when the tcgen05 ops issued so far complete
    L.w.line(oneOfUnit(L) + "cake::rt::tcgen05_commit(" + L.barrierAddress(rl, true, t->stage) + ");");
    return Val{};
  }
  // the bytes of the TMA copies into the slot since its produce (sema's fact)
  auto bytes = commitTxBytes(call, L.k, L.commits, L.smem);
  if (!bytes) {
    const SlotFill *fill = L.commits.ofCommit(call);
    if (!fill || fill->copies.empty() || fill->tmaBytes) // else a copy was reported where the lowering rejects it
      L.unsupported(call.range, "a commit of a slot filled without TMA");
    return std::nullopt;
  }
  L.w.line(oneOfUnit(L) + "cake::rt::mbarrier_arrive_expect_tx(" + L.barrierAddress(rl, true, t->stage) + ", " +
           std::to_string(*bytes) + "u);");
  return Val{};
}

std::optional<Val> lowerConsume(Lowerer &L, const Expr &call) {
  const Ring *r = ringOf(L, call);
  const RingLayout &rl = layoutOf(L, *r);
  if (!rl.usesBarriers) {
    auto d = L.produceAhead(*L.role->role->decl, *r);
    if (!d || *d < 1) {
      L.unsupported(call.range, "a same-role cp.async ring whose produce-ahead distance is not constant");
      return std::nullopt;
    }
    L.w.line("cake::rt::cp_async_wait_group<" + std::to_string(*d - 1) + ">();");
    roleBarrier(L, call);
    Val t = token(L, *r, false);
    advance(L, *r, false);
    return t;
  }
  Val t = token(L, *r, false);
  L.waitParity(L.barrierAddress(rl, true, t.stage), cursor(*r, false, "phase"), call.range,
               "ring '" + r->name + "': full barrier (the consumer waits for data)");
  if (rl.tmemColumns)
    L.w.line("cake::rt::tcgen05_fence_after_thread_sync();");
  advance(L, *r, false);
  return t;
}

void arriveEmpty(Lowerer &L, const RingLayout &rl, const std::string &stage) {
  std::string bar = L.barrierAddress(rl, false, stage);
  if (L.role->role->issue == IssueMode::Elect) {
    L.w.line("cake::rt::mbarrier_arrive(" + bar + ");");
    return;
  }
  // one arrive per warp, after every lane's reads
  L.w.line("__syncwarp();");
  L.w.line("if (cake::rt::lane_id() == 0) cake::rt::mbarrier_arrive(" + bar + ");");
}

std::optional<Val> lowerRelease(Lowerer &L, const Expr &call) {
  const Ring *r = ringOf(L, call);
  auto args = positionalArgs(call);
  auto t = L.value(*args[0]);
  if (!t || t->kind != Val::Token)
    return std::nullopt;
  const RingLayout &rl = layoutOf(L, *r);
  if (!rl.usesBarriers)
    return Val{}; // the next consume's barrier orders the reads before the refill
  const Expr *after = keywordArg(call, "after");
  if (!after) {
    if (rl.tmemColumns) // order this unit's tcgen05.ld before the arrive
      L.w.line("cake::rt::tcgen05_fence_before_thread_sync();");
    arriveEmpty(L, rl, t->stage);
    return Val{};
  }
  auto ev = L.value(*after);
  if (ev && ev->kind == Val::Event && ev->event == OpId::Tcgen05Done) {
    // the slot is free when the unit's tcgen05 ops issued so far complete
    L.w.line(oneOfUnit(L) + "cake::rt::tcgen05_commit(" + L.barrierAddress(rl, false, t->stage) + ");");
    return Val{};
  }
  if (!ev || ev->kind != Val::Event || ev->event != OpId::WgmmaRetired) {
    L.unsupported(after->range, "this release event");
    return std::nullopt;
  }
  if (!L.role->retiredRings.count(r->name)) { // an event the role's scan above did not see (never a map::at)
    L.unsupported(after->range, "a release after a wgmma.retired event reached through this expression");
    return std::nullopt;
  }
  // queue (stage, last group) until a wgmma.wait retires the group
  std::string q = r->name + "_rq";
  int64_t cap = queueCapacity(L, *r);
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_i = 0; cake_i < " + std::to_string(cap) + "; ++cake_i) if (cake_i == " + q +
           "_n) { " + q + "_stage[cake_i] = " + t->stage + "; " + q + "_group[cake_i] = cake_wgmma_groups; }");
  L.w.line("++" + q + "_n;");
  return Val{};
}

} // namespace

/// Releases queued behind wgmma groups that a `wgmma.wait(n)` just retired.
void drainRetired(Lowerer &L, int64_t n) {
  for (const std::string &name : L.role->retiredRings) {
    const Ring *r = L.k.ring(name);
    const RingLayout &rl = layoutOf(L, *r);
    std::string q = name + "_rq";
    int64_t cap = queueCapacity(L, *r);
    L.w.line("#pragma unroll");
    L.w.open("for (int cake_i = 0; cake_i < " + std::to_string(cap) + "; ++cake_i)");
    L.w.open("if (" + q + "_n > 0 && " + q + "_group[0] + " + std::to_string(n) + "u <= cake_wgmma_groups)");
    arriveEmpty(L, rl, q + "_stage[0]");
    L.w.line("#pragma unroll");
    L.w.line("for (int cake_j = 0; cake_j + 1 < " + std::to_string(cap) + "; ++cake_j) { " + q +
             "_stage[cake_j] = " + q + "_stage[cake_j + 1]; " + q + "_group[cake_j] = " + q +
             "_group[cake_j + 1]; }");
    L.w.line("--" + q + "_n;");
    L.w.close();
    L.w.close();
  }
}

static bool takesRing(const Lowerer &L, const Block &b, const Ring &r);

/// Whether \p s takes ring \p r in code the instantiation keeps: an `if` on a constant (a parameter) is
/// followed into its taken branch only, so that a ring only dead code takes (knn_sm90's norms ring with
/// FUSED) gets no cursors, which nvcc would report as unused.
static bool takesRing(const Lowerer &L, const Stmt &s, const Ring &r) {
  auto isRingCall = [&](const Expr &call) {
    const Expr *callee = call.operand(0);
    return callee && callee->kind == ExprKind::Member && callee->operand(0) &&
           callee->operand(0)->kind == ExprKind::Name && callee->operand(0)->text == r.name;
  };
  bool found = false;
  if (auto *i = dyn_cast<IfStmt>(&s)) {
    forEachCallShallow(s, [&](const Expr &c) { found = found || isRingCall(c); });
    if (auto c = L.constant(*i->cond); c && !found) {
      if (*c)
        return takesRing(L, i->thenBody, r);
      return i->elseBody ? takesRing(L, *i->elseBody, r) : i->elseIf && takesRing(L, *i->elseIf, r);
    }
  }
  forEachCall(s, [&](const Expr &c) { found = found || isRingCall(c); });
  return found;
}

static bool takesRing(const Lowerer &L, const Block &b, const Ring &r) {
  return std::any_of(b.stmts.begin(), b.stmts.end(), [&](const StmtPtr &s) { return takesRing(L, *s, r); });
}

void Lowerer::ringCursors(const RoleStmt &decl) {
  const std::string &me = decl.name.name;
  for (const Ring &r : k.rings) {
    if (!takesRing(*this, decl.body, r))
      continue;
    if (r.producer == me)
      w.line("int " + cursor(r, true, "stage") + " = 0; u32 " + cursor(r, true, "phase") + " = 0;");
    if (r.consumer == me)
      w.line("int " + cursor(r, false, "stage") + " = 0; u32 " + cursor(r, false, "phase") + " = 0;");
  }
  // rings released after wgmma groups retire: `after = wgmma.retired(n)`
  // written in the call or bound by a let of the role (`let ev =
  // wgmma.retired(1); ab.release(s, after = ev)`); a name bound twice takes
  // the deeper event, a longer queue being safe
  std::map<std::string, const Expr *> retiredLets;
  forEachStmt(decl.body, [&](const Stmt &s) {
    if (s.kind != StmtKind::Let)
      return;
    const auto &l = static_cast<const LetStmt &>(s);
    if (l.names.size() != 1 || !l.value)
      return;
    const Expr *v = l.value.get();
    while (v->kind == ExprKind::Paren)
      v = v->operands[0].get();
    if (v->kind == ExprKind::Call && calleeOp(*v) == OpId::WgmmaRetired)
      retiredLets[l.names[0].name] = v;
  });
  forEachCall(decl.body, [&](const Expr &call) {
    if (opIdOf(call, k) != OpId::RingRelease)
      return;
    const Expr *after = keywordArg(call, "after");
    while (after && after->kind == ExprKind::Paren)
      after = after->operands[0].get();
    if (after && after->kind == ExprKind::Name)
      if (auto it = retiredLets.find(after->text); it != retiredLets.end())
        after = it->second;
    if (!after || calleeOp(*after) != OpId::WgmmaRetired)
      return;
    std::string ring = sema::ringOf(call, k)->name;
    auto args = positionalArgs(*after);
    int64_t depth = args.empty() ? 0 : constant(*args[0]).value_or(0);
    role->retiredRings.insert(ring);
    role->retiredDepth[ring] = std::max(role->retiredDepth[ring], depth);
  });
  if (!role->retiredRings.empty())
    w.line("u32 cake_wgmma_groups = 0;");
  for (const std::string &ring : role->retiredRings) {
    std::string cap = std::to_string(queueCapacity(*this, *k.ring(ring))), q = ring + "_rq";
    w.line("int " + q + "_stage[" + cap + "]; u32 " + q + "_group[" + cap + "]; int " + q + "_n = 0;");
  }
}

std::optional<int64_t> Lowerer::produceAhead(const RoleStmt &decl, const Ring &ring) {
  // produces issued before the role's first consume of the ring
  int64_t count = 0;
  std::function<std::optional<bool>(const Block &, int64_t)> walk = [&](const Block &b,
                                                                        int64_t times) -> std::optional<bool> {
    for (const StmtPtr &s : b.stmts) {
      bool consumes = false;
      int64_t produces = 0;
      forEachCall(*s, [&](const Expr &c) {
        const Ring *r = sema::ringOf(c, k);
        if (!r || r->name != ring.name)
          return;
        OpId op = opIdOf(c, k);
        consumes |= op == OpId::RingConsume;
        produces += op == OpId::RingProduce;
      });
      if (!consumes) {
        if (produces && s->kind == StmtKind::For) {
          const auto &f = static_cast<const ForStmt &>(*s);
          const Expr &it = *f.iterable;
          if (it.kind != ExprKind::Binary || it.op != Tok::DotDot)
            return std::nullopt;
          auto lo = constant(*it.operands[0]), hi = constant(*it.operands[1]);
          if (!lo || !hi)
            return std::nullopt;
          int64_t step = sema::loopStep(f, [&](const Expr &e) { return constant(e); }).value_or(1);
          int64_t trips = sema::tripCount(*lo, *hi, step), n;
          if (!walk(f.body, __builtin_mul_overflow(times, trips, &n) ? std::numeric_limits<int64_t>::max() : n))
            return std::nullopt;
        } else {
          int64_t n;
          if (__builtin_mul_overflow(produces, times, &n) || __builtin_add_overflow(count, n, &count))
            return std::nullopt;
        }
        continue;
      }
      // the first consume is in a loop (a persistent kernel's tile loop around the prologue and the main
      // loop): what counts is what its first iteration produces before it; the ring's cursors carry on
      // across iterations, so each later one starts the same distance ahead
      if (s->kind == StmtKind::For)
        return walk(static_cast<const ForStmt &>(*s).body, times);
      return true; // reached the first consume
    }
    return false;
  };
  if (!walk(decl.body, 1))
    return std::nullopt;
  return count;
}

bool Lowerer::ifWithSameRoleCommit(const Block &b) const {
  bool found = false;
  forEachCall(b, [&](const Expr &call) {
    const Ring *ring = sema::ringOf(call, k);
    if (!ring || opIdOf(call, k) != OpId::RingCommit)
      return;
    if (const RingLayout *rl = smem.ring(ring->name); rl && !rl->usesBarriers)
      found = true;
  });
  return found;
}

void addRingLowerings(OpLowerings &t) {
  t[OpId::RingProduce] = lowerProduce;
  t[OpId::RingCommit] = lowerCommit;
  t[OpId::RingConsume] = lowerConsume;
  t[OpId::RingRelease] = lowerRelease;
}

} // namespace cake::lower
