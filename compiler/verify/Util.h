//===- Util.h - Shared helpers for the rule families -----------*- C++ -*-===//
#pragma once

#include "compiler/sema/Model.h"
#include "compiler/sema/Ops.h"
#include "compiler/syntax/Walk.h"
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

/// The role whose body contains \p stmt, or nullptr.
const sema::Role *roleContaining(const syntax::Stmt &stmt, const sema::Kernel &kernel);

/// The whitespace that starts the line of \p range.
std::string indentAt(const SourceManager &sm, SourceRange range);

/// A fix inserting \p line (without indentation or newline) as a new line
/// before \p stmt, indented like it.
Fix insertLineBefore(const SourceManager &sm, const syntax::Stmt &stmt, std::string title, const std::string &line);
/// A fix inserting \p line as a new line after \p stmt, indented like it.
Fix insertLineAfter(const SourceManager &sm, const syntax::Stmt &stmt, std::string title, const std::string &line);

/// Whether fence.proxy_async \p fence, statement \p i of \p b, publishes generic writes: a statement of \p b
/// before it stores into its buffer (st.shared, st.matrix through a view \p sameBuffer accepts), or it names
/// none. One that follows only reads hands a ring slot back to TMA before its release: no barrier or retired
/// wgmma group belongs with it (bar.race's and wgmma.inflight's fix placement).
bool publishesWrites(const syntax::Block &b, size_t i, const syntax::Expr &fence, const sema::Kernel &kernel,
                     const std::function<bool(const syntax::Expr &fenced, const syntax::Expr &written)> &sameBuffer);
/// A fix inserting \p line as the last statement of \p block (before its '}').
Fix insertLineAtEnd(const SourceManager &sm, const syntax::Block &block, std::string title, const std::string &line);

/// `if elect.one() {` before \p first, `}` after \p last, the lines between
/// indented one level (the canonical form): the fix of an operation issued by
/// every thread that one thread should issue (role.issue).
Fix wrapInElect(const SourceManager &sm, const syntax::Stmt &first, const syntax::Stmt &last);

/// The first `assume` fact of \p kernel that names \p symbol, or nullptr:
/// where a rule whose fix is a missing fact about the symbol reports it.
const syntax::Expr *factAbout(const sema::Kernel &kernel, const std::string &symbol);

/// The source text of \p range.
std::string_view textOf(const SourceManager &sm, SourceRange range);

} // namespace cake::verify
