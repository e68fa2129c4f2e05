//===- Embedded.h - The kernel files built into a library -------*- C++ -*-===//
//
// Part of CAKE. At build time the project's own `cake build` compiles each
// instantiation of a library's manifest (kernels/<lib>/<lib>.manifest.json)
// into a cubin (lib/core/CakeLibrary.cmake, BuildKernel.cmake), and
// EmbedKernels.cmake writes EmbeddedKernels.cpp: for each file its IR text
// (lowered again at first use for the launch plans, KernelFiles.h) and its
// cubin as byte arrays, and the manifest itself as C++, behind the three
// functions each library's Embedded.h declares in its own namespace
// (embeddedManifest, embeddedFiles, findEmbedded). An optional file that did
// not build is embedded with an empty cubin and its build log, which the
// library reports.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/library/Manifest.h"

#include <string_view>

namespace cake::libcore {

struct EmbeddedFile {
  std::string_view name;   ///< the instantiation: "assign_sm90", "search_fp16_d128_k16"
  std::string_view path;   ///< "kernels/kmeans/assign_sm90.cake", relative to the repository
  std::string_view target; ///< "sm_90a"
  std::string_view ir;     ///< the CAKE IR the cubin was built from (with the instantiation's parameters)
  std::string_view cubin;  ///< empty when the build failed
  std::string_view log;    ///< cake build's output when it failed
};

} // namespace cake::libcore
