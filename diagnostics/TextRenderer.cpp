//===- TextRenderer.cpp - Clang-style terminal diagnostics ----------------===//
//
// Part of CAKE. See TextRenderer.h for the output format.
//
//===----------------------------------------------------------------------===//
#include "diagnostics/TextRenderer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>

namespace cake {
namespace {

// ANSI escapes, in the shades clang uses.
constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kRed = "\x1b[1;31m";
constexpr std::string_view kGreen = "\x1b[1;32m";
constexpr std::string_view kBlue = "\x1b[1;34m";
constexpr std::string_view kMagenta = "\x1b[1;35m";
constexpr std::string_view kCyan = "\x1b[1;36m";

std::string_view severityColor(Severity s) {
  switch (s) {
  case Severity::Error:
    return kRed;
  case Severity::Warning:
    return kMagenta;
  case Severity::Note:
    return kCyan;
  case Severity::Remark:
    return kBlue;
  }
  return kBold;
}

/// True for the second and later bytes of a UTF-8 sequence: they take no
/// column of their own on a terminal.
bool isUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/// \p text as the body of a C string literal: quotes, backslashes and control
/// characters escaped; bytes of 0x80 and above (UTF-8) kept.
std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out;
}

/// The marker line for byte columns [start, end) of \p line: whitespace up to
/// \p start (tabs copied so the caret lines up), '^' at \p start and '~' over
/// the rest of the range. One marker character per UTF-8 code point.
std::string markerLine(std::string_view line, size_t start, size_t end) {
  std::string out;
  for (size_t i = 0; i < start; ++i)
    if (!isUtf8Continuation(line[i]))
      out += line[i] == '\t' ? '\t' : ' ';
  out += '^';
  for (size_t i = start + 1; i < end; ++i)
    if (!isUtf8Continuation(line[i]))
      out += '~';
  return out;
}

} // namespace

std::string visibleText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    auto b = [&](size_t j) { return j < text.size() ? static_cast<unsigned char>(text[j]) : 0u; };
    unsigned char c = b(i);
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      out += '?';
    } else if (c == 0xC2 && b(i + 1) >= 0x80 && b(i + 1) <= 0x9F) { // C1: U+0080-U+009F
      out += '?';
      i += 1;
    } else if (c == 0xE2 && ((b(i + 1) == 0x80 && b(i + 2) >= 0xAA && b(i + 2) <= 0xAE) ||  // U+202A-U+202E
                             (b(i + 1) == 0x81 && b(i + 2) >= 0xA6 && b(i + 2) <= 0xA9))) { // U+2066-U+2069
      out += '?';
      i += 2;
    } else {
      out += char(c);
    }
  }
  return out;
}

namespace {

/// Prints diagnostics to one stream in one style.
class Printer {
public:
  Printer(std::ostream &os, const SourceManager &sm, const TextStyle &style)
      : os_(os), sm_(sm), style_(style) {}

  void diagnostic(const Diagnostic &d) {
    header(d.range, d.severity, d.message, d.code);
    for (const Note &n : d.notes)
      header(n.range, Severity::Note, n.message, {});
    for (const Fix &f : d.fixes)
      fix(f);
  }

private:
  void paint(std::string_view color, std::string_view text) {
    if (style_.color)
      os_ << color << text << kReset;
    else
      os_ << text;
  }

  /// "file:line:col", or "file:line" for a stand-in buffer (no text, so no column).
  std::string location(FileId file, uint32_t offset) const {
    LineColumn lc = sm_.lineColumn(file, offset);
    if (!sm_.hasText(file))
      return sm_.name(file) + ':' + std::to_string(lc.line);
    return sm_.name(file) + ':' + std::to_string(lc.line) + ':' + std::to_string(lc.column);
  }

  /// \p text with every control character but the tab shown as '?': raw
  /// bytes of a source (an escape sequence, a bell) reached the terminal
  /// (issue #16). One column each, so the marker line stays aligned.
  static std::string visible(std::string_view text) { return visibleText(text); }

  /// "file:line:col: severity: message [code]" and, for a valid range, the
  /// source line with its marker.
  void header(SourceRange range, Severity severity, std::string_view message, std::string_view code) {
    if (range.valid())
      paint(kBold, visible(location(range.file, range.begin)) + ": ");
    paint(severityColor(severity), std::string(severityName(severity)) + ":");
    os_ << ' ';
    std::string text = visible(message);
    if (!code.empty())
      text += " [" + std::string(code) + "]";
    // Like clang, notes keep their message in the plain weight.
    if (severity == Severity::Note)
      os_ << text;
    else
      paint(kBold, text);
    os_ << '\n';
    if (range.valid() && sm_.hasText(range.file))
      snippet(range);
  }

  /// The source line holding range.begin, then '^~~~' under the part of the
  /// range that lies on that line.
  void snippet(SourceRange range) {
    LineColumn lc = sm_.lineColumn(range.file, range.begin);
    std::string_view line = sm_.lineText(range.file, lc.line);
    uint32_t lineBegin = sm_.lineStart(range.file, lc.line);
    // Begin may sit on the line terminator; the caret then follows the text.
    size_t start = std::min<size_t>(lc.column - 1, line.size());
    size_t end = range.end > lineBegin ? range.end - lineBegin : 0;
    end = std::clamp(end, start, line.size());
    os_ << visible(line) << '\n';
    paint(kGreen, markerLine(line, start, end));
    os_ << '\n';
  }

  void fix(const Fix &f) {
    paint(kGreen, f.preferred ? "fix-it:" : "alternative fix-it (not applied by --fix):");
    if (!f.title.empty())
      os_ << ' ' << visible(f.title);
    os_ << '\n';
    for (const TextEdit &e : f.edits)
      edit(e);
  }

  /// "  file:L:C: insert "x"", "  file:L:C-L:C: replace with "x"" or
  /// "  file:L:C-L:C: remove". The end position is exclusive.
  void edit(const TextEdit &e) {
    os_ << "  ";
    bool empty = e.range.end <= e.range.begin;
    if (e.range.valid()) {
      os_ << visible(location(e.range.file, e.range.begin));
      if (!empty) {
        LineColumn lc = sm_.lineColumn(e.range.file, e.range.end);
        os_ << '-' << lc.line << ':' << lc.column;
      }
      os_ << ": ";
    }
    if (empty)
      os_ << "insert \"" << visible(escape(e.newText)) << "\"\n";
    else if (e.newText.empty())
      os_ << "remove\n";
    else
      os_ << "replace with \"" << visible(escape(e.newText)) << "\"\n";
  }

  std::ostream &os_;
  const SourceManager &sm_;
  const TextStyle &style_;
};

std::string plural(size_t n, std::string_view word) {
  std::string out = std::to_string(n) + ' ' + std::string(word);
  if (n != 1)
    out += 's';
  return out;
}

} // namespace

void renderText(std::ostream &os, const SourceManager &sm, const std::vector<Diagnostic> &diags,
                const TextStyle &style) {
  Printer printer(os, sm, style);
  for (const Diagnostic &d : diags)
    printer.diagnostic(d);
}

void renderSummary(std::ostream &os, const std::vector<Diagnostic> &diags) {
  size_t errors = countErrors(diags);
  size_t warnings = std::count_if(diags.begin(), diags.end(),
                                  [](const Diagnostic &d) { return d.severity == Severity::Warning; });
  if (errors == 0 && warnings == 0)
    return;
  std::string line;
  if (errors != 0)
    line = plural(errors, "error");
  if (warnings != 0)
    line += (line.empty() ? "" : ", ") + plural(warnings, "warning");
  os << line << " generated.\n";
}

bool shouldUseColor(int fd) {
  if (!isatty(fd))
    return false;
  const char *noColor = std::getenv("NO_COLOR");
  if (noColor && *noColor)
    return false;
  const char *term = std::getenv("TERM");
  return term && *term && std::string_view(term) != "dumb";
}

} // namespace cake
