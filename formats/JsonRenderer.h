//===- JsonRenderer.h - Diagnostics as JSON --------------------*- C++ -*-===//
//
// Part of CAKE. `cake check --format=json` prints this document:
//
//   {
//     "version": 1,
//     "diagnostics": [
//       { "code": "syntax.unexpected", "severity": "error", "message": "...",
//         "file": "k.cake",
//         "range": { "start": { "line": 3, "column": 9, "offset": 41 },
//                    "end":   { "line": 3, "column": 10, "offset": 42 } },
//         "notes": [ { "message": "...", "file": ..., "range": ... } ],
//         "fixes": [ { "title": "...",
//                      "edits": [ { "file": ..., "range": ..., "newText": ";" } ] } ] }
//     ],
//     "summary": { "errors": 1, "warnings": 0 }
//   }
//
// Lines and columns are 1-based, columns count bytes; offsets are 0-based
// bytes; "end" is exclusive. An invalid range is written as "file": null and
// "range": null. Keys keep this order and nothing depends on the clock, so
// equal input gives byte-identical output.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"
#include "diagnostics/Source.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace cake {

/// The version of the document described above; bump it on any change that
/// can break a reader.
inline constexpr int kJsonFormatVersion = 1;

/// The document described above, for embedding (e.g. by the language server).
nlohmann::ordered_json diagnosticsToJson(const SourceManager &sm, const std::vector<Diagnostic> &diags);

/// The document pretty-printed with a 2-space indent and a trailing newline.
/// Bytes that are not valid UTF-8 are written as U+FFFD.
std::string renderJson(const SourceManager &sm, const std::vector<Diagnostic> &diags);

} // namespace cake
