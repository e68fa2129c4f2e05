//===- CodeActions.cpp - Quick fixes from the rules' fix-its --------------===//
#include "lsp/core/Features.h"

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

std::vector<CodeAction> codeActions(State &state, const std::string &uri, Range range) {
  auto analysis = state.docs.analyze(uri, state.check);
  std::string_view text = analysis->sm.text(analysis->file);
  Encoding enc = state.caps.encoding;
  uint32_t begin = offsetAt(text, range.start, enc), end = offsetAt(text, range.end, enc);
  std::vector<CodeAction> actions;
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
                         workspaceEdit(state, uri, {f})});
  }
  return actions;
}

} // namespace cake::lsp
