//===- SelectionRanges.cpp - textDocument/selectionRange ------------------===//
//
// For each position the ranges around it, innermost first, from the syntax
// tree (which keeps every statement that parsed): the word under the cursor,
// then the expressions, types, clauses and fields that contain it, the
// statement, the block, the enclosing statements and blocks up to the
// kernel, and the whole file. Each range contains the one before it.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

#include <algorithm>
#include <cctype>

namespace cake::lsp {

using namespace syntax;

std::vector<SelectionRange> selectionRanges(State &state, const std::string &uri,
                                            const std::vector<Position> &positions) {
  auto analysis = state.docs.analyze(uri, state.check);
  const Analysis &a = *analysis;
  std::string_view text = a.text();
  LineMap lines(text, state.caps.encoding);
  std::vector<SelectionRange> out;
  for (Position p : positions) {
    uint32_t offset = lines.offset(p);
    std::vector<std::pair<uint32_t, uint32_t>> around;
    auto add = [&](SourceRange r) {
      if (r.valid() && r.begin <= offset && offset <= r.end && r.end <= text.size())
        around.push_back({r.begin, r.end});
    };
    // The word under the cursor.
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    uint32_t wb = offset, we = offset;
    while (wb > 0 && ident(text[wb - 1]))
      --wb;
    while (we < text.size() && ident(text[we]))
      ++we;
    if (we > wb)
      around.push_back({wb, we});
    Walker w;
    w.expr = [&](const Expr &e) { add(e.range); };
    w.type = [&](const TypeExpr &t) { add(t.range); };
    w.clause = [&](const Clause &c) { add(c.range); };
    w.field = [&](const Field &f) { add(f.range); };
    w.stmt = [&](const Stmt &s) {
      add(s.range);
      if (auto *k = dyn_cast<KernelDecl>(&s))
        add(k->body.range);
      else if (auto *r = dyn_cast<RoleStmt>(&s))
        add(r->body.range);
      else if (auto *r = dyn_cast<RingStmt>(&s))
        add(r->bodyRange);
      else if (auto *f = dyn_cast<ForStmt>(&s))
        add(f->body.range);
      else if (auto *i = dyn_cast<IfStmt>(&s)) {
        add(i->thenBody.range);
        if (i->elseBody)
          add(i->elseBody->range);
      }
    };
    walk(a.result.module.items, w);
    around.push_back({0, static_cast<uint32_t>(text.size())});
    std::sort(around.begin(), around.end(), [](auto x, auto y) {
      return x.second - x.first != y.second - y.first ? x.second - x.first < y.second - y.first : x.first > y.first;
    });
    SelectionRange chain;
    std::pair<uint32_t, uint32_t> last{offset, offset};
    bool any = false;
    for (auto r : around) {
      if (any && (r == last || r.first > last.first || r.second < last.second))
        continue; // the same range again, or one that does not contain the last
      chain.ranges.push_back(lines.range(SourceRange{a.file, r.first, r.second}));
      last = r;
      any = true;
    }
    out.push_back(std::move(chain));
  }
  return out;
}

} // namespace cake::lsp
