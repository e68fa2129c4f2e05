//===- Transport.h - LSP base protocol framing -----------------*- C++ -*-===//
//
// Part of CAKE. Reads and writes JSON-RPC messages framed by the LSP base
// protocol (`Content-Length: N\r\n\r\n` + N bytes). Defensive: a missing or
// absurd Content-Length, a truncated body or junk between messages is
// reported to the caller and skipped; the reader resynchronizes at the next
// header instead of trusting a length it cannot honour.
//
// Threads: the server's reader thread calls read() and messageBuffered();
// the main thread asks inputWaiting() (to hold diagnostics back during a
// burst of edits); replies are written by whoever holds the server's writer
// lock. Reading and writing use different descriptors and no shared state.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

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

  /// The next message or framing error; nullopt at end of input. Blocks
  /// until one is complete.
  std::optional<Message> read();

  /// True when read() would return at once: a complete message (or a
  /// framing error) is buffered after reading what is ready without
  /// blocking. The reader thread hands every such message to the server
  /// together, so that a request and its $/cancelRequest written at once
  /// are seen at once.
  bool messageBuffered();

  /// Called by the reader after it handed over what it read: input is no
  /// longer "in hand" unless a partial message is buffered.
  void settle();

  /// True while input is read but not handed over yet, or ready to be read
  /// (any thread; used to coalesce work during bursts of edits).
  bool inputWaiting() const;

  void write(const std::string &body);

private:
  bool fill(bool block);
  /// The unread input: buffer_ from begin_.
  std::string_view pending() const;
  /// Drops \p n bytes of the unread input.
  void consume(size_t n);
  void discardAll();
  std::optional<size_t> findHeaderEnd() const;
  size_t junkLength() const;
  /// A message or framing error from the buffer alone; nullopt when more
  /// input is needed. \p peek: only says whether there is one (its body
  /// is left out), consuming nothing.
  std::optional<Message> parseBuffered(bool peek);

  int in_, out_;
  std::string buffer_;
  size_t begin_ = 0; ///< buffer_'s bytes before it are consumed
  bool eof_ = false;
  std::atomic<bool> inHand_{false};
};

} // namespace cake::lsp
