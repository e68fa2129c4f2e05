//===- Logging.h - The commands' events in the failure log -----*- C++ -*-===//
//
// Part of CAKE. What `cake check` and `cake build` append to the project's
// failure log (formats/FailureLog.h): one event per file, best effort (a log
// that cannot be written never fails the command).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"

#include <string>
#include <string_view>
#include <vector>

namespace cake::cli {

/// Logs \p command's outcome on \p path (its IR \p ir, what it found). The
/// stage is \p stage, or, when empty, "lower" when an error is the
/// lowering's and "static" otherwise.
void logOutcome(std::string_view command, const std::string &path, std::string_view ir,
                const std::vector<Diagnostic> &found, std::string stage = "");

} // namespace cake::cli
