//===- Formatting.cpp - textDocument/formatting (cake fmt) ----------------===//
#include "lsp/core/Features.h"

#include "compiler/syntax/Printer.h"

namespace cake::lsp {

std::vector<Edit> formatting(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  for (const Diagnostic &d : analysis->result.diagnostics)
    if (d.code.starts_with("syntax."))
      throw LspError(ErrorCode::RequestFailed, "the document has syntax errors; fix them to format it");
  std::string_view text = analysis->sm.text(analysis->file);
  std::string formatted = syntax::print(analysis->result.module);
  if (formatted == text)
    return {};
  SourceRange whole{analysis->file, 0, static_cast<uint32_t>(text.size())};
  return {{rangeOf(text, whole, state.caps.encoding), formatted}};
}

} // namespace cake::lsp
