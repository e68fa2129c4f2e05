//===- Diagnostic.h - The diagnostic model ---------------------*- C++ -*-===//
//
// Part of CAKE. A Diagnostic is plain data: a stable code, a severity, a
// primary range, a message, notes with ranges of their own and fixes made of
// text edits. Renderers (text here, JSON/SARIF in cli/, LSP in lsp/) only read
// it; nothing in compiler/ knows how it will be printed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Source.h"

#include <string>
#include <vector>

namespace cake {

enum class Severity { Error, Warning, Note, Remark };

/// "error", "warning", "note" or "remark".
const char *severityName(Severity s);

/// Replace the bytes of \p range with \p newText.
struct TextEdit {
  SourceRange range;
  std::string newText;
  friend bool operator==(const TextEdit &, const TextEdit &) = default;
};

/// One fix: all edits apply together or not at all. A preferred fix is
/// machine-applicable: it restores the intended program, so `cake check
/// --fix`, the server's apply-all command and editors' "fix all" take it. A
/// fix that is not preferred is one of several readings of an ambiguous
/// intent: offered as a code action, never applied unasked.
struct Fix {
  std::string title;
  std::vector<TextEdit> edits;
  bool preferred = true;
  friend bool operator==(const Fix &, const Fix &) = default;
};

/// A secondary location that explains the finding (e.g. the other end of a
/// ring). The range may be invalid for a note that has no location.
struct Note {
  SourceRange range;
  std::string message;
  friend bool operator==(const Note &, const Note &) = default;
};

struct Diagnostic {
  std::string code; ///< Stable rule code, e.g. "syntax.unexpected".
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
  std::vector<Note> notes;
  std::vector<Fix> fixes;
  friend bool operator==(const Diagnostic &, const Diagnostic &) = default;
};

/// The first preferred (machine-applicable) fix of \p d, or nullptr.
const Fix *firstPreferred(const Diagnostic &d);

/// Orders diagnostics deterministically: file, begin, end, code, message.
void sortDiagnostics(std::vector<Diagnostic> &diags);

/// Counts diagnostics of severity Error.
size_t countErrors(const std::vector<Diagnostic> &diags);

/// Applies the edits of \p fixes to \p text. Edits must not overlap; an
/// overlapping or out-of-range edit is skipped and reported through the
/// return value (false). Offsets refer to the original text.
bool applyEdits(std::string &text, std::vector<TextEdit> edits);

} // namespace cake
