//===- Diagnostics.cpp - Pushed and pulled diagnostics --------------------===//
//
// CAKE diagnostics become LSP diagnostics with their code, a link to the
// rule's page, related information for notes (or, for clients without
// relatedInformation such as eglot 1.9, one hint per note), and their fixes
// in `data` so that code actions can be answered without re-checking.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/Features.h"

namespace cake::lsp {
namespace {

int lspSeverity(Severity s) {
  switch (s) {
  case Severity::Error:
    return 1;
  case Severity::Warning:
    return 2;
  case Severity::Remark:
    return 3;
  case Severity::Note:
    return 4;
  }
  return 1;
}

std::string rulePageUri(const std::string &code) {
  return pathToUri(std::string(CAKE_SOURCE_DIR) + "/docs/rules/" + code + ".md");
}

std::vector<DiagnosticFix> lspFixes(std::string_view text, const std::vector<Fix> &fixes, Encoding enc) {
  std::vector<DiagnosticFix> out;
  for (const Fix &f : fixes) {
    DiagnosticFix fix{f.title, {}, f.preferred};
    for (const TextEdit &e : f.edits)
      fix.edits.push_back({rangeOf(text, e.range, enc), e.newText});
    out.push_back(std::move(fix));
  }
  return out;
}

} // namespace

std::vector<LspDiagnostic> lspDiagnostics(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  std::string_view text = analysis->sm.text(analysis->file);
  Encoding enc = state.caps.encoding;
  std::vector<LspDiagnostic> out;
  for (const Diagnostic &d : analysis->result.diagnostics) {
    LspDiagnostic diag;
    diag.range = rangeOf(text, d.range, enc);
    diag.severity = lspSeverity(d.severity);
    diag.code = d.code;
    diag.message = d.message;
    if (state.caps.codeDescription)
      diag.codeDescription = rulePageUri(d.code);
    diag.fixes = lspFixes(text, d.fixes, enc);
    std::vector<LspDiagnostic> hints;
    for (const Note &n : d.notes) {
      if (!n.range.valid())
        continue;
      if (state.caps.relatedInformation)
        diag.related.push_back({{uri, rangeOf(text, n.range, enc)}, n.message});
      else {
        LspDiagnostic hint;
        hint.range = rangeOf(text, n.range, enc);
        hint.severity = 4;
        hint.code = d.code;
        hint.message = "note: " + n.message + " (" + d.message + ")";
        hints.push_back(std::move(hint));
      }
    }
    out.push_back(std::move(diag));
    for (LspDiagnostic &h : hints)
      out.push_back(std::move(h));
  }
  return out;
}

} // namespace cake::lsp
