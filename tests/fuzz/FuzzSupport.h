//===- FuzzSupport.h - What the libFuzzer targets share ---------*- C++ -*-===//
//
// Part of CAKE's tests. Each target (tests/fuzz/Fuzz*.cpp) reads its input as
// a .cake source and checks a property of one stage; a violated property
// aborts, which libFuzzer reports with the input. The properties common to
// all: every diagnostic lies in the buffer it names, and the diagnostics come
// sorted (checkSource is the one sorted path).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/driver/Check.h"
#include "diagnostics/Catalog.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>

/// Defines libFuzzer's entry point as \p fn for the target's own binary;
/// cake_fuzz_all (FuzzAll.cpp) links every target and picks one at run time.
#ifdef CAKE_FUZZ_ALL
#define CAKE_FUZZ_ENTRY(fn)
#else
#define CAKE_FUZZ_ENTRY(fn)                                                                                       \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fn(data, size); }
#endif

namespace cake::fuzz {

inline void require(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
  }
}

inline std::string text(const uint8_t *data, size_t size) { return {reinterpret_cast<const char *>(data), size}; }

/// Diagnostics inside their buffers, known rule codes, sorted.
inline void checkDiagnostics(const SourceManager &sm, const std::vector<Diagnostic> &diags) {
  for (size_t i = 0; i < diags.size(); ++i) {
    const Diagnostic &d = diags[i];
    if (d.range.valid()) {
      require(d.range.begin <= d.range.end, "diagnostic range ordered");
      require(d.range.end <= sm.text(d.range.file).size(), "diagnostic range inside its buffer");
    }
    require(!d.code.empty() && findRule(d.code) != nullptr, "diagnostic code in the rule catalog");
    for (const Fix &f : d.fixes)
      for (const TextEdit &e : f.edits)
        require(!e.range.valid() || (e.range.begin <= e.range.end && e.range.end <= sm.text(e.range.file).size()),
                "fix-it edit inside its buffer");
  }
  for (size_t i = 1; i < diags.size(); ++i) {
    const Diagnostic &a = diags[i - 1], &b = diags[i];
    require(!(std::tie(b.range, b.code, b.message) < std::tie(a.range, a.code, a.message)), "diagnostics sorted");
  }
}

} // namespace cake::fuzz
