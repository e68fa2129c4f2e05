//===- Work.cpp - What a kernel does per tile -----------------------------===//
//
// A walk over each role's statements with a multiplier: a `for` over a range
// multiplies by its trip count (evaluated at the sizes), the `for` over a
// sched.tiles schedule is the tile loop and multiplies by nothing (counts are
// per tile), an `if` whose condition is unknown is taken once. Shapes of
// views and register values are sema's (sema/Shapes.h), evaluated at the
// sizes: the verifier and the lowering read the same inference.
//
//===----------------------------------------------------------------------===//
#include "compiler/cost/Work.h"

#include "compiler/sema/Ops.h"
#include "compiler/sema/Shapes.h"
#include "compiler/syntax/Walk.h"

#include <cmath>

namespace cake::cost {
namespace {

using namespace syntax;
using sema::OpId;

/// The reductions along an axis (reduce.*): their result drops the axis.
bool isReduction(OpId op) {
  return op == OpId::ReduceArgmax || op == OpId::ReduceArgmin || op == OpId::ReduceMax || op == OpId::ReduceMin ||
         op == OpId::ReduceSum;
}

struct Shape {
  std::vector<int64_t> dims;
  double elemBytes = 0;
  double bytes() const {
    double n = elemBytes;
    for (int64_t d : dims)
      n *= double(d);
    return n;
  }
};

class Walker {
public:
  Walker(const sema::Kernel &k, const Sizes &sizes, KernelWork &out)
      : k_(k), out_(out), env_(k, [this](const std::string &n) -> std::optional<int64_t> {
          if (auto it = values_.find(n); it != values_.end())
            return it->second;
          return std::nullopt;
        }) {
    for (auto &[name, v] : k.consts)
      values_[name] = v;
    for (auto &[name, v] : sizes)
      values_[name] = v;
  }

  void run() {
    for (const StmtPtr &s : k_.decl->body.stmts)
      if (auto *let = dyn_cast<LetStmt>(s.get()))
        bindLet(*let);
      else if (auto *var = dyn_cast<VarStmt>(s.get()))
        vars_[var->name.name] = &var->type, env_.bindVar(*var);
    if (!out_.scheduled && k_.gridClause)
      for (size_t i = 0; i < k_.gridClause->args.size() && i < 3; ++i) {
        if (auto v = eval(*k_.gridClause->args[i]))
          out_.grid[i] = std::max<int64_t>(1, *v);
        else
          out_.problems.push_back("the grid does not evaluate at these sizes");
      }
    if (!out_.scheduled)
      out_.tiles = double(out_.grid[0]) * double(out_.grid[1]) * double(out_.grid[2]);
    for (const sema::Role &r : k_.roles) {
      RoleWork rw;
      rw.role = &r;
      role_ = &rw;
      units_ = unitsOf(r);
      warps_ = double(r.warps().value_or(1));
      unitThreads_ = r.issue == sema::IssueMode::Warpgroup ? 128 : 32;
      phase_ = 0;
      loops_.clear();
      walkBlock(r.decl->body, 1.0, true);
      out_.roles.push_back(std::move(rw));
    }
  }

private:
  const sema::Kernel &k_;
  KernelWork &out_;
  std::map<std::string, int64_t, std::less<>> values_;
  std::map<std::string, const Expr *, std::less<>> lets_;
  std::map<std::string, const TypeExpr *, std::less<>> vars_;
  /// Shapes of names bound so far, in walk order (one flat scope, like the
  /// maps above).
  sema::shapes::Env env_;
  std::string tileVar_;
  RoleWork *role_ = nullptr;
  double units_ = 1;
  double warps_ = 1;       ///< warps of the role: each runs the role's instruction stream
  double unitThreads_ = 32; ///< threads a register tensor is spread over (128 for a warpgroup)
  int phase_ = 0;
  struct Loop {
    std::string var;
    int64_t lo, hi;
  };
  std::vector<Loop> loops_; ///< enclosing range loops, innermost last

  std::optional<int64_t> eval(const Expr &e) const {
    return sema::evalWith(e, [&](const std::string &n) -> std::optional<int64_t> {
      if (auto it = values_.find(n); it != values_.end())
        return it->second;
      return std::nullopt;
    });
  }
  void bindLet(const LetStmt &let) {
    env_.bindLet(let);
    if (let.names.size() > 1 && let.value) // `let v, i = reduce.argmin(...)`: both shaped like the reduction
      for (const Ident &n : let.names)
        lets_[n.name] = let.value.get();
    if (let.names.size() != 1 || !let.value)
      return;
    const std::string &name = let.names[0].name;
    lets_[name] = let.value.get();
    if (opIdOf(*let.value, k_) == OpId::SchedTiles)
      return bindSchedule(*let.value);
    if (auto v = eval(*let.value))
      values_[name] = *v;
  }

  void bindSchedule(const Expr &call) {
    out_.scheduled = true;
    out_.tiles = 1;
    for (const ExprPtr &a : call.operands)
      if (a->kind == ExprKind::Keyword) {
        auto v = eval(*a->operands[0]);
        if (!v) {
          out_.problems.push_back("the schedule's extent '" + a->text + "' does not evaluate at these sizes");
          continue;
        }
        if (a->text == "group")
          out_.group = *v;
        else {
          out_.tileDims.emplace_back(a->text, *v);
          out_.tiles *= double(*v);
        }
      }
  }

  double unitsOf(const sema::Role &r) const {
    int64_t warps = r.warps().value_or(1);
    switch (r.issue) {
    case sema::IssueMode::Elect:
      return 1;
    case sema::IssueMode::Warp:
      return double(warps);
    case sema::IssueMode::Warpgroup:
      return double(std::max<int64_t>(1, warps / 4));
    }
    return 1;
  }

  //===-- Statements ---------------------------------------------------------===//

  void walkBlock(const Block &b, double mult, bool top) {
    for (const StmtPtr &s : b.stmts) {
      walkStmt(*s, mult, top);
      if (top)
        ++phase_;
    }
  }

  void walkStmt(const Stmt &s, double mult, bool top) {
    if (auto *let = dyn_cast<LetStmt>(&s)) {
      bindLet(*let);
    } else if (auto *var = dyn_cast<VarStmt>(&s)) {
      vars_[var->name.name] = &var->type;
      env_.bindVar(*var);
    } else if (auto *f = dyn_cast<ForStmt>(&s)) {
      return walkFor(*f, mult, top);
    } else if (auto *i = dyn_cast<IfStmt>(&s)) {
      auto c = eval(*i->cond);
      if (!c)
        if (auto taken = fractionTaken(*i->cond)) { // a guard on the innermost loop's variable
          if (*taken > 0)
            walkBlock(i->thenBody, mult * *taken, false);
          if (*taken < 1) {
            if (i->elseBody)
              walkBlock(*i->elseBody, mult * (1 - *taken), false);
            else if (i->elseIf)
              walkStmt(*i->elseIf, mult * (1 - *taken), false);
          }
          return;
        }
      if (!c || *c)
        walkBlock(i->thenBody, mult, false);
      if (c && !*c) {
        if (i->elseBody)
          walkBlock(*i->elseBody, mult, false);
        else if (i->elseIf)
          walkStmt(*i->elseIf, mult, false);
      }
      return;
    }
    forEachCallShallow(s, [&](const Expr &call) { visitCall(call, mult); });
    elementwiseWork(s, mult);
  }

  /// The fraction of the innermost range loop's trips on which \p cond
  /// holds, when it evaluates for each value of the loop variable (`j > 0`,
  /// `j == CT - 1`); else nullopt (counted on every trip).
  std::optional<double> fractionTaken(const Expr &cond) {
    if (loops_.empty())
      return std::nullopt;
    const Loop &l = loops_.back();
    int64_t trips = l.hi - l.lo;
    if (trips <= 0 || trips > 4096)
      return std::nullopt;
    int64_t taken = 0;
    for (int64_t v = l.lo; v < l.hi; ++v) {
      values_[l.var] = v;
      auto c = eval(cond);
      if (!c) {
        values_.erase(l.var);
        return std::nullopt;
      }
      taken += *c ? 1 : 0;
    }
    values_.erase(l.var);
    return double(taken) / double(trips);
  }

  void walkFor(const ForStmt &f, double mult, bool top) {
    const Expr &it = *f.iterable;
    if (it.kind == ExprKind::Name) {
      auto let = lets_.find(it.text);
      if (let != lets_.end() && opIdOf(*let->second, k_) == OpId::SchedTiles) {
        tileVar_ = f.var.name;
        env_.bindLoop(f.var.name);
        // the tile body's statements are the phases
        walkBlock(f.body, mult, top);
        return;
      }
    }
    double trips = 1;
    if (it.kind == ExprKind::Binary && it.op == Tok::DotDot) {
      auto lo = eval(*it.operands[0]), hi = eval(*it.operands[1]);
      int64_t step = sema::loopStep(f, [&](const Expr &e) { return eval(e); }).value_or(1);
      if (lo && hi)
        trips = double(sema::tripCount(*lo, *hi, step));
      else
        out_.problems.push_back("a loop's trip count does not evaluate at these sizes");
    } else {
      out_.problems.push_back("a loop over something other than a range or a tile schedule");
    }
    values_.erase(f.var.name);
    env_.bindLoop(f.var.name);
    bool range = false;
    if (it.kind == ExprKind::Binary && it.op == Tok::DotDot)
      if (auto lo = eval(*it.operands[0]), hi = eval(*it.operands[1]); lo && hi) {
        loops_.push_back({f.var.name, *lo, *hi});
        range = true;
      }
    walkBlock(f.body, mult * trips, false);
    if (range)
      loops_.pop_back();
  }

  //===-- Operations -----------------------------------------------------------===//

  void visitCall(const Expr &call, double mult) {
    const sema::OpInfo *info = opOf(call, k_);
    if (!info)
      return;
    OpId name = info->id;
    auto args = sema::positionalArgs(call);
    if (name == OpId::RingProduce || name == OpId::RingConsume) {
      if (const sema::Ring *r = ringOf(call, k_))
        (name == OpId::RingProduce ? role_->produced : role_->consumed)[r->name] += mult;
      return;
    }
    OpWork w;
    w.call = &call;
    w.id = name;
    w.op = info->name;
    w.phase = phase_;
    bool coop = sema::keywordArg(call, "by") != nullptr;
    w.count = mult * (coop ? 1 : units_);
    using C = sema::OpClass;
    switch (info->cls) {
    case C::TmaLoad:
    case C::CpAsync:
      if (name != OpId::TmaLoad && name != OpId::CpAsync)
        return issueOnly(w);
      w.resource = Bottleneck::L2;
      w.load = true;
      w.bytes = args.size() > 1 ? bytesOf(*args[1], w) : 0;
      if (!args.empty())
        axesOf(*args[0], w.axes, 0);
      break;
    case C::TmaStore:
      w.resource = Bottleneck::Dram;
      w.store = true;
      // The box is the shared source's shape (`tma.store(s.c, C[m0, n0])`):
      // the destination names only the box's corner, which priced every
      // store at one element (issue #16: "0 ns/tile dram (x8, 16 B)").
      w.bytes = !args.empty() ? bytesOf(*args[0], w) : 0;
      break;
    case C::StoreGlobal:
      w.resource = Bottleneck::Dram;
      w.store = true;
      // the destination's bytes: the value may be a literal (`st.global(inf, cn[b, r])`)
      w.bytes = args.size() > 1 ? bytesOf(*args[1], w) : 0;
      break;
    case C::LoadShared:
    case C::StoreShared:
    case C::Tmem:
      w.resource = Bottleneck::Smem;
      w.bytes = !args.empty() ? bytesOf(*args[0], w) : 0;
      if (name == OpId::LdShared && sema::keywordArg(call, "like"))
        // a cols vector: N / 4 floats per thread, read as N / 8 float2 loads
        instructionsOf(w, perThread(call) / 2, mult);
      break;
    case C::LoadGlobal: {
      // a warp's row: consecutive chunks of min(16 B, bytes / 32) per lane
      w.resource = Bottleneck::L2;
      w.load = true;
      w.bytes = !args.empty() ? bytesOf(*args[0], w) : 0;
      if (!args.empty())
        axesOf(*args[0], w.axes, 0);
      double chunk = std::clamp(w.bytes / 32, 1.0, 16.0);
      instructionsOf(w, std::ceil(w.bytes / 32 / chunk), mult);
      break;
    }
    case C::Reduce:
      return reduce(call, args, w, mult);
    case C::Mma:
      return mma(call, args, w);
    case C::Ring:
    case C::Event:
    case C::TmaWait:
    case C::TmaOther:
    case C::Fence:
    case C::Barrier:
    case C::MmaSync:
    case C::Mbarrier:
      return issueOnly(w);
    case C::Identity:
    case C::Math:
    case C::Schedule:
    case C::View:
      return; // values, not issued work the model counts
    default:
      out_.problems.push_back("the model does not cost '" + w.op + "'");
      return;
    }
    w.bytes *= w.count;
    role_->ops.push_back(std::move(w));
  }

  /// \p perThread instructions of each thread per execution, \p mult
  /// executions per tile, by every warp of the role.
  void instructionsOf(OpWork &w, double perThread, double mult) const {
    w.warpInstructions = perThread * mult;
    w.instructions = w.warpInstructions * warps_;
  }

  /// A reduction's own instructions (its operand's elementwise math is
  /// counted by elementwiseWork). reduce.argmin/argmax along axis 1 of a
  /// [rows, N] accumulator slice (Fragments.cpp): per element a compare and
  /// two selects (value, index) into one of four chains; per row the chains
  /// merged (3 steps of 2 compares, an or and 2 selects) and the quad reduced
  /// in log2(4) = 2 butterfly steps (2 shuffles, 3 compares, 2 selects), and
  /// the lane's column offset added. argmin.fold: a pack and an fminf per
  /// element, a compare and select per chain; argmin.finish: the chains and
  /// the quad merged once. reduce.sum/min/max along axis 0 of a
  /// warp's row: one add (or min) per element, then log2(32) = 5 steps of a
  /// shuffle and an add. Along axis 1 of a tile: one op per element and 2
  /// steps of a shuffle and an op per row.
  void reduce(const Expr &call, const std::vector<const Expr *> &args, OpWork &w, double mult) {
    w.resource = Bottleneck::Issue;
    double elems = args.empty() ? 0 : perThread(*args[0]);
    auto in = args.empty() ? std::nullopt : shapeOf(*args[0]);
    if (!in) {
      out_.problems.push_back("the shape of a '" + w.op + "' operand does not evaluate");
      return;
    }
    double rows = perThread(call); // the result's elements per thread
    double perThreadOps = 0;
    if (w.id == OpId::ArgminFold) {
      // per element a pack (lop3) and an fminf; per chain (4 per row) a
      // compare and a select of the tile offset (Fragments.cpp)
      elems = args.size() > 2 ? perThread(*args[2]) : 0;
      perThreadOps = elems * 2 + elems / std::max(1.0, elems / 8) * 2;
    } else if (w.id == OpId::ArgminFinish)
      // per chain a decode (2), an index (3), compare and select (4); the quad in 2 steps of 2 shuffles,
      // 3 compares and 2 selects
      perThreadOps = 8 * 9 + 2 * 2 * 7;
    else if (w.id == OpId::ReduceArgmin || w.id == OpId::ReduceArgmax)
      perThreadOps = elems * 3 + rows * (3 * 5 + 2 * 7 + 1);
    else if (in->dims.size() == 1)
      perThreadOps = elems + std::log2(32.0) * 2;
    else
      perThreadOps = elems + rows * 2 * 2;
    instructionsOf(w, perThreadOps, mult);
    role_->ops.push_back(std::move(w));
  }

  //===-- Elementwise math on register tensors ------------------------------------===//

  /// Instructions of the elementwise math of statement \p s: per operator
  /// (arithmetic, comparison, math.*) one instruction per element of its
  /// result in a thread; a multiply under an add or subtract fuses into it
  /// (FFMA); math.cast as the value of a store is the store's conversion
  /// (not counted, as in the GEMM epilogues); uniform scalars are free.
  void elementwiseWork(const Stmt &s, double mult) {
    const Expr *root = nullptr;
    if (auto *let = dyn_cast<LetStmt>(&s))
      root = let->value.get();
    else if (auto *a = dyn_cast<AssignStmt>(&s))
      root = a->value.get(); // `best = inf`, `acc = 0.0`: initializations, not counted
    else if (auto *e = dyn_cast<ExprStmt>(&s))
      root = e->expr.get();
    else if (auto *v = dyn_cast<VarStmt>(&s))
      root = v->init.get();
    if (!root)
      return;
    double ops = elementwiseOps(*root, false, false);
    if (ops <= 0)
      return;
    OpWork w;
    w.call = root;
    w.op = "elementwise";
    w.phase = phase_;
    w.resource = Bottleneck::Issue;
    w.count = mult;
    instructionsOf(w, ops, mult);
    role_->ops.push_back(std::move(w));
  }

  double elementwiseOps(const Expr &e, bool underAdd, bool storeValue) const {
    switch (e.kind) {
    case ExprKind::Paren:
      return elementwiseOps(*e.operands[0], underAdd, storeValue);
    case ExprKind::Unary:
      return elementwiseOps(*e.operands[0], false, false); // negation folds into its user
    case ExprKind::Binary: {
      bool add = e.op == Tok::Plus || e.op == Tok::Minus;
      double own = (e.op == Tok::Star && underAdd) ? 0 : perThread(e);
      return own + elementwiseOps(*e.operands[0], add, false) + elementwiseOps(*e.operands[1], add, false);
    }
    case ExprKind::Call: {
      const sema::OpInfo *info = opOf(e, k_);
      auto args = sema::positionalArgs(e);
      double own = 0;
      bool store = false;
      if (info && info->cls == sema::OpClass::Math)
        own = (info->id == OpId::MathCast && storeValue) ? 0 : perThread(e);
      if (info && (info->cls == sema::OpClass::StoreGlobal || info->cls == sema::OpClass::StoreShared ||
                   info->cls == sema::OpClass::TmaStore))
        store = true;
      // reduce.sum adds each element into its partial sum: a multiply there fuses (FFMA)
      bool sums = info && info->id == OpId::ReduceSum;
      double sum = own;
      for (size_t i = 0; i < args.size(); ++i)
        sum += elementwiseOps(*args[i], sums, store && i == 0);
      return sum;
    }
    default:
      return 0;
    }
  }

  /// Elements of a register value held by one thread: a 2-D (or larger)
  /// tensor spread over the issue unit's threads (N / 2 of a [64, N]
  /// accumulator in a warpgroup), a 1-D vector as rows (64 rows: 2 per
  /// thread) or a warp's blocked row (D / 32), a cols vector read by
  /// ld.shared(like = acc, axis = 1) N / 4; 0 for uniform scalars, views of
  /// memory and constants.
  double perThread(const Expr &e, int depth = 0) const {
    if (depth > 16)
      return 0;
    switch (e.kind) {
    case ExprKind::Paren:
    case ExprKind::Unary:
      return perThread(*e.operands[0], depth + 1);
    case ExprKind::Binary:
      return std::max(perThread(*e.operands[0], depth + 1), perThread(*e.operands[1], depth + 1));
    case ExprKind::Name: {
      if (auto it = vars_.find(e.text); it != vars_.end())
        return isReg(*it->second) ? countOf(shapeOf(e)) : 0;
      if (auto it = lets_.find(e.text); it != lets_.end())
        return perThread(*it->second, depth + 1);
      return 0;
    }
    case ExprKind::Index: {
      const Expr *base = e.operands[0].get();
      if (base->kind == ExprKind::Name)
        if (auto it = vars_.find(base->text); it != vars_.end() && isReg(*it->second))
          return countOf(shapeOf(e));
      return 0;
    }
    case ExprKind::Call: {
      OpId callee = opIdOf(e, k_);
      auto args = sema::positionalArgs(e);
      if (callee == OpId::LdShared) {
        const Expr *like = sema::keywordArg(e, "like");
        auto s = like ? shapeOf(*like) : std::nullopt;
        return s && !s->dims.empty() ? double(s->dims.back()) / 4 : 0;
      }
      if (callee == OpId::LdGlobal)
        return args.empty() ? 0 : countOf(shapeOf(*args[0]));
      if (isReduction(callee))
        return countOf(shapeOf(e));
      double m = 0;
      for (const Expr *a : args)
        m = std::max(m, perThread(*a, depth + 1));
      return m;
    }
    default:
      return 0;
    }
  }

  static bool isReg(const TypeExpr &t) { return t.space && t.space->name == "reg"; }

  double countOf(const std::optional<Shape> &s) const {
    if (!s || s->dims.empty())
      return 0;
    double n = 1;
    for (int64_t d : s->dims)
      n *= double(d);
    return s->dims.size() == 1 ? n / 32 : n / unitThreads_;
  }

  void issueOnly(OpWork &w) {
    w.resource = Bottleneck::Issue;
    role_->ops.push_back(std::move(w));
  }

  /// flops = 2 M N K: M x N from the accumulator, K from operand a's last
  /// dimension (else the shape's k).
  void mma(const Expr &call, const std::vector<const Expr *> &args, OpWork &w) {
    w.resource = Bottleneck::Tensor;
    w.mma = w.id == OpId::MmaSync ? MmaKind::Sync : w.id == OpId::WgmmaMma ? MmaKind::Wgmma : MmaKind::Tcgen05;
    int64_t kShape = 0;
    if (const Expr *shape = sema::keywordArg(call, "shape"); shape && shape->kind == ExprKind::Name) {
      auto pos = shape->text.rfind('k');
      if (pos != std::string::npos)
        kShape = std::atoll(shape->text.c_str() + pos + 1);
    }
    auto acc = args.size() > 2 ? shapeOf(*args[2]) : std::nullopt;
    auto a = !args.empty() ? shapeOf(*args[0]) : std::nullopt;
    int64_t kk = a && !a->dims.empty() ? a->dims.back() : kShape;
    if (!acc || acc->dims.size() < 2 || kk <= 0) {
      out_.problems.push_back("the shape of an '" + w.op + "' does not evaluate");
      return;
    }
    double m = double(acc->dims[acc->dims.size() - 2]), n = double(acc->dims.back());
    w.flops = 2 * m * n * double(kk) * w.count;
    role_->ops.push_back(std::move(w));
  }

  double bytesOf(const Expr &e, const OpWork &w) {
    if (auto s = shapeOf(e))
      return s->bytes();
    out_.problems.push_back("the bytes of a '" + w.op + "' do not evaluate");
    return 0;
  }

  //===-- Shapes ----------------------------------------------------------------===//

  /// The shape and element bytes of \p e: sema's inference (sema/Shapes.h)
  /// at these sizes, with the names bound so far; nullopt unless every
  /// dimension and the element type are known.
  std::optional<Shape> shapeOf(const Expr &e) const {
    sema::shapes::Value v = env_.infer(e);
    if (!v.known())
      return std::nullopt;
    Shape s;
    s.elemBytes = sema::elemBytes(*v.elem);
    for (const auto &d : *v.shape)
      s.dims.push_back(*d);
    return s;
  }

  //===-- Tile coordinates of a source ------------------------------------------===//

  void axesOf(const Expr &e, std::set<std::string> &axes, int depth) const {
    if (depth > 16)
      return;
    if (e.kind == ExprKind::Member && e.operands[0]->kind == ExprKind::Name && e.operands[0]->text == tileVar_ &&
        !tileVar_.empty()) {
      axes.insert(e.text);
      return;
    }
    if (e.kind == ExprKind::Call && opIdOf(e, k_) == OpId::CtaId) {
      auto args = sema::positionalArgs(e);
      if (!args.empty())
        if (auto d = eval(*args[0]))
          axes.insert("cta." + std::to_string(*d));
      return;
    }
    if (e.kind == ExprKind::Name)
      if (auto it = lets_.find(e.text); it != lets_.end())
        return axesOf(*it->second, axes, depth + 1);
    if (e.kind == ExprKind::Index) { // the indices, not the tensor
      for (size_t i = 1; i < e.operands.size(); ++i)
        if (e.operands[i])
          axesOf(*e.operands[i], axes, depth + 1);
      return;
    }
    for (const ExprPtr &o : e.operands)
      if (o)
        axesOf(*o, axes, depth + 1);
  }
};

} // namespace

KernelWork collectWork(const sema::Kernel &k, const Sizes &sizes) {
  KernelWork out;
  for (const std::string &s : k.sizeSymbols)
    if (!sizes.count(s))
      out.problems.push_back("size '" + s + "' is not bound");
  if (!out.problems.empty())
    return out;
  Walker(k, sizes, out).run();
  return out;
}

std::optional<double> paramBytes(const sema::Kernel &k, const sema::Param &p, const Sizes &sizes) {
  double n = sema::elemBytes(p.type.elem.value_or(sema::Elem::U8));
  for (const sema::Dim &d : p.type.dims) {
    std::optional<int64_t> v = d.value;
    if (!v && d.expr)
      v = sema::evalWith(*d.expr, [&](const std::string &name) -> std::optional<int64_t> {
        if (auto it = sizes.find(name); it != sizes.end())
          return it->second;
        if (auto it = k.consts.find(name); it != k.consts.end())
          return it->second;
        return std::nullopt;
      });
    if (!v)
      return std::nullopt;
    n *= double(*v);
  }
  return n;
}

} // namespace cake::cost
