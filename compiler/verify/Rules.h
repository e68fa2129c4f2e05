//===- Rules.h - The rule families -----------------------------*- C++ -*-===//
//
// Part of CAKE. One function per rule family, one family per file; the
// verifier calls each for every kernel. Families and their codes:
//
//   Resources.cpp  res.smem res.threads res.regs res.cluster res.tmem role.overlap
//                  kernel.roles-cover role.warpgroup-aligned perf.stages
//   Issue.cpp      role.issue res.dynamic-index
//   Barriers.cpp   bar.uniform bar.count bar.race bar.cta-reach bar.ids role.issue (per-lane atomics)
//   Rings.cpp      ring.linear ring.balance ring.roles ring.retire ring.release-reads ring.deadlock
//                  ring.slot-flow
//   Async.cpp      proxy.fence tma.store-wait wgmma.inflight wgmma.groups
//                  tcgen05.wait cpasync.wait
//   Copies.cpp     tma.align tma.box copy.extent mbar.expect-tx mbar.count
//   Mma.cpp        mma.shape mma.dtype mma.operand-major perf.bank-conflict
//   Accumulators.cpp mma.uninit
//   Folds.cpp      fold.offset
//   Bounds.cpp     bounds.global bounds.coverage smem.bounds smem.layout tcgen05.lanes mbar.access
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/verify/Util.h"

namespace cake::verify {

void checkResources(const sema::Kernel &kernel, RuleContext &ctx);
void checkIssue(const sema::Kernel &kernel, RuleContext &ctx);
void checkBarriers(const sema::Kernel &kernel, RuleContext &ctx);
void checkRings(const sema::Kernel &kernel, RuleContext &ctx);
void checkAsync(const sema::Kernel &kernel, RuleContext &ctx);
void checkCopies(const sema::Kernel &kernel, RuleContext &ctx);
void checkMma(const sema::Kernel &kernel, RuleContext &ctx);
void checkAccumulators(const sema::Kernel &kernel, RuleContext &ctx);
void checkFolds(const sema::Kernel &kernel, RuleContext &ctx);
void checkBounds(const sema::Kernel &kernel, RuleContext &ctx);

} // namespace cake::verify
