//===- Manifest.h - Reading a kernel library's manifest (JSON) --*- C++ -*-===//
//
// Part of CAKE. The JSON form of compiler/library/Manifest.h
// (docs/libraries.md). The manifest's text is added to the SourceManager, so
// the bindings of an instantiation carry their ranges in it and a value
// outside its parameter's domain is reported where the manifest wrote it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/library/Manifest.h"
#include "diagnostics/Expected.h"

#include <string>
#include <vector>

namespace cake::formats {

/// Reads and validates the manifest at \p path (library::validate). An
/// InvalidArgument Error names the file, line and column of the problem.
Expected<library::Manifest> readManifest(SourceManager &sm, const std::string &path);

/// The manifests (`*.manifest.json` in \p sourcePath's folder) that list
/// \p sourcePath as the source of an instantiation; the ones that do not read
/// are reported in \p errors.
std::vector<library::Manifest> manifestsFor(SourceManager &sm, const std::string &sourcePath,
                                            std::vector<std::string> &errors);

/// The instantiations of \p m whose source is \p sourcePath (same file).
std::vector<const library::Instance *> instancesOf(const library::Manifest &m, const std::string &sourcePath);

} // namespace cake::formats
