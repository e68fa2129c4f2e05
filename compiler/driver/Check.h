//===- Check.h - The one path from source to diagnostics -------*- C++ -*-===//
//
// Part of CAKE. `cake check` and the language server both call checkSource:
// whatever the compiler has to say about a buffer comes out of this function,
// sorted, so the CLI and the editor can never disagree.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"
#include "compiler/syntax/AST.h"
#include "compiler/target/Target.h"
#include "diagnostics/Diagnostic.h"

#include <functional>
#include <optional>

namespace cake {

struct CheckOptions {
  /// Overrides the target a kernel declares; nullopt keeps the declared one.
  std::optional<Target> target;
  /// Run the verifier's rules (false only for `--no-verify`, which forces a
  /// schedule past them, e.g. to watch it hang).
  bool verify = true;
};

struct CheckResult {
  syntax::Module module;
  std::vector<Diagnostic> diagnostics; ///< Sorted (sortDiagnostics).
  /// The semantic model (and its symbol index) when the file parsed
  /// without errors; it points into `module`.
  std::optional<sema::Module> model;
};

/// Parses and checks one buffer.
CheckResult checkSource(const SourceManager &sm, FileId file, const CheckOptions &options = {});

} // namespace cake
