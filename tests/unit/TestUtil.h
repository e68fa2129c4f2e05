//===- TestUtil.h - Helpers for the unit tests -----------------*- C++ -*-===//
#pragma once

#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Printer.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace cake::test {

/// A parsed buffer with its source manager and diagnostics.
struct Parsed {
  std::unique_ptr<SourceManager> sm = std::make_unique<SourceManager>();
  FileId file;
  std::vector<Diagnostic> diags;
  syntax::Module module;

  LineColumn at(const Diagnostic &d) const { return sm->lineColumn(file, d.range.begin); }
};

inline Parsed parseText(std::string text, syntax::ParseLimits limits = {}) {
  Parsed p;
  p.file = p.sm->addBuffer("test.cake", std::move(text));
  p.module = syntax::parse(*p.sm, p.file, p.diags, limits);
  sortDiagnostics(p.diags);
  return p;
}

/// The contents of \p rel, a path relative to the repository (empty when it cannot be read).
inline std::string readRepoFile(const std::string &rel) {
  std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Formats \p text (which must parse cleanly).
inline std::string format(std::string text) { return syntax::print(parseText(std::move(text)).module); }

} // namespace cake::test
