//===- Frontend.h - CUDA translation units to kernel events -----*- C++ -*-===//
//
// Part of CAKE (issue #20). Parses a .cu file with Clang 19 (libTooling) in
// CUDA device mode and reduces each __global__ function to its events
// (Events.h). The flags are those ../shared/env/toolchain.md checked: device
// only, the CUDA 13 headers, an empty texture_fetch_functions.h (CUDA 13
// removed it; clang's wrapper still includes it), clang's resource dir.
// Clang's types stay in Frontend.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cuda/Events.h"

#include <string>
#include <vector>

namespace cake::cuda {

struct ParseResult {
  std::vector<KernelEvents> kernels;
  /// Clang's errors in the file itself (at.line 0: in a header it includes); the kernels are then what parsed.
  struct Error {
    Where at;
    std::string message;
  };
  std::vector<Error> errors;
  bool available = true; ///< false when this build of cake has no Clang
};

/// Parses \p text (the file \p path) for GPU architecture \p arch ("sm_90a"), with \p extraArgs after the
/// checked flags (-I, -D of the user's build).
ParseResult parseCuda(const std::string &path, const std::string &text, const std::string &arch,
                      const std::vector<std::string> &extraArgs = {});

} // namespace cake::cuda
