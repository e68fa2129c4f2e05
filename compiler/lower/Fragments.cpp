//===- Fragments.cpp - Elementwise math, rows/cols vectors, reductions ----===//
//
// Part of CAKE. Register tensors derived from a wgmma accumulator tile
// [64, N] of a warpgroup (language.md 4.6):
//   wgmma.acc  N / 2 elements per thread: element i is row 16w + l/4 + 8h,
//              column 8c + 2(l%4) + e, with c = i / 4, h = i % 4 / 2, e = i % 2;
//   rows       2 elements per thread (h = 0, 1): the thread's two rows;
//   cols       N / 4 elements per thread (2c + e): the thread's columns;
// A warp's mma.sync accumulator [16, N] (mma.acc) holds the same elements as
// one warp's slice of wgmma.acc (element i at [0][i / 4][i % 4]), so rows and
// cols vectors derive from it alike (Val::warpTile), counted from the warp's
// own 16 rows;
// and a warp's `blocked` vector (ld.global of a row): consecutive chunks of
// min(16 B, bytes / 32) per lane. Elementwise expressions are evaluated per
// element in the layout of their largest operand; rows and cols operands
// broadcast into a wgmma.acc context by index arithmetic, never by moving
// data. Reductions along axis 1 of a wgmma.acc tile reduce per thread, then
// over the quad with two shfl.xor steps (ties to the smaller index); a
// blocked vector reduces over the warp.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

bool isComparison(Tok op) {
  return op == Tok::Less || op == Tok::LessEq || op == Tok::Greater || op == Tok::GreaterEq ||
         op == Tok::EqEq || op == Tok::NotEq;
}

std::string cxxType(Elem e) {
  switch (e) {
  case Elem::I32:
    return "int";
  case Elem::Bool:
    return "bool";
  case Elem::BF16:
  case Elem::FP16:
    return "u16";
  default:
    return "float";
  }
}

} // namespace

int64_t fragCount(const Val &f) {
  switch (f.layout) {
  case Layout::WgmmaAcc:
    return f.shape[1] / 2;
  case Layout::MmaAcc:
    return f.shape[0] * f.shape[1] / 32;
  case Layout::Rows:
    return f.topk ? (f.laneList ? 1 : 2) * f.topk : f.chains ? 2 * f.chains : 2;
  case Layout::Cols:
    return f.shape[0] / 4;
  case Layout::Blocked:
  case Layout::Thread:
    return f.perThread;
  default:
    return 0;
  }
}

/// Element \p idx (C++) of fragment \p f read in a context of layout \p ctx.
std::optional<std::string> Lowerer::fragElement(const Val &f, Layout ctx, const std::string &idx) {
  std::string at;
  const bool accCtx = ctx == Layout::WgmmaAcc || ctx == Layout::MmaAcc;
  if (f.layout == ctx)
    at = f.fragOffset == "0" ? idx : f.fragOffset + " + " + idx;
  else if (f.layout == Layout::Rows && accCtx)
    at = "(" + idx + ") % 4 / 2";
  else if (f.layout == Layout::Cols && accCtx)
    at = "(" + idx + ") / 4 * 2 + (" + idx + ") % 2";
  else
    return std::nullopt;
  std::string v = f.cxx + "[" + at + "]";
  if (f.layout == Layout::MmaAcc) { // [R / 16][N / 8][4], element i of the flat order
    const std::string half = std::to_string(f.shape[1] / 2);
    v = f.cxx + "[(" + at + ") / " + half + "][(" + at + ") % " + half + " / 4][(" + at + ") % 4]";
  }
  if (f.elem == Elem::BF16)
    v = "cake::rt::bf16_to_f32(" + v + ")";
  else if (f.elem == Elem::FP16)
    v = "cake::rt::f16_to_f32(" + v + ")";
  // a pending math.cast (`math.cast(m, bf16)` read elementwise): the value
  // rounded to the type, as a float, or converted to an integer
  if (f.cast && *f.cast != f.elem) {
    if (*f.cast == Elem::BF16)
      v = "cake::rt::round_bf16(" + v + ")";
    else if (*f.cast == Elem::FP16)
      v = "cake::rt::round_f16(" + v + ")";
    else if (*f.cast == Elem::I32 || *f.cast == Elem::FP32)
      v = cxxType(*f.cast) + "(" + v + ")";
    else
      return std::nullopt;
  }
  return v;
}

/// The element type of an elementwise expression.
Elem Lowerer::elemType(const Expr &e) {
  const Expr *x = stripParens(&e);
  switch (x->kind) {
  case ExprKind::Number:
    return x->text.find_first_of(".eE") != std::string::npos && !x->text.starts_with("0x") ? Elem::FP32 : Elem::I32;
  case ExprKind::Bool:
    return Elem::Bool;
  case ExprKind::Name: {
    if (x->text == "inf")
      return Elem::FP32;
    const Val *v = lookup(x->text);
    if (v && v->kind == Val::Frag) {
      Elem e = v->cast.value_or(v->elem);
      return e == Elem::BF16 || e == Elem::FP16 ? Elem::FP32 : e;
    }
    return Elem::I32;
  }
  case ExprKind::Unary:
    return x->op == Tok::Bang ? Elem::Bool : elemType(*x->operands[0]);
  case ExprKind::Binary: {
    if (isComparison(x->op) || x->op == Tok::AmpAmp || x->op == Tok::PipePipe)
      return Elem::Bool;
    Elem a = elemType(*x->operands[0]), b = elemType(*x->operands[1]);
    return a == Elem::FP32 || b == Elem::FP32 ? Elem::FP32 : a;
  }
  case ExprKind::Index: {
    if (auto v = value(*x); v && v->kind == Val::Frag)
      return v->elem;
    return Elem::FP32;
  }
  case ExprKind::Call: {
    OpId op = calleeOp(*x);
    auto args = positionalArgs(*x);
    if (op == OpId::MathSelect && args.size() == 3)
      return elemType(*args[1]);
    if (op == OpId::MathCast && args.size() == 2 && args[1]->kind == ExprKind::Name)
      return parseElem(args[1]->text).value_or(Elem::FP32);
    if ((op == OpId::MathAbs || op == OpId::MathFma) && !args.empty() &&
        std::all_of(args.begin(), args.end(), [&](const Expr *a) { return elemType(*a) == Elem::I32; }))
      return Elem::I32; // integer abs and fma (Math.cpp)
    return Elem::FP32;
  }
  default:
    return Elem::FP32;
  }
}

/// The C++ expression of element \p idx of \p e in layout \p ctx.
std::optional<std::string> Lowerer::elementwise(const Expr &e, Layout ctx, const std::string &idx) {
  const Expr *x = stripParens(&e);
  switch (x->kind) {
  case ExprKind::Number:
    return elemType(*x) == Elem::FP32 ? x->text + (x->text.find_first_of("eE") == std::string::npos ? "f" : "")
                                      : x->text;
  case ExprKind::Bool:
    return x->text;
  case ExprKind::Name: {
    if (x->text == "inf")
      return std::string("__int_as_float(0x7f800000)");
    const Val *v = lookup(x->text);
    if (v && v->kind == Val::Frag) {
      auto el = fragElement(*v, ctx, idx);
      if (!el)
        unsupported(x->range, "mixing the layouts of '" + x->text + "' in one expression");
      return el;
    }
    return scalar(*x);
  }
  case ExprKind::Index: {
    auto v = value(*x);
    if (!v)
      return std::nullopt;
    if (v->kind == Val::Frag) {
      auto el = fragElement(*v, ctx, idx);
      if (!el)
        unsupported(x->range, "mixing layouts in one expression");
      return el;
    }
    return scalar(*x);
  }
  case ExprKind::Unary: {
    auto a = elementwise(*x->operands[0], ctx, idx);
    if (!a)
      return std::nullopt;
    return std::string(tokenSpelling(x->op)) + "(" + *a + ")";
  }
  case ExprKind::Binary: {
    if (x->op == Tok::Percent)
      if (auto c = unrolledModulo(*x))
        return std::to_string(*c);
    auto a = elementwise(*x->operands[0], ctx, idx), b = elementwise(*x->operands[1], ctx, idx);
    if (!a || !b)
      return std::nullopt;
    return "(" + *a + " " + std::string(tokenSpelling(x->op)) + " " + *b + ")";
  }
  case ExprKind::Call: {
    if (auto m = materialized.find(x); m != materialized.end())
      return fragElement(m->second, ctx, idx);
    OpId op = calleeOp(*x);
    auto args = positionalArgs(*x);
    if (isElementwiseMath(op)) {
      std::vector<std::string> els;
      for (const Expr *a : args) {
        auto el = elementwise(*a, ctx, idx);
        if (!el)
          return std::nullopt;
        els.push_back(*el);
      }
      return mathExpression(*this, *x, els);
    }
    if (op == OpId::MathCast && args.size() == 2) {
      auto a = elementwise(*args[0], ctx, idx);
      if (!a)
        return std::nullopt;
      Elem to = elemType(*x);
      if (to == Elem::BF16 || to == Elem::FP16) // rounded to the type, still a float
        return std::string(to == Elem::BF16 ? "cake::rt::round_bf16(" : "cake::rt::round_f16(") + *a + ")";
      if (to != Elem::FP32 && to != Elem::I32) {
        unsupported(x->range, "an elementwise cast to this type");
        return std::nullopt;
      }
      return cxxType(to) + "(" + *a + ")";
    }
    if (auto m = materialized.find(x); m != materialized.end())
      return fragElement(m->second, ctx, idx);
    return scalar(*x);
  }
  default:
    return scalar(*x);
  }
}

/// The fragments an expression reads, for its context layout.
static void collectFrags(Lowerer &L, const Expr &e, std::vector<Val> &out) {
  const Expr *x = stripParens(&e);
  if (x->kind == ExprKind::Name) {
    if (const Val *v = L.lookup(x->text); v && v->kind == Val::Frag)
      out.push_back(*v);
    return;
  }
  if (x->kind == ExprKind::Index) {
    if (const Expr *b = stripParens(x->operand(0)); b && b->kind == ExprKind::Name)
      if (const Val *v = L.lookup(b->text); v && v->kind == Val::Frag) {
        out.push_back(*v);
        return;
      }
    return;
  }
  if (x->kind == ExprKind::Call) {
    if (auto m = L.materialized.find(x); m != L.materialized.end()) {
      out.push_back(m->second);
      return;
    }
    auto args = positionalArgs(*x);
    OpId op = calleeOp(*x);
    if (op == OpId::MathCast || isElementwiseMath(op))
      for (const Expr *a : args)
        collectFrags(L, *a, out);
    return;
  }
  for (const ExprPtr &c : x->operands)
    if (c)
      collectFrags(L, *c, out);
}

/// The widest layout among \p frags (wgmma.acc over cols over rows).
static std::optional<Val> contextOf(const std::vector<Val> &frags) {
  std::optional<Val> best;
  auto rank = [](Layout l) {
    return l == Layout::WgmmaAcc || l == Layout::MmaAcc                          ? 3
           : l == Layout::Cols || l == Layout::Blocked || l == Layout::Thread ? 2
                                                                               : 1;
  };
  for (const Val &f : frags)
    if (!best || rank(f.layout) > rank(best->layout))
      best = f;
  return best;
}

/// Whether the blocked vectors in \p frags share one distribution (a warp's
/// row of `chunk` elements per lane chunk): a bf16 and an fp32 row of 256
/// elements are laid out differently, and combining them elementwise would
/// pair different elements. `ld.global(..., like = v)` loads in v's layout.
bool Lowerer::sameBlockedDistribution(SourceRange at, const std::vector<Val> &frags) {
  const Val *first = nullptr;
  for (const Val &f : frags) {
    if (f.layout != Layout::Blocked)
      continue;
    if (!first) {
      first = &f;
      continue;
    }
    if (f.chunk != first->chunk || f.shape != first->shape || f.perThread != first->perThread) {
      unsupported(at, "combining blocked vectors of different distributions (load one with `like =` the other)");
      return false;
    }
  }
  return true;
}

std::optional<Val> Lowerer::fragExpression(const Expr &e) {
  std::vector<Val> frags;
  collectFrags(*this, e, frags);
  auto ctx = contextOf(frags);
  if (!ctx)
    return std::nullopt;
  // a rows and a cols vector of a warpgroup's tile: their outer broadcast, the [64, N] tile (`si <= ti`)
  if (ctx->layout == Layout::Cols)
    for (const Val &f : frags)
      if (f.layout == Layout::Rows) {
        if (f.warpTile || ctx->warpTile || f.chains || f.topk) {
          unsupported(e.range, "an expression mixing a rows and a cols vector other than of a warpgroup's tile");
          return std::nullopt;
        }
        ctx->layout = Layout::WgmmaAcc;
        ctx->shape = {f.shape[0], ctx->shape[0]};
        break;
      }
  if (!sameBlockedDistribution(e.range, frags))
    return std::nullopt;
  Val out = *ctx;
  out.cxx = temp("v");
  out.fragOffset = "0";
  out.cast.reset();
  out.elem = elemType(e);
  if (out.elem == Elem::BF16 || out.elem == Elem::FP16) {
    unsupported(e.range, "a 16-bit register tensor computed elementwise (cast it where it is stored)");
    return std::nullopt;
  }
  int64_t n = fragCount(out);
  w.line(cxxType(out.elem) + " " + out.cxx + "[" + std::to_string(n) + "];");
  w.line("#pragma unroll");
  w.open("for (int cake_e = 0; cake_e < " + std::to_string(n) + "; ++cake_e)");
  auto v = elementwise(e, out.layout, "cake_e");
  if (!v)
    return std::nullopt;
  w.line(out.cxx + "[cake_e] = " + *v + ";");
  w.close();
  return out;
}

/// Whether a call may yield a register tensor, by its syntax: not ld.global of one element (an index without a
/// slice) nor a cast of one, which materializeCalls would otherwise load once more, for nothing. Asked for the
/// operands of elementwise math only: a binary let still loads such an element twice (`lo = ld.global(starts[b,
/// k]) + i * 128` in update_sorted.cake; ptxas may merge the loads), which changes only with an A/B on the device
/// (that code is measured: tests/golden/measured).
static bool mayYieldRow(const Expr &call) {
  const OpId op = calleeOp(call);
  const auto args = positionalArgs(call);
  if (args.empty())
    return false;
  const Expr *a = stripParens(args[0]);
  if (op == OpId::MathCast)
    return a->kind != ExprKind::Call || mayYieldRow(*a);
  if (op != OpId::LdGlobal || a->kind != ExprKind::Index)
    return true;
  for (size_t i = 1; i < a->operands.size(); ++i)
    if (a->operands[i] && a->operands[i]->kind == ExprKind::Slice)
      return true;
  return false;
}

void Lowerer::materializeCalls(const Expr &e) {
  const Expr *x = stripParens(&e);
  if (x->kind == ExprKind::Call) {
    if (isElementwiseMath(calleeOp(*x))) { // the rows it reads: math.exp(ld.global(x[r, :]))
      for (const Expr *a : positionalArgs(*x))
        if (const Expr *c = stripParens(a); c->kind != ExprKind::Call || mayYieldRow(*c))
          materializeCalls(*a);
      return;
    }
    std::vector<Val> inside;
    collectFrags(*this, *x, inside);
    // a call over no register tensor that yields one (ld.global of a row, a cast of it): evaluate it once
    if (inside.empty() && !materialized.count(x)) {
      OpId op = calleeOp(*x);
      if (op == OpId::LdGlobal || op == OpId::MathCast || op == OpId::TileIota || op == OpId::TileExpand ||
          (op == OpId::LdShared && keywordArg(*x, "like")))
        if (auto v = value(*x); v && v->kind == Val::Frag)
          materialized[x] = *v;
    }
    return;
  }
  if (x->kind == ExprKind::Binary || x->kind == ExprKind::Unary)
    for (const ExprPtr &c : x->operands)
      if (c)
        materializeCalls(*c);
}

/// Assigns \p e elementwise to fragment \p target (`best = math.select(...)`, `best = inf`).
bool Lowerer::fragAssign(const Val &target, const Expr &e) {
  int64_t n = fragCount(target);
  if (!n)
    return false;
  // the register tensors its calls yield (`u = ld.shared(s.up, like = u)`, a tile.iota or tile.expand),
  // evaluated ahead; other calls keep their per-element form (a scalar load is not loaded twice)
  std::function<bool(const Expr &)> tileCall = [&](const Expr &x) {
    OpId op = x.kind == ExprKind::Call ? calleeOp(x) : OpId::None;
    if (op == OpId::TileIota || op == OpId::TileExpand ||
        ((op == OpId::LdShared || op == OpId::LdGlobal) && keywordArg(x, "like")))
      return true;
    return std::any_of(x.operands.begin(), x.operands.end(), [&](const ExprPtr &c) { return c && tileCall(*c); });
  };
  const bool tileCalls = tileCall(e);
  auto outer = materialized;
  if (tileCalls)
    materializeCalls(e);
  struct Restore {
    std::map<const Expr *, Val> &to, from;
    ~Restore() { to = std::move(from); }
  } restore{materialized, std::move(outer)};
  if (target.layout == Layout::Blocked) {
    std::vector<Val> frags{target};
    collectFrags(*this, e, frags);
    if (!sameBlockedDistribution(e.range, frags))
      return false;
  }
  w.line("#pragma unroll");
  w.open("for (int cake_e = 0; cake_e < " + std::to_string(n) + "; ++cake_e)");
  auto v = elementwise(e, target.layout, "cake_e");
  if (v)
    w.line(target.cxx + "[cake_e] = " + *v + ";");
  w.close();
  if (target.hasTopkThreshold())
    w.line(target.topkThreshold() + "[0] = " + target.topkThreshold() + "[1] = __int_as_float(0x7f800000);");
  return bool(v);
}

//===-- Operations on fragments ---------------------------------------------------===//

namespace {

/// ld.shared of a 1-D row of a shared tile (swizzled or not) in a warp, or in each warp of a warpgroup (the
/// row its own): the blocked layout of ld.global's rows, lane l holding chunks l, l + 32, ... of
/// min(16 B, row / 32), one shared load each (a chunk never crosses a 16-byte swizzle unit). The row's
/// first column must be a constant multiple of the chunk.
std::optional<Val> loadSharedRow(Lowerer &L, const Expr &call, const Val &src) {
  const Type &t = *src.type;
  const int64_t extent = src.viewShape()[0], eb = elemBytes(*t.elem), bytes = extent * eb;
  const int64_t chunk = std::min<int64_t>(16, bytes / 32), perChunk = chunk / eb;
  const bool lastKept = src.kept.back();
  std::optional<int64_t> col;
  if (!src.origin.back().empty() && std::all_of(src.origin.back().begin(), src.origin.back().end(), ::isdigit))
    col = std::stoll(src.origin.back());
  const int64_t pitch = t.swizzle ? t.swizzle : t.dims.back().value.value_or(0) * eb;
  if (!L.role || (L.role->role->issue != IssueMode::Warp && L.role->role->issue != IssueMode::Warpgroup) ||
      !lastKept || chunk < 2 || bytes % (32 * chunk) || !col || (*col * eb) % chunk || pitch % chunk) {
    L.unsupported(call.range, "ld.shared of a row other than whole 2- to 16-byte chunks per lane of a warp, "
                              "from a constant column that is a multiple of the chunk");
    return std::nullopt;
  }
  // the row is the warp's: an index that differs between its lanes would name 32 rows
  const Expr *view = stripParens(positionalArgs(call)[0]);
  if (view->kind == ExprKind::Index)
    for (size_t i = 1; i < view->operands.size(); ++i)
      if (view->operands[i]->kind != ExprKind::Slice && L.varies(*view->operands[i], true)) {
        L.unsupported(view->operands[i]->range, "ld.shared of a row whose index differs between the lanes of a "
                                                "warp (each warp reads one row: index it by self.warp(), not "
                                                "self.lane() or self.thread())");
        return std::nullopt;
      }
  Val f;
  f.kind = Val::Frag;
  f.layout = Layout::Blocked;
  f.shape = {extent};
  f.elem = *t.elem;
  f.perThread = extent / 32;
  f.chunk = perChunk;
  f.cxx = L.temp("row");
  const std::string type = cxxType(f.elem), pc = std::to_string(perChunk);
  L.w.line(type + " " + f.cxx + "[" + std::to_string(f.perThread) + "];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_k = 0; cake_k < " + std::to_string(f.perThread / perChunk) + "; ++cake_k)");
  L.w.line("cake::rt::ld_shared_bytes<" + std::to_string(chunk) + ">(&" + f.cxx + "[cake_k * " + pc +
           "], cake::rt::swizzle<" + std::to_string(t.swizzle) + ">(" +
           L.sharedAddress(src, {"(cake_k * 32 + int(cake::rt::lane_id())) * " + pc}) + "));");
  L.w.close();
  return f;
}

/// ld.shared(view, like = acc, axis = a): a rows or cols vector of a 1-D fp32 shared view.
std::optional<Val> lowerLdShared(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto src = L.view(*args[0]);
  if (src && src->kind == Val::SharedView &&
      std::all_of(src->extent.begin(), src->extent.end(), [](int64_t e) { return e == 1; }))
    return loadSharedScalar(L, call, *src);
  const Expr *like = keywordArg(call, "like"), *axis = keywordArg(call, "axis");
  // a column whose index varies per lane (`s.g[:, self.thread()]`): each thread's own
  if (src && src->kind == Val::SharedView && !like && !axis && src->viewShape().size() == 1 && !src->kept.back() &&
      variesPerLane(L, *args[0]))
    return loadThreadVector(L, call, *src);
  if (src && src->kind == Val::SharedView && !like && !axis && src->viewShape().size() == 1 && src->kept.back())
    return loadSharedRow(L, call, *src);
  if (!src)
    return std::nullopt;
  auto pattern = like ? L.value(*like) : std::nullopt;
  if (src && pattern && pattern->kind == Val::Frag && pattern->layout == Layout::WgmmaAcc && !axis)
    return loadAccTile(L, call, *src, *pattern);
  auto ax = axis ? L.constant(*axis) : std::nullopt;
  const bool warpTile = pattern && pattern->layout == Layout::MmaAcc && pattern->shape[0] == 16;
  if (!src || src->kind != Val::SharedView || src->viewShape().size() != 1 || *src->type->elem != Elem::FP32 ||
      !pattern || pattern->kind != Val::Frag || (pattern->layout != Layout::WgmmaAcc && !warpTile) || !ax ||
      *ax != 1 || src->viewShape()[0] != pattern->shape[1]) {
    L.unsupported(call.range, "ld.shared other than an fp32 column vector like a wgmma accumulator or a warp's "
                              "[16, N] mma.sync accumulator (axis = 1)");
    return std::nullopt;
  }
  Val f;
  f.kind = Val::Frag;
  f.warpTile = warpTile;
  f.layout = Layout::Cols;
  f.shape = {pattern->shape[1]};
  f.elem = Elem::FP32;
  f.cxx = L.temp("cols");
  int64_t n = pattern->shape[1] / 4;
  L.w.line("float " + f.cxx + "[" + std::to_string(n) + "];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_c = 0; cake_c < " + std::to_string(n / 2) + "; ++cake_c)");
  // a pair of columns never crosses a 16-byte swizzle unit (its first column is even)
  std::string at = L.sharedAddress(*src, {"cake_c * 8 + int(cake::rt::lane_id()) % 4 * 2"});
  if (src->type->swizzle)
    at = "cake::rt::swizzle<" + std::to_string(src->type->swizzle) + ">(" + at + ")";
  L.w.line("const float2 cake_p = cake::rt::ld_shared_f32x2(" + at + ");");
  L.w.line(f.cxx + "[2 * cake_c] = cake_p.x; " + f.cxx + "[2 * cake_c + 1] = cake_p.y;");
  L.w.close();
  return f;
}

/// ld.global of one element: a scalar (4- or 8-byte types; 16-bit values are
/// storage, not scalars).
std::optional<Val> loadGlobalScalar(Lowerer &L, const Expr &call, const Val &src) {
  Elem e = *src.type->elem;
  if (keywordArg(call, "like") || keywordArg(call, "axis") || keywordArg(call, "mask") || keywordArg(call, "clip") ||
      (e != Elem::FP32 && e != Elem::I32 && e != Elem::U32 && e != Elem::I64)) {
    L.unsupported(call.range, "ld.global of one element with options or of a 1- or 2-byte type");
    return std::nullopt;
  }
  std::string v = L.temp("ld");
  L.w.line("const " + std::string(cxxElem(e)) + " " + v + " = *" + L.globalAddress(src, "0") + ";");
  return scalarVal(v);
}

/// ld.global(view, like = acc, axis = 0, clip = c): a rows vector of an MMA
/// tile (a warpgroup's wgmma [64, N] or a warp's mma.sync [16, N]) from a 1-D
/// fp32 or i32 global view of its rows, or its first row's element (`qn[r0]`):
/// each thread loads its two rows
/// (clipped to the view's dimension with `clip = true`, 0 beyond it).
std::optional<Val> loadGlobalRows(Lowerer &L, const Expr &call, const std::optional<Val> &src, const Val &like) {
  const bool warpTile = like.layout == Layout::MmaAcc;
  const int64_t rows = warpTile ? 16 : 64;
  auto ax = L.constant(*keywordArg(call, "axis"));
  // the view of the tile's rows, or its first element
  const bool first = src && std::all_of(src->extent.begin(), src->extent.end(), [](int64_t e) { return e == 1; });
  // a 1-D view of the rows, or the first row's element of a column of a 2-D tensor (`tail[r0, c]`)
  if (!src || src->kind != Val::GlobalView || (src->origin.size() != 1 && !(first && src->origin.size() == 2)) ||
      (!first && src->viewShape() != std::vector<int64_t>{rows}) || !ax || *ax != 0 ||
      (*src->type->elem != Elem::FP32 && *src->type->elem != Elem::I32) || keywordArg(call, "mask")) {
    L.unsupported(call.range, "ld.global like an MMA tile other than a 1-D fp32 or i32 view of its " +
                                  std::to_string(rows) + " rows or a column's first (axis = 0)");
    return std::nullopt;
  }
  bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  Val f;
  f.kind = Val::Frag;
  f.layout = Layout::Rows;
  f.warpTile = warpTile;
  f.shape = {rows};
  f.elem = *src->type->elem;
  f.cxx = L.temp("rows");
  std::string type = f.elem == Elem::I32 ? "int" : "float";
  L.w.line(type + " " + f.cxx + "[2];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line(std::string("const int cake_r = ") + (warpTile ? "" : "cake_role_warp % 4 * 16 + ") +
           "int(cake::rt::lane_id()) / 4 + cake_h * 8;");
  Val at = *src; // row cake_r of the tile: dimension 0 advances
  at.origin[0] = "(" + src->origin[0] + " + cake_r)";
  std::string load = "*" + L.globalAddress(at, "0");
  if (clip)
    load = "(" + at.origin[0] + " < " + L.dimCxx(src->type->dims[0]) + " ? " + load + " : " + type + "(0))";
  L.w.line(f.cxx + "[cake_h] = " + load + ";");
  L.w.close();
  return f;
}

/// ld.global of a 1-D row in a warp: the blocked layout, or with
/// `like = v` (a blocked vector of the same length) v's distribution.
std::optional<Val> lowerLdGlobal(Lowerer &L, const Expr &call) {
  auto src = L.view(*positionalArgs(call)[0]);
  const Expr *likeArg = keywordArg(call, "like");
  std::optional<Val> like = likeArg ? L.value(*likeArg) : std::nullopt;
  if (like && like->kind == Val::Frag && keywordArg(call, "axis") &&
      (like->layout == Layout::WgmmaAcc || (like->layout == Layout::MmaAcc && like->shape[0] == 16)))
    return loadGlobalRows(L, call, src, *like);
  if (src && like && like->kind == Val::Frag && like->layout == Layout::WgmmaAcc && !keywordArg(call, "axis"))
    return loadAccTile(L, call, *src, *like);
  if (src && src->kind == Val::GlobalView && !src->viewShape().empty() &&
      std::all_of(src->extent.begin(), src->extent.end(), [](int64_t e) { return e == 1; }))
    return loadGlobalScalar(L, call, *src);
  if (!likeArg && src && src->kind == Val::GlobalView && src->viewShape().size() == 1 && !src->kept.back() &&
      variesPerLane(L, *positionalArgs(call)[0]))
    return loadThreadVector(L, call, *src);
  if (likeArg && (!like || like->kind != Val::Frag || like->layout != Layout::Blocked || keywordArg(call, "axis"))) {
    L.unsupported(call.range, "ld.global like a register tensor other than a warp's blocked row");
    return std::nullopt;
  }
  if (!src || src->kind != Val::GlobalView || src->viewShape().size() != 1 || keywordArg(call, "mask") || !L.role ||
      L.role->role->issue != IssueMode::Warp) {
    L.unsupported(call.range, "ld.global other than a whole 1-D row into a warp");
    return std::nullopt;
  }
  const bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  int64_t extent = src->viewShape()[0], eb = elemBytes(*src->type->elem), bytes = extent * eb;
  int64_t chunk = like ? like->chunk * eb : std::min<int64_t>(16, bytes / 32);
  if (like && like->shape != std::vector<int64_t>{extent}) {
    L.unsupported(call.range, "ld.global like a blocked vector of another length");
    return std::nullopt;
  }
  if (chunk < 2 || bytes % (32 * chunk) || (chunk != 2 && chunk != 4 && chunk != 8 && chunk != 16)) {
    L.unsupported(call.range, "ld.global of a row that is not a whole number of 2- to 16-byte chunks per lane");
    return std::nullopt;
  }
  if (provenAlignment(*src, L) < chunk) {
    L.unsupported(call.range, "ld.global of a row whose " + std::to_string(chunk) +
                                  "-byte chunks are not provably aligned (say align(16) on the parameter)");
    return std::nullopt;
  }
  Val f;
  f.kind = Val::Frag;
  f.layout = Layout::Blocked;
  f.shape = {extent};
  f.elem = *src->type->elem;
  f.perThread = extent / 32;
  f.chunk = chunk / eb;
  f.cxx = L.temp("row");
  int64_t perChunk = chunk / eb, rounds = f.perThread / perChunk;
  std::string type = cxxType(f.elem) == "u16" ? "u16" : cxxType(f.elem);
  L.w.line(type + " " + f.cxx + "[" + std::to_string(f.perThread) + "];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_k = 0; cake_k < " + std::to_string(rounds) + "; ++cake_k)");
  // chunk k of lane l holds elements (k * 32 + l) * perChunk ... + perChunk - 1
  std::vector<std::string> idx(src->origin.size(), "0");
  std::string first = "(cake_k * 32 + int(cake::rt::lane_id())) * " + std::to_string(perChunk);
  std::string load = "cake::rt::ld_global_bytes<" + std::to_string(chunk) + ">(&" + f.cxx + "[cake_k * " +
                     std::to_string(perChunk) + "], " + L.globalAddress(*src, first) + ");";
  if (!clip) {
    L.w.line(load);
    L.w.close();
    return f;
  }
  // clip = true: a chunk inside the tensor is one load; the elements of one that is not are loaded one by
  // one while inside (a row of D columns read DP at a time: those past D are zeros)
  std::string inRows;
  for (size_t d = 0; d + 1 < src->origin.size(); ++d)
    inRows += "(" + src->origin[d] + ") < " + L.dimCxx(src->type->dims[d]) + " && ";
  const std::string bound = L.dimCxx(src->type->dims.back()), pc = std::to_string(perChunk);
  L.w.line("const int cake_c0 = (" + src->origin.back() + ") + " + first + ";");
  L.w.open("if (" + inRows + "cake_c0 + " + pc + " <= " + bound + ")");
  L.w.line(load);
  L.w.close();
  L.w.open("else");
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_j = 0; cake_j < " + pc + "; ++cake_j) " + f.cxx + "[cake_k * " + pc + " + cake_j] = " +
           inRows + "cake_c0 + cake_j < " + bound + " ? *" + L.globalAddress(*src, first + " + cake_j") + " : " +
           type + "(0);");
  L.w.close();
  L.w.close();
  return f;
}

/// reduce.sum/min/max of a blocked warp vector along axis 0: a scalar.
std::optional<Val> lowerReduce(Lowerer &L, const Expr &call) {
  OpId op = calleeOp(call);
  auto args = positionalArgs(call);
  const Expr *axis = keywordArg(call, "axis");
  std::vector<Val> frags;
  collectFrags(L, *args[0], frags);
  auto ctx = contextOf(frags);
  const bool thread = ctx && ctx->layout == Layout::Thread;
  if (!ctx || (ctx->layout != Layout::Blocked && !thread) || !axis || L.constant(*axis).value_or(-1) != 0) {
    L.unsupported(call.range, "this reduction (only a warp's blocked vector or a per(thread) vector along axis 0)");
    return std::nullopt;
  }
  if (!L.sameBlockedDistribution(call.range, frags))
    return std::nullopt;
  // the accumulator has the element type (floats, and 16-bit floats widened to fp32; integers stay integers)
  Elem e = L.elemType(*args[0]);
  bool integer = e == Elem::I32 || e == Elem::U32;
  std::string type = integer ? std::string(cxxElem(e)) : "float";
  std::string acc = L.temp("sum");
  std::string init = op == OpId::ReduceSum ? (integer ? "0" : "0.f")
                     : op == OpId::ReduceMin ? (integer ? "0x7fffffff" : "__int_as_float(0x7f800000)")
                                          : (integer ? "(-0x7fffffff - 1)" : "-__int_as_float(0x7f800000)");
  if (integer && e == Elem::U32 && op != OpId::ReduceSum)
    init = op == OpId::ReduceMin ? "0xffffffffu" : "0u";
  auto combine = [&](const std::string &a, const std::string &b) {
    if (op == OpId::ReduceSum)
      return a + " + " + b;
    return std::string(integer ? (op == OpId::ReduceMin ? "min(" : "max(") : (op == OpId::ReduceMin ? "fminf(" : "fmaxf(")) +
           a + ", " + b + ")";
  };
  L.w.line(type + " " + acc + " = " + init + ";");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_e = 0; cake_e < " + std::to_string(ctx->perThread) + "; ++cake_e)");
  auto v = L.elementwise(*args[0], ctx->layout, "cake_e");
  if (!v)
    return std::nullopt;
  L.w.line(acc + " = " + combine(acc, *v) + ";");
  L.w.close();
  if (thread) // the thread's own elements: nothing to exchange
    return scalarVal(acc);
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_o = 16; cake_o > 0; cake_o /= 2) " + acc + " = " +
           combine(acc, "__shfl_xor_sync(0xffffffffu, " + acc + ", cake_o)") + ";");
  return scalarVal(acc);
}

} // namespace

/// The quad that holds a row merges its lanes' (cake_best, cake_at): two
/// butterfly steps, ties to the smaller index; \p better is "<" or ">".
static void quadArgReduce(CudaWriter &w, const std::string &better) {
  w.line("#pragma unroll");
  w.open("for (int cake_o = 1; cake_o < 4; cake_o *= 2)");
  w.line("const float cake_ov = __shfl_xor_sync(0xffffffffu, cake_best, cake_o);");
  w.line("const int cake_oi = __shfl_xor_sync(0xffffffffu, cake_at, cake_o);");
  w.line("const bool cake_t = cake_ov " + better + " cake_best || (cake_ov == cake_best && cake_oi < cake_at);");
  w.line("cake_best = cake_t ? cake_ov : cake_best; cake_at = cake_t ? cake_oi : cake_at;");
  w.close();
}

/// `let v, i = reduce.argmin(x, axis = 1)` over a wgmma.acc context.
bool Lowerer::argReduce(const Expr &call, const std::string &values, const std::string &indices) {
  OpId op = calleeOp(call);
  auto args = positionalArgs(call);
  const Expr *axis = keywordArg(call, "axis");
  std::vector<Val> frags;
  collectFrags(*this, *args[0], frags);
  auto ctx = contextOf(frags);
  if ((op != OpId::ReduceArgmin && op != OpId::ReduceArgmax) || !ctx || ctx->layout != Layout::WgmmaAcc || !axis ||
      constant(*axis).value_or(-1) != 1) {
    unsupported(call.range, "this reduction (only argmin/argmax along axis 1 of a wgmma accumulator)");
    return false;
  }
  bool min = op == OpId::ReduceArgmin;
  std::string better = min ? "<" : ">";
  int64_t chunks = ctx->shape[1] / 8;
  // Per row, four independent partial chains over the thread's columns (the
  // compare-select chain is the epilogue's critical path), column indices as
  // constants with the lane's offset added once, then the chains merged and
  // the quad reduced; ties go to the smaller index throughout.
  constexpr int kChains = 4;
  std::string inf = std::string(min ? "" : "-") + "__int_as_float(0x7f800000)";
  w.line("float " + values + "[2]; int " + indices + "[2];");
  w.line("#pragma unroll");
  w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  w.line("float cake_b[" + std::to_string(kChains) + "]; int cake_a[" + std::to_string(kChains) + "];");
  w.line("#pragma unroll");
  w.line("for (int cake_p = 0; cake_p < " + std::to_string(kChains) + "; ++cake_p) cake_b[cake_p] = " + inf +
         ", cake_a[cake_p] = 0;");
  w.line("#pragma unroll");
  w.open("for (int cake_c = 0; cake_c < " + std::to_string(chunks) + "; ++cake_c)");
  w.line("#pragma unroll");
  w.open("for (int cake_x = 0; cake_x < 2; ++cake_x)");
  auto v = elementwise(*args[0], Layout::WgmmaAcc, "cake_c * 4 + cake_h * 2 + cake_x");
  if (!v)
    return false;
  w.line("const int cake_p = (cake_c * 2 + cake_x) % " + std::to_string(kChains) + ";");
  w.line("const float cake_v = " + *v + ";");
  // selects, not branches: a divergent branch near in-flight wgmma makes ptxas serialize them
  w.line("const bool cake_t = cake_v " + better + " cake_b[cake_p];");
  w.line("cake_b[cake_p] = cake_t ? cake_v : cake_b[cake_p]; cake_a[cake_p] = cake_t ? cake_c * 8 + cake_x : cake_a[cake_p];");
  w.close();
  w.close();
  w.line("float cake_best = cake_b[0]; int cake_at = cake_a[0];");
  w.line("#pragma unroll");
  w.open("for (int cake_p = 1; cake_p < " + std::to_string(kChains) + "; ++cake_p)");
  w.line("const bool cake_t = cake_b[cake_p] " + better +
         " cake_best || (cake_b[cake_p] == cake_best && cake_a[cake_p] < cake_at);");
  w.line("cake_best = cake_t ? cake_b[cake_p] : cake_best; cake_at = cake_t ? cake_a[cake_p] : cake_at;");
  w.close();
  w.line("cake_at += int(cake::rt::lane_id()) % 4 * 2;");
  quadArgReduce(w, better);
  w.line(values + "[cake_h] = cake_best; " + indices + "[cake_h] = cake_at;");
  w.close();
  return true;
}

bool Lowerer::isArgminState(std::string_view name) const { return isFoldState(OpId::ArgminFold, name); }

bool Lowerer::isTopkState(std::string_view name) const { return isFoldState(OpId::TopkFold, name); }

bool Lowerer::isFoldState(OpId fold, std::string_view name) const {
  bool found = false;
  if (role)
    forEachCall(role->role->decl->body, [&](const Expr &call) {
      if (calleeOp(call) != fold)
        return;
      auto args = positionalArgs(call);
      for (size_t a = 0; a < 2 && a < args.size(); ++a)
        if (const Expr *x = stripParens(args[a]); x->kind == ExprKind::Name && x->text == name)
          found = true;
    });
  return found;
}

namespace {

/// The argmin state (best, best_id) named by operands 0 and 1 of \p call.
std::optional<std::pair<Val, Val>> argminState(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto best = L.value(*args[0]), ids = L.value(*args[1]);
  if (!best || !ids || best->kind != Val::Frag || ids->kind != Val::Frag || best->layout != Layout::Rows ||
      ids->layout != Layout::Rows || !best->chains || !ids->chains || best->elem != Elem::FP32 ||
      ids->elem != Elem::I32) {
    L.unsupported(call.range, "an argmin state other than an fp32 and an i32 rows vector of an MMA tile");
    return std::nullopt;
  }
  return std::pair{*best, *ids};
}

/// Bits that index a chain's columns: a chain holds 2 * (N / 8) / chains of the thread's columns.
int chainIndexBits(int64_t columns) {
  int64_t perChain = columns / 8 * 2 / kArgminChains;
  int bits = 0;
  while ((int64_t(1) << bits) < perChain)
    ++bits;
  return bits;
}

/// The tile and offset of a fold over an MMA tile (argmin.fold, topk.fold):
/// the layout context of operand 2, which must be an expression over
/// the role's wgmma accumulator or a warp's [16, N] mma.sync accumulator of
/// \p columns columns, and the C++ of `offset` (0 without it); nullopt after
/// reporting why not.
std::optional<std::pair<Val, std::string>> foldTile(Lowerer &L, const Expr &call, int64_t columns) {
  std::vector<Val> frags;
  collectFrags(L, *positionalArgs(call)[2], frags);
  auto ctx = contextOf(frags);
  const bool accTile = ctx && (ctx->layout == Layout::WgmmaAcc || (ctx->layout == Layout::MmaAcc && ctx->shape[0] == 16));
  if (!accTile || ctx->shape[1] != columns) {
    L.unsupported(call.range, std::string(sema::opInfo(calleeOp(call)).name) +
                                  " of other than an expression over the role's wgmma accumulator tile or a warp's "
                                  "[16, N] mma.sync accumulator");
    return std::nullopt;
  }
  const Expr *offsetArg = keywordArg(call, "offset");
  auto offset = offsetArg ? L.scalar(*offsetArg) : std::optional<std::string>("0");
  if (!offset)
    return std::nullopt;
  return std::pair{*ctx, *offset};
}

/// argmin.fold(best, best_id, x, offset = o): per row, folds x's minimum along
/// axis 1 (column index + o) into the running state, without crossing lanes.
/// Each element costs one fminf: the chain's position within its chain is
/// packed into the low mantissa bits of the value (relative error below
/// 2^(bits - 23), documented in language.md 10.10), and a chain that improved
/// during this fold records o for the whole chain.
std::optional<Val> lowerArgminFold(Lowerer &L, const Expr &call) {
  auto state = argminState(L, call);
  if (!state)
    return std::nullopt;
  auto [best, ids] = *state;
  auto args = positionalArgs(call);
  auto tile = foldTile(L, call, best.chainColumns);
  if (!tile)
    return std::nullopt;
  const Val *ctx = &tile->first;
  const std::string *offset = &tile->second;
  const int64_t chunks = ctx->shape[1] / 8, C = kArgminChains;
  const int bits = chainIndexBits(ctx->shape[1]);
  const std::string mask = std::to_string((1u << bits) - 1) + "u", cs = std::to_string(C);
  L.w.open("");
  L.w.line("const int cake_off = " + *offset + ";");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line("float cake_old[" + cs + "];");
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_p = 0; cake_p < " + cs + "; ++cake_p) cake_old[cake_p] = " + best.cxx + "[cake_h * " + cs +
           " + cake_p];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_c = 0; cake_c < " + std::to_string(chunks) + "; ++cake_c)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_x = 0; cake_x < 2; ++cake_x)");
  auto v = L.elementwise(*args[2], ctx->layout, "cake_c * 4 + cake_h * 2 + cake_x");
  if (!v)
    return std::nullopt;
  L.w.line("const int cake_k = cake_c * 2 + cake_x;");
  L.w.line("const float cake_v = " + *v + ";");
  L.w.line("const float cake_pk = __uint_as_float((__float_as_uint(cake_v) & ~" + mask + ") | unsigned(cake_k / " + cs +
           "));");
  L.w.line("float &cake_b = " + best.cxx + "[cake_h * " + cs + " + cake_k % " + cs + "];");
  L.w.line("cake_b = fminf(cake_b, cake_pk);");
  L.w.close();
  L.w.close();
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_p = 0; cake_p < " + cs + "; ++cake_p) " + ids.cxx + "[cake_h * " + cs + " + cake_p] = " +
           best.cxx + "[cake_h * " + cs + " + cake_p] < cake_old[cake_p] ? cake_off : " + ids.cxx + "[cake_h * " +
           cs + " + cake_p];");
  L.w.close();
  L.w.close();
  return Val{};
}

/// argmin.finish(best, best_id): merges the chains and the quad of each row;
/// best and best_id are then an ordinary rows vector (ties: smaller index).
std::optional<Val> lowerArgminFinish(Lowerer &L, const Expr &call) {
  auto state = argminState(L, call);
  if (!state)
    return std::nullopt;
  auto [best, ids] = *state;
  const int64_t columns = best.chainColumns;
  const std::string cs = std::to_string(kArgminChains);
  const std::string mask = std::to_string((1u << chainIndexBits(columns)) - 1) + "u";
  L.w.open("");
  L.w.line("float cake_fv[2]; int cake_fi[2];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line("float cake_best = __int_as_float(0x7f800000); int cake_at = 0x7fffffff;");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_p = 0; cake_p < " + cs + "; ++cake_p)");
  L.w.line("const unsigned cake_u = __float_as_uint(" + best.cxx + "[cake_h * " + cs + " + cake_p]);");
  L.w.line("const int cake_k = int(cake_u & " + mask + ") * " + cs + " + cake_p;");
  L.w.line("const float cake_v = __uint_as_float(cake_u & ~" + mask + ");");
  L.w.line("const int cake_i = " + ids.cxx + "[cake_h * " + cs +
           " + cake_p] + cake_k / 2 * 8 + cake_k % 2 + int(cake::rt::lane_id()) % 4 * 2;");
  L.w.line("const bool cake_t = cake_v < cake_best || (cake_v == cake_best && cake_i < cake_at);");
  L.w.line("cake_best = cake_t ? cake_v : cake_best; cake_at = cake_t ? cake_i : cake_at;");
  L.w.close();
  quadArgReduce(L.w, "<");
  L.w.line("cake_fv[cake_h] = cake_best; cake_fi[cake_h] = cake_at;");
  L.w.close();
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_h = 0; cake_h < 2; ++cake_h) " + best.cxx + "[cake_h] = cake_fv[cake_h], " + ids.cxx +
           "[cake_h] = cake_fi[cake_h];");
  L.w.close();
  return Val{};
}

/// The top-k state (best, best_id) named by operands 0 and 1 of \p call.
std::optional<std::pair<Val, Val>> topkState(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto best = L.value(*args[0]), ids = L.value(*args[1]);
  if (!best || !ids || best->kind != Val::Frag || ids->kind != Val::Frag || !best->topk || best->topk != ids->topk ||
      best->elem != Elem::FP32 || ids->elem != Elem::I32) {
    L.unsupported(call.range, "a top-k state other than an fp32 and an i32 [rows, k] tensor of an MMA tile's rows");
    return std::nullopt;
  }
  return std::pair{*best, *ids};
}

/// One compare-exchange of entries \p a and \p b of a row's list (C++ indices),
/// ordered by (key, id): the smaller pair goes to \p a.
void topkExchange(CudaWriter &w, const std::string &keys, const std::string &ids, const std::string &a,
                  const std::string &b) {
  w.open("");
  w.line("const float cake_ka = " + keys + "[" + a + "], cake_kb = " + keys + "[" + b + "];");
  w.line("const int cake_ia = " + ids + "[" + a + "], cake_ib = " + ids + "[" + b + "];");
  w.line("const bool cake_s = cake_kb < cake_ka || (cake_kb == cake_ka && cake_ib < cake_ia);");
  w.line(keys + "[" + a + "] = cake_s ? cake_kb : cake_ka; " + keys + "[" + b + "] = cake_s ? cake_ka : cake_kb;");
  w.line(ids + "[" + a + "] = cake_s ? cake_ib : cake_ia; " + ids + "[" + b + "] = cake_s ? cake_ia : cake_ib;");
  w.close();
}

/// Inserts (cake_kv, cake_ki) into the sorted list at \p keys[\p first ...] (k
/// entries; a no-op when cake_kv is not below the last): entry j becomes entry
/// j - 1 when the key is below both, the key when it is below entry j only.
/// Every compare reads the old list, so the k compares are independent (a
/// chain of compare-exchanges, each waiting on the one before, was a serial
/// dependency of k steps; the instruction count is the same, k compares and
/// 4 k selects).
void topkInsertChain(CudaWriter &w, const std::string &keys, const std::string &ids, const std::string &first,
                     const std::string &k) {
  w.line("bool cake_s = cake_kv < " + keys + "[" + first + " + " + k + " - 1];");
  w.line("#pragma unroll");
  w.open("for (int cake_j = " + k + " - 1; cake_j > 0; --cake_j)");
  w.line("float &cake_b = " + keys + "[" + first + " + cake_j];");
  w.line("int &cake_bi = " + ids + "[" + first + " + cake_j];");
  w.line("const float cake_a = " + keys + "[" + first + " + cake_j - 1];");
  w.line("const int cake_ai = " + ids + "[" + first + " + cake_j - 1];");
  w.line("const bool cake_p = cake_kv < cake_a;");
  w.line("cake_b = cake_s ? (cake_p ? cake_a : cake_kv) : cake_b; cake_bi = cake_s ? (cake_p ? cake_ai : cake_ki) : cake_bi;");
  w.line("cake_s = cake_p;");
  w.close();
  w.line("if (cake_s) " + keys + "[" + first + "] = cake_kv, " + ids + "[" + first + "] = cake_ki;");
}

/// topk.fold of a warp's blocked row into a warp role's lane lists: each
/// lane folds its own elements of the row, with the ids given by `ids = v`
/// (a blocked i32 row of the same distribution) or the element's index in
/// the row plus `offset`.
std::optional<Val> lowerTopkFoldRow(Lowerer &L, const Expr &call, const Val &best, const Val &ids) {
  auto args = positionalArgs(call);
  const Expr *idsArg = keywordArg(call, "ids");
  std::vector<Val> frags;
  collectFrags(L, *args[2], frags);
  if (idsArg)
    collectFrags(L, *idsArg, frags);
  auto ctx = contextOf(frags);
  if (!ctx || ctx->layout != Layout::Blocked) {
    L.unsupported(call.range, "topk.fold into a warp's lists of other than a warp's blocked row");
    return std::nullopt;
  }
  if (!L.sameBlockedDistribution(call.range, frags))
    return std::nullopt;
  const Expr *offsetArg = keywordArg(call, "offset");
  auto offset = offsetArg ? L.scalar(*offsetArg) : std::optional<std::string>("0");
  if (!offset)
    return std::nullopt;
  const std::string K = std::to_string(best.topk), chunk = std::to_string(ctx->chunk);
  L.w.open("");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_e = 0; cake_e < " + std::to_string(ctx->perThread) + "; ++cake_e)");
  auto v = L.elementwise(*args[2], Layout::Blocked, "cake_e");
  auto id = idsArg ? L.elementwise(*idsArg, Layout::Blocked, "cake_e")
                   : std::optional<std::string>(*offset + " + (cake_e / " + chunk + " * 32 + int(cake::rt::lane_id())) * " +
                                                chunk + " + cake_e % " + chunk);
  if (!v || !id)
    return std::nullopt;
  L.w.line("float cake_kv = " + *v + ";");
  L.w.line("int cake_ki = int(" + *id + ");");
  L.w.open("if (cake_kv < " + best.cxx + "[" + K + " - 1])");
  topkInsertChain(L.w, best.cxx, ids.cxx, "0", K);
  L.w.close();
  L.w.close();
  L.w.close();
  return Val{};
}

/// The additive terms of \p e (through parentheses, `+` and binary `-`), each
/// with whether it is subtracted.
void additiveTerms(const Expr &e, bool negative, std::vector<std::pair<bool, const Expr *>> &out) {
  const Expr *x = stripParens(&e);
  if (x->kind == ExprKind::Binary && (x->op == Tok::Plus || x->op == Tok::Minus)) {
    additiveTerms(*x->operands[0], negative, out);
    additiveTerms(*x->operands[1], x->op == Tok::Minus ? !negative : negative, out);
    return;
  }
  out.emplace_back(negative, x);
}

/// The C++ sum of \p terms at element \p idx; empty when there are none.
std::optional<std::string> sumOfTerms(Lowerer &L, const std::vector<std::pair<bool, const Expr *>> &terms, Layout ctx,
                                      const std::string &idx) {
  std::string sum;
  for (auto [negative, term] : terms) {
    // a product of floats after the first term: one fmaf, as contraction would make it (NVRTC turned
    // `xn - 2 * acc` into two FADDs, 2 * acc becoming acc + acc before contraction; ncu on the KNN fold)
    if (!sum.empty() && term->kind == ExprKind::Binary && term->op == Tok::Star && L.elemType(*term) == Elem::FP32 &&
        L.elemType(*term->operands[0]) == Elem::FP32 && L.elemType(*term->operands[1]) == Elem::FP32) {
      auto a = L.elementwise(*term->operands[0], ctx, idx), b = L.elementwise(*term->operands[1], ctx, idx);
      if (!a || !b)
        return std::nullopt;
      sum = "fmaf(" + (negative ? "-(" + *a + ")" : *a) + ", " + *b + ", " + sum + ")";
      continue;
    }
    auto v = L.elementwise(*term, ctx, idx);
    if (!v)
      return std::nullopt;
    sum += sum.empty() ? (negative ? "-(" : "(") + *v + ")" : (negative ? " - (" : " + (") + *v + ")";
  }
  return sum;
}

/// topk.fold(best, best_id, x, offset = o): per row, each lane keeps the k
/// smallest of its own columns seen so far, sorted ascending (equal keys keep
/// the earlier column first), without crossing lanes.
/// - The row's threshold bounds the row's k-th key from above: the smaller of
///   the quad's smallest k-th key and its largest ceil(k / 4)-th (four lanes
///   with ceil(k / 4) keys each at or below it). No element at or above it is
///   among the row's k smallest, so the union of the quad's lists still holds
///   them, and topk.finish's merge is exact.
/// - x's per-row additive terms (a rows vector: ||q||^2 in the KNN kernel) are
///   split off: the rest is compared with the threshold minus the row's term,
///   rounded up (a superset of the elements whose key is below the threshold:
///   rounding is monotone), and the row's term is added to candidates only.
/// - A straight pass computes the rest and its minimum per row (about two
///   instructions an element); only when some lane of the warp has an element
///   below its threshold does a second pass make each row's mask of candidates
///   and rounds follow (a loop, not unrolled), in which every lane takes its
///   lowest remaining candidate and inserts it (topkInsertChain), so that one
///   insertion serves a candidate of every lane at once.
/// Measured before the rounds (bench/results/knn_h200.md, ncu at Q = 4096,
/// N = 2^18): a vote and a chain per element position, unrolled, took the slow
/// path in 77% of the tiles, ran a chain at 12% of the positions and stalled
/// 36% of the cycles on instruction fetch (~50 KB of code per call site).
std::optional<Val> lowerTopkFold(Lowerer &L, const Expr &call) {
  auto state = topkState(L, call);
  if (!state)
    return std::nullopt;
  auto [best, ids] = *state;
  const Expr *after = keywordArg(call, "after"), *afterId = keywordArg(call, "after_id");
  if (best.laneList && !after && !afterId)
    return lowerTopkFoldRow(L, call, best, ids);
  if (!after != !afterId || (after && best.laneList)) {
    L.unsupported(call.range, "topk.fold with one of after and after_id, or with them into a warp's lists (they "
                              "bound an MMA tile's rows)");
    return std::nullopt;
  }
  if (keywordArg(call, "ids")) {
    L.unsupported(call.range, "topk.fold of an MMA tile with explicit ids (its ids are its columns + offset)");
    return std::nullopt;
  }
  auto args = positionalArgs(call);
  auto tile = foldTile(L, call, best.chainColumns);
  if (!tile)
    return std::nullopt;
  const Val *ctx = &tile->first;
  const std::string *offset = &tile->second;
  const std::string K = std::to_string(best.topk), chunks = std::to_string(ctx->shape[1] / 8),
                    n = std::to_string(ctx->shape[1] / 2), J = std::to_string((best.topk + 3) / 4);
  // x = (row terms) + (rest): a term is a row's when every fragment it reads is a rows vector
  std::vector<std::pair<bool, const Expr *>> terms, rowTerms, restTerms;
  additiveTerms(*args[2], false, terms);
  for (auto term : terms) {
    std::vector<Val> frags;
    collectFrags(L, *term.second, frags);
    bool row = std::all_of(frags.begin(), frags.end(), [](const Val &f) { return f.layout == Layout::Rows; });
    (row ? rowTerms : restTerms).push_back(term);
  }
  if (restTerms.empty())
    restTerms = std::move(rowTerms), rowTerms.clear();
  auto rowSum = sumOfTerms(L, rowTerms, ctx->layout, "cake_h * 2");
  if (!rowSum)
    return std::nullopt;
  // after = a, after_id = i (rows vectors): only the elements whose (key, id) follows the row's (a, i) enter,
  // so that repeated folds over the same tiles give the next k of the row each time (KNN's k > KP)
  std::optional<std::string> afterKey, afterIdx;
  if (after) {
    std::vector<Val> frags;
    collectFrags(L, *after, frags);
    collectFrags(L, *afterId, frags);
    if (!std::all_of(frags.begin(), frags.end(), [](const Val &f) { return f.layout == Layout::Rows; }) ||
        L.elemType(*after) != Elem::FP32 || L.elemType(*afterId) != Elem::I32) {
      L.unsupported(call.range, "topk.fold with after and after_id other than an fp32 and an i32 rows vector of "
                                "the tile");
      return std::nullopt;
    }
    afterKey = L.elementwise(*after, ctx->layout, "cake_h * 2"); // the tile's element of row h, as rowSum
    afterIdx = L.elementwise(*afterId, ctx->layout, "cake_h * 2");
    if (!afterKey || !afterIdx)
      return std::nullopt;
  }
  L.w.open("");
  L.w.line("const int cake_off = " + *offset + " + int(cake::rt::lane_id()) % 4 * 2;");
  const std::string T = best.topkThreshold();
  L.w.line("float cake_thr[2], cake_r[2];");
  if (after) // the row's (a, i), and the bound below which no rest can make a key at or above a
    L.w.line("float cake_ak[2], cake_lo2[2]; int cake_ai[2];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  if (rowTerms.empty())
    L.w.line("cake_r[cake_h] = 0.f;");
  else
    L.w.line("cake_r[cake_h] = " + *rowSum + ";");
  if (!after) {
    L.w.line(rowTerms.empty() ? "cake_thr[cake_h] = " + T + "[cake_h];"
                              : "cake_thr[cake_h] = __fsub_ru(" + T + "[cake_h], cake_r[cake_h]);");
  } else {
    // with after, the lists must hold each row's k smallest by (key, id), not only by key: keys equal to T
    // are candidates too. key = fl(r + rest) <= T needs r + rest < nextafter(T) exactly (rounding to
    // nearest), so rest < nextafter(T) - r rounded up; likewise key >= a needs rest > nextafter(a, -inf) - r
    // rounded down
    L.w.line("cake_thr[cake_h] = __fsub_ru(nextafterf(" + T + "[cake_h], __int_as_float(0x7f800000)), cake_r[cake_h]);");
    L.w.line("cake_ak[cake_h] = " + *afterKey + "; cake_ai[cake_h] = " + *afterIdx + ";");
    L.w.line("cake_lo2[cake_h] = __fsub_rd(nextafterf(cake_ak[cake_h], __int_as_float(0xff800000)), cake_r[cake_h]);");
  }
  L.w.close();
  // pass 1, straight-line: the rest of the tile's keys and their minimum per row (four partial minima a
  // row, so that the minima are not one serial chain)
  const int64_t perRow = ctx->shape[1] / 4;
  int64_t pow2 = 1;
  while (pow2 < perRow)
    pow2 *= 2;
  // partial minima: per row, elements x of chunks c % P (P = 2, or 1 for a tile of 8 columns)
  const std::string P = ctx->shape[1] >= 16 ? "2" : "1";
  L.w.line("float cake_d[" + n + "];");
  L.w.line("float cake_lo[2][4];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_c = 0; cake_c < " + chunks + "; ++cake_c)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_x = 0; cake_x < 2; ++cake_x)");
  auto v = sumOfTerms(L, restTerms, ctx->layout, "cake_c * 4 + cake_h * 2 + cake_x");
  if (!v)
    return std::nullopt;
  L.w.line("const float cake_v = " + *v + ";");
  L.w.line("cake_d[cake_c * 4 + cake_h * 2 + cake_x] = cake_v;");
  L.w.line("float &cake_l = cake_lo[cake_h][cake_c % " + P + " * 2 + cake_x];");
  L.w.line("cake_l = cake_c < " + P + " ? cake_v : fminf(cake_l, cake_v);");
  L.w.close();
  L.w.close();
  L.w.close();
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_h = 0; cake_h < 2; ++cake_h) cake_lo[cake_h][0] = " +
           std::string(P == "2" ? "fminf(fminf(cake_lo[cake_h][0], cake_lo[cake_h][1]), fminf(cake_lo[cake_h][2], "
                                  "cake_lo[cake_h][3]));"
                                : "fminf(cake_lo[cake_h][0], cake_lo[cake_h][1]);"));
  L.w.open("if (__any_sync(0xffffffffu, cake_lo[0][0] < cake_thr[0] || cake_lo[1][0] < cake_thr[1]))");
  // pass 2: per row, a mask of the elements below the row's threshold, one bit an element: 32-bit masks
  // up to N = 128, 64-bit ones above
  const bool wide = perRow > 32;
  const std::string mt = wide ? "unsigned long long" : "unsigned", one = wide ? "1ull" : "1u",
                    ffs = wide ? "__ffsll" : "__ffs";
  L.w.line(mt + " cake_m[2] = {0, 0};");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_c = 0; cake_c < " + chunks + "; ++cake_c)");
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_x = 0; cake_x < 2; ++cake_x) cake_m[cake_h] |= " + mt +
           "(cake_d[cake_c * 4 + cake_h * 2 + cake_x] < cake_thr[cake_h]" +
           (after ? " && cake_d[cake_c * 4 + cake_h * 2 + cake_x] > cake_lo2[cake_h]" : "") +
           ") << (cake_c * 2 + cake_x);");
  L.w.close();
  L.w.close();
  // rounds in which every lane takes its lowest remaining candidate of the row (a select tree over the
  // row's keys, static indices) and inserts it, so that one insertion serves a candidate of every lane at
  // once. The rounds are a loop, not unrolled: the fold stays a few hundred instructions. The two rows are
  // written out (a loop over them around the rounds' loop is not unrolled, which would put the lists in
  // local memory)
  for (int h = 0; h < 2; ++h) {
    L.w.open("");
    L.w.line("constexpr int cake_h = " + std::to_string(h) + ";");
    L.w.line(mt + " cake_mh = cake_m[cake_h];");
    L.w.line("#pragma unroll 1");
    L.w.open("while (__any_sync(0xffffffffu, cake_mh != 0))");
    L.w.line("const int cake_e = cake_mh ? " + ffs + "(cake_mh) - 1 : 0;");
    L.w.line("float cake_t[" + std::to_string(pow2) + "];");
    L.w.line("#pragma unroll");
    L.w.line("for (int cake_i = 0; cake_i < " + std::to_string(pow2) + "; ++cake_i) cake_t[cake_i] = cake_i < " +
             std::to_string(perRow) +
             " ? cake_d[cake_i / 2 * 4 + cake_h * 2 + cake_i % 2] : __int_as_float(0x7f800000);");
    // the tree's levels written out: NVRTC left a loop of halving trip counts rolled, with cake_t on the stack
    for (int64_t b = pow2 / 2; b > 0; b /= 2) {
      const std::string bs = std::to_string(b);
      L.w.line("#pragma unroll");
      L.w.line("for (int cake_i = 0; cake_i < " + bs + "; ++cake_i) cake_t[cake_i] = (cake_e & " + bs +
               ") != 0 ? cake_t[cake_i + " + bs + "] : cake_t[cake_i];");
    }
    L.w.line(std::string("float cake_kv = cake_mh ? ") + (rowTerms.empty() ? "" : "cake_r[cake_h] + ") +
             "cake_t[0] : __int_as_float(0x7f800000);");
    L.w.line("int cake_ki = cake_off + cake_e / 2 * 8 + cake_e % 2;");
    if (after) // the exact test on the key: the bounds above let through keys within rounding of a
      L.w.line("if (!(cake_kv > cake_ak[cake_h] || (cake_kv == cake_ak[cake_h] && cake_ki > cake_ai[cake_h]))) "
               "cake_kv = __int_as_float(0x7f800000);");
    L.w.line("cake_mh &= cake_mh - " + one + ";");
    topkInsertChain(L.w, best.cxx, ids.cxx, "cake_h * " + K, K);
    L.w.close();
    L.w.close();
  }
  // the lists changed: the rows' thresholds again (four shuffles a row; a fold without candidates keeps
  // them: recomputing them in every fold put shuffle latency on every tile's path, ncu at Q = 4096, N = 2^20)
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line("float cake_t = " + best.cxx + "[cake_h * " + K + " + " + K + " - 1];");
  L.w.line("cake_t = fminf(cake_t, __shfl_xor_sync(0xffffffffu, cake_t, 1));");
  L.w.line("cake_t = fminf(cake_t, __shfl_xor_sync(0xffffffffu, cake_t, 2));");
  L.w.line("float cake_u = " + best.cxx + "[cake_h * " + K + " + " + J + " - 1];");
  L.w.line("cake_u = fmaxf(cake_u, __shfl_xor_sync(0xffffffffu, cake_u, 1));");
  L.w.line("cake_u = fmaxf(cake_u, __shfl_xor_sync(0xffffffffu, cake_u, 2));");
  L.w.line(T + "[cake_h] = fminf(cake_t, cake_u);");
  L.w.close();
  L.w.close();
  L.w.close();
  return Val{};
}

/// topk.finish(best, best_id): merges the quad's four lists of each row in
/// two butterfly steps. A step takes the partner lane's sorted list, keeps
/// min(a[j], b[k - 1 - j]) (a bitonic sequence holding the k smallest of both)
/// and sorts it with a bitonic merge of log2(k) steps; pairs are ordered by
/// (key, id), so both lanes of a pair compute the same list. Afterwards every
/// lane of the quad holds its rows' k smallest, ascending.
std::optional<Val> lowerTopkFinish(Lowerer &L, const Expr &call) {
  auto state = topkState(L, call);
  if (!state)
    return std::nullopt;
  auto [best, ids] = *state;
  const int64_t k = best.topk;
  if (k & (k - 1)) {
    L.unsupported(call.range, "topk.finish of a list whose length is not a power of two");
    return std::nullopt;
  }
  const std::string K = std::to_string(k);
  L.w.open("");
  L.w.line("#pragma unroll");
  // a warp's lists: one row, merged over the 32 lanes; an MMA tile's: two rows, over the quad
  L.w.open("for (int cake_h = 0; cake_h < " + std::string(best.laneList ? "1" : "2") + "; ++cake_h)");
  L.w.line("float *cake_key = &" + best.cxx + "[cake_h * " + K + "];");
  L.w.line("int *cake_id = &" + ids.cxx + "[cake_h * " + K + "];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_o = 1; cake_o < " + std::string(best.laneList ? "32" : "4") + "; cake_o *= 2)");
  L.w.line("float cake_ok[" + K + "]; int cake_oi[" + K + "];");
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_j = 0; cake_j < " + K + "; ++cake_j) cake_ok[cake_j] = __shfl_xor_sync(0xffffffffu, "
           "cake_key[cake_j], cake_o), cake_oi[cake_j] = __shfl_xor_sync(0xffffffffu, cake_id[cake_j], cake_o);");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_j = 0; cake_j < " + K + "; ++cake_j)");
  L.w.line("const float cake_b = cake_ok[" + K + " - 1 - cake_j]; const int cake_bi = cake_oi[" + K + " - 1 - cake_j];");
  L.w.line("const bool cake_s = cake_b < cake_key[cake_j] || (cake_b == cake_key[cake_j] && cake_bi < cake_id[cake_j]);");
  L.w.line("cake_key[cake_j] = cake_s ? cake_b : cake_key[cake_j]; cake_id[cake_j] = cake_s ? cake_bi : cake_id[cake_j];");
  L.w.close();
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_s2 = " + K + " / 2; cake_s2 > 0; cake_s2 /= 2)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_j = 0; cake_j < " + K + "; ++cake_j)");
  L.w.open("if ((cake_j & cake_s2) == 0)");
  topkExchange(L.w, "cake_key", "cake_id", "cake_j", "cake_j + cake_s2");
  L.w.close();
  L.w.close();
  L.w.close();
  L.w.close();
  L.w.close();
  if (best.hasTopkThreshold())
    L.w.line(best.topkThreshold() + "[0] = " + best.topkThreshold() + "[1] = __int_as_float(0x7f800000);");
  L.w.close();
  return Val{};
}

/// st.global of a finished top-k state [rows, k] into a 2-D global view at
/// (r0, c0): lane q of each quad stores entries q, q + 4, ... of its rows
/// (every lane of the quad holds the whole list after topk.finish),
/// clipped to the view's rows and columns with `clip = true`; i32 ids widen
/// to an i64 destination.
std::optional<Val> storeTopkRows(Lowerer &L, const Expr &call, const Val &v, const Val &dst) {
  bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  Elem out = *dst.type->elem;
  bool widen = v.elem == Elem::I32 && out == Elem::I64;
  if (dst.origin.size() != 2 || (out != v.elem && !widen)) {
    L.unsupported(call.range, "st.global of a top-k state other than into a 2-D global view of its element type "
                              "(or i64 for i32 ids)");
    return std::nullopt;
  }
  std::string rows = L.dimCxx(dst.type->dims[0]), cols = L.dimCxx(dst.type->dims[1]);
  const std::string K = std::to_string(v.topk);
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < " + std::string(v.laneList ? "1" : "2") + "; ++cake_h)");
  if (v.laneList) // the warp's one row: lane l stores entries l, l + 32, ...
    L.w.line("const int cake_r = 0;");
  else
    L.w.line(std::string("const int cake_r = ") + (v.warpTile ? "" : "cake_role_warp % 4 * 16 + ") +
             "int(cake::rt::lane_id()) / 4 + cake_h * 8;");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_j = 0; cake_j < " + K + "; ++cake_j)"); // static indices: the state stays in registers
  Val at = dst;
  at.origin[0] = "(" + dst.origin[0] + " + cake_r)";
  std::string cond = std::string(v.laneList ? "if (cake_j % 32 == int(cake::rt::lane_id())" : "if (cake_j % 4 == int(cake::rt::lane_id()) % 4") +
                     (clip ? " && " + at.origin[0] + " < " + rows + " && " + dst.origin[1] + " + cake_j < " + cols : "") +
                     ") ";
  std::string elem = v.cxx + "[cake_h * " + K + " + cake_j]";
  L.w.line(cond + "*" + L.globalAddress(at, "cake_j") + " = " + (widen ? "(long long)" : "") + elem + ";");
  L.w.close();
  L.w.close();
  return Val{};
}

} // namespace

/// st.global of a rows vector (the thread's two rows, written by lane % 4 == 0;
/// of the warpgroup's 64, or of the warp's 16 for an mma.sync tile).
std::optional<Val> storeFragmentRows(Lowerer &L, const Expr &call, const Val &v, const Val &dst) {
  bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  std::string last = dst.origin.back();
  size_t rank = dst.origin.size();
  if (v.kind == Val::Frag && v.layout == Layout::Rows && v.topk)
    return storeTopkRows(L, call, v, dst);
  if (v.kind != Val::Frag || v.layout != Layout::Rows || rank < 1) {
    L.unsupported(call.range, "st.global of this register vector");
    return std::nullopt;
  }
  std::string bound = L.dimCxx(dst.type->dims.back());
  L.w.open("if (cake::rt::lane_id() % 4 == 0)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line(std::string("const int cake_r = ") + (v.warpTile ? "" : "cake_role_warp % 4 * 16 + ") +
           "int(cake::rt::lane_id()) / 4 + cake_h * 8;");
  std::string elem = v.cxx + "[cake_h]";
  if (v.elem != *dst.type->elem)
    elem = cxxType(*dst.type->elem) + "(" + elem + ")";
  L.w.line(std::string(clip ? "if (" + last + " + cake_r < " + bound + ") " : "") + "*" +
           L.globalAddress(dst, "cake_r") + " = " + elem + ";");
  L.w.close();
  L.w.close();
  return Val{};
}

/// st.global into a 1-D global row from a warp: a blocked vector (each lane
/// stores its chunks, converted to the row's type with a pending math.cast),
/// or a scalar broadcast to every element of the row. With `clip = true` only
/// the elements inside the tensor are stored (a row of D columns written DP
/// at a time, as ld.global's clip reads it).
std::optional<Val> storeBlockedRow(Lowerer &L, const Expr &call, const Val &v, const Val &dst) {
  std::vector<int64_t> shape = dst.viewShape();
  Elem out = *dst.type->elem;
  int64_t eb = elemBytes(out);
  const bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  if (!L.role || L.role->role->issue != IssueMode::Warp || shape.size() != 1 || shape[0] % 32 ||
      keywordArg(call, "mask")) {
    L.unsupported(call.range, "st.global of a vector other than into a whole 1-D row from a warp");
    return std::nullopt;
  }
  int64_t extent = shape[0], perChunk, rounds;
  if (v.kind == Val::Frag) {
    if (v.layout != Layout::Blocked || v.shape != shape) {
      L.unsupported(call.range, "st.global of this register vector into a row");
      return std::nullopt;
    }
    if (v.cast.value_or(v.elem) != out) {
      L.unsupported(call.range, "st.global converting to an element type other than the destination's (cast first)");
      return std::nullopt;
    }
    perChunk = v.chunk;
    rounds = v.perThread / perChunk;
  } else {
    // a scalar broadcast: chunks of up to 16 bytes per lane
    perChunk = std::max<int64_t>(1, std::min<int64_t>(16, extent * eb / 32) / eb);
    rounds = extent / 32 / perChunk;
    if (extent % (32 * perChunk))
      perChunk = 1, rounds = extent / 32;
    if (out != Elem::FP32 && out != Elem::I32 && out != Elem::U32) {
      L.unsupported(call.range, "st.global of a scalar into a row of a 1- or 2-byte type");
      return std::nullopt;
    }
  }
  int64_t bytes = perChunk * eb;
  if (bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) {
    L.unsupported(call.range, "st.global of " + std::to_string(bytes) + "-byte chunks");
    return std::nullopt;
  }
  // the widest aligned store the row allows, at most the chunk
  int64_t store = bytes;
  while (store > eb && provenAlignment(dst, L) < store)
    store /= 2;
  int64_t perStore = store / eb;
  std::string type = std::string(cxxElem(out));
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_k = 0; cake_k < " + std::to_string(rounds) + "; ++cake_k)");
  L.w.line("alignas(16) " + type + " cake_c[" + std::to_string(perChunk) + "];");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_j = 0; cake_j < " + std::to_string(perChunk) + "; ++cake_j)");
  std::string element, idx = "cake_k * " + std::to_string(perChunk) + " + cake_j";
  if (v.kind != Val::Frag) {
    element = type + "(" + v.cxx + ")";
  } else if (v.elem == out) {
    element = v.cxx + "[" + idx + "]"; // stored as held, bit for bit
  } else {
    // a float value: converted (16-bit types round to nearest even)
    Val raw = v;
    if (out == Elem::BF16 || out == Elem::FP16)
      raw.cast.reset();
    auto el = L.fragElement(raw, Layout::Blocked, idx);
    if (!el)
      return std::nullopt;
    element = out == Elem::BF16   ? "u16(cake::rt::pack_bf16x2(" + *el + ", 0.f) & 0xffffu)"
              : out == Elem::FP16 ? "u16(cake::rt::pack_f16x2(" + *el + ", 0.f) & 0xffffu)"
                                  : *el;
  }
  L.w.line("cake_c[cake_j] = " + element + ";");
  L.w.close();
  std::string first = "(cake_k * 32 + int(cake::rt::lane_id())) * " + std::to_string(perChunk);
  std::string at = first + " + cake_s * " + std::to_string(perStore);
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_s = 0; cake_s < " + std::to_string(perChunk / perStore) + "; ++cake_s)");
  const std::string vector = "cake::rt::st_global_bytes<" + std::to_string(store) + ">(" + L.globalAddress(dst, at) +
                             ", &cake_c[cake_s * " + std::to_string(perStore) + "]);";
  if (!clip) {
    L.w.line(vector);
  } else {
    // a store inside the tensor is one store; the elements of one that is not are stored one by one while inside
    std::string inRows;
    for (size_t d = 0; d + 1 < dst.origin.size(); ++d)
      inRows += "(" + dst.origin[d] + ") < " + L.dimCxx(dst.type->dims[d]) + " && ";
    const std::string bound = L.dimCxx(dst.type->dims.back()), ps = std::to_string(perStore);
    L.w.line("const int cake_c0 = (" + dst.origin.back() + ") + " + at + ";");
    L.w.line("if (" + inRows + "cake_c0 + " + ps + " <= " + bound + ") " + vector);
    L.w.line("else if (" + (inRows.empty() ? std::string("true") : inRows.substr(0, inRows.size() - 4)) + ")");
    L.w.line("  for (int cake_j = 0; cake_j < " + ps + " && cake_c0 + cake_j < " + bound + "; ++cake_j) *" +
             L.globalAddress(dst, at + " + cake_j") + " = cake_c[cake_s * " + ps + " + cake_j];");
  }
  L.w.close();
  L.w.close();
  return Val{};
}

void addFragmentLowerings(OpLowerings &t) {
  t[OpId::LdShared] = lowerLdShared;
  t[OpId::LdGlobal] = lowerLdGlobal;
  t[OpId::ReduceSum] = lowerReduce;
  t[OpId::ArgminFold] = lowerArgminFold;
  t[OpId::ArgminFinish] = lowerArgminFinish;
  t[OpId::TopkFold] = lowerTopkFold;
  t[OpId::TopkFinish] = lowerTopkFinish;
  t[OpId::ReduceMin] = lowerReduce;
  t[OpId::ReduceMax] = lowerReduce;
}

} // namespace cake::lower
