//===- Check.cpp - The one path from source to diagnostics ----------------===//
#include "compiler/driver/Check.h"

#include "compiler/sema/Sema.h"
#include "compiler/syntax/Parser.h"
#include "compiler/verify/Verifier.h"

namespace cake {

namespace {

/// Whether the comment block right above \p d's line holds
/// `// cake: accept CODE -- reason` naming d's code: a performance warning
/// the author measured and accepts (language.md 2.1). Only `perf.*` warnings
/// can be accepted, and only with a reason.
bool accepted(const SourceManager &sm, FileId file, const Diagnostic &d) {
  if (d.severity != Severity::Warning || !d.code.starts_with("perf.") || !(d.range.file == file))
    return false;
  const std::string directive = "// cake: accept " + d.code + " -- ";
  for (uint32_t line = sm.lineColumn(file, d.range.begin).line; line-- > 1;) {
    std::string_view text = sm.lineText(file, line);
    size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos || !text.substr(first).starts_with("//"))
      return false; // the comment block ended
    if (size_t at = text.find(directive); at != std::string_view::npos)
      return text.substr(at + directive.size()).find_first_not_of(" \t\r") != std::string_view::npos;
  }
  return false;
}

} // namespace

CheckResult checkSource(const SourceManager &sm, FileId file, const CheckOptions &options) {
  CheckResult result;
  result.module = syntax::parse(sm, file, result.diagnostics);
  // Semantic checks run on files without syntax errors: a statement the
  // parser dropped would otherwise show up as a cascade of unknown names.
  if (!countErrors(result.diagnostics)) {
    DiagnosticSink sink(result.diagnostics);
    result.model = sema::analyze(result.module, sink, {options.target});
    if (options.verify && !countErrors(result.diagnostics))
      verify::verify(*result.model, sm, sink);
  }
  std::erase_if(result.diagnostics, [&](const Diagnostic &d) { return accepted(sm, file, d); });
  sortDiagnostics(result.diagnostics);
  return result;
}

} // namespace cake
