//===- Input.h - Reading source files for the CLI --------------*- C++ -*-===//
#pragma once

#include "diagnostics/Expected.h"

#include <optional>
#include <string>

namespace cake::formats {

/// Larger inputs are refused: the compiler's memory stays bounded.
inline constexpr size_t kMaxInputBytes = 64u << 20;

/// Reads \p path ("-" is standard input) into \p text. On failure an Io error
/// whose message names the path and the reason.
Status readInput(const std::string &path, std::string &text);

/// The deepest JSON the project's files nest (plans, workloads, manifests,
/// calibrations, LSP messages) is a few levels; nlohmann's parser and
/// destructor recurse per level, so a file nested a million levels deep
/// would crash the reader on its stack (issue #16). Deeper text is refused.
inline constexpr int kMaxJsonDepth = 512;

/// Whether \p json nests arrays and objects deeper than \p depth (strings skipped).
bool jsonNestedDeeperThan(std::string_view json, int depth = kMaxJsonDepth);

/// readInput for a JSON file: also an InvalidArgument Error (naming the path)
/// when the text nests deeper than kMaxJsonDepth.
Status readJsonInput(const std::string &path, std::string &text);

/// Writes \p text to \p path atomically: an exclusively created temporary
/// (mkstemp) in the target's directory, renamed over it. The file keeps its
/// mode; a symlink is written through (its target replaced, the link kept); a
/// path that is not a regular file is refused.
Status writeFileAtomically(const std::string &path, const std::string &text);

} // namespace cake::formats
