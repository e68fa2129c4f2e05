//===- Check.h - The one path from source to diagnostics -------*- C++ -*-===//
//
// Part of CAKE. `cake check` and the language server both call checkSource:
// whatever the compiler has to say about a buffer comes out of this function,
// sorted, so the CLI and the editor can never disagree.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Instantiate.h"
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
  /// The instantiations to check of a file with parameters (language.md 3.1),
  /// the one the model describes first; empty: the defaults. A file without
  /// parameters takes none (one named instantiation binding nothing is
  /// allowed: it checks the file as it is).
  std::vector<sema::Instantiation> instantiations;
};

struct CheckResult {
  syntax::Module module;
  std::vector<Diagnostic> diagnostics; ///< Sorted (sortDiagnostics).
  /// The semantic model (and its symbol index) when the file parsed
  /// without errors; it points into analyzed().
  std::optional<sema::Module> model;
  /// For a file with parameters: the instantiation the model describes (the
  /// first of CheckOptions::instantiations that instantiates), which keeps
  /// the ranges of `module`.
  std::optional<sema::Instance> instance;

  /// The tree the model describes: the instantiation's, else the parse.
  const syntax::Module &analyzed() const { return instance ? instance->module : module; }
};

/// Whether \p m needs instantiating: it declares parameters or `require`s,
/// has a top-level `if`, or a field under `when(...)`.
bool hasParameters(const syntax::Module &m);

/// "in instantiation assign_d64_wg2: D = 64, WG = 2": how a diagnostic names
/// the instantiation it was found in.
std::string instantiationNote(const sema::Instance &instance);

/// Parses and checks one buffer.
CheckResult checkSource(const SourceManager &sm, FileId file, const CheckOptions &options = {});

} // namespace cake
