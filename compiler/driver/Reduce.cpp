//===- Reduce.cpp - Shrinking a program that keeps a failure --------------===//
#include "compiler/driver/Reduce.h"

#include "compiler/driver/Check.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Walk.h"

#include <algorithm>
#include <map>
#include <set>

namespace cake {

namespace {

std::vector<Diagnostic> check(const std::string &text) {
  SourceManager sm;
  FileId file = sm.addBuffer("reduce.cake", text);
  return checkSource(sm, file).diagnostics;
}

} // namespace

std::vector<std::string> quotedNames(const std::string &message) {
  std::vector<std::string> out;
  for (size_t at = message.find('\''); at != std::string::npos;) {
    size_t end = message.find('\'', at + 1);
    if (end == std::string::npos)
      break;
    out.push_back(message.substr(at + 1, end - at - 1));
    at = message.find('\'', end + 1);
  }
  return out;
}

Signature keepsDiagnostic(std::string code, const std::string &original) {
  // each error code at most as often as in the original (the kept code at least once), and the kept finding
  // one of the original's: the same names quoted (a ring.balance of the ring 'xs' between 'load' and 'compute'
  // does not become one of another ring whose consumer the reduction deleted)
  std::map<std::string, size_t> allowed;
  std::set<std::vector<std::string>> findings;
  for (const Diagnostic &d : check(original)) {
    if (d.severity == Severity::Error)
      ++allowed[d.code];
    if (d.code == code)
      findings.insert(quotedNames(d.message));
  }
  allowed[code] = std::max<size_t>(allowed[code], 1);
  return [code = std::move(code), allowed = std::move(allowed), findings = std::move(findings)](const std::string &text) {
    bool kept = false;
    std::map<std::string, size_t> seen;
    for (const Diagnostic &d : check(text)) {
      kept |= d.code == code && (findings.empty() || findings.count(quotedNames(d.message)));
      if (d.severity != Severity::Error)
        continue;
      auto it = allowed.find(d.code);
      if (it == allowed.end() || ++seen[d.code] > it->second)
        return false;
    }
    return kept;
  };
}

namespace {

/// [begin, end) widened to whole lines when the lines hold nothing else:
/// the indentation before and the line break after go too.
std::pair<size_t, size_t> wholeLines(const std::string &text, size_t begin, size_t end) {
  size_t b = begin;
  while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t'))
    --b;
  size_t e = end;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r'))
    ++e;
  if (e < text.size() && text[e] == ',') // a parameter or slot with its separator
    for (++e; e < text.size() && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r');)
      ++e;
  const bool lineStart = b == 0 || text[b - 1] == '\n', lineEnd = e == text.size() || text[e] == '\n';
  if (lineStart && lineEnd)
    return {b, std::min(text.size(), e + 1)};
  return {begin, end};
}

} // namespace

std::vector<std::pair<size_t, size_t>> deletionCandidates(const std::string &text) {
  SourceManager sm;
  FileId file = sm.addBuffer("reduce.cake", text);
  std::vector<Diagnostic> diags;
  syntax::Module module = syntax::parse(sm, file, diags);
  std::vector<std::pair<size_t, size_t>> out;
  if (countErrors(diags))
    return out;
  auto add = [&](SourceRange r) {
    if (r.end > r.begin && r.end <= text.size())
      out.push_back(wholeLines(text, r.begin, r.end));
  };
  syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) { add(s.range); });
  // then a kernel's parameters and a ring's slots, each on its own line(s)
  syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) {
    if (auto *k = dyn_cast<syntax::KernelDecl>(&s))
      for (const syntax::Field &f : k->params)
        add(f.range);
    if (auto *r = dyn_cast<syntax::RingStmt>(&s))
      for (const syntax::Field &f : r->slots)
        add(f.range);
  });
  // lines that hold only a comment, and blank lines
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    size_t first = text.find_first_not_of(" \t\r", at);
    if (first == std::string::npos || first >= end - (nl == std::string::npos ? 0 : 1) ||
        (first + 1 < end && text.compare(first, 2, "//") == 0))
      out.push_back({at, end});
    at = end;
  }
  return out;
}

Reduction reduce(std::string text, const Signature &keeps, size_t maxTests,
                 const std::function<void(const Reduction &)> &onKept) {
  Reduction r;
  // One pass tries every candidate once, outermost first; a kept deletion changes the offsets, so the
  // pass starts again from the candidate at the same position in the new text. Passes repeat until one
  // keeps nothing: then no single deletion of the final text keeps the signature.
  for (bool changed = true; changed && r.tests < maxTests;) {
    changed = false;
    auto candidates = deletionCandidates(text);
    for (size_t i = 0; i < candidates.size() && r.tests < maxTests;) {
      auto [b, e] = candidates[i];
      std::string trial = text.substr(0, b) + text.substr(e);
      ++r.tests;
      if (trial != text && keeps(trial)) {
        text = std::move(trial);
        candidates = deletionCandidates(text);
        ++r.deletions;
        changed = true;
        if (onKept) {
          r.text = text;
          onKept(r);
        }
      } else {
        ++i;
      }
    }
  }
  r.text = std::move(text);
  return r;
}

} // namespace cake
