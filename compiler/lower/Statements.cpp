//===- Statements.cpp - Statements and scalar expressions -----------------===//
//
// Part of CAKE. Lowers control flow (for, if), lets and vars, assignments and
// scalar expressions. Scalars are C++ `int` (indices and sizes fit in 32 bits:
// the launcher checks) or `bool`; register tensors are arrays laid out by the
// operation that first writes them (Values.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include "compiler/syntax/Printer.h"
#include "compiler/syntax/Token.h"

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

const std::set<std::string, std::less<>> &cxxKeywords() {
  static const std::set<std::string, std::less<>> words = {
      "auto",   "bool",     "break",  "case",   "char",     "class",    "const",  "continue", "default",
      "delete", "do",       "double", "else",   "enum",     "extern",   "float",  "for",      "goto",
      "if",     "inline",   "int",    "long",   "new",      "operator", "private", "public",  "register",
      "return", "short",    "signed", "sizeof", "static",   "struct",   "switch", "template", "this",
      "throw",  "try",      "typedef", "union", "unsigned", "using",    "virtual", "void",    "volatile",
      "while",  "u16",      "u32",    "u64",    "min",      "max",      "asm",    "namespace", "typename"};
  return words;
}

} // namespace

std::string Lowerer::cxxName(std::string_view irName) const {
  std::string n(irName);
  if (cxxKeywords().count(n) || n.starts_with("cake_"))
    n += "_";
  return n;
}

std::string Lowerer::printed(const Expr &e) const { return print(e); }

std::optional<int64_t> Lowerer::constant(const Expr &e) const { return evalWith(e, constants()); }

NameLookup Lowerer::constants() const {
  return [this](const std::string &name) -> std::optional<int64_t> {
    if (const Val *v = lookup(name); v && v->kind == Val::Scalar) {
      // a let bound to a constant is written as its value
      if (!v->cxx.empty() && (std::isdigit(uint8_t(v->cxx[0])) || v->cxx[0] == '-'))
        return std::stoll(v->cxx);
      return std::nullopt;
    }
    if (auto it = k.consts.find(name); it != k.consts.end())
      return it->second;
    return std::nullopt;
  };
}

//===-- Scalar expressions ----------------------------------------------------===//

/// `j % m` or `(j + c) % m` where j is the variable of a loop unrolled by a
/// multiple of m from a multiple of m: the constant it is in this copy.
std::optional<int64_t> Lowerer::unrolledModulo(const Expr &e) const {
  if (e.kind != ExprKind::Binary || e.op != Tok::Percent)
    return std::nullopt;
  auto m = constant(*e.operands[1]);
  const Expr *lhs = e.operands[0].get();
  while (lhs->kind == ExprKind::Paren)
    lhs = lhs->operands[0].get();
  int64_t add = 0;
  if (lhs->kind == ExprKind::Binary && (lhs->op == Tok::Plus || lhs->op == Tok::Minus)) {
    auto c = constant(*lhs->operands[1]);
    if (!c)
      return std::nullopt;
    add = lhs->op == Tok::Plus ? *c : -*c;
    lhs = lhs->operands[0].get();
  }
  if (!m || *m <= 0 || lhs->kind != ExprKind::Name)
    return std::nullopt;
  const Val *v = lookup(lhs->text);
  if (!v || v->unrollFactor % *m != 0 || v->unrollFactor == 0)
    return std::nullopt;
  return ((v->unrollOffset + add) % *m + *m) % *m;
}

std::optional<std::string> Lowerer::scalar(const Expr &e) {
  if (auto c = constant(e))
    return std::to_string(*c);
  if (auto c = unrolledModulo(e))
    return std::to_string(*c);
  switch (e.kind) {
  case ExprKind::Bool:
    return e.text;
  case ExprKind::Number:
    return e.text;
  case ExprKind::Paren:
    if (auto x = scalar(*e.operands[0]))
      return "(" + *x + ")";
    return std::nullopt;
  case ExprKind::Name: {
    if (const Val *v = lookup(e.text)) {
      if (v->kind == Val::Scalar)
        return v->cxx;
      unsupported(e.range, "'" + e.text + "' as a scalar");
      return std::nullopt;
    }
    if (k.sizeSymbols.count(e.text) || k.param(e.text))
      return cxxName(e.text);
    if (e.text == "inf")
      return std::string("__int_as_float(0x7f800000)");
    // a module constant that is not an integer (`const GATE_LB = -5.0`): its value, in fp32
    if (auto c = k.constDecls.find(e.text); c != k.constDecls.end() && c->second->value)
      if (auto x = scalar(*c->second->value))
        return "float(" + *x + ")";
    unsupported(e.range, "the name '" + e.text + "'");
    return std::nullopt;
  }
  case ExprKind::Unary:
    if (auto x = scalar(*e.operands[0]))
      return std::string(tokenSpelling(e.op)) + *x;
    return std::nullopt;
  case ExprKind::Binary: {
    auto a = scalar(*e.operands[0]), b = scalar(*e.operands[1]);
    if (!a || !b)
      return std::nullopt;
    std::string_view op = tokenSpelling(e.op);
    if (op == "and")
      op = "&&";
    else if (op == "or")
      op = "||";
    return "(" + *a + " " + std::string(op) + " " + *b + ")";
  }
  case ExprKind::Index: {
    // one element of a per(thread) vector: `gc[C - 1]`, `y[t]` under an unrolled loop
    const Expr *base = e.operand(0);
    const Val *v = base && base->kind == ExprKind::Name ? lookup(base->text) : nullptr;
    if (v && v->kind == Val::Frag && v->layout == Layout::Thread && e.operands.size() == 2) {
      auto ix = scalar(*e.operands[1]);
      if (!ix)
        return std::nullopt;
      return fragElement(*v, Layout::Thread, *ix);
    }
    unsupported(e.range, "this expression");
    return std::nullopt;
  }
  case ExprKind::Member: {
    // t.m of a tile of a schedule
    if (const Expr *base = e.operand(0); base && base->kind == ExprKind::Name)
      if (const Val *v = lookup(base->text); v && v->kind == Val::Tile)
        return v->cxx + "_" + e.text;
    unsupported(e.range, "this member access as a scalar");
    return std::nullopt;
  }
  case ExprKind::Call: {
    auto it = k.ops.find(&e);
    if (it == k.ops.end()) {
      unsupported(e.range, "this call");
      return std::nullopt;
    }
    if (auto v = callValue(e, *it->second); v && v->kind == Val::Scalar)
      return v->cxx;
    if (!failed)
      unsupported(e.range, "'" + std::string(it->second->name) + "' as a scalar");
    return std::nullopt;
  }
  default:
    unsupported(e.range, "this expression");
    return std::nullopt;
  }
}

//===-- Statements --------------------------------------------------------------===//

std::optional<std::pair<const Expr *, int64_t>> Lowerer::dynamicBufferIndex(const Stmt &s) {
  std::optional<std::pair<const Expr *, int64_t>> found;
  std::function<void(const Expr &)> visit = [&](const Expr &e) {
    if (found)
      return;
    if (e.kind == ExprKind::Index && e.operands.size() == 2 && e.operands[0]->kind == ExprKind::Name)
      if (const Val *v = lookup(e.operands[0]->text); v && v->kind == Val::Frag && v->buffers > 0) {
        const Expr &ix = *e.operands[1];
        if (!bufferIndex.count(printed(ix)) && !constant(ix) && !unrolledModulo(ix)) {
          found = std::pair{&ix, v->buffers};
          return;
        }
      }
    for (const ExprPtr &c : e.operands)
      if (c)
        visit(*c);
  };
  if (s.kind == StmtKind::Let)
    visit(*static_cast<const LetStmt &>(s).value);
  else if (s.kind == StmtKind::Expr)
    visit(*static_cast<const ExprStmt &>(s).expr);
  else if (s.kind == StmtKind::Assign)
    visit(*static_cast<const AssignStmt &>(s).value);
  return found;
}

void Lowerer::block(const Block &b) {
  push();
  for (size_t i = 0; i < b.stmts.size(); ++i) {
    // A run-time index into an array of register tensors (`acc[(CT + 1) % 2]`
    // after a loop unrolled by 2): the rest of the block is lowered once per
    // buffer under a branch, so that every register index stays a constant
    // (language.md 4.6) and lets stay in scope for the statements after them.
    if (auto dyn = dynamicBufferIndex(*b.stmts[i])) {
      auto idx = scalar(*dyn->first);
      if (!idx)
        break;
      std::string sel = temp("buf"), key = printed(*dyn->first);
      w.line("const int " + sel + " = " + *idx + ";");
      for (int64_t k = 0; k < dyn->second; ++k) {
        w.open(std::string(k ? "else " : "") + "if (" + sel + " == " + std::to_string(k) + ")");
        bufferIndex[key] = k;
        push();
        for (size_t j = i; j < b.stmts.size(); ++j)
          stmt(*b.stmts[j]);
        pop();
        bufferIndex.erase(key);
        w.close();
      }
      break;
    }
    stmt(*b.stmts[i]);
  }
  pop();
}

void Lowerer::stmt(const Stmt &s) {
  w.at(s.range);
  switch (s.kind) {
  case StmtKind::Let: {
    const auto &let = static_cast<const LetStmt &>(s);
    if (let.names.size() == 2 && let.value->kind == ExprKind::Call) {
      // let v, i = reduce.argmin(x, axis = 1)
      std::string values = cxxName(let.names[0].name), indices = cxxName(let.names[1].name);
      if (!argReduce(*let.value, values, indices))
        return;
      Val f;
      f.kind = Val::Frag;
      f.layout = Layout::Rows;
      f.shape = {64};
      f.elem = Elem::FP32;
      f.cxx = values;
      bind(let.names[0].name, f);
      f.elem = Elem::I32;
      f.cxx = indices;
      bind(let.names[1].name, f);
      return;
    }
    if (let.names.size() != 1) {
      unsupported(s.range, "a let with several names");
      return;
    }
    const std::string &name = let.names[0].name;
    // elementwise over register tensors (operators, and elementwise math of them)
    bool elementwiseCall = let.value->kind == ExprKind::Call && isElementwiseMath(calleeOp(*let.value));
    if ((let.value->kind != ExprKind::Call || elementwiseCall) && let.value->kind != ExprKind::Index) {
      if (let.value->kind == ExprKind::Binary || let.value->kind == ExprKind::Unary || elementwiseCall)
        materializeCalls(*let.value);
      auto f = fragExpression(*let.value);
      // the evaluated calls are this statement's: a body lowered again (an unrolled copy) loads again
      materialized.clear();
      if (f) {
        bind(name, *f);
        return;
      }
      if (readsRegisterTensor(*let.value)) // reported: not again as a scalar
        return;
    }
    if (auto c = constant(*let.value)) {
      w.line("const int " + cxxName(name) + " = " + std::to_string(*c) + ";");
      bind(name, scalarVal(std::to_string(*c)));
      return;
    }
    auto v = value(*let.value);
    if (!v)
      return;
    v->varying = varies(*let.value);
    v->laneVarying = varies(*let.value, true);
    if (v->kind == Val::Scalar) {
      w.line("const auto " + cxxName(name) + " = " + v->cxx + ";");
      v->cxx = cxxName(name);
    } else if (v->kind == Val::Frag && v->cxx.empty()) {
      v->cxx = cxxName(name);
    }
    bind(name, *v);
    return;
  }
  case StmtKind::Var:
    varStmt(static_cast<const VarStmt &>(s));
    return;
  case StmtKind::Assign:
    assignStmt(static_cast<const AssignStmt &>(s));
    return;
  case StmtKind::For:
    forStmt(static_cast<const ForStmt &>(s));
    return;
  case StmtKind::If: {
    const auto &i = static_cast<const IfStmt &>(s);
    auto cond = scalar(*i.cond);
    if (!cond)
      return;
    w.open("if (" + *cond + ")");
    block(i.thenBody);
    if (i.elseBody) {
      w.close();
      w.open("else");
      block(*i.elseBody);
    } else if (i.elseIf) {
      w.close();
      w.open("else");
      stmt(*i.elseIf);
    } else if (ifWithSameRoleCommit(i.thenBody)) {
      // a skipped produce of a same-role cp.async ring commits an empty
      // group, so that every iteration commits exactly one (language.md 8.3)
      w.close();
      w.open("else");
      w.line("cake::rt::cp_async_commit_group();");
    }
    w.close();
    return;
  }
  case StmtKind::Assume: {
    w.line("// assume: checked by the launcher");
    return;
  }
  case StmtKind::Expr: {
    const Expr &e = *static_cast<const ExprStmt &>(s).expr;
    if (e.kind == ExprKind::Call)
      callStmt(e);
    else
      unsupported(e.range, "this expression statement");
    return;
  }
  default:
    unsupported(s.range, "this statement");
  }
}

/// Whether a kernel fact says \p hi is a multiple of \p factor
/// (`assume CT % 2 == 0`): an unrolled loop from 0 then needs no remainder.
std::vector<std::pair<const Expr *, int64_t>> Lowerer::divisibilityFacts() const {
  std::vector<std::pair<const Expr *, int64_t>> out;
  for (const StmtPtr &st : k.decl->body.stmts)
    if (st->kind == StmtKind::Assume)
      for (const ExprPtr &fact : static_cast<const AssumeStmt &>(*st).facts) {
        const Expr *f = stripParens(fact.get());
        if (f->kind != ExprKind::Binary || f->op != Tok::EqEq || constant(*f->operands[1]).value_or(-1) != 0)
          continue;
        const Expr *mod = stripParens(f->operands[0].get());
        if (mod->kind != ExprKind::Binary || mod->op != Tok::Percent)
          continue;
        if (auto m = constant(*mod->operands[1]))
          out.emplace_back(stripParens(mod->operands[0].get()), *m);
      }
  return out;
}

bool Lowerer::tripCountDivisible(const Expr &hi, int64_t factor) const {
  std::string bound = printed(hi);
  for (auto [of, m] : divisibilityFacts())
    if (m % factor == 0 && printed(*of) == bound)
      return true;
  return false;
}

int64_t Lowerer::knownDivisor(std::string_view symbol) const {
  int64_t best = 1;
  for (auto [of, m] : divisibilityFacts())
    if (of->kind == ExprKind::Name && of->text == symbol && m > best)
      best = m;
  return best;
}

void Lowerer::forStmt(const ForStmt &f) {
  ++loopDepth;
  struct Leave {
    int &depth;
    ~Leave() { --depth; }
  } leave{loopDepth};
  std::string var = cxxName(f.var.name);
  std::string pragma;
  for (const Clause &c : f.clauses)
    if (c.name.name == "unroll") {
      pragma = "#pragma unroll";
      if (!c.args.empty())
        if (auto n = constant(*c.args[0]))
          pragma += " " + std::to_string(*n);
    }
  const Expr &it = *f.iterable;
  if (it.kind == ExprKind::Binary && it.op == Tok::DotDot) {
    auto lo = scalar(*it.operands[0]), hi = scalar(*it.operands[1]);
    if (!lo || !hi)
      return;
    // a loop whose bounds differ between threads has a varying variable
    const bool varyingVar = varies(*it.operands[0]) || varies(*it.operands[1]);
    // unroll(n) with a run-time trip count: a loop of n copies of the body per
    // iteration, each knowing its offset, so that `j % n` (a register tensor's
    // buffer index) is a constant in every copy, as the language promises;
    // then up to n - 1 guarded copies for the remainder. No copy inside the
    // loop is conditional: ptxas serializes wgmma pipelines whose MMAs it
    // cannot prove are issued.
    int64_t factor = 0;
    for (const Clause &c : f.clauses)
      if (c.name.name == "unroll" && !c.args.empty())
        factor = constant(*c.args[0]).value_or(0);
    auto loConst = constant(*it.operands[0]);
    if (factor > 1 && loConst && *loConst % factor == 0) {
      std::string base = var + "_base";
      auto copy = [&](int64_t c) {
        w.line("const int " + var + " = " + base + " + " + std::to_string(c) + ";");
        push();
        Val v = scalarVal(var);
        v.unrollFactor = factor;
        v.unrollOffset = c;
        v.varying = v.laneVarying = varyingVar;
        bind(f.var.name, v);
        block(f.body);
        pop();
      };
      // in a block of its own: two such loops over one variable name may follow each other
      w.open("");
      w.line("int " + base + " = " + *lo + ";");
      w.open("for (; " + base + " + " + std::to_string(factor) + " <= " + *hi + "; " + base + " += " +
             std::to_string(factor) + ")");
      for (int64_t c = 0; c < factor; ++c) {
        w.open("");
        copy(c);
        w.close();
      }
      w.close();
      if (!tripCountDivisible(*it.operands[1], factor))
        for (int64_t c = 0; c + 1 < factor; ++c) {
          w.open("if (" + base + " + " + std::to_string(c) + " < " + *hi + ")");
          copy(c);
          w.close();
        }
      w.close();
      return;
    }
    if (!pragma.empty())
      w.line(pragma);
    w.open("for (int " + var + " = " + *lo + "; " + var + " < " + *hi + "; ++" + var + ")");
    push();
    Val v = scalarVal(var);
    v.varying = v.laneVarying = varyingVar;
    bind(f.var.name, v);
    block(f.body);
    pop();
    w.close();
    return;
  }
  const Val *sched = it.kind == ExprKind::Name ? lookup(it.text) : nullptr;
  if (!sched || sched->kind != Val::Schedule) {
    unsupported(it.range, "iterating over this value");
    return;
  }
  // A persistent tile loop: CTAs take tiles blockIdx.x, + gridDim.x, ...
  std::string lin = temp("tile");
  w.open("for (int " + lin + " = blockIdx.x; " + lin + " < " + sched->total + "; " + lin + " += gridDim.x)");
  const auto &dims = sched->dims;
  if (!sched->group.empty() && dims.size() == 2) {
    // grouped raster: `group` consecutive tiles of the first dimension share
    // the second, so that concurrent CTAs reuse each other's operand tiles in L2
    const std::string &e0 = dims[0].second, &e1 = dims[1].second;
    std::string g = temp("group");
    w.line("const int " + g + "_span = " + sched->group + " * " + e1 + ";");
    w.line("const int " + g + "_first = " + lin + " / " + g + "_span * " + sched->group + ";");
    w.line("const int " + g + "_size = min(" + e0 + " - " + g + "_first, " + sched->group + ");");
    w.line("const int " + var + "_" + dims[0].first + " = " + g + "_first + " + lin + " % " + g + "_span % " +
           g + "_size;");
    w.line("const int " + var + "_" + dims[1].first + " = " + lin + " % " + g + "_span / " + g + "_size;");
    w.line("(void)" + var + "_" + dims[0].first + ", (void)" + var + "_" + dims[1].first + ";");
  } else {
    // row-major over the dimensions, the last one fastest
    std::string rest = lin;
    for (size_t i = dims.size(); i-- > 0;) {
      w.line("const int " + var + "_" + dims[i].first + " = " + rest + " % " + dims[i].second + ";");
      w.line("(void)" + var + "_" + dims[i].first + ";");
      if (i)
        rest = "(" + rest + " / " + dims[i].second + ")";
    }
  }
  push();
  Val tile;
  tile.kind = Val::Tile;
  tile.cxx = var;
  bind(f.var.name, tile);
  block(f.body);
  pop();
  w.close();
}

} // namespace cake::lower
