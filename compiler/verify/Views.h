//===- Views.h - Shapes and element types of operands ----------*- C++ -*-===//
//
// Part of CAKE. The copies and mma rule families need the shape, element
// type and storage of operands; sema's shape inference (sema/Shapes.h) gives
// them. walkKernel visits the roles in source order with the names visible at
// each statement bound in a shapes::Env.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Shapes.h"
#include "compiler/verify/Util.h"

#include <map>
#include <numeric>

namespace cake::verify::views {

// The value model and its inference are sema's (compiler/sema/Shapes.h),
// shared with the lowering and the cost model.
using sema::shapes::applyIndex;
using sema::shapes::broadcast;
using sema::shapes::Env;
using sema::shapes::fromType;
using sema::shapes::Shape;
using sema::shapes::shapeText;
using sema::shapes::sliceExtent;
using sema::shapes::stripParens;
using sema::shapes::Value;

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
