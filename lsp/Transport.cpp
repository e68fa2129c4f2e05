//===- Transport.cpp - LSP base protocol framing --------------------------===//
#include "lsp/Transport.h"

#include <cerrno>
#include <cstdlib>
#include <poll.h>
#include <unistd.h>

namespace cake::lsp {
namespace {

/// Case-insensitive header-name match at the start of \p line.
bool startsWithNoCase(std::string_view line, std::string_view prefix) {
  if (line.size() < prefix.size())
    return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

} // namespace

bool Transport::fill(bool block) {
  if (eof_)
    return false;
  pollfd p{in_, POLLIN, 0};
  int ready;
  do
    ready = poll(&p, 1, block ? -1 : 0);
  while (ready < 0 && errno == EINTR);
  if (!block && ready <= 0)
    return false;
  inHand_ = true; // from here until settle(), inputWaiting() is true
  char chunk[1 << 16];
  ssize_t n;
  do
    n = ::read(in_, chunk, sizeof chunk);
  while (n < 0 && errno == EINTR);
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

std::string_view Transport::pending() const { return std::string_view(buffer_).substr(begin_); }

void Transport::consume(size_t n) {
  begin_ += n;
  // Compacted once the consumed front is at least half the buffer: each
  // byte is moved O(1) times in all. Erasing every message from the front
  // moved the whole rest of the buffer per message (issue #16: 80,000
  // notifications read together took 7.8 s).
  if (begin_ == buffer_.size()) {
    buffer_.clear();
    begin_ = 0;
  } else if (begin_ >= buffer_.size() / 2) {
    buffer_.erase(0, begin_);
    begin_ = 0;
  }
}

void Transport::discardAll() {
  buffer_.clear();
  begin_ = 0;
}

std::optional<size_t> Transport::findHeaderEnd() const {
  // Only the headers of the first message are looked at: a bare "\n\n"
  // is searched for up to the first "\r\n\r\n", not in the bodies after it.
  std::string_view in = pending();
  size_t crlf = in.find("\r\n\r\n");
  size_t lf = in.substr(0, crlf == std::string_view::npos ? in.size() : crlf).find("\n\n"); // tolerate bare newlines
  if (lf != std::string_view::npos)
    return lf + 2;
  return crlf == std::string_view::npos ? std::nullopt : std::optional<size_t>(crlf + 4);
}

/// The number of bytes before the first "Content-Length" header (junk
/// between messages, or the unread body of a refused message); 0 when there
/// is no header yet.
size_t Transport::junkLength() const {
  std::string_view in = pending();
  for (size_t i = 0; i + 15 <= in.size(); ++i)
    if (startsWithNoCase(in.substr(i), "content-length:"))
      return i;
  return 0;
}

std::optional<Transport::Message> Transport::parseBuffered(bool peek) {
  if (size_t junk = junkLength()) {
    if (!peek)
      consume(junk);
    return Message{{}, "junk between messages; skipped to the next Content-Length header"};
  }
  auto headerEnd = findHeaderEnd();
  if (!headerEnd) {
    if (pending().size() > 64 * 1024) { // no header in 64 KiB: junk
      if (!peek)
        discardAll();
      return Message{{}, "no message header in the last 64 KiB of input; discarded"};
    }
    return std::nullopt;
  }
  std::string_view headers = pending().substr(0, *headerEnd);
  std::optional<size_t> length;
  bool tooLarge = false;
  for (size_t pos = 0; pos < headers.size();) {
    size_t nl = headers.find('\n', pos);
    std::string_view line = headers.substr(pos, (nl == std::string_view::npos ? headers.size() : nl) - pos);
    pos = nl == std::string_view::npos ? headers.size() : nl + 1;
    if (startsWithNoCase(line, "content-length:")) {
      std::string value(line.substr(15));
      char *end = nullptr;
      errno = 0;
      unsigned long long v = std::strtoull(value.c_str(), &end, 10);
      if (errno == 0 && end != value.c_str()) {
        tooLarge = v > kMaxMessageBytes;
        length = static_cast<size_t>(std::min<unsigned long long>(v, kMaxMessageBytes + 1));
      }
    }
  }
  if (!length || tooLarge) {
    // Do not trust the length: drop the header and resynchronize at the
    // next one.
    if (!peek)
      consume(*headerEnd);
    return Message{{}, tooLarge ? "Content-Length exceeds the 64 MiB limit; message skipped"
                                : "message header without a valid Content-Length; skipped"};
  }
  if (pending().size() < *headerEnd + *length)
    return std::nullopt;
  if (peek)
    return Message{};
  Message m{std::string(pending().substr(*headerEnd, *length)), {}};
  consume(*headerEnd + *length);
  return m;
}

std::optional<Transport::Message> Transport::read() {
  for (;;) {
    if (auto m = parseBuffered(/*peek=*/false))
      return m;
    if (!fill(true)) {
      if (pending().find_first_not_of(" \r\n\t") == std::string_view::npos)
        return std::nullopt;
      bool body = findHeaderEnd().has_value();
      discardAll();
      return Message{{}, body ? "truncated message body at end of input" : "truncated message header at end of input"};
    }
  }
}

bool Transport::messageBuffered() {
  // Bounded: input that never forms a message (`cake lsp < /dev/zero`) is
  // read at most one largest message plus the 64 KiB junk window ahead
  // (issue #16: it was buffered without bound, 16.8 GB, then abort).
  while (pending().size() <= kMaxMessageBytes + 64 * 1024 && fill(false)) {
  }
  if (pending().find_first_not_of(" \r\n\t") == std::string_view::npos)
    return false;
  if (eof_)
    return true; // read() reports the truncated rest at once
  return parseBuffered(/*peek=*/true).has_value();
}

void Transport::settle() { inHand_ = pending().find_first_not_of(" \r\n\t") != std::string_view::npos; }

bool Transport::inputWaiting() const {
  if (inHand_)
    return true;
  pollfd p{in_, POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

void Transport::write(const std::string &body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  const char *p = out.data();
  size_t left = out.size();
  while (left) {
    ssize_t n = ::write(out_, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; // the client is gone; the read side will see EOF
    p += n;
    left -= static_cast<size_t>(n);
  }
}

} // namespace cake::lsp
