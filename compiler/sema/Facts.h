//===- Facts.h - Facts derived from a kernel, computed once -----*- C++ -*-===//
//
// Part of CAKE. Numbers that follow from a kernel's declarations and that
// more than one part of the compiler needs: where every ring stage, slot and
// buffer lives in shared memory (and how many bytes the launch asks for),
// whether a ring keeps mbarriers, its tensor-memory columns. The lowering
// lays memory out with these offsets, so they are what runs; the verifier's
// res.smem ledger, the cost model and the language server's hover and inlay
// hints read the same numbers instead of re-deriving them (and disagreeing).
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
  uint32_t dynamicBytes() const { return bytes + kSmemBaseSlack; }
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

} // namespace cake::sema
