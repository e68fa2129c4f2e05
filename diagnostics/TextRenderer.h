//===- TextRenderer.h - Clang-style terminal diagnostics -------*- C++ -*-===//
//
// Part of CAKE. Prints diagnostics the way clang does:
//
//   kernel.cake:3:8: error: expected ';' after expression [syntax.unexpected]
//     y = 3
//          ^
//   kernel.cake:3:3: note: statement starts here
//     y = 3
//     ^
//   fix-it: insert ';'
//     kernel.cake:3:8: insert ";"
//
// Columns are 1-based bytes. The marker line copies the source line's tabs
// and spends one character per UTF-8 code point, so the caret lines up on a
// terminal; a range spanning lines is underlined to the end of its first
// line. Fix-it edits print as "insert", "replace with" or "remove", with a
// half-open L:C-L:C range.
//
// The summary line ("2 errors, 1 warning generated.") is a separate function
// so that the driver decides whether and when to print it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"
#include "diagnostics/Source.h"

#include <ostream>
#include <vector>

namespace cake {

/// How renderText decorates its output.
struct TextStyle {
  /// Emit ANSI escapes: bold locations and messages, red errors, magenta
  /// warnings, cyan notes, green carets and fix-its.
  bool color = false;
};

/// Prints every diagnostic in \p diags, in the order given, with its source
/// line, a caret/underline marker, its notes and its fixes. Diagnostics and
/// notes whose range is invalid print without location or source line; those
/// in a stand-in buffer (SourceManager::addStandIn) print "file:line" only.
/// Ranges must name buffers of \p sm (SourceManager throws otherwise).
void renderText(std::ostream &os, const SourceManager &sm, const std::vector<Diagnostic> &diags,
                const TextStyle &style);

/// Prints "N errors, M warnings generated." (zero counts left out, singular
/// for one) followed by a newline. Prints nothing when \p diags holds no
/// error and no warning.
void renderSummary(std::ostream &os, const std::vector<Diagnostic> &diags);

/// \p text as it may reach a terminal: every control character but the tab
/// (C0, DEL, the C1 controls U+0080-U+009F) and the
/// bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069, which
/// reorder what a reader sees) become one '?' each, one column as before
/// (issue #16: escape sequences in a source or a file name reached the
/// terminal). A newline becomes '?' too: the text is one line.
std::string visibleText(std::string_view text);

/// True when output to \p fd should be coloured: \p fd is a terminal, TERM is
/// set and is not "dumb", and NO_COLOR is unset or empty (https://no-color.org).
bool shouldUseColor(int fd);

} // namespace cake
