//===- Input.h - Reading source files for the CLI --------------*- C++ -*-===//
#pragma once

#include <optional>
#include <string>

namespace cake::cli {

/// Larger inputs are refused: the compiler's memory stays bounded.
inline constexpr size_t kMaxInputBytes = 64u << 20;

/// Reads \p path ("-" is standard input) into \p text. On failure returns a
/// message that names the path and the reason.
std::optional<std::string> readInput(const std::string &path, std::string &text);

/// Writes \p text to \p path atomically (temporary file, then rename).
std::optional<std::string> writeFileAtomically(const std::string &path, const std::string &text);

} // namespace cake::cli
