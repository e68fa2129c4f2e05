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

/// Writes \p text to \p path atomically: an exclusively created temporary
/// (mkstemp) in the target's directory, renamed over it. The file keeps its
/// mode; a symlink is written through (its target replaced, the link kept); a
/// path that is not a regular file is refused.
Status writeFileAtomically(const std::string &path, const std::string &text);

} // namespace cake::formats
