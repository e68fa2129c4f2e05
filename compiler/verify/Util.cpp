//===- Util.cpp - Shared helpers for the rule families --------------------===//
#include "compiler/verify/Util.h"

#include <algorithm>
#include <tuple>

namespace cake::verify {

using namespace syntax;

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

const sema::OpInfo *opOf(const Expr &call, const sema::Kernel &kernel) {
  if (call.kind != ExprKind::Call)
    return nullptr;
  if (auto it = kernel.ops.find(&call); it != kernel.ops.end())
    return it->second;
  const Expr &callee = *call.operands[0];
  if (callee.kind == ExprKind::Member && callee.operands[0]->kind == ExprKind::Name &&
      kernel.ring(callee.operands[0]->text))
    return sema::findOp("ring." + callee.text);
  return sema::findOp(sema::dottedName(callee));
}

std::string_view opName(const Expr &call, const sema::Kernel &kernel) {
  const sema::OpInfo *op = opOf(call, kernel);
  return op ? op->name : std::string_view();
}

const sema::Ring *ringOf(const Expr &call, const sema::Kernel &kernel) {
  if (call.kind != ExprKind::Call || call.operands[0]->kind != ExprKind::Member)
    return nullptr;
  const Expr &base = *call.operands[0]->operands[0];
  return base.kind == ExprKind::Name ? kernel.ring(base.text) : nullptr;
}

const sema::Role *roleContaining(const Stmt &stmt, const sema::Kernel &kernel) {
  for (const sema::Role &r : kernel.roles)
    if (r.decl->body.range.begin <= stmt.range.begin && stmt.range.end <= r.decl->body.range.end)
      return &r;
  return nullptr;
}

void emitFindings(RuleContext &ctx, std::vector<Finding> findings) {
  std::sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) {
    return std::tie(a.range.begin, a.range.end, a.code, a.message) <
           std::tie(b.range.begin, b.range.end, b.code, b.message);
  });
  for (Finding &f : findings) {
    Diagnostic &d = ctx.sink.report(f.code, f.range, std::move(f.message));
    d.notes = std::move(f.notes);
    d.fixes = std::move(f.fixes);
  }
}

std::string_view textOf(const SourceManager &sm, SourceRange range) {
  return sm.text(range.file).substr(range.begin, range.size());
}

std::string indentAt(const SourceManager &sm, SourceRange range) {
  uint32_t line = sm.lineColumn(range.file, range.begin).line;
  std::string_view text = sm.lineText(range.file, line);
  return std::string(text.substr(0, text.find_first_not_of(" \t")));
}

Fix insertLineBefore(const SourceManager &sm, const Stmt &stmt, std::string title, const std::string &line) {
  uint32_t lineNo = sm.lineColumn(stmt.range.file, stmt.range.begin).line;
  uint32_t at = sm.lineStart(stmt.range.file, lineNo);
  return insertFix(std::move(title), stmt.range.file, at, indentAt(sm, stmt.range) + line + "\n");
}

Fix insertLineAfter(const SourceManager &sm, const Stmt &stmt, std::string title, const std::string &line) {
  uint32_t lineNo = sm.lineColumn(stmt.range.file, stmt.range.end).line;
  uint32_t at = sm.lineStart(stmt.range.file, lineNo + 1);
  std::string prefix = at == sm.text(stmt.range.file).size() && !sm.text(stmt.range.file).ends_with("\n") ? "\n" : "";
  return insertFix(std::move(title), stmt.range.file, at, prefix + indentAt(sm, stmt.range) + line + "\n");
}

Fix insertLineAtEnd(const SourceManager &sm, const Block &block, std::string title, const std::string &line) {
  if (!block.stmts.empty())
    return insertLineAfter(sm, *block.stmts.back(), std::move(title), line);
  // An empty block: put the line before the closing brace's line.
  SourceRange close{block.range.file, block.range.end - 1, block.range.end};
  uint32_t lineNo = sm.lineColumn(close.file, close.begin).line;
  uint32_t at = sm.lineStart(close.file, lineNo);
  return insertFix(std::move(title), close.file, at, indentAt(sm, close) + "  " + line + "\n");
}

} // namespace cake::verify
