//===- Sema.h - Names, types and declarations ------------------*- C++ -*-===//
//
// Part of CAKE. analyze() builds the semantic model of a parsed module and
// reports what is wrong with names, types, clauses and operations (unknown
// names, unknown operations, wrong operand counts, unknown options, element
// types, memory spaces, target capabilities). The verifier runs on the model.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"
#include "diagnostics/Sink.h"

#include <optional>

namespace cake::sema {

struct SemaOptions {
  /// Replaces every kernel's declared target (cake check --target).
  std::optional<Target> targetOverride;
};

Module analyze(const syntax::Module &module, DiagnosticSink &sink, const SemaOptions &options = {});

} // namespace cake::sema
