//===- Verifier.h - Static hazard rules ------------------------*- C++ -*-===//
//
// Part of CAKE. The verifier runs every rule family over every kernel of a
// checked module. Rules report through the sink, with codes from the
// catalog (diagnostics/rules/*.def), exact ranges, notes on the other places
// involved, and fixes where a mechanical one exists.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"
#include "diagnostics/Sink.h"

namespace cake::verify {

void verify(const sema::Module &module, const SourceManager &sm, DiagnosticSink &sink);

} // namespace cake::verify
