//===- KernelFiles.h - Launch plans of the embedded kernels ----*- C++ -*-===//
//
// Part of CAKE. The launch metadata of an embedded kernel file (parameter
// order, tensor-map boxes and swizzles, dynamic shared memory, grid rule,
// block, cluster) comes from the project's lowering, run again on the
// embedded IR at first use: pipeline::lowerFile, the stage `cake build` runs, with the target the cubin was built for. This takes
// milliseconds and needs no NVRTC; the plan and the cubin come from the same
// IR text, compiled by the same compiler in the same build, so they agree.
// The verifier's rules are skipped (the build ran them).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/pipeline/Pipeline.h"
#include "lib/core/Embedded.h"
#include "lib/core/Errors.h"

namespace cake::libcore {

struct KernelFile {
  const EmbeddedFile *embedded = nullptr;
  SourceManager sm;
  std::unique_ptr<pipeline::LoweredFile> lowered; ///< the pipeline's lowering (null when it failed)
  Status status = Ok{}; ///< why the file cannot be used (it did not build, or lower)

  /// The launch plans (empty when the file did not lower).
  const lower::LoweredModule &module() const {
    static const lower::LoweredModule none;
    return lowered ? lowered->module : none;
  }
};

/// \p file (an instantiation of \p manifest) checked and lowered, once per
/// process (thread safe); the result lives until the process ends.
const KernelFile &kernelFile(const EmbeddedFile &file, const library::Manifest &manifest);

} // namespace cake::libcore
