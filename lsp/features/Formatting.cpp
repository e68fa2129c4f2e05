//===- Formatting.cpp - textDocument/formatting (cake fmt) ----------------===//
#include "lsp/Features.h"

#include "compiler/syntax/Printer.h"

namespace cake::lsp {

json formatting(State &state, const json &params) {
  std::string uri = documentUri(params);
  auto analysis = state.docs.analyze(uri, state.check);
  for (const Diagnostic &d : analysis->result.diagnostics)
    if (d.code.starts_with("syntax."))
      throw LspError(ErrorCode::RequestFailed, "the document has syntax errors; fix them to format it");
  std::string_view text = analysis->sm.text(analysis->file);
  std::string formatted = syntax::print(analysis->result.module);
  if (formatted == text)
    return json::array();
  SourceRange whole{analysis->file, 0, static_cast<uint32_t>(text.size())};
  return json::array({{{"range", rangeOf(text, whole, state.caps.encoding)}, {"newText", formatted}}});
}

} // namespace cake::lsp
