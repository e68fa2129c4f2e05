//===- Fixes.h - Applying fix-its ------------------------------*- C++ -*-===//
#pragma once

#include "diagnostics/Diagnostic.h"

#include <string>
#include <string_view>

namespace cake {

/// Applies to \p text (the contents of \p file) the first preferred fix of
/// every diagnostic in \p diags (alternatives that are not preferred are
/// never applied unasked), or only of those with code \p onlyCode when it is
/// not empty. A fix whose edits overlap an already chosen fix is skipped, so
/// the result is well defined; checking again shows what is left. Returns
/// the number of fixes applied.
size_t applyFixes(std::string &text, FileId file, const std::vector<Diagnostic> &diags,
                  std::string_view onlyCode = {});

} // namespace cake
