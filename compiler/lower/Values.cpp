//===- Values.cpp - Views of memory and register fragments ----------------===//
//
// Part of CAKE. A view (`A[t.m * BM, k * BK]`, `s.a[r0:r0 + 64, :]`,
// `epi[wg, j % 2]`) is kept symbolic: the storage's type, a C++ base address
// and a C++ origin and a constant extent per dimension. Addresses are
// computed where an operation needs them, in the canonical layout of
// language.md 4.5 (panels of `swizzle` bytes per row, 16-byte chunks XORed
// with the row within each 8-row atom; the XOR itself is applied by the
// operations that address shared memory from threads, never by TMA or MMA
// descriptors, which swizzle in hardware).
//
// Register tensors (`var acc: reg fp32[64, 256]`) are C++ arrays whose shape
// follows the layout of the operation that first writes them.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include "compiler/sema/Shapes.h"
#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

Val storageView(const Type &t, std::string base) {
  Val v;
  v.kind = t.space == Space::Global ? Val::GlobalView : Val::SharedView;
  v.type = &t;
  v.base = std::move(base);
  for (const Dim &d : t.dims) {
    v.origin.push_back("0");
    v.extent.push_back(d.value.value_or(-1));
    v.kept.push_back(true);
  }
  return v;
}

} // namespace

std::optional<std::pair<std::string, int64_t>> Lowerer::sliceBounds(const Expr &slice, int64_t extent) {
  const Expr *lo = stripParens(slice.operand(0));
  std::string start = "0";
  if (lo) {
    auto s = scalar(*lo);
    if (!s)
      return std::nullopt;
    start = *s;
  }
  // the extent is sema's slice rule (sema/Shapes.h), the one the verifier
  // and the cost model read
  auto n = shapes::sliceExtent(slice, extent < 0 ? std::nullopt : std::optional<int64_t>(extent), constants());
  if (!n)
    return std::nullopt;
  return std::pair{start, *n};
}

std::optional<Val> Lowerer::view(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Paren:
    return view(*e.operands[0]);
  case ExprKind::Name: {
    if (const Val *v = lookup(e.text)) {
      if (v->transposed) {
        unsupported(e.range, "the transposed view '" + e.text + "' other than as a wgmma.mma operand");
        return std::nullopt;
      }
      return *v;
    }
    if (const Buffer *b = k.buffer(e.text)) {
      // Only shared buffers have a place in the layout (sema/Facts.cpp): a
      // kernel-scope tmem var aborted emit with map::at (issue #16, found by
      // tests/mutation/tokens.py on the res.tmem corpus).
      auto at = smem.buffers.find(b->name);
      if (at == smem.buffers.end()) {
        unsupported(e.range, "the " + std::string(spaceName(b->type.space)) + " var '" + b->name +
                                 "' (a tensor-memory buffer is lowered as a ring slot: declare it in a ring)");
        return std::nullopt;
      }
      Val v = storageView(b->type, "(cake_smem + " + std::to_string(at->second) + "u)");
      if (b->type.elem == Elem::Mbarrier)
        v.kind = Val::Barrier;
      return v;
    }
    if (const Param *p = k.param(e.text); p && p->type.space == Space::Global) {
      Val v = storageView(p->type, cxxName(p->name));
      v.param = p;
      return v;
    }
    unsupported(e.range, "the name '" + e.text + "' as a view");
    return std::nullopt;
  }
  case ExprKind::Member: {
    auto base = view(*e.operands[0]);
    if (!base)
      return std::nullopt;
    if (base->kind == Val::Token) {
      const RingLayout *rl = smem.ring(base->ring->name);
      const Slot *slot = base->ring->slot(e.text);
      if (!rl || !slot) {
        unsupported(e.range, "this slot");
        return std::nullopt;
      }
      Val v;
      if (slot->type.space == Space::Tmem) {
        // tensor memory: lane in bits 16-31, column in bits 0-15
        v = storageView(slot->type, "(cake_tmem + " + std::to_string(rl->tmemBase) + "u + " +
                                        std::to_string(rl->tmemColumns) + "u * u32(" + base->stage + "))");
        v.kind = Val::TmemView;
      } else {
        v = storageView(slot->type, "(cake_smem + " + std::to_string(rl->data + rl->slotOffset.at(slot->name)) +
                                        "u + " + std::to_string(rl->stageBytes) + "u * (" + base->stage + "))");
      }
      v.ring = base->ring;
      v.stage = base->stage;
      v.writeToken = base->writeToken;
      v.cxx = base->cxx; // the token's name, for expect-tx accounting
      return v;
    }
    unsupported(e.range, "this member access");
    return std::nullopt;
  }
  case ExprKind::Index: {
    auto base = view(*e.operands[0]);
    if (!base)
      return std::nullopt;
    if (base->kind == Val::Frag && base->buffers > 0 && e.operands.size() == 2) {
      // acc[k] of an array of accumulators: k is a constant after unrolling,
      // or fixed while a block's rest is lowered once per buffer (block())
      auto fixed = bufferIndex.find(printed(*e.operands[1]));
      auto k = fixed != bufferIndex.end() ? std::optional<std::string>(std::to_string(fixed->second))
                                          : scalar(*e.operands[1]);
      if (!k)
        return std::nullopt;
      if (!std::all_of(k->begin(), k->end(), [](char c) { return std::isdigit(uint8_t(c)); })) {
        unsupported(e.operands[1]->range, "a register tensor index that is not a constant after unrolling");
        return std::nullopt;
      }
      Val v = *base;
      v.cxx = base->cxx + "[" + *k + "]";
      v.buffers = 0;
      return v;
    }
    if (base->kind == Val::Frag)
      return fragSlice(*base, e);
    if (base->kind != Val::SharedView && base->kind != Val::GlobalView && base->kind != Val::Barrier &&
        base->kind != Val::TmemView) {
      unsupported(e.range, "indexing this value");
      return std::nullopt;
    }
    Val v = *base;
    size_t next = 0;
    bool allScalar = true;
    for (size_t i = 1; i < e.operands.size(); ++i) {
      while (next < v.kept.size() && !v.kept[next])
        ++next;
      if (next == v.kept.size()) {
        unsupported(e.operands[i]->range, "an index past the view's rank");
        return std::nullopt;
      }
      const Expr &ix = *e.operands[i];
      if (ix.kind == ExprKind::Slice) {
        allScalar = false;
        auto b = sliceBounds(ix, v.extent[next]);
        if (!b) {
          unsupported(ix.range, "a slice whose extent is not a constant");
          return std::nullopt;
        }
        v.origin[next] = v.origin[next] == "0" ? b->first : "(" + v.origin[next] + " + " + b->first + ")";
        v.extent[next] = b->second;
      } else {
        auto s = scalar(ix);
        if (!s)
          return std::nullopt;
        v.origin[next] = v.origin[next] == "0" ? *s : "(" + v.origin[next] + " + " + *s + ")";
        v.extent[next] = 1;
        v.kept[next] = false;
      }
      ++next;
    }
    v.corner = allScalar;
    if (allScalar && v.kind == Val::GlobalView)
      for (size_t d = 0; d < v.kept.size(); ++d)
        v.kept[d] = true; // a corner: the partner's shape gives the extent
    return v;
  }
  default:
    unsupported(e.range, "this expression as a view");
    return std::nullopt;
  }
}

bool Lowerer::readsRegisterTensor(const Expr &e) const {
  const Expr *x = stripParens(&e);
  switch (x->kind) {
  case ExprKind::Name: {
    const Val *v = lookup(x->text);
    return v && v->kind == Val::Frag;
  }
  case ExprKind::Unary:
  case ExprKind::Binary:
    return std::any_of(x->operands.begin(), x->operands.end(),
                       [&](const ExprPtr &c) { return c && readsRegisterTensor(*c); });
  case ExprKind::Call: {
    OpId op = calleeOp(*x);
    if (op == OpId::TileIota || ((op == OpId::LdGlobal || op == OpId::LdShared) && keywordArg(*x, "like")))
      return true;
    if (op != OpId::MathCast && op != OpId::TileExpand && !isElementwiseMath(op))
      return false;
    auto args = positionalArgs(*x);
    return std::any_of(args.begin(), args.end(), [&](const Expr *a) { return readsRegisterTensor(*a); });
  }
  default:
    return false;
  }
}

std::optional<Val> Lowerer::value(const Expr &e) {
  // operators and elementwise math over register tensors (`acc * scale`, `tile.iota(like = acc, axis = 0) <
  // n`): a register tensor, evaluated here with its calls (a let's value is evaluated alike, Statements.cpp)
  if (e.kind == ExprKind::Binary || e.kind == ExprKind::Unary ||
      (e.kind == ExprKind::Call && isElementwiseMath(calleeOp(e))))
    if (readsRegisterTensor(e)) {
      auto outer = materialized;
      materializeCalls(e);
      auto f = fragExpression(e);
      materialized = std::move(outer);
      if (!f && !failed)
        unsupported(e.range, "this expression over register tensors");
      return f;
    }
  switch (e.kind) {
  case ExprKind::Call: {
    auto it = k.ops.find(&e);
    if (it == k.ops.end()) {
      unsupported(e.range, "this call");
      return std::nullopt;
    }
    return callValue(e, *it->second);
  }
  case ExprKind::Name:
    if (const Val *v = lookup(e.text))
      return *v;
    if (k.buffer(e.text) || k.param(e.text))
      if (!k.param(e.text) || k.param(e.text)->type.space == Space::Global)
        return view(e);
    break;
  case ExprKind::Member:
    if (const Expr *b = e.operand(0); b && b->kind == ExprKind::Name)
      if (const Val *v = lookup(b->text); v && v->kind == Val::Tile)
        break;
    return view(e);
  case ExprKind::Index:
    return view(e);
  default:
    break;
  }
  auto s = scalar(e);
  if (!s)
    return std::nullopt;
  return scalarVal(*s);
}

std::string Lowerer::sharedAddress(const Val &v, const std::vector<std::string> &index) const {
  const Type &t = *v.type;
  size_t rank = t.dims.size(), next = 0;
  std::vector<std::string> full(rank);
  for (size_t d = 0; d < rank; ++d) {
    full[d] = v.origin[d];
    if (v.kept[d] && next < index.size() && index[next] != "0")
      full[d] = "(" + full[d] + " + " + index[next] + ")";
    if (v.kept[d])
      ++next;
  }
  int64_t eb = elemBytes(*t.elem);
  std::string row = rank > 1 ? full[0] : "0";
  int64_t rows = rank > 1 ? t.dims[0].value.value_or(1) : 1;
  for (size_t d = 1; d + 1 < rank; ++d) {
    row = "(" + row + " * " + std::to_string(*t.dims[d].value) + " + " + full[d] + ")";
    rows *= t.dims[d].value.value_or(1);
  }
  const std::string &col = full[rank - 1];
  if (t.swizzle) {
    int64_t panel = t.swizzle / eb;
    return "(" + v.base + " + u32(" + col + ") / " + std::to_string(panel) + "u * " +
           std::to_string(rows * t.swizzle) + "u + u32(" + row + ") * " + std::to_string(t.swizzle) + "u + u32(" +
           col + ") % " + std::to_string(panel) + "u * " + std::to_string(eb) + "u)";
  }
  int64_t pitch = t.dims[rank - 1].value.value_or(0) * eb;
  return "(" + v.base + " + u32(" + row + ") * " + std::to_string(pitch) + "u + u32(" + col + ") * " +
         std::to_string(eb) + "u)";
}

//===-- Register tensors ------------------------------------------------------------===//

std::optional<Val> Lowerer::fragSlice(const Val &base, const Expr &e) {
  // acc[:, lo:hi] of a wgmma accumulator: whole 8-column chunks
  if (base.layout != Layout::WgmmaAcc || e.operands.size() != 3 || e.operands[1]->kind != ExprKind::Slice ||
      e.operands[1]->operand(0) || e.operands[1]->operand(1) || e.operands[2]->kind != ExprKind::Slice) {
    unsupported(e.range, "this slice of a register tensor (only column slices of wgmma accumulators)");
    return std::nullopt;
  }
  auto b = sliceBounds(*e.operands[2], base.shape[1]);
  if (!b || b->second % 8) {
    unsupported(e.range, "a column slice that is not a constant multiple of 8 wide");
    return std::nullopt;
  }
  Val v = base;
  v.shape = {base.shape[0], b->second};
  v.fragOffset = "(" + base.fragOffset + " + (" + b->first + ") / 8 * 4)";
  return v;
}

void Lowerer::varStmt(const VarStmt &v) {
  const std::string &name = v.name.name;
  std::optional<Elem> elem = parseElem(v.type.elem.name);
  std::vector<int64_t> shape;
  for (const ExprPtr &d : v.type.dims) {
    auto c = constant(*d);
    if (!c) {
      unsupported(d->range, "a register tensor dimension that is not a constant");
      return;
    }
    shape.push_back(*c);
  }
  bool reg = v.type.space && v.type.space->name == "reg";
  // `per(thread)`: the executing thread's own registers (PerThread.cpp)
  const bool perThread = std::any_of(v.type.clauses.begin(), v.type.clauses.end(), [](const Clause &c) {
    return c.name.name == "per" && c.args.size() == 1 && c.args[0]->kind == ExprKind::Name && c.args[0]->text == "thread";
  });
  if (reg && perThread) {
    Elem e = elem.value_or(Elem::FP32);
    if (shape.size() != 1 || (e != Elem::FP32 && e != Elem::I32) || shape[0] < 1 || shape[0] > 256) {
      unsupported(v.range, "a per(thread) register tensor other than an fp32 or i32 vector of at most 256");
      return;
    }
    Val f;
    f.kind = Val::Frag;
    f.layout = Layout::Thread;
    f.cxx = cxxName(name);
    f.elem = e;
    f.shape = shape;
    f.perThread = shape[0];
    w.line(std::string(e == Elem::I32 ? "int " : "float ") + f.cxx + "[" + std::to_string(shape[0]) + "];");
    bind(name, f);
    if (v.init && !fragAssign(f, *v.init) && !failed)
      unsupported(v.init->range, "this initial value of a per(thread) vector");
    return;
  }
  if (!reg) {
    if (v.type.space) {
      unsupported(v.range, "a role-scope '" + v.type.space->name + "' var");
      return;
    }
    auto init = v.init ? scalar(*v.init) : std::optional<std::string>("0");
    if (!init)
      return;
    // the declared type (`var s: fp32 = 0.5` is a float, not an int)
    if (elem && elemBytes(*elem) < 4 && *elem != Elem::Bool) {
      unsupported(v.range, "a scalar var of a 1- or 2-byte type");
      return;
    }
    w.line(std::string(elem ? cxxElem(*elem) : "int") + " " + cxxName(name) + " = " + *init + ";");
    bind(name, scalarVal(cxxName(name)));
    // varying when its initial value or any assignment to it may be
    bool varying = (v.init && varies(*v.init)) || assignedVarying(name);
    scopes.back()[name].varying = scopes.back()[name].laneVarying = varying;
    return;
  }
  // The layout is that of the first operation that writes the tensor: an
  // MMA's accumulator (`acc` or `acc[k]` of an array of them) ...
  std::optional<Layout> layout;
  if (role)
    forEachCall(role->role->decl->body, [&](const Expr &call) {
      if (layout)
        return;
      OpId op = calleeOp(call);
      auto args = positionalArgs(call);
      if (args.size() < 3)
        return;
      const Expr *acc = args[2];
      if (acc->kind == ExprKind::Index)
        acc = acc->operands[0].get();
      if (acc->kind == ExprKind::Name && acc->text == name) {
        if (op == OpId::WgmmaMma)
          layout = Layout::WgmmaAcc;
        else if (op == OpId::MmaSync)
          layout = Layout::MmaAcc;
      }
    });
  // ... or, for a vector in a role whose wgmma accumulators are [64, N], the
  // rows (64) or the columns (N) of that tile: what the role's argmin and
  // selects produce (language.md 4.6).
  // A top-k state `[rows, k]` (topk.fold) is a rows tensor of that tile too.
  const bool topk = !layout && role && shape.size() == 2 && isTopkState(name);
  std::optional<int64_t> accColumns;
  if (!layout && role && (shape.size() == 1 || topk))
    forEachCall(role->role->decl->body, [&](const Expr &call) {
      if (calleeOp(call) != OpId::WgmmaMma || accColumns)
        return;
      const Expr *shapeArg = keywordArg(call, "shape");
      if (shapeArg && shapeArg->kind == ExprKind::Name) {
        const std::string &t = shapeArg->text;
        size_t n = t.find('n'), k = t.find('k');
        if (n != std::string::npos && k != std::string::npos)
          accColumns = std::stoll(t.substr(n + 1, k - n - 1));
      }
    });
  // ... or the rows (16) or columns (N) of a warp's mma.sync accumulator [16, N] declared before it
  bool warpTile = false;
  if (!layout && !accColumns && role && (shape.size() == 1 || topk))
    forEachCall(role->role->decl->body, [&](const Expr &call) {
      auto args = positionalArgs(call);
      if (calleeOp(call) != OpId::MmaSync || accColumns || args.size() < 3 || args[2]->kind != ExprKind::Name)
        return;
      if (const Val *acc = lookup(args[2]->text);
          acc && acc->kind == Val::Frag && acc->layout == Layout::MmaAcc && acc->shape[0] == 16)
        accColumns = acc->shape[1], warpTile = true;
    });
  const int64_t tileRows = warpTile ? 16 : 64;
  Val f;
  f.kind = Val::Frag;
  f.cxx = cxxName(name);
  f.elem = elem.value_or(Elem::FP32);
  if (topk && accColumns && shape[0] == tileRows && shape[1] >= 1 && shape[1] <= 256 &&
      (f.elem == Elem::FP32 || f.elem == Elem::I32)) {
    f.layout = Layout::Rows;
    f.warpTile = warpTile;
    f.shape = shape;
    f.topk = shape[1], f.chainColumns = *accColumns;
    w.line(std::string(f.elem == Elem::I32 ? "int " : "float ") + f.cxx + "[" + std::to_string(fragCount(f)) + "];");
    if (f.hasTopkThreshold())
      w.line("float " + f.topkThreshold() + "[2] = {__int_as_float(0x7f800000), __int_as_float(0x7f800000)};");
    bind(name, f);
    if (v.init)
      fragAssign(f, *v.init);
    return;
  }
  if (topk) {
    unsupported(v.range, "a top-k state other than an fp32 or i32 [" + std::to_string(tileRows) +
                             ", k] tensor (k at most 256) in a role with MMA tiles");
    return;
  }
  if (!layout && accColumns && shape.size() == 1 && (shape[0] == tileRows || shape[0] == *accColumns) &&
      (f.elem == Elem::FP32 || f.elem == Elem::I32)) {
    f.layout = shape[0] == tileRows ? Layout::Rows : Layout::Cols;
    f.warpTile = warpTile;
    f.shape = shape;
    if (f.layout == Layout::Rows && isArgminState(name))
      f.chains = kArgminChains, f.chainColumns = *accColumns;
    std::string type = f.elem == Elem::I32 ? "int" : "float";
    w.line(type + " " + f.cxx + "[" + std::to_string(fragCount(f)) + "];");
    bind(name, f);
    if (v.init)
      fragAssign(f, *v.init);
    return;
  }
  // ... or, in a warp role without MMA tiles, a top-k state `[k]`: one row (the warp's), each lane
  // holding a whole sorted list (topk.fold of the warp's blocked rows, topk.finish over the warp)
  if (!layout && !accColumns && role && role->role->issue == IssueMode::Warp && shape.size() == 1 &&
      isTopkState(name)) {
    if ((f.elem != Elem::FP32 && f.elem != Elem::I32) || shape[0] > 256) {
      unsupported(v.range, "a warp's top-k state other than an fp32 or i32 [k] list (k at most 256)");
      return;
    }
    f.layout = Layout::Rows;
    f.shape = shape;
    f.topk = shape[0];
    f.laneList = true;
    w.line(std::string(f.elem == Elem::I32 ? "int " : "float ") + f.cxx + "[" + std::to_string(fragCount(f)) + "];");
    bind(name, f);
    if (v.init)
      fragAssign(f, *v.init);
    return;
  }
  // ... or, in a warp role without MMA tiles, a 1-D fp32 or i32 vector: the
  // warp's blocked row, spread as ld.global spreads a row of its type (chunk
  // c of min(16 B, bytes / 32) to lane c % 32), so that loaded rows combine
  // with it (`ld.global(..., like = acc)` for rows of other element types)
  if (!layout && !accColumns && role && role->role->issue == IssueMode::Warp && shape.size() == 1 &&
      (f.elem == Elem::FP32 || f.elem == Elem::I32)) {
    int64_t bytes = shape[0] * 4, chunk = std::min<int64_t>(16, bytes / 32);
    if (shape[0] % 32 || (chunk != 4 && chunk != 8 && chunk != 16) || bytes % (32 * chunk)) {
      unsupported(v.range, "a register vector that is not a whole number of 4- to 16-byte chunks per lane");
      return;
    }
    f.layout = Layout::Blocked;
    f.shape = shape;
    f.perThread = shape[0] / 32;
    f.chunk = chunk / 4;
    w.line(std::string(f.elem == Elem::I32 ? "int " : "float ") + f.cxx + "[" + std::to_string(f.perThread) + "];");
    bind(name, f);
    if (v.init && !fragAssign(f, *v.init) && !failed)
      unsupported(v.init->range, "this initial value of a register vector");
    return;
  }
  if (layout == Layout::WgmmaAcc && shape.size() == 3 && elem == Elem::FP32) {
    // an array of accumulators, e.g. double-buffered [2, 64, N]
    f.layout = Layout::WgmmaAcc;
    f.shape = {shape[1], shape[2]};
    f.buffers = shape[0];
    if (shape[1] != 64) {
      unsupported(v.range, "a wgmma accumulator of other than 64 rows per warpgroup");
      return;
    }
    w.line("float " + f.cxx + "[" + std::to_string(shape[0]) + "][" + std::to_string(shape[2] / 2) + "];");
    for (int64_t b = 0; b < shape[0]; ++b)
      role->wgmmaAccs.push_back(f.cxx + "[" + std::to_string(b) + "]");
    bind(name, f);
    return;
  }
  if (!layout || shape.size() != 2 || elem != Elem::FP32) {
    unsupported(v.range, "a register tensor that is not an fp32 MMA accumulator or a rows/cols vector of one");
    return;
  }
  f.layout = *layout;
  f.shape = shape;
  if (*layout == Layout::WgmmaAcc) {
    if (shape[0] != 64) {
      unsupported(v.range, "a wgmma accumulator of other than 64 rows per warpgroup");
      return;
    }
    w.line("float " + f.cxx + "[" + std::to_string(shape[1] / 2) + "];");
    if (role)
      role->wgmmaAccs.push_back(f.cxx);
  } else {
    w.line("float " + f.cxx + "[" + std::to_string(shape[0] / 16) + "][" + std::to_string(shape[1] / 8) + "][4];");
  }
  bind(name, f);
  if (v.init)
    fragFill(f, *v.init);
}

void Lowerer::fragFill(const Val &f, const Expr &valueExpr) {
  auto s = scalar(valueExpr);
  if (!s)
    return;
  std::string value = "float(" + *s + ")";
  if (f.layout == Layout::WgmmaAcc) {
    w.line("#pragma unroll");
    w.line("for (int cake_i = 0; cake_i < " + std::to_string(f.shape[1] / 2) + "; ++cake_i) " + f.cxx +
           "[cake_i] = " + value + ";");
  } else {
    w.line("#pragma unroll");
    w.open("for (int cake_i = 0; cake_i < " + std::to_string(f.shape[0] / 16) + "; ++cake_i)");
    w.line("#pragma unroll");
    w.open("for (int cake_j = 0; cake_j < " + std::to_string(f.shape[1] / 8) + "; ++cake_j)");
    w.line("#pragma unroll");
    w.line("for (int cake_e = 0; cake_e < 4; ++cake_e) " + f.cxx + "[cake_i][cake_j][cake_e] = " + value + ";");
    w.close();
    w.close();
  }
}

void Lowerer::assignStmt(const AssignStmt &a) {
  // an element of a per(thread) vector: `y[t] -= l * y[i]`
  if (a.targets.size() == 1 && a.targets[0]->kind == ExprKind::Index && a.targets[0]->operands.size() == 2)
    if (const Expr *base = a.targets[0]->operand(0); base && base->kind == ExprKind::Name)
      if (const Val *t = lookup(base->text); t && t->kind == Val::Frag && t->layout == Layout::Thread) {
        auto ix = scalar(*a.targets[0]->operands[1]);
        auto v = scalar(*a.value);
        if (ix && v)
          w.line(t->cxx + "[" + *ix + "] " + std::string(tokenSpelling(a.op)) + " " + *v + ";");
        return;
      }
  if (a.targets.size() != 1 || a.targets[0]->kind != ExprKind::Name) {
    unsupported(a.range, "this assignment");
    return;
  }
  const Val *t = lookup(a.targets[0]->text);
  if (!t) {
    unsupported(a.range, "assigning to '" + a.targets[0]->text + "'");
    return;
  }
  if (t->kind == Val::Frag) {
    if (a.op != Tok::Assign) {
      unsupported(a.range, "a compound assignment to a register tensor");
      return;
    }
    if (t->layout == Layout::MmaAcc)
      fragFill(*t, *a.value);
    else if (!fragAssign(*t, *a.value) && !failed)
      unsupported(a.range, "this assignment to a register tensor");
    return;
  }
  auto v = scalar(*a.value);
  if (!v)
    return;
  w.line(t->cxx + " " + std::string(tokenSpelling(a.op)) + " " + *v + ";");
}

} // namespace cake::lower
