//===- Instances.h - Which instantiations a command works on ---*- C++ -*-===//
//
// Part of CAKE. The options every command that reads CAKE IR shares for a
// file with parameters (language.md 3.1): `-p NAME=VALUE` binds one,
// `--instance NAME` takes a manifest's instantiation (docs/libraries.md),
// `--manifest FILE` names the manifest (else the `*.manifest.json` beside
// the source that lists it). `cake check` checks every instantiation a
// manifest lists by default, or every one the constraints allow
// (--all-instantiations), or a sample of them (--sample-instantiations N).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/library/Manifest.h"
#include "diagnostics/Expected.h"

#include <cxxopts.hpp>

namespace cake::cli {

/// Adds the options (the check-only ones when \p forCheck).
void addInstanceOptions(cxxopts::Options &o, bool forCheck);

/// The instantiations the options ask for of the file at \p path (the
/// buffer \p file of \p sm): for a command that lowers, at most one; for
/// `cake check` (\p forCheck) the manifest's by default. The manifests read
/// are added to \p sm, and the one used (if any) is stored in \p manifest.
Expected<std::vector<sema::Instantiation>> instantiationsFor(const cxxopts::ParseResult &args, SourceManager &sm,
                                                             const std::string &path, FileId file, bool forCheck,
                                                             std::optional<library::Manifest> *manifest = nullptr);

} // namespace cake::cli
