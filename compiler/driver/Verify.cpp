//===- Verify.cpp - Expected-diagnostic annotations -----------------------===//
#include "compiler/driver/Verify.h"

#include <cstdlib>
#include <optional>
#include <string_view>

namespace cake {
namespace {

struct Expectation {
  Severity severity;
  uint32_t line;
  std::optional<uint32_t> column, endColumn;
  std::string code;
  std::string text;
  uint32_t annotationLine;
  bool met = false;
};

/// One produced message: a diagnostic or one of its located notes.
struct Produced {
  Severity severity;
  SourceRange range;
  std::string code;
  std::string message;
  bool matched = false;
};

std::optional<Severity> severityFromName(std::string_view s) {
  if (s == "error")
    return Severity::Error;
  if (s == "warning")
    return Severity::Warning;
  if (s == "note")
    return Severity::Note;
  if (s == "remark")
    return Severity::Remark;
  return std::nullopt;
}

/// Reads a decimal number at \p s, advancing it.
std::optional<uint32_t> readNumber(std::string_view &s) {
  size_t n = 0;
  while (n < s.size() && n < 9 && s[n] >= '0' && s[n] <= '9')
    ++n;
  if (n == 0)
    return std::nullopt;
  uint32_t v = static_cast<uint32_t>(std::strtoul(std::string(s.substr(0, n)).c_str(), nullptr, 10));
  s.remove_prefix(n);
  return v;
}

void skipSpaces(std::string_view &s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
}

/// Parses annotations on one line of source; appends them or an error.
void parseLine(std::string_view text, uint32_t line, std::vector<Expectation> &out,
               std::vector<std::string> &errors, const std::string &fileName) {
  static constexpr std::string_view kTag = "expected-";
  size_t comment = text.find("//");
  if (comment == std::string_view::npos)
    return;
  std::string_view s = text.substr(comment);
  for (size_t at = s.find(kTag); at != std::string_view::npos; at = s.find(kTag)) {
    s.remove_prefix(at + kTag.size());
    size_t nameEnd = s.find_first_not_of("abcdefghijklmnopqrstuvwxyz");
    auto severity = severityFromName(s.substr(0, nameEnd));
    if (!severity)
      continue;
    s.remove_prefix(nameEnd == std::string_view::npos ? s.size() : nameEnd);
    auto bad = [&](const char *why) {
      errors.push_back(fileName + ":" + std::to_string(line) + ": malformed annotation: " + why);
    };
    Expectation e{*severity, line, {}, {}, {}, {}, line};
    if (!s.empty() && s.front() == '@') {
      s.remove_prefix(1);
      char sign = s.empty() ? '\0' : s.front();
      if (sign == '+' || sign == '-')
        s.remove_prefix(1);
      auto n = readNumber(s);
      if (!n)
        return bad("expected a line after '@'");
      e.line = sign == '+' ? line + *n : sign == '-' ? line - std::min(*n, line - 1) : *n;
    }
    if (!s.empty() && s.front() == ':') {
      s.remove_prefix(1);
      e.column = readNumber(s);
      if (!e.column)
        return bad("expected a column after ':'");
      if (!s.empty() && s.front() == '-') {
        s.remove_prefix(1);
        e.endColumn = readNumber(s);
        if (!e.endColumn)
          return bad("expected an end column after '-'");
      }
    }
    skipSpaces(s);
    if (!s.empty() && s.front() != '{') {
      size_t codeEnd = s.find_first_of(" \t{");
      e.code = std::string(s.substr(0, codeEnd));
      s.remove_prefix(codeEnd == std::string_view::npos ? s.size() : codeEnd);
      skipSpaces(s);
    }
    if (!s.starts_with("{{"))
      return bad("expected '{{' after the annotation");
    size_t close = s.find("}}", 2);
    if (close == std::string_view::npos)
      return bad("expected '}}' to close the message");
    e.text = std::string(s.substr(2, close - 2));
    s.remove_prefix(close + 2);
    out.push_back(std::move(e));
  }
}

bool matches(const Expectation &e, const Produced &p, const SourceManager &sm) {
  if (e.severity != p.severity || !p.range.valid())
    return false;
  LineColumn begin = sm.lineColumn(p.range.file, p.range.begin);
  if (begin.line != e.line || (e.column && begin.column != *e.column))
    return false;
  if (e.endColumn && sm.lineColumn(p.range.file, p.range.end).column != *e.endColumn)
    return false;
  return (e.code.empty() || e.code == p.code) && p.message.find(e.text) != std::string::npos;
}

} // namespace

std::vector<std::string> verifyDiagnostics(const SourceManager &sm, FileId file,
                                           const std::vector<Diagnostic> &diags) {
  std::vector<std::string> errors;
  const std::string &name = sm.name(file);
  std::vector<Expectation> expected;
  for (uint32_t line = 1; line <= sm.lineCount(file); ++line)
    parseLine(sm.lineText(file, line), line, expected, errors, name);

  std::vector<Produced> produced;
  for (const Diagnostic &d : diags) {
    produced.push_back({d.severity, d.range, d.code, d.message});
    for (const Note &n : d.notes)
      if (n.range.valid())
        produced.push_back({Severity::Note, n.range, d.code, n.message});
  }
  for (Expectation &e : expected)
    for (Produced &p : produced)
      if (!p.matched && matches(e, p, sm)) {
        e.met = p.matched = true;
        break;
      }
  for (const Expectation &e : expected)
    if (!e.met)
      errors.push_back(name + ":" + std::to_string(e.annotationLine) + ": expected " + severityName(e.severity) +
                       " on line " + std::to_string(e.line) + " not produced: {{" + e.text + "}}");
  for (const Produced &p : produced)
    if (!p.matched) {
      LineColumn lc = sm.lineColumn(p.range.file, p.range.begin);
      errors.push_back(name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": unexpected " +
                       severityName(p.severity) + ": " + p.message + " [" + p.code + "]");
    }
  return errors;
}

namespace {

/// The start of \p message that an expectation quotes: up to 60 characters, cut before anything that would end
/// or open the {{...}} (and at a line break).
std::string quotable(const std::string &message) {
  std::string out = message.substr(0, 60);
  for (const char *stop : {"}}", "{{", "\n"})
    if (size_t at = out.find(stop); at != std::string::npos)
      out.resize(at);
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

std::string severityWord(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  default:
    return "remark";
  }
}

} // namespace

std::string withExpectations(const SourceManager &sm, FileId file, const std::vector<Diagnostic> &diags,
                             const std::vector<std::string> &header) {
  struct Expect {
    std::string kind, code, message;
    uint32_t line, column;
  };
  std::vector<Expect> expects;
  auto add = [&](const std::string &kind, SourceRange range, const std::string &code, const std::string &message) {
    if (!range.valid() || range.file != file)
      return;
    LineColumn lc = sm.lineColumn(file, range.begin);
    expects.push_back({kind, code, quotable(message), lc.line, lc.column});
  };
  for (const Diagnostic &d : diags) {
    add(severityWord(d.severity), d.range, d.code, d.message);
    for (const Note &n : d.notes)
      add("note", n.range, "", n.message);
  }
  // every line of the program moves down by the lines written in front of it
  const uint32_t shift = uint32_t(header.size() + expects.size());
  std::string out;
  for (const std::string &h : header)
    out += "// " + h + "\n";
  for (const Expect &e : expects)
    out += "// expected-" + e.kind + "@" + std::to_string(e.line + shift) + ":" + std::to_string(e.column) +
           (e.code.empty() ? "" : " " + e.code) + " {{" + e.message + "}}\n";
  return out + std::string(sm.text(file));
}

} // namespace cake
