//===- Util.h - Shared helpers for the rule families -----------*- C++ -*-===//
#pragma once

#include "compiler/sema/Model.h"
#include "compiler/sema/Ops.h"
#include "diagnostics/Sink.h"

#include <functional>

namespace cake::verify {

struct RuleContext {
  const SourceManager &sm;
  DiagnosticSink &sink;
};

/// A finding collected before reporting, so that an analysis that visits a
/// statement several times (loops, simulations) reports each cause once.
struct Finding {
  std::string code;
  SourceRange range;
  std::string message;
  std::vector<Note> notes;
  std::vector<Fix> fixes;
};

/// Reports \p findings in source order (then code and message), so the
/// output does not depend on the order an analysis met them.
void emitFindings(RuleContext &ctx, std::vector<Finding> findings);

/// Visits every statement of \p block and of the blocks nested in it, in
/// source order (pre-order).
void forEachStmt(const syntax::Block &block, const std::function<void(const syntax::Stmt &)> &fn);
/// The same for \p stmt itself and everything nested in it (else-if chains
/// included).
void forEachStmt(const syntax::Stmt &stmt, const std::function<void(const syntax::Stmt &)> &fn);

/// Visits every call in \p stmt (and in statements nested in it), in source
/// order, innermost calls of an expression first.
void forEachCall(const syntax::Stmt &stmt, const std::function<void(const syntax::Expr &call)> &fn);
void forEachCall(const syntax::Block &block, const std::function<void(const syntax::Expr &call)> &fn);

/// Visits every call directly in \p stmt's own expressions (not in nested
/// blocks).
void forEachCallShallow(const syntax::Stmt &stmt, const std::function<void(const syntax::Expr &call)> &fn);

/// The operation \p call invokes in \p kernel ("ring.produce" for
/// `ab.produce()`), or nullptr when it is not an operation.
const sema::OpInfo *opOf(const syntax::Expr &call, const sema::Kernel &kernel);

/// The name of that operation ("" when none); it lives in the primitive
/// table, so the view stays valid.
std::string_view opName(const syntax::Expr &call, const sema::Kernel &kernel);

/// The ring a ring operation is called on (`ab` in `ab.release(s)`).
const sema::Ring *ringOf(const syntax::Expr &call, const sema::Kernel &kernel);

/// The role whose body contains \p stmt, or nullptr.
const sema::Role *roleContaining(const syntax::Stmt &stmt, const sema::Kernel &kernel);

/// The whitespace that starts the line of \p range.
std::string indentAt(const SourceManager &sm, SourceRange range);

/// A fix inserting \p line (without indentation or newline) as a new line
/// before \p stmt, indented like it.
Fix insertLineBefore(const SourceManager &sm, const syntax::Stmt &stmt, std::string title, const std::string &line);
/// A fix inserting \p line as a new line after \p stmt, indented like it.
Fix insertLineAfter(const SourceManager &sm, const syntax::Stmt &stmt, std::string title, const std::string &line);
/// A fix inserting \p line as the last statement of \p block (before its '}').
Fix insertLineAtEnd(const SourceManager &sm, const syntax::Block &block, std::string title, const std::string &line);

/// The source text of \p range.
std::string_view textOf(const SourceManager &sm, SourceRange range);

} // namespace cake::verify
