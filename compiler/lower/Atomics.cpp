//===- Atomics.cpp - atomic.add/min/max/exch/cas into global memory -------===//
//
// Part of CAKE. Lowers the atomics of language.md 10.12 (the runtime's
// red/atom functions, cake_device.cuh):
//
//   - a scalar into one element (`atomic.add(1, counts[b, k])`): every
//     thread that executes it performs it (the `thread` issue contract; guard
//     with `elect.one()` for once per unit). As a statement it is a `red`;
//     used as a value, an `atom` that returns the old value.
//   - `aggregate = warp` (atomic.add of a constant into an i32/u32 element):
//     the active lanes of a warp that add into the same address are matched
//     (match.any on the address) and their lowest lane performs one atomic
//     of the group's total; as a value, each lane gets the old value it would
//     have seen had the group's lanes added one after another in lane order
//     (the leader's old value, shuffled, plus the constant times the number
//     of lower lanes in the group). A warp whose 32 rows fall in one cluster
//     makes one atomic instead of 32 on the same address.
//   - a warp's blocked vector into a 1-D row (`atomic.add(v, sums[b, k, :])`):
//     each element once, each lane for the chunks it holds. fp32 adds use the
//     widest `red.global.add.v4/.v2.f32` (sm_90+) that the chunk and the row's
//     proven alignment allow, else scalar reductions. Statements only.
//
// `scope` (cta, gpu, sys; default gpu) becomes the instruction's scope,
// `sem` must be `relaxed` (the default). fp32 min/max use the integer order
// of the bit patterns (exact for non-NaN values). Anything else, shared
// memory destinations included, is lower.unsupported.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

/// Whether \p call is a statement of the role being lowered (its value unused).
bool isStatement(Lowerer &L, const Expr &call) {
  bool found = false;
  if (L.role)
    forEachStmt(L.role->role->decl->body, [&](const Stmt &s) {
      if (s.kind == StmtKind::Expr && static_cast<const ExprStmt &>(s).expr.get() == &call)
        found = true;
    });
  return found;
}

/// The C++ scope argument of the `scope =` option, or nullopt after reporting.
std::optional<std::string> scopeOf(Lowerer &L, const Expr &call) {
  if (const Expr *sem = keywordArg(call, "sem"); sem && !(sem->kind == ExprKind::Name && sem->text == "relaxed")) {
    L.unsupported(sem->range, "an atomic with sem = " + L.printed(*sem) + " (only relaxed)");
    return std::nullopt;
  }
  const Expr *scope = keywordArg(call, "scope");
  std::string s = scope && scope->kind == ExprKind::Name ? scope->text : scope ? "" : "gpu";
  if (s == "cta")
    return std::string("cake::rt::Scope::Cta");
  if (s == "gpu")
    return std::string("cake::rt::Scope::Gpu");
  if (s == "sys")
    return std::string("cake::rt::Scope::Sys");
  L.unsupported(scope->range, "an atomic with scope = " + L.printed(*scope) + " (cta, gpu or sys)");
  return std::nullopt;
}

/// The PTX type suffix of an atomic on \p e ("f32", "s32", "u32"), or "".
std::string_view suffixOf(Elem e) {
  switch (e) {
  case Elem::FP32:
    return "f32";
  case Elem::I32:
    return "s32";
  case Elem::U32:
    return "u32";
  default:
    return "";
  }
}

/// `aggregate = warp`: one atomic per address among the warp's active lanes.
std::optional<Val> atomicAggregated(Lowerer &L, const Expr &call, const Val &dst, const std::string &scope,
                                    const std::string &value, bool statement) {
  Elem e = *dst.type->elem;
  std::string type(cxxElem(e)), g = L.temp("agg"), fn = std::string(statement ? "red" : "atom") + "_global_add_" +
                                                        std::string(suffixOf(e)) + "<" + scope + ">";
  L.w.line(type + " *const " + g + "_p = " + L.globalAddress(dst, "0") + ";");
  L.w.line("const u32 " + g + "_peers = __match_any_sync(__activemask(), reinterpret_cast<unsigned long long>(" + g +
           "_p));");
  L.w.line("const u32 " + g + "_leader = __ffs(" + g + "_peers) - 1;");
  std::string total = type + "(" + value + ") * " + type + "(__popc(" + g + "_peers))";
  if (statement) {
    L.w.line("if (cake::rt::lane_id() == " + g + "_leader) cake::rt::" + fn + "(" + g + "_p, " + total + ");");
    return Val{};
  }
  L.w.line(type + " " + g + "_base = 0;");
  L.w.line("if (cake::rt::lane_id() == " + g + "_leader) " + g + "_base = cake::rt::" + fn + "(" + g + "_p, " + total +
           ");");
  L.w.line("const " + type + " " + g + " = __shfl_sync(" + g + "_peers, " + g + "_base, " + g + "_leader) + " + type +
           "(" + value + ") * " + type + "(__popc(" + g + "_peers & ((1u << cake::rt::lane_id()) - 1u)));");
  return scalarVal(g);
}

/// A scalar into one element of a global view.
/// The operation's verb ("add" for atomic.add): the runtime's functions are
/// named after it (cake::rt::atom_global_add_f32, red_global_add_...).
std::string verbOf(OpId op) {
  std::string_view name = opInfo(op).name;
  return std::string(name.substr(name.find('.') + 1));
}

std::optional<Val> atomicScalar(Lowerer &L, const Expr &call, OpId op, const Val &dst,
                                const std::string &scope) {
  auto args = positionalArgs(call);
  bool cas = op == OpId::AtomicCas;
  Elem e = *dst.type->elem;
  std::string_view suffix = suffixOf(e);
  if (suffix.empty()) {
    L.unsupported(call.range, "an atomic on this element type (fp32, i32 or u32)");
    return std::nullopt;
  }
  std::optional<std::string> value = L.scalar(*args[cas ? 1 : 0]);
  std::optional<std::string> expected = cas ? L.scalar(*args[0]) : std::optional<std::string>("");
  if (!value || !expected)
    return std::nullopt;
  std::string type(cxxElem(e)), ptr = L.globalAddress(dst, "0");
  bool statement = isStatement(L, call);
  if (const Expr *agg = keywordArg(call, "aggregate")) {
    if (agg->kind != ExprKind::Name || (agg->text != "warp" && agg->text != "none")) {
      L.unsupported(agg->range, "an atomic with aggregate = " + L.printed(*agg) + " (warp or none)");
      return std::nullopt;
    }
    if (agg->text == "warp") {
      if (op != OpId::AtomicAdd || (e != Elem::I32 && e != Elem::U32) || !L.constant(*args[0])) {
        L.unsupported(call.range, "aggregate = warp other than an atomic.add of a constant into an i32 or u32 element");
        return std::nullopt;
      }
      return atomicAggregated(L, call, dst, scope, *value, statement);
    }
  }
  std::string tmpl = "<" + scope + ">";
  std::string text;
  if (op == OpId::AtomicExch || cas) {
    // 32-bit bit patterns: atom.exch.b32 / atom.cas.b32 (no red form)
    auto bits = [&](const std::string &v) {
      return e == Elem::FP32 ? "__float_as_uint(float(" + v + "))" : "u32(" + v + ")";
    };
    std::string call32 = "cake::rt::atom_global_" + verbOf(op) + "_b32" + tmpl + "(reinterpret_cast<u32 *>(" + ptr + "), " +
                         (cas ? bits(*expected) + ", " : "") + bits(*value) + ")";
    text = e == Elem::FP32 ? "__uint_as_float(" + call32 + ")" : type + "(" + call32 + ")";
  } else {
    std::string fn = std::string(statement ? "red" : "atom") + "_global_" + verbOf(op) + "_" + std::string(suffix);
    text = "cake::rt::" + fn + tmpl + "(" + ptr + ", " + type + "(" + *value + "))";
  }
  if (statement) {
    L.w.line((op == OpId::AtomicExch || cas ? "(void)" : "") + text + ";");
    return Val{};
  }
  std::string old = L.temp("old");
  L.w.line("const " + type + " " + old + " = " + text + ";");
  return scalarVal(old);
}

/// A warp's blocked vector into a 1-D global row, each element once.
std::optional<Val> atomicRow(Lowerer &L, const Expr &call, OpId op, const Val &dst,
                             const std::string &scope) {
  auto args = positionalArgs(call);
  std::vector<int64_t> shape = dst.viewShape();
  if (!L.role || L.role->role->issue != IssueMode::Warp || shape.size() != 1 || op == OpId::AtomicExch || op == OpId::AtomicCas) {
    L.unsupported(call.range, "a vector atomic other than add, min or max of a warp's row into a 1-D global row");
    return std::nullopt;
  }
  if (!isStatement(L, call)) {
    L.unsupported(call.range, "the old values of a vector atomic (use it as a statement)");
    return std::nullopt;
  }
  if (const Expr *agg = keywordArg(call, "aggregate"); agg && !(agg->kind == ExprKind::Name && agg->text == "none")) {
    L.unsupported(agg->range, "aggregate = warp of a vector atomic (each element is already applied once)");
    return std::nullopt;
  }
  // the value: a blocked vector as it is, or an elementwise expression over one
  std::optional<Val> v;
  const Expr *valueExpr = stripParens(args[0]);
  if (valueExpr->kind == ExprKind::Name)
    if (const Val *bound = L.lookup(valueExpr->text))
      v = *bound;
  if (!v)
    v = L.fragExpression(*valueExpr);
  if (!v || v->kind != Val::Frag || v->layout != Layout::Blocked || v->shape != shape || !v->chunk) {
    if (!L.failed)
      L.unsupported(args[0]->range, "an atomic value other than a warp's blocked row of the destination's length");
    return std::nullopt;
  }
  Elem e = *dst.type->elem;
  Elem have = v->cast.value_or(v->elem);
  if (have == Elem::BF16 || have == Elem::FP16)
    have = Elem::FP32; // 16-bit storage reads as fp32 (fragElement widens it)
  if (have != e || suffixOf(e).empty()) {
    L.unsupported(call.range, "a vector atomic whose value type differs from the row's, or on this type");
    return std::nullopt;
  }
  const int64_t perChunk = v->chunk, rounds = v->perThread / v->chunk;
  // the widest red.global.add.vN.f32 the chunk and the alignment allow
  int64_t vec = 1;
  if (op == OpId::AtomicAdd && e == Elem::FP32 && L.k.target != Target::SM80)
    for (int64_t w : {4, 2})
      if (perChunk % w == 0 && provenAlignment(dst, L) >= w * 4) {
        vec = w;
        break;
      }
  std::string tmpl = "<" + scope + ">", type(cxxElem(e));
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_k = 0; cake_k < " + std::to_string(rounds) + "; ++cake_k)");
  L.w.line(type + " *const cake_p = " +
           L.globalAddress(dst, "(cake_k * 32 + int(cake::rt::lane_id())) * " + std::to_string(perChunk)) + ";");
  for (int64_t j = 0; j < perChunk; j += vec) {
    std::string operands;
    for (int64_t t = 0; t < vec; ++t) {
      auto el = L.fragElement(*v, Layout::Blocked, "cake_k * " + std::to_string(perChunk) + " + " + std::to_string(j + t));
      if (!el) {
        L.unsupported(args[0]->range, "this atomic value");
        return std::nullopt;
      }
      operands += ", " + *el;
    }
    std::string fn = "red_global_" + verbOf(op) + (vec > 1 ? "_v" + std::to_string(vec) : "") + "_" + std::string(suffixOf(e));
    L.w.line("cake::rt::" + fn + tmpl + "(cake_p + " + std::to_string(j) + operands + ");");
  }
  L.w.close();
  return Val{};
}

std::optional<Val> lowerAtomic(Lowerer &L, const Expr &call) {
  OpId op = opIdOf(call, L.k);
  auto args = positionalArgs(call);
  auto dst = L.view(*args.back());
  if (!dst)
    return std::nullopt;
  if (dst->kind != Val::GlobalView) {
    L.unsupported(args.back()->range, "an atomic into other than global memory");
    return std::nullopt;
  }
  auto scope = scopeOf(L, call);
  if (!scope)
    return std::nullopt;
  bool element = std::all_of(dst->extent.begin(), dst->extent.end(), [](int64_t x) { return x == 1; });
  if (element)
    return atomicScalar(L, call, op, *dst, *scope);
  return atomicRow(L, call, op, *dst, *scope);
}

} // namespace

void addAtomicLowerings(OpLowerings &t) {
  for (OpId op : {OpId::AtomicAdd, OpId::AtomicCas, OpId::AtomicExch, OpId::AtomicMax, OpId::AtomicMin})
    t[op] = lowerAtomic;
}

} // namespace cake::lower
