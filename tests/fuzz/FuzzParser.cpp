//===- FuzzParser.cpp - libFuzzer target for the front end ----------------===//
//
// Any input must parse without a crash, a hang or unbounded memory, with
// every diagnostic inside the buffer. An input that parses cleanly must also
// satisfy the round-trip property: print is idempotent and parse(print(m))
// equals m.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Printer.h"

#include <cstdlib>
#include <cstdio>

using namespace cake;

static void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
  }
}

int fuzzParser(const uint8_t *data, size_t size) {
  SourceManager sm;
  std::string text(reinterpret_cast<const char *>(data), size);
  FileId file = sm.addBuffer("fuzz.cake", text);
  std::vector<Diagnostic> diags;
  syntax::Module m = syntax::parse(sm, file, diags);
  for (const Diagnostic &d : diags)
    check(d.range.file == file && d.range.begin <= d.range.end && d.range.end <= size, "diagnostic range");
  check(diags.size() <= 101, "error budget");
  if (countErrors(diags))
    return 0;

  std::string printed = syntax::print(m);
  FileId again = sm.addBuffer("printed.cake", printed);
  std::vector<Diagnostic> diags2;
  syntax::Module m2 = syntax::parse(sm, again, diags2);
  check(diags2.empty(), "printed output parses");
  check(syntax::equal(m, m2), "parse(print(m)) == m");
  check(syntax::print(m2) == printed, "print is idempotent");
  return 0;
}

CAKE_FUZZ_ENTRY(fuzzParser)
