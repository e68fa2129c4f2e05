//===- Lowerer.h - The lowering's internal state ---------------*- C++ -*-===//
//
// Part of CAKE. Shared by the files of compiler/lower/: the CUDA writer, the
// values the lowering tracks for IR names (scalars, ring tokens, views of
// shared and global memory, register fragments, schedules), the shared
// memory layout, and the Lowerer that walks one kernel. Kernel.cpp lowers
// the kernel frame (signature, layout, prologue, roles), Statements.cpp the
// statements and scalar expressions, Values.cpp views and fragments, and
// Ops.cpp the operations of the primitive table.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/lower/Lower.h"
#include "compiler/sema/Facts.h"
#include "compiler/sema/Ops.h"
#include "diagnostics/Sink.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

namespace cake::lower {

//===-- Writing CUDA ----------------------------------------------------------===//

/// The body of a C string literal that holds \p text: `"` and `\` escaped,
/// control characters as octal escapes (runner::LineMap reads them back).
std::string cStringBody(std::string_view text);

/// Indented CUDA text with `#line` directives that follow the IR.
class CudaWriter {
public:
  CudaWriter(const SourceManager &sm, std::string lineFile) : sm_(sm), file_(std::move(lineFile)) {}

  /// Emits `#line` for the IR line holding \p range's start, when it differs
  /// from the line the next generated line would be attributed to.
  void at(SourceRange range);
  void line(const std::string &text);
  void open(const std::string &text) { line(text + " {"), ++depth_; }
  void close(const std::string &suffix = "") { --depth_, line("}" + suffix); }
  void raw(const std::string &text) { out_ << text; }
  std::string str() const { return out_.str(); }
  /// After raw(): the next line is attributed to nothing known.
  void resync() { irLine_ = 0; }

private:
  const SourceManager &sm_;
  std::string file_;
  std::ostringstream out_;
  int depth_ = 0;
  uint32_t irLine_ = 0; ///< the IR line the next emitted line maps to (0: none)
};

//===-- Values ------------------------------------------------------------------===//

/// How a register tensor is spread over the threads of its unit (language.md 4.6).
enum class Layout { WgmmaAcc, MmaAcc, MmaA, MmaB, TmemRow, Rows, Cols, Blocked, Thread };

struct Val {
  enum Kind { Scalar, Token, SharedView, GlobalView, TmemView, Frag, Schedule, Tile, Event, Barrier } kind = Scalar;
  std::string cxx; ///< Scalar: the C++ expression; Frag: the array; Barrier: u32 address

  // Views (Shared, Global) and tokens.
  const sema::Type *type = nullptr;   ///< the storage's declared type
  std::string base;                   ///< Shared: u32 address of the storage (stage applied)
  std::vector<std::string> origin;    ///< per storage dimension: the first index
  std::vector<int64_t> extent;        ///< per storage dimension: the view's extent
  std::vector<bool> kept;             ///< per storage dimension: sliced (kept) or indexed
  bool corner = false;                ///< every index scalar (a copy's box origin)
  const sema::Param *param = nullptr; ///< Global: the parameter
  const sema::Ring *ring = nullptr;   ///< Token
  std::string stage;                  ///< Token: C++ stage index
  bool writeToken = false;
  /// Shared: `tile.t(v)`, an MN-major MMA operand (only wgmma.mma reads one; Lowerer::view refuses it).
  bool transposed = false;

  // Fragments.
  Layout layout = Layout::WgmmaAcc;
  std::vector<int64_t> shape;     ///< logical shape of the value
  sema::Elem elem = sema::Elem::FP32;
  std::string fragOffset = "0";  ///< WgmmaAcc column slices: C++ index of the first element
  std::optional<sema::Elem> cast; ///< math.cast applied elementwise
  int64_t buffers = 0;            ///< > 0: an array of that many fragments (`acc[2, 64, N]`)
  int64_t perThread = 0;          ///< Blocked: elements per lane; Thread: the vector's length
  int64_t chunk = 0;              ///< Blocked: elements per lane chunk (chunk c of the row to lane c % 32)
  /// Rows vectors that are the state of argmin.fold: per row, this many
  /// per-lane partial chains (the quad is reduced by argmin.finish).
  int64_t chains = 0;
  int64_t chainColumns = 0; ///< and the columns of the wgmma tile it folds
  /// Rows tensors `[rows, k]` that are the state of topk.fold: per row held,
  /// this many entries, a sorted list per lane (topk.finish merges the quad's).
  int64_t topk = 0;
  /// A top-k state `[k]` of a warp role: one row (the warp's), the whole list in every lane.
  bool laneList = false;
  /// The fp32 keys of a tile's top-k state carry, per row held, the row's
  /// threshold (topk.fold) in this array of 2: +inf (admits every element)
  /// after any assignment and after topk.finish, set again by a fold whenever
  /// the lists change.
  std::string topkThreshold() const { return "cake_" + cxx + "_thr"; }
  bool hasTopkThreshold() const { return topk && !laneList && elem == sema::Elem::FP32; }
  /// Rows and cols of a warp's mma.sync accumulator [16, N] (its own 16
  /// rows), not of a warpgroup's wgmma [64, N]: the same per-thread
  /// elements, rows counted from the warp's.
  bool warpTile = false;

  // Schedules: one extent per dimension, with its name.
  std::vector<std::pair<std::string, std::string>> dims;
  std::string group; ///< C++ group size, "" for none
  std::string total;

  // Scalars: the variable of a loop unrolled by copies, and which copy.
  int64_t unrollFactor = 0, unrollOffset = 0;
  /// Scalars: the value may differ between the threads of the issue unit
  /// (it derives from self.lane(), an atomic's old value, ...; Scalars.cpp).
  bool varying = false;
  /// Scalars: the value may differ between the lanes of one warp (varying without self.warp()).
  bool laneVarying = false;

  // Events: wgmma.retired(n), tma.store_read(n), tcgen05.done(): the operation.
  sema::OpId event = sema::OpId::None;
  int64_t depth = 0;

  /// The view's shape (kept dimensions).
  std::vector<int64_t> viewShape() const;
};

/// \p e without enclosing parentheses.
inline const syntax::Expr *stripParens(const syntax::Expr *e) {
  while (e && e->kind == syntax::ExprKind::Paren)
    e = e->operands[0].get();
  return e;
}

inline Val scalarVal(std::string cxx) {
  Val v;
  v.cxx = std::move(cxx);
  return v;
}

//===-- Shared memory layout --------------------------------------------------===//

// The layout is sema's (compiler/sema/Facts.h): the verifier's res.smem
// ledger and the language server read the same offsets.
using sema::RingLayout;
using sema::SmemLayout;

//===-- The lowerer ---------------------------------------------------------------===//

/// Per role: the unit, ring cursors and pending releases.
struct RoleState {
  const sema::Role *role = nullptr;
  std::set<std::string> retiredRings;                 ///< released after wgmma.retired
  std::map<std::string, int64_t> retiredDepth;        ///< the deepest n of those releases
  std::vector<std::string> wgmmaAccs; ///< fragments to fence after wgmma waits
  /// Accumulators of the wgmma groups committed so far (in lowering order) and
  /// of the group being built: a wait(n) fences all but the last n groups'
  /// (fencing an in-flight accumulator would serialize the pipeline).
  std::vector<std::vector<std::string>> wgmmaGroups;
  std::vector<std::string> wgmmaPending;
  int barrierBase = 0;                ///< first derived named barrier id of the role
};

class Lowerer {
public:
  Lowerer(const SourceManager &sm, const sema::Kernel &kernel, const sema::Module &model, CudaWriter &w,
          DiagnosticSink &sink, const LowerOptions &options, LoweredKernel &out)
      : sm(sm), k(kernel), model(model), w(w), sink(sink), opts(options), out(out) {}

  void run();

  //--- shared by the files of compiler/lower ---
  const SourceManager &sm;
  const sema::Kernel &k;
  const sema::Module &model;
  CudaWriter &w;
  DiagnosticSink &sink;
  const LowerOptions &opts;
  LoweredKernel &out;
  SmemLayout smem;
  RoleState *role = nullptr;
  bool failed = false;

  /// Reports lower.unsupported at \p range (once per range and reason); the caller emits nothing for it.
  void unsupported(SourceRange range, const std::string &what);
  std::set<std::tuple<uint32_t, uint32_t, std::string>> reportedUnsupported;

  // Names in scope.
  std::vector<std::map<std::string, Val, std::less<>>> scopes;
  void push() { scopes.emplace_back(); }
  void pop() { scopes.pop_back(); }
  void bind(const std::string &name, Val v) { scopes.back()[name] = std::move(v); }
  const Val *lookup(std::string_view name) const;
  int fresh = 0;
  std::string temp(std::string_view hint) { return "cake_" + std::string(hint) + std::to_string(fresh++); }

  // Statements (Statements.cpp).
  void block(const syntax::Block &b);
  void stmt(const syntax::Stmt &s);
  void forStmt(const syntax::ForStmt &f);
  bool tripCountDivisible(const syntax::Expr &hi, int64_t factor) const;
  /// The largest m of the kernel's facts `symbol % m == 0` (1 when none).
  int64_t knownDivisor(std::string_view symbol) const;
  /// The kernel's facts `X % m == 0` (m a constant), as (X, m).
  std::vector<std::pair<const syntax::Expr *, int64_t>> divisibilityFacts() const;
  /// The first index into an array of register tensors in \p s that is not a
  /// constant here (`acc[(CT + 1) % 2]`), with the array's length.
  std::optional<std::pair<const syntax::Expr *, int64_t>> dynamicBufferIndex(const syntax::Stmt &s);
  /// Buffer indices fixed (by their printed form) while the rest of a block is
  /// lowered once per buffer.
  std::map<std::string, int64_t> bufferIndex;
  void varStmt(const syntax::VarStmt &v);
  void assignStmt(const syntax::AssignStmt &a);
  /// A scalar expression in C++, or nullopt after reporting why not.
  std::optional<std::string> scalar(const syntax::Expr &e);
  std::optional<int64_t> constant(const syntax::Expr &e) const;
  /// The names constant() knows: lets bound to constants, then the kernel's
  /// constants (for sema's shape inference).
  sema::NameLookup constants() const;
  std::optional<int64_t> unrolledModulo(const syntax::Expr &e) const;
  /// Whether scalar expression \p e may differ between the threads of the
  /// role's issue unit (Scalars.cpp); names not (yet) in scope count as varying.
  /// With \p inWarp: whether it may differ between the lanes of one warp (self.warp() does not).
  bool varies(const syntax::Expr &e, bool inWarp = false) const;
  /// Whether any assignment to scalar var \p name in the role may store a varying value.
  bool assignedVarying(std::string_view name) const;

  // Values (Values.cpp).
  std::optional<Val> value(const syntax::Expr &e);
  std::optional<Val> view(const syntax::Expr &e);
  std::string sharedAddress(const Val &v, const std::vector<std::string> &index) const;
  std::string cxxName(std::string_view irName) const;
  /// \p e as the canonical printer writes it, for messages.
  std::string printed(const syntax::Expr &e) const;
  std::optional<Val> fragSlice(const Val &base, const syntax::Expr &index);
  // Elementwise math over fragments (Fragments.cpp).
  std::optional<std::string> fragElement(const Val &f, Layout ctx, const std::string &idx);
  sema::Elem elemType(const syntax::Expr &e);
  std::optional<std::string> elementwise(const syntax::Expr &e, Layout ctx, const std::string &idx);
  std::optional<Val> fragExpression(const syntax::Expr &e);
  /// Whether \p e computes a register tensor elementwise: operators and elementwise math over a register
  /// tensor's name, tile.iota or a load `like =` one (Values.cpp evaluates it with fragExpression).
  bool readsRegisterTensor(const syntax::Expr &e) const;
  /// Evaluates the calls inside \p e that produce register tensors (a row's
  /// ld.global, its math.cast) into temporaries that elementwise math then
  /// reads: `let d = math.cast(ld.global(x[r, :]), fp32) - math.cast(...)`.
  void materializeCalls(const syntax::Expr &e);
  /// Calls evaluated to register tensors by materializeCalls, for the
  /// statement being lowered (cleared after it).
  std::map<const syntax::Expr *, Val> materialized;
  bool fragAssign(const Val &target, const syntax::Expr &e);
  bool argReduce(const syntax::Expr &call, const std::string &values, const std::string &indices);
  /// Whether the blocked vectors among \p frags share one distribution; reports at \p at if not.
  bool sameBlockedDistribution(SourceRange at, const std::vector<Val> &frags);
  /// Whether the role's argmin.fold calls keep their running state in \p name.
  bool isArgminState(std::string_view name) const;
  /// Whether the role's topk.fold calls keep their running state in \p name.
  bool isTopkState(std::string_view name) const;
  /// Whether the role's \p fold calls (argmin.fold, topk.fold) keep their state in \p name.
  bool isFoldState(sema::OpId fold, std::string_view name) const;
  /// Pointer to the element of global view \p v at its origin, \p lastOffset further along the last dimension.
  std::string globalAddress(const Val &v, const std::string &lastOffset) const;
  std::string dimCxx(const sema::Dim &d);
  /// The C++ condition of an MMA's `accumulate =` option ("true" when absent).
  std::optional<std::string> accumulateFlag(const syntax::Expr &call);
  void fragFill(const Val &frag, const syntax::Expr &value);

  // Operations (Ops.cpp): statements that are calls, and calls with values.
  void callStmt(const syntax::Expr &call);
  std::optional<Val> callValue(const syntax::Expr &call, const sema::OpInfo &op);
  bool ifWithSameRoleCommit(const syntax::Block &b) const;

  // Kernel frame (Kernel.cpp).
  void signature(CudaWriter &outer);
  void prologue();
  void roleBody(const syntax::RoleStmt &decl, bool first);
  void ringCursors(const syntax::RoleStmt &decl);
  /// Produce-ahead distance of a same-role cp.async ring (language.md 8.3).
  std::optional<int64_t> produceAhead(const syntax::RoleStmt &decl, const sema::Ring &ring);
  /// A slice `lo:hi` of a dimension of \p extent: the C++ start and the constant extent.
  std::optional<std::pair<std::string, int64_t>> sliceBounds(const syntax::Expr &slice, int64_t extent);
  sema::CommitFacts commits; ///< what fills each produce token's slot (the expect-tx bytes of its commit)
  std::map<std::string, int, std::less<>> txLoopDepth;  ///< loop depth at each write token's produce
  int loopDepth = 0;                                    ///< enclosing loops of the statement being lowered
  int tensorMap(const Val &global, const Val &shared, SourceRange at);
  std::string waitSite(SourceRange range, const std::string &what);
  std::string barrierAddress(const RingLayout &r, bool full, const std::string &stage) const;
  uint32_t threadsOf(const sema::Role &r) const { return uint32_t(r.warps().value_or(0) * 32); }
  /// The first derived named-barrier id of the barrier \p call syncs or
  /// arrives on, as sema allocated it (sema::allocateBarriers); reports a
  /// barrier past the hardware's ids once.
  int barrierId(const syntax::Expr &call);
  sema::BarrierAllocation barriers;
  std::set<std::string, std::less<>> barrierOverflow; ///< keys already reported past the hardware's ids
  /// Emits a wait for \p parity on the mbarrier at \p bar (bounded in
  /// watched builds, reporting site \p what at \p range).
  void waitParity(const std::string &bar, const std::string &parity, SourceRange range, const std::string &what);
};

/// Lowers one call of an operation marked "@" in the primitive table; returns
/// its value (or an empty Scalar for a statement), nullopt after reporting.
using OpLowering = std::optional<Val> (*)(Lowerer &, const syntax::Expr &call);

/// The lowering functions, indexed by OpId (nullptr where none).
struct OpLowerings {
  std::array<OpLowering, sema::kOpCount> functions{};

  OpLowering &operator[](sema::OpId id) { return functions[static_cast<size_t>(id)]; }
  OpLowering operator[](sema::OpId id) const {
    return id == sema::OpId::None ? nullptr : functions[static_cast<size_t>(id)];
  }
};

/// Every lowering function, by operation. Each file of operations adds its
/// own: Rings.cpp, Memory.cpp, Mma.cpp, Ops.cpp, ...
const OpLowerings &opLowerings();
void addRingLowerings(OpLowerings &table);
void addMemoryLowerings(OpLowerings &table);
void addMmaLowerings(OpLowerings &table);
void addTcgen05Lowerings(OpLowerings &table);
void addFragmentLowerings(OpLowerings &table);
void addAtomicLowerings(OpLowerings &table);
void addScalarLowerings(OpLowerings &table);
void addMathLowerings(OpLowerings &table);
void addTileLowerings(OpLowerings &table);
void addPerThreadLowerings(OpLowerings &table);
/// Whether view expression \p view indexes its storage by a scalar that differs between the lanes of a warp
/// (`s.g[:, self.thread()]`): each thread's own view (PerThread.cpp).
bool variesPerLane(const Lowerer &L, const syntax::Expr &view);
/// ld.global / ld.shared of a 1-D view that varies per lane: a per(thread) vector, one load per element.
std::optional<Val> loadThreadVector(Lowerer &L, const syntax::Expr &call, const Val &src);
/// st.global / st.shared of a per(thread) vector into a 1-D view that varies per lane.
std::optional<Val> storeThreadVector(Lowerer &L, const syntax::Expr &call, const Val &v, const Val &dst);
/// Whether \p op is elementwise math that register tensors go through
/// (math.select, min, max and the functions of Math.cpp; math.cast is apart).
bool isElementwiseMath(sema::OpId op);
/// The CUDA expression of the elementwise math call \p call on its operands
/// already lowered to \p args, scalars or one element of register tensors
/// (Math.cpp); reports what it cannot spell.
std::optional<std::string> mathExpression(Lowerer &L, const syntax::Expr &call, const std::vector<std::string> &args);
/// Partial chains per row of an argmin.fold state (independent compare
/// chains: the fold's critical path is one fminf per element of a chain).
constexpr int64_t kArgminChains = 4;
/// Elements of a fragment per thread.
int64_t fragCount(const Val &f);
/// st.global or st.shared of a scalar into one element (Scalars.cpp): every
/// executing thread when the element depends on a varying scalar, else once
/// per warp (its first active lane).
std::optional<Val> storeScalarElement(Lowerer &L, const syntax::Expr &call, const Val &v, const Val &dst);
/// ld.shared of one element into a scalar (Scalars.cpp).
std::optional<Val> loadSharedScalar(Lowerer &L, const syntax::Expr &call, const Val &src);
/// ld.global / ld.shared(view, like = acc) of a whole 2-D view into the wgmma accumulator layout of \p like
/// (Tiles.cpp).
std::optional<Val> loadAccTile(Lowerer &L, const syntax::Expr &call, const Val &src, const Val &like);
/// st.global / st.shared of a wgmma accumulator tile, or an expression of one, into a 2-D view, elements
/// where `mask =` holds (Tiles.cpp).
std::optional<Val> storeAccTile(Lowerer &L, const syntax::Expr &call, const Val &v, const Val &dst);
/// st.global of a rows vector (Fragments.cpp).
std::optional<Val> storeFragmentRows(Lowerer &L, const syntax::Expr &call, const Val &v, const Val &dst);
/// st.global of a warp's blocked vector, or a scalar broadcast, into a 1-D global row (Fragments.cpp).
std::optional<Val> storeBlockedRow(Lowerer &L, const syntax::Expr &call, const Val &v, const Val &dst);
/// The byte alignment the lowering can prove for global view \p v's origin
/// (the parameter's align and the constant parts of its strides).
int64_t provenAlignment(const Val &v, const Lowerer &L);

/// Releases queued behind wgmma groups that a `wgmma.wait(n)` retired (Rings.cpp).
void drainRetired(Lowerer &L, int64_t n);

/// The C++ type of one element in global memory.
std::string_view cxxElem(sema::Elem e);

} // namespace cake::lower
