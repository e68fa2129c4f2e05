//===- CodeActions.cpp - Quick fixes from the rules' fix-its --------------===//
#include "lsp/Features.h"

namespace cake::lsp {

json workspaceEdit(State &state, const std::string &uri, const std::vector<Fix> &fixes) {
  const Document *doc = state.docs.find(uri);
  if (!doc)
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  json edits = json::array();
  for (const Fix &f : fixes)
    for (const TextEdit &e : f.edits)
      edits.push_back({{"range", rangeOf(doc->text, e.range, state.caps.encoding)}, {"newText", e.newText}});
  if (state.caps.documentChanges)
    return {{"documentChanges", json::array({{{"textDocument", {{"uri", uri}, {"version", doc->version}}},
                                              {"edits", std::move(edits)}}})}};
  return {{"changes", {{uri, std::move(edits)}}}};
}

json codeActions(State &state, const json &params) {
  std::string uri = documentUri(params);
  const json range = field<json>(params, "range", "params");
  auto analysis = state.docs.analyze(uri, state.check);
  std::string_view text = analysis->sm.text(analysis->file);
  Encoding enc = state.caps.encoding;
  auto offset = [&](const char *which) {
    const json &p = field<json>(range, which, "params.range");
    return offsetAt(text, field<uint32_t>(p, "line", std::string("params.range.") + which),
                    field<uint32_t>(p, "character", std::string("params.range.") + which), enc);
  };
  uint32_t begin = offset("start"), end = offset("end");
  json actions = json::array();
  for (const Diagnostic &d : analysis->result.diagnostics) {
    bool touches = d.range.begin <= end && begin <= d.range.end;
    if (!touches || d.fixes.empty())
      continue;
    json diag = {{"range", rangeOf(text, d.range, enc)}, {"code", d.code}, {"message", d.message},
                 {"severity", d.severity == Severity::Error ? 1 : 2}, {"source", "cake"}};
    for (size_t i = 0; i < d.fixes.size(); ++i)
      actions.push_back({{"title", d.fixes[i].title + " [" + d.code + "]"},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diag})},
                         {"isPreferred", i == 0},
                         {"edit", workspaceEdit(state, uri, {d.fixes[i]})}});
  }
  return actions;
}

} // namespace cake::lsp
