//===- Sink.h - Collecting diagnostics -------------------------*- C++ -*-===//
//
// Part of CAKE. Passes report through a DiagnosticSink: the severity comes
// from the rule catalog, so a rule's code and severity cannot disagree, and
// the returned reference lets the caller attach notes and fixes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Catalog.h"

#include <string>
#include <vector>

namespace cake {

class DiagnosticSink {
public:
  explicit DiagnosticSink(std::vector<Diagnostic> &out) : out_(out) {}

  /// Records a finding of rule \p code (which must be in the catalog) at
  /// \p range, with the rule's default severity.
  Diagnostic &report(std::string_view code, SourceRange range, std::string message);

  /// Adds findings collected by another sink, in order.
  void append(std::vector<Diagnostic> diags) {
    for (Diagnostic &d : diags)
      out_.push_back(std::move(d));
  }

  /// Diagnostics recorded so far, by index (references may move on report()).
  size_t size() const { return out_.size(); }
  Diagnostic &at(size_t index) { return out_.at(index); }

private:
  std::vector<Diagnostic> &out_;
};

/// A fix that replaces \p range with \p text.
Fix replaceFix(std::string title, SourceRange range, std::string text);
/// A fix that inserts \p text at \p offset of \p file.
Fix insertFix(std::string title, FileId file, uint32_t offset, std::string text);

/// The candidate closest to \p name by edit distance, if it is close enough
/// to be a plausible typo (at most a third of the length, at least one).
std::string_view closestMatch(std::string_view name, const std::vector<std::string_view> &candidates);

} // namespace cake
