//===- FoldingRanges.cpp - textDocument/foldingRange ----------------------===//
//
// Whole-line folds from the syntax tree (so they survive syntax errors in
// other statements): each kernel (its parameter list and body), ring, role,
// loop and each branch of an `if` (top-level ones on parameters included),
// from the line of its header to the line before its closing `}`, which
// stays visible; and each run of two or more `//` comment lines of their
// own (kind "comment"). The lexer finds the comments, so `//` in a string
// is none.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/Features.h"

#include "compiler/syntax/Lexer.h"
#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::lsp {

using namespace syntax;

std::vector<FoldingRange> foldingRanges(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  const Analysis &a = *analysis;
  LineMap lines(a.text(), state.caps.encoding);
  auto line = [&](uint32_t offset) { return lines.lineCharacter(offset).first; };
  std::vector<FoldingRange> out;
  // From the header's line to the line before the one of the closing brace.
  auto fold = [&](uint32_t begin, SourceRange body) {
    if (!body.valid() || body.end == 0 || body.end > a.text().size())
      return;
    bool brace = a.text()[body.end - 1] == '}';
    int64_t first = line(begin), last = int64_t(line(body.end - 1)) - (brace ? 1 : 0);
    if (last > first)
      out.push_back({uint32_t(first), uint32_t(last), ""});
  };
  forEachStmt(a.result.module.items, [&](const Stmt &s) {
    if (auto *k = dyn_cast<KernelDecl>(&s))
      fold(k->range.begin, k->body.range);
    else if (auto *r = dyn_cast<RingStmt>(&s))
      fold(r->range.begin, r->bodyRange);
    else if (auto *r = dyn_cast<RoleStmt>(&s))
      fold(r->range.begin, r->body.range);
    else if (auto *f = dyn_cast<ForStmt>(&s))
      fold(f->range.begin, f->body.range);
    else if (auto *i = dyn_cast<IfStmt>(&s)) {
      fold(i->range.begin, i->thenBody.range);
      if (i->elseBody)
        fold(i->thenBody.range.end - 1, i->elseBody->range); // from the `} else {` line
    }
  });
  // Runs of comment lines.
  std::vector<Diagnostic> ignored;
  LexedFile lexed = lex(a.sm, a.file, ignored);
  for (size_t i = 0; i < lexed.comments.size();) {
    size_t j = i;
    while (j + 1 < lexed.comments.size() && lexed.comments[j + 1].ownLine &&
           line(lexed.comments[j + 1].range.begin) == line(lexed.comments[j].range.begin) + 1)
      ++j;
    if (lexed.comments[i].ownLine && j > i)
      out.push_back({line(lexed.comments[i].range.begin), line(lexed.comments[j].range.begin), "comment"});
    i = j + 1;
  }
  std::sort(out.begin(), out.end(), [](const FoldingRange &x, const FoldingRange &y) {
    return x.startLine != y.startLine ? x.startLine < y.startLine : x.endLine > y.endLine;
  });
  return out;
}

} // namespace cake::lsp
