//===- Util.cpp - Shared helpers for the rule families --------------------===//
#include "compiler/verify/Util.h"

#include <functional>

#include <algorithm>
#include <tuple>

namespace cake::verify {

using namespace syntax;

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

bool publishesWrites(const Block &b, size_t i, const Expr &fence, const sema::Kernel &kernel,
                     const std::function<bool(const Expr &fenced, const Expr &written)> &sameBuffer) {
  auto args = sema::positionalArgs(fence);
  if (args.empty())
    return true;
  bool found = false;
  for (size_t j = 0; j < i && !found; ++j)
    forEachCall(*b.stmts[j], [&](const Expr &c) {
      sema::OpId op = sema::opIdOf(c, kernel);
      auto a = sema::positionalArgs(c);
      found = found || ((op == sema::OpId::StShared || op == sema::OpId::StMatrix) && a.size() > 1 &&
                        sameBuffer(*args[0], *a[1]));
    });
  return found;
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

Fix wrapInElect(const SourceManager &sm, const syntax::Stmt &first, const syntax::Stmt &last) {
  FileId file = first.range.file;
  std::string indent = indentAt(sm, first.range);
  uint32_t firstLine = sm.lineColumn(file, first.range.begin).line;
  uint32_t lastLine = sm.lineColumn(file, last.range.end).line;
  Fix fix{"wrap in if elect.one() { ... }", {}};
  fix.edits.push_back(
      {{file, sm.lineStart(file, firstLine), sm.lineStart(file, firstLine)}, indent + "if elect.one() {\n  "});
  for (uint32_t line = firstLine + 1; line <= lastLine; ++line)
    if (!sm.lineText(file, line).empty()) {
      uint32_t at = sm.lineStart(file, line);
      fix.edits.push_back({{file, at, at}, "  "});
    }
  Fix close = insertLineAfter(sm, last, "", "}");
  fix.edits.insert(fix.edits.end(), close.edits.begin(), close.edits.end());
  return fix;
}


const syntax::Expr *factAbout(const sema::Kernel &kernel, const std::string &symbol) {
  std::function<bool(const syntax::Expr &)> names = [&](const syntax::Expr &e) {
    if (e.kind == syntax::ExprKind::Name && e.text == symbol)
      return true;
    for (const syntax::ExprPtr &o : e.operands)
      if (o && names(*o))
        return true;
    return false;
  };
  for (const syntax::StmtPtr &st : kernel.decl->body.stmts)
    if (auto *a = syntax::dyn_cast<syntax::AssumeStmt>(st.get()))
      for (const syntax::ExprPtr &f : a->facts)
        if (f && names(*f))
          return f.get();
  return nullptr;
}

} // namespace cake::verify
