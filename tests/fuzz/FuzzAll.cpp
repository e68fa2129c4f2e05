//===- FuzzAll.cpp - Every fuzz target in one binary ----------------------===//
//
// cake_fuzz_all links every target of tests/fuzz and runs the one named by
// $CAKE_FUZZ_TARGET (parser, check, fixes, lower, cost, lsp): one file to
// carry to a machine with more cores for long runs (scripts/fuzz.sh,
// bench/results/hardening/fuzz.md), where libFuzzer's -fork children inherit
// the variable.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int fuzzParser(const uint8_t *, size_t);
int fuzzCheck(const uint8_t *, size_t);
int fuzzFixes(const uint8_t *, size_t);
int fuzzLower(const uint8_t *, size_t);
int fuzzCost(const uint8_t *, size_t);
int fuzzLsp(const uint8_t *, size_t);

namespace {

using Target = int (*)(const uint8_t *, size_t);

Target chosen() {
  static const Target target = [] {
    const char *name = std::getenv("CAKE_FUZZ_TARGET");
    struct Row {
      const char *name;
      Target fn;
    };
    static const Row rows[] = {{"parser", fuzzParser}, {"check", fuzzCheck}, {"fixes", fuzzFixes},
                               {"lower", fuzzLower},   {"cost", fuzzCost},   {"lsp", fuzzLsp}};
    for (const Row &r : rows)
      if (name && std::strcmp(name, r.name) == 0)
        return r.fn;
    std::fprintf(stderr, "cake_fuzz_all: set CAKE_FUZZ_TARGET to parser, check, fixes, lower, cost or lsp\n");
    std::exit(2);
  }();
  return target;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return chosen()(data, size); }
