//===- Protocol.h - LSP protocol types and conversions ---------*- C++ -*-===//
//
// Part of CAKE. JSON lives here and in the feature files of lsp/ only. This
// header holds the JSON-RPC error codes, the error type handlers throw, and
// the conversions between LSP positions (UTF-16 by default, UTF-8 when the
// client offers it) and byte offsets.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Source.h"

#include <nlohmann/json.hpp>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace cake::lsp {

using json = nlohmann::json;

namespace ErrorCode {
inline constexpr int ParseError = -32700;
inline constexpr int InvalidRequest = -32600;
inline constexpr int MethodNotFound = -32601;
inline constexpr int InvalidParams = -32602;
inline constexpr int InternalError = -32603;
inline constexpr int ServerNotInitialized = -32002;
inline constexpr int RequestCancelled = -32800;
inline constexpr int RequestFailed = -32803;
} // namespace ErrorCode

/// Thrown by handlers; becomes the error reply of the request.
struct LspError : std::runtime_error {
  int code;
  LspError(int code, const std::string &message) : std::runtime_error(message), code(code) {}
};

enum class Encoding { UTF16, UTF8 };

std::string_view encodingName(Encoding e);

/// Byte offset of LSP position (line, character) in \p text; positions past
/// the end of a line clamp to the line end, past the end of the text to its
/// end (the spec asks servers to be lenient).
uint32_t offsetAt(std::string_view text, uint32_t line, uint32_t character, Encoding enc);

/// LSP position {line, character} of byte \p offset in \p text.
json positionAt(std::string_view text, uint32_t offset, Encoding enc);

/// LSP range of a byte range.
json rangeOf(std::string_view text, SourceRange range, Encoding enc);

/// A line table over one text: position conversions in O(log lines + line
/// length) instead of O(text), for results with many ranges (semantic
/// tokens, symbols, references, inlay hints). The text must outlive it.
class LineMap {
public:
  LineMap(std::string_view text, Encoding enc);

  /// 0-based line and character (in the encoding's units) of byte \p offset.
  std::pair<uint32_t, uint32_t> lineCharacter(uint32_t offset) const;
  json position(uint32_t offset) const;
  json range(SourceRange range) const;
  /// Byte offset of (line, character), clamped as offsetAt clamps.
  uint32_t offset(uint32_t line, uint32_t character) const;
  /// Length of [begin, end) in the encoding's units (within one line).
  uint32_t units(uint32_t begin, uint32_t end) const;
  uint32_t lineCount() const { return static_cast<uint32_t>(starts_.size()); }
  uint32_t lineStart(uint32_t line) const;
  /// Offset of the end of \p line (its '\n', or the end of the text).
  uint32_t lineEnd(uint32_t line) const;

private:
  std::string_view text_;
  Encoding enc_;
  std::vector<uint32_t> starts_; ///< offset of the first byte of each line
};

/// Reads params field \p key as type T; throws InvalidParams naming the JSON
/// path (e.g. "params.textDocument.uri") when it is missing or mistyped.
template <typename T> T field(const json &object, std::string_view key, std::string_view path) {
  std::string where = std::string(path) + "." + std::string(key);
  if (!object.is_object() || !object.contains(key))
    throw LspError(ErrorCode::InvalidParams, "missing " + where);
  const json &value = object.at(key);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann converts booleans and floats to integers; LSP integers are
    // integers, and its uintegers are not negative.
    if (!value.is_number_integer() || (std::is_unsigned_v<T> && value.is_number_integer() &&
                                       !value.is_number_unsigned() && value.get<int64_t>() < 0))
      throw LspError(ErrorCode::InvalidParams, "wrong type for " + where + " (expected " +
                                                   (std::is_unsigned_v<T> ? "a non-negative integer" : "an integer") +
                                                   ")");
    if constexpr (std::is_unsigned_v<T>)
      if (value.get<uint64_t>() > std::numeric_limits<T>::max())
        return std::numeric_limits<T>::max(); // a position far past the end clamps
  }
  try {
    return object.at(key).get<T>();
  } catch (const json::exception &) {
    throw LspError(ErrorCode::InvalidParams, "wrong type for " + where);
  }
}

/// Path of a file:// URI ("" when the URI is not a file URI).
std::string uriToPath(std::string_view uri);
std::string pathToUri(std::string_view path);

} // namespace cake::lsp
