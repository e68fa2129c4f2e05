//===- Walk.h - Statement and call walkers over the syntax tree -*- C++ -*-===//
//
// Part of CAKE. The verifier's rules, the lowering and the cost model all
// visit the statements of a body and the calls in them; these walkers are
// the one way they do it, so they agree on the order (source order,
// pre-order for statements, innermost calls first) and on what is nested.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/syntax/AST.h"

#include <functional>

namespace cake::syntax {

/// Visits every statement of \p block and of the blocks nested in it, in
/// source order (pre-order).
void forEachStmt(const Block &block, const std::function<void(const Stmt &)> &fn);
/// The same for \p stmt itself and everything nested in it (else-if chains
/// included).
void forEachStmt(const Stmt &stmt, const std::function<void(const Stmt &)> &fn);

/// Visits the blocks nested directly in \p stmt (a kernel's, a role's or a
/// loop's body, an if's branches and those of its else-if chain), in source
/// order; not the blocks nested in those.
void forEachBlockOf(const Stmt &stmt, const std::function<void(const Block &)> &fn);

/// Visits every call in \p stmt (and in statements nested in it), in source
/// order, innermost calls of an expression first.
void forEachCall(const Stmt &stmt, const std::function<void(const Expr &call)> &fn);
void forEachCall(const Block &block, const std::function<void(const Expr &call)> &fn);

/// Visits every call directly in \p stmt's own expressions (not in nested
/// blocks).
void forEachCallShallow(const Stmt &stmt, const std::function<void(const Expr &call)> &fn);

} // namespace cake::syntax
