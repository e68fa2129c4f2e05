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
  /// Clang's errors, in the file or in a header it includes (at.file); the kernels are then what parsed.
  struct Error {
    Where at;
    std::string message;
  };
  std::vector<Error> errors;
  bool available = true;       ///< false when this build of cake has no Clang
  bool preambleReused = false; ///< the file's includes came precompiled from the cache (Preamble.h)
};

/// Parses \p text (the file \p path) for GPU architecture \p arch ("sm_90a"), with \p extraArgs after the
/// checked flags (-I, -D of the user's build). The kernels are those the file defines and those of the headers
/// it includes that are not system headers (-isystem, the CUDA toolkit's), each kernel template per
/// instantiation the file makes. With \p cacheDir, the file's includes are precompiled there once (Preamble.h).
ParseResult parseCuda(const std::string &path, const std::string &text, const std::string &arch,
                      const std::vector<std::string> &extraArgs = {}, const std::string &cacheDir = "");

/// The flags the project's compile_commands.json gives \p path that shape its parse (-I, -isystem, -iquote, -D,
/// -U, -include, -std), found in \p dbDir, else in the file's folder and the folders above it (as clangd looks);
/// relative include folders made absolute against the command's directory. \p from names the database used,
/// "" when none has the file. Empty in a cake built without Clang.
std::vector<std::string> compileFlagsFor(const std::string &path, const std::string &dbDir, std::string &from);

} // namespace cake::cuda
