//===- Diagnostics.cpp - Pushed and pulled diagnostics --------------------===//
//
// CAKE diagnostics become LSP diagnostics with their code, a link to the
// rule's page, related information for notes (or, for clients without
// relatedInformation such as eglot 1.9, one hint per note), and their fixes
// in `data` so that code actions can be answered without re-checking.
//
//===----------------------------------------------------------------------===//
#include "lsp/Features.h"

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

json fixesJson(std::string_view text, const std::vector<Fix> &fixes, Encoding enc) {
  json out = json::array();
  for (const Fix &f : fixes) {
    json edits = json::array();
    for (const TextEdit &e : f.edits)
      edits.push_back({{"range", rangeOf(text, e.range, enc)}, {"newText", e.newText}});
    out.push_back({{"title", f.title}, {"edits", std::move(edits)}});
  }
  return out;
}

} // namespace

std::string documentUri(const json &params) {
  return field<std::string>(field<json>(params, "textDocument", "params"), "uri", "params.textDocument");
}

json lspDiagnostics(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  std::string_view text = analysis->sm.text(analysis->file);
  Encoding enc = state.caps.encoding;
  json out = json::array();
  for (const Diagnostic &d : analysis->result.diagnostics) {
    json diag = {{"range", rangeOf(text, d.range, enc)},
                 {"severity", lspSeverity(d.severity)},
                 {"code", d.code},
                 {"source", "cake"},
                 {"message", d.message}};
    if (state.caps.codeDescription)
      diag["codeDescription"] = {{"href", rulePageUri(d.code)}};
    if (!d.fixes.empty())
      diag["data"] = {{"fixes", fixesJson(text, d.fixes, enc)}};
    json hints = json::array();
    if (!d.notes.empty()) {
      json related = json::array();
      for (const Note &n : d.notes) {
        if (!n.range.valid())
          continue;
        if (state.caps.relatedInformation)
          related.push_back({{"location", {{"uri", uri}, {"range", rangeOf(text, n.range, enc)}}},
                             {"message", n.message}});
        else
          hints.push_back({{"range", rangeOf(text, n.range, enc)},
                           {"severity", 4},
                           {"code", d.code},
                           {"source", "cake"},
                           {"message", "note: " + n.message + " (" + d.message + ")"}});
      }
      if (!related.empty())
        diag["relatedInformation"] = std::move(related);
    }
    out.push_back(std::move(diag));
    for (json &h : hints)
      out.push_back(std::move(h));
  }
  return out;
}

json pullDiagnostics(State &state, const json &params) {
  return {{"kind", "full"}, {"items", lspDiagnostics(state, documentUri(params))}};
}

} // namespace cake::lsp
