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

std::optional<size_t> Transport::findHeaderEnd() const {
  size_t at = buffer_.find("\r\n\r\n");
  if (at != std::string::npos)
    return at + 4;
  at = buffer_.find("\n\n"); // tolerate bare newlines
  return at == std::string::npos ? std::nullopt : std::optional<size_t>(at + 2);
}

/// The number of bytes before the first "Content-Length" header (junk
/// between messages, or the unread body of a refused message); 0 when there
/// is no header yet.
size_t Transport::junkLength() const {
  for (size_t i = 0; i + 15 <= buffer_.size(); ++i)
    if (startsWithNoCase(std::string_view(buffer_).substr(i), "content-length:"))
      return i;
  return 0;
}

std::optional<Transport::Message> Transport::parseBuffered(bool peek) {
  if (size_t junk = junkLength()) {
    if (!peek)
      buffer_.erase(0, junk);
    return Message{{}, "junk between messages; skipped to the next Content-Length header"};
  }
  auto headerEnd = findHeaderEnd();
  if (!headerEnd) {
    if (buffer_.size() > 64 * 1024) { // no header in 64 KiB: junk
      if (!peek)
        buffer_.clear();
      return Message{{}, "no message header in the last 64 KiB of input; discarded"};
    }
    return std::nullopt;
  }
  std::string_view headers(buffer_.data(), *headerEnd);
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
      buffer_.erase(0, *headerEnd);
    return Message{{}, tooLarge ? "Content-Length exceeds the 64 MiB limit; message skipped"
                                : "message header without a valid Content-Length; skipped"};
  }
  if (buffer_.size() < *headerEnd + *length)
    return std::nullopt;
  if (peek)
    return Message{};
  Message m{buffer_.substr(*headerEnd, *length), {}};
  buffer_.erase(0, *headerEnd + *length);
  return m;
}

std::optional<Transport::Message> Transport::read() {
  for (;;) {
    if (auto m = parseBuffered(/*peek=*/false))
      return m;
    if (!fill(true)) {
      if (buffer_.find_first_not_of(" \r\n\t") == std::string::npos)
        return std::nullopt;
      bool body = findHeaderEnd().has_value();
      buffer_.clear();
      return Message{{}, body ? "truncated message body at end of input" : "truncated message header at end of input"};
    }
  }
}

bool Transport::messageBuffered() {
  // Bounded: input that never forms a message (`cake lsp < /dev/zero`) is
  // read at most one largest message plus the 64 KiB junk window ahead
  // (issue #16: it was buffered without bound, 16.8 GB, then abort).
  while (buffer_.size() <= kMaxMessageBytes + 64 * 1024 && fill(false)) {
  }
  if (buffer_.find_first_not_of(" \r\n\t") == std::string::npos)
    return false;
  if (eof_)
    return true; // read() reports the truncated rest at once
  return parseBuffered(/*peek=*/true).has_value();
}

void Transport::settle() { inHand_ = buffer_.find_first_not_of(" \r\n\t") != std::string::npos; }

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
