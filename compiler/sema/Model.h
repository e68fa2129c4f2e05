//===- Model.h - The semantic model of a CAKE IR module --------*- C++ -*-===//
//
// Part of CAKE. Sema turns the syntax tree into this model: resolved types,
// constants, parameters, rings, buffers and roles per kernel, each pointing
// back at its syntax for ranges. The verifier's rules read the model (and
// walk the statements of roles themselves); they never re-parse clauses.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Ops.h"
#include "compiler/syntax/AST.h"
#include "compiler/target/Target.h"

#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace cake::sema {

/// The most stages a ring may have: more than any pipeline fills (each
/// stage needs a full and an empty mbarrier and a copy in flight).
inline constexpr int64_t kMaxStages = 64;

/// A warpgroup: four consecutive warps, the unit of wgmma and of setmaxnreg (PTX ISA 9.7.15).
inline constexpr int64_t kWarpsPerWarpgroup = 4;

//===-- Element types and memory spaces ------------------------------------===//

enum class Elem { BF16, FP16, FP32, TF32, E4M3, E5M2, I8, U8, I32, U32, I64, Bool, Mbarrier };

std::optional<Elem> parseElem(std::string_view name);
std::string_view elemName(Elem e);
uint32_t elemBytes(Elem e);
bool isFloat(Elem e);
/// Every element type name, for suggestions.
std::span<const std::string_view> elemNames();

enum class Space { None, Global, Shared, Reg, Tmem, Param };

std::string_view spaceName(Space s);

//===-- Types ---------------------------------------------------------------===//

/// One dimension: a compile-time value, or a size symbol bound at launch.
struct Dim {
  std::optional<int64_t> value;
  std::string symbol; ///< set when the dimension is a bare size symbol
  const syntax::Expr *expr = nullptr;
};

struct Type {
  Space space = Space::None;
  std::optional<Elem> elem; ///< nullopt when the name was not an element type
  std::vector<Dim> dims;
  std::optional<int64_t> align;   ///< align(n)
  uint32_t swizzle = 0;           ///< swizzle(32B|64B|128B) in bytes; 0 for none
  std::optional<int64_t> count;   ///< count(n) of raw mbarriers
  const syntax::TypeExpr *syntax = nullptr;

  const syntax::Clause *clause(std::string_view name) const;
  /// Product of the dimensions when all are known (1 for a scalar).
  std::optional<int64_t> elements() const;
  std::optional<int64_t> bytes() const;
  /// Bytes of one row (the last dimension) when known.
  std::optional<int64_t> rowBytes() const;
};

//===-- Declarations --------------------------------------------------------===//

struct Param {
  std::string name;
  Type type;
  const syntax::Field *decl;
};

struct Slot {
  std::string name;
  Type type;
  const syntax::Field *decl;
};

struct Ring {
  std::string name;
  const syntax::RingStmt *decl;
  std::optional<int64_t> stages;
  std::vector<Slot> slots;
  std::string producer, consumer; ///< role names from the clauses, "" when absent
  const syntax::Clause *stagesClause = nullptr, *producerClause = nullptr, *consumerClause = nullptr;

  const Slot *slot(std::string_view name) const;
  /// Bytes of one stage (the sum of its shared slots) when known.
  std::optional<int64_t> stageBytes() const;
};

/// A kernel-scope `var` in shared or tensor memory.
struct Buffer {
  std::string name;
  Type type;
  const syntax::VarStmt *decl;
};

enum class IssueMode { Elect, Warp, Warpgroup };

struct Role {
  std::string name;
  const syntax::RoleStmt *decl;
  std::optional<int64_t> warpBegin, warpEnd; ///< [begin, end) in warps of the CTA
  bool byWarpgroups = false;                 ///< declared with warpgroups(...)
  std::optional<int64_t> regs;               ///< regs(n)
  IssueMode issue = IssueMode::Warp;
  const syntax::Clause *warpsClause = nullptr, *regsClause = nullptr, *issueClause = nullptr;

  std::optional<int64_t> warps() const;
};

/// Compile-time integer values visible in a kernel: module constants and
/// kernel-scope `let`s whose value is constant.
using ConstEnv = std::map<std::string, int64_t, std::less<>>;

struct Kernel {
  const syntax::KernelDecl *decl = nullptr;
  Target target = Target::SM90a;
  const TargetDesc *desc = nullptr;
  const syntax::Clause *targetClause = nullptr, *blockClause = nullptr, *gridClause = nullptr,
                       *clusterClause = nullptr;
  std::optional<int64_t> block;   ///< threads per CTA
  bool persistent = false;        ///< grid(persistent)
  std::vector<std::optional<int64_t>> cluster; ///< cluster(x, y, z); {1} by default
  int64_t occupancy = 1;

  std::vector<Param> params;
  std::vector<Ring> rings;
  std::vector<Buffer> buffers;
  std::vector<Role> roles;
  std::set<std::string, std::less<>> sizeSymbols;
  ConstEnv consts;
  /// The declarations of the module constants (for fix-its that change a
  /// quantity where it is defined, so that what derives from it follows).
  std::map<std::string, const syntax::ConstDecl *, std::less<>> constDecls;
  /// The operation each call of the kernel invokes, as sema resolved it.
  std::unordered_map<const syntax::Expr *, const OpInfo *> ops;

  const Param *param(std::string_view name) const;
  const Ring *ring(std::string_view name) const;
  const Buffer *buffer(std::string_view name) const;
  const Role *role(std::string_view name) const;
  std::optional<int64_t> clusterSize() const;

  /// CTAs per SM the kernel is built for: occupancy(n), at least 1.
  int64_t residentCtas() const;
  /// Registers per thread each warp holds at launch (the "launch share"): the
  /// SM's register file split among the resident CTAs' threads, rounded down
  /// to the allocation unit of 8, and capped at setmaxnreg's ceiling (256 on
  /// sm_90a: the unit a 255-register kernel is allocated in) or, where
  /// setmaxnreg is absent, at the per-thread maximum (255 on sm_80).
  /// nullopt when the block size is unknown. The verifier's register ledger,
  /// the lowering's setmaxnreg direction and the server's hover all read it.
  std::optional<int64_t> launchRegisterShare() const;
};

//===-- The symbol index (for the language server) ---------------------------===//

enum class SymbolKind { Kernel, Const, Param, SizeSymbol, Let, Var, Ring, Role, LoopVar };

std::string_view symbolKindName(SymbolKind k);

/// A declaration: its name's range, the whole declaration's range, and a
/// one-line description (the type, the ring's stages and bytes, ...).
struct Symbol {
  std::string name;
  SymbolKind kind;
  SourceRange range;
  SourceRange declRange;
  std::string detail;
  std::string container; ///< the enclosing kernel, or "" at module level
};

/// A use of a name resolved to its declaration.
struct Reference {
  SourceRange range;
  size_t symbol; ///< index into SymbolIndex::symbols
};

struct SymbolIndex {
  std::vector<Symbol> symbols;       ///< in declaration order
  std::vector<Reference> references; ///< in resolution order

  /// The symbol declared or referenced at byte \p offset, or nullptr.
  const Symbol *at(uint32_t offset) const;
  /// Ranges of every use of symbol \p index.
  std::vector<SourceRange> uses(size_t index) const;
  size_t indexOf(const Symbol &s) const { return static_cast<size_t>(&s - symbols.data()); }
};

struct Module {
  ConstEnv consts;
  std::vector<Kernel> kernels;
  SymbolIndex index;
};

//===-- Expression helpers --------------------------------------------------===//

/// "a.b.c" for a chain of names and members; "" for anything else.
std::string dottedName(const syntax::Expr &e);

/// The dotted callee of a call ("tma.load", "ab.produce"); "" when \p e is
/// not a call on a dotted name.
std::string calleeName(const syntax::Expr &e);

/// The operation \p call invokes in \p kernel (ring.produce for
/// `ab.produce()`), as sema recorded it in Kernel::ops, else resolved from the
/// callee; nullptr when it is not an operation.
const OpInfo *opOf(const syntax::Expr &call, const Kernel &kernel);

/// The id of that operation; OpId::None when \p call is not one. Consumers
/// dispatch on this, never on the operation's name.
OpId opIdOf(const syntax::Expr &call, const Kernel &kernel);

/// For a call outside any kernel (a module constant): the operation its
/// dotted callee names, never a ring operation; OpId::None when none.
OpId calleeOp(const syntax::Expr &call);

/// The ring a ring operation is called on (`ab` in `ab.release(s)`).
const Ring *ringOf(const syntax::Expr &call, const Kernel &kernel);

/// Positional arguments of a call (keyword arguments excluded).
std::vector<const syntax::Expr *> positionalArgs(const syntax::Expr &call);

/// The value of keyword argument \p name of a call, or nullptr.
const syntax::Expr *keywordArg(const syntax::Expr &call, std::string_view name);

/// Resolves a name to a value, or nullopt when it has none.
using NameLookup = std::function<std::optional<int64_t>(const std::string &)>;

/// Evaluates an integer (or a boolean as 0/1): literals (a unit suffix B, KiB
/// or MiB scales), true/false, names through \p lookup, arithmetic, bit,
/// comparison and logical operators, unary - ~ !, parentheses, math.cdiv,
/// math.min, math.max; overflow and division by zero give nullopt. nullopt
/// when any part is unknown.
std::optional<int64_t> evalWith(const syntax::Expr &e, const NameLookup &lookup);

/// One integer operator of the language on \p a and \p b (arithmetic, shifts,
/// bit, comparison and logical operators) as evalWith applies it: overflow,
/// division by zero and out-of-range shifts give nullopt.
std::optional<int64_t> binaryValue(syntax::Tok op, int64_t a, int64_t b);

/// The number of values of `for i in lo .. hi step(step)`, in unsigned
/// arithmetic: `hi - lo` overflows int64 for `-5 .. INT64_MAX`, and the
/// rounding overflows for `0 .. INT64_MAX step(2)` (a negative count made
/// smem.bounds miss accesses and let the async walk run 2^63 iterations).
/// 0 for an empty range or a step below 1; saturates at INT64_MAX.
int64_t tripCount(int64_t lo, int64_t hi, int64_t step = 1);

/// The \p i-th value of that range (i < tripCount): lo + i * step, which lies
/// in [lo, hi) and so is computed in unsigned arithmetic without overflow.
int64_t tripValue(int64_t lo, int64_t i, int64_t step = 1);

/// The n of a loop's `step(n)`, folded by \p eval (each stage folds with the
/// names it knows): 1 without the clause, nullopt when n is not a positive
/// integer there. One reading for the verifier, the cost model and the
/// lowering (the cost model and the lowering counted hi - lo whatever the step).
std::optional<int64_t> loopStep(const syntax::ForStmt &f,
                                const std::function<std::optional<int64_t>(const syntax::Expr &)> &eval);
/// loopStep with the kernel's compile-time constants.
std::optional<int64_t> loopStep(const syntax::ForStmt &f, const ConstEnv &consts);

/// Evaluates \p e inside kernel \p k: names resolve through \p sizes first
/// (size symbols bound to values), then the kernel's constants, then its
/// kernel-scope lets, evaluated the same way (`let KT = math.cdiv(K, BK)`).
std::optional<int64_t> evalInKernel(const Kernel &k, const syntax::Expr &e, const NameLookup &sizes);

/// evalWith over the constants in \p env.
std::optional<int64_t> evalInt(const syntax::Expr &e, const ConstEnv &env);

/// The root name of a view or member chain: "s" for `s.a[0:64, :]`.
std::string rootName(const syntax::Expr &e);

} // namespace cake::sema
