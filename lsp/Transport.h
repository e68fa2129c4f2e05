//===- Transport.h - LSP base protocol framing -----------------*- C++ -*-===//
//
// Part of CAKE. Reads and writes JSON-RPC messages framed by the LSP base
// protocol (`Content-Length: N\r\n\r\n` + N bytes). Defensive: a missing or
// absurd Content-Length, a truncated body or junk between messages is
// reported to the caller and skipped; the reader resynchronizes at the next
// header instead of trusting a length it cannot honour.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace cake::lsp {

/// The largest message body the server accepts (a 2 GB Content-Length is
/// refused without reading it).
inline constexpr size_t kMaxMessageBytes = 64u << 20;

class Transport {
public:
  /// Reads from file descriptor \p in and writes to \p out.
  Transport(int in, int out) : in_(in), out_(out) {}

  struct Message {
    std::string body;  ///< the JSON text
    std::string error; ///< set instead of body for a framing error
  };

  /// The next message or framing error; nullopt at end of input.
  std::optional<Message> read();

  /// True when a complete message is already buffered or more input is
  /// ready without blocking (used to coalesce work during bursts of edits).
  bool inputPending();

  void write(const std::string &body);

private:
  bool fill(bool block);
  std::optional<size_t> findHeaderEnd() const;
  bool skipJunk();

  int in_, out_;
  std::string buffer_;
  bool eof_ = false;
};

} // namespace cake::lsp
