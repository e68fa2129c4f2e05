//===- Shapes.cpp - The one shape inference of CAKE IR --------------------===//
#include "compiler/sema/Shapes.h"

namespace cake::sema::shapes {

namespace {

NameLookup constLookup(const ConstEnv &env) {
  return [&env](const std::string &n) -> std::optional<int64_t> {
    if (auto it = env.find(n); it != env.end())
      return it->second;
    return std::nullopt;
  };
}

} // namespace

std::optional<int64_t> sliceExtent(const syntax::Expr &s, std::optional<int64_t> dim,
                                          const NameLookup &env) {
  const syntax::Expr *lo = stripParens(s.operand(0)), *hi = stripParens(s.operand(1));
  if (!lo && !hi)
    return dim;
  if (!lo)
    return evalWith(*hi, env);
  std::optional<int64_t> l = evalWith(*lo, env);
  int64_t r;
  if (!hi)
    return dim && l && !__builtin_sub_overflow(*dim, *l, &r) ? std::optional<int64_t>(r) : std::nullopt;
  if (auto h = evalWith(*hi, env); h && l)
    return __builtin_sub_overflow(*h, *l, &r) ? std::nullopt : std::optional<int64_t>(r);
  // lo:lo + n and lo:n + lo
  if (hi->kind == syntax::ExprKind::Binary && hi->op == syntax::Tok::Plus) {
    const syntax::Expr *a = stripParens(hi->operand(0)), *b = stripParens(hi->operand(1));
    if (syntax::equal(a, lo))
      return evalWith(*b, env);
    if (syntax::equal(b, lo))
      return evalWith(*a, env);
  }
  return std::nullopt;
}

std::optional<int64_t> sliceExtent(const syntax::Expr &s, std::optional<int64_t> dim, const ConstEnv &env) {
  return sliceExtent(s, dim, constLookup(env));
}

Value applyIndex(Value base, const syntax::Expr &index, const NameLookup &env) {
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


Value applyIndex(Value base, const syntax::Expr &index, const ConstEnv &env) {
  return applyIndex(std::move(base), index, constLookup(env));
}

//===-- Env ------------------------------------------------------------------===//

Env::Env(const Kernel &kernel, NameLookup sizes) : kernel_(kernel), sizes_(std::move(sizes)) { frames_.emplace_back(); }

NameLookup Env::values() const {
  return [this](const std::string &n) -> std::optional<int64_t> {
    if (auto it = kernel_.consts.find(n); it != kernel_.consts.end())
      return it->second;
    return sizes_ ? sizes_(n) : std::nullopt;
  };
}

std::optional<int64_t> Env::eval(const syntax::Expr &e) const { return evalWith(e, values()); }

Value Env::declared(const Type &t, std::string name) const {
  Value v = fromType(t, std::move(name));
  if (sizes_) // a size symbol (or an expression of them) at the given sizes
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (!(*v.shape)[i] && t.dims[i].expr)
        (*v.shape)[i] = evalInKernel(kernel_, *t.dims[i].expr, sizes_);
  return v;
}

static Value scalar(std::optional<Elem> elem) {
  Value v;
  v.shape = Shape{};
  v.elem = elem;
  return v;
}

/// A computed register value: no storage behind it any more.
static Value scalarize(Value v) {
  v.ring = nullptr;
  v.transposed = false;
  return v;
}

void Env::bindLet(const syntax::LetStmt &l) {
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

Value Env::infer(const syntax::Expr &e) const {
  using syntax::ExprKind;
  switch (e.kind) {
  case ExprKind::Number:
  case ExprKind::Bool: {
    Value v;
    v.shape = Shape{};
    v.literal = true;
    if (e.kind == ExprKind::Bool)
      v.elem = Elem::Bool;
    return v;
  }
  case ExprKind::Paren:
    return infer(*e.operands[0]);
  case ExprKind::Name:
    return name(e.text);
  case ExprKind::Member: {
    Value base = infer(*e.operands[0]);
    if (base.ring) {
      if (const Slot *slot = base.ring->slot(e.text))
        return declared(slot->type, base.ring->name + "." + slot->name);
      return {};
    }
    if (base.shape && base.shape->empty()) // a member of a tile of a schedule: t.m
      return scalar(Elem::I32);
    return {};
  }
  case ExprKind::Index:
    return applyIndex(infer(*e.operands[0]), e, values());
  case ExprKind::Unary: {
    Value v = infer(*e.operands[0]);
    if (e.op == syntax::Tok::Bang)
      v.elem = Elem::Bool;
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

Value Env::name(const std::string &n) const {
  if (const Binding *b = lookup(n)) {
    if (b->var)
      return varValue(*b->var);
    if (b->loop)
      return scalar(Elem::I32);
    if (b->let) {
      auto it = memo_.find({b->let, b->component});
      return it != memo_.end() ? it->second : Value{};
    }
    return {};
  }
  if (const Param *p = kernel_.param(n))
    return declared(p->type, n);
  if (const Buffer *buf = kernel_.buffer(n))
    return declared(buf->type, n);
  if (kernel_.consts.count(n) || kernel_.sizeSymbols.count(n))
    return scalar(Elem::I32);
  return {};
}

Value Env::varValue(const syntax::VarStmt &v) const {
  Value out;
  std::string space = v.type.space ? v.type.space->name : "";
  out.space = space == "reg" ? Space::Reg : space == "shared" ? Space::Shared : Space::None;
  out.elem = parseElem(v.type.elem.name);
  out.shape = Shape{};
  for (const syntax::ExprPtr &d : v.type.dims)
    out.shape->push_back(eval(*d));
  out.decl = &v.type;
  out.declName = v.name.name;
  return out;
}

Value Env::binary(const syntax::Expr &e) const {
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
    v.elem = Elem::Bool;
    return v;
  default:
    break;
  }
  const Value &typed = a.literal ? b : a;
  v.elem = typed.elem;
  v.literal = a.literal && b.literal;
  v.space = a.space == Space::Reg || b.space == Space::Reg ? Space::Reg : Space::None;
  return v;
}

/// The value of an operation call; \p component selects one result of a
/// tuple (reduce.argmin, topk.merge).
Value Env::call(const syntax::Expr &c, size_t component) const {
  const OpInfo *op = opOf(c, kernel_);
  if (!op)
    return {};
  OpId name = op->id;
  auto args = positionalArgs(c);
  auto arg = [&](size_t i) { return i < args.size() ? infer(*args[i]) : Value{}; };
  auto axisOf = [&](const Value &like) -> std::optional<size_t> {
    const syntax::Expr *axis = keywordArg(c, "axis");
    if (!axis)
      return std::nullopt;
    auto a = eval(*axis);
    if (!a || *a < 0 || !like.shape || static_cast<size_t>(*a) >= like.shape->size())
      return SIZE_MAX;
    return static_cast<size_t>(*a);
  };
  if (op->cls == OpClass::Identity)
    return scalar(name == OpId::ElectOne ? Elem::Bool : Elem::I32);
  if (op->cls == OpClass::WarpOp)
    return scalar(name == OpId::WarpBallot ? std::optional<Elem>(Elem::U32)
                  : name == OpId::WarpAny || name == OpId::WarpAll ? std::optional<Elem>(Elem::Bool)
                                                             : arg(0).elem);
  if (name == OpId::RingProduce || name == OpId::RingConsume) {
    Value v;
    v.ring = ringOf(c, kernel_);
    return v;
  }
  if (name == OpId::TileT) {
    Value v = arg(0);
    v.transposed = !v.transposed;
    if (v.shape && v.shape->size() == 2)
      std::swap((*v.shape)[0], (*v.shape)[1]);
    return v;
  }
  if (name == OpId::TileExpand) {
    Value v = scalarize(arg(0));
    auto axis = args.size() > 1 ? eval(*args[1]) : std::nullopt;
    if (!v.shape || !axis || *axis < 0 || static_cast<size_t>(*axis) > v.shape->size())
      v.shape.reset();
    else
      v.shape->insert(v.shape->begin() + *axis, int64_t(1));
    return v;
  }
  if (name == OpId::TileIota) {
    Value v;
    v.elem = Elem::I32;
    v.space = Space::Reg;
    const syntax::Expr *likeExpr = keywordArg(c, "like");
    Value like = likeExpr ? infer(*likeExpr) : Value{};
    auto axis = axisOf(like);
    if (axis && *axis != SIZE_MAX)
      v.shape = Shape{(*like.shape)[*axis]};
    return v;
  }
  if (name == OpId::LdMatrix || name == OpId::LdShared || name == OpId::LdGlobal) {
    Value src = arg(0);
    Value v;
    v.space = Space::Reg;
    v.elem = src.elem;
    v.decl = src.decl;
    v.declName = src.declName;
    v.shape = src.shape;
    if (const syntax::Expr *likeExpr = keywordArg(c, "like")) {
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
  if (name == OpId::MathCast) {
    Value v = scalarize(arg(0));
    v.decl = nullptr;
    v.literal = false;
    v.elem = args.size() > 1 ? parseElem(args[1]->text) : std::nullopt;
    return v;
  }
  if (name == OpId::MathSelect || name == OpId::MathMin || name == OpId::MathMax || name == OpId::MathFma) {
    std::vector<Value> vals;
    for (size_t i = 0; i < args.size(); ++i)
      vals.push_back(arg(i));
    std::vector<const Value *> ptrs;
    for (const Value &x : vals)
      ptrs.push_back(&x);
    Value v;
    v.space = Space::Reg;
    v.shape = broadcast(ptrs);
    size_t first = name == OpId::MathSelect ? 1 : 0;
    for (size_t i = first; i < vals.size(); ++i)
      if (!vals[i].literal) {
        v.elem = vals[i].elem;
        v.decl = vals[i].decl;
        v.declName = vals[i].declName;
        break;
      }
    return v;
  }
  if (op->cls == OpClass::Math) // unary math.*: like its operand
    return scalarize(arg(0));
  bool scan = name == OpId::ScanMax || name == OpId::ScanMin || name == OpId::ScanSum;
  if (scan || name == OpId::ReduceArgmax || name == OpId::ReduceArgmin ||
      name == OpId::ReduceMax || name == OpId::ReduceMin || name == OpId::ReduceSum) {
    Value x = scalarize(arg(0));
    x.decl = nullptr;
    if (scan)
      return x;
    auto axis = axisOf(x);
    if (!axis || *axis == SIZE_MAX)
      x.shape.reset();
    else
      x.shape->erase(x.shape->begin() + *axis);
    if ((name == OpId::ReduceArgmin || name == OpId::ReduceArgmax) && component == 1)
      x.elem = Elem::I32;
    return x;
  }
  if (name == OpId::TopkMerge) {
    Value v = scalarize(arg(component));
    v.decl = nullptr;
    return v;
  }
  return {};
}

} // namespace cake::sema::shapes
