//===- Scalars.cpp - Per-thread scalars and single-element accesses -------===//
//
// Part of CAKE. A scalar is uniform over the role's issue unit or varies
// between its threads (language.md 4.7): self.lane(), self.thread(),
// elect.one(), the old value of an atomic, a lane-dependent shuffle and
// everything computed from them vary; in a warpgroup unit self.warp() does
// too. A view indexed by a varying scalar is a per-thread view. varies(e,
// true) asks whether the lanes of one warp may differ (self.warp() does not):
// a warp's row of a shared tile needs a row index that does not.
//
// Single-element accesses follow from it:
//   - st.global / st.shared of a scalar into a per-thread view: every
//     executing thread stores its own element;
//   - into a uniform view: the element is replicated over the unit and
//     stored once per warp, by its first active lane (lane 0 may not be
//     executing the statement: `if k < K { ... }` with a varying k);
//   - ld.shared of one element: a plain shared load per thread.
// The analysis is conservative: a name that is not in scope yet (a scalar
// var whose later assignment reads a let of an inner block) counts as
// varying, and so does a var any of whose assignments may vary. A value
// wrongly taken as varying only makes a store per-thread, which writes the
// same element with the same value from each thread.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

bool Lowerer::varies(const Expr &e, bool inWarp) const {
  switch (e.kind) {
  case ExprKind::Number:
  case ExprKind::Bool:
    return false;
  case ExprKind::Name: {
    if (const Val *v = lookup(e.text))
      return inWarp ? v->laneVarying : v->varying;
    if (k.consts.count(e.text) || k.sizeSymbols.count(e.text) || k.param(e.text) || k.buffer(e.text) ||
        e.text == "inf")
      return false;
    return true; // not in scope yet: assume the worst
  }
  case ExprKind::Member:
    return false; // a tile of a schedule, a slot of a ring token: uniform
  case ExprKind::Call: {
    OpId op = calleeOp(e);
    auto args = positionalArgs(e);
    switch (op) {
    case OpId::SelfLane:
    case OpId::SelfThread:
    case OpId::ElectOne:
    case OpId::AtomicAdd:
    case OpId::AtomicCas:
    case OpId::AtomicExch:
    case OpId::AtomicMax:
    case OpId::AtomicMin:
      return true;
    case OpId::SelfWarp:
      return !inWarp && role && role->role->issue == IssueMode::Warpgroup;
    case OpId::WarpBallot:
    case OpId::WarpAny:
    case OpId::WarpAll:
    case OpId::ReduceArgmax:
    case OpId::ReduceArgmin:
    case OpId::ReduceMax:
    case OpId::ReduceMin:
    case OpId::ReduceSum:
    case OpId::CtaCount:
    case OpId::CtaId:
    case OpId::ClusterArrive:
    case OpId::ClusterId:
    case OpId::ClusterRank:
    case OpId::ClusterSize:
    case OpId::ClusterSync:
    case OpId::ClusterWait:
    case OpId::SelfWarpgroup:
      return false;
    case OpId::WarpShfl: // the value of one lane: uniform when the lane is
      return args.size() < 2 || varies(*args[1], inWarp);
    case OpId::WarpShflXor:
      return args.empty() || varies(*args[0], inWarp);
    default:
      return std::any_of(args.begin(), args.end(), [&](const Expr *a) { return varies(*a, inWarp); });
    }
  }
  default:
    return std::any_of(e.operands.begin(), e.operands.end(), [&](const ExprPtr &o) { return o && varies(*o, inWarp); });
  }
}

bool Lowerer::assignedVarying(std::string_view name) const {
  bool found = false;
  if (role)
    forEachStmt(role->role->decl->body, [&](const Stmt &s) {
      if (found || s.kind != StmtKind::Assign)
        return;
      const auto &a = static_cast<const AssignStmt &>(s);
      for (const ExprPtr &t : a.targets)
        if (t && t->kind == ExprKind::Name && t->text == name && varies(*a.value))
          found = true;
    });
  return found;
}

namespace {

/// The C++ pointer (global) or u32 shared address of a single-element view.
std::string elementAddress(Lowerer &L, const Val &dst) {
  if (dst.kind == Val::GlobalView)
    return L.globalAddress(dst, "0");
  // a swizzled tile's element is where the swizzle put it (swizzled-element.test: it was read unswizzled)
  if (dst.type->swizzle)
    return "cake::rt::swizzle<" + std::to_string(dst.type->swizzle) + ">(" + L.sharedAddress(dst, {}) + ")";
  return L.sharedAddress(dst, {});
}

/// The 32-bit pattern of scalar \p v as stored in an element of type \p e.
std::string bits32(Elem e, const std::string &v) {
  return e == Elem::FP32 ? "__float_as_uint(float(" + v + "))" : "u32(" + v + ")";
}

} // namespace

std::optional<Val> storeScalarElement(Lowerer &L, const Expr &call, const Val &v, const Val &dst) {
  Elem e = *dst.type->elem;
  bool shared = dst.kind == Val::SharedView;
  if (keywordArg(call, "mask") || keywordArg(call, "clip") ||
      (shared && e != Elem::FP32 && e != Elem::I32 && e != Elem::U32) ||
      e == Elem::BF16 || e == Elem::FP16 || e == Elem::E4M3 || e == Elem::E5M2) {
    L.unsupported(call.range, std::string(opInfo(shared ? OpId::StShared : OpId::StGlobal).name) +
                                  " of a scalar into one element with options, of a narrow float type, or into shared "
                                  "memory of other than a 4-byte type");
    return std::nullopt;
  }
  std::string store = shared ? "cake::rt::st_shared_u32(" + elementAddress(L, dst) + ", " + bits32(e, v.cxx) + ");"
                             : "*" + elementAddress(L, dst) + " = " + v.cxx + ";";
  bool perThread = L.varies(*positionalArgs(call).back());
  if (perThread || !L.role || L.role->role->issue == IssueMode::Elect)
    L.w.line(store);
  else
    L.w.line("if (cake::rt::lane_id() == cake::rt::first_active_lane()) " + store);
  return Val{};
}

std::optional<Val> loadSharedScalar(Lowerer &L, const Expr &call, const Val &src) {
  Elem e = *src.type->elem;
  if (keywordArg(call, "like") || keywordArg(call, "axis") || (e != Elem::FP32 && e != Elem::I32 && e != Elem::U32)) {
    L.unsupported(call.range, "ld.shared of one element with options or of other than a 4-byte type");
    return std::nullopt;
  }
  std::string raw = "cake::rt::ld_shared_u32(" + elementAddress(L, src) + ")";
  std::string v = L.temp("lds");
  L.w.line("const " + std::string(cxxElem(e)) + " " + v + " = " +
           (e == Elem::FP32 ? "__uint_as_float(" + raw + ")" : std::string(cxxElem(e)) + "(" + raw + ")") + ";");
  return scalarVal(v);
}

namespace {

std::optional<Val> lowerStShared(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto v = L.value(*args[0]);
  auto dst = L.view(*args[1]);
  if (!v || !dst)
    return std::nullopt;
  bool element = std::all_of(dst->extent.begin(), dst->extent.end(), [](int64_t x) { return x == 1; });
  if (dst->kind == Val::SharedView && v->kind == Val::Frag && v->layout == Layout::WgmmaAcc)
    return storeAccTile(L, call, *v, *dst);
  if (v->kind == Val::Frag && v->layout == Layout::Thread)
    return storeThreadVector(L, call, *v, *dst);
  if (dst->kind != Val::SharedView || !element || v->kind != Val::Scalar) {
    L.unsupported(call.range, "st.shared other than a scalar into one element or a wgmma accumulator tile");
    return std::nullopt;
  }
  return storeScalarElement(L, call, *v, *dst);
}

} // namespace

void addScalarLowerings(OpLowerings &t) { t[OpId::StShared] = lowerStShared; }

} // namespace cake::lower
