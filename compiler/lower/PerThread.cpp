//===- PerThread.cpp - per(thread) register vectors -------------------------===//
//
// Part of CAKE. A `per(thread)` vector [n] (language.md 4.6, layout `thread`)
// is n registers of the executing thread: element e is array element e,
// whatever the unit. One comes from a `var ... per(thread)`, from a load of a
// 1-D view whose index varies between the lanes (`ld.shared(s.g[:,
// self.thread()])`: each thread its own column, one load per element), from
// tile.iota along one, and from elementwise math, scan.* and reduce.* over
// them (sequential, in the thread: no lane exchanges). A store of one into a
// 1-D view that varies alike writes each thread's own elements; one element
// (`gc[C - 1]`, `y[t]` under an unrolled loop) is a scalar (Statements.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

/// \p v moved \p offset (C++) along its one kept dimension.
Val movedAlong(const Val &v, const std::string &offset) {
  Val at = v;
  for (size_t d = 0; d < v.kept.size(); ++d)
    if (v.kept[d])
      at.origin[d] = "(" + v.origin[d] + " + " + offset + ")";
  return at;
}

/// The C++ of element \p e of 1-D view \p v: a global pointer, or a swizzled shared address.
std::string elementAt(Lowerer &L, const Val &v, const std::string &e) {
  if (v.kind == Val::GlobalView)
    return L.globalAddress(movedAlong(v, e), "0");
  return "cake::rt::swizzle<" + std::to_string(v.type->swizzle) + ">(" + L.sharedAddress(v, {e}) + ")";
}

/// Why 1-D view \p v cannot be a per-thread vector's memory, or "".
std::string threadViewProblem(const Val &v) {
  if ((v.kind != Val::GlobalView && v.kind != Val::SharedView) || v.viewShape().size() != 1)
    return "a 1-D global or shared view";
  Elem e = *v.type->elem;
  if (e != Elem::FP32 && e != Elem::I32 && e != Elem::BF16 && e != Elem::FP16)
    return "a view of fp32, i32, bf16 or fp16";
  return "";
}

std::optional<Val> lowerScan(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto x = L.value(*args[0]);
  if (!x)
    return std::nullopt;
  const Expr *axis = keywordArg(call, "axis"), *exclusiveArg = keywordArg(call, "exclusive");
  auto exclusive = exclusiveArg ? L.constant(*exclusiveArg) : std::optional<int64_t>(0);
  if (x->kind != Val::Frag || x->layout != Layout::Thread || (axis && L.constant(*axis).value_or(-1) != 0) ||
      !exclusive) {
    L.unsupported(call.range, std::string(calleeName(call)) +
                                  " other than along a per(thread) vector (axis = 0, exclusive a constant)");
    return std::nullopt;
  }
  const OpId op = calleeOp(call);
  const Elem e = x->cast.value_or(x->elem);
  const bool integer = e == Elem::I32;
  Val out = *x;
  out.cxx = L.temp("scan");
  out.elem = integer ? Elem::I32 : Elem::FP32;
  out.cast.reset();
  const std::string type = integer ? "int" : "float", n = std::to_string(x->perThread), run = out.cxx + "_run";
  const std::string init = op == OpId::ScanSum   ? (integer ? "0" : "0.f")
                           : op == OpId::ScanMin ? (integer ? "0x7fffffff" : "__int_as_float(0x7f800000)")
                                                 : (integer ? "(-0x7fffffff - 1)" : "-__int_as_float(0x7f800000)");
  auto element = L.fragElement(*x, Layout::Thread, "cake_e");
  if (!element)
    return std::nullopt;
  const std::string next = op == OpId::ScanSum ? run + " + " + *element
                           : std::string(integer ? (op == OpId::ScanMin ? "min(" : "max(")
                                                 : (op == OpId::ScanMin ? "fminf(" : "fmaxf(")) +
                                 run + ", " + *element + ")";
  L.w.line(type + " " + out.cxx + "[" + n + "];");
  L.w.line(type + " " + run + " = " + init + ";");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_e = 0; cake_e < " + n + "; ++cake_e)");
  if (*exclusive) {
    L.w.line(out.cxx + "[cake_e] = " + run + ";");
    L.w.line(run + " = " + next + ";");
  } else {
    L.w.line(run + " = " + next + ";");
    L.w.line(out.cxx + "[cake_e] = " + run + ";");
  }
  L.w.close();
  return out;
}

} // namespace

bool variesPerLane(const Lowerer &L, const Expr &view) {
  const Expr *x = stripParens(&view);
  if (x->kind != ExprKind::Index)
    return false;
  for (size_t i = 1; i < x->operands.size(); ++i)
    if (const Expr *ix = x->operands[i].get(); ix && ix->kind != ExprKind::Slice && L.varies(*ix, true))
      return true;
  return false;
}

std::optional<Val> loadThreadVector(Lowerer &L, const Expr &call, const Val &src) {
  std::string why = threadViewProblem(src);
  if (why.empty() && (keywordArg(call, "mask") || keywordArg(call, "clip") || keywordArg(call, "like")))
    why = "without like, mask or clip";
  if (!why.empty()) {
    L.unsupported(call.range, std::string(calleeName(call)) + " of a per-thread view other than " + why);
    return std::nullopt;
  }
  Val f;
  f.kind = Val::Frag;
  f.layout = Layout::Thread;
  f.shape = src.viewShape();
  f.perThread = f.shape[0];
  f.elem = *src.type->elem;
  f.cxx = L.temp("mine");
  const int64_t bytes = elemBytes(f.elem);
  const std::string n = std::to_string(f.perThread);
  L.w.line(std::string(f.elem == Elem::FP32 ? "float " : f.elem == Elem::I32 ? "int " : "u16 ") + f.cxx + "[" + n +
           "];");
  L.w.line("#pragma unroll");
  if (src.kind == Val::GlobalView)
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) " + f.cxx + "[cake_e] = *" +
             elementAt(L, src, "cake_e") + ";");
  else
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) cake::rt::ld_shared_bytes<" +
             std::to_string(bytes) + ">(&" + f.cxx + "[cake_e], " + elementAt(L, src, "cake_e") + ");");
  return f;
}

std::optional<Val> storeThreadVector(Lowerer &L, const Expr &call, const Val &v, const Val &dst) {
  const Elem out = v.cast.value_or(v.elem);
  std::string why = threadViewProblem(dst);
  if (why.empty() && dst.viewShape() != v.shape)
    why = "into a view of the vector's length";
  if (why.empty() && !variesPerLane(L, *positionalArgs(call)[1]))
    why = "into a view that differs between the lanes (each thread stores its own elements)";
  if (why.empty() && out != *dst.type->elem)
    why = "into a view of the value's element type (math.cast it)";
  if (why.empty() && (keywordArg(call, "mask") || keywordArg(call, "clip")))
    why = "without mask or clip";
  if (!why.empty()) {
    L.unsupported(call.range, std::string(calleeName(call)) + " of a per(thread) vector other than " + why);
    return std::nullopt;
  }
  auto element = L.fragElement(v, Layout::Thread, "cake_e");
  if (!element)
    return std::nullopt;
  // the element's bits in the destination's type
  std::string bits;
  if (out == Elem::BF16 || out == Elem::FP16)
    bits = std::string("u16(") + (out == Elem::BF16 ? "cake::rt::pack_bf16x2(" : "cake::rt::pack_f16x2(") + *element +
           ", 0.f) & 0xffffu)";
  const std::string n = std::to_string(v.perThread), at = elementAt(L, dst, "cake_e");
  L.w.line("#pragma unroll");
  if (dst.kind == Val::GlobalView)
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) *" + at + " = " + (bits.empty() ? *element : bits) +
             ";");
  else if (!bits.empty())
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) cake::rt::st_shared_u16(" + at + ", " + bits + ");");
  else
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) cake::rt::st_shared_u32(" + at + ", " +
             (out == Elem::FP32 ? "__float_as_uint(" + *element + ")" : "u32(" + *element + ")") + ");");
  return Val{};
}

void addPerThreadLowerings(OpLowerings &t) {
  t[OpId::ScanSum] = lowerScan;
  t[OpId::ScanMin] = lowerScan;
  t[OpId::ScanMax] = lowerScan;
}

} // namespace cake::lower
