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

/// Writes \p text to \p path atomically (temporary file, then rename).
Status writeFileAtomically(const std::string &path, const std::string &text);

} // namespace cake::formats
