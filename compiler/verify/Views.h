//===- Views.h - Shapes and element types of operands ----------*- C++ -*-===//
//
// Part of CAKE. The copies and mma rule families need the shape, element
// type and storage of operands written in many forms: a ring slot through its
// token (`s.a`), a view (`s.b[r0:r0 + 64, :]`, `epi[wg, j % 2]`), a let bound
// to a view or to a register value (`let qa = ld.matrix(...)`), a role `var`,
// a transposed view (`tile.t(us)`). Env binds the names visible at a
// statement while walkKernel visits the roles in source order, and
// Env::infer follows the bindings. A let's value is inferred once, when it is
// bound, with the names visible before it, which keeps inference linear in the
// program and right when a let shadows a name it reads.
//
// Header-only: it is used by Copies.cpp and Mma.cpp and needs no build change.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/verify/Util.h"

#include <map>
#include <numeric>

namespace cake::verify::views {

/// Dimensions of a value; a dimension is nullopt when it is not a compile-time
/// constant.
using Shape = std::vector<std::optional<int64_t>>;

/// What the rules know about a value.
struct Value {
  sema::Space space = sema::Space::None;
  std::optional<sema::Elem> elem;
  std::optional<Shape> shape;       ///< nullopt when even the rank is unknown
  uint32_t swizzle = 0;             ///< of the underlying shared storage, in bytes
  bool transposed = false;          ///< through tile.t (an MN-major operand)
  bool literal = false;             ///< an untyped literal: adapts to its context
  const sema::Ring *ring = nullptr; ///< set for a ring token
  /// The declaration of the underlying storage when the value is a view of it
  /// or was loaded from it without a conversion: where its element type and
  /// its clauses are written. Null otherwise.
  const syntax::TypeExpr *decl = nullptr;
  std::string declName;                   ///< the storage's name, for messages
  std::optional<int64_t> storageRowBytes; ///< row pitch of the storage

  /// Whether every dimension and the element type are known.
  bool known() const {
    if (!shape || !elem)
      return false;
    for (const auto &d : *shape)
      if (!d)
        return false;
    return true;
  }
  std::optional<int64_t> elements() const {
    if (!shape)
      return std::nullopt;
    int64_t n = 1;
    for (const auto &d : *shape)
      if (!d || *d < 0 || __builtin_mul_overflow(n, *d, &n))
        return std::nullopt;
    return n;
  }
  std::optional<int64_t> bytes() const {
    auto n = elements();
    int64_t b;
    if (!n || !elem || __builtin_mul_overflow(*n, int64_t(sema::elemBytes(*elem)), &b))
      return std::nullopt;
    return b;
  }
  size_t rank() const { return shape ? shape->size() : 0; }
};

/// "[64, 128]", with "?" for unknown dimensions.
inline std::string shapeText(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + (s[i] ? std::to_string(*s[i]) : std::string("?"));
  return out + "]";
}

/// The value a declared type describes (a parameter, buffer, slot or var).
inline Value fromType(const sema::Type &t, std::string name) {
  Value v;
  v.space = t.space;
  v.elem = t.elem;
  v.shape = Shape{};
  for (const sema::Dim &d : t.dims)
    v.shape->push_back(d.value);
  v.swizzle = t.swizzle;
  v.decl = t.syntax;
  v.declName = std::move(name);
  v.storageRowBytes = t.rowBytes();
  return v;
}

/// Broadcasts shapes NumPy style; nullopt when a rank is unknown or two known
/// dimensions disagree.
inline std::optional<Shape> broadcast(const std::vector<const Value *> &values) {
  Shape out;
  for (const Value *v : values) {
    if (!v->shape)
      return std::nullopt;
    const Shape &s = *v->shape;
    if (s.size() > out.size())
      out.insert(out.begin(), s.size() - out.size(), int64_t(1));
    size_t offset = out.size() - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      auto &o = out[offset + i];
      const auto &d = s[i];
      if (o && *o == 1)
        o = d;
      else if (d && *d == 1)
        continue;
      else if (!o || !d)
        o = std::nullopt;
      else if (*o != *d)
        return std::nullopt;
    }
  }
  return out;
}

/// \p e without enclosing parentheses.
inline const syntax::Expr *stripParens(const syntax::Expr *e) {
  while (e && e->kind == syntax::ExprKind::Paren)
    e = e->operands[0].get();
  return e;
}

/// The extent of slice \p s of a dimension of extent \p dim.
inline std::optional<int64_t> sliceExtent(const syntax::Expr &s, std::optional<int64_t> dim,
                                          const sema::ConstEnv &env) {
  const syntax::Expr *lo = stripParens(s.operand(0)), *hi = stripParens(s.operand(1));
  if (!lo && !hi)
    return dim;
  if (!lo)
    return sema::evalInt(*hi, env);
  std::optional<int64_t> l = sema::evalInt(*lo, env);
  int64_t r;
  if (!hi)
    return dim && l && !__builtin_sub_overflow(*dim, *l, &r) ? std::optional<int64_t>(r) : std::nullopt;
  if (auto h = sema::evalInt(*hi, env); h && l)
    return __builtin_sub_overflow(*h, *l, &r) ? std::nullopt : std::optional<int64_t>(r);
  // lo:lo + n and lo:n + lo
  if (hi->kind == syntax::ExprKind::Binary && hi->op == syntax::Tok::Plus) {
    const syntax::Expr *a = stripParens(hi->operand(0)), *b = stripParens(hi->operand(1));
    if (syntax::equal(a, lo))
      return sema::evalInt(*b, env);
    if (syntax::equal(b, lo))
      return sema::evalInt(*a, env);
  }
  return std::nullopt;
}

/// \p base indexed by the indices of \p index (an Index expression): a scalar
/// index drops its dimension, a slice keeps it, missing trailing indices keep
/// theirs.
inline Value applyIndex(Value base, const syntax::Expr &index, const sema::ConstEnv &env) {
  base.ring = nullptr;
  if (!base.shape)
    return base;
  const Shape &dims = *base.shape;
  size_t n = index.operands.size() - 1;
  if (n > dims.size()) {
    base.shape.reset();
    return base;
  }
  Shape out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i >= n) {
      out.push_back(dims[i]);
      continue;
    }
    const syntax::Expr &ix = *index.operands[i + 1];
    if (ix.kind == syntax::ExprKind::Slice)
      out.push_back(sliceExtent(ix, dims[i], env));
  }
  base.shape = std::move(out);
  return base;
}

/// One enclosing `for` or `if` of a statement.
struct Ancestor {
  const syntax::Stmt *stmt;
  bool elseBranch;            ///< inside the else block (or an else-if) of an IfStmt
  const syntax::Block *block; ///< the block that holds stmt
  size_t index;               ///< of stmt in block->stmts
};

/// Where a visited statement is.
struct Context {
  const sema::Role *role = nullptr; ///< null at kernel scope
  std::vector<Ancestor> ancestors;  ///< outermost first
  const syntax::Block *block = nullptr;
  size_t index = 0; ///< of the statement in block->stmts
};

/// The names visible at a statement and what they are bound to.
class Env {
public:
  explicit Env(const sema::Kernel &kernel) : kernel_(kernel) { frames_.emplace_back(); }

  const sema::Kernel &kernel() const { return kernel_; }
  void push() { frames_.emplace_back(); }
  void pop() { frames_.pop_back(); }

  /// Infers the values of \p l with the names visible before it (a let may
  /// shadow a name its value reads: name.shadow is only a warning), then
  /// binds its names. Lets are bound in source order, so a later lookup never
  /// recurses through a chain of lets.
  void bindLet(const syntax::LetStmt &l) {
    for (size_t i = 0; i < l.names.size(); ++i) {
      Value v;
      if (l.value->kind == syntax::ExprKind::Call)
        v = call(*l.value, i);
      else if (l.names.size() == 1)
        v = infer(*l.value);
      memo_[{&l, i}] = std::move(v);
    }
    for (size_t i = 0; i < l.names.size(); ++i)
      frames_.back()[l.names[i].name] = Binding{&l, i, nullptr, false};
  }
  void bindVar(const syntax::VarStmt &v) { frames_.back()[v.name.name] = Binding{nullptr, 0, &v, false}; }
  /// Binds a loop variable: an i32 scalar, or a tile of a schedule.
  void bindLoop(const std::string &name) { frames_.back()[name] = Binding{nullptr, 0, nullptr, true}; }

  /// The let bound to \p name, or nullptr.
  const syntax::LetStmt *letOf(std::string_view name) const {
    const Binding *b = lookup(name);
    return b ? b->let : nullptr;
  }

  Value infer(const syntax::Expr &e) const {
    using syntax::ExprKind;
    switch (e.kind) {
    case ExprKind::Number:
    case ExprKind::Bool: {
      Value v;
      v.shape = Shape{};
      v.literal = true;
      if (e.kind == ExprKind::Bool)
        v.elem = sema::Elem::Bool;
      return v;
    }
    case ExprKind::Paren:
      return infer(*e.operands[0]);
    case ExprKind::Name:
      return name(e.text);
    case ExprKind::Member: {
      Value base = infer(*e.operands[0]);
      if (base.ring) {
        if (const sema::Slot *slot = base.ring->slot(e.text))
          return fromType(slot->type, base.ring->name + "." + slot->name);
        return {};
      }
      if (base.shape && base.shape->empty()) // a member of a tile of a schedule: t.m
        return scalar(sema::Elem::I32);
      return {};
    }
    case ExprKind::Index:
      return applyIndex(infer(*e.operands[0]), e, kernel_.consts);
    case ExprKind::Unary: {
      Value v = infer(*e.operands[0]);
      if (e.op == syntax::Tok::Bang)
        v.elem = sema::Elem::Bool;
      return scalarize(v);
    }
    case ExprKind::Binary:
      return binary(e);
    case ExprKind::Call:
      return call(e, 0);
    default:
      return {};
    }
  }

private:
  struct Binding {
    const syntax::LetStmt *let = nullptr;
    size_t component = 0;
    const syntax::VarStmt *var = nullptr;
    bool loop = false;
  };

  static Value scalar(std::optional<sema::Elem> elem) {
    Value v;
    v.shape = Shape{};
    v.elem = elem;
    return v;
  }

  const Binding *lookup(std::string_view name) const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (auto f = it->find(name); f != it->end())
        return &f->second;
    return nullptr;
  }

  /// A computed register value: no storage behind it any more.
  static Value scalarize(Value v) {
    v.ring = nullptr;
    v.transposed = false;
    return v;
  }

  Value name(const std::string &n) const {
    if (const Binding *b = lookup(n)) {
      if (b->var)
        return varValue(*b->var);
      if (b->loop)
        return scalar(sema::Elem::I32);
      if (b->let) {
        auto it = memo_.find({b->let, b->component});
        return it != memo_.end() ? it->second : Value{};
      }
      return {};
    }
    if (const sema::Param *p = kernel_.param(n))
      return fromType(p->type, n);
    if (const sema::Buffer *buf = kernel_.buffer(n))
      return fromType(buf->type, n);
    if (kernel_.consts.count(n) || kernel_.sizeSymbols.count(n))
      return scalar(sema::Elem::I32);
    return {};
  }

  Value varValue(const syntax::VarStmt &v) const {
    Value out;
    std::string space = v.type.space ? v.type.space->name : "";
    out.space = space == "reg" ? sema::Space::Reg : space == "shared" ? sema::Space::Shared : sema::Space::None;
    out.elem = sema::parseElem(v.type.elem.name);
    out.shape = Shape{};
    for (const syntax::ExprPtr &d : v.type.dims)
      out.shape->push_back(sema::evalInt(*d, kernel_.consts));
    out.decl = &v.type;
    out.declName = v.name.name;
    return out;
  }

  Value binary(const syntax::Expr &e) const {
    using syntax::Tok;
    if (e.op == Tok::DotDot)
      return {};
    Value a = infer(*e.operands[0]), b = infer(*e.operands[1]);
    Value v;
    v.shape = broadcast({&a, &b});
    switch (e.op) {
    case Tok::EqEq:
    case Tok::NotEq:
    case Tok::Less:
    case Tok::LessEq:
    case Tok::Greater:
    case Tok::GreaterEq:
    case Tok::AmpAmp:
    case Tok::PipePipe:
      v.elem = sema::Elem::Bool;
      return v;
    default:
      break;
    }
    const Value &typed = a.literal ? b : a;
    v.elem = typed.elem;
    v.literal = a.literal && b.literal;
    v.space = a.space == sema::Space::Reg || b.space == sema::Space::Reg ? sema::Space::Reg : sema::Space::None;
    return v;
  }

  /// The value of an operation call; \p component selects one result of a
  /// tuple (reduce.argmin, topk.merge).
  Value call(const syntax::Expr &c, size_t component) const {
    const sema::OpInfo *op = opOf(c, kernel_);
    if (!op)
      return {};
    sema::OpId name = op->id;
    auto args = sema::positionalArgs(c);
    auto arg = [&](size_t i) { return i < args.size() ? infer(*args[i]) : Value{}; };
    auto axisOf = [&](const Value &like) -> std::optional<size_t> {
      const syntax::Expr *axis = sema::keywordArg(c, "axis");
      if (!axis)
        return std::nullopt;
      auto a = sema::evalInt(*axis, kernel_.consts);
      if (!a || *a < 0 || !like.shape || static_cast<size_t>(*a) >= like.shape->size())
        return SIZE_MAX;
      return static_cast<size_t>(*a);
    };
    if (op->cls == sema::OpClass::Identity)
      return scalar(name == sema::OpId::ElectOne ? sema::Elem::Bool : sema::Elem::I32);
    if (op->cls == sema::OpClass::WarpOp)
      return scalar(name == sema::OpId::WarpBallot ? std::optional<sema::Elem>(sema::Elem::U32)
                    : name == sema::OpId::WarpAny || name == sema::OpId::WarpAll ? std::optional<sema::Elem>(sema::Elem::Bool)
                                                               : arg(0).elem);
    if (name == sema::OpId::RingProduce || name == sema::OpId::RingConsume) {
      Value v;
      v.ring = ringOf(c, kernel_);
      return v;
    }
    if (name == sema::OpId::TileT) {
      Value v = arg(0);
      v.transposed = !v.transposed;
      if (v.shape && v.shape->size() == 2)
        std::swap((*v.shape)[0], (*v.shape)[1]);
      return v;
    }
    if (name == sema::OpId::TileExpand) {
      Value v = scalarize(arg(0));
      auto axis = args.size() > 1 ? sema::evalInt(*args[1], kernel_.consts) : std::nullopt;
      if (!v.shape || !axis || *axis < 0 || static_cast<size_t>(*axis) > v.shape->size())
        v.shape.reset();
      else
        v.shape->insert(v.shape->begin() + *axis, int64_t(1));
      return v;
    }
    if (name == sema::OpId::TileIota) {
      Value v;
      v.elem = sema::Elem::I32;
      v.space = sema::Space::Reg;
      const syntax::Expr *likeExpr = sema::keywordArg(c, "like");
      Value like = likeExpr ? infer(*likeExpr) : Value{};
      auto axis = axisOf(like);
      if (axis && *axis != SIZE_MAX)
        v.shape = Shape{(*like.shape)[*axis]};
      return v;
    }
    if (name == sema::OpId::LdMatrix || name == sema::OpId::LdShared || name == sema::OpId::LdGlobal) {
      Value src = arg(0);
      Value v;
      v.space = sema::Space::Reg;
      v.elem = src.elem;
      v.decl = src.decl;
      v.declName = src.declName;
      v.shape = src.shape;
      if (const syntax::Expr *likeExpr = sema::keywordArg(c, "like")) {
        Value like = infer(*likeExpr);
        auto axis = axisOf(like);
        if (!axis)
          v.shape = like.shape;
        else if (*axis == SIZE_MAX)
          v.shape.reset();
        else
          v.shape = Shape{(*like.shape)[*axis]};
      }
      return v;
    }
    if (name == sema::OpId::MathCast) {
      Value v = scalarize(arg(0));
      v.decl = nullptr;
      v.literal = false;
      v.elem = args.size() > 1 ? sema::parseElem(args[1]->text) : std::nullopt;
      return v;
    }
    if (name == sema::OpId::MathSelect || name == sema::OpId::MathMin || name == sema::OpId::MathMax || name == sema::OpId::MathFma) {
      std::vector<Value> vals;
      for (size_t i = 0; i < args.size(); ++i)
        vals.push_back(arg(i));
      std::vector<const Value *> ptrs;
      for (const Value &x : vals)
        ptrs.push_back(&x);
      Value v;
      v.space = sema::Space::Reg;
      v.shape = broadcast(ptrs);
      size_t first = name == sema::OpId::MathSelect ? 1 : 0;
      for (size_t i = first; i < vals.size(); ++i)
        if (!vals[i].literal) {
          v.elem = vals[i].elem;
          v.decl = vals[i].decl;
          v.declName = vals[i].declName;
          break;
        }
      return v;
    }
    if (op->cls == sema::OpClass::Math) // unary math.*: like its operand
      return scalarize(arg(0));
    bool scan = name == sema::OpId::ScanMax || name == sema::OpId::ScanMin || name == sema::OpId::ScanSum;
    if (scan || name == sema::OpId::ReduceArgmax || name == sema::OpId::ReduceArgmin ||
        name == sema::OpId::ReduceMax || name == sema::OpId::ReduceMin || name == sema::OpId::ReduceSum) {
      Value x = scalarize(arg(0));
      x.decl = nullptr;
      if (scan)
        return x;
      auto axis = axisOf(x);
      if (!axis || *axis == SIZE_MAX)
        x.shape.reset();
      else
        x.shape->erase(x.shape->begin() + *axis);
      if ((name == sema::OpId::ReduceArgmin || name == sema::OpId::ReduceArgmax) && component == 1)
        x.elem = sema::Elem::I32;
      return x;
    }
    if (name == sema::OpId::TopkMerge) {
      Value v = scalarize(arg(component));
      v.decl = nullptr;
      return v;
    }
    return {};
  }

  const sema::Kernel &kernel_;
  std::vector<std::map<std::string, Binding, std::less<>>> frames_;
  /// The inferred value of each bound let (and component of a tuple let).
  std::map<std::pair<const syntax::LetStmt *, size_t>, Value> memo_;
};

/// Visits every statement of the kernel's roles in source order with the
/// names visible at it bound in \p env: first the kernel-scope lets, then
/// each role body. \p fn runs before the statement's own names are bound.
inline void walkKernel(const sema::Kernel &kernel, Env &env,
                       const std::function<void(const syntax::Stmt &, const Context &)> &fn) {
  using namespace syntax;
  for (const StmtPtr &s : kernel.decl->body.stmts)
    if (auto *l = dyn_cast<LetStmt>(s.get()))
      env.bindLet(*l);
  Context ctx;
  std::function<void(const Block &)> block;
  std::function<void(const Stmt &)> stmt = [&](const Stmt &s) {
    fn(s, ctx);
    if (auto *l = dyn_cast<LetStmt>(&s)) {
      env.bindLet(*l);
    } else if (auto *v = dyn_cast<VarStmt>(&s)) {
      env.bindVar(*v);
    } else if (auto *f = dyn_cast<ForStmt>(&s)) {
      ctx.ancestors.push_back({&s, false, ctx.block, ctx.index});
      env.push();
      env.bindLoop(f->var.name);
      block(f->body);
      env.pop();
      ctx.ancestors.pop_back();
    } else if (auto *i = dyn_cast<IfStmt>(&s)) {
      ctx.ancestors.push_back({&s, false, ctx.block, ctx.index});
      block(i->thenBody);
      ctx.ancestors.back().elseBranch = true;
      if (i->elseBody)
        block(*i->elseBody);
      else if (i->elseIf)
        stmt(*i->elseIf);
      ctx.ancestors.pop_back();
    }
  };
  block = [&](const Block &b) {
    env.push();
    const Block *savedBlock = ctx.block;
    size_t savedIndex = ctx.index;
    for (size_t i = 0; i < b.stmts.size(); ++i) {
      ctx.block = &b;
      ctx.index = i;
      stmt(*b.stmts[i]);
    }
    ctx.block = savedBlock;
    ctx.index = savedIndex;
    env.pop();
  };
  for (const sema::Role &role : kernel.roles) {
    ctx.role = &role;
    block(role.decl->body);
  }
}

/// Whether \p e is the call `elect.one()`.
inline bool isElectOne(const syntax::Expr &e) { return sema::calleeOp(e) == sema::OpId::ElectOne; }

} // namespace cake::verify::views
