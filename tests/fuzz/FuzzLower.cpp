//===- FuzzLower.cpp - libFuzzer target for the lowering ------------------===//
//
// Every input that checks clean is lowered to CUDA (each kernel for its own
// target). Properties: no crash, hang or unbounded memory; the lowering
// either succeeds or reports located diagnostics (lower.unsupported and the
// like) with catalog codes; a success adds the generated CUDA as a buffer.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "compiler/pipeline/Pipeline.h"

using namespace cake;

int fuzzLower(const uint8_t *data, size_t size) {
  SourceManager sm;
  FileId file = sm.addBuffer("fuzz.cake", fuzz::text(data, size));
  auto lowered = pipeline::lowerFile(sm, file, lower::LowerOptions{}, CheckOptions{});
  if (lowered) {
    fuzz::require(!sm.text((*lowered)->cuda).empty(), "a lowering produces CUDA");
    fuzz::checkDiagnostics(sm, (*lowered)->diagnostics);
  } else {
    fuzz::require(!lowered.error().diagnostics.empty() || !lowered.error().message.empty(),
                  "a failed lowering says why");
    fuzz::checkDiagnostics(sm, lowered.error().diagnostics);
  }
  return 0;
}

CAKE_FUZZ_ENTRY(fuzzLower)
