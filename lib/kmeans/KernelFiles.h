//===- KernelFiles.h - Launch plans of the embedded kernels ----*- C++ -*-===//
//
// Part of CAKE. The launch metadata of an embedded kernel file (parameter
// order, tensor-map boxes and swizzles, dynamic shared memory, grid rule,
// block, cluster) comes from the project's lowering, run again on the
// embedded IR at first use: checkSource then lowerModule, the two calls of
// `cake build`, with the target the cubin was built for. This takes
// milliseconds and needs no NVRTC; the plan and the cubin come from the same
// IR text, compiled by the same compiler in the same build, so they agree.
// The verifier's rules are skipped (the build ran them).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/driver/Check.h"
#include "compiler/lower/Lower.h"
#include "lib/kmeans/Embedded.h"
#include "lib/kmeans/Status.h"

namespace cake::kmeans {

struct KernelFile {
  const EmbeddedFile *embedded = nullptr;
  SourceManager sm;
  CheckResult check;
  lower::LoweredModule module;
  Status status = Ok{}; ///< why the file cannot be used (it did not build, or lower)
};

/// \p file checked and lowered, once per process (thread safe); the result
/// lives until the process ends.
const KernelFile &kernelFile(const EmbeddedFile &file);

} // namespace cake::kmeans
