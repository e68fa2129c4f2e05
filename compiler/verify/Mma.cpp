//===- Mma.cpp - The mma rule family --------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/mma.def and their pages in docs/rules/.
//
//   mma.shape           instruction shapes of mma.sync, wgmma and tcgen05, and
//                       their agreement with the operands (hazard 26)
//   mma.dtype           operand and accumulator element types; no silent tf32
//   mma.operand-major   MN-major (tile.t) operands only for 16-bit wgmma
//   perf.bank-conflict  fragment-layout generic accesses to unswizzled rows
//                       that are multiples of 128 B (hazard 31)
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"
#include "compiler/verify/Views.h"

#include <set>

namespace cake::verify {
namespace {

using namespace syntax;
using sema::Elem;
using sema::OpId;
using views::Value;

/// The input kinds of tensor-core instructions.
enum class Kind { BF16, FP16, TF32, FP8, I8, None };

/// fp32 counts as tf32 here: mma.dtype reports it, the shape rules treat it
/// as what the hardware would read.
Kind kindOf(std::optional<Elem> e) {
  if (!e)
    return Kind::None;
  switch (*e) {
  case Elem::BF16:
    return Kind::BF16;
  case Elem::FP16:
    return Kind::FP16;
  case Elem::TF32:
  case Elem::FP32:
    return Kind::TF32;
  case Elem::E4M3:
  case Elem::E5M2:
    return Kind::FP8;
  case Elem::I8:
  case Elem::U8:
    return Kind::I8;
  default:
    return Kind::None;
  }
}

const char *kindName(Kind k) {
  switch (k) {
  case Kind::BF16:
    return "bf16";
  case Kind::FP16:
    return "fp16";
  case Kind::TF32:
    return "tf32";
  case Kind::FP8:
    return "fp8";
  case Kind::I8:
    return "8-bit integer";
  default:
    return "?";
  }
}

/// The K of one instruction of contract \p c for operands of kind \p k.
int64_t instrK(const MmaContract &c, Kind k) {
  return k == Kind::TF32 ? c.kTf32 : (k == Kind::FP8 || k == Kind::I8) ? c.k8 : c.k16;
}

bool isSixteenBit(Kind k) { return k == Kind::BF16 || k == Kind::FP16; }

struct MmaShape {
  int64_t m = 0, n = 0, k = 0;
  std::string tag() const {
    return "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
  }
};

/// Parses `m64n256k16`.
std::optional<MmaShape> parseShape(std::string_view s) {
  MmaShape out;
  int64_t *fields[] = {&out.m, &out.n, &out.k};
  const char letters[] = {'m', 'n', 'k'};
  for (int f = 0; f < 3; ++f) {
    if (s.empty() || s.front() != letters[f])
      return std::nullopt;
    s.remove_prefix(1);
    size_t digits = 0;
    while (digits < s.size() && digits < 6 && s[digits] >= '0' && s[digits] <= '9')
      ++digits;
    if (!digits)
      return std::nullopt;
    *fields[f] = std::stoll(std::string(s.substr(0, digits)));
    s.remove_prefix(digits);
  }
  return s.empty() ? std::optional<MmaShape>(out) : std::nullopt;
}

/// Dimension \p i of a rank-2 value, when known.
std::optional<int64_t> dim2(const Value &v, size_t i) {
  return v.shape && v.shape->size() == 2 ? (*v.shape)[i] : std::nullopt;
}

/// The contract family of MMA operation \p op.
MmaFamily mmaFamily(OpId op) {
  return op == OpId::MmaSync ? MmaFamily::Sync : op == OpId::WgmmaMma ? MmaFamily::Wgmma : MmaFamily::Tcgen05;
}

/// The accumulator element types instruction \p op produces from \p k inputs.
std::vector<Elem> accumulators(OpId op, Kind k) {
  switch (k) {
  case Kind::FP16:
    return {Elem::FP32, Elem::FP16};
  case Kind::FP8:
    return op == OpId::MmaSync ? std::vector<Elem>{Elem::FP32} : std::vector<Elem>{Elem::FP32, Elem::FP16};
  case Kind::I8:
    return {Elem::I32};
  default:
    return {Elem::FP32};
  }
}

/// The element-type token of the declaration behind \p v, when it spells
/// \p elem (so that a fix-it can rewrite it).
const Ident *declaredElem(const Value &v, Elem elem) {
  return v.decl && sema::parseElem(v.decl->elem.name) == elem ? &v.decl->elem : nullptr;
}

class MmaChecker {
public:
  MmaChecker(const sema::Kernel &kernel, RuleContext &ctx) : k_(kernel), ctx_(ctx), env_(kernel) {}

  void run() {
    views::walkKernel(k_, env_, [&](const Stmt &s, const views::Context &) {
      forEachCallShallow(s, [&](const Expr &call) { onCall(call); });
    });
  }

private:
  void onCall(const Expr &call) {
    const sema::OpInfo *op = opOf(call, k_);
    if (!op)
      return;
    auto args = sema::positionalArgs(call);
    if (op->cls == sema::OpClass::Mma && args.size() == 3) {
      Operands o{call, op->id, *args[0], *args[1], *args[2], env_.infer(*args[0]), env_.infer(*args[1]),
                 env_.infer(*args[2])};
      Kind kind = checkDtype(o);
      if (o.op == OpId::WgmmaMma)
        checkOperandMajor(o);
      checkShape(o, kind);
      return;
    }
    if (op->id == OpId::LdShared || op->id == OpId::LdMatrix) {
      if (!args.empty())
        checkBanks(call, op->id, *args[0], nullptr);
    } else if (op->id == OpId::StShared || op->id == OpId::StMatrix) {
      if (args.size() == 2)
        checkBanks(call, op->id, *args[1], args[0]);
    }
  }

  struct Operands {
    const Expr &call;
    OpId op;
    const Expr &a, &b, &acc;
    Value av, bv, cv;
  };

  std::string text(const Expr &e) const { return std::string(textOf(ctx_.sm, e.range)); }

  //===-- mma.dtype --------------------------------------------------------===//

  /// Checks the element types; returns the input kind when A or B says it.
  Kind checkDtype(const Operands &o) {
    for (auto [expr, v] : {std::pair{&o.a, &o.av}, std::pair{&o.b, &o.bv}}) {
      if (!v->elem)
        continue;
      if (*v->elem == Elem::FP32)
        reportFp32(o, *expr, *v);
      else if (kindOf(v->elem) == Kind::None)
        ctx_.sink.report("mma.dtype", expr->range,
                         "'" + text(*expr) + "' is " + std::string(sema::elemName(*v->elem)) + ", which " +
                             std::string(sema::opIdName(o.op)) + " cannot read: operands are bf16, fp16, tf32, e4m3, e5m2, i8 or u8");
    }
    Kind ka = kindOf(o.av.elem), kb = kindOf(o.bv.elem);
    if (ka != Kind::None && kb != Kind::None && ka != kb) {
      Diagnostic &d = ctx_.sink.report("mma.dtype", o.b.range,
                                       "B operand '" + text(o.b) + "' is " + kindName(kb) + " but A operand '" +
                                           text(o.a) + "' is " + kindName(ka) + ": one " + std::string(sema::opIdName(o.op)) +
                                           " reads one input kind; convert one of them");
      d.notes.push_back({o.a.range, "A is " + std::string(kindName(ka))});
      return Kind::None;
    }
    Kind kind = ka != Kind::None ? ka : kb;
    if (kind != Kind::None && o.cv.elem) {
      std::vector<Elem> ok = accumulators(o.op, kind);
      if (std::find(ok.begin(), ok.end(), *o.cv.elem) == ok.end())
        reportAccumulator(o, kind, ok.front());
    }
    return kind;
  }

  void reportFp32(const Operands &o, const Expr &expr, const Value &v) {
    const TypeExpr *key = v.decl;
    if (key) {
      if (auto it = fp32Reported_.find(key); it != fp32Reported_.end()) {
        Diagnostic &earlier = ctx_.sink.at(it->second);
        if (earlier.notes.size() < 4)
          earlier.notes.push_back({expr.range, "also read by an MMA here"});
        return;
      }
      fp32Reported_[key] = ctx_.sink.size();
    }
    Diagnostic &d = ctx_.sink.report("mma.dtype", expr.range,
                                     "'" + text(expr) + "' is fp32: " + std::string(sema::opIdName(o.op)) +
                                         " would read it as tf32 and silently drop 13 mantissa bits; declare it tf32 "
                                         "to say so");
    if (const Ident *elem = declaredElem(v, Elem::FP32)) {
      d.notes.push_back({elem->range, "'" + v.declName + "' is declared fp32 here"});
      d.fixes.push_back(replaceFix("declare '" + v.declName + "' tf32", elem->range, "tf32"));
    }
  }

  void reportAccumulator(const Operands &o, Kind kind, Elem want) {
    const TypeExpr *key = o.cv.decl;
    if (key && !accReported_.insert(key).second)
      return;
    std::string wantName(sema::elemName(want));
    Diagnostic &d = ctx_.sink.report("mma.dtype", o.acc.range,
                                     "accumulator '" + text(o.acc) + "' is " +
                                         std::string(sema::elemName(*o.cv.elem)) + " but " + std::string(sema::opIdName(o.op)) +
                                         " accumulates " + kindName(kind) + " inputs in " + wantName);
    if (const Ident *elem = declaredElem(o.cv, *o.cv.elem)) {
      d.notes.push_back({elem->range, "'" + o.cv.declName + "' is declared here"});
      d.fixes.push_back(replaceFix("declare '" + o.cv.declName + "' " + wantName, elem->range, wantName));
    }
  }

  //===-- mma.operand-major ------------------------------------------------===//

  void checkOperandMajor(const Operands &o) {
    for (auto [expr, v] : {std::pair{&o.a, &o.av}, std::pair{&o.b, &o.bv}}) {
      Kind kind = kindOf(v->elem);
      if (!v->transposed || kind == Kind::None || isSixteenBit(kind))
        continue;
      ctx_.sink.report("mma.operand-major", expr->range,
                       "'" + text(*expr) + "' is an MN-major (transposed) " + kindName(kind) +
                           " operand: wgmma reads MN-major shared-memory operands only for bf16 and fp16; store the "
                           "tile K-major (transpose it when it is written) and pass it without tile.t");
    }
  }

  //===-- mma.shape --------------------------------------------------------===//

  void checkShape(const Operands &o, Kind kind) {
    const Expr *shapeExpr = sema::keywordArg(o.call, "shape");
    if (!shapeExpr)
      return;
    std::string tag = shapeExpr->kind == ExprKind::Name ? shapeExpr->text : text(*shapeExpr);
    std::optional<MmaShape> s = parseShape(tag);
    if (o.op == OpId::MmaSync)
      return checkSyncShape(o, kind, *shapeExpr, tag, s);
    bool tcgen05 = o.op == OpId::Tcgen05Mma;
    int64_t ctaGroup = 1;
    if (const Expr *cg = sema::keywordArg(o.call, "cta_group"))
      ctaGroup = sema::evalInt(*cg, k_.consts).value_or(0);
    if (ctaGroup != 1 && ctaGroup != 2)
      return;
    // The N the operands ask for: the accumulator's, else B's rows.
    auto accN = dim2(o.cv, 1), accM = dim2(o.cv, 0), bN = dim2(o.bv, 0);
    bool splitB = tcgen05 && ctaGroup == 2; // each CTA of the pair holds half of B
    if (accN && bN && !splitB && *accN != *bN) {
      Diagnostic &d = ctx_.sink.report("mma.shape", o.b.range,
                                       "B operand '" + text(o.b) + "' has " + std::to_string(*bN) +
                                           " rows but the accumulator '" + text(o.acc) + "' has N = " +
                                           std::to_string(*accN) + ": B is [N, K]");
      d.notes.push_back({o.acc.range, "the accumulator is " + views::shapeText(*o.cv.shape)});
      return;
    }
    std::optional<int64_t> wantN = accN ? accN : splitB ? std::nullopt : bN;
    std::vector<std::string> problems;
    MmaShape fixed;
    const MmaContract &contract = *k_.desc->mmaContract(mmaFamily(o.op));
    bool pair = ctaGroup == 2;
    auto legalM = [&](int64_t m) { return contract.legalM(m, pair); };
    auto stepFor = [&](int64_t m) -> int64_t { return contract.stepFor(m); };
    auto legalN = [&](int64_t m, int64_t n) { return contract.legalN(m, n); };
    auto mList = [&] {
      const auto &set = pair ? contract.mPair : contract.m;
      return std::to_string(set[0]) + (set[1] ? " or " + std::to_string(set[1]) : "");
    };
    auto instrK = [&](Kind kind) { return verify::instrK(contract, kind); };
    if (!s) {
      problems.push_back("'" + tag + "' is not a shape of the form mMnNkK");
    } else {
      if (!legalM(s->m))
        problems.push_back(tcgen05 ? "M must be " + mList() + " with cta_group = " + std::to_string(ctaGroup)
                                   : "M must be " + mList() + " (one warpgroup)");
      if (legalM(s->m) && !legalN(s->m, s->n))
        problems.push_back("N must be a multiple of " + std::to_string(stepFor(s->m)) + " from " +
                           std::to_string(contract.nMin) + " to " + std::to_string(contract.nMax));
      if (kind != Kind::None && s->k != instrK(kind))
        problems.push_back("K must be " + std::to_string(instrK(kind)) + " for " + kindName(kind) + " operands");
      std::string wantFrom = accN ? "accumulator " + views::shapeText(*o.cv.shape) : "B operand";
      if (wantN && s->n != *wantN && !legalN(legalM(s->m) ? s->m : contract.m[0], *wantN))
        problems.push_back("the " + wantFrom + " has N = " + std::to_string(*wantN) +
                           ", which no single instruction computes; split it into tiles of at most " +
                           std::to_string(contract.nMax) + " columns");
      else if (wantN && s->n != *wantN)
        problems.push_back("N must be " + std::to_string(*wantN) + ", the N of the " + wantFrom);
      if (tcgen05 && ctaGroup == 1 && accM && s->m != *accM && legalM(*accM))
        problems.push_back("M must be " + std::to_string(*accM) + ", the M of the accumulator " +
                           views::shapeText(*o.cv.shape));
    }
    if (!problems.empty()) {
      std::string message = "illegal " + std::string(sema::opIdName(o.op)) + " shape " + tag + ": " + problems.front();
      for (size_t i = 1; i < problems.size(); ++i)
        message += "; " + problems[i];
      Diagnostic &d = ctx_.sink.report("mma.shape", shapeExpr->range, message);
      // The nearest legal shape: M from the accumulator (or the closest legal
      // M), N from the operands (or rounded), K from the element type.
      std::optional<int64_t> m, n, kk;
      const auto &mSet = pair ? contract.mPair : contract.m;
      if (!mSet[1])
        m = mSet[0];
      else if (accM && legalM(*accM) && !pair)
        m = accM;
      else if (s)
        m = s->m <= mSet[0] ? mSet[0] : mSet[1];
      if (m) {
        int64_t step = stepFor(*m);
        if (wantN && legalN(*m, *wantN))
          n = wantN;
        else if (s && !wantN)
          n = std::clamp<int64_t>((s->n + step / 2) / step * step, std::max<int64_t>(step, contract.nMin),
                                  contract.nMax);
      }
      kk = kind != Kind::None ? std::optional<int64_t>(instrK(kind)) : s ? std::optional<int64_t>(s->k) : std::nullopt;
      if (m && n && kk) {
        fixed = {*m, *n, *kk};
        if (fixed.tag() != tag)
          d.fixes.push_back(replaceFix("use " + fixed.tag(), shapeExpr->range, fixed.tag()));
      }
      return;
    }
    checkOperandShapes(o, *s, kind, tcgen05, ctaGroup);
  }

  /// Operand shapes the instruction shape cannot repair.
  void checkOperandShapes(const Operands &o, const MmaShape &s, Kind kind, bool tcgen05, int64_t ctaGroup) {
    auto accM = dim2(o.cv, 0), aM = dim2(o.av, 0), aK = dim2(o.av, 1), bK = dim2(o.bv, 1);
    if (!tcgen05 && accM && *accM != 64) {
      ctx_.sink.report("mma.shape", o.acc.range,
                       "accumulator '" + text(o.acc) + "' is " + views::shapeText(*o.cv.shape) +
                           " but one wgmma.mma computes a [64, N] tile per warpgroup; split the rows over "
                           "warpgroups or calls");
      return;
    }
    if (aM && *aM != s.m && (!tcgen05 || ctaGroup == 1)) {
      ctx_.sink.report("mma.shape", o.a.range,
                       "A operand '" + text(o.a) + "' has " + std::to_string(*aM) + " rows but the shape has M = " +
                           std::to_string(s.m));
      return;
    }
    if (aK && bK && *aK != *bK) {
      Diagnostic &d = ctx_.sink.report("mma.shape", o.b.range,
                                       "B operand '" + text(o.b) + "' has K = " + std::to_string(*bK) +
                                           " but A operand '" + text(o.a) + "' has K = " + std::to_string(*aK));
      d.notes.push_back({o.a.range, "A is " + views::shapeText(*o.av.shape)});
      return;
    }
    std::optional<int64_t> kt = aK ? aK : bK;
    if (kt && kind != Kind::None && *kt % s.k != 0)
      ctx_.sink.report("mma.shape", (aK ? o.a : o.b).range,
                       "the operands have K = " + std::to_string(*kt) + ", not a multiple of the instruction's K = " +
                           std::to_string(s.k));
  }

  void checkSyncShape(const Operands &o, Kind kind, const Expr &shapeExpr, const std::string &tag,
                      const std::optional<MmaShape> &s) {
    const MmaContract &c = *k_.desc->mmaContract(MmaFamily::Sync);
    MmaShape want{c.m[0], c.nMin, kind != Kind::None ? instrK(c, kind) : 0};
    bool known = s && s->m == c.m[0] && s->n == c.nMin && (s->k == c.kTf32 || s->k == c.k16 || s->k == c.k8);
    if (kind != Kind::None ? tag != want.tag() : !known) {
      std::string why = kind != Kind::None ? "mma.sync on " + std::string(kindName(kind)) + " operands is " + want.tag()
                                           : "mma.sync shapes are m16n8k16, m16n8k8 and m16n8k32";
      Diagnostic &d =
          ctx_.sink.report("mma.shape", shapeExpr.range, "illegal mma.sync shape " + tag + ": " + why);
      if (kind != Kind::None)
        d.fixes.push_back(replaceFix("use " + want.tag(), shapeExpr.range, want.tag()));
      return;
    }
    // The tile-level operation tiles [M, N] += [M, K] [N, K]^T by the shape.
    auto accM = dim2(o.cv, 0), accN = dim2(o.cv, 1), aM = dim2(o.av, 0), aK = dim2(o.av, 1), bN = dim2(o.bv, 0),
         bK = dim2(o.bv, 1);
    auto report = [&](const Expr &at, const std::string &message) { ctx_.sink.report("mma.shape", at.range, message); };
    if (accM && aM && *accM != *aM)
      return report(o.a, "A operand '" + text(o.a) + "' has " + std::to_string(*aM) + " rows but the accumulator has " +
                             std::to_string(*accM));
    if (accN && bN && *accN != *bN)
      return report(o.b, "B operand '" + text(o.b) + "' has " + std::to_string(*bN) +
                             " rows but the accumulator has N = " + std::to_string(*accN));
    if (aK && bK && *aK != *bK)
      return report(o.b, "B operand '" + text(o.b) + "' has K = " + std::to_string(*bK) + " but A has K = " +
                             std::to_string(*aK));
    if (accM && *accM % s->m != 0)
      return report(o.acc, "the accumulator has M = " + std::to_string(*accM) + ", not a multiple of 16");
    if (accN && *accN % s->n != 0)
      return report(o.acc, "the accumulator has N = " + std::to_string(*accN) + ", not a multiple of 8");
    if (aK && *aK % s->k != 0)
      report(o.a, "the operands have K = " + std::to_string(*aK) + ", not a multiple of " + std::to_string(s->k));
  }

  //===-- perf.bank-conflict -----------------------------------------------===//

  void checkBanks(const Expr &call, OpId op, const Expr &view, const Expr *value) {
    Value v = env_.infer(view);
    if (v.space != sema::Space::Shared || v.swizzle || !v.decl || !v.storageRowBytes || !v.shape ||
        v.shape->size() < 2)
      return;
    int64_t row = *v.storageRowBytes;
    if (row < 128 || row % 32 != 0)
      return;
    auto rows = (*v.shape)[v.shape->size() - 2];
    if (!rows || *rows < 2)
      return;
    // Only fragment layouts put several rows into one access; blocked loads
    // and per-thread columns walk rows contiguously.
    bool fragment = op == OpId::LdMatrix || op == OpId::StMatrix;
    if (op == OpId::LdShared)
      fragment = sema::keywordArg(call, "like") && !sema::keywordArg(call, "axis");
    if (op == OpId::StShared)
      fragment = value && env_.infer(*value).rank() >= 2;
    if (!fragment)
      return;
    if (auto it = banksReported_.find(v.decl); it != banksReported_.end()) {
      Diagnostic &earlier = ctx_.sink.at(it->second);
      if (earlier.notes.size() < 4)
        earlier.notes.push_back({view.range, "also accessed here"});
      return;
    }
    banksReported_[v.decl] = ctx_.sink.size();
    int64_t pitch = (row / 16) % 8;
    int64_t ways = pitch == 0 ? 8 : std::gcd<int64_t>(pitch, 8);
    uint32_t swizzle = row % 128 == 0 ? 128 : row % 64 == 0 ? 64 : 32;
    Diagnostic &d = ctx_.sink.report(
        "perf.bank-conflict", view.range,
        std::string(sema::opIdName(op)) + " accesses '" + v.declName + "' in an MMA fragment layout, but its " + std::to_string(row) +
            "-byte rows are unswizzled: the rows of one access start in the same banks (up to " +
            std::to_string(ways) + "-way bank conflicts); declare it swizzle(" + std::to_string(swizzle) + "B)");
    d.notes.push_back({v.decl->range, "'" + v.declName + "' is declared here"});
    std::string_view src = ctx_.sm.text(v.decl->range.file);
    size_t close = v.decl->dims.empty() ? std::string_view::npos : src.find(']', v.decl->dims.back()->range.end);
    if (close != std::string_view::npos && close < v.decl->range.end) {
      uint32_t at = static_cast<uint32_t>(close + 1);
      d.fixes.push_back(replaceFix("add swizzle(" + std::to_string(swizzle) + "B)", {v.decl->range.file, at, at},
                                   " swizzle(" + std::to_string(swizzle) + "B)"));
    }
  }

  const sema::Kernel &k_;
  RuleContext &ctx_;
  views::Env env_;
  std::map<const TypeExpr *, size_t> fp32Reported_, banksReported_;
  std::set<const TypeExpr *> accReported_;
};

} // namespace

void checkMma(const sema::Kernel &kernel, RuleContext &ctx) {
  if (!kernel.decl || !kernel.desc)
    return;
  MmaChecker(kernel, ctx).run();
}

} // namespace cake::verify
