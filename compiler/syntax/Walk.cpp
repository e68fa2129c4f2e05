//===- Walk.cpp - Statement and call walkers over the syntax tree ---------===//
#include "compiler/syntax/Walk.h"

namespace cake::syntax {

namespace {

void visitBlocks(const Stmt &s, const std::function<void(const Block &)> &fn) {
  switch (s.kind) {
  case StmtKind::Kernel:
    return fn(static_cast<const KernelDecl &>(s).body);
  case StmtKind::Role:
    return fn(static_cast<const RoleStmt &>(s).body);
  case StmtKind::For:
    return fn(static_cast<const ForStmt &>(s).body);
  case StmtKind::If: {
    auto &i = static_cast<const IfStmt &>(s);
    fn(i.thenBody);
    if (i.elseBody)
      fn(*i.elseBody);
    return;
  }
  default:
    return;
  }
}

void visitExprCalls(const Expr *e, const std::function<void(const Expr &)> &fn) {
  if (!e)
    return;
  for (const ExprPtr &o : e->operands)
    visitExprCalls(o.get(), fn);
  if (e->kind == ExprKind::Call)
    fn(*e);
}

} // namespace

/// \p s, the statements nested in it, and its else-if chain.
static void visitStmt(const Stmt &s, const std::function<void(const Stmt &)> &fn) {
  fn(s);
  visitBlocks(s, [&](const Block &b) { forEachStmt(b, fn); });
  if (auto *i = dyn_cast<IfStmt>(&s); i && i->elseIf)
    visitStmt(*i->elseIf, fn);
}

void forEachStmt(const Block &block, const std::function<void(const Stmt &)> &fn) {
  for (const StmtPtr &s : block.stmts)
    visitStmt(*s, fn);
}

void forEachStmt(const Stmt &stmt, const std::function<void(const Stmt &)> &fn) { visitStmt(stmt, fn); }

void forEachBlockOf(const Stmt &stmt, const std::function<void(const Block &)> &fn) {
  visitBlocks(stmt, fn);
  if (auto *i = dyn_cast<IfStmt>(&stmt); i && i->elseIf)
    forEachBlockOf(*i->elseIf, fn);
}

void forEachCallShallow(const Stmt &s, const std::function<void(const Expr &)> &fn) {
  switch (s.kind) {
  case StmtKind::Let:
    return visitExprCalls(static_cast<const LetStmt &>(s).value.get(), fn);
  case StmtKind::Var:
    return visitExprCalls(static_cast<const VarStmt &>(s).init.get(), fn);
  case StmtKind::For:
    return visitExprCalls(static_cast<const ForStmt &>(s).iterable.get(), fn);
  case StmtKind::If:
    return visitExprCalls(static_cast<const IfStmt &>(s).cond.get(), fn);
  case StmtKind::Assume:
    for (const ExprPtr &f : static_cast<const AssumeStmt &>(s).facts)
      visitExprCalls(f.get(), fn);
    return;
  case StmtKind::Require:
    for (const ExprPtr &f : static_cast<const RequireDecl &>(s).facts)
      visitExprCalls(f.get(), fn);
    return;
  case StmtKind::Return:
    return visitExprCalls(static_cast<const ReturnStmt &>(s).value.get(), fn);
  case StmtKind::Assign: {
    auto &a = static_cast<const AssignStmt &>(s);
    for (const ExprPtr &t : a.targets)
      visitExprCalls(t.get(), fn);
    return visitExprCalls(a.value.get(), fn);
  }
  case StmtKind::Expr:
    return visitExprCalls(static_cast<const ExprStmt &>(s).expr.get(), fn);
  default:
    return;
  }
}

void forEachCall(const Block &block, const std::function<void(const Expr &)> &fn) {
  forEachStmt(block, [&](const Stmt &s) { forEachCallShallow(s, fn); });
}

void forEachCall(const Stmt &stmt, const std::function<void(const Expr &)> &fn) {
  forEachStmt(stmt, [&](const Stmt &s) { forEachCallShallow(s, fn); });
}

} // namespace cake::syntax
