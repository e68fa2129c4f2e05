//===- Ops.h - The primitive table -----------------------------*- C++ -*-===//
//
// Part of CAKE. Every operation of CAKE IR is declared once, in Ops.cpp: its
// dotted name, its positional operands and keyword options, the targets that
// have it, its issue contract and its class. Name resolution, the verifier
// and (later) lowering read this table; adding a primitive is one row.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace cake::sema {

/// Target capability bits.
enum TargetBits : uint8_t { SM80 = 1, SM90a = 2, SM100a = 4, AllTargets = SM80 | SM90a | SM100a };

/// Who executes an operation (language reference, section 10.1).
enum class Issue : uint8_t {
  None,      ///< not executed: a value, an event, a schedule, a view
  One,       ///< exactly one thread (issue(elect) role, or inside `if elect.one()`)
  Thread,    ///< each thread for itself
  Warp,      ///< warp-collective
  Warpgroup, ///< warpgroup-collective (4 aligned warps)
  Unit,      ///< collective over the role's issue unit
  Coop,      ///< cooperative over the threads named by `by =`
};

/// What an operation does, for the verifier's analyses.
enum class OpClass : uint8_t {
  Ring,       ///< R.produce/commit/consume/release
  Event,      ///< wgmma.retired, tcgen05.done, tma.store_read
  TmaLoad,    ///< async-proxy write of shared memory
  TmaStore,   ///< async-proxy read of shared memory (tma.store, tma.reduce)
  TmaWait,    ///< tma.store_wait
  TmaOther,   ///< tma.prefetch
  CpAsync,    ///< cp.async and its raw group operations
  LoadGlobal, ///< ld.global
  StoreGlobal,
  LoadShared,  ///< generic read of shared memory (ld.shared, ld.matrix)
  StoreShared, ///< generic write of shared memory (st.shared, st.matrix)
  Mma,         ///< mma.sync, wgmma.mma, tcgen05.mma
  MmaSync,     ///< wgmma.commit, wgmma.wait, tcgen05 waits and fences
  Tmem,        ///< tcgen05.ld/st/cp
  Math,
  Reduce,
  WarpOp,
  Atomic,
  Fence,
  Barrier,  ///< bar.*, cluster.sync/arrive/wait
  Mbarrier, ///< raw mbarrier operations
  Identity, ///< elect.one, self.*, cta.*, cluster.rank ...
  Schedule, ///< sched.tiles
  View,     ///< tile.*
};

/// One operation. Operand and option lists are written as comma-separated
/// names; a leading '#' marks a tag position, whose bare identifiers are
/// option values (element types, shapes, scopes) and never variables, and a
/// trailing "..." after the last operand makes the operation variadic.
struct OpInfo {
  std::string_view name;     ///< "tma.load", or "ring.produce" for R.produce
  std::string_view operands; ///< "src, dst", "x, #type", "#scope..."
  uint8_t minOperands;       ///< operands that must be given
  std::string_view options;  ///< "multicast, barrier", "#shape, accumulate"
  uint8_t targets;           ///< TargetBits
  Issue issue;
  OpClass cls;
  std::string_view summary; ///< one line, for hover and completion
  /// How the operation lowers to CUDA (compiler/lower/): a C++ expression
  /// template over the operands $0, $1, ... for simple operations, "@" for
  /// an operation with a lowering function of its own (compiler/lower/
  /// registers one per "@" row, checked by a unit test), "" for none yet
  /// (reported as lower.unsupported).
  std::string_view lowering = {};
};

/// All operations, sorted by name.
std::span<const OpInfo> allOps();

/// The operation named \p name (e.g. "wgmma.mma"), or nullptr.
const OpInfo *findOp(std::string_view name);

/// Whether \p family ("tma", "wgmma", ...) is the family of some operation.
bool isOpFamily(std::string_view family);

/// Number of positional operands \p op accepts (SIZE_MAX when variadic).
size_t maxOperands(const OpInfo &op);
/// Whether positional operand \p index (clamped to the last for variadic
/// operations) is a tag position.
bool isTagOperand(const OpInfo &op, size_t index);
/// Whether \p op accepts the keyword option \p name; sets \p isTag.
bool hasOption(const OpInfo &op, std::string_view name, bool *isTag = nullptr);

} // namespace cake::sema
