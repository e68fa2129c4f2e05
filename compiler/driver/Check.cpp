//===- Check.cpp - The one path from source to diagnostics ----------------===//
#include "compiler/driver/Check.h"

#include "compiler/sema/Sema.h"
#include "compiler/syntax/Parser.h"
#include "compiler/verify/Verifier.h"

namespace cake {

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
  sortDiagnostics(result.diagnostics);
  return result;
}

} // namespace cake
