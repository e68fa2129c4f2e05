//===- FuzzCheck.cpp - libFuzzer target for the whole check path ----------===//
//
// checkSource on any input: the front end, instantiation, sema and the
// verifier's rules. Properties: no crash, hang or unbounded memory (ASan,
// UBSan, libFuzzer's -timeout and -rss_limit_mb), diagnostics inside the
// buffer with catalog codes, sorted; the same input checks to the same
// diagnostics twice (the verifier runs its rules on threads).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

using namespace cake;

int fuzzCheck(const uint8_t *data, size_t size) {
  SourceManager sm;
  FileId file = sm.addBuffer("fuzz.cake", fuzz::text(data, size));
  CheckResult r = checkSource(sm, file);
  fuzz::checkDiagnostics(sm, r.diagnostics);
  CheckResult again = checkSource(sm, file);
  fuzz::require(again.diagnostics == r.diagnostics, "checkSource is deterministic");
  return 0;
}

CAKE_FUZZ_ENTRY(fuzzCheck)
