//===- CodeActions.cpp - Quick fixes and tactics --------------------------===//
//
// Quick fixes are the rules' fix-its of the findings under the cursor. The
// tactics (compiler/driver/Tactics.h, issue #21) are refactorings where they
// apply: on a ring, one pipeline stage more or fewer; on a parameter's
// declaration, each other value of its domain; on a loop's header, the other
// unrollings (none, full, unroll(2)); on a const written as an even number (a
// tile size), half and twice it. Each is the tactic applied to
// the document and checked again (a refusal says why, with the first error of
// the result), titled with the cost model's predicted change of the file's
// kernels at the sizes the estimate hovers use.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Check.h"
#include "compiler/driver/Tactics.h"
#include "compiler/sema/Instantiate.h"
#include "compiler/sema/Model.h"
#include "compiler/syntax/Walk.h"
#include "formats/CostSupport.h"
#include "lsp/core/Features.h"
#include "lsp/features/Cost.h"

#include <cstdio>

namespace cake::lsp {

WorkspaceEdit workspaceEdit(State &state, const std::string &uri, const std::vector<Fix> &fixes) {
  const Document *doc = state.docs.find(uri);
  if (!doc)
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  WorkspaceEdit out{uri, doc->version, state.caps.documentChanges, {}};
  for (const Fix &f : fixes)
    for (const TextEdit &e : f.edits)
      out.edits.push_back({rangeOf(doc->text, e.range, state.caps.encoding), e.newText});
  return out;
}

namespace {

/// Whether a client that asked for \p only wants actions of \p kind.
bool wanted(const std::vector<std::string> &only, std::string_view kind) {
  if (only.empty())
    return true;
  for (const std::string &k : only)
    if (kind == k || (kind.starts_with(k) && kind.size() > k.size() && kind[k.size()] == '.'))
      return true;
  return false;
}

/// The one edit that turns \p from into \p to (their common prefix and suffix
/// kept), so the client's cursor and the rest of the document stay put.
TextEdit minimalEdit(FileId file, std::string_view from, std::string_view to) {
  size_t pre = 0, suf = 0;
  while (pre < from.size() && pre < to.size() && from[pre] == to[pre])
    ++pre;
  while (suf < from.size() - pre && suf < to.size() - pre && from[from.size() - 1 - suf] == to[to.size() - 1 - suf])
    ++suf;
  return {SourceRange{file, uint32_t(pre), uint32_t(from.size() - suf)},
          std::string(to.substr(pre, to.size() - pre - suf))};
}

/// The file's kernels' predicted seconds, summed, each at the sizes of its
/// estimate hover (checked in the file's defaults, as a tactic's result is);
/// nullopt when a kernel is outside the model or the text does not check.
std::optional<double> predictedSeconds(const std::string &path, const std::string &text) {
  SourceManager sm;
  FileId file = sm.addBuffer(path, text);
  CheckResult r = checkSource(sm, file);
  if (!r.model || r.model->kernels.empty())
    return std::nullopt;
  double total = 0;
  for (const sema::Kernel &k : r.model->kernels) {
    std::string note;
    auto s = cost::estimate(k, estimateSizes(path, k).first, formats::calibrationFor(k.target, std::nullopt, note))
                 .seconds;
    if (!s)
      return std::nullopt;
    total += *s;
  }
  return total;
}

/// "stages 4 -> 5 (-6.0% predicted)": the tactic's description and the
/// change of the predicted time.
std::string tacticTitle(const std::string &description, std::optional<double> before, std::optional<double> after) {
  if (!before || !after || *before <= 0)
    return description + " (no prediction)";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, " (%+.1f%% predicted)", (*after / *before - 1) * 100);
  return description + buffer;
}

void tacticActions(State &state, const std::string &uri, const Analysis &a, uint32_t begin, uint32_t end,
                   std::vector<CodeAction> &actions) {
  const syntax::Module &m = a.result.module;
  const std::string path = a.sm.name(a.file), text(a.sm.text(a.file));
  auto touches = [&](const syntax::Stmt &s) { return s.range.begin <= end && begin <= s.range.end; };
  // the tactic applications where the range lies: (tactic, arguments)
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> tries;
  syntax::forEachStmt(m.items, [&](const syntax::Stmt &s) {
    auto *ring = syntax::dyn_cast<syntax::RingStmt>(&s);
    if (!ring || !touches(s))
      return;
    std::string producer, consumer;
    for (const syntax::Clause &c : ring->clauses) {
      if (c.name.name == "stages" && c.args.size() == 1)
        if (auto n = sema::evalInt(*c.args[0], {}); n && *n >= 1 && *n <= sema::kMaxStages)
          for (int64_t to : {*n + 1, *n - 1})
            if (to >= 1 && to <= sema::kMaxStages)
              tries.push_back({"stages", {{"ring", ring->name.name}, {"to", std::to_string(to)}}});
      if ((c.name.name == "producer" || c.name.name == "consumer") && c.args.size() == 1)
        (c.name.name == "producer" ? producer : consumer) = c.args[0]->text;
    }
    // a ring its role both produces and consumes: a producer warpgroup of its own
    if (!producer.empty() && producer == consumer)
      tries.push_back({"warp-specialize", {{"ring", ring->name.name}, {"to", "load"}}});
  });
  // a loop whose header (not its body) the range touches: its other unrollings
  syntax::forEachStmt(m.items, [&](const syntax::Stmt &s) {
    auto *f = syntax::dyn_cast<syntax::ForStmt>(&s);
    if (!f || !(f->range.begin <= end && begin <= f->body.range.begin))
      return;
    std::string now = "none";
    for (const syntax::Clause &c : f->clauses)
      if (c.name.name == "unroll")
        now = c.hasArgs ? std::string(text.substr(c.range.begin, c.range.size())) : "full";
    const std::string line = std::to_string(a.sm.lineColumn(a.file, f->range.begin).line);
    for (std::string to : {"none", "full", "2"})
      if (to != now && !(to == "2" && now.starts_with("unroll(")))
        tries.push_back({"unroll", {{"loop", f->var.name}, {"line", line}, {"to", to}}});
  });
  for (const syntax::StmtPtr &s : m.items.stmts) {
    auto *p = syntax::dyn_cast<syntax::ParamDecl>(s.get());
    if (!p || !p->defaultValue || !touches(*p))
      continue;
    // the parameter's other values: at most 8, so that a wide range does not stall the editor
    std::string now(text.substr(p->defaultValue->range.begin, p->defaultValue->range.size()));
    auto nowValue = sema::evalInt(*p->defaultValue, {});
    size_t offered = 0;
    for (const std::string &v : sema::domainValues(*p, 64))
      if (v != now && (!nowValue || v != std::to_string(*nowValue)) && offered++ < 8)
        tries.push_back({"param", {{"name", p->name.name}, {"to", v}}});
  }
  // a tile size written as a const: half and twice it (tactic tile: the MMA shapes whose N it was follow)
  for (const syntax::StmtPtr &s : m.items.stmts) {
    auto *c = syntax::dyn_cast<syntax::ConstDecl>(s.get());
    if (!c || !c->value || c->value->kind != syntax::ExprKind::Number || !touches(*c))
      continue;
    if (auto n = sema::evalInt(*c->value, {}); n && *n >= 2 && *n % 2 == 0 && *n <= (int64_t(1) << 20))
      for (int64_t to : {*n / 2, *n * 2})
        tries.push_back({"tile", {{"name", c->name.name}, {"to", std::to_string(to)}}});
  }
  // a store of a warpgroup's accumulator the range touches (st.global(math.cast(ACC, T), G[...])): the TMA-store
  // epilogue, in chunks as wide as the widest swizzle (128 bytes)
  syntax::forEachStmt(m.items, [&](const syntax::Stmt &s) {
    auto *e = syntax::dyn_cast<syntax::ExprStmt>(&s);
    if (!e || !e->expr || !touches(s) || sema::calleeOp(*e->expr) != sema::OpId::StGlobal)
      return;
    const syntax::Expr *cast = e->expr->operands.size() > 1 ? e->expr->operand(1) : nullptr;
    if (!cast || sema::calleeOp(*cast) != sema::OpId::MathCast || cast->operands.size() < 3 || !cast->operand(1) ||
        cast->operand(1)->kind != syntax::ExprKind::Name || !cast->operand(2))
      return;
    if (auto elem = sema::parseElem(cast->operand(2)->text); elem && sema::elemBytes(*elem) <= 128)
      tries.push_back({"epilogue", {{"acc", cast->operand(1)->text}, {"to", std::to_string(128 / sema::elemBytes(*elem))}}});
  });
  // a kernel whose header (name and clauses, not its body) the range touches: a persistent one's raster
  // group halved and doubled; one with an explicit grid made persistent, in groups of 8 (its grid has two
  // extents or more) or row by row
  for (const syntax::StmtPtr &s : m.items.stmts) {
    auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get());
    if (!k || !(k->range.begin <= end && begin <= k->body.range.begin))
      continue;
    for (const syntax::Clause &c : k->clauses) {
      if (c.name.name != "grid" || c.args.empty())
        continue;
      if (c.args[0]->kind != syntax::ExprKind::Name || c.args[0]->text != "persistent") {
        tries.push_back({"persistent", {{"kernel", k->name.name}, {"to", c.args.size() > 1 ? "8" : "1"}}});
        continue;
      }
      size_t schedules = 0;
      const syntax::Expr *written = rasterGroup(*k, &schedules);
      std::optional<int64_t> group = written ? sema::evalInt(*written, {}) : schedules ? std::optional<int64_t>(1) : std::nullopt;
      if (group && *group >= 1)
        for (int64_t to : {*group * 2, *group / 2})
          if (to >= 1 && to != *group && to <= 64)
            tries.push_back({"persistent", {{"kernel", k->name.name}, {"to", std::to_string(to)}}});
    }
  }
  if (tries.empty())
    return;
  std::optional<double> before = predictedSeconds(path, text);
  for (const auto &[name, args] : tries) {
    auto applied = applyTactic(path, text, name, args);
    CodeAction action;
    action.kind = "refactor.rewrite";
    if (!applied) {
      if (!state.caps.codeActionDisabled)
        continue;
      std::string what = name == "stages"   ? "ring '" + args.at("ring") + "': stages -> " + args.at("to")
                         : name == "unroll" ? "loop '" + args.at("loop") + "': unroll -> " + args.at("to")
                         : name == "tile"   ? "const " + args.at("name") + " -> " + args.at("to")
                         : name == "persistent" ? "kernel '" + args.at("kernel") + "': persistent, groups of " + args.at("to")
                         : name == "epilogue" ? "'" + args.at("acc") + "': TMA-store epilogue, chunks of " + args.at("to")
                         : name == "warp-specialize" ? "ring '" + args.at("ring") + "': producer role '" + args.at("to") + "'"
                                            : "param " + args.at("name") + " -> " + args.at("to");
      action.title = what + " (refused)";
      action.disabled = applied.error().message;
    } else {
      action.title = tacticTitle(applied->description, before, predictedSeconds(path, applied->text));
      action.edit = workspaceEdit(state, uri, {Fix{"", {minimalEdit(a.file, text, applied->text)}}});
    }
    actions.push_back(std::move(action));
  }
}

} // namespace

std::vector<CodeAction> codeActions(State &state, const std::string &uri, Range range,
                                    const std::vector<std::string> &only) {
  auto analysis = state.docs.analyze(uri, state.check);
  std::string_view text = analysis->sm.text(analysis->file);
  Encoding enc = state.caps.encoding;
  uint32_t begin = offsetAt(text, range.start, enc), end = offsetAt(text, range.end, enc);
  std::vector<CodeAction> actions;
  if (wanted(only, "quickfix"))
    for (const Diagnostic &d : analysis->result.diagnostics) {
      bool touches = d.range.file == analysis->file && d.range.begin <= end && begin <= d.range.end;
      if (!touches || d.fixes.empty())
        continue;
      LspDiagnostic diag;
      diag.range = rangeOf(text, d.range, enc);
      diag.code = d.code;
      diag.message = d.message;
      diag.severity = d.severity == Severity::Error ? 1 : 2;
      const Fix *preferred = firstPreferred(d);
      for (const Fix &f : d.fixes)
        actions.push_back({f.title + " [" + d.code + "]", "quickfix", {diag}, &f == preferred,
                           workspaceEdit(state, uri, {f}), ""});
    }
  if (wanted(only, "refactor.rewrite"))
    tacticActions(state, uri, *analysis, begin, end, actions);
  return actions;
}

} // namespace cake::lsp
