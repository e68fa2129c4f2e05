//===- Ops.h - The primitive table -----------------------------*- C++ -*-===//
//
// Part of CAKE. Every operation of CAKE IR is declared once, as a row of
// Ops.def: its id, its dotted name, its positional operands and keyword
// options with their kinds, the targets that have it, its issue contract, its
// class and its lowering. Name resolution looks names up here (findOp); every
// other part of the compiler dispatches on the OpId that sema recorded for a
// call (opIdOf in Model.h), never on the name, so adding a primitive is one
// row and renaming one changes no consumer (tests/arch/check_op_names.py).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace cake::sema {

/// One id per row of Ops.def, in the table's (name) order; None for a call
/// that is not an operation.
enum class OpId : uint16_t {
#define CAKE_OP(Id, ...) Id,
#include "compiler/sema/Ops.def"
#undef CAKE_OP
  None,
};

/// Number of operations (the ids before None).
inline constexpr size_t kOpCount = static_cast<size_t>(OpId::None);

/// What a positional operand or a keyword option accepts, for signatures in
/// hover and completion (Ops.def spells them in lower case).
enum class ArgKind : uint8_t {
  Any,     ///< any expression (a clip tuple, a view or a type)
  Global,  ///< a view of global memory
  Shared,  ///< a view of shared memory
  Tmem,    ///< a view of tensor memory
  Reg,     ///< a register value (fragment, vector)
  View,    ///< a view of some memory (the operation says which spaces)
  Value,   ///< a scalar or a register value
  Int,     ///< a scalar integer
  Bool,    ///< a predicate
  Token,   ///< a ring token
  Event,   ///< a release event (wgmma.retired, tcgen05.done, tma.store_read)
  Barrier, ///< a raw mbarrier
  Type,    ///< tag: an element type
  Shape,   ///< tag: an MMA shape
  Scope,   ///< tag: a barrier or memory scope
  Tag,     ///< tag: another option value
};

/// "global view", "int", "element type", ... for signatures.
std::string_view argKindName(ArgKind kind);

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
  OpId id = OpId::None;
  std::string_view name;         ///< "tma.load", or "ring.produce" for R.produce
  std::string_view operands;     ///< "src, dst", "x, #type", "#scope..."
  std::string_view operandKinds; ///< one ArgKind per operand: "global, shared"
  uint8_t minOperands = 0;       ///< operands that must be given
  std::string_view options;      ///< "multicast, barrier", "#shape, accumulate"
  std::string_view optionKinds;  ///< one ArgKind per option: "int, barrier"
  uint8_t targets = 0;           ///< TargetBits
  Issue issue = Issue::None;
  OpClass cls = OpClass::Identity;
  std::string_view summary; ///< one line, for hover and completion
  /// How the operation lowers to CUDA (compiler/lower/): a C++ expression
  /// template over the operands $0, $1, ... for simple operations, "@" for
  /// an operation with a lowering function of its own (compiler/lower/
  /// registers one per "@" row, checked by a unit test), "" for none yet
  /// (reported as lower.unsupported).
  std::string_view lowering = {};
};

/// All operations, sorted by name (row i has id OpId(i)).
std::span<const OpInfo> allOps();

/// The row of \p id (which must not be None).
const OpInfo &opInfo(OpId id);

/// The name of \p id ("" for None), for messages.
std::string_view opIdName(OpId id);

/// The operation named \p name (e.g. "wgmma.mma"), or nullptr. For name
/// resolution only (sema, and tools that resolve what the user typed);
/// everything else compares OpIds.
const OpInfo *findOp(std::string_view name);

/// The ring operation \p member names (`produce` in `ab.produce()`), or
/// nullptr.
const OpInfo *findRingOp(std::string_view member);

/// Whether \p family ("tma", "wgmma", ...) is the family of some operation.
bool isOpFamily(std::string_view family);

/// Whether \p id is an escape hatch (language.md section 9): raw synchronization
/// the author states and the verifier checks, where a ring or a derived
/// barrier would derive it: the raw mbarrier operations, named barriers by id,
/// cp.async's raw groups and tcgen05.commit. `cake evolve` proposes primitives
/// from the patterns of them that recur across kernels.
bool isEscapeHatch(OpId id);

/// Number of positional operands \p op accepts (SIZE_MAX when variadic).
size_t maxOperands(const OpInfo &op);
/// Whether positional operand \p index (clamped to the last for variadic
/// operations) is a tag position.
bool isTagOperand(const OpInfo &op, size_t index);
/// Whether \p op accepts the keyword option \p name; sets \p isTag.
bool hasOption(const OpInfo &op, std::string_view name, bool *isTag = nullptr);

/// The kind of positional operand \p index (clamped like isTagOperand), Any
/// when out of range.
ArgKind operandKind(const OpInfo &op, size_t index);
/// The kind of keyword option \p name, Any when \p op has none such.
ArgKind optionKind(const OpInfo &op, std::string_view name);

/// The typed signature of \p op spelled \p spelled (its name when empty):
/// `tma.load(src: global view, dst: shared view, multicast?: int,
/// barrier?: barrier)`; optional operands and options end in '?'.
std::string signature(const OpInfo &op, std::string_view spelled = {});

} // namespace cake::sema
