//===- Error.h - The errors a request of the language server fails with -*- C++ -*-===//
//
// Part of CAKE. The core (lsp/core/, lsp/features/) throws LspError with a
// JSON-RPC error code; the protocol layer turns it into the error reply of
// the request. The codes are plain integers: knowing them does not make the
// core know JSON.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <stdexcept>
#include <string>

namespace cake::lsp {

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

} // namespace cake::lsp
