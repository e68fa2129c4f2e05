//===- Lowering.h - From a .cake file to CUDA, for emit/build/run -*- C++ -*-===//
//
// Part of CAKE. `cake emit`, `cake build` and `cake run` lower IR the same
// way: check (the one diagnostics path, checkSource), refuse on errors, lower
// every kernel, and hand the generated CUDA to the runner's build with the
// device runtime on the include path.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/driver/Check.h"
#include "compiler/lower/Lower.h"

#include <memory>
#include <string>

namespace cake::cli {

struct LoweredFile {
  CheckResult check;
  lower::LoweredModule module;
  FileId cuda; ///< the generated CUDA, a buffer of the SourceManager
  bool ok = false;
  std::vector<Diagnostic> diagnostics; ///< the check's and the lowering's
};

/// Checks and lowers buffer \p file of \p sm (verifier rules skipped when
/// \p verify is false). On success the generated CUDA is added to \p sm as
/// "<name>.cu".
std::unique_ptr<LoweredFile> lowerCakeFile(SourceManager &sm, FileId file, const lower::LowerOptions &options,
                                           bool verify, std::optional<Target> target = std::nullopt);

/// CheckOptions::lowering: lowers \p model and adds its findings
/// (lower.unsupported) to \p diagnostics; the generated code is dropped.
void lowerForCheck(const SourceManager &sm, FileId file, const sema::Module &model,
                   std::vector<Diagnostic> &diagnostics);

/// The folder holding cake_device.cuh: $CAKE_RUNTIME_DIR, else the source tree's.
std::string runtimeIncludeDir();

} // namespace cake::cli
