//===- Embedded.h - The kernel files built into libcake_knn ----*- C++ -*-===//
//
// Part of CAKE. The instantiations of kernels/knn/knn.manifest.json, compiled
// and embedded when the library was built (lib/core/Embedded.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Embedded.h"

#include <span>
#include <string_view>

namespace cake::knn {

using libcore::EmbeddedFile;

/// kernels/knn/knn.manifest.json as the build read it.
const library::Manifest &embeddedManifest();

/// Every embedded file, in the manifest's order.
std::span<const EmbeddedFile> embeddedFiles();

/// The embedded file called \p name, or null when this build lacks it.
const EmbeddedFile *findEmbedded(std::string_view name);

} // namespace cake::knn
