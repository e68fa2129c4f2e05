//===- Embedded.h - The kernel files built into libcake_kmeans -*- C++ -*-===//
//
// Part of CAKE. The instantiations of kernels/kmeans/kmeans.manifest.json,
// compiled and embedded when the library was built (lib/core/Embedded.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Embedded.h"

#include <span>
#include <string_view>

namespace cake::kmeans {

using libcore::EmbeddedFile;

/// kernels/kmeans/kmeans.manifest.json as the build read it: the instantiations
/// (each an embedded file of the same name), their entries and the dispatch rules.
const library::Manifest &embeddedManifest();

/// Every embedded file, in the manifest's order.
std::span<const EmbeddedFile> embeddedFiles();

/// The embedded file called \p name, or null when this build lacks it.
const EmbeddedFile *findEmbedded(std::string_view name);

} // namespace cake::kmeans
