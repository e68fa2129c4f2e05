//===- Facts.h - Facts derived from a kernel, computed once -----*- C++ -*-===//
//
// Part of CAKE. Numbers that follow from a kernel's declarations and that
// more than one part of the compiler needs: where every ring stage, slot and
// buffer lives in shared memory (and how many bytes the launch asks for),
// whether a ring keeps mbarriers, its tensor-memory columns; the expect-tx
// bytes of each ring commit; the ids of the named barriers the compiler
// derives. The lowering lays memory out with these offsets, arms the
// commits with these byte counts and syncs on these ids, so they are what
// runs; the verifier's rules, the cost model and the language server's
// hover and inlay hints read the same numbers instead of re-deriving them
// (and disagreeing).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::sema {

/// Slack the launch asks for beyond the layout: the dynamic shared memory
/// base is only 16-byte aligned, so the kernel aligns it to 1024 B itself.
inline constexpr uint32_t kSmemBaseSlack = 1024;

/// Where one ring lives.
struct RingLayout {
  const Ring *ring = nullptr;
  uint32_t full = 0, empty = 0; ///< barrier offsets (stages x 8 bytes each)
  uint32_t data = 0;            ///< offset of stage 0
  uint32_t stageBytes = 0;      ///< one stage, its slots aligned, rounded up to its alignment
  uint32_t stageAlign = 128;    ///< the strictest slot's alignment
  uint32_t stages = 1;          ///< as laid out (the ring's, or an override)
  std::map<std::string, uint32_t, std::less<>> slotOffset; ///< within a stage
  bool usesBarriers = true;     ///< false for same-role cp.async rings
  uint32_t fullCount = 1, emptyCount = 1; ///< arrivals each full/empty barrier expects
  uint32_t tmemColumns = 0;     ///< TMEM rings: columns per stage (slots in tensor memory)
  uint32_t tmemBase = 0;        ///< first column of stage 0 in the kernel's allocation
};

/// The shared-memory layout of a kernel: barriers first (ring full/empty
/// pairs, then raw mbarrier vars, then the TMEM address word), aligned to
/// 1024 B, then ring stages and buffers in declaration order, each at its
/// alignment (the swizzle repeat, at least 128 B, raised by align(n)).
struct SmemLayout {
  std::vector<RingLayout> rings; ///< one per ring, in declaration order
  std::map<std::string, uint32_t, std::less<>> buffers; ///< data and raw barrier offsets
  uint32_t bytes = 0;        ///< end of the last allocation
  uint32_t barrierBytes = 0; ///< the barriers block (before its 1024 B alignment)
  uint32_t tmemColumns = 0;  ///< allocated TMEM columns (a power of 2, 32..512); 0 for none
  uint32_t tmemSlot = 0;     ///< shared word tcgen05.alloc writes the TMEM address to
  const Role *tmemOwner = nullptr;
  /// False when some stage count or shared size is not a compile-time
  /// constant (the layout then counts it as 1 stage or 0 bytes).
  bool known = true;

  /// Bytes of dynamic shared memory the launch asks for.
  uint32_t dynamicBytes() const { return bytes > UINT32_MAX - kSmemBaseSlack ? UINT32_MAX : bytes + kSmemBaseSlack; }
  const RingLayout *ring(std::string_view name) const;
};

/// Whether \p ring keeps full/empty mbarriers: all rings but those produced
/// and consumed by one role that fills them with cp.async and never with TMA
/// (language reference 8.3), which lower to cp.async groups.
bool ringUsesBarriers(const Ring &ring, const Kernel &k);

/// Alignment of one shared allocation: its swizzle repeat (8 rows of the
/// panel), 128 B otherwise, raised by align(n).
uint32_t smemAlign(const Type &t);

/// The layout of \p k; with \p override set, that ring laid out with
/// \p stages stages instead (for the res.smem fix-it).
SmemLayout layoutSmem(const Kernel &k, const Ring *override = nullptr, int64_t stages = 0);

//===-- Expect-tx bytes of ring commits -----------------------------------===//

/// One produce token of a barrier or cp.async ring and what fills its slot
/// before its commit: the tma.loads whose destination is a slot of the
/// token (or a view of one, also through lets), in the role that produced
/// it. A copy with its own `barrier =` signals that barrier, not the commit.
struct SlotFill {
  const syntax::LetStmt *produce = nullptr; ///< `let p = R.produce()`
  const Ring *ring = nullptr;
  const Role *role = nullptr;
  const syntax::Expr *commit = nullptr; ///< `R.commit(p)`; null when the role never commits p
  std::vector<const syntax::Expr *> copies; ///< the tma.loads, in source order
  /// The bytes those copies deliver (each destination view's elements times
  /// its element size), which the commit's arrive.expect_tx counts. nullopt
  /// when one destination's size is unknown, a copy multicasts, or a copy
  /// runs in a loop opened after the produce (counted once, it would run
  /// many times).
  std::optional<int64_t> tmaBytes = 0;
  bool otherWrites = false; ///< a cp.async also writes the slot (TMA's tx-count does not see it)
};

/// Every produce token of a kernel, in source order of the roles.
struct CommitFacts {
  std::vector<SlotFill> fills;
  /// The fill a commit call closes, or nullptr.
  const SlotFill *ofCommit(const syntax::Expr &commit) const;

  std::map<const syntax::Expr *, size_t> byCommit; ///< every commit call -> its fill
};

CommitFacts commitFacts(const Kernel &k);

/// The bytes the arrive.expect_tx of the ring commit \p commitCall
/// (`R.commit(p)`) counts, as the lowering emits it: set only for a ring
/// that keeps mbarriers, has no tensor-memory slot (its commit is a
/// tcgen05.commit) and whose slot TMA fills with a known number of bytes.
std::optional<int64_t> commitTxBytes(const syntax::Expr &commitCall, const Kernel &k, const CommitFacts &facts,
                                     const SmemLayout &layout);
std::optional<int64_t> commitTxBytes(const syntax::Expr &commitCall, const Kernel &k);

//===-- Named barriers the compiler derives -------------------------------===//

/// One derived named barrier (or a consecutive block of them): a
/// `bar.sync(roles...)`/`bar.arrive(roles...)` that is not the whole CTA, a
/// `bar.sync(warpgroup)` (one id per warpgroup of the role), the role-wide
/// barrier after the consume of a same-role cp.async ring.
struct NamedBarrier {
  std::string key;  ///< what shares the ids: "a,b," (a role set, in written order), "r:warpgroup", "r:role"
  int first = 0;    ///< its first id
  int count = 1;    ///< consecutive ids
  uint32_t threads = 0; ///< threads each id counts (a warpgroup's 128 for warpgroup barriers)
  std::vector<const syntax::Expr *> uses; ///< the calls that sync or arrive on it, in source order
  /// Whether its last id is one the hardware has.
  bool fits = true;
};

/// The derived named barriers of a kernel. Ids start after the largest
/// constant id the kernel names itself (bar.sync_id / bar.arrive_id), so the
/// two never collide, and are handed out in source order of the roles and
/// their calls, one block per key (the order the lowering emits them).
struct BarrierAllocation {
  int firstDerived = 1; ///< the first id after the raw ones
  int lastId = 15;      ///< the last id the target has (namedBarriers - 1; 0 is __syncthreads)
  int next = 1;         ///< one past the last id handed out
  std::vector<NamedBarrier> barriers; ///< in allocation order
  /// The barrier a call syncs or arrives on, or nullptr (raw ids, warp and
  /// CTA barriers, calls the lowering rejects).
  const NamedBarrier *of(const syntax::Expr &call) const;
  bool fits() const { return next - 1 <= lastId; }

  std::map<const syntax::Expr *, size_t> byCall;
};

BarrierAllocation allocateBarriers(const Kernel &k);

} // namespace cake::sema
