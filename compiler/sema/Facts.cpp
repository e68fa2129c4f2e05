//===- Facts.cpp - Facts derived from a kernel, computed once -------------===//
//
// Part of CAKE. The shared-memory layout is the lowering's (it is what
// runs): compiler/lower/ addresses stages, slots and barriers at these
// offsets, and the others read them from here.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Facts.h"

#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::sema {

using namespace cake::syntax;

namespace {

uint32_t alignUp(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

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
    return uint32_t(b.value_or(0));
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
      rl.empty = off + mbar * rl.stages;
      off += 2 * mbar * rl.stages;
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
      off += mbar * uint32_t(n.value_or(1));
    }
  // tensor-memory rings: columns per stage, allocated once by the producer
  uint32_t columns = 0;
  for (RingLayout &rl : L.rings)
    for (const Slot &s : rl.ring->slots)
      if (s.type.space == Space::Tmem && s.type.dims.size() == 2) {
        rl.tmemColumns = uint32_t(s.type.dims[1].value.value_or(0));
        rl.tmemBase = columns;
        columns += rl.tmemColumns * rl.stages;
        L.tmemOwner = k.role(rl.ring->producer);
      }
  if (columns) {
    L.tmemColumns = 32;
    while (L.tmemColumns < columns)
      L.tmemColumns *= 2;
    L.tmemSlot = off;
    off += 8;
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
      stageOff += bytesOf(s.type);
    }
    rl.stageBytes = alignUp(stageOff, rl.stageAlign);
    off = alignUp(off, rl.stageAlign);
    rl.data = off;
    off += rl.stageBytes * rl.stages;
  }
  for (const Buffer &b : k.buffers)
    if (b.type.space == Space::Shared && b.type.elem != Elem::Mbarrier) {
      off = alignUp(off, smemAlign(b.type));
      L.buffers[b.name] = off;
      off += bytesOf(b.type);
    }
  L.bytes = off;
  return L;
}

} // namespace cake::sema
