//===- Copies.cpp - The copies rule family --------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/copies.def and their pages in docs/rules/.
//
//   tma.align        global base and strides of TMA-accessed tensors (hazard 22)
//   tma.box          box legality: extents, rank, inner bytes, swizzle span (hazard 23)
//   copy.extent      slice-form views match their partner's shape
//   mbar.expect-tx   raw expect-tx bytes equal the TMA bytes that follow (hazard 1)
//   mbar.count       raw arrive counts equal the arrivals per phase (hazard 3)
//
// One walk over the roles (views::walkKernel) visits every call with the
// names visible at it; the per-parameter and per-barrier rules report after
// the walk, so that each cause is reported once with its uses as notes.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"
#include "compiler/verify/Views.h"

#include <bit>

namespace cake::verify {
namespace {

using namespace syntax;
using sema::OpId;
using views::Shape;
using views::Value;

/// Divisibility facts from `assume S % k == 0`: symbol -> modulus. Only
/// power-of-two divisors matter for alignment, so every divisor below is
/// reduced to its power-of-two part (capped): sound, and free of overflow.
using Facts = std::map<std::string, int64_t, std::less<>>;

constexpr int64_t kMaxDivisor = int64_t(1) << 20;

/// The power-of-two part of \p v, at most kMaxDivisor; 0 for 0.
int64_t twoPart(int64_t v) {
  if (v == 0)
    return 0;
  uint64_t u = static_cast<uint64_t>(v);
  return std::min<int64_t>(static_cast<int64_t>(u & (~u + 1)), kMaxDivisor);
}

/// The facts `S % k == 0` (or `0 == S % k`) at kernel scope, combined by lcm.
Facts collectFacts(const sema::Kernel &kernel) {
  Facts facts;
  for (const StmtPtr &s : kernel.decl->body.stmts) {
    auto *a = dyn_cast<AssumeStmt>(s.get());
    if (!a)
      continue;
    for (const ExprPtr &f : a->facts) {
      const Expr *e = views::stripParens(f.get());
      if (e->kind != ExprKind::Binary || e->op != Tok::EqEq)
        continue;
      const Expr *mod = views::stripParens(e->operand(0)), *zero = e->operand(1);
      if (mod->kind != ExprKind::Binary)
        std::swap(mod, zero);
      mod = views::stripParens(mod);
      if (mod->kind != ExprKind::Binary || mod->op != Tok::Percent || sema::evalInt(*zero, kernel.consts) != 0)
        continue;
      const Expr *sym = views::stripParens(mod->operand(0));
      auto k = sema::evalInt(*mod->operand(1), kernel.consts);
      if (sym->kind != ExprKind::Name || !k || *k <= 0)
        continue;
      int64_t &m = facts.try_emplace(sym->text, 1).first->second;
      m = std::max(m, twoPart(*k)); // lcm of powers of two
    }
  }
  return facts;
}

/// A power of two that provably divides \p e (0 when \p e is provably 0).
int64_t divisorOf(const Expr &e, const Facts &facts, const sema::ConstEnv &env) {
  if (auto v = sema::evalInt(e, env))
    return twoPart(*v);
  switch (e.kind) {
  case ExprKind::Name: {
    auto it = facts.find(e.text);
    return it == facts.end() ? 1 : it->second;
  }
  case ExprKind::Paren:
    return divisorOf(*e.operands[0], facts, env);
  case ExprKind::Binary: {
    int64_t a = divisorOf(*e.operands[0], facts, env), b = divisorOf(*e.operands[1], facts, env);
    if (e.op == Tok::Star)
      return a == 0 || b == 0 ? 0 : std::min(a * b, kMaxDivisor);
    if (e.op == Tok::Plus || e.op == Tok::Minus)
      return a == 0 ? b : b == 0 ? a : std::min(a, b);
    return 1;
  }
  default:
    return 1;
  }
}

/// Whether \p bytes (a multiple of \p divisor elements' bytes) is provably a
/// multiple of \p align.
bool provablyMultiple(int64_t divisor, uint32_t elemBytes, uint32_t align) {
  return divisor == 0 || (divisor * elemBytes) % align == 0;
}

/// The range just after the ']' that closes the dims of \p t (for inserting a
/// clause), or an invalid range.
SourceRange afterDims(const SourceManager &sm, const TypeExpr &t) {
  if (!t.hasShape || t.dims.empty())
    return {};
  std::string_view text = sm.text(t.range.file);
  size_t close = text.find(']', t.dims.back()->range.end);
  if (close == std::string_view::npos || close >= t.range.end)
    return {};
  uint32_t at = static_cast<uint32_t>(close + 1);
  return {t.range.file, at, at};
}

constexpr uint32_t kSwizzles[] = {128, 64, 32};

/// One place where an operation reaches a barrier or a tensor.
struct Use {
  const Expr *call;
  std::string what;
};

/// One arrive on a raw mbarrier, with the arrivals it contributes per phase.
struct Arrival {
  const Expr *call;
  std::string barrier;  ///< the mbarrier var
  std::string indexKey; ///< the index text (which barrier of the array)
  std::optional<int64_t> perPhase;
  std::string how;
};

/// Bytes delivered to one barrier between an expect-tx and the next wait.
struct Tally {
  int64_t bytes = 0;
  bool unknown = false;
  struct Copy {
    const Expr *call;
    int64_t bytes; ///< per execution, all receiving CTAs counted
    int64_t times; ///< executions in the window
  };
  std::vector<Copy> copies;
};

class CopiesChecker {
public:
  CopiesChecker(const sema::Kernel &kernel, RuleContext &ctx)
      : k_(kernel), ctx_(ctx), env_(kernel), facts_(collectFacts(kernel)) {}

  void run() {
    views::walkKernel(k_, env_, [&](const Stmt &s, const views::Context &c) {
      forEachCallShallow(s, [&](const Expr &call) { onCall(call, c); });
    });
    reportAlignment();
    reportCounts();
  }

private:
  //===-- The walk ---------------------------------------------------------===//

  void onCall(const Expr &call, const views::Context &c) {
    const sema::OpInfo *op = opOf(call, k_);
    if (!op)
      return;
    OpId name = op->id;
    auto args = sema::positionalArgs(call);
    auto arg = [&](size_t i) -> const Expr * { return i < args.size() ? args[i] : nullptr; };
    if (name == OpId::TmaLoad || name == OpId::TmaStore || name == OpId::TmaReduce || name == OpId::TmaPrefetch) {
      bool load = name == OpId::TmaLoad || name == OpId::TmaPrefetch;
      const Expr *global = arg(load ? 0 : 1), *shared = name == OpId::TmaPrefetch ? nullptr : arg(load ? 1 : 0);
      if (!global)
        return;
      if (const sema::Param *p = resolveGlobal(*global).first)
        tmaUses_[p->name].push_back({&call, std::string(op->name)});
      if (shared) {
        Value s = env_.infer(*shared);
        checkBox(*global, *shared, s);
        checkExtent(*global, s, *shared);
      }
    } else if (name == OpId::CpAsync && arg(1)) {
      checkExtent(*arg(0), env_.infer(*arg(1)), *arg(1));
      // cp.async copies whole 16-byte chunks (compiler/lower/Memory.cpp,
      // cp_async_cg<16>): each chunk's global address must be 16-byte
      // aligned, so the tensor's base and row stride must be (PTX ISA
      // 9.7.9.25, cp.async: the source address aligned to cp-size).
      if (const sema::Param *p = resolveGlobal(*arg(0)).first)
        tmaUses_[p->name].push_back({&call, std::string(op->name)});
    } else if (name == OpId::StGlobal && arg(1)) {
      checkExtent(*arg(1), env_.infer(*arg(0)), *arg(0));
    } else if (name == OpId::LdGlobal && arg(0)) {
      recordRowLoad(call, *arg(0), c);
      if (const Expr *like = sema::keywordArg(call, "like")) {
        Value partner = env_.infer(*like);
        if (const Expr *axis = sema::keywordArg(call, "axis")) {
          auto a = sema::evalInt(*axis, k_.consts);
          if (!partner.shape || !a || *a < 0 || static_cast<size_t>(*a) >= partner.shape->size())
            return;
          partner.shape = Shape{(*partner.shape)[*a]};
        }
        checkExtent(*arg(0), partner, *like);
      }
    }
    if (name == OpId::MbarrierArriveExpectTx || name == OpId::MbarrierExpectTx)
      checkExpectTx(call, c);
    if (name == OpId::MbarrierArrive || name == OpId::MbarrierArriveExpectTx || name == OpId::CpAsyncArrive ||
        name == OpId::Tcgen05Commit)
      recordArrival(call, *op, c);
  }

  /// ld.global of a whole 1-D row into a warp (no `like`): each lane reads
  /// chunks of min(16, row bytes / 32) bytes with one vector load
  /// (compiler/lower/Fragments.cpp, lowerLdGlobal), so the tensor's base and
  /// row stride must be multiples of the chunk or the load faults on a
  /// misaligned address (the lowering refuses what it cannot prove).
  void recordRowLoad(const Expr &call, const Expr &global, const views::Context &c) {
    if (!c.role || c.role->issue != sema::IssueMode::Warp || sema::keywordArg(call, "like") ||
        sema::keywordArg(call, "axis"))
      return;
    auto [p, index] = resolveGlobal(global);
    if (!p || !index || !p->type.elem || index->operands.size() != p->type.dims.size() + 1)
      return;
    const Expr &last = *index->operands.back();
    std::optional<int64_t> extent;
    if (last.kind == ExprKind::Slice) {
      auto lo = last.operand(0) ? sema::evalInt(*last.operand(0), k_.consts) : std::optional<int64_t>(0);
      auto hi = last.operand(1) ? sema::evalInt(*last.operand(1), k_.consts) : p->type.dims.back().value;
      if (lo && hi)
        extent = *hi - *lo;
    }
    for (size_t i = 1; i + 1 < index->operands.size(); ++i)
      if (index->operands[i]->kind == ExprKind::Slice)
        return; // not one row
    const int64_t bytes = extent.value_or(0) * sema::elemBytes(*p->type.elem);
    const int64_t chunk = std::min<int64_t>(16, bytes / 32);
    if (chunk <= int64_t(sema::elemBytes(*p->type.elem)) || bytes % (32 * chunk))
      return; // element-sized loads are naturally aligned
    RowUse &u = rowUses_[p->name];
    if (uint32_t(chunk) > u.need)
      u = {{&call, std::string(opInfo(OpId::LdGlobal).name)}, uint32_t(chunk)};
  }

  /// The global parameter a view reads and the Index expression that selects
  /// from it (null for the whole tensor), following lets.
  std::pair<const sema::Param *, const Expr *> resolveGlobal(const Expr &e, int depth = 0) const {
    const Expr *x = views::stripParens(&e);
    if (x->kind == ExprKind::Name) {
      if (const sema::Param *p = k_.param(x->text); p && p->type.space == sema::Space::Global)
        return {p, nullptr};
      if (const LetStmt *l = env_.letOf(x->text); l && l->names.size() == 1 && depth < 8)
        return resolveGlobal(*l->value, depth + 1);
      return {nullptr, nullptr};
    }
    if (x->kind == ExprKind::Index && x->operands[0]->kind == ExprKind::Name)
      if (const sema::Param *p = k_.param(x->operands[0]->text); p && p->type.space == sema::Space::Global)
        return {p, x};
    return {nullptr, nullptr};
  }

  //===-- copy.extent ------------------------------------------------------===//

  void checkExtent(const Expr &global, const Value &partner, const Expr &partnerExpr) {
    auto [param, view] = resolveGlobal(global);
    if (!param || !partner.shape)
      return;
    const std::vector<sema::Dim> &dims = param->type.dims;
    size_t n = view ? view->operands.size() - 1 : 0;
    if (n > dims.size())
      return;
    bool corner = view && n == dims.size() && n > 0;
    for (size_t i = 0; corner && i < n; ++i)
      corner = view->operands[i + 1]->kind != ExprKind::Slice;
    std::string partnerText(textOf(ctx_.sm, partnerExpr.range));
    if (corner) {
      if (dims.size() >= partner.shape->size())
        return;
      Diagnostic &d = ctx_.sink.report(
          "copy.extent", global.range,
          "corner-form view of '" + param->name + "' has rank " + std::to_string(dims.size()) +
              " but its partner '" + partnerText + "' has rank " + std::to_string(partner.shape->size()) +
              ": the box is the partner's shape aligned to the trailing dimensions, so the tensor needs at "
              "least as many dimensions");
      d.notes.push_back({partnerExpr.range, "the partner is " + views::shapeText(*partner.shape)});
      return;
    }
    if (partner.shape->empty())
      return; // a scalar stored to (or loaded from) a region broadcasts
    Shape extents;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i >= n)
        extents.push_back(dims[i].value);
      else if (const Expr &ix = *view->operands[i + 1]; ix.kind == ExprKind::Slice)
        extents.push_back(views::sliceExtent(ix, dims[i].value, k_.consts));
    }
    for (const auto &e : extents)
      if (!e)
        return;
    for (const auto &e : *partner.shape)
      if (!e)
        return;
    if (extents == *partner.shape)
      return;
    Diagnostic &d = ctx_.sink.report(
        "copy.extent", global.range,
        "the view of '" + param->name + "' has extents " + views::shapeText(extents) +
            " (scalar-indexed dimensions dropped) but its partner '" + partnerText + "' is " +
            views::shapeText(*partner.shape) +
            ": a copy moves whole tiles, so the slice must have the partner's shape");
    d.notes.push_back({partnerExpr.range, "the partner is " + views::shapeText(*partner.shape)});
  }

  //===-- tma.box ----------------------------------------------------------===//

  void checkBox(const Expr &global, const Expr &sharedExpr, const Value &s) {
    const TargetDesc &t = *k_.desc;
    if (!t.tmaMaxRank || !s.known() || s.space != sema::Space::Shared || s.shape->empty())
      return;
    uint32_t eb = sema::elemBytes(*s.elem);
    Shape box = *s.shape;
    int64_t inner = *box.back(), innerBytes = 0;
    if (inner <= 0 || __builtin_mul_overflow(inner, int64_t(eb), &innerBytes))
      return;
    std::string problem, consequence = "encoding the tensor map fails";
    std::optional<uint32_t> fixSwizzle;
    if (s.swizzle && innerBytes < s.swizzle && innerBytes % 16 == 0) {
      // legal to encode, but the swizzle permutes the 16-byte chunks of a whole span, which these rows
      // do not fill: no MMA operand layout matches, and the lowering has none
      problem = "its inner extent " + std::to_string(inner) + " (" + std::to_string(innerBytes) +
                " B) is narrower than the " + std::to_string(s.swizzle) + "B swizzle span";
      consequence = "the swizzle's rows would not be the tile's rows";
      for (uint32_t sw : kSwizzles)
        if (sw == innerBytes)
          fixSwizzle = sw;
    } else if (s.swizzle && innerBytes > s.swizzle) {
      int64_t panel = s.swizzle / eb;
      if (inner % panel != 0) {
        problem = "its inner extent " + std::to_string(inner) + " (" + std::to_string(innerBytes) +
                  " B) is wider than the " + std::to_string(s.swizzle) + "B swizzle span and not a whole number of " +
                  std::to_string(panel) + "-element panels";
        for (uint32_t sw : kSwizzles)
          if (inner % (sw / eb) == 0) {
            fixSwizzle = sw;
            break;
          }
      } else {
        box.back() = panel;
      }
    } else if (int64_t align = k_.desc->tmaAlignBytes; innerBytes % align != 0) {
      problem = "its inner extent is " + std::to_string(innerBytes) + " B, not a multiple of " + std::to_string(align) +
                " B";
    }
    auto [param, view] = resolveGlobal(global);
    size_t rank = std::max(box.size(), param ? param->type.dims.size() : 0);
    if (problem.empty() && rank > t.tmaMaxRank)
      problem = "it has rank " + std::to_string(rank) + ", more than the " + std::to_string(t.tmaMaxRank) +
                " dimensions of a tensor map";
    for (size_t i = 0; problem.empty() && i < box.size(); ++i)
      if (*box[i] > t.tmaMaxBoxDim)
        problem = "dimension " + std::to_string(i) + " has extent " + std::to_string(*box[i]) + ", more than " +
                  std::to_string(t.tmaMaxBoxDim);
    if (problem.empty())
      return;
    std::string key = s.declName + views::shapeText(*s.shape);
    if (auto it = boxReported_.find(key); it != boxReported_.end()) {
      Diagnostic &earlier = ctx_.sink.at(it->second);
      if (earlier.notes.size() < 4)
        earlier.notes.push_back({sharedExpr.range, "the same box is copied here"});
      return;
    }
    boxReported_[key] = ctx_.sink.size();
    std::string shape = views::shapeText(box);
    std::string operand(textOf(ctx_.sm, sharedExpr.range));
    Diagnostic &d = ctx_.sink.report("tma.box", sharedExpr.range,
                                     "illegal TMA box " + shape + " " + std::string(sema::elemName(*s.elem)) +
                                         " for '" + operand + "': " + problem + "; " + consequence);
    if (s.decl)
      d.notes.push_back({s.decl->range, "'" + s.declName + "' is declared here"});
    const Clause *swizzle = nullptr;
    if (s.decl)
      for (const Clause &c : s.decl->clauses)
        if (c.name.name == "swizzle" && c.args.size() == 1)
          swizzle = &c;
    if (fixSwizzle && swizzle) {
      std::string tag = std::to_string(*fixSwizzle) + "B";
      std::string why = *fixSwizzle == innerBytes ? "the span of one row"
                                                  : "its " + std::to_string(*fixSwizzle / eb) +
                                                        "-element panels divide the inner extent";
      // A row that is itself a swizzle span (32, 64 or 128 B) under a wider
      // swizzle takes its own span. Otherwise the tile's extent may be what
      // is wrong (a changed tile constant: rows of 96 or 192 B are no
      // swizzle's), and another swizzle changes the layout of the tile for
      // every reader of it (hazard 25): offered, not applied.
      Fix f = replaceFix("use swizzle(" + tag + "): " + why, swizzle->args[0]->range, tag);
      f.preferred = *fixSwizzle == innerBytes && (innerBytes & (innerBytes - 1)) == 0;
      d.fixes.push_back(std::move(f));
    }
  }

  //===-- tma.align --------------------------------------------------------===//

  /// What goes wrong when \p param's address or stride is misaligned: the
  /// tensor map (TMA) or the chunks (cp.async only).
  std::string misalignment(const std::string &param) const {
    if (!tmaUses_.count(param))
      return "ld.global reads its rows in " + std::to_string(rowUses_.at(param).need) +
             "-byte vectors (a misaligned-address fault at run time)";
    for (const Use &u : tmaUses_.at(param))
      if (opIdOf(*u.call, k_) != OpId::CpAsync)
        return "TMA rejects the tensor map (illegal instruction at run time)";
    return "cp.async's 16-byte chunks of it are misaligned (a misaligned-address fault at run time)";
  }

  /// The first TMA (or cp.async) use of \p p, as a note.
  Note useNote(const std::string &param) const {
    const Use &u = tmaUses_.count(param) ? tmaUses_.at(param).front() : rowUses_.at(param).use;
    return {u.call->range, "'" + param + "' is accessed by " + u.what + " here"};
  }

  void reportAlignment() {
    const uint32_t tmaNeed = k_.desc->tmaAlignBytes;
    // Stride findings are grouped by the size symbol whose fact is missing:
    // one `assume` repairs every tensor whose row stride is that symbol.
    std::map<std::string, std::vector<const sema::Param *>> bySymbol;
    std::vector<std::string> symbolOrder;
    std::map<std::string, uint32_t> needOf;
    for (const sema::Param &p : k_.params) {
      if ((!tmaUses_.count(p.name) && !rowUses_.count(p.name)) || !p.type.elem || !p.type.syntax)
        continue;
      // TMA and cp.async need the target's alignment, a warp's vector row loads their chunk
      const uint32_t need = tmaUses_.count(p.name) ? tmaNeed : rowUses_.at(p.name).need;
      needOf[p.name] = need;
      checkBaseAlign(p, need);
      uint32_t eb = sema::elemBytes(*p.type.elem);
      if (const Clause *strides = p.type.clause("strides")) {
        checkExplicitStrides(p, *strides, eb, need);
        continue;
      }
      if (p.type.dims.size() < 2)
        continue;
      const sema::Dim &row = p.type.dims.back();
      if (!row.expr || provablyMultiple(divisorOf(*row.expr, facts_, k_.consts), eb, need))
        continue;
      // Dim::symbol is only set where a symbol is first bound; later uses are
      // plain names of size symbols.
      std::string symbol = row.expr->kind == ExprKind::Name && k_.sizeSymbols.count(row.expr->text)
                               ? row.expr->text
                               : "";
      if (symbol.empty()) {
        reportStride(p, *row.expr, "row stride", eb, need, "");
        continue;
      }
      if (!bySymbol.count(symbol))
        symbolOrder.push_back(symbol);
      bySymbol[symbol].push_back(&p);
    }
    for (const std::string &sym : symbolOrder) {
      const std::vector<const sema::Param *> &params = bySymbol[sym];
      const sema::Param &first = *params.front();
      uint32_t need = 0;
      for (const sema::Param *q : params)
        need = std::max(need, needOf[q->name]);
      Diagnostic &d = reportStride(first, *first.type.dims.back().expr, "row stride",
                                   sema::elemBytes(*first.type.elem), need, sym);
      for (size_t i = 1; i < params.size(); ++i)
        d.notes.push_back({params[i]->type.dims.back().expr->range,
                           "'" + params[i]->name + "' has a row stride of " + sym + " elements too"});
    }
  }

  void checkBaseAlign(const sema::Param &p, uint32_t need) {
    if (p.type.align && *p.type.align >= need)
      return;
    const Clause *align = p.type.clause("align");
    std::string what = align ? "declares align(" + (p.type.align ? std::to_string(*p.type.align) : "?") + ")"
                             : "has no align(...)";
    SourceRange at = align ? align->range : p.type.syntax->range;
    Diagnostic &d = ctx_.sink.report("tma.align", at,
                                     "'" + p.name + "' " + what + " but is accessed by " +
                                         (misalignment(p.name).rfind("TMA", 0) == 0 ? std::string("TMA")
                                          : tmaUses_.count(p.name)        ? std::string(opInfo(OpId::CpAsync).name)
                                                                          : std::string(opInfo(OpId::LdGlobal).name)) +
                                         ", which needs a " +
                                         std::to_string(need) + "-byte aligned global address; declare align(" +
                                         std::to_string(need) + ") so that the launcher checks it");
    d.notes.push_back(useNote(p.name));
    std::string tag = std::to_string(need);
    if (align && align->args.size() == 1)
      d.fixes.push_back(replaceFix("raise to align(" + tag + ")", align->args[0]->range, tag));
    else if (SourceRange after = afterDims(ctx_.sm, *p.type.syntax); after.valid())
      d.fixes.push_back(replaceFix("add align(" + tag + ")", after, " align(" + tag + ")"));
  }

  void checkExplicitStrides(const sema::Param &p, const Clause &strides, uint32_t eb, uint32_t need) {
    if (strides.args.empty())
      return;
    const Expr &last = *strides.args.back();
    if (auto v = sema::evalInt(last, k_.consts); v && *v != 1) {
      ctx_.sink
          .report("tma.align", last.range,
                  "the inner stride of '" + p.name + "' is " + std::to_string(*v) +
                      " elements: TMA needs a contiguous inner dimension (stride 1)")
          .notes.push_back(useNote(p.name));
      return;
    }
    for (size_t i = 0; i + 1 < strides.args.size(); ++i) {
      const Expr &s = *strides.args[i];
      if (provablyMultiple(divisorOf(s, facts_, k_.consts), eb, need))
        continue;
      std::string sym = s.kind == ExprKind::Name && !k_.consts.count(s.text) ? s.text : "";
      reportStride(p, s, "stride " + std::to_string(i), eb, need, sym);
      return;
    }
  }

  /// Reports an unprovable stride at \p at; with a symbol, the fix-it adds the
  /// fact that makes it a multiple of \p need bytes.
  Diagnostic &reportStride(const sema::Param &p, const Expr &at, const std::string &which, uint32_t eb,
                           uint32_t need, const std::string &symbol) {
    std::string text(textOf(ctx_.sm, at.range));
    std::string what = "the " + which + " of '" + p.name + "' is " + text + " x " + std::to_string(eb) +
                       " B, not provably a multiple of " + std::to_string(need) + " B: " + misalignment(p.name);
    // A missing fact about a symbol the kernel already states facts about is
    // reported at those facts: that is the contract that is incomplete, and
    // where the fix goes; the tensor is a note.
    const Expr *stated = symbol.empty() ? nullptr : factAbout(k_, symbol);
    Diagnostic &d =
        stated ? ctx_.sink.report("tma.align", stated->range,
                                  "the facts about " + symbol + " ('" + std::string(textOf(ctx_.sm, stated->range)) +
                                      "') leave the " + which + " of '" + p.name + "' (" + text + " x " +
                                      std::to_string(eb) + " B) not provably a multiple of " + std::to_string(need) +
                                      " B: " + misalignment(p.name))
               : ctx_.sink.report("tma.align", at.range, what);
    if (stated)
      d.notes.push_back({at.range, "'" + p.name + "' has a row stride of " + text + " elements"});
    d.notes.push_back(useNote(p.name));
    const auto &stmts = k_.decl->body.stmts;
    if (!symbol.empty() && !stmts.empty()) {
      int64_t known = facts_.count(symbol) ? facts_.at(symbol) : 1;
      int64_t modulus = std::max(known, static_cast<int64_t>(need / std::gcd(need, eb)));
      std::string fact = symbol + " % " + std::to_string(modulus) + " == 0";
      // Into the kernel's `assume` when it has one: the facts of one
      // statement are one launch check, as the kernel was written.
      const syntax::AssumeStmt *assume = nullptr;
      for (const syntax::StmtPtr &st : stmts)
        if (auto *a = dyn_cast<syntax::AssumeStmt>(st.get()); a && !a->facts.empty()) {
          assume = a;
          break;
        }
      if (assume) {
        // `assume!K % 8 == 0` needs a space after the keyword, or the fix
        // would glue the new fact to it (`assumeK % 8 == 0, ...`: found by
        // tests/fuzz/FuzzFixes).
        uint32_t at = assume->facts.front()->range.begin;
        std::string_view text = ctx_.sm.text(assume->range.file);
        bool spaced = at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t');
        d.fixes.push_back(insertFix("add '" + fact + "' to the assume (checked at launch)", assume->range.file, at,
                                    (spaced ? "" : " ") + fact + ", "));
      } else
        d.fixes.push_back(insertLineBefore(ctx_.sm, *stmts.front(), "add 'assume " + fact + "' (checked at launch)",
                                           "assume " + fact));
    }
    return d;
  }

  //===-- mbar.expect-tx ---------------------------------------------------===//

  /// Evaluates a byte count: integers, tile.bytes(v), + - *.
  std::optional<int64_t> evalBytes(const Expr &e) const {
    const Expr *x = views::stripParens(&e);
    if (opIdOf(*x, k_) == OpId::TileBytes) {
      auto args = sema::positionalArgs(*x);
      return args.size() == 1 ? env_.infer(*args[0]).bytes() : std::nullopt;
    }
    if (x->kind == ExprKind::Binary && (x->op == Tok::Plus || x->op == Tok::Minus || x->op == Tok::Star)) {
      auto a = evalBytes(*x->operands[0]), b = evalBytes(*x->operands[1]);
      if (!a || !b)
        return std::nullopt;
      int64_t r;
      bool overflow = x->op == Tok::Plus    ? __builtin_add_overflow(*a, *b, &r)
                      : x->op == Tok::Minus ? __builtin_sub_overflow(*a, *b, &r)
                                            : __builtin_mul_overflow(*a, *b, &r);
      return overflow ? std::nullopt : std::optional<int64_t>(r);
    }
    return sema::evalInt(*x, k_.consts);
  }

  static bool isWaitOrExpect(OpId callee) {
    return callee == OpId::MbarrierWait || callee == OpId::MbarrierTryWait || callee == OpId::MbarrierArriveExpectTx ||
           callee == OpId::MbarrierExpectTx;
  }

  /// Whether \p s (or something nested in it) touches \p barrier: a copy
  /// signalling it, or a wait or expect-tx on it.
  bool touches(const Stmt &s, const Expr &barrier) const {
    bool found = false;
    forEachCall(s, [&](const Expr &call) {
      OpId callee = opIdOf(call, k_);
      auto args = sema::positionalArgs(call);
      if (callee == OpId::TmaLoad)
        found |= [&] {
          const Expr *b = sema::keywordArg(call, "barrier");
          return b && equal(b, &barrier);
        }();
      else if (isWaitOrExpect(callee))
        found |= !args.empty() && equal(args[0], &barrier);
    });
    return found;
  }

  /// Adds the copies of \p s to \p t; returns true when \p s waits on or
  /// re-arms \p barrier (the end of the phase's window).
  bool scanStmt(const Stmt &s, const Expr &barrier, int64_t times, Tally &t) const {
    if (auto *f = dyn_cast<ForStmt>(&s)) {
      if (!touches(s, barrier))
        return false;
      std::optional<int64_t> trips;
      const Expr *it = views::stripParens(f->iterable.get());
      std::optional<int64_t> step = sema::loopStep(*f, k_.consts);
      if (it->kind == ExprKind::Binary && it->op == Tok::DotDot && step) {
        auto lo = sema::evalInt(*it->operands[0], k_.consts), hi = sema::evalInt(*it->operands[1], k_.consts);
        int64_t span;
        if (lo && hi && !__builtin_sub_overflow(*hi, *lo, &span))
          trips = span <= 0 ? 0 : span / *step + (span % *step != 0);
      }
      Tally inner;
      int64_t repeat = 0;
      if (!trips || __builtin_mul_overflow(times, *trips, &repeat) || scanBlock(f->body, 0, barrier, repeat, inner) ||
          inner.unknown) {
        t.unknown = true;
        return true;
      }
      if (__builtin_add_overflow(t.bytes, inner.bytes, &t.bytes)) {
        t.unknown = true;
        return true;
      }
      t.copies.insert(t.copies.end(), inner.copies.begin(), inner.copies.end());
      return false;
    }
    if (auto *i = dyn_cast<IfStmt>(&s)) {
      if (!touches(s, barrier))
        return false;
      if (views::isElectOne(*i->cond) && !i->elseBody && !i->elseIf)
        return scanBlock(i->thenBody, 0, barrier, times, t);
      t.unknown = true; // the bytes depend on the path
      return true;
    }
    bool stop = false;
    forEachCallShallow(s, [&](const Expr &call) {
      if (stop)
        return;
      OpId callee = opIdOf(call, k_);
      auto args = sema::positionalArgs(call);
      if (isWaitOrExpect(callee) && !args.empty() && equal(args[0], &barrier)) {
        stop = true;
        return;
      }
      const Expr *b = sema::keywordArg(call, "barrier");
      if (callee != OpId::TmaLoad || !b || !equal(b, &barrier) || args.size() < 2)
        return;
      auto bytes = env_.infer(*args[1]).bytes();
      int64_t receivers = 1;
      if (const Expr *mc = sema::keywordArg(call, "multicast")) {
        auto mask = sema::evalInt(*mc, k_.consts);
        if (!mask || *mask < 0) {
          t.unknown = true;
          return;
        }
        receivers = std::max(1, std::popcount(static_cast<uint64_t>(*mask)));
      }
      int64_t each = 0, delivered = 0;
      if (!bytes || __builtin_mul_overflow(*bytes, receivers, &each) ||
          __builtin_mul_overflow(each, times, &delivered) || __builtin_add_overflow(t.bytes, delivered, &t.bytes)) {
        t.unknown = true;
        return;
      }
      t.copies.push_back({&call, each, times});
    });
    return stop;
  }

  bool scanBlock(const Block &b, size_t from, const Expr &barrier, int64_t times, Tally &t) const {
    for (size_t i = from; i < b.stmts.size(); ++i)
      if (scanStmt(*b.stmts[i], barrier, times, t))
        return true;
    return false;
  }

  void checkExpectTx(const Expr &call, const views::Context &c) {
    auto args = sema::positionalArgs(call);
    const Expr *bytesExpr = sema::keywordArg(call, "bytes");
    if (args.empty() || !bytesExpr || !c.block)
      return;
    auto declared = evalBytes(*bytesExpr);
    if (!declared)
      return;
    const Expr &barrier = *args[0];
    Tally t;
    // The window: the rest of this block, continued after each enclosing
    // `if elect.one()` (the same thread goes on), up to a wait or re-arm.
    bool stopped = scanBlock(*c.block, c.index + 1, barrier, 1, t);
    for (size_t i = c.ancestors.size(); !stopped && i-- > 0;) {
      const views::Ancestor &a = c.ancestors[i];
      auto *ifs = dyn_cast<IfStmt>(a.stmt);
      if (!ifs || a.elseBranch || !views::isElectOne(*ifs->cond))
        break;
      stopped = scanBlock(*a.block, a.index + 1, barrier, 1, t);
    }
    if (t.unknown || t.copies.empty() || t.bytes == *declared)
      return;
    std::string b(textOf(ctx_.sm, barrier.range));
    std::string effect = *declared < t.bytes
                             ? "the phase completes before all the data lands and readers see stale shared memory"
                             : "the phase never completes and its waiters hang";
    Diagnostic &d = ctx_.sink.report("mbar.expect-tx", bytesExpr->range,
                                     "'" + b + "' expects " + std::to_string(*declared) +
                                         " bytes but the TMA copies that signal it before its next wait deliver " +
                                         std::to_string(t.bytes) + ": " + effect);
    for (const Tally::Copy &copy : t.copies)
      d.notes.push_back({copy.call->range, "this copy delivers " + std::to_string(copy.bytes) + " bytes" +
                                               (copy.times > 1 ? " on each of " + std::to_string(copy.times) +
                                                                     " iterations"
                                                               : std::string())});
    d.fixes.push_back(replaceFix("expect " + std::to_string(t.bytes) + " bytes", bytesExpr->range,
                                 std::to_string(t.bytes)));
  }

  //===-- mbar.count -------------------------------------------------------===//

  /// The raw mbarrier var \p e names (following lets) and its index text.
  std::pair<std::string, std::string> barrierOf(const Expr &e, int depth = 0) const {
    const Expr *x = views::stripParens(&e);
    std::string index;
    if (x->kind == ExprKind::Index) {
      for (size_t i = 1; i < x->operands.size(); ++i)
        index += std::string(i > 1 ? ", " : "") + std::string(textOf(ctx_.sm, x->operands[i]->range));
      x = views::stripParens(x->operands[0].get());
    }
    if (x->kind != ExprKind::Name)
      return {};
    if (const sema::Buffer *b = k_.buffer(x->text); b && b->type.elem == sema::Elem::Mbarrier)
      return {x->text, index};
    if (const LetStmt *l = env_.letOf(x->text); l && l->names.size() == 1 && index.empty() && depth < 8)
      return barrierOf(*l->value, depth + 1);
    return {};
  }

  /// How many threads of the statement's role execute it, and why.
  std::optional<int64_t> executors(const views::Context &c, bool oneThread, std::string &how) const {
    const sema::Role *role = c.role;
    if (!role || !role->warps())
      return std::nullopt;
    int64_t warps = *role->warps();
    int64_t units = role->issue == sema::IssueMode::Elect ? 1
                    : role->issue == sema::IssueMode::Warp ? warps
                                                           : warps / 4;
    int64_t n = role->issue == sema::IssueMode::Elect ? 1 : warps * 32;
    how = role->issue == sema::IssueMode::Elect ? "the elected thread of role '" + role->name + "'"
                                                : "every thread of role '" + role->name + "'";
    for (const views::Ancestor &a : c.ancestors) {
      auto *ifs = dyn_cast<IfStmt>(a.stmt);
      if (!ifs)
        continue; // loops repeat the arrive once per phase
      if (a.elseBranch)
        return std::nullopt;
      const Expr *cond = views::stripParens(ifs->cond.get());
      auto isCall = [&](const Expr *x, OpId op) {
        return x && opIdOf(*views::stripParens(x), k_) == op;
      };
      bool byLane = false, byThread = false;
      if (cond->kind == ExprKind::Binary && cond->op == Tok::EqEq) {
        const Expr *l = cond->operand(0), *r = cond->operand(1);
        bool constSide = sema::evalInt(*r, k_.consts) || sema::evalInt(*l, k_.consts);
        byLane = constSide && (isCall(l, OpId::SelfLane) || isCall(r, OpId::SelfLane));
        byThread = constSide && (isCall(l, OpId::SelfThread) || isCall(r, OpId::SelfThread));
      }
      if (views::isElectOne(*cond)) {
        if (units < n) {
          n = units;
          how = "one elected thread per " + std::string(role->issue == sema::IssueMode::Warp ? "warp" : "warpgroup") +
                " of role '" + role->name + "'";
        }
      } else if (byLane) {
        if (warps < n) {
          n = warps;
          how = "one lane per warp of role '" + role->name + "'";
        }
      } else if (byThread) {
        n = 1;
        how = "one thread of role '" + role->name + "'";
      } else {
        return std::nullopt; // a condition that may skip phases or split threads unknowably
      }
    }
    if (oneThread && n > units)
      return std::nullopt; // role.issue reports the contract
    return n;
  }

  void recordArrival(const Expr &call, const sema::OpInfo &op, const views::Context &c) {
    auto args = sema::positionalArgs(call);
    if (args.empty())
      return;
    auto [barrier, index] = barrierOf(*args[0]);
    if (barrier.empty())
      return;
    Arrival a{&call, barrier, index, std::nullopt, ""};
    auto n = executors(c, op.issue == sema::Issue::One, a.how);
    int64_t each = 1;
    if (const Expr *count = sema::keywordArg(call, "count")) {
      auto v = sema::evalInt(*count, k_.consts);
      if (!v)
        n.reset();
      else
        each = *v;
    }
    int64_t total;
    if (n && !__builtin_mul_overflow(*n, each, &total))
      a.perPhase = total;
    arrivals_.push_back(std::move(a));
  }

  void reportCounts() {
    for (const sema::Buffer &buf : k_.buffers) {
      const Clause *countClause = buf.type.clause("count");
      if (buf.type.elem != sema::Elem::Mbarrier || !buf.type.count || !countClause || countClause->args.size() != 1)
        continue;
      std::map<std::string, int64_t> perBarrier;
      std::vector<const Arrival *> sites;
      bool unknown = false;
      for (const Arrival &a : arrivals_) {
        if (a.barrier != buf.name)
          continue;
        sites.push_back(&a);
        if (!a.perPhase || __builtin_add_overflow(perBarrier[a.indexKey], *a.perPhase, &perBarrier[a.indexKey]))
          unknown = true;
      }
      if (sites.empty() || unknown)
        continue;
      int64_t total = perBarrier.begin()->second;
      bool agree = true;
      for (const auto &[index, n] : perBarrier)
        agree &= n == total;
      if (!agree || total == *buf.type.count)
        continue;
      std::string effect = total > *buf.type.count
                               ? "each phase completes " + std::to_string(total - *buf.type.count) +
                                     " arrival" + (total - *buf.type.count == 1 ? "" : "s") +
                                     " early and releases the waiters before every arriving thread is done"
                               : "no phase ever completes and the waiters hang";
      Diagnostic &d = ctx_.sink.report("mbar.count", countClause->args[0]->range,
                                       "'" + buf.name + "' is initialized with count(" +
                                           std::to_string(*buf.type.count) + ") but " + std::to_string(total) +
                                           (total == 1 ? " arrival reaches" : " arrivals reach") +
                                           " each barrier per phase: " + effect);
      for (const Arrival *a : sites)
        d.notes.push_back({a->call->range, "arrives " + std::to_string(*a->perPhase) + " time" +
                                               (*a->perPhase == 1 ? "" : "s") + " per phase (" + a->how + ")"});
      d.fixes.push_back(
          replaceFix("initialize with count(" + std::to_string(total) + ")", countClause->args[0]->range,
                     std::to_string(total)));
    }
  }

  const sema::Kernel &k_;
  RuleContext &ctx_;
  views::Env env_;
  Facts facts_;
  std::map<std::string, std::vector<Use>> tmaUses_;
  struct RowUse {
    Use use;
    uint32_t need = 0;
  };
  std::map<std::string, RowUse> rowUses_;
  std::map<std::string, size_t> boxReported_;
  std::vector<Arrival> arrivals_;
};

} // namespace

void checkCopies(const sema::Kernel &kernel, RuleContext &ctx) {
  if (!kernel.decl || !kernel.desc)
    return;
  CopiesChecker(kernel, ctx).run();
}

} // namespace cake::verify
