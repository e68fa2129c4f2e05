//===- FuzzFixes.cpp - libFuzzer target for the fix-it applier ------------===//
//
// Applies the preferred fix-its of any input (as `cake check --fix` does),
// then checks the result. Properties: edits stay in the buffer; applying is
// total (never a crash, however the fixes overlap); an applied fix changes
// the text; the fixed text checks without a crash; and a fix-it never makes
// a file that parsed fail to parse (a fix restores the intended program, it
// never breaks the syntax).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "compiler/driver/Fixes.h"
#include "compiler/syntax/Parser.h"

using namespace cake;

static bool parses(const std::string &text) {
  SourceManager sm;
  FileId f = sm.addBuffer("p.cake", text);
  std::vector<Diagnostic> diags;
  syntax::parse(sm, f, diags);
  return countErrors(diags) == 0;
}

int fuzzFixes(const uint8_t *data, size_t size) {
  SourceManager sm;
  std::string source = fuzz::text(data, size);
  FileId file = sm.addBuffer("fuzz.cake", source);
  CheckResult r = checkSource(sm, file);
  fuzz::checkDiagnostics(sm, r.diagnostics);
  std::string fixed(sm.text(file));
  size_t applied = applyFixes(fixed, file, r.diagnostics);
  if (!applied)
    return 0;
  fuzz::require(fixed != source, "an applied fix changes the text");
  SourceManager sm2;
  FileId file2 = sm2.addBuffer("fixed.cake", fixed);
  CheckResult r2 = checkSource(sm2, file2);
  fuzz::checkDiagnostics(sm2, r2.diagnostics);
  if (parses(source))
    fuzz::require(parses(fixed), "a fix-it keeps a parsing file parsing");
  return 0;
}

CAKE_FUZZ_ENTRY(fuzzFixes)
