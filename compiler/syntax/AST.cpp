//===- AST.cpp - Structural equality of syntax trees ----------------------===//
#include "compiler/syntax/AST.h"

#include <algorithm>

namespace cake::syntax {
namespace {

template <typename T, typename Eq>
bool equalRange(const std::vector<T> &a, const std::vector<T> &b, Eq eq) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), eq);
}

bool equalExprs(const std::vector<ExprPtr> &a, const std::vector<ExprPtr> &b) {
  return equalRange(a, b, [](const ExprPtr &x, const ExprPtr &y) { return equal(x.get(), y.get()); });
}

bool equalClause(const Clause &a, const Clause &b) {
  return a.name == b.name && a.hasArgs == b.hasArgs && equalExprs(a.args, b.args);
}

bool equalClauses(const std::vector<Clause> &a, const std::vector<Clause> &b) {
  return equalRange(a, b, equalClause);
}

bool equalOptType(const std::optional<TypeExpr> &a, const std::optional<TypeExpr> &b) {
  return a.has_value() == b.has_value() && (!a || equal(*a, *b));
}

bool equalField(const Field &a, const Field &b) {
  return a.trivia == b.trivia && a.name == b.name && equal(a.type, b.type);
}

bool equalBlock(const Block &a, const Block &b) {
  return a.danglingComments == b.danglingComments &&
         equalRange(a.stmts, b.stmts, [](const StmtPtr &x, const StmtPtr &y) { return equal(*x, *y); });
}

template <typename T> const T &as(const Stmt &s) { return static_cast<const T &>(s); }

} // namespace

bool equal(const Expr *a, const Expr *b) {
  if (!a || !b)
    return a == b;
  return a->kind == b->kind && a->text == b->text && a->op == b->op && equalExprs(a->operands, b->operands);
}

bool equal(const TypeExpr &a, const TypeExpr &b) {
  return a.space == b.space && a.elem == b.elem && a.hasShape == b.hasShape && equalExprs(a.dims, b.dims) &&
         equalClauses(a.clauses, b.clauses);
}

bool equal(const Stmt &a, const Stmt &b) {
  if (a.kind != b.kind || !(a.trivia == b.trivia))
    return false;
  switch (a.kind) {
  case StmtKind::Kernel: {
    auto &x = as<KernelDecl>(a), &y = as<KernelDecl>(b);
    return x.name == y.name && equalRange(x.params, y.params, equalField) &&
           x.paramsDanglingComments == y.paramsDanglingComments && equalClauses(x.clauses, y.clauses) &&
           equalBlock(x.body, y.body);
  }
  case StmtKind::Const: {
    auto &x = as<ConstDecl>(a), &y = as<ConstDecl>(b);
    return x.name == y.name && equalOptType(x.type, y.type) && equal(x.value.get(), y.value.get());
  }
  case StmtKind::Param: {
    auto &x = as<ParamDecl>(a), &y = as<ParamDecl>(b);
    return x.name == y.name && x.kind == y.kind && x.hasChoices == y.hasChoices && equalExprs(x.choices, y.choices) &&
           equal(x.bounds.get(), y.bounds.get()) && equal(x.defaultValue.get(), y.defaultValue.get());
  }
  case StmtKind::Require:
    return equalExprs(as<RequireDecl>(a).facts, as<RequireDecl>(b).facts);
  case StmtKind::Let: {
    auto &x = as<LetStmt>(a), &y = as<LetStmt>(b);
    return x.names == y.names && equalOptType(x.type, y.type) && equal(x.value.get(), y.value.get());
  }
  case StmtKind::Var: {
    auto &x = as<VarStmt>(a), &y = as<VarStmt>(b);
    return x.name == y.name && equal(x.type, y.type) && equal(x.init.get(), y.init.get());
  }
  case StmtKind::Ring: {
    auto &x = as<RingStmt>(a), &y = as<RingStmt>(b);
    return x.name == y.name && equalClauses(x.clauses, y.clauses) && equalRange(x.slots, y.slots, equalField) &&
           x.danglingComments == y.danglingComments;
  }
  case StmtKind::Role: {
    auto &x = as<RoleStmt>(a), &y = as<RoleStmt>(b);
    return x.name == y.name && equalClauses(x.clauses, y.clauses) && equalBlock(x.body, y.body);
  }
  case StmtKind::For: {
    auto &x = as<ForStmt>(a), &y = as<ForStmt>(b);
    return x.var == y.var && equal(x.iterable.get(), y.iterable.get()) && equalClauses(x.clauses, y.clauses) &&
           equalBlock(x.body, y.body);
  }
  case StmtKind::If: {
    auto &x = as<IfStmt>(a), &y = as<IfStmt>(b);
    if (!equal(x.cond.get(), y.cond.get()) || !equalBlock(x.thenBody, y.thenBody))
      return false;
    if (x.elseBody.has_value() != y.elseBody.has_value() || (x.elseBody && !equalBlock(*x.elseBody, *y.elseBody)))
      return false;
    return (!x.elseIf && !y.elseIf) || (x.elseIf && y.elseIf && equal(*x.elseIf, *y.elseIf));
  }
  case StmtKind::Assume:
    return equalExprs(as<AssumeStmt>(a).facts, as<AssumeStmt>(b).facts);
  case StmtKind::Return:
    return equal(as<ReturnStmt>(a).value.get(), as<ReturnStmt>(b).value.get());
  case StmtKind::Assign: {
    auto &x = as<AssignStmt>(a), &y = as<AssignStmt>(b);
    return x.op == y.op && equalExprs(x.targets, y.targets) && equal(x.value.get(), y.value.get());
  }
  case StmtKind::Expr:
    return equal(as<ExprStmt>(a).expr.get(), as<ExprStmt>(b).expr.get());
  }
  return false;
}

bool equal(const Module &a, const Module &b) { return equalBlock(a.items, b.items); }

} // namespace cake::syntax
