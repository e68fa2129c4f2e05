//===- Verifier.cpp - Static hazard rules ---------------------------------===//
#include "compiler/verify/Verifier.h"

#include "compiler/verify/Rules.h"

namespace cake::verify {

void verify(const sema::Module &module, const SourceManager &sm, DiagnosticSink &sink) {
  RuleContext ctx{sm, sink};
  for (const sema::Kernel &kernel : module.kernels) {
    checkResources(kernel, ctx);
    checkIssue(kernel, ctx);
    checkRings(kernel, ctx);
    checkAsync(kernel, ctx);
    checkCopies(kernel, ctx);
    checkMma(kernel, ctx);
  }
}

} // namespace cake::verify
