//===- Facts.cpp - Facts derived from a kernel, computed once -------------===//
//
// Part of CAKE. The shared-memory layout, the expect-tx bytes of ring
// commits and the derived named-barrier ids are the lowering's (they are
// what runs): compiler/lower/ addresses stages, slots and barriers at these
// offsets, arms each commit with these bytes and syncs on these ids, and
// the verifier and the language server read them from here.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Facts.h"

#include "compiler/sema/Shapes.h"
#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::sema {

using namespace cake::syntax;

namespace {

// The layout's sums saturate at 2^32 - 1 B, which no target's shared memory
// reaches, so res.smem reports a layout too large to add up instead of a
// wrapped-around small one (issue #16: stages(2^63 - 1) summed to -16384 B).
constexpr uint32_t kSaturated = UINT32_MAX;
uint32_t sat(uint64_t v) { return v > kSaturated ? kSaturated : uint32_t(v); }
uint32_t add(uint32_t a, uint64_t b) { return sat(uint64_t(a) + std::min<uint64_t>(b, kSaturated)); }
uint32_t mul(uint64_t a, uint64_t b) { return a && b > kSaturated / a ? kSaturated : sat(a * b); }
uint32_t alignUp(uint32_t v, uint32_t a) { return sat((uint64_t(v) + a - 1) / a * a); }

/// Whether role \p r calls operation \p op anywhere in its body.
bool roleUses(const Kernel &k, const Role &r, OpId op) {
  bool found = false;
  forEachCall(r.decl->body, [&](const Expr &call) { found |= opIdOf(call, k) == op; });
  return found;
}

} // namespace

const RingLayout *SmemLayout::ring(std::string_view name) const {
  for (const RingLayout &r : rings)
    if (r.ring->name == name)
      return &r;
  return nullptr;
}

bool ringUsesBarriers(const Ring &r, const Kernel &k) {
  const Role *prod = k.role(r.producer);
  const Role *cons = k.role(r.consumer);
  return !(prod && prod == cons && roleUses(k, *prod, OpId::CpAsync) && !roleUses(k, *prod, OpId::TmaLoad));
}

uint32_t smemAlign(const Type &t) {
  uint32_t a = t.swizzle ? t.swizzle * 8 : 128;
  if (t.align && *t.align > int64_t(a) && *t.align <= (int64_t(1) << 30))
    a = uint32_t(*t.align);
  return a;
}

SmemLayout layoutSmem(const Kernel &k, const Ring *override, int64_t stagesOverride) {
  SmemLayout L;
  const uint32_t mbar = k.desc ? k.desc->mbarrierBytes : 8;
  auto bytesOf = [&](const Type &t) -> uint32_t {
    auto b = t.bytes();
    L.known &= b.has_value();
    return sat(uint64_t(std::max<int64_t>(b.value_or(0), 0)));
  };
  uint32_t off = 0;
  // barriers first
  for (const Ring &r : k.rings) {
    RingLayout rl;
    rl.ring = &r;
    L.known &= &r == override || r.stages.has_value();
    rl.stages = uint32_t(&r == override ? stagesOverride : r.stages.value_or(1));
    rl.usesBarriers = ringUsesBarriers(r, k);
    if (rl.usesBarriers) {
      rl.full = off;
      rl.empty = add(off, mul(mbar, rl.stages));
      off = add(off, mul(2 * mbar, rl.stages));
      rl.fullCount = 1;
      if (const Role *cons = k.role(r.consumer))
        rl.emptyCount = cons->issue == IssueMode::Elect ? 1 : uint32_t(cons->warps().value_or(1));
    }
    L.rings.push_back(rl);
  }
  for (const Buffer &b : k.buffers)
    if (b.type.elem == Elem::Mbarrier) {
      auto n = b.type.elements();
      L.known &= n.has_value();
      L.buffers[b.name] = off;
      off = add(off, mul(mbar, uint64_t(std::max<int64_t>(n.value_or(1), 0))));
    }
  // tensor-memory rings: columns per stage, allocated once by the producer
  uint32_t columns = 0;
  for (RingLayout &rl : L.rings)
    for (const Slot &s : rl.ring->slots)
      if (s.type.space == Space::Tmem && s.type.dims.size() == 2) {
        rl.tmemColumns = uint32_t(s.type.dims[1].value.value_or(0));
        rl.tmemBase = columns;
        columns = add(columns, mul(rl.tmemColumns, rl.stages));
        L.tmemOwner = k.role(rl.ring->producer);
      }
  if (columns) {
    L.tmemColumns = 32;
    while (L.tmemColumns < columns && L.tmemColumns < (1u << 31))
      L.tmemColumns *= 2;
    L.tmemSlot = off;
    off = add(off, 8);
  }
  L.barrierBytes = off;
  off = alignUp(off, 1024);
  for (RingLayout &rl : L.rings) {
    uint32_t stageOff = 0;
    for (const Slot &s : rl.ring->slots) {
      if (s.type.space != Space::Shared)
        continue;
      uint32_t a = smemAlign(s.type);
      rl.stageAlign = std::max(rl.stageAlign, a);
      stageOff = alignUp(stageOff, a);
      rl.slotOffset[s.name] = stageOff;
      stageOff = add(stageOff, bytesOf(s.type));
    }
    rl.stageBytes = alignUp(stageOff, rl.stageAlign);
    off = alignUp(off, rl.stageAlign);
    rl.data = off;
    off = add(off, mul(rl.stageBytes, rl.stages));
  }
  for (const Buffer &b : k.buffers)
    if (b.type.space == Space::Shared && b.type.elem != Elem::Mbarrier) {
      off = alignUp(off, smemAlign(b.type));
      L.buffers[b.name] = off;
      off = add(off, bytesOf(b.type));
    }
  L.bytes = off;
  return L;
}

//===-- Expect-tx bytes of ring commits -----------------------------------===//

namespace {

/// Walks each role in source order with the names visible at each statement
/// bound (so a slot reached through lets resolves to its token), collecting
/// what fills every produce token's slot.
class FillWalker {
public:
  FillWalker(const Kernel &k, CommitFacts &out) : k_(k), env_(k), out_(out) {}

  void run() {
    for (const StmtPtr &s : k_.decl->body.stmts)
      if (auto *l = dyn_cast<LetStmt>(s.get()))
        env_.bindLet(*l);
    for (const Role &r : k_.roles) {
      role_ = &r;
      block(r.decl->body);
    }
  }

private:
  void block(const Block &b) {
    env_.push();
    for (const StmtPtr &s : b.stmts)
      stmt(*s);
    env_.pop();
  }

  void stmt(const Stmt &s) {
    forEachCallShallow(s, [&](const Expr &c) { call(c); });
    if (auto *l = dyn_cast<LetStmt>(&s)) {
      env_.bindLet(*l);
      if (l->names.size() == 1 && l->value && l->value->kind == ExprKind::Call &&
          opIdOf(*l->value, k_) == OpId::RingProduce)
        if (const Ring *r = ringOf(*l->value, k_)) {
          SlotFill f;
          f.produce = l;
          f.ring = r;
          f.role = role_;
          open_[l] = {out_.fills.size(), loops_};
          out_.fills.push_back(std::move(f));
        }
    } else if (auto *v = dyn_cast<VarStmt>(&s)) {
      env_.bindVar(*v);
    } else if (auto *f = dyn_cast<ForStmt>(&s)) {
      ++loops_;
      env_.push();
      env_.bindLoop(f->var.name);
      block(f->body);
      env_.pop();
      --loops_;
    } else if (auto *i = dyn_cast<IfStmt>(&s)) {
      block(i->thenBody);
      if (i->elseBody)
        block(*i->elseBody);
      else if (i->elseIf)
        stmt(*i->elseIf);
    }
  }

  /// The produce token \p e is (or is a view of a slot of), following lets.
  struct Open {
    size_t fill;
    int loops; ///< loops open at the produce
  };
  const Open *tokenOf(const Expr &e) const {
    const Expr *x = &e;
    for (int depth = 0; depth < 16; ++depth) { // let chains are short; the bound stops a cycle through shadowing
      const LetStmt *l = env_.letOf(rootName(*x));
      if (!l || l->names.size() != 1 || !l->value)
        return nullptr;
      if (auto it = open_.find(l); it != open_.end())
        return &it->second;
      x = l->value.get();
    }
    return nullptr;
  }

  void call(const Expr &c) {
    OpId op = opIdOf(c, k_);
    auto args = positionalArgs(c);
    if (op == OpId::TmaLoad && args.size() == 2 && !keywordArg(c, "barrier")) {
      const Open *o = tokenOf(*args[1]);
      if (!o)
        return;
      SlotFill &f = out_.fills[o->fill];
      f.copies.push_back(&c);
      auto bytes = env_.infer(*args[1]).bytes();
      if (!bytes || keywordArg(c, "multicast") || loops_ > o->loops || !f.tmaBytes ||
          __builtin_add_overflow(*f.tmaBytes, *bytes, &*f.tmaBytes))
        f.tmaBytes = std::nullopt;
    } else if (op == OpId::CpAsync && args.size() >= 2) {
      if (const Open *o = tokenOf(*args[1]))
        out_.fills[o->fill].otherWrites = true;
    } else if (op == OpId::RingCommit && args.size() == 1) {
      if (const Open *o = tokenOf(*args[0])) {
        SlotFill &f = out_.fills[o->fill];
        if (!f.commit)
          f.commit = &c;
        out_.byCommit.emplace(&c, o->fill);
      }
    }
  }

  const Kernel &k_;
  shapes::Env env_;
  CommitFacts &out_;
  const Role *role_ = nullptr;
  int loops_ = 0;
  std::map<const LetStmt *, Open> open_;
};

} // namespace

const SlotFill *CommitFacts::ofCommit(const Expr &commit) const {
  auto it = byCommit.find(&commit);
  return it == byCommit.end() ? nullptr : &fills[it->second];
}

CommitFacts commitFacts(const Kernel &k) {
  CommitFacts out;
  FillWalker(k, out).run();
  return out;
}

std::optional<int64_t> commitTxBytes(const Expr &commitCall, const Kernel &, const CommitFacts &facts,
                                     const SmemLayout &layout) {
  const SlotFill *f = facts.ofCommit(commitCall);
  if (!f)
    return std::nullopt;
  // a same-role cp.async ring commits a group; a TMEM ring's commit is a
  // tcgen05.commit: neither arms a transaction count
  const RingLayout *rl = layout.ring(f->ring->name);
  if (!rl || !rl->usesBarriers || rl->tmemColumns || !f->tmaBytes || *f->tmaBytes == 0)
    return std::nullopt;
  return f->tmaBytes;
}

std::optional<int64_t> commitTxBytes(const Expr &commitCall, const Kernel &k) {
  return commitTxBytes(commitCall, k, commitFacts(k), layoutSmem(k));
}

//===-- Named barriers the compiler derives -------------------------------===//

const NamedBarrier *BarrierAllocation::of(const Expr &call) const {
  auto it = byCall.find(&call);
  return it == byCall.end() ? nullptr : &barriers[it->second];
}

BarrierAllocation allocateBarriers(const Kernel &k) {
  BarrierAllocation A;
  if (k.desc)
    A.lastId = int(k.desc->namedBarriers) - 1;
  const uint32_t warp = k.desc ? k.desc->warpSize : 32;
  const uint32_t block = uint32_t(k.block.value_or(0));
  // derived ids start after the ids the kernel names itself
  int64_t first = 1;
  forEachCall(k.decl->body, [&](const Expr &call) {
    OpId op = opIdOf(call, k);
    if (op == OpId::BarSyncId || op == OpId::BarArriveId)
      if (auto args = positionalArgs(call); !args.empty())
        if (auto id = evalInt(*args[0], k.consts); id && *id >= first && *id < (int64_t(1) << 20))
          first = *id + 1;
  });
  A.firstDerived = A.next = int(first);
  auto threadsOf = [&](const Role &r) { return uint32_t(r.warps().value_or(0) * warp); };
  auto allocate = [&](std::string key, int count, uint32_t threads, const Expr &call) {
    auto it = std::find_if(A.barriers.begin(), A.barriers.end(), [&](const NamedBarrier &b) { return b.key == key; });
    if (it == A.barriers.end()) {
      NamedBarrier b;
      b.key = std::move(key);
      b.first = A.next;
      b.count = count;
      b.threads = threads;
      A.next += count;
      b.fits = A.next - 1 <= A.lastId;
      A.barriers.push_back(std::move(b));
      it = A.barriers.end() - 1;
    }
    it->uses.push_back(&call);
    A.byCall[&call] = size_t(it - A.barriers.begin());
  };
  for (const Role &r : k.roles)
    forEachCall(r.decl->body, [&](const Expr &call) {
      OpId op = opIdOf(call, k);
      if (op == OpId::RingConsume) {
        // a same-role cp.async ring's consume ends with a barrier over the role
        const Ring *ring = ringOf(call, k);
        if (ring && !ringUsesBarriers(*ring, k) && threadsOf(r) != block)
          allocate(r.name + ":role", 1, threadsOf(r), call);
        return;
      }
      if (op != OpId::BarSync && op != OpId::BarArrive)
        return;
      bool arrive = op == OpId::BarArrive;
      auto args = positionalArgs(call);
      if (args.size() == 1 && args[0]->kind == ExprKind::Name) {
        const std::string &scope = args[0]->text;
        if (scope == "warp" || (scope == "cta" && !arrive))
          return; // __syncwarp, __syncthreads
        if (scope == "warpgroup") {
          // one id per warpgroup of the role, each over its 128 threads
          allocate(r.name + ":warpgroup", int(r.warps().value_or(4) / 4), 4 * warp, call);
          return;
        }
      }
      std::string key;
      uint32_t threads = 0;
      for (const Expr *a : args) {
        const Role *x = a->kind == ExprKind::Name ? k.role(a->text) : nullptr;
        if (!x)
          return; // not a set of roles: the lowering rejects it
        key += x->name + ",";
        threads += threadsOf(*x);
      }
      if (threads == block && !arrive)
        return; // the whole CTA: __syncthreads
      allocate(std::move(key), 1, threads, call);
    });
  return A;
}

} // namespace cake::sema
