//===- Embedded.h - The kernel files built into the library ----*- C++ -*-===//
//
// Part of CAKE. At build time the project's own `cake build FILE.cake
// --target sm_90a -o FILE.cubin` compiles each kernel file of the library
// (lib/kmeans/CMakeLists.txt, BuildKernel.cmake): each instantiation of the manifest
// kernels/kmeans/kmeans.manifest.json. EmbedKernels.cmake
// writes EmbeddedKernels.cpp: for each file its IR text (lowered again at
// first use for the launch plans, KernelFiles.h) and its cubin as byte
// arrays. An optional file that did not build is embedded with an empty
// cubin and its build log, which the library reports.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/library/Manifest.h"

#include <span>
#include <string_view>

namespace cake::kmeans {

struct EmbeddedFile {
  std::string_view name;   ///< the instantiation: "assign_sm90", "assign_d64_wg2"
  std::string_view path;   ///< "kernels/kmeans/assign_sm90.cake", relative to the repository
  std::string_view target; ///< "sm_90a"
  std::string_view ir;     ///< the CAKE IR the cubin was built from (with the instantiation's parameters)
  std::string_view cubin;  ///< empty when the build failed
  std::string_view log;    ///< cake build's output when it failed
};

/// kernels/kmeans/kmeans.manifest.json as the build read it: the instantiations
/// (each an embedded file of the same name), their entries and the dispatch rules.
const library::Manifest &embeddedManifest();

/// Every embedded file, in the manifest's order.
std::span<const EmbeddedFile> embeddedFiles();

/// The embedded file called \p name, or null when this build lacks it.
const EmbeddedFile *findEmbedded(std::string_view name);

} // namespace cake::kmeans
